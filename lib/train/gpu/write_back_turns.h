// Host placement with mapped transfers (host_tables.h, rows_in_flight.h): the batches'
// write-backs must queue in the order the batches claimed their rows, so that a row
// stored whole lands before any later holder of it adds its change. A turn, taken under
// the same lock as the claims, says when. Between its claim and its write-back a worker
// queues its ids' copy, its gather and its kernels holding nothing the other workers
// wait for (the claims' lock is held for the claims alone), then waits for the turns
// before its own to pass: only the claims and the write-backs' queuing are one at a time,
// each on its own, where one lock from claim to write-back made a batch's whole queuing
// (some 15 CUDA calls) one at a time.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <utility>

namespace embed {

class WriteBackTurns {
 public:
  // A batch's place in the order. wait() before queuing the write-back, pass() after. A
  // turn destroyed before it passed (an exception on the way) waits and passes then, so
  // that the batches after it do not wait for ever.
  class Turn {
   public:
    Turn() = default;  // no turn: gather transfers, which need no order
    Turn(Turn&& other) noexcept : turns_(std::exchange(other.turns_, nullptr)), number_(other.number_) {}
    Turn& operator=(Turn&& other) noexcept {
      if (this != &other) {
        finish();
        turns_ = std::exchange(other.turns_, nullptr);
        number_ = other.number_;
      }
      return *this;
    }
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    ~Turn() { finish(); }

    // Blocks until every turn taken before this one has passed.
    void wait() const {
      if (!turns_) return;
      std::unique_lock lock(turns_->mutex_);
      turns_->passed_.wait(lock, [&] { return turns_->next_to_pass_ == number_; });
    }
    // Lets the next turn go; call after wait(), once the write-back is queued.
    void pass() {
      if (!turns_) return;
      {
        const std::lock_guard lock(turns_->mutex_);
        turns_->next_to_pass_ = number_ + 1;
      }
      turns_->passed_.notify_all();
      turns_ = nullptr;
    }
    std::uint64_t number() const { return number_; }

   private:
    friend class WriteBackTurns;
    Turn(WriteBackTurns* turns, std::uint64_t number) : turns_(turns), number_(number) {}
    void finish() {
      if (!turns_) return;
      wait();
      pass();
    }
    WriteBackTurns* turns_ = nullptr;
    std::uint64_t number_ = 0;
  };

  // Runs claim() under the claims' lock and returns the turn taken with it: turns follow
  // the claims' order.
  template <typename Claim>
  Turn claim(Claim&& claim_rows) {
    const std::lock_guard lock(claims_);
    std::forward<Claim>(claim_rows)();
    return Turn(this, next_to_take_++);
  }

 private:
  std::mutex claims_;               // held while a batch claims its rows and takes its turn
  std::uint64_t next_to_take_ = 0;  // under claims_
  std::mutex mutex_;                // guards next_to_pass_
  std::condition_variable passed_;
  std::uint64_t next_to_pass_ = 0;
};

}  // namespace embed
