// What a GPU run moves between host and device memory, and how often a batch finds the
// rows it touches already in GPU memory: the figures a user sizes --gpu-memory by.
// The CUDA backends add to one TableTraffic per run (GpuBackendRequest::traffic) from
// their workers' threads; the epoch log line and --metrics report the epoch's share.
//
// A row touch is one use of a row by a batch (word2vec: each input word, target and
// negative sample; GloVe: each record's word and context row). Device placement serves
// every touch from GPU memory; host placement serves its hot rows' touches there and
// copies the other rows, once per batch each.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace embed {

struct TableTraffic {
  std::atomic<std::uint64_t> row_touches{0};
  std::atomic<std::uint64_t> resident_touches{0};  // served by rows kept in GPU memory
  std::atomic<std::uint64_t> bytes_to_gpu{0};      // batches' ids, copied rows (mapped: rows read)
  std::atomic<std::uint64_t> bytes_from_gpu{0};    // trained rows (mapped: rows written), totals
  std::atomic<std::uint64_t> gpu_bytes{0};         // device memory the backend allocated (set once)

  struct Counts {
    std::uint64_t row_touches = 0, resident_touches = 0, bytes_to_gpu = 0, bytes_from_gpu = 0;
    Counts operator-(const Counts& earlier) const {
      return {row_touches - earlier.row_touches, resident_touches - earlier.resident_touches,
              bytes_to_gpu - earlier.bytes_to_gpu, bytes_from_gpu - earlier.bytes_from_gpu};
    }
  };
  Counts counts() const {
    return {row_touches.load(std::memory_order_relaxed), resident_touches.load(std::memory_order_relaxed),
            bytes_to_gpu.load(std::memory_order_relaxed), bytes_from_gpu.load(std::memory_order_relaxed)};
  }
  void add(std::uint64_t touches, std::uint64_t resident, std::uint64_t to_gpu, std::uint64_t from_gpu) {
    row_touches.fetch_add(touches, std::memory_order_relaxed);
    resident_touches.fetch_add(resident, std::memory_order_relaxed);
    bytes_to_gpu.fetch_add(to_gpu, std::memory_order_relaxed);
    bytes_from_gpu.fetch_add(from_gpu, std::memory_order_relaxed);
  }
};

// An epoch's traffic per item trained (word or record), for the log and --metrics.
struct EpochTraffic {
  double resident_share = 0;  // of row touches
  double to_gpu_per_item = 0, from_gpu_per_item = 0;  // bytes
  std::uint64_t gpu_bytes = 0;

  static EpochTraffic of(const TableTraffic::Counts& epoch, std::uint64_t items, std::uint64_t gpu_bytes);
  // "GPU: 93.1% of row touches on resident rows, 412 B/word to it, 398 B/word back, 12.3 GB of its memory"
  std::string describe(std::string_view item) const;
};

// This process's peak resident set, in bytes (getrusage).
std::uint64_t peak_rss_bytes();

}  // namespace embed
