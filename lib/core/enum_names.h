// The inverse of the name functions that spell command-line enums ("skipgram",
// "adagrad", "host", ...): one loop instead of a parser per enum.
#pragma once

#include <initializer_list>
#include <optional>
#include <string_view>

namespace embed {

// The value among `values` that `name_of` spells `name`; nullopt for any other name.
template <typename Enum>
std::optional<Enum> parse_by_name(std::string_view name, std::initializer_list<Enum> values,
                                  std::string_view (*name_of)(Enum)) {
  for (Enum value : values) {
    if (name == name_of(value)) return value;
  }
  return std::nullopt;
}

}  // namespace embed
