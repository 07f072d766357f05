#include "text/fasttext_subwords.h"

#include <string>

namespace embed {

std::uint32_t fasttext_hash(std::string_view bytes) {
  std::uint32_t h = 2166136261u;
  for (char c : bytes) {
    h ^= static_cast<std::uint32_t>(static_cast<std::int8_t>(c));
    h *= 16777619u;
  }
  return h;
}

std::vector<std::uint32_t> subword_buckets(std::string_view word, const SubwordSettings& settings, EosNgrams eos) {
  std::vector<std::uint32_t> buckets;
  if (settings.buckets == 0) return buckets;
  for_each_subword(
      word, settings,
      [&](std::string_view ngram) { buckets.push_back(static_cast<std::uint32_t>(fasttext_hash(ngram) % settings.buckets)); },
      eos);
  return buckets;
}

void fasttext_average(std::span<float> sum, std::size_t terms) {
  if (terms == 0) return;
  const auto scale = static_cast<float>(1.0 / static_cast<double>(terms));
  for (float& x : sum) x *= scale;
}

}  // namespace embed
