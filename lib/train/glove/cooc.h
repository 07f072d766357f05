// Co-occurrence counts: X_ij, how often context word j occurs near word i, weighted by
// 1/distance, as Stanford GloVe's `cooccur` counts them.
#pragma once

#include <cstdint>

namespace embed {

struct CoocEntry {
  std::uint32_t row;     // word i
  std::uint32_t column;  // context word j
  float count;           // X_ij
};
static_assert(sizeof(CoocEntry) == 12);

// The order counts are merged and stored in: by row, then column.
inline std::uint64_t cooc_key(const CoocEntry& e) { return std::uint64_t{e.row} << 32 | e.column; }

}  // namespace embed
