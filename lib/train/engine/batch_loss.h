// The loss a backend adds up over what it trained, for every model: the epoch loop sums
// it per worker and reports the mean per example.
#pragma once

#include <cstdint>

namespace embed {

struct BatchLoss {
  double sum = 0;
  // What the sum is over: (input, target) pairs for skip-gram, windows for CBOW,
  // co-occurrence records for GloVe (whose sum is Stanford's cost).
  std::uint64_t examples = 0;
};

}  // namespace embed
