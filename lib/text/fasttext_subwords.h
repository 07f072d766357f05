// fastText's character n-grams ("subwords") and their hashing, exactly as fastText 0.9
// computes them (Dictionary::computeSubwords and Dictionary::hash in dictionary.cc), so
// that a word's vector built here equals `fasttext print-word-vectors`. Shared by the
// model reader (text/fasttext_model.cpp) and embed-query's answers for words outside
// the vocabulary (search/subword_vectors.h). docs/FORMAT.md#subwords states the rules.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace embed {

// The settings a model's n-grams depend on (fastText's -minn, -maxn, -bucket).
struct SubwordSettings {
  std::uint32_t minn = 0;
  std::uint32_t maxn = 0;      // 0: words have no n-grams
  std::uint64_t buckets = 0;   // rows of the n-gram table; n-gram hashes are taken modulo this
};

// The longest n-gram (maxn) a model or .emb may give: far beyond fastText's use (3 to 6),
// small enough that a hostile file's maxn cannot make a word's n-grams take long.
inline constexpr std::uint32_t kMaxNgramLength = 1024;

// The name of the hashing rule below, as stored in an .emb's metadata.
inline constexpr std::string_view kSubwordHashName = "fasttext-fnv1a-int8";
// fastText's end-of-sentence token: in the vocabulary, and never given n-grams.
inline constexpr std::string_view kFastTextEos = "</s>";

// 32-bit FNV-1a over the bytes, each first widened as a signed char: fastText's models
// were trained with h ^= uint32_t(int8_t(byte)), which differs from textbook FNV-1a for
// bytes >= 0x80 (every non-ASCII UTF-8 byte).
std::uint32_t fasttext_hash(std::string_view bytes);

// Whether "</s>" has n-grams. fastText gives it none since format version 12 (fastText
// 0.1); models of older formats were trained with them, and gensim always computes them.
enum class EosNgrams { none, computed };

// Calls f(ngram) for every n-gram of "<" + word + ">" of minn..maxn characters, in
// fastText's order: by start position, then by length. A character is a UTF-8 lead byte
// and the continuation bytes (10xxxxxx) after it. The single characters "<" and ">" are
// skipped; the whole "<word>" is an n-gram when its length is within minn..maxn. The
// end-of-sentence token "</s>" has none unless `eos` says so.
template <typename F>
void for_each_subword(std::string_view word, const SubwordSettings& settings, F&& f, EosNgrams eos = EosNgrams::none) {
  if (settings.maxn == 0 || (word == kFastTextEos && eos == EosNgrams::none)) return;
  std::string bracketed;
  bracketed.reserve(word.size() + 2);
  bracketed += '<';
  bracketed += word;
  bracketed += '>';
  const std::string_view w = bracketed;
  auto continuation = [&](std::size_t at) { return (static_cast<unsigned char>(w[at]) & 0xC0) == 0x80; };
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (continuation(i)) continue;
    std::size_t j = i;
    for (std::uint32_t n = 1; j < w.size() && n <= settings.maxn; ++n) {
      ++j;
      while (j < w.size() && continuation(j)) ++j;
      if (n >= settings.minn && !(n == 1 && (i == 0 || j == w.size()))) f(w.substr(i, j - i));
    }
  }
}

// The bucket (0 .. buckets-1) of each of the word's n-grams, in for_each_subword's order;
// repeated n-grams appear as often as they occur. Empty when buckets is 0.
std::vector<std::uint32_t> subword_buckets(std::string_view word, const SubwordSettings& settings,
                                           EosNgrams eos = EosNgrams::none);

// Scales a sum of `terms` rows to their average as fastText does: one multiplication
// by the f32 of 1.0 / terms (Vector::mul), so results match its floats bit for bit.
// A sum of no rows stays as it is (zero).
void fasttext_average(std::span<float> sum, std::size_t terms);

}  // namespace embed
