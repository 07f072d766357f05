// glove-convert: text and binary word vectors <-> .emb. Declares the options and hands
// over to lib/convert.
#include <CLI/CLI.hpp>

#include "common/option_checks.h"
#include "common/tool_cli.h"
#include "convert/convert.h"
#include "core/parallel.h"
#include "search/index_kinds.h"
#include "vectors/vector_formats.h"

int main(int argc, char** argv) {
  CLI::App app{
      "glove-convert: convert word vectors between GloVe text, word2vec/fastText text and binary, fastText models\n"
      "(.bin: read, and written from a model's .emb with --to fasttext-bin), and .emb "
      "(an mmap-able safetensors file; see docs/FORMAT.md). Input may be gzip-compressed; - is stdin/stdout.\n"
      "Exit status: 0 success, 1 bad input or failed conversion, 2 bad usage.",
      "glove-convert"};
  embed::ConvertOptions options;
  options.threads = embed::default_thread_count();
  std::string from, to;
  embed::cli::LogFlags log;
  app.add_option("INPUT", options.input, "input vectors: a file, or - for stdin")->required();
  app.add_option("-o,--output", options.output, "output file, or - for stdout (--to projector: a directory)");
  // The names people type are accepted too: the format registry (lib/vectors/vector_formats.h) lists them.
  const std::string aliases = embed::format_aliases_help();
  app.add_option("--from", from, "input format (default: detected)" + aliases)
      ->check(CLI::IsMember(embed::format_spellings(embed::FormatUse::read)));
  app.add_option("--to", to,
                 "output format (default: from OUTPUT's extension " + embed::format_extensions_help() +
                     ", else "
                     "emb); projector: OUTPUT is a directory of vectors.tsv, metadata.tsv and projector_config.pbtxt for "
                     "TensorBoard's Embedding Projector" +
                     aliases)
      ->check(CLI::IsMember(embed::format_spellings(embed::FormatUse::write)));
  embed::cli::RowStorageChoice storage;
  CLI::Option* pq_option = embed::cli::add_row_storage_options(
      app, storage,
      "storage type of .emb vectors (default f32, or the input .emb's): f32, f16, bf16, or int8 (a quarter of f32's "
      "bytes: a scale per row, searched with integer dot products; see docs/glove-convert.md)",
      "store .emb rows product-quantized: M bytes a row (M sub-quantizers of 256 centroids, k-means on a sample of the "
      "unit rows; M must divide dim; dim/4 keeps analogy within about a point, see docs/glove-convert.md)");
  app.add_option("--pq-sample", options.quantize.pq.sample_rows,
                 "--pq: rows k-means trains on, drawn with --seed (default 65536; all when fewer)")
      ->check(embed::cli::at_least(std::size_t{256}))
      ->needs(pq_option);
  app.add_option("--pq-iterations", options.quantize.pq.iterations, "--pq: k-means iterations (default 25)")
      ->check(embed::cli::between(1, 1000))
      ->needs(pq_option);
  app.add_flag("--opq", options.quantize.opq,
               "--pq: also learn a rotation of the rows (optimized PQ): less error for the same bytes, training about "
               "four times as long (20 rotation updates of 4 k-means iterations each after the first PQ)")
      ->needs(pq_option);
  app.add_flag("--normalize", options.normalize, "scale every row to unit L2 length");
  app.add_option("--limit", options.limit, "keep only the first N words")->check(embed::cli::at_least(std::uint64_t{1}));
  app.add_option("--vocab", options.vocab_path, "keep only the words listed in FILE, one per line; - for stdin")
      ->check(embed::cli::input_file(embed::cli::Stdin::allowed));
  app.add_option("--threads", options.threads, "worker threads (default: all cores)")->check(embed::cli::between(1, 1024));
  embed::cli::add_word_decoding_options(app, options.words);
  app.add_flag("--subwords", options.subwords,
               "fastText model input, .emb output: also keep the character n-gram buckets, so that embed-query answers "
               "words outside the vocabulary as fastText does");
  std::string index;
  CLI::Option* index_option =
      app.add_option("--index", index,
                     "add an approximate-neighbour index to the .emb output, for embed-query --ann: " + embed::index_kinds_help())
          ->check(CLI::IsMember(embed::index_kind_names()));
  app.add_option("--ann-m", options.index_settings.hnsw.m,
                 "index: neighbours per node; more: better recall, larger index (default 16)")
      ->check(embed::cli::between(4, 128))
      ->needs(index_option);
  app.add_option("--ann-ef-construction", options.index_settings.hnsw.ef_construction,
                 "index: search width while building; more: better recall, slower build (default 80)")
      ->check(embed::cli::between(8, 4096))
      ->needs(index_option);
  std::uint64_t seed = 1;
  app.add_option("--seed", seed,
                 "random seed of --index and --pq: --pq's output is the same bytes for a seed at any --threads; the "
                 "index's with --threads 1 (default 1)");
  app.add_flag("--info", options.info, "print an .emb file's rows, dim, dtype, size and metadata");
  app.add_flag("--verify", options.verify, "check an .emb input's checksums and index (alone: only verify)");
  embed::cli::add_log_flags(app, log);
  embed::cli::add_version_flag(app, "glove-convert");

  if (const auto exit_status = embed::cli::parse(app, argc, argv)) return *exit_status;
  // CLI11 has already checked the spellings against the same lists.
  if (!from.empty()) options.from = embed::parse_format_name(from);
  if (!to.empty()) options.to = embed::parse_format_name(to);
  if (!index.empty()) options.index = embed::find_index_kind(index);
  options.dtype = storage.dtype;
  options.quantize.storage = storage.storage;
  options.quantize.pq.m = storage.pq_m;
  options.index_settings.hnsw.seed = seed;
  options.quantize.pq.seed = seed;
  return embed::cli::run("glove-convert", log, [&] {
    embed::run_convert_command(options);
    return 0;
  });
}
