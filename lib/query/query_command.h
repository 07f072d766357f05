// embed-query's runs, from parsed options to answers: open the vectors, check the
// options against each other and the GPU's limits, then answer the queries given on the
// command line or read from standard input (`embed-query VECTORS ...`), or evaluate
// them on analogy and word-pair benchmarks (`embed-query eval VECTORS ...`).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "text/format_detect.h"
#include "query/query_runner.h"

namespace embed {

// Some queries failed (unknown word, malformed line); the others were answered.
inline constexpr int kExitQueriesFailed = 3;

struct QueryCommand {
  std::string vectors;                // a file, or "-" for standard input
  std::optional<VectorFormat> from;   // the format, when not detected
  std::vector<std::string> words;     // neighbours of each
  std::vector<std::string> analogies;  // expressions ("king - man + woman")
  std::vector<std::string> similarity;  // two words, or none
  QueryOptions options;
};

// Checks the options against each other (`given`: the long names on the command line;
// `k_applies`: for queries, not for eval, whose k is fixed); throws UsageError.
void check_query_options(const QueryOptions& options, bool k_applies, const std::set<std::string>& given);

// Answers the command-line queries, or else those on standard input until its end
// (batches from a pipe or file, a prompt and one answer per line from a terminal).
// Returns 0, or kExitQueriesFailed when some failed.
int run_query_command(const QueryCommand& command);

struct EvalCommand {
  std::string vectors;
  std::optional<VectorFormat> from;
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
