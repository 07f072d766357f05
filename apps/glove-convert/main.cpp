// glove-convert: text and binary word vectors <-> .emb. Parses options and hands over to lib/convert.
#include <csignal>
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "backend/registry.h"
#include "convert/convert.h"
#include "convert/load.h"
#include "core/error.h"
#include "core/log.h"
#include "core/parallel.h"
#include "core/report_errors.h"

namespace {

// Exit codes (also in --help and README): 0 success, 1 bad input or failed conversion, 2 bad usage.
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;


}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "glove-convert: convert word vectors between GloVe text, word2vec/fastText text and binary, and .emb\n"
      "(an mmap-able safetensors file; see docs/FORMAT.md). Input may be gzip-compressed; - is stdin/stdout.\n"
      "Exit status: 0 success, 1 bad input or failed conversion, 2 bad usage.",
      "glove-convert"};
  embed::ConvertOptions options;
  options.threads = embed::default_thread_count();
  std::string from, to, dtype;
  bool info = false;
  int verbose = 0;
  bool quiet = false;
  app.add_option("INPUT", options.input, "input vectors: a file, or - for stdin")->required();
  app.add_option("-o,--output", options.output, "output file, or - for stdout");
  app.add_option("--from", from, "input format (default: detected)")->check(CLI::IsMember({"glove", "w2v-text", "w2v-bin", "emb"}));
  app.add_option("--to", to, "output format (default: from OUTPUT's extension .emb/.txt/.vec/.bin, else emb)")
      ->check(CLI::IsMember({"emb", "glove", "w2v-text", "w2v-bin"}));
  app.add_option("--dtype", dtype, "storage type of .emb vectors (default f32, or the input .emb's)")
      ->check(CLI::IsMember({"f32", "f16", "bf16"}));
  app.add_flag("--normalize", options.normalize, "scale every row to unit L2 length");
  app.add_option("--limit", options.limit, "keep only the first N words")->check(CLI::PositiveNumber);
  app.add_option("--vocab", options.vocab_path, "keep only the words listed in FILE, one per line")->check(CLI::ExistingFile);
  app.add_option("--threads", options.threads, "worker threads (default: all cores)")->check(CLI::Range(1, 1024));
  app.add_flag("--info", info, "print an .emb file's rows, dim, dtype, size and metadata");
  app.add_flag("--verify", options.verify, "check an .emb input's checksums and index (alone: only verify)");
  app.add_flag("-v,--verbose", verbose, "more messages (repeat for more)");
  app.add_flag("-q,--quiet", quiet, "errors only");
  app.set_version_flag("--version", std::function<std::string()>([] {
    return std::string("glove-convert " EMBED_VERSION "\nbackends: ") + embed::backend_summary();
  }));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }
  embed::init_logging("glove-convert", quiet ? -1 : verbose);

  return embed::report_errors(kExitFailure, [&] {
    // CLI11 has already checked the spellings against the same lists.
    if (!from.empty()) options.from = embed::parse_format_name(from);
    if (!to.empty()) options.to = embed::parse_format_name(to);
    if (!dtype.empty()) options.dtype = embed::parse_vector_dtype(dtype);
    if (info || (options.verify && options.output.empty())) {
      if (!options.output.empty()) throw embed::Error("--info prints to stdout and takes no -o");
      embed::EmbFile file = embed::open_emb(options.input);
      if (options.verify) file.verify();
      if (info) std::cout << embed::describe_emb(file) << (options.verify ? "verify      ok\n" : "");
      if (!info) spdlog::info("{}: ok ({} rows x {} dims, checksums and index verified)", file.name(), file.rows(), file.dim());
      return 0;
    }
    if (options.output.empty()) {
      std::cerr << "glove-convert: error: no output given: use -o OUTPUT (or -o - for stdout), or --info\n"
                << "Run with --help for more information.\n";
      return kExitUsage;
    }
    embed::convert(options);
    return 0;
  });
}
