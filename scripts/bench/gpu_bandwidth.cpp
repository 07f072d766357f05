// bench-gpu-bandwidth: the first GPU's measured copy rates, for scripts/bench/gpu.sh's
// roofline. Prints "device_GBps X", "h2d_GBps Y", "d2h_GBps Z"; exits 77 without a
// usable GPU.
//
// --rows adds host placement's row moves at big_table's shape (a batch's 4,000 random rows
// of a 1,000,000-row table, dim 300): for f16 and f32 rows, a batch's rows copied from a
// pinned staging buffer as gather transfers move them, and the mapped transfers' kernels
// (kernels/common/row_movers.h) gathering them through the mapped table, storing them
// whole, staging them for the CPU's add, and a gather beside a store on two streams (the
// gather also at 32 and 512 blocks beside the kernels' cap of 128):
// "mapped_gather_f16_GBps X" and so on, bytes of rows per second (each way, for the
// duplex), one batch after another. Which bounds host placement, the bus or the kernels'
// round trips, is what these say.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "core/error.h"
#include "kernels/common/cuda_memory.h"
#include "kernels/common/device_info.h"
#include "kernels/common/row_movers.h"

namespace {

using embed::cuda::check;

struct Bandwidth {
  double device_gbps = 0;          // device-to-device copy: bytes read plus bytes written, per second
  double host_to_device_gbps = 0;  // from pinned host memory
  double device_to_host_gbps = 0;  // to pinned host memory
};

// Best seconds of `runs` timed copies.
double best_seconds(void* to, const void* from, std::size_t bytes, cudaMemcpyKind kind, int runs) {
  const embed::cuda::Event start_event(true), stop_event(true);
  cudaEvent_t start = start_event.get(), stop = stop_event.get();
  double best = 1e30;
  for (int i = 0; i < runs; ++i) {
    check(cudaEventRecord(start), "timing a copy");
    check(cudaMemcpyAsync(to, from, bytes, kind), "timing a copy");
    check(cudaEventRecord(stop), "timing a copy");
    check(cudaEventSynchronize(stop), "timing a copy");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "timing a copy");
    best = std::min(best, static_cast<double>(ms) / 1e3);
  }
  return best;
}

// Times copies of `bytes` (best of several); throws embed::Error on a CUDA failure.
Bandwidth measure_bandwidth(std::size_t bytes) {
  embed::cuda::DeviceBuffer a(bytes, "the bandwidth test"), b(bytes, "the bandwidth test");
  embed::cuda::PinnedBuffer host(bytes, "the bandwidth test");
  check(cudaMemset(a.get(), 1, bytes), "filling the bandwidth test");
  Bandwidth result;
  const double gb = static_cast<double>(bytes) / 1e9;
  result.device_gbps = 2 * gb / best_seconds(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, 10);
  result.host_to_device_gbps = gb / best_seconds(a.get(), host.get(), bytes, cudaMemcpyHostToDevice, 5);
  result.device_to_host_gbps = gb / best_seconds(host.get(), a.get(), bytes, cudaMemcpyDeviceToHost, 5);
  return result;
}

// Seconds per run of `queue` (which queues one batch's work on `stream`), over `runs`
// runs back to back after one to warm up.
template <typename Queue>
double seconds_per_run(cudaStream_t stream, int runs, Queue&& queue) {
  const embed::cuda::Event start_event(true), stop_event(true);
  queue();
  check(cudaStreamSynchronize(stream), "timing row moves");
  check(cudaEventRecord(start_event.get(), stream), "timing row moves");
  for (int i = 0; i < runs; ++i) queue();
  check(cudaEventRecord(stop_event.get(), stream), "timing row moves");
  check(cudaEventSynchronize(stop_event.get()), "timing row moves");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start_event.get(), stop_event.get()), "timing row moves");
  return static_cast<double>(ms) / 1e3 / runs;
}

// Prints the row figures for rows of `element_bytes` (2: f16, 4: f32).
void measure_row_moves(std::size_t element_bytes) {
  using namespace embed::cuda;
  constexpr std::size_t kTableRows = 1000000, kDim = 300, kStride = 304, kBatchRows = 4000;
  constexpr int kRuns = 50;
  const std::size_t row_bytes = kStride * element_bytes, table_bytes = kTableRows * row_bytes;
  const char* name = element_bytes == 2 ? "f16" : "f32";
  // The table, page-aligned as RowMatrix's, pinned and mapped (a row's padding stays zero).
  const std::unique_ptr<void, decltype(&std::free)> table(std::aligned_alloc(4096, table_bytes), &std::free);
  if (!table) throw embed::Error("bench-gpu-bandwidth: no memory for the row table");
  std::memset(table.get(), 0, table_bytes);
  const HostRegistration pinned(table.get(), table_bytes, "the row table");
  const MappedTable mapped{pinned.device_pointer(), element_bytes == 2, static_cast<std::uint32_t>(kStride)};
  const Storage storage = element_bytes == 2 ? Storage::f16 : Storage::f32;

  std::vector<std::uint32_t> ids(kTableRows);
  std::iota(ids.begin(), ids.end(), 0u);
  std::shuffle(ids.begin(), ids.end(), std::mt19937(7));
  ids.resize(kBatchRows);
  std::vector<std::uint32_t> flagged_ids = ids;
  for (std::uint32_t& id : flagged_ids) id |= kRowAddsChange;
  DeviceBuffer whole_ids(kBatchRows * sizeof(std::uint32_t), "the row ids"),
      flagged_ids_on_device(kBatchRows * sizeof(std::uint32_t), "the row ids");
  check(cudaMemcpy(whole_ids.get(), ids.data(), kBatchRows * sizeof(std::uint32_t), cudaMemcpyHostToDevice), "copying ids");
  check(cudaMemcpy(flagged_ids_on_device.get(), flagged_ids.data(), kBatchRows * sizeof(std::uint32_t), cudaMemcpyHostToDevice),
        "copying ids");
  const std::size_t batch_bytes = kBatchRows * row_bytes;
  DeviceBuffer rows(batch_bytes, "a batch's rows"), more_rows(batch_bytes, "a batch's rows");
  // Host staging, which the kernels write through unified addressing (as a slot's).
  PinnedBuffer staged(batch_bytes, "a batch's staged rows");
  check(cudaMemset(rows.get(), 0, batch_bytes), "clearing the rows");
  check(cudaMemset(more_rows.get(), 0, batch_bytes), "clearing the rows");
  std::memset(staged.get(), 0, batch_bytes);
  const Stream stream, other_stream;
  cudaStream_t s = stream.get();
  const auto* whole = whole_ids.get<std::uint32_t>();
  const auto* flagged = flagged_ids_on_device.get<std::uint32_t>();

  const double gb = static_cast<double>(batch_bytes) / 1e9;
  auto report = [&](const char* what, double seconds) {
    std::printf("%s_%s_GBps %.1f\n", what, name, gb / seconds);
    std::fflush(stdout);
  };
  report("staged_h2d", seconds_per_run(s, kRuns, [&] {
           check(cudaMemcpyAsync(rows.get(), staged.get(), batch_bytes, cudaMemcpyHostToDevice, s), "copying rows");
         }));
  report("staged_d2h", seconds_per_run(s, kRuns, [&] {
           check(cudaMemcpyAsync(staged.get(), rows.get(), batch_bytes, cudaMemcpyDeviceToHost, s), "copying rows");
         }));
  // A batch's rows read through the mapping (none kept for an add), at the kernels' cap
  // of blocks (128) and beside it: whether the cap leaves the bus idle.
  report("mapped_gather", seconds_per_run(s, kRuns, [&] {
           check(launch_gather_mapped(mapped, whole, kBatchRows, rows.get(), staged.get(), storage, s), "gathering rows");
         }));
  for (const unsigned blocks : {32u, 512u}) {
    const std::string what = "mapped_gather_" + std::to_string(blocks) + "_blocks";
    report(what.c_str(), seconds_per_run(s, kRuns, [&] {
             check(launch_gather_mapped(mapped, whole, kBatchRows, rows.get(), staged.get(), storage, s, blocks),
                   "gathering rows");
           }));
  }
  // Stored whole into the table, and staged for the CPU's add.
  report("mapped_store", seconds_per_run(s, kRuns, [&] {
           check(launch_write_back_mapped(mapped, kDim, whole, kBatchRows, rows.get(), staged.get(), storage, s), "storing rows");
         }));
  report("mapped_stage", seconds_per_run(s, kRuns, [&] {
           check(launch_write_back_mapped(mapped, kDim, flagged, kBatchRows, rows.get(), staged.get(), storage, s),
                 "staging rows");
         }));
  // One batch's gather beside another's store, as a slot's stream and the write-back
  // stream run them: GB/s each way, if the bus carries both at once.
  cudaStream_t o = other_stream.get();
  const embed::cuda::Event other_done;
  report("mapped_duplex", seconds_per_run(s, kRuns, [&] {
           check(launch_gather_mapped(mapped, whole, kBatchRows, rows.get(), staged.get(), storage, s), "gathering rows");
           check(launch_write_back_mapped(mapped, kDim, whole, kBatchRows, more_rows.get(), staged.get(), storage, o),
                 "storing rows");
           check(cudaEventRecord(other_done.get(), o), "timing row moves");
           check(cudaStreamWaitEvent(s, other_done.get(), 0), "timing row moves");
         }));
}

}  // namespace

int main(int argc, char** argv) {
  const bool row_moves = argc > 1 && std::string(argv[1]) == "--rows";
  if (argc > 2 || (argc == 2 && !row_moves)) {
    std::fprintf(stderr, "usage: bench-gpu-bandwidth [--rows]\n");
    return 2;
  }
  std::string why;
  if (embed::cuda::list_devices(&why).empty()) {
    std::fprintf(stderr, "bench-gpu-bandwidth: no usable GPU (%s)\n", why.c_str());
    return 77;
  }
  try {
    const Bandwidth b = measure_bandwidth(std::size_t{1} << 30);
    std::printf("device_GBps %.1f\nh2d_GBps %.1f\nd2h_GBps %.1f\n", b.device_gbps, b.host_to_device_gbps, b.device_to_host_gbps);
    if (row_moves) {
      for (const std::size_t element_bytes : {2, 4}) measure_row_moves(element_bytes);
    }
  } catch (const embed::Error& e) {
    std::fprintf(stderr, "bench-gpu-bandwidth: %s\n", e.what());
    return 1;
  }
  return 0;
}
