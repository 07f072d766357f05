// embed-train's whole run, from parsed options to files: check the options against each
// other and fill in the model's defaults, read the corpus (or a checkpoint, or GloVe's
// co-occurrence counts), train, and write the vectors, or on SIGINT/SIGTERM a checkpoint.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device/gpu_device.h"
#include "train/files/init_vectors.h"
#include "train/gpu/gpu_backend.h"
#include "train/run/train_settings.h"
#include "train/run/training_run.h"

namespace embed {

struct TrainCommand {
  TrainingInput input;  // --corpus, or glove's --cooc; --save-cooc, --memory
  TrainSettings settings;
  // --adagrad element | row: glove's old spelling of --optimizer adagrad | rowadagrad.
  std::optional<AdagradMode> adagrad;
  OutputSettings output;         // output path, dtype, --save-context, vocabulary limits
  std::string checkpoint;        // where checkpoints go; empty: OUTPUT.ckpt, on interruption only
  std::string resume;            // a checkpoint to continue from; its settings win
  bool epochs_given = false;     // --epochs was given (else the model's epochs for the corpus's size)
  bool lr_given = false;         // --lr was given (else the model's starting rate for the device)
  bool restart = false;          // --restart: a checkpoint of an unfinished run at the checkpoint path may be discarded
  InitRequest init;              // --init, --init-keep, --lock-init
  std::string metrics;           // --metrics: JSON lines of progress and epochs
  std::string plot;              // --plot: the loss and learning rate as SVG, at the end or on interruption
  GpuRequest gpu;                // --device, --gpu, --gpu-memory
  GpuOptions gpu_options;        // --table, --host-transfer
  GpuTrainer gpu_trainer;        // what this build offers (backend/registry.h); empty: CPU only
  double sync_seconds = 0.1;     // under mpirun: how often the ranks average their most frequent rows
  std::size_t sync_rows = 1024;  // under mpirun: how many rows every round averages
  // Under mpirun: the most corpus words a rank trains between two rounds (skip-gram and
  // CBOW; 0: no limit), when given (else a 32nd of a rank's share of an epoch).
  std::uint64_t sync_words = 0;
  bool sync_words_given = false;
  // --shard-tables: skip-gram's and CBOW's tables split across the ranks (train/shards).
  bool shard_tables = false;
};

// Exit status of a run that a signal stopped (after writing its checkpoint).
inline constexpr int kExitInterrupted = 130;

// Returns 0 when the vectors (or with --save-cooc alone, the counts) were written,
// kExitInterrupted after a checkpoint.
// Throws embed::Error for bad input, before training starts wherever it can be detected.
// Under mpirun (this_job() has several ranks) every rank runs it: rank 0 writes the
// outputs and logs, and an error on any rank ends the whole job (MPI_Abort) after its
// message, so that no rank waits forever for it.
int run_train_command(TrainCommand command);

// The second output of --save-context: "vectors.emb" → "vectors.context.emb".
std::string context_output_path(const std::string& output);

}  // namespace embed
