#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "format/word_index.h"

using namespace embed;

TEST_CASE("the index finds every word and misses absent ones", "[index]") {
  std::vector<std::string> words;
  for (int i = 0; i < 5000; ++i) words.push_back("w" + std::to_string(i * 7919));
  auto word_at = [&](std::uint64_t r) { return std::string_view(words[r]); };
  const auto slots = build_index(words.size(), min_index_capacity(words.size()), word_at,
                                 [](std::uint64_t, std::uint64_t) { FAIL("no duplicates here"); });
  for (std::size_t r = 0; r < words.size(); ++r) REQUIRE(find_in_index<decltype(word_at)>(slots, words.size(), word_at, words[r]) == r);
  CHECK_FALSE(find_in_index<decltype(word_at)>(slots, words.size(), word_at, "absent").has_value());
  CHECK_FALSE(find_in_index<decltype(word_at)>(slots, words.size(), word_at, "").has_value());
}

TEST_CASE("a full table (one empty slot) still terminates lookups", "[index]") {
  std::vector<std::string> words = {"a", "b", "c"};
  auto word_at = [&](std::uint64_t r) { return std::string_view(words[r]); };
  const auto slots = build_index(3, 4, word_at, [](std::uint64_t, std::uint64_t) {});
  for (std::size_t r = 0; r < 3; ++r) CHECK(find_in_index<decltype(word_at)>(slots, 3, word_at, words[r]) == r);
  CHECK_FALSE(find_in_index<decltype(word_at)>(slots, 3, word_at, "zz").has_value());
}

TEST_CASE("building reports a repeated word with both rows", "[index]") {
  std::vector<std::string> words = {"a", "b", "c", "b"};
  auto word_at = [&](std::uint64_t r) { return std::string_view(words[r]); };
  std::pair<std::uint64_t, std::uint64_t> seen{99, 99};
  build_index(words.size(), min_index_capacity(words.size()), word_at,
              [&](std::uint64_t first, std::uint64_t again) { seen = {first, again}; });
  CHECK(seen == std::pair<std::uint64_t, std::uint64_t>{1, 3});
}

TEST_CASE("FNV-1a matches the published test vectors", "[index]") {
  CHECK(word_hash("") == 0xcbf29ce484222325ull);
  CHECK(word_hash("a") == 0xaf63dc4c8601ec8cull);
  CHECK(word_hash("foobar") == 0x85944171f73967e8ull);
}

TEST_CASE("a corrupt slot pointing past the rows is a miss, not a crash", "[index]") {
  std::vector<std::string> words = {"x"};
  auto word_at = [&](std::uint64_t r) { return std::string_view(words.at(r)); };
  std::vector<std::uint32_t> slots(3, 7);  // all slots claim row 7 of 1
  CHECK_FALSE(find_in_index<decltype(word_at)>(slots, 1, word_at, "x").has_value());
}
