#include "train/glove/glove_trainer.h"

#include <algorithm>

#include "train/glove/glove_cpu_backend.h"

namespace embed {

GloveTrainer::GloveTrainer(const TrainSettings& settings, RecordSource& records, GloveBackend& backend)
    : settings_(settings), records_(records), backend_(backend) {}

GloveTrainer::GloveTrainer(const TrainSettings& settings, std::vector<GloveRecord>& records, GloveBackend& backend,
                           RecordShuffle shuffle)
    : settings_(settings),
      own_records_(memory_records(records, shuffle, settings.seed, nullptr)),
      records_(*own_records_),
      backend_(backend) {}

GloveTrainer::GloveTrainer(const TrainSettings& settings, std::vector<GloveRecord>& records, RowMatrix& words,
                           RowMatrix& contexts)
    : settings_(settings),
      own_records_(memory_records(records, RecordShuffle::full, settings.seed, nullptr)),
      records_(*own_records_),
      own_backend_(make_cpu_glove_backend(words, contexts, GloveLayout(settings.dim, settings.optimizer, settings.hyper))),
      backend_(*own_backend_) {}

bool GloveTrainer::run(TrainState& state, const std::atomic<bool>& stop,
                       const std::function<void(const TrainProgress&)>& on_epoch,
                       const std::function<void(const TrainProgress&)>& on_progress) {
  if (state.epoch < settings_.epochs) records_.order_for(state.epoch);
  EpochTask task;
  task.epochs = settings_.epochs;
  task.train_chunk = [&](unsigned worker, std::uint64_t first, std::uint64_t shard_end, float lr, Random&, BatchLoss& loss) {
    const std::uint64_t end = std::min<std::uint64_t>(shard_end, first + backend_.max_block_records());
    const std::span<const GloveRecord> block = records_.read(worker, first, end);
    backend_.train(block, worker, lr, loss);
    return ChunkDone{first + block.size(), block.size()};
  };
  const double total = static_cast<double>(job_records_ > 0 ? job_records_ : records_.size()) * settings_.epochs;
  task.learning_rate = [&, total](std::uint64_t done) {
    if (settings_.optimizer != Optimizer::sgd) return settings_.lr;
    return linear_decay_learning_rate(settings_.lr, static_cast<double>(done), total);
  };
  task.finish_shard = [this](unsigned worker, BatchLoss& loss) { backend_.finish(worker, loss); };
  task.after_workers = [this] { backend_.copy_tables_to_host(); };
  task.after_epoch = [this](unsigned next_epoch) { records_.order_for(next_epoch); };
  task.sync_ranks = sync_ranks_;
  task.sync_seconds = sync_seconds_;
  return run_epochs(task, state, stop, on_epoch, on_progress);
}

}  // namespace embed
