// Word2vec training over a Corpus: the epochs, the per-worker walk over corpus shards,
// subsampling, reduced windows, negative draws and the learning-rate schedule. The
// arithmetic is the backend's (train_backend.h).
//
// Each worker owns a contiguous shard of the corpus and a random stream derived from
// the seed; within its shard it cuts "sentences" at line ends and every 10,000 words,
// and turns each into one WindowBatch. The learning rate falls linearly with the
// words all workers have done, to lr × 1e-4 at the end, as in word2vec. With one
// worker a run is a pure function of the corpus, settings and seed.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "train/corpus.h"
#include "train/random.h"
#include "train/row_matrix.h"
#include "train/sampling.h"
#include "train/train_backend.h"

namespace embed {

// Everything that defines a run; stored in checkpoints.
struct TrainSettings {
  Model model = Model::skipgram;
  std::size_t dim = 100;
  std::size_t window = 5;
  std::size_t negative = 5;
  double sample = 1e-4;
  unsigned epochs = 5;
  float lr = 0.025f;
  std::uint64_t seed = 1;
  unsigned threads = 1;
};

// The settings that shape the vectors, as metadata strings ("model", "window", "negative",
// "sample", "epochs", "lr", "seed"): written into every .emb and every checkpoint.
std::map<std::string, std::string> settings_metadata(const TrainSettings& settings);

// Where a run is; stored in checkpoints. Positions index Corpus::ids.
struct TrainState {
  unsigned epoch = 0;                    // the epoch under way (== epochs when done)
  std::vector<std::uint64_t> positions;  // per worker: the next word of its shard in this epoch
  std::vector<Random::State> random;     // per worker
  std::uint64_t words_done = 0;          // over all epochs, for the learning-rate schedule
  double epoch_loss = 0;                 // this epoch so far
  std::uint64_t epoch_examples = 0;

  // The state before the first word: positions at the shard starts, fresh random streams.
  static TrainState start(const TrainSettings& settings, std::uint64_t corpus_words);
};

// Words of the shard of `worker` among `workers`: [first, last).
std::pair<std::uint64_t, std::uint64_t> shard_bounds(std::uint64_t corpus_words, unsigned worker, unsigned workers);

// Reported after each epoch and, while it runs, a few times a second.
struct TrainProgress {
  unsigned epoch = 0;         // 0-based epoch under way
  std::uint64_t words_done;   // over all epochs
  float learning_rate;
  double loss;                // mean loss per example in this epoch so far
  double seconds;             // since this run (or resumed run) started
  std::uint64_t words_this_run;
};

class Trainer {
 public:
  // The model's tables are made by the caller (fresh or from a checkpoint).
  Trainer(const TrainSettings& settings, const Corpus& corpus, TrainBackend& backend);

  // Trains from `state` until the last epoch ends (returns true) or `stop` becomes true
  // (returns false; `state` then says where to resume). Calls `on_epoch` after each
  // epoch, when `state` already points at the start of the next one (so a checkpoint
  // taken there is consistent), and `on_progress` every 50 ms, from the calling thread.
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
  TrainBackend& backend_;
  NegativeSampler negatives_;
  std::vector<std::uint32_t> keep_;  // subsampling thresholds per row
};

}  // namespace embed
