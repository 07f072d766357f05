// What a line of embed-query input asks for:
//   "frog"                -> the neighbours of one word
//   "king - man + woman"  -> the neighbours of an expression: words joined by + and -,
//                            written as separate tokens (words may contain '-', as
//                            "well-known"); words with no operator between them add up
//   "cat<TAB>dog"         -> the cosine similarity of two words
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace embed {

enum class QueryKind { neighbours, expression, similarity };

struct QueryWord {
  std::string word;
  float weight;  // +1 or -1
};

struct ParsedQuery {
  QueryKind kind = QueryKind::neighbours;
  std::vector<QueryWord> words;
  std::string text;  // the query as echoed in answers: "frog", "king - man + woman", "cat\tdog"
};

// A blank line, or one whose first non-blank character is '#': not a query, skipped
// without an answer (as the evaluation files' comments are).
bool is_blank_or_comment(std::string_view line);
// Parses one input line (a trailing "\r" is ignored). Throws embed::Error saying what
// is wrong: an empty line, a dangling operator, a similarity without two words.
ParsedQuery parse_query_line(std::string_view line);
// Parses an expression with + and - (--analogy); a single word is a neighbours query.
ParsedQuery parse_expression(std::string_view expression);

}  // namespace embed
