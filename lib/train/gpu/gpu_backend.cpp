#include "train/gpu/gpu_backend.h"

#include <spdlog/spdlog.h>

#include "core/progress.h"

namespace embed {

void explain_placement(const GpuOptions& options, const GpuMemoryPlan& plan, std::uint64_t table_bytes, std::uint64_t budget) {
  if (plan.placement != TablePlacement::host || options.table != TablePlacement::automatic) return;
  spdlog::info("--table auto: the tables ({}) do not fit in the {} of GPU memory allowed; they stay in host memory",
               human_bytes(static_cast<double>(table_bytes)), human_bytes(static_cast<double>(budget)));
}

}  // namespace embed
