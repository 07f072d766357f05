#include "core/utf8.h"

#include <cstdint>
#include <cwctype>

#include <locale.h>

namespace embed {

namespace {

// Decodes the code point at p; returns its length in bytes, or 0 when p does not start a
// well-formed sequence (truncated, overlong, a surrogate, or past U+10FFFF).
int decode(const unsigned char* p, const unsigned char* end, std::uint32_t& cp) {
  const unsigned char c = *p;
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  const int extra = (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
  if (extra < 0 || end - p <= extra) return 0;
  cp = c & (0x3F >> extra);
  for (int i = 1; i <= extra; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  static constexpr std::uint32_t kMinimum[] = {0, 0x80, 0x800, 0x10000};
  if (cp < kMinimum[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return extra + 1;
}

void encode(std::uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  std::uint32_t cp = 0;
  while (p < end) {
    const int length = decode(p, end, cp);
    if (length == 0) return false;
    p += length;
  }
  return true;
}

std::string utf8_upper(std::string_view text) {
  // A locale object of our own: the process's global locale (usually "C") stays untouched.
  static const locale_t unicode = ::newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  std::string out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    std::uint32_t cp = 0;
    const int length = decode(p, end, cp);
    if (length == 0) {
      out += static_cast<char>(*p++);
      continue;
    }
    if (cp < 0x80) {
      out += static_cast<char>(cp >= 'a' && cp <= 'z' ? cp - 32 : cp);
    } else {
      const auto upper = unicode ? static_cast<std::uint32_t>(::towupper_l(static_cast<wint_t>(cp), unicode)) : cp;
      encode(upper, out);
    }
    p += length;
  }
  return out;
}

}  // namespace embed
