#include "eval/word_pairs_eval.h"

#include <cstdlib>
#include <vector>

#include "core/byte_source.h"
#include "core/error.h"
#include "core/excerpt.h"
#include "core/progress.h"
#include "core/utf8.h"
#include "eval/rank_correlation.h"
#include "search/exact_search.h"

namespace embed {
namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
    fields.push_back(line.substr(start, tab - start));
  }
  fields.push_back(line.substr(start));
  return fields;
}

// Python's float(): surrounding whitespace allowed, nothing else.
bool parse_score(const std::string& text, double& value) {
  const char* begin = text.c_str();
  char* end = nullptr;
  value = std::strtod(begin, &end);
  if (end == begin) return false;
  while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n') ++end;
  return *end == '\0';
}

}  // namespace

WordPairsResult evaluate_word_pairs(const VectorSpace& space, const CaseInsensitiveVocab& vocab, const std::string& path) {
  InputStream in = InputStream::open(path);
  WordPairsResult result;
  std::vector<double> gold, model;
  std::uint64_t line_number = 0, first_bad_line = 0;
  std::string first_bad;
  for (const std::string& line : in.read_lines()) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = split_tabs(line);
    double score = 0;
    if (fields.size() != 3 || !parse_score(fields[2], score)) {
      if (result.skipped_lines++ == 0) {
        first_bad_line = line_number;
        first_bad = line;
      }
      continue;
    }
    ++result.pairs;
    const auto a = vocab.find(utf8_upper(fields[0]));
    const auto b = vocab.find(utf8_upper(fields[1]));
    if (!a || !b) {
      ++result.oov_pairs;
      continue;
    }
    gold.push_back(score);
    model.push_back(cosine(space, *a, *b));
  }
  // A file of which no line parses is in another format: say so, not that every word is unknown.
  if (result.pairs == 0 && result.skipped_lines > 0) {
    fail("{}:{}: expected word pairs \"word<TAB>word<TAB>score\" (WordSim-353's format), found \"{}\"; no line of "
         "the file is one",
         in.name(), first_bad_line, excerpt(first_bad));
  }
  // gensim's Spearman of fewer than two pairs is nan; a correlation needs two.
  if (gold.size() < 2) {
    fail("{}: {} with both words among the first {} words of {}: a correlation needs at least 2", in.name(),
         counted(gold.size(), "pair"), vocab.rows(), space.name());
  }
  result.spearman = spearman(gold, model);
  result.pearson = pearson(gold, model);
  return result;
}

}  // namespace embed
