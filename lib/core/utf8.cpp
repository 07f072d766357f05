#include "core/utf8.h"

#include <cstdint>
#include <cwctype>

#include <locale.h>

#include "core/enum_names.h"

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

// The length of the ill-formed sequence at p (which does not decode): its lead byte and
// the bytes after it that could still have continued a well-formed sequence, at least 1.
int invalid_length(const unsigned char* p, const unsigned char* end) {
  const unsigned char c = *p;
  int need = 0;
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c == 0xE0) {
    need = 2;
    low = 0xA0;
  } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
    need = 2;
  } else if (c == 0xED) {
    need = 2;
    high = 0x9F;
  } else if (c == 0xF0) {
    need = 3;
    low = 0x90;
  } else if (c >= 0xF1 && c <= 0xF3) {
    need = 3;
  } else if (c == 0xF4) {
    need = 3;
    high = 0x8F;
  } else {
    return 1;
  }
  if (end - p < 2 || p[1] < low || p[1] > high) return 1;
  int length = 2;
  while (length <= need && p + length < end && (p[length] & 0xC0) == 0x80) ++length;
  return length;
}

}  // namespace

namespace {
constexpr EnumName<UnicodeErrors> kUnicodeErrorsNames[] = {
    {UnicodeErrors::strict, "strict"},
    {UnicodeErrors::replace, "replace"},
    {UnicodeErrors::ignore, "ignore"},
    {UnicodeErrors::backslashreplace, "backslashreplace"}};
}  // namespace

std::string_view unicode_errors_name(UnicodeErrors mode) { return name_in(kUnicodeErrorsNames, mode); }
std::optional<UnicodeErrors> parse_unicode_errors(std::string_view name) { return parse_in(kUnicodeErrorsNames, name); }
std::vector<std::string> unicode_errors_names() { return names_in(kUnicodeErrorsNames); }

std::string repair_utf8(std::string_view text, UnicodeErrors mode) {
  std::string out;
  out.reserve(text.size() + 8);
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p < end) {
    std::uint32_t cp = 0;
    const int length = decode(p, end, cp);
    if (length > 0) {
      out.append(reinterpret_cast<const char*>(p), static_cast<std::size_t>(length));
      p += length;
      continue;
    }
    const int invalid = invalid_length(p, end);
    if (mode == UnicodeErrors::replace) out += "\xEF\xBF\xBD";  // U+FFFD
    if (mode == UnicodeErrors::backslashreplace) {
      static constexpr char kHex[] = "0123456789abcdef";
      for (int i = 0; i < invalid; ++i) out += {'\\', 'x', kHex[p[i] >> 4], kHex[p[i] & 15]};
    }
    p += invalid;
  }
  return out;
}

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

namespace {

// Each code point upper- or lower-cased with the C library's Unicode tables;
// ASCII directly, invalid bytes kept as they are.
std::string map_case(std::string_view text, bool upper) {
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
      if (upper && cp >= 'a' && cp <= 'z') cp -= 32;
      if (!upper && cp >= 'A' && cp <= 'Z') cp += 32;
      out += static_cast<char>(cp);
    } else {
      const auto wide = static_cast<wint_t>(cp);
      const auto mapped = unicode ? (upper ? ::towupper_l(wide, unicode) : ::towlower_l(wide, unicode)) : wide;
      encode(static_cast<std::uint32_t>(mapped), out);
    }
    p += length;
  }
  return out;
}

}  // namespace

std::string utf8_upper(std::string_view text) { return map_case(text, true); }

std::string utf8_lower(std::string_view text) { return map_case(text, false); }

}  // namespace embed
