// The whitespace that separates tokens everywhere text is tokenized (corpora, query
// lines): the six ASCII whitespace bytes, as word2vec and fastText split. Bytes of a
// UTF-8 sequence are never among them, so a cut at one never splits a character.
#pragma once

namespace embed {

constexpr bool is_ascii_space(unsigned char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

}  // namespace embed
