#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "core/error.h"

namespace embed {
namespace {

constexpr std::uint64_t kMaxSentence = 10000;  // words per batch at most (gensim's sentence limit)
constexpr float kMinLearningRateFraction = 1e-4f;

// Per-worker figures the monitoring thread reads while the worker runs.
struct alignas(64) WorkerCounters {
  std::atomic<double> loss{0};
  std::atomic<std::uint64_t> examples{0};
};

}  // namespace

std::map<std::string, std::string> settings_metadata(const TrainSettings& s) {
  return {{"model", std::string(model_name(s.model))},
          {"window", std::to_string(s.window)},
          {"negative", std::to_string(s.negative)},
          {"sample", fmt::format("{}", s.sample)},
          {"epochs", std::to_string(s.epochs)},
          {"lr", fmt::format("{}", s.lr)},
          {"seed", std::to_string(s.seed)}};
}

TrainState TrainState::start(const TrainSettings& settings, std::uint64_t corpus_words) {
  TrainState state;
  for (unsigned w = 0; w < settings.threads; ++w) {
    state.positions.push_back(shard_bounds(corpus_words, w, settings.threads).first);
    state.random.push_back(Random(settings.seed, w).state());
  }
  return state;
}

std::pair<std::uint64_t, std::uint64_t> shard_bounds(std::uint64_t corpus_words, unsigned worker, unsigned workers) {
  const auto bound = [&](unsigned w) {
    return corpus_words / workers * w + corpus_words % workers * w / workers;  // floor(N * w / workers)
  };
  return {bound(worker), bound(worker + 1)};
}

Trainer::Trainer(const TrainSettings& settings, const Corpus& corpus, TrainBackend& backend)
    : settings_(settings),
      corpus_(corpus),
      backend_(backend),
      negatives_(corpus.vocab.counts, 0.75),
      keep_(keep_thresholds(corpus.vocab.counts, settings.sample)) {}

float Trainer::learning_rate(std::uint64_t words_done) const {
  const double total = static_cast<double>(corpus_.ids.size()) * settings_.epochs;
  const double left = 1.0 - static_cast<double>(words_done) / (total + 1);
  return settings_.lr * static_cast<float>(std::max(left, static_cast<double>(kMinLearningRateFraction)));
}

std::uint64_t Trainer::sentence_end(std::uint64_t first, std::uint64_t shard_end) const {
  std::uint64_t end = std::min(shard_end, first + kMaxSentence);
  const auto line = std::upper_bound(corpus_.line_ends.begin(), corpus_.line_ends.end(), first);
  if (line != corpus_.line_ends.end()) end = std::min(end, *line);
  return end;
}

void Trainer::plan_batch(std::uint64_t first, std::uint64_t last, float learning_rate, Random& random,
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

bool Trainer::run(TrainState& state, const std::atomic<bool>& stop,
                  const std::function<void(const TrainProgress&)>& on_epoch,
                  const std::function<void(const TrainProgress&)>& on_progress) {
  const unsigned workers = settings_.threads;
  EMBED_ASSERT(state.positions.size() == workers && state.random.size() == workers);
  const std::uint64_t corpus_words = corpus_.ids.size();
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t words_at_start = state.words_done;
  std::atomic<std::uint64_t> words_done{state.words_done};

  auto progress_now = [&](double loss_sum, std::uint64_t examples) {
    TrainProgress p;
    p.epoch = state.epoch;
    p.words_done = words_done.load(std::memory_order_relaxed);
    p.learning_rate = learning_rate(p.words_done);
    p.loss = examples > 0 ? loss_sum / static_cast<double>(examples) : 0;
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    p.words_this_run = p.words_done - words_at_start;
    return p;
  };

  while (state.epoch < settings_.epochs) {
    std::vector<WorkerCounters> counters(workers);
    // Guarded by `mutex`: the workers still running and the first failure.
    std::mutex mutex;
    std::condition_variable done;
    unsigned running = workers;
    std::exception_ptr failure;
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < workers; ++w) {
      threads.emplace_back([&, w] {
        std::exception_ptr error;
        try {
          Random random(state.random[w]);
          WindowBatch batch;
          std::vector<std::uint32_t> kept;
          BatchLoss loss;
          const std::uint64_t shard_end = shard_bounds(corpus_words, w, workers).second;
          std::uint64_t position = state.positions[w];
          while (position < shard_end && !stop.load(std::memory_order_relaxed)) {
            const std::uint64_t end = sentence_end(position, shard_end);
            plan_batch(position, end, learning_rate(words_done.load(std::memory_order_relaxed)), random, batch, kept);
            backend_.train(batch, w, loss);
            words_done.fetch_add(end - position, std::memory_order_relaxed);
            position = end;
            counters[w].loss.store(loss.sum, std::memory_order_relaxed);
            counters[w].examples.store(loss.examples, std::memory_order_relaxed);
          }
          state.positions[w] = position;
          state.random[w] = random.state();
        } catch (...) {
          error = std::current_exception();
        }
        {
          std::lock_guard lock(mutex);
          if (error && !failure) failure = error;
          --running;
        }
        done.notify_all();
      });
    }
    auto loss_so_far = [&] {
      double sum = state.epoch_loss;
      std::uint64_t examples = state.epoch_examples;
      for (const auto& c : counters) {
        sum += c.loss.load(std::memory_order_relaxed);
        examples += c.examples.load(std::memory_order_relaxed);
      }
      return std::pair{sum, examples};
    };
    for (;;) {
      {
        std::unique_lock lock(mutex);
        if (done.wait_for(lock, std::chrono::milliseconds(50), [&] { return running == 0; })) break;
      }
      if (on_progress) {
        const auto [sum, examples] = loss_so_far();
        on_progress(progress_now(sum, examples));
      }
    }
    for (auto& t : threads) t.join();
    if (failure) std::rethrow_exception(failure);
    const auto [sum, examples] = loss_so_far();
    state.epoch_loss = sum;
    state.epoch_examples = examples;
    state.words_done = words_done.load();

    bool epoch_finished = true;
    for (unsigned w = 0; w < workers; ++w) {
      if (state.positions[w] < shard_bounds(corpus_words, w, workers).second) epoch_finished = false;
    }
    if (!epoch_finished) return false;  // stopped: the state says where to resume
    const TrainProgress finished_epoch = progress_now(sum, examples);
    ++state.epoch;
    state.epoch_loss = 0;
    state.epoch_examples = 0;
    for (unsigned w = 0; w < workers; ++w) state.positions[w] = shard_bounds(corpus_words, w, workers).first;
    if (on_epoch) on_epoch(finished_epoch);
    if (stop.load()) return state.epoch >= settings_.epochs;
  }
  return true;
}

}  // namespace embed
