#include "train/gpu/table_traffic.h"

#include <sys/resource.h>

#include <algorithm>

#include <fmt/format.h>

#include "core/progress.h"

namespace embed {

EpochTraffic EpochTraffic::of(const TableTraffic::Counts& epoch, std::uint64_t items, std::uint64_t gpu_bytes,
                              double worker_seconds, double epoch_seconds) {
  EpochTraffic t;
  if (worker_seconds > 0) {
    t.gpu_wait_share = std::min(1.0, static_cast<double>(epoch.gpu_wait_ns) * 1e-9 / worker_seconds);
    t.row_copy_share = std::min(1.0, static_cast<double>(epoch.row_copy_ns) * 1e-9 / worker_seconds);
  }
  // A batch completed in the epoch may have been queued in the last, and kernel lanes
  // (batch_pipeline.h) overlap their batches' kernels: the share is capped.
  if (epoch_seconds > 0) t.kernel_share = std::min(1.0, static_cast<double>(epoch.kernel_ns) * 1e-9 / epoch_seconds);
  if (epoch.batches > 0) {
    const double per_batch = 1e-9 / static_cast<double>(epoch.batches);
    t.batch_in_s = static_cast<double>(epoch.batch_in_ns) * per_batch;
    t.batch_queued_s = static_cast<double>(epoch.batch_queued_ns) * per_batch;
    t.batch_kernel_s = static_cast<double>(epoch.kernel_ns) * per_batch;
    t.batch_out_s = static_cast<double>(epoch.batch_out_ns) * per_batch;
  }
  t.resident_share = epoch.row_touches ? static_cast<double>(epoch.resident_touches) / double(epoch.row_touches) : 0;
  if (items) {
    t.to_gpu_per_item = static_cast<double>(epoch.bytes_to_gpu) / static_cast<double>(items);
    t.from_gpu_per_item = static_cast<double>(epoch.bytes_from_gpu) / static_cast<double>(items);
  }
  t.gpu_bytes = gpu_bytes;
  return t;
}

std::string EpochTraffic::describe(std::string_view item) const {
  // "word" from "words": per item reads better singular.
  const std::string_view one = item.ends_with('s') ? item.substr(0, item.size() - 1) : item;
  std::string text = fmt::format(
      "GPU: {:.1f}% of row touches on resident rows, {:.0f} B/{} to it, {:.0f} B/{} back, {} of its memory", 100 * resident_share,
      to_gpu_per_item, one, from_gpu_per_item, one, human_bytes(static_cast<double>(gpu_bytes)));
  text += fmt::format("; workers waited for it {:.0f}% of their time", 100 * gpu_wait_share);
  if (row_copy_share > 0) text += fmt::format(", copied rows {:.0f}%", 100 * row_copy_share);
  if (batch_kernel_s > 0) {
    text += fmt::format(
        "; kernels busy {:.0f}% of the epoch; a batch {:.2f} ms in, {:.2f} ms queued, {:.2f} ms in kernels, {:.2f} ms out",
        100 * kernel_share, 1e3 * batch_in_s, 1e3 * batch_queued_s, 1e3 * batch_kernel_s, 1e3 * batch_out_s);
  }
  return text;
}

std::uint64_t peak_rss_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports kilobytes
}

}  // namespace embed
