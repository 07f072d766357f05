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
#include <chrono>
#include <cstdint>
#include <string>

namespace embed {

struct TableTraffic {
  std::atomic<std::uint64_t> row_touches{0};
  std::atomic<std::uint64_t> resident_touches{0};  // served by rows kept in GPU memory
  std::atomic<std::uint64_t> bytes_to_gpu{0};      // batches' ids, copied rows (mapped: rows read)
  std::atomic<std::uint64_t> bytes_from_gpu{0};    // trained rows (mapped: rows written), totals
  std::atomic<std::uint64_t> gpu_bytes{0};         // device memory the backend allocated (set once)
  // Where the workers' time went, in nanoseconds summed over workers: blocked until the
  // GPU had done the batch their slot last held (none: the GPU waits for the CPU), and,
  // host placement, moving rows: with gather transfers copying them into staging and
  // their changes back into the host tables, with mapped ones queuing the kernels (the
  // write-back in the batch's turn, after the batches that claimed rows before it:
  // write_back_turns.h) and adding the shared rows' changes.
  std::atomic<std::uint64_t> gpu_wait_ns{0};
  std::atomic<std::uint64_t> row_copy_ns{0};
  // Where a batch's time went on the GPU, in nanoseconds summed over its completed batches
  // (the GPU's own clock: CUDA events): from its queuing until its ids and rows were on the
  // GPU (in), until its compute stream, which runs its batches' kernels one batch at a time
  // (batch_pipeline.h), reached them (queued), its kernels (kernel), and until its rows and
  // loss were back (out). kernel_ns over the epoch's seconds is the share of it the kernels
  // kept the GPU busy.
  std::atomic<std::uint64_t> batches{0};
  std::atomic<std::uint64_t> batch_in_ns{0}, batch_queued_ns{0}, kernel_ns{0}, batch_out_ns{0};

  struct Counts {
    std::uint64_t row_touches = 0, resident_touches = 0, bytes_to_gpu = 0, bytes_from_gpu = 0;
    std::uint64_t gpu_wait_ns = 0, row_copy_ns = 0;
    std::uint64_t batches = 0, batch_in_ns = 0, batch_queued_ns = 0, kernel_ns = 0, batch_out_ns = 0;
    Counts operator-(const Counts& earlier) const {
      return {row_touches - earlier.row_touches,
              resident_touches - earlier.resident_touches,
              bytes_to_gpu - earlier.bytes_to_gpu,
              bytes_from_gpu - earlier.bytes_from_gpu,
              gpu_wait_ns - earlier.gpu_wait_ns,
              row_copy_ns - earlier.row_copy_ns,
              batches - earlier.batches,
              batch_in_ns - earlier.batch_in_ns,
              batch_queued_ns - earlier.batch_queued_ns,
              kernel_ns - earlier.kernel_ns,
              batch_out_ns - earlier.batch_out_ns};
    }
  };
  Counts counts() const {
    constexpr auto relaxed = std::memory_order_relaxed;
    return {row_touches.load(relaxed),    resident_touches.load(relaxed), bytes_to_gpu.load(relaxed),
            bytes_from_gpu.load(relaxed), gpu_wait_ns.load(relaxed),      row_copy_ns.load(relaxed),
            batches.load(relaxed),        batch_in_ns.load(relaxed),      batch_queued_ns.load(relaxed),
            kernel_ns.load(relaxed),      batch_out_ns.load(relaxed)};
  }
  // A completed batch's times on the GPU, in nanoseconds (see batch_in_ns).
  void add_batch(std::uint64_t in_ns, std::uint64_t queued_ns, std::uint64_t kernels_ns, std::uint64_t out_ns) {
    batches.fetch_add(1, std::memory_order_relaxed);
    batch_in_ns.fetch_add(in_ns, std::memory_order_relaxed);
    batch_queued_ns.fetch_add(queued_ns, std::memory_order_relaxed);
    kernel_ns.fetch_add(kernels_ns, std::memory_order_relaxed);
    batch_out_ns.fetch_add(out_ns, std::memory_order_relaxed);
  }
  void add(std::uint64_t touches, std::uint64_t resident, std::uint64_t to_gpu, std::uint64_t from_gpu) {
    row_touches.fetch_add(touches, std::memory_order_relaxed);
    resident_touches.fetch_add(resident, std::memory_order_relaxed);
    bytes_to_gpu.fetch_add(to_gpu, std::memory_order_relaxed);
    bytes_from_gpu.fetch_add(from_gpu, std::memory_order_relaxed);
  }
};

// Adds the nanoseconds from its construction to its destruction to `total` (if not null):
// a worker's time in one part of a batch's round trip.
class WorkerTimer {
 public:
  explicit WorkerTimer(std::atomic<std::uint64_t>* total)
      : total_(total), start_(total ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{}) {}
  ~WorkerTimer() {
    if (!total_) return;
    const auto elapsed = std::chrono::steady_clock::now() - start_;
    total_->fetch_add(static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count()),
                      std::memory_order_relaxed);
  }
  WorkerTimer(const WorkerTimer&) = delete;
  WorkerTimer& operator=(const WorkerTimer&) = delete;

 private:
  std::atomic<std::uint64_t>* total_;
  std::chrono::steady_clock::time_point start_;
};

// An epoch's traffic per item trained (word or record), for the log and --metrics.
struct EpochTraffic {
  double resident_share = 0;                          // of row touches
  double to_gpu_per_item = 0, from_gpu_per_item = 0;  // bytes
  std::uint64_t gpu_bytes = 0;
  // Of the workers' time (threads x the epoch's seconds): waiting for the GPU, and copying
  // rows (TableTraffic's). Much waiting: the GPU bounds the run; little: the CPU does.
  double gpu_wait_share = 0, row_copy_share = 0;
  // Of the epoch's seconds, the kernels' (TableTraffic::kernel_ns: near 1, the kernels
  // bound the run); and a batch's mean seconds on the GPU: in, queued, kernels, out.
  double kernel_share = 0;
  double batch_in_s = 0, batch_queued_s = 0, batch_kernel_s = 0, batch_out_s = 0;

  // `worker_seconds`: the workers' threads times the epoch's seconds (`epoch_seconds`).
  static EpochTraffic of(const TableTraffic::Counts& epoch, std::uint64_t items, std::uint64_t gpu_bytes,
                         double worker_seconds = 0, double epoch_seconds = 0);
  // "GPU: 93.1% of row touches on resident rows, 412 B/word to it, 398 B/word back, 12.3 GB
  // of its memory; workers waited for it 41% of their time, copied rows 12%; kernels busy
  // 63% of the epoch; a batch 0.21 ms in, 1.40 ms queued, 0.36 ms in kernels, 0.18 ms out"
  // (the copies' share where rows were copied; the batches' times where they were timed)
  std::string describe(std::string_view item) const;
};

// This process's peak resident set, in bytes (getrusage).
std::uint64_t peak_rss_bytes();

}  // namespace embed
