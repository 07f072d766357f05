#pragma once

#include <string>
#include <string_view>

namespace embed {

// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool is_valid_utf8(std::string_view text);

// Upper case, code point by code point, with the C library's Unicode tables (as Python's
// str.upper(), which gensim's evaluations use, except for the few letters that become two,
// such as German ß). Bytes that are not valid UTF-8 are kept as they are.
std::string utf8_upper(std::string_view text);

}  // namespace embed
