#include "query/query_parse.h"

#include "core/ascii_space.h"
#include "core/error.h"
#include "core/excerpt.h"

namespace embed {
namespace {

bool is_space(char c) { return is_ascii_space(static_cast<unsigned char>(c)); }

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    const std::size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    if (i > start) tokens.push_back(text.substr(start, i - start));
  }
  return tokens;
}

}  // namespace

bool is_blank_or_comment(std::string_view line) {
  const std::string_view text = trim(line);
  return text.empty() || text.front() == '#';
}

ParsedQuery parse_expression(std::string_view expression) {
  const std::vector<std::string_view> tokens = split_words(expression);
  if (tokens.empty()) fail("empty query");
  // "+ king" is refused as "king +" is: a word is missing (as when "$a + $b" had $a empty),
  // and answering the rest alone would hide it. "- king" asks for the opposite of king.
  if (tokens.front() == "+" && tokens.size() > 1) {
    fail("\"{}\" starts with +; expected a word before it", excerpt(trim(expression)));
  }
  ParsedQuery query;
  float sign = 1.0f;
  bool pending_operator = false;
  for (std::string_view token : tokens) {
    if (token == "+" || token == "-") {
      if (pending_operator) fail("two operators in a row in \"{}\"", excerpt(trim(expression)));
      sign = token == "+" ? 1.0f : -1.0f;
      pending_operator = true;
      continue;
    }
    if (!query.text.empty()) query.text += sign > 0 ? " + " : " - ";
    else if (sign < 0) query.text += "- ";
    query.text += token;
    query.words.push_back({std::string(token), sign});
    sign = 1.0f;
    pending_operator = false;
  }
  if (pending_operator) fail("\"{}\" ends with an operator; expected a word after it", excerpt(trim(expression)));
  if (query.words.empty()) fail("no word in \"{}\"", excerpt(trim(expression)));
  const bool single = query.words.size() == 1 && query.words[0].weight > 0;
  query.kind = single ? QueryKind::neighbours : QueryKind::expression;
  return query;
}

ParsedQuery parse_query_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const std::size_t tab = line.find('\t');
  if (tab == std::string_view::npos) return parse_expression(line);
  const std::string_view first = trim(line.substr(0, tab));
  const std::string_view second = trim(line.substr(tab + 1));
  if (first.empty() || second.empty() || second.find('\t') != std::string_view::npos ||
      split_words(first).size() != 1 || split_words(second).size() != 1) {
    fail("a line with a tab asks for a similarity and needs exactly two words, WORD<TAB>WORD");
  }
  ParsedQuery query;
  query.kind = QueryKind::similarity;
  query.words = {{std::string(first), 1.0f}, {std::string(second), 1.0f}};
  query.text = std::string(first) + "\t" + std::string(second);
  return query;
}

}  // namespace embed
