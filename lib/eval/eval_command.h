// `embed-query eval`: the vectors' accuracy on analogy questions and their correlation
// on word-similarity pairs, computed as gensim's evaluate_word_analogies and
// evaluate_word_pairs, printed as a report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "query/answer_writer.h"
#include "query/query_runner.h"
#include "text/format_detect.h"

namespace embed {

struct EvalCommand {
  std::string vectors;
  VectorReading reading;   // --from, --unicode-errors
  std::string analogies;   // questions-words.txt format
  std::string word_pairs;  // WordSim-353 format
  std::uint64_t restrict_rows = 300000;  // gensim's restrict_vocab
  std::string method = "3cosadd";        // as spelled on the command line, for the report
  OutputFormat format = OutputFormat::text;
  QueryOptions options;    // method, threads, device
};

// Evaluates the vectors and prints the report. Returns 0.
int run_eval_command(const EvalCommand& command);

}  // namespace embed
