// How many corpus words a rank trains between two rounds under mpirun when --sync-words
// does not say, in both modes: data parallel (rank_averaging.h) and --shard-tables
// (shards/round_words.h, which may take fewer for memory).
//
// Why it shrinks with the ranks: at a round every rank adds its change to the rows all of
// them trained (the most frequent words') since the last, each change computed from the
// same start, so a round of W words a rank moves those rows as N × W words would, from a
// point W words stale, and overshoots as W and N grow: faster than N × W, as measured on
// text8-head x 8 (skip-gram, dim 100, 1 epoch, 1 thread a rank, ranks on 2 cores;
// bench/RESULTS.md), where one process learns 4.85% analogy and 0.43 WS-353:
//   2 ranks  146,493 words (the former default, a 32nd of a rank's share) 4.0-4.1%, 0.39-0.42;
//            65,536 4.3-4.4%, 0.48-0.50, at 0.98x the words/s
//   3 ranks  97,662 0.36-0.56%, 0.16-0.29; 32,768 2.8-3.0%, 0.39; 16,384 4.4-5.1%, 0.51
//            (loss 2.99); 8,192 5.1-5.5%, 0.48-0.50 (loss 2.43), at 0.84x 16,384's words/s
//   4 ranks  10,000 (the CPU's batch, which a round could not split then) diverged (loss
//            13,711, 0.05%); 7,281 1.2-1.3%, 0.26-0.34 (loss 12-16); 2,427 3.0-3.6%, 0.42-0.47
// The sharded rounds alike (3 ranks: 0.4-0.9% at 65,536 words, 4.4-5.0% at 16,384, 4.9-5.2%
// at 8,192; 4 ranks: 1.7%, 0.33 at 7,281, 3.0-3.6%, 0.45-0.48 at 2,427).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace embed {

inline constexpr std::uint64_t kRoundsPerEpoch = 32;  // at least, when the corpus is small
inline constexpr std::uint64_t kRankRoundWords = 65536;

// A 32nd of a rank's share of an epoch, at most 65,536 / (N - 1)^3 words (65,536 on 2 ranks,
// 8,192 on 3, 2,427 on 4, 1,024 on 5), at least 1.
inline std::uint64_t rank_round_words(unsigned ranks, std::uint64_t corpus_words) {
  const std::uint64_t n = std::max(ranks, 1u);
  const std::uint64_t most = n > 2 ? kRankRoundWords / ((n - 1) * (n - 1) * (n - 1)) : kRankRoundWords;
  return std::max<std::uint64_t>(1, std::min(most, corpus_words / n / kRoundsPerEpoch));
}

// The most words a worker's batch holds under mpirun, so that a round, which comes between
// batches, stays near its `round_words` (else the CPU's 10,000-word batch was a round
// whatever --sync-words said: 4 ranks of text8-head x 8 diverged so): a worker's share of
// the round, at least 1,000 words (a batch's own costs), at most the backend's `most`,
// which wins where it is smaller (a GPU's host placement plans batches of 649 words).
inline std::size_t round_batch_words(std::uint64_t round_words, unsigned workers, std::size_t most) {
  const std::uint64_t least = std::min<std::uint64_t>(1000, most);
  return static_cast<std::size_t>(std::clamp<std::uint64_t>(round_words / std::max(workers, 1u), least, most));
}

}  // namespace embed
