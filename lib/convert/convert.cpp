#include "convert/convert.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <spdlog/spdlog.h>

#include "core/atomic_output.h"
#include "core/byte_source.h"
#include "core/error.h"
#include "core/excerpt.h"
#include "core/progress.h"
#include "format/emb_writer.h"
#include "text/fasttext_writer.h"
#include "text/foreign_extension.h"
#include "text/projector_writer.h"
#include "vectors/load.h"
#include "vectors/vector_formats.h"

namespace embed {
namespace {

// The projector holds and draws every point in the browser: past about this many it
// becomes slow, so a larger table earns a warning (not an error: a fast machine copes).
constexpr std::size_t kProjectorComfortableRows = 100'000;

}  // namespace

namespace {

// The option that asked for compressed rows, as the user typed it.
std::string quantize_option(const ConvertOptions& options) {
  if (options.quantize.storage == RowStorage::int8) return "--dtype int8";
  return fmt::format("--pq {}{}", options.quantize.pq.m, options.quantize.opq ? " --opq" : "");
}

// The output's format: --to, else the output name's extension, else .emb; and the options
// that only some formats can honour, refused before any work.
VectorFormat choose_output_format(const ConvertOptions& options) {
  VectorFormat to = VectorFormat::emb;
  if (options.to) {
    to = *options.to;
  } else if (auto by_extension = format_from_extension(options.output)) {
    to = *by_extension;
  } else if (options.output.size() > 3 && options.output.ends_with(".gz")) {
    fail("{}: gzip output is not supported; write to - and pipe through gzip", options.output);
  } else if (const std::string_view foreign = foreign_vector_extension(options.output); !foreign.empty()) {
    fail(
        "{}: glove-convert does not write {} files; name it .emb (safetensors, which Python's safetensors package "
        "loads into numpy or torch), .txt, .vec or .bin, or give --to",
        options.output, foreign);
  }
  if (options.index && to != VectorFormat::emb) {
    fail("--index {} adds an index to .emb output; {} output cannot hold one", options.index->name, format_name(to));
  }
  if (!format_spec(to).writable) fail("{} is read, not written: choose another --to", format_name(to));
  if (to == VectorFormat::projector && options.output == "-") {
    fail_usage("--to projector writes three files into a directory; standard output (-o -) cannot hold them: give -o DIR");
  }
  if (options.subwords && to != VectorFormat::emb && to != VectorFormat::fasttext_bin) {
    fail("--subwords keeps a fastText model's n-gram buckets in .emb or fasttext-bin output; {} output cannot hold them",
         format_name(to));
  }
  if (options.dtype && to != VectorFormat::emb) {
    fail("--dtype applies to .emb output; {} output is always written from f32 values", format_name(to));
  }
  if (options.quantize.storage != RowStorage::dense && to != VectorFormat::emb) {
    fail("{} applies to .emb output; {} output is always written from f32 values", quantize_option(options), format_name(to));
  }
  return to;
}

// Builds the --index kind's index of `table` into `emb`'s tensors, which point into the
// returned object: keep it until the file is written.
std::shared_ptr<const void> add_index(const EmbeddingTable& table, const ConvertOptions& options, DType dtype,
                                      const std::string& input_name, EmbWriteOptions& emb) {
  // Duplicate words fail before the long part; the writer keeps the index.
  emb.word_index = index_words(table, input_name,
                               emb.encoded ? emb_index_capacity(emb, table.rows(), table.dim)
                                           : emb_index_capacity(table.rows(), table.dim, dtype));
  Progress progress("building the approximate index", table.rows(), "rows");
  IndexSettings settings = options.index_settings;
  settings.threads = options.threads;
  settings.on_progress = [&](std::uint64_t rows) { progress.update(rows); };
  std::shared_ptr<const void> index = options.index->build(table, settings, emb);
  progress.finish();
  return index;
}

// What the input held, against what the options asked of it: rows left to write, the
// --vocab words found, subwords kept or dropped.
void check_loaded(const LoadedVectors& loaded, const ConvertOptions& options, const WordSet& keep, const std::string& input_name,
                  VectorFormat to) {
  const EmbeddingTable& table = loaded.table;
  if (table.rows() == 0) {
    fail("{}: no rows left to write{}", input_name,
         options.vocab_path.empty() ? "" : " (none of the --vocab words is in the input)");
  }
  if (!keep.empty() && table.rows() < keep.size() && !options.limit) {
    // The first few absent words, alphabetically (the set keeps no file order): enough to
    // tell a case or spelling mismatch from words the vectors never had.
    std::unordered_set<std::string_view> present;
    present.reserve(table.rows());
    for (std::size_t r = 0; r < table.rows(); ++r) present.insert(table.word(r));
    std::vector<std::string_view> absent;
    for (const std::string& word : keep) {
      if (!present.contains(word)) absent.push_back(word);
    }
    std::sort(absent.begin(), absent.end());
    constexpr std::size_t kNamed = 5;
    std::string named;
    for (std::size_t i = 0; i < std::min(absent.size(), kNamed); ++i) {
      named += fmt::format("{}\"{}\"", i ? ", " : "", excerpt(absent[i]));
    }
    if (absent.size() > kNamed) named += fmt::format(" and {} more", absent.size() - kNamed);
    spdlog::warn("{} of the {} words in {} are not in {}: {}", absent.size(), keep.size(), options.vocab_path,
                 input_name, named);
  }

  if (options.subwords && !loaded.subwords) {
    fail("{}: --subwords: the model has no character n-grams (trained with -maxn 0)", input_name);
  }
  if (loaded.subwords_left) {
    spdlog::warn(
        "{}: its subword n-gram buckets are dropped: {} output cannot hold them, so words outside the vocabulary "
        "get no vector",
        input_name, format_name(to));
  }
}

// --dtype int8 or --pq: the table's rows compressed (normalized first with --normalize),
// pointed to by `emb`. Shows progress; the result must outlive the write.
QuantizedRows compress_rows(EmbeddingTable& table, const ConvertOptions& options, EmbWriteOptions& emb) {
  if (emb.normalize) {
    const std::size_t zeros = normalize_rows(table.values, table.dim, options.threads);
    if (zeros) spdlog::warn("{} of zero length {} zero", counted(zeros, "row"), zeros == 1 ? "stays" : "stay");
    emb.normalize = false;
    emb.normalized = true;
  }
  const auto start = std::chrono::steady_clock::now();
  std::optional<Progress> progress;
  std::string stage;
  QuantizeSpec spec = options.quantize;
  spec.threads = options.threads;
  spec.on_progress = [&](const std::string& now, std::uint64_t done, std::uint64_t total) {
    if (now != stage) {
      if (progress) progress->finish();
      stage = now;
      progress.emplace(stage, total, now == "training the product quantizer" ? "sub-spaces" : "rows");
    }
    progress->update(done);
  };
  QuantizedRows rows = [&] {
    try {
      return QuantizedRows::encode(table.values, table.dim, spec);
    } catch (const Error& e) {
      fail("{}: {}", emb.source, e.what());
    }
  }();
  if (progress) progress->finish();
  rows.add_to_emb(emb);
  spdlog::info("{}: {} rows compressed in {:.1f} s{}", quantize_option(options), table.rows(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
               spec.storage == RowStorage::pq
                   ? fmt::format(" (k-means on {} rows, {} iterations, seed {})", emb.extra_metadata["pq.sample_rows"],
                                 spec.pq.iterations, spec.pq.seed)
                   : "");
  return rows;
}

// .emb output: the rows in their dtype, with the subwords and the index that travel with
// them; the rows a text input streamed are already written. Returns the rows of zero length.
std::size_t write_emb_output(LoadedVectors& loaded, const ConvertOptions& options, DType dtype, const std::string& input_name,
                             EmbWriteOptions& emb, std::optional<EmbStreamWriter>& stream, AtomicOutput& out) {
  EmbeddingTable& table = loaded.table;  // write_emb may index its words
  emb.dtype = dtype;
  emb.normalized = loaded.normalized;
  std::optional<QuantizedRows> quantized;  // compressed rows, until written
  DType subword_dtype = dtype;
  if (options.quantize.storage != RowStorage::dense) {
    quantized = compress_rows(table, options, emb);
    subword_dtype = DType::f16;  // n-gram buckets stay vectors, at half the bytes
  }
  std::shared_ptr<const void> subword_bytes;  // the subword tensor's bytes, until written
  if (loaded.subwords) {
    subword_bytes = loaded.subwords->add_to_emb(subword_dtype, emb);
    const SubwordSettings& settings = loaded.subwords->settings();
    spdlog::info("keeping {} n-gram buckets ({} to {} characters) for words outside the vocabulary", settings.buckets,
                 settings.minn, settings.maxn);
  }
  std::shared_ptr<const void> index;  // what the index's tensors point into, until written
  if (options.index) index = add_index(table, options, dtype, input_name, emb);
  if (!stream) return write_emb(table, emb, out);
  stream->finish(table);  // also rejects duplicate words, naming both lines
  return stream->zero_rows();
}

// Any other output: the plain formats' writers (the registry's), the projector's
// directory, or a fastText model (with `subwords`' buckets when the input had them).
// Returns the rows of zero length (--normalize).
std::size_t write_rows_output(EmbeddingTable& table, const ConvertOptions& options, const std::string& input_name,
                              const VectorFormatSpec& output_format, ProjectorOutput* projector, AtomicOutput* out,
                              const SubwordTable* subwords) {
  index_words(table, input_name);  // rejects duplicate words, naming both lines
  std::size_t zero_rows = 0;
  if (options.normalize) zero_rows = normalize_rows(table.values, table.dim, options.threads);
  if (projector) {
    if (table.rows() > kProjectorComfortableRows && !options.limit) {
      spdlog::warn(
          "{} points: the projector becomes slow beyond about {}; --limit N keeps the first N (the most "
          "frequent words, in most files)",
          table.rows(), kProjectorComfortableRows);
    }
    projector->write(table, projector_tensor_name(options.input), options.threads);
  } else if (output_format.format == VectorFormat::fasttext_bin) {
    write_fasttext_model(table, subwords, {}, FastTextWriteArgs{}, *out, options.output);
  } else {
    output_format.write(table, options.threads, *out);
  }
  return zero_rows;
}

}  // namespace

void convert(const ConvertOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const VectorFormat to = choose_output_format(options);
  const VectorFormatSpec& output_format = format_spec(to);
  // Open the output first: an unwritable destination fails before the work starts.
  // Every format streams (.emb onto a pipe from the table in memory, below).
  std::optional<AtomicOutput> out;
  std::optional<ProjectorOutput> projector;
  if (to == VectorFormat::projector) projector.emplace(options.output);
  else out.emplace(options.output, Streaming::allowed);
  if (output_format.binary && out->is_terminal()) {
    if (options.output == "-") fail("refusing to write binary {} data to a terminal; redirect standard output", format_name(to));
    fail("{}: is a terminal: refusing to write binary {} data to it", options.output, format_name(to));
  }

  WordSet keep;
  LoadOptions load;
  load.limit = options.limit;
  load.threads = options.threads;
  load.words = options.words;
  load.verify = options.verify;
  if (!options.vocab_path.empty()) {
    if (options.vocab_path == "-" && options.input == "-") fail_usage("--vocab - and INPUT - cannot both be standard input");
    keep = read_word_list(options.vocab_path);
    load.keep = &keep;
  }
  const std::string input_name = options.input == "-" ? "<stdin>" : options.input;
  EmbWriteOptions emb;
  emb.normalize = options.normalize;
  emb.source = input_name;
  emb.creator = options.creator;
  emb.threads = options.threads;
  InputStream in = InputStream::open(options.input);
  const VectorFormat from = options.from ? *options.from : detect_format(in);
  emb.extra_metadata["source_format"] = format_name(from);
  if (options.subwords && from != VectorFormat::fasttext_bin) {
    fail("{}: --subwords reads a fastText model's n-gram buckets (fasttext-bin input); this input is {}", input_name,
         format_name(from));
  }
  // An .emb's subwords go on into .emb output as they are (in the output's dtype), and a
  // fastText model's into fastText output.
  load.subwords = options.subwords || (from == VectorFormat::emb && to == VectorFormat::emb) || to == VectorFormat::fasttext_bin;
  spdlog::debug("input {}: {}{}{}, output {}: {}, {} threads", input_name, format_name(from), options.from ? "" : " (detected)",
                in.compressed() ? ", gzip" : "", options.output == "-" ? "<stdout>" : options.output, format_name(to),
                options.threads);
  // Text into an .emb file streams: each parsed batch of rows is written at once and
  // the whole table never sits in memory.
  std::optional<EmbStreamWriter> stream;
  // An index is built from the whole table, and compressed rows from a sample of all of them.
  if (to == VectorFormat::emb && out->seekable() && !options.index && options.quantize.storage == RowStorage::dense) {
    load.row_sink = [&](const EmbeddingTable& table, std::size_t first_row, std::span<float> values) {
      if (!stream) {
        emb.dtype = options.dtype.value_or(DType::f32);
        stream.emplace(*out, table.dim, emb);
      }
      stream->add_rows(table, first_row, values);
    };
    spdlog::debug("streaming rows into the output as they are parsed; the header is written last");
  }
  LoadedVectors loaded = load_vectors(in, from, load);
  const auto loaded_at = std::chrono::steady_clock::now();
  spdlog::debug("read {} rows x {} dims in {:.2f} s ({} of input)", loaded.table.rows(), loaded.table.dim,
                std::chrono::duration<double>(loaded_at - start).count(), human_bytes(static_cast<double>(in.raw_bytes_read())));
  check_loaded(loaded, options, keep, input_name, to);
  if (loaded.storage != RowStorage::dense) {
    spdlog::info("{}: decoding its {} rows{}", input_name, row_storage_name(loaded.storage),
                 to == VectorFormat::emb && options.quantize.storage == RowStorage::dense && !options.dtype
                     ? " into f32 (--dtype int8 or --pq M compresses them again)"
                     : "");
  }
  EmbeddingTable& table = loaded.table;
  const DType dtype = options.dtype.value_or(loaded.dtype.value_or(DType::f32));
  const std::size_t zero_rows =
      to == VectorFormat::emb ? write_emb_output(loaded, options, dtype, input_name, emb, stream, *out)
                              : write_rows_output(table, options, input_name, output_format, projector ? &*projector : nullptr,
                                                  out ? &*out : nullptr, loaded.subwords ? &*loaded.subwords : nullptr);
  if (zero_rows) spdlog::warn("{} of zero length {} zero", counted(zero_rows, "row"), zero_rows == 1 ? "stays" : "stay");
  spdlog::debug("wrote the rest in {:.2f} s",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - loaded_at).count());
  if (projector) projector->commit();
  else out->commit();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  spdlog::info("{} -> {}: {} x {}, {} -> {}{}, {:.2f} s", input_name, options.output == "-" ? "<stdout>" : options.output,
               counted(table.rows(), "word"), counted(table.dim, "dim"), format_name(loaded.format), format_name(to),
               to != VectorFormat::emb                               ? ""
               : options.quantize.storage == RowStorage::dense ? fmt::format(" ({})", vector_dtype_name(dtype))
                                                               : fmt::format(" ({})", quantize_option(options)),
               seconds);
}

namespace {

// --info and --verify read .emb files only. Any other input is named for what it looks
// like, with the command that converts it, rather than failing on its first bytes as a
// corrupt safetensors header.
EmbFile open_emb_to_inspect(const std::string& path) {
  InputStream in = InputStream::open(path);
  if (in.peek(1).empty()) fail("{}: empty (0 bytes), not an .emb file", in.name());
  const VectorFormat format = detect_format(in);
  if (format != VectorFormat::emb) {
    std::string stem = path == "-" ? "vectors" : path;
    if (stem.ends_with(".gz")) stem.resize(stem.size() - 3);
    const auto dot = stem.rfind('.');
    if (dot != std::string::npos && stem.find('/', dot) == std::string::npos) stem.resize(dot);
    // Never the input's own name as the output: glove-convert x.emb -o x.emb would replace it.
    std::string output = stem + ".emb";
    if (output == path) output = stem + ".converted.emb";
    fail(
        "{}: not an .emb file (it looks like {}); --info and --verify read .emb files: convert it first with "
        "glove-convert {} -o {}",
        in.name(), format_spec(format).description, path, output);
  }
  return open_emb(in);
}

}  // namespace

void run_convert_command(const ConvertOptions& options) {
  if (options.info || (options.verify && options.output.empty())) {
    if (!options.output.empty()) fail("--info prints to stdout and takes no -o");
    EmbFile file = open_emb_to_inspect(options.input);
    if (options.verify) {
      file.verify();
      if (const IndexKindSpec* index = stored_index_kind(file)) index->verify(file);
    }
    if (options.info) std::cout << describe_emb(file) << (options.verify ? "verify      ok\n" : "");
    if (!options.info) {
      spdlog::info("{}: ok ({} x {}, checksums and index verified)", file.name(), counted(file.rows(), "row"),
                   counted(file.dim(), "dim"));
    }
    return;
  }
  if (options.output.empty()) throw UsageError("no output given: use -o OUTPUT (or -o - for stdout), or --info");
  convert(options);
}

std::string describe_emb(const EmbFile& file) {
  std::string text;
  text += fmt::format("file        {}\n", file.name());
  text += fmt::format("rows        {}\n", file.rows());
  text += fmt::format("dim         {}\n", file.dim());
  text += fmt::format("dtype       {}\n", dtype_name(file.dtype()));
  if (const PqCodebooks* books = file.pq_codebooks()) {
    text += fmt::format("storage     pq: {} sub-quantizers of {} centroids over {} dims, {} bytes a row{}\n", books->m,
                        kPqCentroids, books->sub(), books->m, file.pq_rotation().empty() ? "" : ", rotated (OPQ)");
  } else if (file.compressed()) {
    text += fmt::format("storage     int8: {} values and a scale a row\n", file.dim());
  }
  text += fmt::format("size        {} ({} bytes)\n", human_bytes(static_cast<double>(file.file_size())), file.file_size());
  text += fmt::format("normalized  {}\n", file.normalized() ? "yes" : "no");
  text += fmt::format("counts      {}\n", file.counts().empty() ? "no" : "yes");
  if (const IndexKindSpec* index = stored_index_kind(file)) {
    text += fmt::format("index       {}\n", index->describe(file));
  } else {
    text += "index       none (exact search only; glove-convert --index ann adds one)\n";
  }
  text += "metadata\n";
  for (const auto& [key, value] : file.metadata()) text += fmt::format("  {} = {}\n", key, value);
  text += "tensors\n";
  for (const auto& t : file.tensors()) {
    text +=
        fmt::format("  {:<18} {:<4} [{}] bytes {}..{}\n", t.name, dtype_name(t.dtype), fmt::join(t.shape, ", "), t.begin, t.end);
  }
  return text;
}

}  // namespace embed
