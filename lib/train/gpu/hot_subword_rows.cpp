#include "train/gpu/hot_subword_rows.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace embed {
namespace {

// A row of one of the two tables, and how often batches touch it per corpus word.
struct Candidate {
  double rate = 0;
  bool output = false;
  std::uint32_t row = 0;
};

}  // namespace

SubwordHotRows subword_hot_rows(const SubwordRows& subwords, std::span<const std::int64_t> counts, Model model,
                                std::size_t window, std::size_t negative, std::size_t rows) {
  const std::size_t words = subwords.words();
  EMBED_ASSERT(counts.size() == words && (model == Model::skipgram || model == Model::cbow));
  const bool skipgram = model == Model::skipgram;
  // A reduced window draws b in [1, window] on each side: window + 1 neighbours on average.
  const double neighbours = static_cast<double>(window) + 1;
  auto count_of = [&](std::size_t w) { return static_cast<double>(std::max<std::int64_t>(counts[w], 0)); };

  // The input table's rows: each listing by a word, per occurrence of the word averaged.
  const double input_uses = skipgram ? 1 : neighbours;
  std::uint32_t last_row = 0;
  for (std::uint32_t w = 0; w < words; ++w) {
    for (std::uint32_t row : subwords.of(w)) last_row = std::max(last_row, row);
  }
  std::vector<double> input_rate(std::size_t{last_row} + 1, 0);
  for (std::uint32_t w = 0; w < words; ++w) {
    for (std::uint32_t row : subwords.of(w)) input_rate[row] += count_of(w) * input_uses;
  }
  // The output table's: as a context (skip-gram) or a centre (CBOW), and as a negative,
  // `negative` per pair (skip-gram) or per window (CBOW), drawn by count^0.75.
  double total = 0, smoothed = 0;
  for (std::size_t w = 0; w < words; ++w) {
    total += count_of(w);
    smoothed += std::pow(count_of(w), 0.75);
  }
  const double negatives = total * static_cast<double>(negative) * (skipgram ? neighbours : 1);

  std::vector<Candidate> candidates;
  candidates.reserve(input_rate.size() + words);
  for (std::uint32_t row = 0; row < input_rate.size(); ++row) {
    if (input_rate[row] > 0) candidates.push_back({input_rate[row], false, row});
  }
  for (std::uint32_t w = 0; w < words; ++w) {
    const double rate =
        count_of(w) * (skipgram ? neighbours : 1) + (smoothed > 0 ? negatives * std::pow(count_of(w), 0.75) / smoothed : 0);
    if (rate > 0) candidates.push_back({rate, true, w});
  }
  const auto more_touched = [](const Candidate& a, const Candidate& b) {
    if (a.rate != b.rate) return a.rate > b.rate;
    if (a.output != b.output) return !a.output;
    return a.row < b.row;
  };
  const std::size_t kept = std::min(rows, candidates.size());
  std::nth_element(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(kept), candidates.end(), more_touched);

  SubwordHotRows hot;
  for (std::size_t k = 0; k < kept; ++k) {
    const Candidate& c = candidates[k];
    if (c.output) {
      ++hot.output_rows;
    } else if (c.row < words) {
      ++hot.input_words;
    } else {
      hot.input_buckets.push_back(c.row);
    }
  }
  std::sort(hot.input_buckets.begin(), hot.input_buckets.end());
  return hot;
}

}  // namespace embed
