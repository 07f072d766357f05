#include "train/engine/epoch_loop.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "core/error.h"

namespace embed {
namespace {

// Per-worker figures the monitoring thread reads while the worker runs.
struct alignas(64) WorkerCounters {
  std::atomic<double> loss{0};
  std::atomic<std::uint64_t> examples{0};
};

}  // namespace

TrainState TrainState::start(std::vector<PositionRange> shards, std::uint64_t seed, unsigned first_worker) {
  TrainState state;
  state.shards = std::move(shards);
  for (unsigned w = 0; w < state.shards.size(); ++w) {
    state.positions.push_back(state.shards[w].begin);
    state.random.push_back(Random(seed, first_worker + w).state());
  }
  return state;
}

TrainState TrainState::start(unsigned workers, std::uint64_t seed, std::uint64_t items, unsigned first_worker) {
  std::vector<PositionRange> shards;
  for (unsigned w = 0; w < workers; ++w) {
    const auto [begin, end] = shard_bounds(items, w, workers);
    shards.push_back({begin, end});
  }
  return start(std::move(shards), seed, first_worker);
}

std::pair<std::uint64_t, std::uint64_t> shard_bounds(std::uint64_t items, unsigned worker, unsigned workers) {
  const auto bound = [&](unsigned w) {
    return items / workers * w + items % workers * w / workers;  // floor(N * w / workers)
  };
  return {bound(worker), bound(worker + 1)};
}

bool run_epochs(const EpochTask& task, TrainState& state, const std::atomic<bool>& stop,
                const std::function<void(const TrainProgress&)>& on_epoch,
                const std::function<void(const TrainProgress&)>& on_progress) {
  const auto workers = static_cast<unsigned>(state.positions.size());
  EMBED_ASSERT(workers > 0 && state.random.size() == workers && state.shards.size() == workers);
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t items_at_start = state.items_done;
  std::atomic<std::uint64_t> items_done{state.items_done};  // by this process
  // Data parallel: the other ranks' items this epoch, as of the last round, so that the
  // learning rate and progress follow the whole job's.
  std::atomic<std::uint64_t> other_ranks_items{0};
  std::atomic<bool> ranks_stop{false};
  auto all_items = [&] { return items_done.load(std::memory_order_relaxed) + other_ranks_items.load(std::memory_order_relaxed); };

  auto progress_now = [&](double loss_sum, std::uint64_t examples) {
    TrainProgress p;
    p.epoch = state.epoch;
    p.items_done = all_items();
    p.learning_rate = task.learning_rate(p.items_done);
    p.loss = examples > 0 ? loss_sum / static_cast<double>(examples) : 0;
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    p.items_this_run = p.items_done - items_at_start;
    return p;
  };

  while (state.epoch < task.epochs) {
    const std::uint64_t epoch_first_item = items_done.load();
    other_ranks_items.store(0);
    std::vector<WorkerCounters> counters(workers);
    std::atomic<bool> failed{false};  // one worker failed: the others stop too
    // Guarded by `mutex`: the workers still running and the first failure.
    std::mutex mutex;
    std::condition_variable done;
    unsigned running = workers;
    std::exception_ptr failure;
    std::vector<std::thread> threads;
    // Completes the worker's work in flight and adds its loss.
    auto finish = [&](unsigned w, BatchLoss& loss) {
      if (task.finish_shard) task.finish_shard(w, loss);
      counters[w].loss.store(loss.sum, std::memory_order_relaxed);
      counters[w].examples.store(loss.examples, std::memory_order_relaxed);
    };
    for (unsigned w = 0; w < workers; ++w) {
      threads.emplace_back([&, w] {
        std::exception_ptr error;
        Random random(state.random[w]);
        BatchLoss loss;
        std::uint64_t position = state.positions[w];
        Random::State random_before = random.state();  // at `position`
        try {
          const std::uint64_t shard_end = state.shards[w].end;
          while (position < shard_end && !stop.load(std::memory_order_relaxed) && !ranks_stop.load(std::memory_order_relaxed) &&
                 !failed.load(std::memory_order_relaxed)) {
            const float lr = task.learning_rate(all_items());
            random_before = random.state();
            const ChunkDone chunk = task.train_chunk(w, position, shard_end, lr, random, loss);
            EMBED_ASSERT(chunk.end > position && chunk.end <= shard_end);
            items_done.fetch_add(chunk.items, std::memory_order_relaxed);
            position = chunk.end;
            counters[w].loss.store(loss.sum, std::memory_order_relaxed);
            counters[w].examples.store(loss.examples, std::memory_order_relaxed);
          }
          random_before = random.state();
          finish(w, loss);
        } catch (...) {
          // The state keeps the position and random stream from before the chunk that
          // failed (a corpus read fails before its chunk trains), so that a checkpoint
          // taken now resumes there once what failed is mended. The others stop too.
          error = std::current_exception();
          failed.store(true);
          try {
            finish(w, loss);
          } catch (...) {}
        }
        state.positions[w] = position;
        state.random[w] = random_before;
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
    auto next_round = std::chrono::steady_clock::now() + std::chrono::duration<double>(task.sync_seconds);
    for (;;) {
      bool workers_done = false;
      {
        std::unique_lock lock(mutex);
        workers_done = done.wait_for(lock, std::chrono::milliseconds(50), [&] { return running == 0; });
      }
      if (!task.sync_ranks) {
        if (workers_done) break;
      } else if (workers_done || std::chrono::steady_clock::now() >= next_round) {
        // A rank whose workers are done waits for the next round instead of spinning in
        // collective calls beside ranks still training.
        if (workers_done) std::this_thread::sleep_until(next_round);
        RankReport report;
        report.workers_done = workers_done;
        report.stop = stop.load() || failed.load();
        report.epoch_items = items_done.load() - epoch_first_item;
        const RankAgreement agreed = task.sync_ranks(report);
        other_ranks_items.store(agreed.epoch_items - report.epoch_items);
        if (agreed.stop) ranks_stop.store(true);
        next_round = std::chrono::steady_clock::now() + std::chrono::duration<double>(task.sync_seconds);
        if (agreed.all_done) break;
      }
      if (on_progress) {
        const auto [sum, examples] = loss_so_far();
        on_progress(progress_now(sum, examples));
      }
    }
    for (auto& t : threads) t.join();
    if (task.after_workers) task.after_workers();
    const auto [sum, examples] = loss_so_far();
    state.epoch_loss = sum;
    state.epoch_examples = examples;
    items_done.fetch_add(other_ranks_items.exchange(0));  // all ranks' items, once the epoch has ended
    state.items_done = items_done.load();
    if (failure) std::rethrow_exception(failure);  // `state` says where to resume

    bool epoch_finished = true;
    for (unsigned w = 0; w < workers; ++w) {
      if (state.positions[w] < state.shards[w].end) epoch_finished = false;
    }
    // Ranks decide together: a stop they agreed on ends the run on every rank, even one
    // whose shards were done.
    if (task.sync_ranks && ranks_stop.load()) epoch_finished = false;
    if (!epoch_finished) return false;  // stopped: the state says where to resume
    const TrainProgress finished_epoch = progress_now(sum, examples);
    ++state.epoch;
    state.epoch_loss = 0;
    state.epoch_examples = 0;
    for (unsigned w = 0; w < workers; ++w) state.positions[w] = state.shards[w].begin;
    if (task.after_epoch && state.epoch < task.epochs) task.after_epoch(state.epoch);
    if (on_epoch) on_epoch(finished_epoch);
    // A data-parallel run goes on to its next epoch unless the ranks agreed to stop (a
    // stop asked now is reported at the next round), so that none leaves the others.
    if (task.sync_ranks ? ranks_stop.load() : stop.load()) return state.epoch >= task.epochs;
  }
  return true;
}

}  // namespace embed
