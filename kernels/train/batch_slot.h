// What the CUDA training backends keep per batch in flight: a slot is a stream with
// the buffers of one batch (its ids or records, its loss, and for host-resident tables
// a copy of the rows it touches). Each trainer worker owns one or two slots
// (GpuMemoryPlan::slots_per_worker) and takes them in turn, so the CPU prepares batch
// i + 1 while the GPU trains batch i.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/common/cuda_memory.h"
#include "train/gpu/gpu_plan.h"

namespace embed::cuda {

struct BatchSlot {
  Stream stream;
  // The batch's events, timed (TableTraffic's batch times): queued, on the GPU (the
  // compute stream waits for `ready`), its kernels begun and done (the slot's stream waits
  // for `computed`), and all of it, its rows and loss back, done.
  Event started{true}, ready{true}, computing{true}, computed{true}, done{true};
  // Host placement, mapped transfers: the batch's kernels have run (the shared write-back
  // stream waits for it), and its rows are written back (the slot's stream waits).
  Event trained, written;
  PinnedBuffer host_ids;  // the batch as the kernels read it (plan.ids_words uint32 words)
  DeviceBuffer device_ids;
  PinnedBuffer host_totals;  // what the kernels add up (the loss), copied back
  DeviceBuffer device_totals;
  // Host placement: the rows the batch touches.
  DeviceBuffer rows;     // trained in place
  PinnedBuffer staged;   // the rows as gathered (mapped: only those whose change the CPU adds)
  PinnedBuffer updated;  // the rows as trained (mapped: likewise)
  // gather: each row's write count as its gather began (row_versions.h), in the order of
  // the copy
  std::vector<std::uint16_t> seen;
  bool pending = false;  // a batch is queued and not yet completed

  // Allocates the buffers `plan` sizes: rows of `row_bytes`, totals of `totals_bytes`.
  void allocate(const GpuMemoryPlan& plan, std::size_t row_bytes, std::size_t totals_bytes);
};

}  // namespace embed::cuda
