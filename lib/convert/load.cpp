#include "convert/load.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/parallel.h"
#include "text/fasttext_model.h"
#include "text/text_reader.h"
#include "text/word2vec_binary.h"

namespace embed {
namespace {

EmbFile open_emb_stream(InputStream& in) {
  if (in.mappable()) return EmbFile::open(in.path());
  return EmbFile::from_bytes(in.read_all(), in.name());
}

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

}  // namespace

EmbFile open_emb(const std::string& path) {
  InputStream in = InputStream::open(path);
  return open_emb_stream(in);
}

EmbFile open_emb(InputStream& in) { return open_emb_stream(in); }

LoadedVectors load_vectors(const std::string& path, const LoadOptions& options) {
  InputStream in = InputStream::open(path);
  const VectorFormat format = options.format ? *options.format : detect_format(in);
  return load_vectors(in, format, options);
}

LoadedVectors load_vectors(InputStream& in, VectorFormat format, const LoadOptions& options) {
  LoadedVectors loaded;
  loaded.format = format;
  switch (loaded.format) {
    case VectorFormat::emb: {
      EmbFile file = open_emb_stream(in);
      if (options.verify) file.verify();
      loaded.normalized = file.normalized();
      loaded.dtype = file.dtype();
      loaded.table = table_from_emb(file, options);
      if (auto subwords = SubwordTable::from_emb(file, true /* the file is closed on return */)) {
        if (options.subwords) loaded.subwords = std::move(subwords);
        else loaded.subwords_left = true;
      }
      break;
    }
    case VectorFormat::fasttext_bin: {
      FastTextReadOptions read;
      read.limit = options.limit;
      read.keep = options.keep;
      read.unicode_errors = options.unicode_errors;
      read.keep_subwords = options.subwords;
      FastTextModel model = read_fasttext_model(in, read);
      loaded.table = std::move(model.table);
      loaded.subwords = std::move(model.subwords);
      break;
    }
    case VectorFormat::w2v_bin:
      loaded.table = read_word2vec_binary(in, options.limit, options.keep, options.unicode_errors);
      break;
    case VectorFormat::glove:
    case VectorFormat::w2v_text: {
      TextReadOptions text;
      text.has_header = loaded.format == VectorFormat::w2v_text;
      text.limit = options.limit;
      text.keep = options.keep;
      text.threads = options.threads;
      text.unicode_errors = options.unicode_errors;
      text.row_sink = options.row_sink;
      loaded.table = read_text_vectors(in, text);
      loaded.streamed = static_cast<bool>(options.row_sink);
      break;
    }
    case VectorFormat::projector:
      fail("{}: projector files are written, not read: convert the vectors they came from", in.name());
  }
  if (options.unicode_errors != UnicodeErrors::strict && loaded.format != VectorFormat::emb) {
    loaded.table.duplicate_note =
        fmt::format("; --unicode-errors {} {} the bytes that are not UTF-8, which can make two words equal",
                    unicode_errors_name(options.unicode_errors),
                    options.unicode_errors == UnicodeErrors::replace ? "replaced" : "dropped");
  }
  if (options.verify && loaded.format != VectorFormat::emb) {
    fail("{}: --verify checks .emb files; this input is {}", in.name(), format_name(loaded.format));
  }
  return loaded;
}

}  // namespace embed
