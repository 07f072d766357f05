// embed-query's run, from parsed options to answers: open the vectors, check the options
// against each other and the GPU's limits, then answer the queries given on the command
// line or read from standard input (`embed-query VECTORS ...`). `embed-query eval` is
// eval/eval_command.h.
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
  VectorReading reading;              // --from, --unicode-errors
  std::vector<std::string> words;     // neighbours of each
  std::vector<std::string> analogies;  // expressions ("king - man + woman")
  std::vector<std::string> similarity;  // pairs of words, each --similarity's two in turn
  QueryOptions options;
};

// Checks the options against each other (`given`: the long names on the command line;
// `k_applies`: for queries, not for eval, whose k is fixed); throws UsageError.
void check_query_options(const QueryOptions& options, bool k_applies, const std::set<std::string>& given);

// Opens the vectors (an .emb mapped, any other format converted in memory), saying how
// long a conversion took and how to avoid it.
VectorSpace open_query_vectors(const std::string& path, const VectorReading& reading, unsigned threads);

// Answers the command-line queries, or else those on standard input until its end
// (batches from a pipe or file, a prompt and one answer per line from a terminal).
// Returns 0, or kExitQueriesFailed when some failed.
int run_query_command(const QueryCommand& command);

}  // namespace embed
