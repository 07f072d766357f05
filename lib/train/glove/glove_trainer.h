// GloVe training over co-occurrence records: weighted least squares on log X_ij,
//   J = sum_ij f(X_ij) (w_i · w̃_j + b_i + b̃_j - log X_ij)²,
// as Stanford GloVe's `glove` minimises it, with Hogwild worker threads each over a
// contiguous shard of the epoch's records (in memory or streamed from disk: a
// RecordSource, in an order drawn afresh every epoch), and each block of records
// trained by a GloveBackend (the CPU's, or a GPU's).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "train/engine/epoch_loop.h"
#include "train/glove/glove_backend.h"
#include "train/glove/glove_layout.h"
#include "train/glove/record_order.h"
#include "train/glove/record_source.h"
#include "train/run/train_settings.h"

namespace embed {

class GloveTrainer {
 public:
  // The tables are made by the caller (fresh, or from a checkpoint); the backend trains
  // them on the records `records` hands over.
  GloveTrainer(const TrainSettings& settings, RecordSource& records, GloveBackend& backend);
  // Records in memory, in epoch 0's order (tests, and the GPU tests).
  GloveTrainer(const TrainSettings& settings, std::vector<GloveRecord>& records, GloveBackend& backend, RecordShuffle shuffle);
  // The same on the CPU, with full shuffles.
  GloveTrainer(const TrainSettings& settings, std::vector<GloveRecord>& records, RowMatrix& words, RowMatrix& contexts);

  // A data-parallel run: the round between the ranks (EpochTask::sync_ranks), its
  // period, and the job's records per epoch (SGD's schedule falls over all ranks' records).
  void share_with_ranks(std::function<RankAgreement(const RankReport&)> sync, double seconds, std::uint64_t job_records) {
    sync_ranks_ = std::move(sync);
    sync_seconds_ = seconds;
    job_records_ = job_records;
  }

  // As run_epochs (epoch_loop.h): true when the last epoch has ended, false when
  // `stop` ended the run first.
  bool run(TrainState& state, const std::atomic<bool>& stop, const std::function<void(const TrainProgress&)>& on_epoch,
           const std::function<void(const TrainProgress&)>& on_progress);

 private:
  TrainSettings settings_;
  std::unique_ptr<RecordSource> own_records_;  // when the caller gave a vector
  RecordSource& records_;
  std::unique_ptr<GloveBackend> own_backend_;  // the CPU's, when the caller gave tables
  GloveBackend& backend_;
  std::function<RankAgreement(const RankReport&)> sync_ranks_;
  double sync_seconds_ = 0.1;
  std::uint64_t job_records_ = 0;  // 0: this process's records are the job's
};

}  // namespace embed
