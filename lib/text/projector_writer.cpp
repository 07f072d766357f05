#include "text/projector_writer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

#include "core/error.h"
#include "text/text_writer.h"

namespace embed {
namespace {

// What JavaScript's String.prototype.trim() removes (WhiteSpace and LineTerminator in
// ECMA-262): the projector skips a metadata line that is blank once trimmed.
bool is_js_whitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

// The code points of `text` (valid UTF-8, as every reader makes words), or nullopt for a
// byte that does not start one: such a word is not blank anyway.
std::optional<std::u32string> code_points(std::string_view text) {
  std::u32string points;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
    if (length == 0 || i + length > text.size()) return std::nullopt;
    auto c = static_cast<char32_t>(length == 1 ? lead : lead & (0x7F >> length));
    for (std::size_t k = 1; k < length; ++k) {
      c = (c << 6) | static_cast<char32_t>(static_cast<unsigned char>(text[i + k]) & 0x3F);
    }
    points.push_back(c);
    i += length;
  }
  return points;
}

// The C escape both metadata.tsv and protobuf's text format use for a backslash, a tab,
// a newline and a carriage return, or nullptr for another character.
const char* c_escape(char c) {
  switch (c) {
    case '\\': return "\\\\";
    case '\t': return "\\t";
    case '\n': return "\\n";
    case '\r': return "\\r";
    default: return nullptr;
  }
}

// A string literal of protobuf's text format: C escapes for what the parser reads as
// syntax or cannot take raw; UTF-8 passes through.
std::string pbtxt_string(std::string_view text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') {
      quoted += "\\\"";
    } else if (const char* escape = c_escape(c)) {
      quoted += escape;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      quoted += fmt::format("\\{:03o}", static_cast<unsigned char>(c));
    } else {
      quoted += c;
    }
  }
  return quoted + "\"";
}

std::string join_path(const std::string& directory, std::string_view name) {
  return directory.ends_with('/') ? directory + std::string(name) : fmt::format("{}/{}", directory, name);
}

}  // namespace

std::string projector_label(std::string_view word) {
  std::string label;
  if (auto points = code_points(word); points && !points->empty()) {
    bool blank = true;
    for (char32_t c : *points) blank = blank && is_js_whitespace(c);
    if (blank) {
      for (char32_t c : *points) label += fmt::format("\\u{:04X}", static_cast<std::uint32_t>(c));
      return label;
    }
  }
  label.reserve(word.size());
  for (char c : word) {
    if (const char* escape = c_escape(c)) label += escape;
    else label += c;
  }
  return label;
}

std::string projector_tensor_name(const std::string& input_path) {
  if (input_path == "-") return "stdin";
  std::string name = input_path.substr(input_path.find_last_of('/') + 1);  // npos + 1 is 0
  if (name.size() > 3 && name.ends_with(".gz")) name.resize(name.size() - 3);
  for (std::string_view extension : {".txt", ".vec", ".bin", ".emb"}) {
    if (name.size() > extension.size() && name.ends_with(extension)) {
      name.resize(name.size() - extension.size());
      break;
    }
  }
  return name.empty() ? "embeddings" : name;
}

ProjectorOutput::ProjectorOutput(std::string directory) : directory_(std::move(directory)) {
  if (::mkdir(directory_.c_str(), 0777) == 0) {
    created_directory_ = true;
  } else if (errno == EEXIST) {
    struct stat info {};
    if (::stat(directory_.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
      fail("{}: exists and is not a directory: the projector output is a directory (of vectors.tsv, metadata.tsv "
           "and projector_config.pbtxt)",
           directory_);
    }
  } else {
    fail("{}: cannot create the projector output directory: {}", directory_, std::strerror(errno));
  }
  try {
    vectors_.emplace(join_path(directory_, "vectors.tsv"), Streaming::allowed);
    metadata_.emplace(join_path(directory_, "metadata.tsv"), Streaming::allowed);
    config_.emplace(join_path(directory_, "projector_config.pbtxt"), Streaming::allowed);
  } catch (...) {
    discard();
    throw;
  }
}

ProjectorOutput::~ProjectorOutput() {
  if (!committed_) discard();
}

void ProjectorOutput::discard() {
  // The temporaries go first, so that a directory this run made is empty again.
  vectors_.reset();
  metadata_.reset();
  config_.reset();
  if (created_directory_) ::rmdir(directory_.c_str());
  created_directory_ = false;
}

void ProjectorOutput::write(const EmbeddingTable& table, std::string_view tensor_name, unsigned threads) {
  // The projector refuses vectors of one dimension ("Found a vector with only one dimension?").
  if (table.dim < 2) fail("{}: the projector needs vectors of 2 or more dimensions; these have {}", directory_, table.dim);
  write_row_blocks(table.rows(), threads, *vectors_, [&](std::size_t r, std::string& text) {
    append_values(text, table.row(r), '\t');
    text.push_back('\n');
  });
  // The projector reads a first line with a tab as column names, and a single column
  // without one: so a header only with the count column.
  const bool with_counts = !table.counts.empty();
  if (with_counts) metadata_->write("word\tcount\n");
  write_row_blocks(table.rows(), threads, *metadata_, [&](std::size_t r, std::string& text) {
    text += projector_label(table.word(r));
    if (with_counts) fmt::format_to(std::back_inserter(text), "\t{}", table.counts[r]);
    text.push_back('\n');
  });
  // The shape spares TensorBoard reading the whole vectors.tsv to learn it.
  config_->write(fmt::format("embeddings {{\n  tensor_name: {}\n  tensor_path: \"vectors.tsv\"\n  metadata_path: "
                             "\"metadata.tsv\"\n  tensor_shape: {}\n  tensor_shape: {}\n}}\n",
                             pbtxt_string(tensor_name), table.rows(), table.dim));
}

void ProjectorOutput::commit() {
  vectors_->commit();
  metadata_->commit();
  config_->commit();
  committed_ = true;
}

}  // namespace embed
