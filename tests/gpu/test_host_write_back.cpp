// GPU test of host placement's write-back (kernels/train/host_tables.h), part of gpu_train_tests:
// slots on several threads gather the same rows, train them (every element + 1 exactly)
// and write them back at once, many times over, as BatchPipeline::queue and complete take
// a batch through it. With small integers every float sum is exact (f16's too, up to
// 2,048), so the host tables must end at exactly the number of write-backs: two adds to
// one element at once, or a row stored whole over another batch's change (mapped
// transfers: rows_in_flight.h), would lose one.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/half.h"
#include "kernels/common/cuda_memory.h"
#include "kernels/common/row_movers.h"
#include "kernels/train/batch_slot.h"
#include "kernels/train/host_tables.h"

using namespace embed;
using namespace embed::cuda;

namespace {

constexpr std::uint32_t kRows = 2000;  // every slot touches all of them, in both tables
constexpr std::size_t kDim = 100;
constexpr unsigned kRounds = 200;

// Each row's first kDim elements 1, the padding 0, for `count` rows.
std::vector<float> ones_for(std::size_t count, std::size_t stride) {
  std::vector<float> ones(count * stride, 0.0f);
  for (std::size_t k = 0; k < count; ++k) std::fill_n(ones.begin() + static_cast<std::ptrdiff_t>(k * stride), kDim, 1.0f);
  return ones;
}

// One thread's slot: claims, gathers, adds 1 to the copy, writes back and completes,
// kRounds times. Leaves the error in `error` (Catch2's assertions are for the main thread).
void write_back_rounds(int device, const HostTables& tables, const GpuMemoryPlan& plan, std::size_t row_bytes, std::size_t stride,
                       Storage storage, const DeviceBuffer& ones, std::string& error) try {
  const CurrentDevice current(device);
  BatchSlot slot;
  slot.allocate(plan, row_bytes, sizeof(double));
  auto* ids = slot.host_ids.get<std::uint32_t>();
  const auto* device_ids = slot.device_ids.get<std::uint32_t>();
  const BatchRows rows{{ids, kRows}, {ids + kRows, kRows}, device_ids, device_ids + kRows};
  cudaStream_t stream = slot.stream.get();
  for (unsigned round = 0; round < kRounds; ++round) {
    for (std::uint32_t r = 0; r < kRows; ++r) ids[r] = ids[kRows + r] = r;
    {
      // As BatchPipeline::queue: the claims and the turn, then everything up to the
      // write-back with no lock held, then the write-back queued in the batch's turn.
      WriteBackTurns::Turn turn = tables.claim_rows(rows);
      check(cudaMemcpyAsync(slot.device_ids.get(), ids, 2 * kRows * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream),
            "copying the rows");
      tables.gather(slot, rows, stream);
      check(launch_add_f32(ones.get<float>(), slot.rows.get(), 2 * kRows * stride, storage, stream), "training");
      turn.wait();
      tables.write_back(slot, rows, stream);
      turn.pass();
    }
    check(cudaStreamSynchronize(stream), "writing back");
    tables.complete(slot, rows);
  }
} catch (const std::exception& e) {
  error = e.what();
}

float value_at(const RowMatrix& table, std::uint32_t r, std::size_t e) {
  if (!table.half()) return table.row(r)[e];
  std::uint16_t bits = 0;
  std::memcpy(&bits, table.row_bytes_at(r) + e * sizeof bits, sizeof bits);
  return f16_to_f32(bits);
}

struct Case {
  HostTransfer transfer;
  DType host;  // the host tables' element type; the slot's copies are the same
  unsigned threads;
};

}  // namespace

TEST_CASE("batches in flight on several slots write back every change exactly", "[gpu]") {
  int device = 0;  // the one run_gpu_tests found and made current
  check(cudaGetDevice(&device), "finding the GPU");
  for (const Case c : {Case{HostTransfer::gather, DType::f32, 4}, Case{HostTransfer::gather, DType::f16, 4},
                       Case{HostTransfer::mapped, DType::f32, 4}, Case{HostTransfer::mapped, DType::f16, 4},
                       Case{HostTransfer::mapped, DType::f16, 1}}) {
    INFO("host transfer " << host_transfer_name(c.transfer) << ", " << (c.host == DType::f16 ? "f16" : "f32") << " host tables, "
                          << c.threads << " threads");
    RowMatrix first(kRows, kDim, c.host), second(kRows, kDim, c.host);
    const std::size_t stride = first.stride();
    const std::size_t row_bytes = first.row_bytes();  // the slot's copies as the host holds them
    GpuMemoryPlan plan;
    plan.placement = TablePlacement::host;
    plan.transfer = c.transfer;
    plan.slots_per_worker = 1;
    plan.max_input_rows = plan.max_output_rows = kRows;
    plan.ids_words = 2 * kRows;
    const std::vector<float> host_ones = ones_for(2 * kRows, stride);
    DeviceBuffer ones(host_ones.size() * sizeof(float), "the training");
    check(cudaMemcpy(ones.get(), host_ones.data(), host_ones.size() * sizeof(float), cudaMemcpyHostToDevice), "filling the ones");
    const Storage storage = c.host == DType::f16 ? Storage::f16 : Storage::f32;
    {
      const HostTables tables(first, second, c.host, c.transfer, "the first table", "the second table");
      std::vector<std::thread> threads;
      std::vector<std::string> errors(c.threads);
      for (unsigned t = 0; t < c.threads; ++t) {
        threads.emplace_back(write_back_rounds, device, std::cref(tables), std::cref(plan), row_bytes, stride, storage,
                             std::cref(ones), std::ref(errors[t]));
      }
      for (std::thread& thread : threads) thread.join();
      for (const std::string& error : errors) CHECK(error == "");
      check(cudaDeviceSynchronize(), "writing back");
    }  // unpinned here
    std::size_t wrong = 0, padding = 0;
    for (const RowMatrix* table : {&first, &second}) {
      for (std::uint32_t r = 0; r < kRows; ++r) {
        for (std::size_t e = 0; e < kDim; ++e) wrong += value_at(*table, r, e) != static_cast<float>(c.threads * kRounds);
        for (std::size_t e = kDim; e < stride; ++e) padding += value_at(*table, r, e) != 0.0f;
      }
    }
    CHECK(wrong == 0);
    CHECK(padding == 0);
  }
}

// Claims `rows` and lets the batch's turn pass at once (these batches queue nothing).
void claim(const HostTables& tables, const BatchRows& rows) {
  WriteBackTurns::Turn turn = tables.claim_rows(rows);
  turn.wait();
  turn.pass();
}

TEST_CASE("mapped write-backs store a row whole only where no other batch in flight holds it", "[gpu]") {
  RowMatrix first(8, kDim), second(8, kDim);
  HostTables tables(first, second, DType::f32, HostTransfer::mapped, "the first table", "the second table");
  std::vector<std::uint32_t> a{1, 2, 3, 4}, b{3, 4, 5, 6};
  const BatchRows batch_a{{a.data(), 2}, {a.data() + 2, 2}, nullptr, nullptr};  // first 1, 2; second 3, 4
  const BatchRows batch_b{{b.data(), 2}, {b.data() + 2, 2}, nullptr, nullptr};  // first 3, 4; second 5, 6
  claim(tables, batch_a);
  CHECK(a == std::vector<std::uint32_t>{1, 2, 3, 4});  // nobody else holds them: stored whole
  // b's first-table rows 3 and 4 are not a's (a holds the second table's 3 and 4).
  claim(tables, batch_b);
  CHECK(b == std::vector<std::uint32_t>{3, 4, 5, 6});
  std::vector<std::uint32_t> c{2, 1, 4, 6};
  const BatchRows batch_c{{c.data(), 2}, {c.data() + 2, 2}, nullptr, nullptr};  // first 2, 1; second 4, 6
  claim(tables, batch_c);
  CHECK(c == std::vector<std::uint32_t>{2 | kRowAddsChange, 1 | kRowAddsChange, 4 | kRowAddsChange, 6 | kRowAddsChange});
  // The bus bytes: c reads its four rows, and stages each twice (as gathered, as trained)
  // for the CPU's add.
  const auto [to_gpu, from_gpu] = tables.bytes_moved(batch_c);
  CHECK(to_gpu == 4 * first.row_bytes());
  CHECK(from_gpu == 8 * first.row_bytes());
  const auto [a_to, a_from] = tables.bytes_moved(batch_a);  // stored whole
  CHECK(a_to == 4 * first.row_bytes());
  CHECK(a_from == 4 * first.row_bytes());
  // Completing adds the flagged rows' staged changes (none here: both copies zero).
  GpuMemoryPlan plan;
  plan.placement = TablePlacement::host;
  plan.transfer = HostTransfer::mapped;
  plan.max_input_rows = plan.max_output_rows = 2;
  plan.ids_words = 4;
  BatchSlot slot;
  slot.allocate(plan, first.row_bytes(), sizeof(double));
  std::memset(slot.staged.get(), 0, 4 * first.row_bytes());
  std::memset(slot.updated.get(), 0, 4 * first.row_bytes());
  tables.complete(slot, batch_a);
  tables.complete(slot, batch_b);
  tables.complete(slot, batch_c);
  std::vector<std::uint32_t> d{1, 2, 4, 6};
  const BatchRows batch_d{{d.data(), 2}, {d.data() + 2, 2}, nullptr, nullptr};
  claim(tables, batch_d);
  CHECK(d == std::vector<std::uint32_t>{1, 2, 4, 6});  // all released: whole again
  tables.complete(slot, batch_d);
  // mpirun's rounds add to the host rows too: from then on every row's change is added.
  tables.add_every_change();
  claim(tables, batch_d);
  CHECK(d == std::vector<std::uint32_t>{1 | kRowAddsChange, 2 | kRowAddsChange, 4 | kRowAddsChange, 6 | kRowAddsChange});
}
