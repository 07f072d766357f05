// A test double of mpirun's job: N ranks as N threads of this process, meeting at a
// barrier for every collective step, so that what runs between ranks (sharing rows,
// exchanging counts, gathering states) is tested in every build, MPI or not, and under
// the sanitizers.
#pragma once

#include <barrier>
#include <cstring>
#include <functional>
#include <span>
#include <thread>
#include <vector>

#include "cluster/cluster.h"

namespace embed::test {

class ThreadJob {
 public:
  explicit ThreadJob(unsigned ranks) : ranks_(ranks), barrier_(ranks), slots_(ranks), outgoing_(ranks) {}

  // Runs body(rank's cluster) on every rank's thread and waits for them.
  void run(const std::function<void(Cluster&)>& body) {
    std::vector<std::thread> threads;
    for (unsigned r = 0; r < ranks_; ++r) {
      threads.emplace_back([this, r, &body] {
        Rank rank(*this, r);
        body(rank);
      });
    }
    for (auto& t : threads) t.join();
  }

 private:
  class Rank final : public Cluster {
   public:
    Rank(ThreadJob& job, unsigned rank) : job_(job), rank_(rank) {}
    unsigned rank() const override { return rank_; }
    unsigned size() const override { return job_.ranks_; }
    void sum(std::span<float> values) override {
      reduce(values, [](float a, float b) { return a + b; });
    }
    void sum(std::span<std::uint64_t> values) override {
      reduce(values, [](std::uint64_t a, std::uint64_t b) { return a + b; });
    }
    void max(std::span<std::uint64_t> values) override {
      reduce(values, [](std::uint64_t a, std::uint64_t b) { return a > b ? a : b; });
    }
    std::vector<std::vector<char>> all_gather(std::span<const char> mine) override {
      job_.slots_[rank_].assign(mine.begin(), mine.end());
      sent_ += mine.size();
      job_.barrier_.arrive_and_wait();
      std::vector<std::vector<char>> all = job_.slots_;
      job_.barrier_.arrive_and_wait();
      return all;
    }
    std::vector<std::vector<char>> all_to_all(std::vector<std::vector<char>> to_each) override {
      for (const auto& part : to_each) sent_ += part.size();
      job_.outgoing_[rank_] = std::move(to_each);
      job_.barrier_.arrive_and_wait();
      std::vector<std::vector<char>> received;
      for (unsigned r = 0; r < job_.ranks_; ++r) received.push_back(job_.outgoing_[r][rank_]);
      job_.barrier_.arrive_and_wait();
      return received;
    }
    void abort(int) override {}
    std::uint64_t bytes_sent() const override { return sent_; }

   private:
    // Every rank's values combined in rank order, as an allreduce gives them.
    template <typename T, typename Combine>
    void reduce(std::span<T> values, Combine combine) {
      std::vector<char>& slot = job_.slots_[rank_];
      slot.resize(values.size_bytes());
      std::memcpy(slot.data(), values.data(), values.size_bytes());
      sent_ += values.size_bytes();
      job_.barrier_.arrive_and_wait();
      std::vector<T> result(values.size());
      for (unsigned r = 0; r < job_.ranks_; ++r) {
        const auto* theirs = reinterpret_cast<const T*>(job_.slots_[r].data());
        for (std::size_t i = 0; i < values.size(); ++i) result[i] = r == 0 ? theirs[i] : combine(result[i], theirs[i]);
      }
      job_.barrier_.arrive_and_wait();
      std::copy(result.begin(), result.end(), values.begin());
    }

    ThreadJob& job_;
    unsigned rank_;
    std::uint64_t sent_ = 0;
  };

  unsigned ranks_;
  std::barrier<> barrier_;
  std::vector<std::vector<char>> slots_;                 // per rank: what it put in
  std::vector<std::vector<std::vector<char>>> outgoing_;  // per rank: its parts for each rank
};

}  // namespace embed::test
