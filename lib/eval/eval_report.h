// Printing `embed-query eval` results: a table for people (gensim's log lines, per
// section "name: 12.3% (45/366)"), one TSV row per figure for awk, or one JSON object for
// scripts.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "eval/analogy_eval.h"
#include "query/answer_writer.h"
#include "eval/word_pairs_eval.h"

namespace embed {

struct EvalReport {
  std::string vectors;  // the file evaluated
  std::uint64_t restrict_rows = 0;
  std::string analogies_path;
  std::optional<AnalogyResult> analogies;
  std::string method;  // "3cosadd" or "3cosmul"
  std::string word_pairs_path;
  std::optional<WordPairsResult> word_pairs;
};

void write_eval_report(std::ostream& out, const EvalReport& report, OutputFormat format);

}  // namespace embed
