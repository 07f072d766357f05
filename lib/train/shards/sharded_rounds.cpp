#include "train/shards/sharded_rounds.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "core/parallel.h"
#include "core/progress.h"
#include "train/ranks/rank_averaging.h"

namespace embed {
namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

ShardedRounds::ShardedRounds(ShardedTables& tables, Word2vecBackend& backend, unsigned workers)
    : tables_(tables), backend_(backend), queues_(workers) {}

void ShardedRounds::hand_over(unsigned worker, WindowBatch& batch, std::uint64_t words) {
  Queue& queue = queues_[worker];
  std::lock_guard lock(queue.mutex);
  queue.handed.push_back(std::move(batch));
  queue.words += words;
  if (queue.spare.empty()) {
    batch = WindowBatch();
  } else {
    batch = std::move(queue.spare.back());
    queue.spare.pop_back();
  }
}

RankAgreement ShardedRounds::round(const RankReport& report, bool stop_asked) {
  RankReport mine = report;
  mine.stop = report.stop || stop_asked;
  const RankAgreement agreed = agree(tables_.job(), mine);

  // The batches handed over until now; a worker still planning hands its next to the next round.
  std::vector<std::vector<WindowBatch>> sealed(queues_.size());
  std::vector<WindowBatch*> batches;
  for (std::size_t w = 0; w < queues_.size(); ++w) {
    std::lock_guard lock(queues_[w].mutex);
    std::swap(sealed[w], queues_[w].handed);
    words_ += std::exchange(queues_[w].words, 0);
  }
  for (auto& queue : sealed) {
    for (WindowBatch& batch : queue) batches.push_back(&batch);
  }
  auto start = std::chrono::steady_clock::now();
  tables_.fetch(batches);
  exchange_seconds_ += seconds_since(start);
  start = std::chrono::steady_clock::now();
  std::vector<BatchLoss> losses(queues_.size());
  parallel_for_workers(sealed.size(), static_cast<unsigned>(queues_.size()), [&](std::size_t w, unsigned worker) {
    for (const WindowBatch& batch : sealed[w]) backend_.train(batch, worker, losses[w]);
    backend_.finish(worker, losses[w]);
  });
  train_seconds_ += seconds_since(start);
  start = std::chrono::steady_clock::now();
  tables_.push();
  exchange_seconds_ += seconds_since(start);
  for (const BatchLoss& l : losses) {
    loss_.sum += l.sum;
    loss_.examples += l.examples;
  }
  for (std::size_t w = 0; w < queues_.size(); ++w) {
    std::lock_guard lock(queues_[w].mutex);
    for (WindowBatch& batch : sealed[w]) queues_[w].spare.push_back(std::move(batch));
  }
  return agreed;
}

std::string ShardedRounds::summary() const {
  const ShardTraffic& t = tables_.traffic();
  const auto share = [](std::uint64_t part, std::uint64_t whole) {
    return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
  };
  const double words = static_cast<double>(std::max<std::uint64_t>(words_, 1));
  const double row_bytes = static_cast<double>(tables_.row_bytes());
  return fmt::format(
      "{} rounds, {:.1f}% of the rows past the hot ones that a round touched fetched from other ranks; per corpus word "
      "this rank trained ({}): {:.0f} bytes of rows fetched (and as many of changes returned), {:.0f} of the hot rows' "
      "sums; {} sent by this rank in all ({} bytes); {:.2f} s exchanging ({:.2f} s of it in MPI's collectives), {:.2f} s "
      "training",
      t.rounds, 100 * share(t.rows_fetched, t.rows_touched), words_, static_cast<double>(t.rows_fetched) * row_bytes / words,
      static_cast<double>(t.hot_bytes) / words, human_bytes(static_cast<double>(t.bytes_sent)), t.bytes_sent, exchange_seconds_,
      t.collective_seconds, train_seconds_);
}

}  // namespace embed
