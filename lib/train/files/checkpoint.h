// Checkpoints: everything a stopped run needs to go on as if it had not stopped.
//
// A tensor file (format/tensor_file.h: safetensors with a checksum): both tables with
// their padding (GloVe's with their optimizer state), the vocabulary and counts, what
// the epochs walk (the corpus as word ids, or GloVe's co-occurrence records in the
// order of the epoch under way), so a run whose corpus came from a pipe, or has since
// been deleted, can resume, each worker's position and random state, and in
// __metadata__ the settings, the output options and the schedule's position.
#pragma once

#include <optional>
#include <string>

#include "train/run/training_run.h"

namespace embed {

// Writes atomically (temporary file and rename).
void save_checkpoint(const std::string& path, const TrainingRun& run);

// Throws embed::Error naming `path` for a file that is not a complete, intact checkpoint.
TrainingRun load_checkpoint(const std::string& path);

// Whether `path` is a file whose header says it is a checkpoint (of any version).
bool is_checkpoint_file(const std::string& path);

// Where a checkpoint's run stands, from its header alone (the tables are not read).
struct CheckpointProgress {
  unsigned epoch = 0;   // epochs finished
  unsigned epochs = 0;  // of the run
};
// nullopt when `path` is not a checkpoint file.
std::optional<CheckpointProgress> checkpoint_progress(const std::string& path);

// A checkpoint's settings, vocabulary and tables alone (--init): nothing of its corpus
// or schedule is read or checked. The tables are f32, whatever the checkpoint holds.
struct CheckpointTables {
  TrainSettings settings;
  Vocabulary vocab;
  RowMatrix input, output;
};
CheckpointTables read_checkpoint_tables(const std::string& path);

}  // namespace embed
