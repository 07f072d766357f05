// Word2vec training over a Corpus: the epochs, the per-worker walk over corpus shards,
// subsampling, reduced windows, negative draws and the learning-rate schedule. The
// arithmetic is the backend's (word2vec_backend.h).
//
// Each worker owns a contiguous byte range of the corpus files (corpus_shards.h), read
// from disk every epoch (corpus_reader.h), and a random stream derived from the seed;
// its reader cuts "sentences" at line ends and every 10,000 words (or the fewer its
// backend asks for), and each becomes one WindowBatch. Memory does not grow with the
// corpus. The learning rate falls linearly with the words all workers have done, to
// lr × 1e-4 at the end, as in word2vec. With one worker a run is a pure function of the
// corpus, settings and seed.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "train/corpus/corpus.h"
#include "train/corpus/corpus_reader.h"
#include "train/engine/epoch_loop.h"
#include "train/engine/random.h"
#include "train/engine/row_matrix.h"
#include "train/run/train_settings.h"
#include "train/word2vec/sampling.h"
#include "train/word2vec/word2vec_backend.h"

namespace embed {

class ShardedRounds;

class Word2vecTrainer {
 public:
  // The model's tables are made by the caller (fresh or from a checkpoint).
  Word2vecTrainer(const TrainSettings& settings, const Corpus& corpus, Word2vecBackend& backend);

  // A fresh run's state: `workers` token-aligned byte ranges of the corpus. A rank of a
  // data-parallel job (`ranks` > 1) takes the `rank`th group of `workers` among
  // ranks x workers ranges, and the random streams numbered alike.
  static TrainState start_state(const Corpus& corpus, unsigned workers, std::uint64_t seed, unsigned rank = 0,
                                unsigned ranks = 1);

  // A data-parallel run: the round between the ranks (EpochTask::sync_ranks), its period,
  // the most corpus words this rank trains between two rounds (0: no limit), and the most
  // words a batch holds (0: the backend's), since a round comes between batches only.
  void share_with_ranks(std::function<RankAgreement(const RankReport&)> sync, double seconds, std::uint64_t words = 0,
                        std::size_t batch_words = 0) {
    sync_ranks_ = std::move(sync);
    sync_seconds_ = seconds;
    sync_words_ = words;
    round_batch_words_ = batch_words;
  }

  // A sharded run (train/shards): the workers hand their batches to `rounds`, which trains
  // them at a round once this rank has planned `words` corpus words since the last (or its
  // workers are done), its batches of at most `batch_words` words. A stop is honoured at a
  // round, so that rounds keep their batches.
  void train_in_rounds(ShardedRounds& rounds, std::uint64_t words, std::size_t batch_words) {
    rounds_ = &rounds;
    sync_words_ = words;
    round_batch_words_ = batch_words;
  }

  // As run_epochs (epoch_loop.h): true when the last epoch has ended, false when
  // `stop` ended the run first. Positions in `state` are bytes of the corpus files.
  bool run(TrainState& state, const std::atomic<bool>& stop, const std::function<void(const TrainProgress&)>& on_epoch,
           const std::function<void(const TrainProgress&)>& on_progress);

  // Builds the batch for `sentence` (vocabulary rows), drawing from `random`. Public for
  // the tests and for backends that want to check their batches.
  void plan_batch(std::span<const std::uint32_t> sentence, float learning_rate, Random& random, WindowBatch& batch,
                  std::vector<std::uint32_t>& kept) const;
  // The same in two steps, for a batch of several sentences: an empty batch at
  // `learning_rate`, then each sentence's windows added (no window spans two sentences).
  void start_batch(float learning_rate, WindowBatch& batch) const;
  void add_sentence(std::span<const std::uint32_t> sentence, Random& random, WindowBatch& batch,
                    std::vector<std::uint32_t>& kept) const;

 private:
  float learning_rate(std::uint64_t words_done) const;

  TrainSettings settings_;
  const Corpus& corpus_;
  Word2vecBackend& backend_;
  RowLookup lookup_;
  NegativeSampler negatives_;
  std::vector<std::uint32_t> keep_;  // subsampling thresholds per row
  std::function<RankAgreement(const RankReport&)> sync_ranks_;
  double sync_seconds_ = 0.1;
  std::uint64_t sync_words_ = 0;
  ShardedRounds* rounds_ = nullptr;
  std::size_t round_batch_words_ = 0;  // a batch's most words under mpirun (0: the backend's)
};

}  // namespace embed
