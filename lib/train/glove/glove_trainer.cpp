#include "train/glove/glove_trainer.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "train/glove/glove_cpu_backend.h"
#include "train/random.h"

namespace embed {

void shuffle_records(std::vector<GloveRecord>& records, std::uint64_t seed, unsigned epoch) {
  Random random(seed, 0x3000000000ull + epoch);
  for (std::size_t i = records.size(); i > 1; --i) {
    const std::size_t j = random.next() % i;  // modulo bias below 2^-30 for any realistic count
    std::swap(records[i - 1], records[j]);
  }
}

void shuffle_record_blocks(std::vector<GloveRecord>& records, std::uint64_t seed, unsigned epoch) {
  const std::size_t blocks = records.size() / kShuffleBlockRecords;
  if (blocks < 2) return;
  // source[b]: the block that moves to position b.
  std::vector<std::size_t> source(blocks);
  for (std::size_t b = 0; b < blocks; ++b) source[b] = b;
  Random random(seed, 0x3100000000ull + epoch);
  for (std::size_t i = blocks; i > 1; --i) std::swap(source[i - 1], source[random.next() % i]);
  // Follow each cycle of the permutation with one block held aside.
  std::vector<GloveRecord> held(kShuffleBlockRecords);
  std::vector<bool> placed(blocks, false);
  auto block = [&](std::size_t b) { return records.data() + b * kShuffleBlockRecords; };
  const std::size_t bytes = kShuffleBlockRecords * sizeof(GloveRecord);
  for (std::size_t start = 0; start < blocks; ++start) {
    if (placed[start] || source[start] == start) continue;
    std::memcpy(held.data(), block(start), bytes);
    std::size_t to = start;
    while (source[to] != start) {
      std::memcpy(block(to), block(source[to]), bytes);
      placed[to] = true;
      to = source[to];
    }
    std::memcpy(block(to), held.data(), bytes);
    placed[to] = true;
  }
}

GloveTrainer::GloveTrainer(const TrainSettings& settings, std::vector<GloveRecord>& records, GloveBackend& backend,
                           RecordShuffle shuffle)
    : settings_(settings), records_(records), backend_(backend), shuffle_(shuffle) {}

GloveTrainer::GloveTrainer(const TrainSettings& settings, std::vector<GloveRecord>& records, RowMatrix& words,
                           RowMatrix& contexts)
    : settings_(settings),
      records_(records),
      own_backend_(make_cpu_glove_backend(words, contexts, GloveLayout(settings.dim, settings.optimizer, settings.adagrad),
                                          settings.optimizer, settings.adagrad)),
      backend_(*own_backend_),
      shuffle_(RecordShuffle::full) {}

bool GloveTrainer::run(TrainState& state, const std::atomic<bool>& stop,
                       const std::function<void(const TrainProgress&)>& on_epoch,
                       const std::function<void(const TrainProgress&)>& on_progress) {
  EpochTask task;
  task.epochs = settings_.epochs;
  task.train_chunk = [&](unsigned worker, std::uint64_t first, std::uint64_t shard_end, float lr, Random&,
                         BatchLoss& loss) {
    const std::uint64_t end = std::min<std::uint64_t>(shard_end, first + backend_.max_block_records());
    backend_.train(std::span(records_).subspan(first, end - first), worker, lr, loss);
    return ChunkDone{end, end - first};
  };
  const double total = static_cast<double>(records_.size()) * settings_.epochs;
  task.learning_rate = [&, total](std::uint64_t done) {
    if (settings_.optimizer != Optimizer::sgd) return settings_.lr;
    return linear_decay_learning_rate(settings_.lr, static_cast<double>(done), total);
  };
  task.finish_shard = [this](unsigned worker, BatchLoss& loss) { backend_.finish(worker, loss); };
  task.after_workers = [this] { backend_.copy_tables_to_host(); };
  task.after_epoch = [&](unsigned next_epoch) {
    if (shuffle_ == RecordShuffle::full) {
      shuffle_records(records_, settings_.seed, next_epoch);
    } else {
      shuffle_record_blocks(records_, settings_.seed, next_epoch);
    }
  };
  return run_epochs(task, state, stop, on_epoch, on_progress);
}

}  // namespace embed
