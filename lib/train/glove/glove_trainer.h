// GloVe training over co-occurrence records: weighted least squares on log X_ij,
//   J = sum_ij f(X_ij) (w_i · w̃_j + b_i + b̃_j - log X_ij)²,
// as Stanford GloVe's `glove` minimises it, with Hogwild worker threads each over a
// contiguous shard of records that are shuffled afresh every epoch, and each block of
// records trained by a GloveBackend (the CPU's, or a GPU's).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "train/epoch_loop.h"
#include "train/glove/glove_backend.h"
#include "train/glove/glove_model.h"
#include "train/train_settings.h"

namespace embed {

// Puts the records in the order of epoch `epoch`: a Fisher-Yates shuffle of their
// current order drawn from (seed, epoch), so a run is reproducible and a checkpoint
// that keeps the order resumes exactly.
void shuffle_records(std::vector<GloveRecord>& records, std::uint64_t seed, unsigned epoch);

// Records per block of shuffle_record_blocks: 1 MB.
inline constexpr std::size_t kShuffleBlockRecords = 1 << 16;

// A cheaper reshuffle for fast backends: permutes whole blocks of kShuffleBlockRecords
// (the partial last block stays last), drawn from (seed, epoch), in place. A full
// shuffle moves one record per cache miss (about 25 M records/s); this moves memory
// at copy speed. The records inside a block keep the order of the epoch-0 shuffle,
// as Stanford GloVe's records keep the order of its one `shuffle` pass.
void shuffle_record_blocks(std::vector<GloveRecord>& records, std::uint64_t seed, unsigned epoch);

// How the records are reordered between epochs.
enum class RecordShuffle { full, blocks };

class GloveTrainer {
 public:
  // The tables are made by the caller (fresh, or from a checkpoint); `records` must
  // already be in the order of the epoch `state` is in. The backend trains them.
  GloveTrainer(const TrainSettings& settings, std::vector<GloveRecord>& records, GloveBackend& backend,
               RecordShuffle shuffle);
  // On the CPU, with full shuffles.
  GloveTrainer(const TrainSettings& settings, std::vector<GloveRecord>& records, RowMatrix& words, RowMatrix& contexts);

  // As run_epochs (epoch_loop.h): true when the last epoch has ended, false when
  // `stop` ended the run first.
  bool run(TrainState& state, const std::atomic<bool>& stop, const std::function<void(const TrainProgress&)>& on_epoch,
           const std::function<void(const TrainProgress&)>& on_progress);

 private:
  TrainSettings settings_;
  std::vector<GloveRecord>& records_;
  std::unique_ptr<GloveBackend> own_backend_;  // the CPU's, when the caller gave tables
  GloveBackend& backend_;
  RecordShuffle shuffle_;
};

}  // namespace embed
