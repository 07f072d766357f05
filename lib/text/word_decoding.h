// How the bytes of a word in a vector file become UTF-8: kept as they are when they are
// UTF-8 (the default), or converted from the file's legacy 8-bit encoding (--encoding
// cp1251, latin-1, cp852: word2vec and fastText files from before UTF-8 was the rule), with
// the bytes that do not decode handled as gensim's unicode_errors says.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/utf8.h"

namespace embed {

struct WordDecoding {
  std::string encoding;                          // an iconv name; empty (or UTF-8): UTF-8
  UnicodeErrors errors = UnicodeErrors::strict;  // --unicode-errors
  bool utf8() const;
};

// What makes `encoding` unusable, for --encoding's message, or "": iconv (the C library's)
// has no converter from it to UTF-8, or it is not ASCII-compatible (the readers find
// spaces and newlines as ASCII bytes).
std::string encoding_problem(const std::string& encoding);

// True when `word` must go through decode_word: bytes that are not UTF-8, or, from a
// legacy encoding, any byte past ASCII.
bool needs_decoding(std::string_view word, const WordDecoding& decoding);

// Decodes `word` into `decoded` (UTF-8): nullopt, or what is wrong with it (for the
// caller to prefix with the file and line): a byte that does not decode under strict, or a
// word left empty by ignore.
std::optional<std::string> decode_word(std::string_view word, const WordDecoding& decoding, std::string& decoded);

}  // namespace embed
