// Word2vec training over a Corpus: the epochs, the per-worker walk over corpus shards,
// subsampling, reduced windows, negative draws and the learning-rate schedule. The
// arithmetic is the backend's (word2vec_backend.h).
//
// Each worker owns a contiguous shard of the corpus and a random stream derived from
// the seed; within its shard it cuts "sentences" at line ends and every 10,000 words
// (or the fewer its backend asks for), and turns each into one WindowBatch. The
// learning rate falls linearly with the words all workers have done, to lr × 1e-4 at
// the end, as in word2vec. With one worker a run is a pure function of the corpus,
// settings and seed.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "train/corpus.h"
#include "train/epoch_loop.h"
#include "train/random.h"
#include "train/row_matrix.h"
#include "train/word2vec/sampling.h"
#include "train/word2vec/word2vec_backend.h"
#include "train/train_settings.h"

namespace embed {

class Word2vecTrainer {
 public:
  // The model's tables are made by the caller (fresh or from a checkpoint).
  Word2vecTrainer(const TrainSettings& settings, const Corpus& corpus, Word2vecBackend& backend);

  // As run_epochs (epoch_loop.h): true when the last epoch has ended, false when
  // `stop` ended the run first. Positions in `state` index Corpus::ids.
  bool run(TrainState& state, const std::atomic<bool>& stop,
           const std::function<void(const TrainProgress&)>& on_epoch,
           const std::function<void(const TrainProgress&)>& on_progress);

  // Builds the batch for the sentence corpus.ids[first, last), drawing from `random`.
  // Public for the tests and for backends that want to check their batches.
  void plan_batch(std::uint64_t first, std::uint64_t last, float learning_rate, Random& random, WindowBatch& batch,
                  std::vector<std::uint32_t>& kept) const;

  // The end of the sentence that starts at `first` within a shard ending at `shard_end`.
  std::uint64_t sentence_end(std::uint64_t first, std::uint64_t shard_end) const;

 private:
  float learning_rate(std::uint64_t words_done) const;

  TrainSettings settings_;
  const Corpus& corpus_;
  Word2vecBackend& backend_;
  NegativeSampler negatives_;
  std::vector<std::uint32_t> keep_;  // subsampling thresholds per row
};

}  // namespace embed
