// The epochs of a training run, shared by every model: worker threads each walking a
// contiguous shard of the epoch's items (corpus words for word2vec, co-occurrence
// records for GloVe) a chunk at a time, a monitoring loop reporting progress, and a
// stop flag honoured between chunks, leaving a TrainState a checkpoint can resume from.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "train/engine/batch_loss.h"
#include "train/engine/random.h"

namespace embed {

// Positions [begin, end) in what an epoch walks: a worker's shard.
struct PositionRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  bool operator==(const PositionRange&) const = default;
};

// Where a run is; stored in checkpoints. Positions are the model's: byte offsets in the
// corpus for word2vec (corpus_shards.h), record indices for GloVe.
struct TrainState {
  unsigned epoch = 0;                    // the epoch under way (== epochs when done)
  std::vector<PositionRange> shards;     // per worker: what it walks every epoch
  std::vector<std::uint64_t> positions;  // per worker: where it goes on in its shard this epoch
  std::vector<Random::State> random;     // per worker
  std::uint64_t items_done = 0;          // items done over all epochs, for the learning-rate schedule
  double epoch_loss = 0;                 // this epoch so far
  std::uint64_t epoch_examples = 0;

  // The state before the first item: positions at the shard starts, fresh random streams
  // (worker w's is the seed's stream first_worker + w: ranks of one job number their
  // workers apart, so that none draws another's samples).
  static TrainState start(std::vector<PositionRange> shards, std::uint64_t seed, unsigned first_worker = 0);
  // The same with `items` cut into equal shards (shard_bounds).
  static TrainState start(unsigned workers, std::uint64_t seed, std::uint64_t items, unsigned first_worker = 0);
};

// Items of the shard of `worker` among `workers`: [first, last).
std::pair<std::uint64_t, std::uint64_t> shard_bounds(std::uint64_t items, unsigned worker, unsigned workers);

// Reported after each epoch and, while it runs, a few times a second.
struct TrainProgress {
  unsigned epoch = 0;        // 0-based epoch under way
  std::uint64_t items_done;  // items, over all epochs
  float learning_rate;
  double loss;     // mean loss per example in this epoch so far
  std::uint64_t examples = 0;  // loss terms in this epoch so far (this rank's): skip-gram's context rows, CBOW's
                               // windows, GloVe's records
  double seconds;  // since this run (or resumed run) started
  std::uint64_t items_this_run;
};

// What one call of EpochTask::train_chunk did.
struct ChunkDone {
  std::uint64_t end = 0;    // the position after the chunk
  std::uint64_t items = 0;  // items trained, for the schedule and progress
};

// A data-parallel run (mpirun): what this rank says at a round between the ranks, and
// what they agree on.
struct RankReport {
  bool workers_done = false;      // this rank's workers have all left their shards
  bool stop = false;              // this rank was asked to stop (or failed)
  std::uint64_t epoch_items = 0;  // items this rank has done in this epoch
};
struct RankAgreement {
  bool all_done = false;          // every rank's workers are done: the epoch (or the run) ends
  bool stop = false;              // some rank stops: all do
  std::uint64_t epoch_items = 0;  // items all ranks have done in this epoch
};

// What a model plugs into the loop.
struct EpochTask {
  unsigned epochs = 1;
  // Trains one chunk that starts at position `first` of a shard ending at `shard_end`
  // and says where it ended (> first). Called concurrently, one call per worker.
  std::function<ChunkDone(unsigned worker, std::uint64_t first, std::uint64_t shard_end, float learning_rate, Random& random,
                          BatchLoss& loss)>
      train_chunk;
  std::function<float(std::uint64_t items_done)> learning_rate;
  // Optional: called by each worker when it leaves its shard (done or stopped), to
  // complete work still in flight and add its loss.
  std::function<void(unsigned worker, BatchLoss& loss)> finish_shard;
  // Optional: called once the workers have joined, before the state is reported or
  // saved (a GPU backend copies its tables to the host here).
  std::function<void()> after_workers;
  // Called when an epoch has ended and before `on_epoch` sees the state (so a
  // checkpoint taken there includes what it does): GloVe reshuffles its records here.
  std::function<void(unsigned next_epoch)> after_epoch;
  // Optional, for a data-parallel run: one collective round between the ranks (averaging
  // what the model shares), called from the monitoring loop every `sync_seconds` while
  // the workers run and then until every rank's workers are done. Every rank calls it the
  // same number of times, since the loop ends on what it returns. The learning rate then
  // follows all ranks' items; `state` keeps this rank's positions and all ranks' items.
  std::function<RankAgreement(const RankReport&)> sync_ranks;
  double sync_seconds = 0.1;
  // With sync_ranks: a round also once this rank's workers have trained `sync_items` items
  // since the last one, and the workers wait for it before they train more (0: rounds by
  // time alone). A GPU trains a rank's share of an epoch between two rounds otherwise,
  // and the ranks' summed changes over so many items overshoot (rank_averaging.h).
  std::uint64_t sync_items = 0;
  // Optional: the loss of what sync_ranks trained itself (a sharded run's rounds train the
  // batches the workers planned: train/shards), over the run so far.
  std::function<BatchLoss()> round_loss;
};

// Trains from `state` until the last epoch ends (returns true) or `stop` becomes true
// (returns false; `state` then says where to resume). Calls `on_epoch` after each
// epoch, when `state` already points at the start of the next one, and `on_progress`
// every 50 ms, both from the calling thread. With one worker a run is a pure function
// of its inputs and seed.
bool run_epochs(const EpochTask& task, TrainState& state, const std::atomic<bool>& stop,
                const std::function<void(const TrainProgress&)>& on_epoch,
                const std::function<void(const TrainProgress&)>& on_progress);

}  // namespace embed
