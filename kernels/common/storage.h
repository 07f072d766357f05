// How the CUDA kernels store table rows: f32, or f16/bf16 with every product still
// computed in f32. Plain C++, so that host code and launch headers share it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace embed::cuda {

enum class Storage { f32, f16, bf16 };

inline std::size_t storage_bytes(Storage storage) { return storage == Storage::f32 ? 4 : 2; }

// Where the kernels find a table's rows. Rows below `hot_rows` live in `hot` at their
// own index: the whole table (device placement) or the count-sorted vocabulary's most
// frequent rows kept on the GPU for the run (host placement). Row id hot_rows + k is the
// batch's k-th copied row, in `cold` (host placement: RowRemapper numbers them so).
struct SplitTable {
  void* hot = nullptr;
  void* cold = nullptr;
  std::uint32_t hot_rows = 0;
  // f32 rows on sm_90: the SGD kernels' adds (skip-gram's, and fastText's models') add an
  // element pair's change with one 8-byte atomic rather than two (EMBED_GPU_PAIR_ATOMICS=1,
  // for experiments: cuda_word2vec_backend.cpp).
  bool pair_atomics = false;
};
inline constexpr std::uint32_t kAllRowsHot = ~std::uint32_t{0};

}  // namespace embed::cuda
