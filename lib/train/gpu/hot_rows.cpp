#include "train/gpu/hot_rows.h"

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

HotRows most_touched_rows(const SubwordRows* subwords, std::span<const std::int64_t> counts, Model model, std::size_t window,
                          std::size_t negative, std::size_t rows) {
  const std::size_t words = counts.size();
  EMBED_ASSERT((!subwords || subwords->words() == words) && (model == Model::skipgram || model == Model::cbow));
  // fastText's skip-gram averages its centres and scores their contexts, each pair with
  // its own negatives; word2vec's skip-gram and CBOW (and fastText's CBOW) average a
  // window's neighbours and score its centre, with negatives per window.
  const bool centre_averaged = subwords && model == Model::skipgram;
  // A reduced window draws b in [1, window] on each side: window + 1 neighbours on average.
  const double neighbours = static_cast<double>(window) + 1;
  auto count_of = [&](std::size_t w) { return static_cast<double>(std::max<std::int64_t>(counts[w], 0)); };

  // The input table's rows: each listing by a word (without subwords, a word lists its
  // own row), per occurrence of the word averaged.
  const double input_uses = centre_averaged ? 1 : neighbours;
  std::uint32_t last_row = words == 0 ? 0 : static_cast<std::uint32_t>(words - 1);
  for (std::uint32_t w = 0; subwords && w < words; ++w) {
    for (std::uint32_t row : subwords->of(w)) last_row = std::max(last_row, row);
  }
  std::vector<double> input_rate(std::size_t{last_row} + 1, 0);
  for (std::uint32_t w = 0; w < words; ++w) {
    if (!subwords) {
      input_rate[w] = count_of(w) * input_uses;
      continue;
    }
    for (std::uint32_t row : subwords->of(w)) input_rate[row] += count_of(w) * input_uses;
  }
  // The output table's: as what is scored, and as a negative, by count^0.75.
  const double output_uses = centre_averaged ? neighbours : 1;
  double total = 0, smoothed = 0;
  for (std::size_t w = 0; w < words; ++w) {
    total += count_of(w);
    smoothed += std::pow(count_of(w), 0.75);
  }
  const double negatives = total * static_cast<double>(negative) * (centre_averaged ? neighbours : 1);

  std::vector<Candidate> candidates;
  candidates.reserve(input_rate.size() + words);
  for (std::uint32_t row = 0; row < input_rate.size(); ++row) {
    if (input_rate[row] > 0) candidates.push_back({input_rate[row], false, row});
  }
  for (std::uint32_t w = 0; w < words; ++w) {
    const double rate = count_of(w) * output_uses + (smoothed > 0 ? negatives * std::pow(count_of(w), 0.75) / smoothed : 0);
    if (rate > 0) candidates.push_back({rate, true, w});
  }
  const auto more_touched = [](const Candidate& a, const Candidate& b) {
    if (a.rate != b.rate) return a.rate > b.rate;
    if (a.output != b.output) return !a.output;
    return a.row < b.row;
  };
  const std::size_t kept = std::min(rows, candidates.size());
  std::nth_element(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(kept), candidates.end(), more_touched);

  HotRows hot;
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
