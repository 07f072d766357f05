// Printing embed-query's answers in one of three shapes:
//   text  for people:   the query, then one indented "word  score" line per neighbour
//   tsv   for awk/cut:  "query<TAB>rank<TAB>word<TAB>score" per neighbour,
//                       "word<TAB>word<TAB>score" per similarity
//   json  for scripts:  one object per query and line (JSON lines); a similarity's
//                       "query" is its two words, ["cat", "dog"]
// Machine formats keep every failed query too, in its place, so that answers stay aligned
// with questions: TSV as a row with "error" where the rank (or a similarity's score)
// would be, then the message; JSON as {"query": ..., "error": ...}.
// A word outside the vocabulary answered from its fastText subword vector is marked
// "[oov: WORD]" after the query (text) or by "oov": true and "oov_words" (JSON); TSV keeps
// its columns.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "query/query_parse.h"
#include "search/top_k.h"
#include "search/vector_space.h"

namespace embed {

enum class OutputFormat { text, tsv, json };
OutputFormat parse_output_format(std::string_view name);  // CLI11 checks the spelling first
std::vector<std::string> output_format_names();           // --format's choices: text, tsv, json

class AnswerWriter {
 public:
  AnswerWriter(std::ostream& out, OutputFormat format, const VectorSpace& space) : out_(out), format_(format), space_(space) {}

  // `oov` lists the query's words that are outside the vocabulary, answered from their
  // subword vectors: text marks the query line, JSON adds "oov": true and "oov_words".
  void neighbours(const ParsedQuery& query, const std::vector<Hit>& hits, const std::vector<std::string>& oov = {});
  void similarity(const ParsedQuery& query, float score, const std::vector<std::string>& oov = {});
  // A query that failed: `query` as parsed, or null when the line `text` did not parse.
  // Text puts nothing on stdout (the message goes to stderr in every format).
  void failure(std::string_view text, const ParsedQuery* query, const std::string& message);

 private:
  std::ostream& out_;
  OutputFormat format_;
  const VectorSpace& space_;
};

}  // namespace embed
