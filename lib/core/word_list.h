// Names joined for messages and help: "a", "a or b", "a, b or c".
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace embed {

// `names` separated by commas, with `conjunction` ("and", "or") before the last.
inline std::string word_list(std::span<const std::string_view> names, std::string_view conjunction) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i + 1 == names.size() && i > 0) {
      text.append(" ").append(conjunction).append(" ");
    } else if (i > 0) {
      text += ", ";
    }
    text += names[i];
  }
  return text;
}

}  // namespace embed
