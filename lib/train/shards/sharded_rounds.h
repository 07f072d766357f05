// The rounds of a sharded run (--shard-tables; sharded_tables.h): the workers plan their
// batches (corpus words to rows, subsampling, windows, negatives) and hand them over; at a
// round every rank fetches the rows its batches touch, trains them on its cores, and
// pushes the changes back. The epoch loop (epoch_loop.h) calls round() as its sync_ranks,
// on the thread that runs MPI, once a rank's workers have planned a round's words.
//
// Rounds come only by words (never by time), and a stop is honoured at a round: so with
// one thread a rank, each rank's rounds hold the same batches on every run, and a run
// resumed from a checkpoint goes on exactly as the uninterrupted run.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

#include "train/engine/batch_loss.h"
#include "train/engine/epoch_loop.h"
#include "train/shards/sharded_tables.h"
#include "train/word2vec/word2vec_backend.h"

namespace embed {

class ShardedRounds {
 public:
  // `backend` trains `tables`' local rows with `workers` workers.
  ShardedRounds(ShardedTables& tables, Word2vecBackend& backend, unsigned workers);

  // From worker `worker`'s thread: its planned batch of `words` corpus words, trained at
  // the next round; `batch` becomes an empty one to plan the next in.
  void hand_over(unsigned worker, WindowBatch& batch, std::uint64_t words);
  // EpochTask::sync_ranks: the ranks agree on their report (and on `stop_asked`, this
  // rank's signal), then train the batches handed over so far. Collective.
  RankAgreement round(const RankReport& report, bool stop_asked);
  // What the rounds trained so far (the rounds' thread only).
  BatchLoss loss() const { return loss_; }
  // For the -v log and the benchmark (scripts/bench/shards.sh): the rounds, the share of
  // the rows they touched that were fetched, and per corpus word this rank trained, the
  // bytes of rows it fetched (and of changes it returned: as many) and of the hot rows' sums;
  // the seconds exchanging and training.
  std::string summary() const;

 private:
  struct alignas(64) Queue {
    std::mutex mutex;
    std::vector<WindowBatch> handed;  // since the last round
    std::vector<WindowBatch> spare;   // trained, to plan in again
    std::uint64_t words = 0;          // corpus words handed over since the last round
  };

  ShardedTables& tables_;
  Word2vecBackend& backend_;
  std::vector<Queue> queues_;
  BatchLoss loss_;
  std::uint64_t words_ = 0;  // corpus words the rounds trained
  double exchange_seconds_ = 0, train_seconds_ = 0;
};

}  // namespace embed
