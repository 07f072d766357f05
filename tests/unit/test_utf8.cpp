#include <catch2/catch.hpp>

#include "core/utf8.h"

using embed::is_valid_utf8;

TEST_CASE("UTF-8 validation", "[utf8]") {
  CHECK(is_valid_utf8("plain"));
  CHECK(is_valid_utf8("café naïve 日本 🙂"));
  CHECK_FALSE(is_valid_utf8("\xff"));
  CHECK_FALSE(is_valid_utf8("caf\xc3"));           // truncated sequence
  CHECK_FALSE(is_valid_utf8("\xc0\xaf"));          // overlong "/"
  CHECK_FALSE(is_valid_utf8("\xed\xa0\x80"));      // surrogate
  CHECK_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // past U+10FFFF
  CHECK_FALSE(is_valid_utf8("a\x80z"));            // stray continuation
}
