#include "train/word2vec/word2vec_trainer.h"

#include <algorithm>

#include "core/error.h"

namespace embed {
Word2vecTrainer::Word2vecTrainer(const TrainSettings& settings, const Corpus& corpus, Word2vecBackend& backend)
    : settings_(settings),
      corpus_(corpus),
      backend_(backend),
      negatives_(corpus.vocab.counts, 0.75),
      keep_(keep_thresholds(corpus.vocab.counts, settings.sample)) {}

float Word2vecTrainer::learning_rate(std::uint64_t words_done) const {
  return linear_decay_learning_rate(settings_.lr, static_cast<double>(words_done),
                                    static_cast<double>(corpus_.ids.size()) * settings_.epochs);
}

std::uint64_t Word2vecTrainer::sentence_end(std::uint64_t first, std::uint64_t shard_end) const {
  std::uint64_t end = std::min(shard_end, first + backend_.max_batch_words());
  const auto line = std::upper_bound(corpus_.line_ends.begin(), corpus_.line_ends.end(), first);
  if (line != corpus_.line_ends.end()) end = std::min(end, *line);
  return end;
}

void Word2vecTrainer::plan_batch(std::uint64_t first, std::uint64_t last, float learning_rate, Random& random,
                         WindowBatch& batch, std::vector<std::uint32_t>& kept) const {
  batch.clear();
  batch.learning_rate = learning_rate;
  batch.negatives_per_window = settings_.negative;
  kept.clear();
  for (std::uint64_t i = first; i < last; ++i) {
    const std::uint32_t row = corpus_.ids[i];
    if (keep_[row] == kAlwaysKeep || random.next32() < keep_[row]) kept.push_back(row);
  }
  const std::size_t n = kept.size();
  const auto window = static_cast<std::uint32_t>(settings_.window);
  for (std::size_t i = 0; i < n; ++i) {
    // word2vec's reduced window: a reach drawn uniformly from 1 .. window.
    const std::size_t reach = window - random.below(window);
    const std::size_t begin = i >= reach ? i - reach : 0;
    const std::size_t end = std::min(n, i + reach + 1);
    if (end - begin < 2) continue;  // a one-word sentence has no context
    for (std::size_t j = begin; j < end; ++j) {
      if (j != i) batch.inputs.push_back(kept[j]);
    }
    batch.input_offsets.push_back(static_cast<std::uint32_t>(batch.inputs.size()));
    batch.targets.push_back(kept[i]);
    for (std::size_t k = 0; k < settings_.negative; ++k) batch.negatives.push_back(negatives_.draw(random));
  }
}

bool Word2vecTrainer::run(TrainState& state, const std::atomic<bool>& stop,
                  const std::function<void(const TrainProgress&)>& on_epoch,
                  const std::function<void(const TrainProgress&)>& on_progress) {
  // Per worker: the batch it plans and the words subsampling kept, reused sentence after sentence.
  std::vector<WindowBatch> batches(settings_.threads);
  std::vector<std::vector<std::uint32_t>> kept(settings_.threads);
  EpochTask task;
  task.items = corpus_.ids.size();
  task.epochs = settings_.epochs;
  task.train_chunk = [&](unsigned worker, std::uint64_t first, std::uint64_t shard_end, float lr, Random& random,
                         BatchLoss& loss) {
    const std::uint64_t end = sentence_end(first, shard_end);
    plan_batch(first, end, lr, random, batches[worker], kept[worker]);
    backend_.train(batches[worker], worker, loss);
    return end;
  };
  task.learning_rate = [this](std::uint64_t words_done) { return learning_rate(words_done); };
  task.finish_shard = [this](unsigned worker, BatchLoss& loss) { backend_.finish(worker, loss); };
  task.after_workers = [this] { backend_.copy_tables_to_host(); };
  return run_epochs(task, state, stop, on_epoch, on_progress);
}

}  // namespace embed
