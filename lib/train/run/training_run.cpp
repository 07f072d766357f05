#include "train/run/training_run.h"

#include <fmt/format.h>

namespace embed {

std::string shard_file_path(const std::string& checkpoint, unsigned rank, unsigned ranks, const std::string& id) {
  return fmt::format("{}.shard-{}-of-{}.{}", checkpoint, rank, ranks, id);
}

void TrainingRun::keep_temporaries() const {
  corpus.keep_spools();
  if (records.spool) records.spool->keep();
}

void TrainingRun::release_temporaries() const {
  corpus.release_spools();
  if (records.spool) records.spool->release();
}

}  // namespace embed
