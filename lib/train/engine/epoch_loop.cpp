#include "train/engine/epoch_loop.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
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

namespace {

// One epoch's workers, as the thread watching them sees them.
struct EpochWorkers {
  explicit EpochWorkers(unsigned workers) : counters(workers), running(workers) {}
  std::vector<WorkerCounters> counters;
  std::atomic<bool> failed{false};  // one worker failed: the others stop too
  // Guarded by `mutex`: the workers still running and the first failure.
  std::mutex mutex;
  std::condition_variable done;
  unsigned running;
  std::exception_ptr failure;
  std::condition_variable round_ran;  // workers waiting for a round (EpochTask::sync_items)
  BatchLoss rounds_before;            // EpochTask::round_loss when the epoch (or resumed run) began
};

// run_epochs' run: the epochs in turn, each a thread per worker over its shard and this
// thread watching them (progress, the ranks' rounds).
class EpochRunner {
 public:
  EpochRunner(const EpochTask& task, TrainState& state, const std::atomic<bool>& stop,
              const std::function<void(const TrainProgress&)>& on_epoch,
              const std::function<void(const TrainProgress&)>& on_progress)
      : task_(task),
        state_(state),
        stop_(stop),
        on_epoch_(on_epoch),
        on_progress_(on_progress),
        workers_(static_cast<unsigned>(state.positions.size())),
        start_(std::chrono::steady_clock::now()),
        items_at_start_(state.items_done),
        items_done_(state.items_done) {
    EMBED_ASSERT(workers_ > 0 && state.random.size() == workers_ && state.shards.size() == workers_);
  }

  // Returns whether every epoch ran (false: stopped, and the state says where to resume).
  bool run() {
    while (state_.epoch < task_.epochs) {
      const std::optional<bool> result = run_epoch();
      if (result) return *result;
    }
    return true;
  }

 private:
  // The whole job's items: this process's, and the other ranks' this epoch as of the
  // last round, so that the learning rate and progress follow the whole job's.
  std::uint64_t all_items() const {
    return items_done_.load(std::memory_order_relaxed) + other_ranks_items_.load(std::memory_order_relaxed);
  }

  TrainProgress progress_now(double loss_sum, std::uint64_t examples) const {
    TrainProgress p;
    p.epoch = state_.epoch;
    p.items_done = all_items();
    p.learning_rate = task_.learning_rate(p.items_done);
    p.loss = examples > 0 ? loss_sum / static_cast<double>(examples) : 0;
    p.examples = examples;
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    p.items_this_run = p.items_done - items_at_start_;
    return p;
  }

  std::pair<double, std::uint64_t> loss_so_far(const EpochWorkers& epoch) const {
    double sum = state_.epoch_loss;
    std::uint64_t examples = state_.epoch_examples;
    if (task_.round_loss) {
      const BatchLoss rounds = task_.round_loss();
      sum += rounds.sum - epoch.rounds_before.sum;
      examples += rounds.examples - epoch.rounds_before.examples;
    }
    for (const auto& c : epoch.counters) {
      sum += c.loss.load(std::memory_order_relaxed);
      examples += c.examples.load(std::memory_order_relaxed);
    }
    return {sum, examples};
  }

  // One epoch, or what is left of it. Returns the run's result when it ends here (a stop,
  // or a stop between epochs), nullopt when the next epoch follows.
  std::optional<bool> run_epoch() {
    const std::uint64_t epoch_first_item = items_done_.load();
    other_ranks_items_.store(0);
    items_at_round_.store(epoch_first_item);
    EpochWorkers epoch(workers_);
    if (task_.round_loss) epoch.rounds_before = task_.round_loss();
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < workers_; ++w) threads.emplace_back([this, w, &epoch] { work(w, epoch); });
    watch(epoch, epoch_first_item);
    for (auto& t : threads) t.join();
    if (task_.after_workers) task_.after_workers();
    const auto [sum, examples] = loss_so_far(epoch);
    state_.epoch_loss = sum;
    state_.epoch_examples = examples;
    items_done_.fetch_add(other_ranks_items_.exchange(0));  // all ranks' items, once the epoch has ended
    state_.items_done = items_done_.load();
    if (epoch.failure) std::rethrow_exception(epoch.failure);  // `state` says where to resume

    bool epoch_finished = true;
    for (unsigned w = 0; w < workers_; ++w) {
      if (state_.positions[w] < state_.shards[w].end) epoch_finished = false;
    }
    // Ranks decide together: a stop they agreed on ends the run on every rank, even one
    // whose shards were done.
    if (task_.sync_ranks && ranks_stop_.load()) epoch_finished = false;
    if (!epoch_finished) return false;  // stopped: the state says where to resume
    const TrainProgress finished_epoch = progress_now(sum, examples);
    ++state_.epoch;
    state_.epoch_loss = 0;
    state_.epoch_examples = 0;
    for (unsigned w = 0; w < workers_; ++w) state_.positions[w] = state_.shards[w].begin;
    if (task_.after_epoch && state_.epoch < task_.epochs) task_.after_epoch(state_.epoch);
    if (on_epoch_) on_epoch_(finished_epoch);
    // A data-parallel run goes on to its next epoch unless the ranks agreed to stop (a
    // stop asked now is reported at the next round), so that none leaves the others.
    if (task_.sync_ranks ? ranks_stop_.load() : stop_.load()) return state_.epoch >= task_.epochs;
    return std::nullopt;
  }

  // Completes worker w's work in flight and adds its loss.
  void finish(unsigned w, BatchLoss& loss, EpochWorkers& epoch) {
    if (task_.finish_shard) task_.finish_shard(w, loss);
    epoch.counters[w].loss.store(loss.sum, std::memory_order_relaxed);
    epoch.counters[w].examples.store(loss.examples, std::memory_order_relaxed);
  }

  // Worker w's thread: chunks of its shard until the shard ends or a stop, then its
  // position and random stream back into the state.
  void work(unsigned w, EpochWorkers& epoch) {
    std::exception_ptr error;
    Random random(state_.random[w]);
    BatchLoss loss;
    std::uint64_t position = state_.positions[w];
    Random::State random_before = random.state();  // at `position`
    try {
      const std::uint64_t shard_end = state_.shards[w].end;
      auto go_on = [&] {
        return position < shard_end && !stop_.load(std::memory_order_relaxed) && !ranks_stop_.load(std::memory_order_relaxed) &&
               !epoch.failed.load(std::memory_order_relaxed);
      };
      while (go_on()) {
        if (round_due_by_items()) {
          wait_for_round(epoch);
          continue;  // a stop may have come meanwhile
        }
        const float lr = task_.learning_rate(all_items());
        random_before = random.state();
        const ChunkDone chunk = task_.train_chunk(w, position, shard_end, lr, random, loss);
        EMBED_ASSERT(chunk.end > position && chunk.end <= shard_end);
        items_done_.fetch_add(chunk.items, std::memory_order_relaxed);
        position = chunk.end;
        epoch.counters[w].loss.store(loss.sum, std::memory_order_relaxed);
        epoch.counters[w].examples.store(loss.examples, std::memory_order_relaxed);
      }
      random_before = random.state();
      finish(w, loss, epoch);
    } catch (...) {
      // The state keeps the position and random stream from before the chunk that
      // failed (a corpus read fails before its chunk trains), so that a checkpoint
      // taken now resumes there once what failed is mended. The others stop too.
      error = std::current_exception();
      epoch.failed.store(true);
      try {
        finish(w, loss, epoch);
      } catch (...) {}
    }
    state_.positions[w] = position;
    state_.random[w] = random_before;
    {
      std::lock_guard lock(epoch.mutex);
      if (error && !epoch.failure) epoch.failure = error;
      --epoch.running;
    }
    epoch.done.notify_all();
  }

  // Whether this rank's workers have trained a round's items (EpochTask::sync_items) since
  // the last round.
  bool round_due_by_items() const {
    return task_.sync_ranks && task_.sync_items > 0 && items_done_.load() - items_at_round_.load() >= task_.sync_items;
  }

  // A worker whose rank has trained a round's items: wakes the watching thread for the
  // round and sleeps until it has run, or the epoch stops (a stop asked by a signal
  // notifies nobody: it is polled).
  void wait_for_round(EpochWorkers& epoch) {
    std::unique_lock lock(epoch.mutex);
    epoch.done.notify_all();
    while (round_due_by_items() && !stop_.load() && !ranks_stop_.load() && !epoch.failed.load()) {
      epoch.round_ran.wait_for(lock, std::chrono::milliseconds(50));
    }
  }

  // This thread while the workers run: progress every 50 ms and, under mpirun, the
  // ranks' rounds (sync_ranks), until the workers are done (and the ranks agree so).
  void watch(EpochWorkers& epoch, std::uint64_t epoch_first_item) {
    auto next_round = std::chrono::steady_clock::now() + std::chrono::duration<double>(task_.sync_seconds);
    for (;;) {
      bool workers_done = false;
      {
        // Every 50 ms for the progress line, sooner where a round is due: a GPU may train a
        // rank's whole epoch between two 50 ms polls, which an --sync-interval of 0.02 asked
        // to share several times.
        const auto poll = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
        const auto wake = task_.sync_ranks && next_round < poll ? next_round : decltype(next_round)(poll);
        std::unique_lock lock(epoch.mutex);
        epoch.done.wait_until(lock, wake, [&] { return epoch.running == 0 || round_due_by_items(); });
        workers_done = epoch.running == 0;
      }
      if (!task_.sync_ranks) {
        if (workers_done) {
          // Once more at the epoch's end: epochs shorter than the 50 ms poll (a small corpus
          // at millions of words a second) would otherwise never show a progress line.
          report_progress(epoch);
          break;
        }
      } else if (workers_done || round_due_by_items() || std::chrono::steady_clock::now() >= next_round) {
        // A rank whose workers are done joins the round at once and waits there asleep
        // (Cluster::sum_round) for the ranks still training, which come at their next
        // round or when they are done. (It used to sleep until its own next round first:
        // every epoch's end waited up to --sync-interval, 100 s at --sync-interval 100.)
        RankReport report;
        report.workers_done = workers_done;
        report.stop = stop_.load() || epoch.failed.load();
        const std::uint64_t items_now = items_done_.load();
        report.epoch_items = items_now - epoch_first_item;
        const RankAgreement agreed = task_.sync_ranks(report);
        other_ranks_items_.store(agreed.epoch_items - report.epoch_items);
        if (agreed.stop) ranks_stop_.store(true);
        {
          // The items trained while the round ran count towards the next one.
          std::lock_guard lock(epoch.mutex);
          items_at_round_.store(items_now);
        }
        epoch.round_ran.notify_all();
        next_round = std::chrono::steady_clock::now() + std::chrono::duration<double>(task_.sync_seconds);
        if (agreed.all_done) break;
      }
      report_progress(epoch);
    }
  }

  void report_progress(const EpochWorkers& epoch) const {
    if (!on_progress_) return;
    const auto [sum, examples] = loss_so_far(epoch);
    on_progress_(progress_now(sum, examples));
  }

  const EpochTask& task_;
  TrainState& state_;
  const std::atomic<bool>& stop_;
  const std::function<void(const TrainProgress&)>& on_epoch_;
  const std::function<void(const TrainProgress&)>& on_progress_;
  const unsigned workers_;
  const std::chrono::steady_clock::time_point start_;
  const std::uint64_t items_at_start_;
  std::atomic<std::uint64_t> items_done_;  // by this process
  std::atomic<std::uint64_t> other_ranks_items_{0};
  std::atomic<std::uint64_t> items_at_round_{0};  // items_done_ at this epoch's last round (or its start)
  std::atomic<bool> ranks_stop_{false};
};

}  // namespace

bool run_epochs(const EpochTask& task, TrainState& state, const std::atomic<bool>& stop,
                const std::function<void(const TrainProgress&)>& on_epoch,
                const std::function<void(const TrainProgress&)>& on_progress) {
  return EpochRunner(task, state, stop, on_epoch, on_progress).run();
}

}  // namespace embed
