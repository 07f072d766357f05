#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace embed {

// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool is_valid_utf8(std::string_view text);

// What to do with bytes that are not valid UTF-8, as Python's (and gensim's)
// unicode_errors: fail (strict), put U+FFFD in their place (replace), drop them (ignore), or
// write each as the text \xNN (backslashreplace: gensim's fastText reader does, and it
// keeps words that differ in those bytes distinct).
enum class UnicodeErrors { strict, replace, ignore, backslashreplace };
std::string_view unicode_errors_name(UnicodeErrors mode);
std::optional<UnicodeErrors> parse_unicode_errors(std::string_view name);
std::vector<std::string> unicode_errors_names();

// `text` with each maximal ill-formed subsequence (Unicode's "maximal subpart", as Python
// decodes) replaced by U+FFFD (`mode` replace), dropped (ignore), or each of its bytes
// written \xNN in lower-case hex (backslashreplace, as Python writes it).
std::string repair_utf8(std::string_view text, UnicodeErrors mode);

// Upper case, code point by code point, with the C library's Unicode tables (as Python's
// str.upper(), which gensim's evaluations use, except for the few letters that become two,
// such as German ß). Bytes that are not valid UTF-8 are kept as they are.
std::string utf8_upper(std::string_view text);
// Lower case, likewise (embed-query's hint for a word asked in the wrong case).
std::string utf8_lower(std::string_view text);

}  // namespace embed
