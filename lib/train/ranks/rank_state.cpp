#include "train/ranks/rank_state.h"

#include <bit>
#include <cstring>

#include "core/error.h"

namespace embed {
namespace {

// A rank's part of the state, as words: [workers, loss bits, examples, then per worker
// begin, end, position and the random stream's four words].
constexpr std::size_t kHeaderWords = 3, kWorkerWords = 7;

std::vector<std::uint64_t> to_words(const TrainState& state) {
  std::vector<std::uint64_t> words = {state.shards.size(), std::bit_cast<std::uint64_t>(state.epoch_loss), state.epoch_examples};
  for (std::size_t w = 0; w < state.shards.size(); ++w) {
    words.insert(words.end(), {state.shards[w].begin, state.shards[w].end, state.positions[w]});
    words.insert(words.end(), state.random[w].begin(), state.random[w].end());
  }
  return words;
}

}  // namespace

TrainState gather_rank_states(Cluster& job, const TrainState& mine) {
  const std::vector<std::uint64_t> words = to_words(mine);
  const auto parts = job.all_gather({reinterpret_cast<const char*>(words.data()), words.size() * sizeof(std::uint64_t)});
  TrainState all = mine;
  all.shards.clear();
  all.positions.clear();
  all.random.clear();
  all.epoch_loss = 0;
  all.epoch_examples = 0;
  for (const std::vector<char>& part : parts) {
    std::vector<std::uint64_t> w(part.size() / sizeof(std::uint64_t));
    EMBED_ASSERT(part.size() == w.size() * sizeof(std::uint64_t) && w.size() >= kHeaderWords);
    std::memcpy(w.data(), part.data(), part.size());
    const std::uint64_t workers = w[0];
    EMBED_ASSERT(w.size() == kHeaderWords + workers * kWorkerWords);
    all.epoch_loss += std::bit_cast<double>(w[1]);
    all.epoch_examples += w[2];
    for (std::uint64_t i = 0; i < workers; ++i) {
      const std::uint64_t* worker = w.data() + kHeaderWords + i * kWorkerWords;
      all.shards.push_back({worker[0], worker[1]});
      all.positions.push_back(worker[2]);
      all.random.push_back({worker[3], worker[4], worker[5], worker[6]});
    }
  }
  return all;
}

TrainState rank_share(const TrainState& job_state, unsigned rank, unsigned ranks) {
  const std::size_t workers = job_state.shards.size() / ranks;
  EMBED_ASSERT(ranks > 0 && rank < ranks && workers * ranks == job_state.shards.size());
  TrainState share = job_state;
  const std::size_t first = rank * workers, last = first + workers;
  share.shards.assign(job_state.shards.begin() + first, job_state.shards.begin() + last);
  share.positions.assign(job_state.positions.begin() + first, job_state.positions.begin() + last);
  share.random.assign(job_state.random.begin() + first, job_state.random.begin() + last);
  if (rank != 0) {
    share.epoch_loss = 0;
    share.epoch_examples = 0;
  }
  return share;
}

}  // namespace embed
