#include "kernels/train/batch_slot.h"

namespace embed::cuda {

void BatchSlot::allocate(const GpuMemoryPlan& plan, std::size_t row_bytes, std::size_t totals_bytes) {
  const std::size_t ids_bytes = plan.ids_words * sizeof(std::uint32_t);
  host_ids = PinnedBuffer(ids_bytes, "a batch's ids");
  device_ids = DeviceBuffer(ids_bytes, "a batch's ids");
  host_totals = PinnedBuffer(totals_bytes, "a batch's loss");
  device_totals = DeviceBuffer(totals_bytes, "a batch's loss");
  if (plan.placement == TablePlacement::device) return;
  const std::size_t rows_bytes = (plan.max_input_rows + plan.max_output_rows) * row_bytes;
  rows = DeviceBuffer(rows_bytes, "a batch's rows");
  // Mapped transfers' kernels write into these through unified addressing (every pinned
  // allocation is mapped at the same address on the device).
  staged = PinnedBuffer(rows_bytes, "a batch's rows");
  updated = PinnedBuffer(rows_bytes, "a batch's trained rows");
  if (plan.transfer == HostTransfer::gather) seen.resize(plan.max_input_rows + plan.max_output_rows);
}

}  // namespace embed::cuda
