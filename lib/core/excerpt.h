// Text from a file or a user, quoted in a message: at most a few dozen bytes of it, cut on a
// character boundary, with control bytes and bytes that are not UTF-8 written as \xNN, so that
// a hostile or binary input cannot make an error message long or unreadable.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace embed {

// `text` as it may appear between quotes in a message; "..." marks a cut.
std::string excerpt(std::string_view text, std::size_t max_bytes = 40);

}  // namespace embed
