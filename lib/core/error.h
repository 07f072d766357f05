// Errors. Two tiers, as in faiss: a user's mistake or bad input throws embed::Error
// with enough context (file, line, what was expected) to be printed as one line;
// a broken internal invariant is a bug and aborts through EMBED_ASSERT.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace embed {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A command line whose options contradict each other: the tools print it with "; see
// --help" and exit with their usage status (2), as for what the option parser rejects.
class UsageError : public Error {
 public:
  using Error::Error;
};

// Throws embed::Error with a fmt-formatted message.
template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

// Throws embed::UsageError with a fmt-formatted message.
template <typename... Args>
[[noreturn]] void fail_usage(fmt::format_string<Args...> format, Args&&... args) {
  throw UsageError(fmt::format(format, std::forward<Args>(args)...));
}

// "path:line: message", the shape every input error takes.
template <typename... Args>
[[noreturn]] void fail_at(const std::string& path, unsigned long long line,
                          fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format("{}:{}: {}", path, line, fmt::format(format, std::forward<Args>(args)...)));
}

}  // namespace embed

#define EMBED_ASSERT(cond)                                                                  \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      std::fprintf(stderr, "internal error: %s:%d: assertion failed: %s\n", __FILE__, __LINE__, \
                   #cond);                                                                  \
      std::abort();                                                                         \
    }                                                                                       \
  } while (0)
