#include "train/word2vec/sampling.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace embed {

NegativeSampler::NegativeSampler(std::span<const std::int64_t> counts, double power)
    : size_(counts.size()), threshold_(counts.size()), alias_(counts.size()) {
  EMBED_ASSERT(!counts.empty());
  const std::size_t n = counts.size();
  std::vector<double> scaled(n);
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += scaled[i] = std::pow(static_cast<double>(counts[i]), power);
  for (auto& p : scaled) p = p * static_cast<double>(n) / sum;  // mean 1

  // Vose: pair each under-full bucket with an over-full one that tops it up.
  std::vector<std::uint32_t> small, large;
  for (std::uint32_t i = 0; i < n; ++i) (scaled[i] < 1.0 ? small : large).push_back(i);
  while (!small.empty() && !large.empty()) {
    const std::uint32_t s = small.back(), l = large.back();
    small.pop_back();
    threshold_[s] = static_cast<std::uint32_t>(std::min(scaled[s] * 4294967296.0, 4294967295.0));
    alias_[s] = l;
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // What remains is full up to rounding error.
  for (std::uint32_t i : large) threshold_[i] = 0xFFFFFFFFu, alias_[i] = i;
  for (std::uint32_t i : small) threshold_[i] = 0xFFFFFFFFu, alias_[i] = i;
}

double NegativeSampler::probability(std::uint32_t row) const {
  const double n = static_cast<double>(size_);
  double p = static_cast<double>(threshold_[row]) / 4294967296.0 / n;
  for (std::size_t b = 0; b < size_; ++b) {
    if (alias_[b] == row && b != row) p += (1.0 - static_cast<double>(threshold_[b]) / 4294967296.0) / n;
  }
  return p;
}

std::vector<std::uint32_t> keep_thresholds(std::span<const std::int64_t> counts, double sample) {
  std::vector<std::uint32_t> thresholds(counts.size(), kAlwaysKeep);
  if (sample <= 0) return thresholds;
  double total = 0;
  for (auto c : counts) total += static_cast<double>(c);
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const double keep = keep_probability(static_cast<double>(counts[i]), total, sample);
    if (keep < 1.0) thresholds[i] = static_cast<std::uint32_t>(keep * 4294967296.0);
  }
  return thresholds;
}

double keep_probability(double count, double total, double sample) {
  if (sample <= 0) return 1.0;
  const double t = sample * total;
  return std::min(1.0, (std::sqrt(count / t) + 1.0) * t / count);
}

}  // namespace embed
