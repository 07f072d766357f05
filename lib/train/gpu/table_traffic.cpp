#include "train/gpu/table_traffic.h"

#include <sys/resource.h>

#include <fmt/format.h>

#include "core/progress.h"

namespace embed {

EpochTraffic EpochTraffic::of(const TableTraffic::Counts& epoch, std::uint64_t items, std::uint64_t gpu_bytes) {
  EpochTraffic t;
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
  return fmt::format("GPU: {:.1f}% of row touches on resident rows, {:.0f} B/{} to it, {:.0f} B/{} back, {} of its memory",
                     100 * resident_share, to_gpu_per_item, one, from_gpu_per_item, one,
                     human_bytes(static_cast<double>(gpu_bytes)));
}

std::uint64_t peak_rss_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports kilobytes
}

}  // namespace embed
