// How the CUDA kernels store table rows: f32, or f16/bf16 with every product still
// computed in f32. Plain C++, so that host code and launch headers share it.
#pragma once

#include <cstddef>

namespace embed::cuda {

enum class Storage { f32, f16, bf16 };

inline std::size_t storage_bytes(Storage storage) { return storage == Storage::f32 ? 4 : 2; }

}  // namespace embed::cuda
