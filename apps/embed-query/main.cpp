// embed-query: nearest neighbours, analogies and similarities on word vectors, and
// their evaluation on analogy and word-similarity benchmarks. Parses options and hands
// over to lib/query.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "backend/registry.h"
#include "core/error.h"
#include "core/log.h"
#include "core/parallel.h"
#include "core/report_errors.h"
#include "math/sgemm.h"
#include "query/eval_report.h"
#include "query/line_reader.h"
#include "query/query_runner.h"
#include "query/vector_space.h"

namespace {

// Exit codes (also in --help and README).
constexpr int kExitFailure = 1;       // the vectors or an evaluation file could not be read
constexpr int kExitUsage = 2;         // bad command line
constexpr int kExitQueriesFailed = 3; // some queries failed (unknown word, malformed line); the others were answered

// Queries answered per pass over the matrix when reading a stream.
constexpr std::size_t kBatchLines = 1024;

embed::Combination parse_method(const std::string& name) {
  return name == "3cosmul" ? embed::Combination::mul : embed::Combination::add;
}

embed::VectorSpace open_vectors(const std::string& path, const std::string& from, unsigned threads) {
  const auto start = std::chrono::steady_clock::now();
  std::optional<embed::VectorFormat> format;
  if (!from.empty()) format = embed::parse_format_name(from);
  embed::VectorSpace space = embed::VectorSpace::open(path, format, threads);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (space.converted()) {
    spdlog::info("{}: read {} words x {} dims in {:.1f} s; convert it once (glove-convert {} -o VECTORS.emb) to open "
                 "it instantly",
                 space.name(), space.rows(), space.dim(), seconds, path == "-" ? "INPUT" : path);
  }
  spdlog::debug("{}: {} rows x {} dims ({}), opened in {:.1f} ms; products by {}", space.name(), space.rows(),
                space.dim(), embed::dtype_name(space.dtype()), seconds * 1000, embed::sgemm_description());
  return space;
}

// Reads queries from standard input until its end: batches from a pipe or file, a
// prompt and one answer per line from a terminal.
std::size_t answer_stdin(embed::QueryRunner& runner, const embed::VectorSpace& space) {
  embed::LineReader reader(STDIN_FILENO);
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
    std::vector<embed::QueryInput> inputs;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (interactive && lines[i].find_first_not_of(" \t\r") == std::string::npos) continue;
      inputs.push_back(embed::make_query_input(fmt::format("<stdin>:{}", first_line + i), lines[i]));
    }
    failed += runner.answer(inputs);
    std::cout << std::flush;
  }
  if (interactive) std::cerr << "\n";
  return failed;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "embed-query: nearest neighbours, analogies and similarities by cosine similarity.\n"
      "VECTORS is an .emb file (opened instantly) or any format glove-convert reads (converted in memory).\n"
      "With no WORD, --analogy or --similarity, queries come from stdin, one per line: a word, an expression\n"
      "with + and - between words (king - man + woman), or two words separated by a tab for their similarity.\n"
      "Exit status: 0 success, 1 unreadable vectors or evaluation file, 2 bad usage, 3 some queries failed\n"
      "(unknown word or malformed line; the others were answered).",
      "embed-query"};
  app.require_subcommand(0, 1);
  std::string vectors_path, from, method = "3cosadd", format = "text";
  std::vector<std::string> words, analogies, similarity;
  embed::QueryOptions options;
  options.threads = embed::default_thread_count();
  int verbose = 0;
  bool quiet = false;
  std::string device = "auto";
  std::vector<CLI::Option*> gpu_memory_options;  // one per command
  auto add_common = [&](CLI::App& command) {
    command.add_option("--from", from, "format of VECTORS (default: detected)")
        ->check(CLI::IsMember({"glove", "w2v-text", "w2v-bin", "emb"}));
    command.add_option("--method", method, "how expressions combine: 3cosadd (as most_similar) or 3cosmul")
        ->check(CLI::IsMember({"3cosadd", "3cosmul"}))
        ->capture_default_str();
    command.add_option("--threads", options.threads, "worker threads (default: all cores)")->check(CLI::Range(1, 1024));
    command.add_option("--device", device,
                       "where batches are searched: cpu, cuda (every batch on the GPU), or auto (batches of 64 queries "
                       "or more on the GPU when one is usable)")
        ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
        ->capture_default_str();
    gpu_memory_options.push_back(
        command.add_option("--gpu-memory", options.device.gpu_memory,
                           "GPU: device memory the search may allocate, e.g. 2G (default: 90% of the free memory); "
                           "rows that do not fit are streamed")
            ->transform(CLI::AsSizeValue(false)));
    command.add_flag("-v,--verbose", verbose, "more messages (repeat for more)");
    command.add_flag("-q,--quiet", quiet, "errors only");
  };
  app.add_option("VECTORS", vectors_path, "word vectors: .emb or any format glove-convert reads; - for stdin");
  app.add_option("WORD", words, "words whose nearest neighbours to print");
  app.add_option("-k,--top", options.k, "neighbours per query")->check(CLI::Range(1, 100000))->capture_default_str();
  app.add_option("--analogy", analogies, "an expression such as \"king - man + woman\" (repeatable)");
  app.add_option("--similarity", similarity, "cosine similarity of two words")->expected(2);
  app.add_option("--format", format, "output: text, tsv or json (JSON lines)")
      ->check(CLI::IsMember({"text", "tsv", "json"}))
      ->capture_default_str();
  app.add_option("--restrict", options.restrict_rows,
                 "search only the first N rows (the most frequent when the vectors have counts)")
      ->check(CLI::PositiveNumber);
  add_common(app);
  // A callback: probing the backends and loading OpenBLAS only when --version is asked for.
  app.set_version_flag("--version", std::function<std::string()>([] {
    return std::string("embed-query " EMBED_VERSION "\nbackends: ") + embed::backend_summary() +
           "\nproducts: " + embed::sgemm_description();
  }));

  CLI::App* eval = app.add_subcommand(
      "eval",
      "Accuracy on analogy questions (Google's questions-words.txt format) and Spearman/Pearson correlation on\n"
      "word-similarity pairs (WordSim-353 format), computed as gensim's evaluate_word_analogies and\n"
      "evaluate_word_pairs.");
  std::string eval_vectors, analogies_path, pairs_path, eval_format = "text";
  std::uint64_t eval_restrict = 300000;
  eval->add_option("VECTORS", eval_vectors, "word vectors to evaluate")->required();
  eval->add_option("--analogies", analogies_path, "analogy questions: \": section\" lines, then \"a b c d\" lines")
      ->check(CLI::ExistingFile);
  eval->add_option("--word-pairs", pairs_path, "word pairs: \"word<TAB>word<TAB>score\" lines, # comments")
      ->check(CLI::ExistingFile);
  eval->add_option("--restrict", eval_restrict, "know only the first N words (gensim's restrict_vocab)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  eval->add_option("--format", eval_format, "output: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  add_common(*eval);

  try {
    app.parse(argc, argv);
    if (eval->parsed() && analogies_path.empty() && pairs_path.empty()) {
      throw CLI::ValidationError("eval", "give --analogies FILE, --word-pairs FILE, or both");
    }
    if (!eval->parsed() && vectors_path.empty()) throw CLI::RequiredError("VECTORS");
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }
  embed::init_logging("embed-query", quiet ? -1 : verbose);
  options.method = parse_method(method);
  options.format = embed::parse_output_format(format);
  options.device.device = *embed::parse_search_device(device);  // CLI11 has checked the spelling
  options.device.gpu = embed::gpu_searcher();
  auto usage_error = [](const std::string& message) {
    spdlog::error("{}; see --help", message);
    return kExitUsage;
  };
  const bool gpu_memory_given =
      std::any_of(gpu_memory_options.begin(), gpu_memory_options.end(), [](CLI::Option* o) { return o->count() > 0; });
  if (gpu_memory_given && options.device.device == embed::SearchDevice::cpu) {
    return usage_error("--gpu-memory applies to --device cuda or auto only");
  }
  if (options.device.device == embed::SearchDevice::cuda && !eval->parsed() && options.k > embed::kGpuMaxK) {
    return usage_error(fmt::format("--device cuda: -k {} is above the GPU's limit of {} neighbours per query; use "
                                   "--device cpu",
                                   options.k, embed::kGpuMaxK));
  }

  return embed::report_errors(kExitFailure, [&] {
    if (eval->parsed()) {
      const embed::VectorSpace space = open_vectors(eval_vectors, from, options.threads);
      const embed::CaseInsensitiveVocab vocab(space, eval_restrict);
      embed::EvalReport report;
      report.vectors = space.name();
      report.restrict_rows = vocab.rows();
      report.method = method;
      if (!analogies_path.empty()) {
        embed::AnalogyEvalOptions analogy_options{options.method, options.threads, options.device};
        report.analogies_path = analogies_path;
        report.analogies = embed::evaluate_analogies(space, vocab, analogies_path, analogy_options);
      }
      if (!pairs_path.empty()) {
        report.word_pairs_path = pairs_path;
        report.word_pairs = embed::evaluate_word_pairs(space, vocab, pairs_path);
      }
      embed::write_eval_report(std::cout, report, embed::parse_output_format(eval_format));
      return 0;
    }

    const embed::VectorSpace space = open_vectors(vectors_path, from, options.threads);
    embed::QueryRunner runner(space, options, std::cout);
    std::size_t failed = 0;
    if (words.empty() && analogies.empty() && similarity.empty()) {
      if (vectors_path == "-") throw embed::Error("the vectors were read from stdin, so queries must be arguments");
      failed = answer_stdin(runner, space);
    } else {
      std::vector<embed::QueryInput> inputs;
      for (const std::string& word : words) {
        embed::QueryInput input;
        input.text = word;
        input.query = {embed::QueryKind::neighbours, {{word, 1.0f}}, word};
        inputs.push_back(std::move(input));
      }
      for (const std::string& expression : analogies) {
        embed::QueryInput input;
        input.text = expression;
        try {
          input.query = embed::parse_expression(expression);
        } catch (const embed::Error& e) {
          input.parse_error = fmt::format("--analogy: {}", e.what());
        }
        inputs.push_back(std::move(input));
      }
      if (!similarity.empty()) inputs.push_back(embed::make_query_input("", similarity[0] + "\t" + similarity[1]));
      failed = runner.answer(inputs);
    }
    std::cout << std::flush;
    return failed ? kExitQueriesFailed : 0;
  });
}
