// Helpers for unit tests: a scratch directory removed afterwards, whole-file I/O,
// and a way to assert that a call throws embed::Error mentioning some text.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <catch2/catch.hpp>

#include "core/error.h"

namespace embed::test {

class TempDir {
 public:
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "embed-test-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = templ;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace embed::test

// Checks that `expr` throws embed::Error whose message contains `text`.
#define REQUIRE_ERROR_CONTAINS(expr, text) REQUIRE_THROWS_WITH(expr, Catch::Matchers::Contains(text))
