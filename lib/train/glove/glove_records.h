// A GloVe run's co-occurrence records: the shuffled records file beside the output
// (epoch 0's order; record_file.h), which checkpoints name instead of holding the
// records, and, when they fit --memory, the records in memory as well.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/spool_file.h"
#include "train/glove/glove_layout.h"
#include "train/glove/record_file.h"
#include "train/glove/record_order.h"

namespace embed {

struct GloveRecords {
  RecordFileInfo file;
  std::shared_ptr<SpoolFile> spool;  // removes the file when the run completes, unless a checkpoint names it
  bool in_memory = false;            // trained from memory (they fit --memory), else streamed from the file
  // How epochs reorder them: fixed when training first starts (full on the CPU in
  // memory, blocks on a GPU or from disk) and kept by checkpoints, so that a resumed
  // run walks the orders the interrupted one would have.
  std::optional<RecordShuffle> shuffle;
  std::vector<GloveRecord> memory;  // in_memory: epoch 0's order, or empty until training reads the file

  // A job's checkpoint (mpirun) names every rank's records file: gathered from the ranks
  // (gather_rank_records) for rank 0 to write, in rank order.
  struct OfRank {
    RecordFileInfo file;
    bool in_memory = false;
    RecordShuffle shuffle = RecordShuffle::full;
  };
  std::vector<OfRank> of_ranks;

  // Under mpirun, every rank's records (each trains its own partition): an epoch of the
  // job, which the schedule and the progress count; 0 for a checkpoint's (one process).
  std::uint64_t job_records = 0;

  std::uint64_t size() const { return file.records; }
  std::uint64_t job_size() const { return job_records > 0 ? job_records : size(); }
};

}  // namespace embed
