// embed-train's whole run, from parsed options to files: read the corpus (or a
// checkpoint, or GloVe's co-occurrence counts), train, and write the vectors, or on
// SIGINT/SIGTERM a checkpoint.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "train/checkpoint.h"
#include "train/gpu_backend.h"
#include "train/trainer.h"

namespace embed {

struct TrainCommand {
  std::vector<std::string> corpus;  // files, "-" for standard input
  TrainSettings settings;
  OutputSettings output;            // output path, dtype, --save-context, vocabulary limits
  std::string checkpoint;           // where checkpoints go; empty: OUTPUT.ckpt, on interruption only
  std::string resume;               // a checkpoint to continue from; its settings win
  std::string device = "cpu";       // cpu | cuda | auto
  GpuOptions gpu;                   // --table, --gpu-memory, --host-transfer
  GpuTrainer gpu_trainer;           // what this build offers (backend/registry.h); empty: CPU only
  // GloVe
  std::string cooc;                 // train on these counts instead of counting the corpus
  std::string save_cooc;            // also write the counts here (without --output: only count)
  std::uint64_t memory = 4ull << 30;  // bytes for counting and training
};

// Exit status of a run that a signal stopped (after writing its checkpoint).
inline constexpr int kExitInterrupted = 130;

// Returns 0 when the vectors (or with --save-cooc alone, the counts) were written,
// kExitInterrupted after a checkpoint.
// Throws embed::Error for bad input, before training starts wherever it can be detected.
int run_train_command(TrainCommand command);

// The second output of --save-context: "vectors.emb" → "vectors.context.emb".
std::string context_output_path(const std::string& output);

}  // namespace embed
