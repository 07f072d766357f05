#pragma once

#include <string_view>

namespace embed {

// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool is_valid_utf8(std::string_view text);

}  // namespace embed
