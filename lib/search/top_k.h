// Keeping the k best (score, row) pairs of a stream without sorting it: a min-heap
// whose root is the score to beat. Most candidates lose to the root, so the cost is
// one comparison each; callers read threshold() to skip whole blocks at once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace embed {

struct Hit {
  std::uint64_t row;
  float score;
};

// Higher score first; equal scores by lower row, so results do not depend on
// how the rows were split among threads.
inline bool better(const Hit& a, const Hit& b) { return a.score > b.score || (a.score == b.score && a.row < b.row); }

class TopK {
 public:
  explicit TopK(std::size_t k = 0) : k_(k) { heap_.reserve(k); }

  // Candidates scoring below this cannot enter (ties are decided by row in push).
  float threshold() const {
    return heap_.size() < k_ ? -std::numeric_limits<float>::infinity() : heap_.front().score;
  }

  void push(Hit hit) {
    if (k_ == 0) return;
    if (heap_.size() < k_) {
      heap_.push_back(hit);
      std::push_heap(heap_.begin(), heap_.end(), better);
    } else if (better(hit, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), better);
      heap_.back() = hit;
      std::push_heap(heap_.begin(), heap_.end(), better);
    }
  }

  void merge(const TopK& other) {
    for (const Hit& hit : other.heap_) push(hit);
  }

  // Best first.
  std::vector<Hit> sorted() const {
    std::vector<Hit> hits = heap_;
    std::sort(hits.begin(), hits.end(), better);
    return hits;
  }

 private:
  std::size_t k_;
  std::vector<Hit> heap_;  // heap ordered by `better`: the front is the worst kept
};

}  // namespace embed
