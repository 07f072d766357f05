// embed-query: nearest neighbours, analogies and similarities on word vectors, and
// their evaluation on analogy and word-similarity benchmarks. Declares the options and
// hands over to lib/query.
#include <CLI/CLI.hpp>

#include "backend/registry.h"
#include "common/option_checks.h"
#include "common/tool_cli.h"
#include "core/parallel.h"
#include "eval/eval_command.h"
#include "math/sgemm.h"
#include "plot/map_command.h"
#include "query/query_command.h"
#include "search/index_kinds.h"
#include "vectors/vector_formats.h"

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
  embed::QueryCommand query;
  embed::EvalCommand eval_command;
  embed::QueryOptions options;
  options.threads = embed::default_thread_count();
  options.device.request.device = embed::DeviceChoice::automatic;
  std::string from, method = "3cosadd", format = "text", eval_format = "text";
  embed::VectorReading reading;
  bool ann = false;
  std::size_t ann_ef = embed::IndexSearchSettings{}.ef;
  embed::cli::LogFlags log;
  // What every subcommand takes: how VECTORS is read, threads, logging.
  auto add_reading = [&](CLI::App& command) {
    command.add_option("--from", from, "format of VECTORS (default: detected)")
        ->check(CLI::IsMember(embed::format_spellings(embed::FormatUse::read)));
    embed::cli::add_word_decoding_options(command, reading.words);
    command.add_option("--threads", options.threads, "worker threads (default: all cores)")->check(embed::cli::between(1, 1024));
    embed::cli::add_log_flags(command, log);
  };
  auto add_common = [&](CLI::App& command) {
    add_reading(command);
    command.add_option("--method", method, "how expressions combine: 3cosadd (as most_similar) or 3cosmul")
        ->check(CLI::IsMember(embed::names_in(embed::kCombinationNames)))
        ->capture_default_str();
    embed::cli::add_device_options(
        command, options.device.request,
        "where batches are searched: cpu, cuda (every batch on the GPU), or auto (batches of 64 queries or more on "
        "the GPU when one is usable)",
        "GPU: device memory the search may allocate, e.g. 2G (default: 90% of the free memory); rows that do not fit "
        "are streamed");
    CLI::Option* ann_flag = command.add_flag(
        "--ann", ann,
        "search the .emb's approximate index (glove-convert --index ann) on the CPU instead of every row: scores "
        "stay exact cosines, a few true neighbours may be missed");
    command.add_option("--ef", ann_ef, "with --ann: rows the search keeps in view; more: better recall, slower")
        ->check(embed::cli::between(1, 100000))
        ->capture_default_str()
        ->needs(ann_flag);
  };
  app.add_option("VECTORS", query.vectors, "word vectors: .emb or any format glove-convert reads; - for stdin");
  app.add_option("WORD", query.words, "words whose nearest neighbours to print");
  app.add_option("-k,--top", options.k, "neighbours per query")->check(embed::cli::between(1, 100000))->capture_default_str();
  app.add_option("--analogy", query.analogies, "an expression such as \"king - man + woman\" (repeatable)");
  app.add_option("--similarity", query.similarity, "cosine similarity of two words (repeatable)")
      ->type_size(2)
      ->expected(1, CLI::detail::expected_max_vector_size);
  app.add_option("--format", format, "output: text, tsv or json (JSON lines)")
      ->check(CLI::IsMember(embed::output_format_names()))
      ->capture_default_str();
  app.add_option("--restrict", options.restrict_rows,
                 "search only the first N rows (the most frequent when the vectors have counts)")
      ->check(embed::cli::at_least(std::uint64_t{1}));
  add_common(app);
  // A callback: probing the backends and loading OpenBLAS only when --version is asked for.
  embed::cli::add_version_flag(app, "embed-query", [] { return "products: " + embed::sgemm_description(); });

  CLI::App* eval = app.add_subcommand(
      "eval",
      "Accuracy on analogy questions (Google's questions-words.txt format) and Spearman/Pearson correlation on\n"
      "word-similarity pairs (WordSim-353 format), computed as gensim's evaluate_word_analogies and\n"
      "evaluate_word_pairs.");
  eval->add_option("VECTORS", eval_command.vectors, "word vectors to evaluate")->required();
  eval->add_option("--analogies", eval_command.analogies,
                   "analogy questions: \": section\" lines, then \"a b c d\" lines; - for stdin")
      ->check(embed::cli::input_file(embed::cli::Stdin::allowed));
  eval->add_option("--word-pairs", eval_command.word_pairs,
                   "word pairs: \"word<TAB>word<TAB>score\" lines, # comments; - for stdin")
      ->check(embed::cli::input_file(embed::cli::Stdin::allowed));
  eval->add_option("--restrict", eval_command.restrict_rows, "know only the first N words (gensim's restrict_vocab)")
      ->check(embed::cli::at_least(std::uint64_t{1}))
      ->capture_default_str();
  eval->add_option("--format", eval_format, "output: text, tsv (one row per figure) or json")
      ->check(CLI::IsMember(embed::output_format_names()))
      ->capture_default_str();
  add_common(*eval);

  embed::MapCommand map_command;
  CLI::App* map = app.add_subcommand(
      "map",
      "Draw the words (and with --neighbours their nearest neighbours, lighter) as labelled points on their vectors'\n"
      "two principal components, in a self-contained SVG file titled with the share of the variance they explain.\n"
      "With no WORD, the words come from stdin, one per line. Unknown words are named in a warning and left out.");
  map->add_option("VECTORS", map_command.vectors, "word vectors: .emb or any format glove-convert reads")->required();
  map->add_option("WORD", map_command.words, "words to draw (at least 3 known ones)");
  map->add_option("-o,--output", map_command.output, "the SVG file to write; - for standard output")->required();
  map->add_option("--neighbours", map_command.neighbours, "also draw each word's K nearest neighbours (cosine)")
      ->check(embed::cli::between(1, 1000));
  add_reading(*map);

  if (const auto exit_status = embed::cli::parse(app, argc, argv)) return *exit_status;
  const int eval_stdin_inputs =
      (eval_command.vectors == "-") + (eval_command.analogies == "-") + (eval_command.word_pairs == "-");
  if (eval->parsed() && eval_stdin_inputs > 1) {
    return embed::cli::usage_exit(app, CLI::ValidationError("eval", "standard input (-) can be one of its files only"));
  }
  if (eval->parsed() && eval_command.analogies.empty() && eval_command.word_pairs.empty()) {
    return embed::cli::usage_exit(app, CLI::ValidationError("eval", "give --analogies FILE, --word-pairs FILE, or both"));
  }
  if (query.similarity.size() % 2 != 0) {
    return embed::cli::usage_exit(
        app, CLI::ValidationError("--similarity", "takes two words each time it is given (--similarity cat dog)"));
  }
  if (!eval->parsed() && !map->parsed() && query.vectors.empty()) {
    return embed::cli::usage_exit(app, CLI::RequiredError("VECTORS"));
  }
  if (ann) options.device.index = embed::IndexSearchSettings{ann_ef};
  options.method = *embed::parse_in(embed::kCombinationNames, method);  // CLI11 has checked the spelling
  options.format = embed::parse_output_format(format);
  options.device.gpu = embed::gpu_searcher();
  if (!from.empty()) reading.format = embed::parse_format_name(from);  // CLI11 has checked the spelling
  if (map->parsed()) {
    map_command.reading = reading;
    map_command.threads = options.threads;
    return embed::cli::run("embed-query", log, [&] { return embed::run_map_command(map_command); });
  }
  return embed::cli::run("embed-query", log, [&] {
    embed::check_query_options(options, !eval->parsed(), embed::cli::given_options(app));
    if (eval->parsed()) {
      eval_command.reading = reading;
      eval_command.method = method;
      eval_command.format = embed::parse_output_format(eval_format);
      eval_command.options = options;
      return embed::run_eval_command(eval_command);
    }
    query.reading = reading;
    query.options = options;
    return embed::run_query_command(query);
  });
}
