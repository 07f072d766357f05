// Checks on option values that read as a person would write them: numeric ranges
// ("at least 1", "1 to 100") instead of CLI11's Range, whose unbounded ends print as
// 300-digit numbers, and input files whose absence is an input error (exit 1, as for a
// file the tool opens itself) rather than a usage error.
#pragma once

#include <optional>
#include <string>
#include <type_traits>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace embed::cli {

namespace detail {
template <typename T>
std::string kind_of_number() {
  return std::is_integral_v<T> ? "an integer" : "a number";
}
// %g: 1e+12 rather than 1000000000000.
template <typename T>
std::string shown_number(T value) {
  if constexpr (std::is_floating_point_v<T>) {
    return fmt::format("{:g}", value);
  } else {
    return fmt::format("{}", value);
  }
}
template <typename T>
CLI::Validator bounded(T low, std::optional<T> high) {
  const std::string from = shown_number(low);
  const std::string wanted = high ? fmt::format("{} from {} to {}", kind_of_number<T>(), from, shown_number(*high))
                                  : fmt::format("{} of {} or more", kind_of_number<T>(), from);
  const std::string shown = high ? fmt::format("{} to {}", from, shown_number(*high)) : fmt::format("at least {}", from);
  return CLI::Validator(
      [low, high, wanted](std::string& input) -> std::string {
        T value{};
        // CLI11 reads "-3" into an unsigned type as 2^64 - 3 (strtoull): a minus sign is out of range.
        const std::size_t first = input.find_first_not_of(" \t");
        const bool negative = std::is_unsigned_v<T> && first != std::string::npos && input[first] == '-';
        if (negative || !CLI::detail::lexical_cast(input, value) || value < low || (high && value > *high)) {
          return input + " is not " + wanted;
        }
        return {};
      },
      shown);
}
}  // namespace detail

// low..high, both included.
template <typename T>
CLI::Validator between(T low, T high) {
  return detail::bounded<T>(low, high);
}

// low or more.
template <typename T>
CLI::Validator at_least(T low) {
  return detail::bounded<T>(low, std::nullopt);
}

// A file the tool reads. parse() (tool_cli.h) reports one that is missing, a directory
// or unreadable as "tool: error: FILE: cannot open: reason" and exit 1, after the usage
// errors, which come first. Stdin::allowed: "-" is standard input, which the option's
// reader takes.
enum class Stdin { refused, allowed };
CLI::Validator input_file(Stdin stdin_allowed = Stdin::refused);

// The first input_file() problem seen while parsing, or "" (for parse()).
std::string take_input_file_error();

}  // namespace embed::cli
