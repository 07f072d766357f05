#include "vectors/load.h"

#include <fmt/format.h>

#include "core/error.h"
#include "vectors/vector_formats.h"

namespace embed {

EmbFile open_emb(const std::string& path) {
  InputStream in = InputStream::open(path);
  return open_emb(in);
}

EmbFile open_emb(InputStream& in) {
  if (in.mappable()) return EmbFile::open(in.path());
  return EmbFile::from_bytes(in.read_all(), in.name());
}

LoadedVectors load_vectors(const std::string& path, const LoadOptions& options) {
  InputStream in = InputStream::open(path);
  const VectorFormat format = options.format ? *options.format : detect_format(in);
  return load_vectors(in, format, options);
}

LoadedVectors load_vectors(InputStream& in, VectorFormat format, const LoadOptions& options) {
  const VectorFormatSpec& spec = format_spec(format);
  if (!spec.read) fail("{}: {} files are written, not read: convert the vectors they came from", in.name(), spec.name);
  if (options.verify && format != VectorFormat::emb) {
    fail("{}: --verify checks .emb files; this input is {}", in.name(), spec.name);
  }
  LoadedVectors loaded;
  loaded.format = format;
  spec.read(in, options, loaded);
  const UnicodeErrors errors = options.words.errors;
  if ((errors == UnicodeErrors::replace || errors == UnicodeErrors::ignore) && loaded.format != VectorFormat::emb) {
    loaded.table.duplicate_note = fmt::format(
        "; --unicode-errors {} {} the bytes that do not decode, which can make two words equal (backslashreplace keeps "
        "them apart)",
        unicode_errors_name(errors), errors == UnicodeErrors::replace ? "replaced" : "dropped");
  }
  return loaded;
}

}  // namespace embed
