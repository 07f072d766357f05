#include "core/excerpt.h"

#include <fmt/format.h>

#include "core/utf8.h"

namespace embed {

std::string excerpt(std::string_view text, std::size_t max_bytes) {
  std::string_view shown = text;
  if (shown.size() > max_bytes) {
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
    shown = text.substr(0, cut);
  }
  const bool utf8 = is_valid_utf8(shown);
  std::string out;
  out.reserve(shown.size() + 3);
  for (const char ch : shown) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7F || (c >= 0x80 && !utf8)) {
      out += fmt::format("\\x{:02X}", c);
    } else {
      out += ch;
    }
  }
  if (shown.size() < text.size()) out += "...";
  return out;
}

}  // namespace embed
