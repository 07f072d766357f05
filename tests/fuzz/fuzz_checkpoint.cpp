// embed-train's checkpoints, checksum recomputed first: load_checkpoint, then, when it
// loads, a real resume: the rest of the epoch under way, from what it holds, as
// `embed-train --resume` would. The seed corpus (scripts/fuzz.sh) is checkpoints of
// small skip-gram, CBOW and GloVe runs interrupted mid-run, whose corpus and records
// files stay beside them.
#include <algorithm>
#include <atomic>

#include "core/error.h"
#include "fuzz_util.h"
#include "train/files/checkpoint.h"
#include "train/run/model_registry.h"
#include "train/run/training_model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes = embed::fuzz::with_checksums(std::string(reinterpret_cast<const char*>(data), size));
  const std::string path = embed::fuzz::scratch_file(bytes, ".ckpt");
  try {
    embed::TrainingRun run = embed::load_checkpoint(path);
    // Small tables only, and at most the rest of the epoch under way.
    if (run.input.span().size() > (1u << 20)) return 0;
    run.settings.epochs = std::min(run.settings.epochs, run.state.epoch + 1);
    embed::TrainContext context;
    static std::atomic<bool> stop{false};
    context.stop = &stop;
    embed::training_model(run.settings.model).train(run, context);
  } catch (const embed::Error&) {}
  return 0;
}
