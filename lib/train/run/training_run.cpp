#include "train/run/training_run.h"

#include <filesystem>

#include <fmt/format.h>

namespace embed {

std::string shard_file_path(const std::string& checkpoint, unsigned rank, unsigned ranks, const std::string& id) {
  return fmt::format("{}.shard-{}-of-{}.{}", checkpoint, rank, ranks, id);
}

void remove_stray_shards(const std::string& checkpoint, unsigned rank, unsigned ranks, const std::string& id) {
  namespace fs = std::filesystem;
  const fs::path path(checkpoint);
  const std::string keep = fs::path(shard_file_path(checkpoint, rank, ranks, id)).filename().string();
  const std::string prefix = fs::path(shard_file_path(checkpoint, rank, ranks, "")).filename().string();
  std::error_code error;  // a file that cannot be listed or removed stays: litter, not a failure
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && name != keep && entry.is_regular_file(error)) fs::remove(entry.path(), error);
  }
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
