// How many batches' word2vec kernels run at once (kernel lanes: batch_pipeline.h), and
// the windows in flight that gives. Plain C++, so that the unit tests check it on every
// build.
//
// Why it is worth a file: a batch's kernel runs at most one block per run of max inputs + 1
// windows (window_common.cuh's blocks_for), about 963 for a 20,000-word batch of skip-gram
// at window 5 after subsampling, whatever EMBED_GPU_WINDOWS allows. Asking for 4,096
// windows in flight with one lane gave about 963 (issue 71): only lanes reach more.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string_view>

namespace embed::cuda {

// Blocks a full batch's kernel runs at most: one per run of max_inputs + 1 of its at most
// `batch_words` windows.
inline std::size_t full_batch_blocks(std::size_t batch_words, std::size_t max_inputs_per_window) {
  return std::max<std::size_t>(1, batch_words / (max_inputs_per_window + 1));
}

// The lanes EMBED_GPU_KERNEL_LANES asks for (`chosen`; null when unset): 1 unset; "auto",
// as many as the windows in flight allow full batches' kernels, at most 8; N, from 1 to
// 16. Never more than `max_blocks` (the windows in flight), which each lane must get one of.
inline unsigned kernel_lanes_from(const char* chosen, unsigned max_blocks, std::size_t batch_blocks) {
  if (chosen == nullptr) return 1;
  const unsigned asked = std::string_view(chosen) == "auto"
                             ? static_cast<unsigned>(std::clamp<std::size_t>(max_blocks / std::max<std::size_t>(1, batch_blocks), 1, 8))
                             : static_cast<unsigned>(std::clamp(std::atoi(chosen), 1, 16));
  return std::max(1u, std::min(asked, max_blocks));
}

// A lane's kernel's cap on blocks: its share of the windows in flight.
inline unsigned lane_blocks(unsigned max_blocks, unsigned lanes) { return std::max(1u, max_blocks / std::max(1u, lanes)); }

// The windows that can train at once: each lane's cap, or a full batch's blocks where
// fewer, times the lanes.
inline std::size_t windows_in_flight(unsigned max_blocks, unsigned lanes, std::size_t batch_blocks) {
  return std::size_t{lanes} * std::min<std::size_t>(lane_blocks(max_blocks, lanes), batch_blocks);
}

}  // namespace embed::cuda
