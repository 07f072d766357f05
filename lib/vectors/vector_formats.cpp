#include "vectors/vector_formats.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "core/parallel.h"
#include "core/word_list.h"
#include "text/fasttext_model.h"
#include "text/text_reader.h"
#include "text/text_writer.h"
#include "text/word2vec_binary.h"

namespace embed {
namespace {

// --- readers ---

EmbeddingTable table_from_emb(const EmbFile& file, const LoadOptions& options) {
  EmbeddingTable table;
  table.dim = file.dim();
  table.origin_kind = "row";
  std::vector<std::uint64_t> rows;
  for (std::uint64_t r = 0; r < file.rows(); ++r) {
    if (options.limit && rows.size() >= options.limit) break;
    if (options.keep && !options.keep->contains(file.word(r))) continue;
    rows.push_back(r);
  }
  table.values.resize(rows.size() * table.dim);
  parallel_for((rows.size() + 4095) / 4096, options.threads, [&](std::size_t block) {
    for (std::size_t i = block * 4096; i < std::min(rows.size(), (block + 1) * 4096); ++i) {
      file.row_as_f32(rows[i], table.values.data() + i * table.dim);
    }
  });
  table.word_offsets.reserve(rows.size() + 1);
  for (std::uint64_t r : rows) {
    table.word_bytes.append(file.word(r));
    table.word_offsets.push_back(static_cast<std::int64_t>(table.word_bytes.size()));
    table.origins.push_back(r + 1);
    if (!file.counts().empty()) table.counts.push_back(file.counts()[r]);
  }
  return table;
}

void read_emb(InputStream& in, const LoadOptions& options, LoadedVectors& loaded) {
  EmbFile file = open_emb(in);
  if (options.verify) file.verify();
  loaded.normalized = file.normalized();
  if (!file.compressed()) loaded.dtype = file.dtype();
  loaded.storage = file.storage();
  loaded.table = table_from_emb(file, options);
  if (auto subwords = SubwordTable::from_emb(file, true /* the file is closed on return */)) {
    if (options.subwords) loaded.subwords = std::move(subwords);
    else loaded.subwords_left = true;
  }
}

void read_fasttext_bin(InputStream& in, const LoadOptions& options, LoadedVectors& loaded) {
  FastTextReadOptions read;
  read.limit = options.limit;
  read.keep = options.keep;
  read.words = options.words;
  read.keep_subwords = options.subwords;
  read.keep_rows = options.model_rows;
  FastTextModel model = read_fasttext_model(in, read);
  loaded.table = std::move(model.table);
  loaded.subwords = std::move(model.subwords);
  // Said to --init (which asks for model_rows); glove-convert drops a model's buckets quietly unless --subwords.
  if (options.model_rows) loaded.subwords_left = model.subwords_left;
  loaded.own_rows = std::move(model.own_rows);
  loaded.output_rows = std::move(model.output_rows);
}

void read_w2v_bin(InputStream& in, const LoadOptions& options, LoadedVectors& loaded) {
  loaded.table = read_word2vec_binary(in, options.limit, options.keep, options.words);
}

// GloVe and word2vec text differ only in word2vec's "COUNT DIM" first line.
void read_text(InputStream& in, const LoadOptions& options, LoadedVectors& loaded, bool has_header) {
  TextReadOptions text;
  text.has_header = has_header;
  text.limit = options.limit;
  text.keep = options.keep;
  text.threads = options.threads;
  text.words = options.words;
  text.row_sink = options.row_sink;
  loaded.table = read_text_vectors(in, text);
  loaded.streamed = static_cast<bool>(options.row_sink);
}
void read_glove(InputStream& in, const LoadOptions& options, LoadedVectors& loaded) { read_text(in, options, loaded, false); }
void read_w2v_text(InputStream& in, const LoadOptions& options, LoadedVectors& loaded) { read_text(in, options, loaded, true); }

// --- writers ---

void write_glove(const EmbeddingTable& table, unsigned threads, AtomicOutput& out) {
  write_text_vectors(table, false, threads, out);
}
void write_w2v_text(const EmbeddingTable& table, unsigned threads, AtomicOutput& out) {
  write_text_vectors(table, true, threads, out);
}
void write_w2v_bin(const EmbeddingTable& table, unsigned /*threads*/, AtomicOutput& out) { write_word2vec_binary(table, out); }

// --- the registry ---

constexpr std::string_view kGloveAliases[] = {"txt"};
constexpr std::string_view kGloveExtensions[] = {".txt"};
// "word2vec" alone is the text format, as gensim's save_word2vec_format writes by default
// and .vec files hold; fastText's .vec output is that same text format (its .bin models
// are fasttext-bin).
constexpr std::string_view kW2vTextAliases[] = {"word2vec", "vec", "fasttext"};
constexpr std::string_view kW2vTextExtensions[] = {".vec"};
constexpr std::string_view kW2vBinAliases[] = {"word2vec-bin", "bin"};
constexpr std::string_view kW2vBinExtensions[] = {".bin"};
constexpr std::string_view kEmbAliases[] = {"safetensors"};
constexpr std::string_view kEmbExtensions[] = {".emb"};
constexpr std::string_view kProjectorExtensions[] = {"/"};

const VectorFormatSpec kFormats[] = {
    {.format = VectorFormat::emb,
     .name = "emb",
     .aliases = kEmbAliases,
     .extensions = kEmbExtensions,
     .description = "an .emb file",
     .read = read_emb,
     .detect = is_safetensors,
     .detect_stage = DetectStage::signature,
     .write = nullptr,
     .writable = true,
     .binary = true},
    {.format = VectorFormat::glove,
     .name = "glove",
     .aliases = kGloveAliases,
     .extensions = kGloveExtensions,
     .description = "GloVe text vectors",
     .read = read_glove,
     .detect = nullptr,  // what no other format's hook claims (detect_format)
     .write = write_glove,
     .writable = true,
     .binary = false},
    {.format = VectorFormat::w2v_text,
     .name = "w2v-text",
     .aliases = kW2vTextAliases,
     .alias_note = " (the .vec text fastText writes)",
     .extensions = kW2vTextExtensions,
     .description = "word2vec/fastText text vectors (.vec)",
     .read = read_w2v_text,
     .detect = is_w2v_text,
     .detect_stage = DetectStage::text,
     .write = write_w2v_text,
     .writable = true,
     .binary = false},
    {.format = VectorFormat::w2v_bin,
     .name = "w2v-bin",
     .aliases = kW2vBinAliases,
     .extensions = kW2vBinExtensions,
     .description = "word2vec binary vectors (.bin)",
     .read = read_w2v_bin,
     .detect = is_w2v_bin,
     .detect_stage = DetectStage::text,
     .write = write_w2v_bin,
     .writable = true,
     .binary = true},
    {.format = VectorFormat::fasttext_bin,
     .name = "fasttext-bin",
     .description = "a fastText model (.bin)",
     .read = read_fasttext_bin,
     .detect = is_fasttext_model,
     .detect_stage = DetectStage::signature,
     .write = nullptr,  // convert writes it (text/fasttext_writer.h): its n-gram buckets travel with the rows
     .writable = true,
     .binary = true},
    {.format = VectorFormat::projector,
     .name = "projector",
     .extensions = kProjectorExtensions,
     .description = "Embedding Projector files",
     .read = nullptr,
     .write = nullptr,
     .writable = true,
     .binary = false},
};

}  // namespace

std::span<const VectorFormatSpec> vector_formats() { return kFormats; }

const VectorFormatSpec& format_spec(VectorFormat format) {
  for (const VectorFormatSpec& spec : kFormats) {
    if (spec.format == format) return spec;
  }
  EMBED_ASSERT(false && "a VectorFormat without a registry entry");
  return kFormats[0];
}

VectorFormat detect_format(InputStream& in) {
  std::string_view head = in.peek(1 << 16);
  auto detected = [&](DetectStage stage, std::string_view bytes) -> const VectorFormatSpec* {
    for (const VectorFormatSpec& spec : kFormats) {
      if (spec.detect && spec.detect_stage == stage && spec.detect(bytes)) return &spec;
    }
    return nullptr;
  };
  if (const VectorFormatSpec* spec = detected(DetectStage::signature, head)) return spec->format;
  refuse_short_emb(head, in.name());
  refuse_pickle(head, in.name());
  // Text may start with a UTF-8 byte-order mark, which the readers skip.
  if (head.starts_with("\xEF\xBB\xBF")) head.remove_prefix(3);
  if (const VectorFormatSpec* spec = detected(DetectStage::text, head)) return spec->format;
  return VectorFormat::glove;
}

std::string_view format_name(VectorFormat format) { return format_spec(format).name; }

std::optional<VectorFormat> parse_format_name(std::string_view name) {
  for (const VectorFormatSpec& spec : kFormats) {
    if (spec.name == name) return spec.format;
  }
  for (const VectorFormatSpec& spec : kFormats) {
    if (std::ranges::find(spec.aliases, name) != spec.aliases.end()) return spec.format;
  }
  return std::nullopt;
}

std::optional<VectorFormat> format_from_extension(const std::string& path) {
  for (const VectorFormatSpec& spec : kFormats) {
    for (std::string_view extension : spec.extensions) {
      if (path.ends_with(extension)) return spec.format;
    }
  }
  return std::nullopt;
}

std::vector<std::string> format_spellings(FormatUse use) {
  auto usable = [&](const VectorFormatSpec& spec) { return use == FormatUse::read ? spec.read != nullptr : spec.writable; };
  std::vector<std::string> spellings;
  for (const VectorFormatSpec& spec : kFormats) {
    if (usable(spec)) spellings.emplace_back(spec.name);
  }
  for (const VectorFormatSpec& spec : kFormats) {
    if (usable(spec)) spellings.insert(spellings.end(), spec.aliases.begin(), spec.aliases.end());
  }
  return spellings;
}

std::string format_extensions_help() {
  std::string files, directories;
  for (const VectorFormatSpec& spec : kFormats) {
    for (std::string_view extension : spec.extensions) {
      if (extension.ends_with("/")) {
        directories += fmt::format(", a trailing {} for {}", extension, spec.name);
      } else {
        files += files.empty() ? "" : "/";
        files += extension;
      }
    }
  }
  return files + directories;
}

std::string format_aliases_help() {
  std::string help;
  for (const VectorFormatSpec& spec : kFormats) {
    if (spec.aliases.empty()) continue;
    help += help.empty() ? "; also " : ", ";
    help += fmt::format("{} for {}{}", word_list(spec.aliases, "or"), spec.name, spec.alias_note);
  }
  return help;
}

}  // namespace embed
