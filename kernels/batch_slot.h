// What the CUDA training backends keep per batch in flight: a slot is a stream with
// the buffers of one batch (its ids or records, its loss, and for host-resident tables
// a copy of the rows it touches). Each trainer worker owns one or two slots
// (GpuMemoryPlan::slots_per_worker) and takes them in turn, so the CPU prepares batch
// i + 1 while the GPU trains batch i.
#pragma once

#include <cstddef>
#include <vector>

#include "cuda_memory.h"
#include "train/gpu_plan.h"

namespace embed::cuda {

struct BatchSlot {
  Stream stream;
  Event done;
  // Host placement, mapped transfers: the batch's kernels have run (the shared write-back
  // stream waits for it), and its deltas are in the host tables (the slot's stream waits).
  Event trained, written;
  PinnedBuffer host_ids;  // the batch as the kernels read it (plan.ids_words uint32 words)
  DeviceBuffer device_ids;
  PinnedBuffer host_totals;  // what the kernels add up (the loss), copied back
  DeviceBuffer device_totals;
  // Host placement: the rows the batch touches.
  DeviceBuffer rows;       // trained in place
  DeviceBuffer originals;  // mapped: the rows as gathered, for the deltas
  PinnedBuffer staged;     // gather: the rows as gathered
  PinnedBuffer updated;    // gather: the rows as trained
  bool pending = false;    // a batch is queued and not yet completed

  // Allocates the buffers `plan` sizes: rows of `row_bytes`, totals of `totals_bytes`.
  void allocate(const GpuMemoryPlan& plan, std::size_t row_bytes, std::size_t totals_bytes);
};

// A worker's slots, taken in turn.
template <typename Slot>
struct SlotRing {
  std::vector<Slot> slots;
  unsigned next = 0;

  Slot& take() {
    Slot& slot = slots[next];
    next = (next + 1) % static_cast<unsigned>(slots.size());
    return slot;
  }
};

// A worker per plan.workers, each with its ring of plan.slots_per_worker slots and, for
// host placement, a RowRemapper over `table_rows` (Worker has `ring` and `remapper`).
template <typename Worker>
std::vector<Worker> make_workers(const GpuMemoryPlan& plan, std::size_t table_rows, std::size_t row_bytes,
                                 std::size_t totals_bytes) {
  std::vector<Worker> workers(plan.workers);
  for (Worker& worker : workers) {
    if (plan.placement == TablePlacement::host) worker.remapper.emplace(table_rows);
    for (unsigned s = 0; s < plan.slots_per_worker; ++s) {
      worker.ring.slots.emplace_back().allocate(plan, row_bytes, totals_bytes);
    }
  }
  return workers;
}

// Waits until no slot's stream still runs (before buffers or host tables go away).
template <typename Worker>
void synchronize_all(std::vector<Worker>& workers) {
  for (Worker& worker : workers) {
    for (auto& slot : worker.ring.slots) cudaStreamSynchronize(slot.stream.get());
  }
}

}  // namespace embed::cuda
