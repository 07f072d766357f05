#include "train/shards/round_words.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "train/ranks/round_length.h"
#include "train/word2vec/sampling.h"

namespace embed {
namespace {

// --shard-tables: a round's words by default are the ranks' (train/ranks/round_length.h,
// which says why they shrink as the ranks grow), fewer when the round's rows would take more
// memory than below, never fewer than this. Larger rounds fetch a row once for more of its
// uses, and their exchanges cost less a word: on text8-head x 8, 2 ranks, rounds of 16,384,
// 32,768 and 65,536 words fetched 272, 206 and 156 bytes a word and trained at 1.26M, 1.81M
// and 2.00M words/s, to the same analogy (4.36, 4.38, 4.38%) and WS-353 (0.465, 0.478, 0.473).
// Averaging the hot rows' changes instead of summing them gave 3 ranks 3.3% and 0.44 at
// 65,536 (and cost 2 ranks 0.3 points).
constexpr std::uint64_t kShardRoundWordsAtLeast = 1024;
// A round's rows owned elsewhere are held three times (among the tables, as fetched, and as
// the changes other ranks return to this one's rows): at most this share of the rank's own
// rows' bytes, or the floor where that is more. On 2.1M rows x 300, uniform (no two touches
// of a row in a round), 3 ranks held 0.45 of the one-process tables each with rounds of
// 16,384 words, 0.405 with a share of 0.06 (5,970 words), 0.398 with 0.04 (3,980 words),
// against the 0.40 issue 70 asks (bench/RESULTS.md).
constexpr double kShardRoundMemoryShare = 0.04;
constexpr double kShardRoundMemoryFloor = 64 << 20;

// The rows owned elsewhere that a round of `words` corpus words is expected to fetch, both
// tables: a row with r touches a corpus word is touched in the round with probability
// 1 - exp(-words r) (scripts/bench/shard_model.py's model, within 10% of what was measured:
// bench/RESULTS.md). An input row is touched by its word's kept occurrences, an output row by
// them as centres and by the windows' negatives, drawn from count^0.75.
double expected_round_rows(const TrainSettings& s, const std::vector<std::int64_t>& counts, std::size_t hot_rows,
                           unsigned ranks, double words) {
  double total = 0, noise_total = 0, kept_total = 0;
  for (std::int64_t c : counts) {
    total += static_cast<double>(c);
    noise_total += std::pow(static_cast<double>(c), 0.75);
  }
  std::vector<double> kept(counts.size());
  for (std::size_t v = 0; v < counts.size(); ++v) {
    const auto count = static_cast<double>(counts[v]);
    kept[v] = count / total * keep_probability(count, total, s.sample);
    kept_total += kept[v];
  }
  const double negatives = static_cast<double>(s.negative) * (s.pair_negatives ? 2.0 * static_cast<double>(s.window) : 1.0);
  double rows = 0;
  for (std::size_t v = hot_rows; v < counts.size(); ++v) {
    const double noise = std::pow(static_cast<double>(counts[v]), 0.75) / noise_total;
    rows += -std::expm1(-words * kept[v]) - std::expm1(-words * (kept[v] + negatives * noise * kept_total));
  }
  return rows * (1.0 - 1.0 / ranks);
}

}  // namespace

std::uint64_t shard_round_words(const TrainSettings& s, const ShardedTables& tables, const Corpus& corpus) {
  const unsigned ranks = tables.job().size();
  std::uint64_t words = rank_round_words(ranks, corpus.words);
  if (ranks < 2) return std::max(words, kShardRoundWordsAtLeast);
  const double budget = std::max(kShardRoundMemoryShare * static_cast<double>(tables.held_bytes()), kShardRoundMemoryFloor);
  const double row_bytes = static_cast<double>(tables.row_bytes());
  // Three copies of the expected rows, and a quarter more for a round's spread.
  while (words > kShardRoundWordsAtLeast &&
         1.25 * 3 * row_bytes * expected_round_rows(s, corpus.vocab.counts, tables.hot_rows(), ranks, static_cast<double>(words)) >
             budget) {
    words /= 2;
  }
  return std::max(words, kShardRoundWordsAtLeast);
}

}  // namespace embed
