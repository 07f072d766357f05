#include "query/query_command.h"

#include <unistd.h>

#include <chrono>
#include <iostream>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/file_io.h"
#include "math/sgemm.h"
#include "query/line_reader.h"
#include "query/query_parse.h"

namespace embed {
namespace {

// Sends the answers so far on: a block at a time reaches the reader of a pipe without
// waiting for the rest; a standard output that refuses them ends the run.
void flush_answers() { flush_stdout("<stdout>: cannot write the answers"); }

// Queries answered per pass over the matrix when reading a stream.
constexpr std::size_t kBatchLines = 1024;

// Reads queries from standard input until its end: batches from a pipe or file, a
// prompt and one answer per line from a terminal. Returns how many failed.
std::size_t answer_stdin(QueryRunner& runner, const VectorSpace& space) {
  LineReader reader(STDIN_FILENO);
  std::size_t failed = 0;
  const bool interactive = ::isatty(STDIN_FILENO) == 1;
  if (interactive) {
    std::cerr << space.rows() << " words x " << space.dim()
              << " dims. Type a word, an expression (king - man + woman), or two words separated by a tab; "
                 "Ctrl-D ends.\n";
  }
  for (;;) {
    if (interactive) std::cerr << "query> " << std::flush;
    std::vector<std::string> lines;
    if (interactive) {
      std::string line;
      if (reader.next_line(line)) lines.push_back(std::move(line));
    } else {
      lines = reader.next_batch(kBatchLines);
    }
    if (lines.empty()) break;
    const std::size_t first_line = reader.lines_read() - lines.size() + 1;
    std::vector<QueryInput> inputs;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (is_blank_or_comment(lines[i])) continue;
      inputs.push_back(make_query_input(fmt::format("<stdin>:{}", first_line + i), lines[i]));
    }
    failed += runner.answer(inputs);
    flush_answers();
  }
  if (interactive) std::cerr << "\n";
  return failed;
}

// The queries given as arguments: each WORD, each --analogy, and --similarity.
std::vector<QueryInput> command_line_queries(const QueryCommand& command) {
  std::vector<QueryInput> inputs;
  for (const std::string& word : command.words) {
    QueryInput input;
    input.text = word;
    input.query = {QueryKind::neighbours, {{word, 1.0f}}, word};
    inputs.push_back(std::move(input));
  }
  for (const std::string& expression : command.analogies) {
    QueryInput input;
    input.text = expression;
    try {
      input.query = parse_expression(expression);
    } catch (const Error& e) {
      input.parse_error = fmt::format("--analogy: {}", e.what());
    }
    inputs.push_back(std::move(input));
  }
  for (std::size_t i = 0; i + 1 < command.similarity.size(); i += 2) {
    inputs.push_back(make_query_input("", command.similarity[i] + "\t" + command.similarity[i + 1]));
  }
  return inputs;
}

}  // namespace

VectorSpace open_query_vectors(const std::string& path, const VectorReading& reading, unsigned threads) {
  const auto start = std::chrono::steady_clock::now();
  VectorSpace space = VectorSpace::open(path, reading, threads);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (space.converted()) {
    spdlog::info(
        "{}: read {} words x {} dims in {:.1f} s; convert it once (glove-convert {} -o VECTORS.emb) to open "
        "it instantly",
        space.name(), space.rows(), space.dim(), seconds, path == "-" ? "INPUT" : path);
  }
  // Only when it is printed: naming the BLAS loads it, and OpenBLAS starts its threads as
  // it loads (a single-word or --ann query never needs it).
  if (spdlog::should_log(spdlog::level::debug)) {
    spdlog::debug("{}: {} rows x {} dims ({}), opened in {:.1f} ms; products by {}", space.name(), space.rows(), space.dim(),
                  dtype_name(space.dtype()), seconds * 1000, sgemm_description());
  }
  return space;
}

void check_query_options(const QueryOptions& options, bool k_applies, const std::set<std::string>& given) {
  const DeviceChoice device = options.device.request.device;
  check_gpu_options(device, given, {"--gpu-memory", "--gpu"});
  if (options.device.index && given.count("--device") && device != DeviceChoice::cpu) {
    fail_usage("--ann searches the approximate index on the CPU; drop --device or give --device cpu");
  }
  if (device == DeviceChoice::cuda && k_applies && options.k > kGpuMaxK) {
    fail_usage("--device cuda: -k {} is above the GPU's limit of {} neighbours per query; use --device cpu", options.k, kGpuMaxK);
  }
}

int run_query_command(const QueryCommand& command) {
  const VectorSpace space = open_query_vectors(command.vectors, command.reading, command.options.threads);
  QueryRunner runner(space, command.options, std::cout);
  std::size_t failed = 0;
  if (command.words.empty() && command.analogies.empty() && command.similarity.empty()) {
    if (command.vectors == "-") fail("the vectors were read from stdin, so queries must be arguments");
    failed = answer_stdin(runner, space);
  } else {
    failed = runner.answer(command_line_queries(command));
  }
  flush_answers();
  return failed ? kExitQueriesFailed : 0;
}

}  // namespace embed
