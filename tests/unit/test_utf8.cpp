#include <catch2/catch.hpp>

#include "core/utf8.h"

using embed::is_valid_utf8;
using embed::parse_unicode_errors;
using embed::repair_utf8;
using embed::UnicodeErrors;

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

TEST_CASE("bad UTF-8 is replaced or dropped as Python decodes it", "[utf8]") {
  const std::string fffd = "\xEF\xBF\xBD";
  // Python: b"...".decode("utf-8", "replace"): one U+FFFD per maximal ill-formed subpart.
  CHECK(repair_utf8("b\xFF", UnicodeErrors::replace) == "b" + fffd);
  CHECK(repair_utf8("caf\xC3", UnicodeErrors::replace) == "caf" + fffd);
  CHECK(repair_utf8("\xFF\xFE", UnicodeErrors::replace) == fffd + fffd);
  CHECK(repair_utf8("\xE2\x82" "x", UnicodeErrors::replace) == fffd + "x");  // a truncated 3-byte sequence: one
  CHECK(repair_utf8("\xED\xA0\x80", UnicodeErrors::replace) == fffd + fffd + fffd);  // a surrogate: each byte
  CHECK(repair_utf8("\xF0\x9F\x98", UnicodeErrors::replace) == fffd);
  CHECK(repair_utf8("ok caf\xC3\xA9", UnicodeErrors::replace) == "ok caf\xC3\xA9");
  CHECK(repair_utf8("b\xFF" "c\xC3", UnicodeErrors::ignore) == "bc");
  // Python: b"...".decode("utf-8", "backslashreplace"): each byte of the bad subpart as \xNN.
  CHECK(repair_utf8("kter\xEC", UnicodeErrors::backslashreplace) == "kter\\xec");
  CHECK(repair_utf8("\xE2\x82" "x", UnicodeErrors::backslashreplace) == "\\xe2\\x82x");
  CHECK(parse_unicode_errors("backslashreplace") == UnicodeErrors::backslashreplace);
  CHECK(parse_unicode_errors("replace") == UnicodeErrors::replace);
  CHECK_FALSE(parse_unicode_errors("lenient").has_value());
}
