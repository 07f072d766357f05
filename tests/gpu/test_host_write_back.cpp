// GPU test of host placement's write-back (kernels/train/host_tables.h), part of gpu_train_tests:
// slots on several threads gather the same rows, "train" them (every element + 1 exactly)
// and write the deltas back at once, many times over. With small integers every float
// sum is exact, so the host tables must end at exactly the number of write-backs; a
// write-back that overlapped another on one element would lose an add.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "kernels/common/cuda_memory.h"
#include "kernels/train/batch_slot.h"
#include "kernels/train/host_tables.h"

using namespace embed;
using namespace embed::cuda;

namespace {

constexpr std::uint32_t kRows = 2000;  // every slot touches all of them, in both tables
constexpr std::size_t kDim = 100;
constexpr unsigned kThreads = 4;
constexpr unsigned kRounds = 200;

// One thread's slot: gathers, sets the copy to original + 1, writes back, kRounds times.
// Leaves the error in `error` (Catch2's assertions are for the main thread).
void write_back_rounds(int device, const HostTables& tables, HostTransfer transfer, const GpuMemoryPlan& plan,
                       std::size_t row_bytes, const DeviceBuffer& ones, std::string& error) try {
  const CurrentDevice current(device);
  BatchSlot slot;
  slot.allocate(plan, row_bytes, sizeof(double));
  auto* ids = slot.host_ids.get<std::uint32_t>();
  for (std::uint32_t r = 0; r < kRows; ++r) ids[r] = ids[kRows + r] = r;
  const auto* device_ids = slot.device_ids.get<std::uint32_t>();
  const BatchRows rows{{ids, kRows}, {ids + kRows, kRows}, device_ids, device_ids + kRows};
  const std::size_t bytes = 2 * kRows * row_bytes;
  cudaStream_t stream = slot.stream.get();
  check(cudaMemcpyAsync(slot.device_ids.get(), ids, 2 * kRows * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream),
        "copying the rows");
  for (unsigned round = 0; round < kRounds; ++round) {
    tables.gather(slot, rows, stream);
    // The trained copy: every element 1 more than the original (which is set to 0).
    check(cudaMemcpyAsync(slot.rows.get(), ones.get(), bytes, cudaMemcpyDeviceToDevice, stream), "training");
    if (transfer == HostTransfer::mapped) check(cudaMemsetAsync(slot.originals.get(), 0, bytes, stream), "training");
    tables.write_back(slot, rows, stream);
    check(cudaStreamSynchronize(stream), "writing back");
    if (transfer == HostTransfer::gather) {
      std::fill_n(slot.staged.get<float>(), bytes / sizeof(float), 0.0f);
      tables.add_deltas(slot, rows);
    }
  }
} catch (const std::exception& e) {
  error = e.what();
}

}  // namespace

TEST_CASE("batches in flight on several slots write back every delta exactly", "[gpu]") {
  int device = 0;  // the one run_gpu_tests found and made current
  check(cudaGetDevice(&device), "finding the GPU");
  for (HostTransfer transfer : {HostTransfer::gather, HostTransfer::mapped}) {
    INFO("host transfer " << host_transfer_name(transfer));
    RowMatrix first(kRows, kDim), second(kRows, kDim);
    const std::size_t row_bytes = first.stride() * sizeof(float);
    GpuMemoryPlan plan;
    plan.placement = TablePlacement::host;
    plan.transfer = transfer;
    plan.slots_per_worker = 1;
    plan.max_input_rows = plan.max_output_rows = kRows;
    plan.ids_words = 2 * kRows;
    DeviceBuffer ones(2 * kRows * row_bytes, "the trained rows");
    const std::vector<float> host_ones(2 * kRows * first.stride(), 1.0f);
    check(cudaMemcpy(ones.get(), host_ones.data(), host_ones.size() * sizeof(float), cudaMemcpyHostToDevice),
          "filling the trained rows");
    check(cudaDeviceSynchronize(), "filling the trained rows");
    {
      const HostTables tables(first, second, DType::f32, transfer, "the first table", "the second table");
      std::vector<std::thread> threads;
      std::vector<std::string> errors(kThreads);
      for (unsigned t = 0; t < kThreads; ++t) {
        threads.emplace_back(write_back_rounds, device, std::cref(tables), transfer, std::cref(plan), row_bytes, std::cref(ones),
                             std::ref(errors[t]));
      }
      for (std::thread& thread : threads) thread.join();
      for (const std::string& error : errors) CHECK(error == "");
      check(cudaDeviceSynchronize(), "writing back");
    }  // unpinned here
    std::size_t wrong = 0, padding = 0;
    for (const RowMatrix* table : {&first, &second}) {
      for (std::uint32_t r = 0; r < kRows; ++r) {
        for (std::size_t e = 0; e < kDim; ++e) wrong += table->row(r)[e] != static_cast<float>(kThreads * kRounds);
        for (std::size_t e = kDim; e < table->stride(); ++e) padding += table->row(r)[e] != 0.0f;
      }
    }
    CHECK(wrong == 0);
    CHECK(padding == 0);
  }
}
