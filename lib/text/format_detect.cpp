#include "text/format_detect.h"

#include <cstdint>

#include "text/text_reader.h"

namespace embed {

std::string_view format_name(VectorFormat format) {
  switch (format) {
    case VectorFormat::glove: return "glove";
    case VectorFormat::w2v_text: return "w2v-text";
    case VectorFormat::w2v_bin: return "w2v-bin";
    case VectorFormat::emb: return "emb";
  }
  return "?";
}

std::optional<VectorFormat> parse_format_name(std::string_view name) {
  for (auto f : {VectorFormat::glove, VectorFormat::w2v_text, VectorFormat::w2v_bin, VectorFormat::emb}) {
    if (format_name(f) == name) return f;
  }
  return std::nullopt;
}

VectorFormat detect_format(InputStream& in) {
  const std::string_view head = in.peek(1 << 16);
  if (head.size() >= 9) {
    std::uint64_t header_size = 0;
    for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | static_cast<unsigned char>(head[i]);
    const auto first = head.substr(8).find_first_not_of(" \t\r\n");
    if (header_size >= 2 && header_size < 100'000'000 && first != std::string_view::npos && head[8 + first] == '{') {
      return VectorFormat::emb;
    }
  }
  const auto newline = head.find('\n');
  if (newline == std::string_view::npos) return VectorFormat::glove;
  const auto header = parse_count_dim_header(head.substr(0, newline));
  if (!header) return VectorFormat::glove;
  // After the header comes "word " and then either D numbers as text, up to a newline,
  // or 4 * D raw bytes.
  const std::string_view row = head.substr(newline + 1);
  const auto space = row.find(' ');
  if (space == std::string_view::npos) return VectorFormat::w2v_text;
  auto textual = [](unsigned char c) {
    return (c >= '0' && c <= '9') || c == ' ' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E' ||
           c == '\r' || c == '\t' || c == 'n' || c == 'a' || c == 'i' || c == 'f' || c == 'N' || c == 'I' || c == 'F';
  };
  const std::string_view rest = row.substr(space + 1);
  const auto row_end = rest.find('\n');
  const std::string_view numbers = rest.substr(0, row_end);
  for (unsigned char c : numbers) {
    if (!textual(c)) return VectorFormat::w2v_bin;
  }
  if (row_end == std::string_view::npos) return VectorFormat::w2v_text;  // a very long text row
  std::size_t fields = 0;
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    const bool separator = numbers[i] == ' ' || numbers[i] == '\t' || numbers[i] == '\r';
    if (!separator && (i == 0 || numbers[i - 1] == ' ' || numbers[i - 1] == '\t')) ++fields;
  }
  // Raw floats can contain a 0x0A byte after a few text-like bytes, but hardly ever after
  // half a row's worth of number-like fields. A text row with the wrong field count is
  // still text, so that its error says so.
  return fields >= 1 && 2 * fields >= header->second ? VectorFormat::w2v_text : VectorFormat::w2v_bin;
}

std::optional<VectorFormat> format_from_extension(const std::string& path) {
  auto ends_with = [&](std::string_view suffix) {
    return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".emb")) return VectorFormat::emb;
  if (ends_with(".txt")) return VectorFormat::glove;
  if (ends_with(".vec")) return VectorFormat::w2v_text;
  if (ends_with(".bin")) return VectorFormat::w2v_bin;
  return std::nullopt;
}

}  // namespace embed
