// The spellings of command-line and file enums ("skipgram", "adagrad", "host", "F32"),
// each enum's as one table of (value, name) pairs that both directions read, instead
// of a switch and a parser per enum.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace embed {

template <typename Enum>
struct EnumName {
  Enum value;
  std::string_view name;
};

// The name `table` gives `value` ("?" for a value it lacks, which is a bug).
template <typename Enum, std::size_t N>
constexpr std::string_view name_in(const EnumName<Enum> (&table)[N], Enum value) {
  for (const EnumName<Enum>& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

// The value `table` spells `name`; nullopt for any other name.
template <typename Enum, std::size_t N>
constexpr std::optional<Enum> parse_in(const EnumName<Enum> (&table)[N], std::string_view name) {
  for (const EnumName<Enum>& entry : table) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

// Every name in `table`, in its order: the choices a command-line option offers, so that
// the tools never spell an enum's names a second time.
template <typename Enum, std::size_t N>
std::vector<std::string> names_in(const EnumName<Enum> (&table)[N]) {
  std::vector<std::string> names;
  for (const EnumName<Enum>& entry : table) names.emplace_back(entry.name);
  return names;
}

}  // namespace embed
