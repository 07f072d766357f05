// The per-batch pipeline both CUDA training backends run (word2vec's batches of
// windows, GloVe's blocks of records). Each trainer worker owns one or two slots
// (GpuMemoryPlan::slots_per_worker) and takes them in turn: taking a slot completes the
// batch it last held (wait, add its deltas to the host tables, add its loss), then the
// new batch is queued on the slot's stream: its ids to the device, for host-resident
// tables the rows it touches gathered, the model's kernels, the rows written back, the
// totals copied home. So the CPU prepares batch i + 1 while the GPU trains batch i.
//
// The kernels of all slots run one after another on one compute stream, while the
// copies of other slots overlap them: each model's kernels cap how many of its items
// train at once (word2vec_kernels.h says why), and kernels of several slots running
// side by side would multiply that number. A model whose batches are too small to fill
// its cap may ask for several compute streams (kernel lanes), each batch's kernels on
// the next, and cap each lane's kernels at its share: host placement's batches shrink
// with --gpu-memory (a few hundred words at 1/16 of the tables' bytes), and one such
// batch's kernel runs a few dozen blocks on a GPU of 132 multiprocessors.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "core/error.h"
#include "device/gpu_device.h"
#include "kernels/common/cuda_memory.h"
#include "kernels/train/batch_slot.h"
#include "kernels/train/device_tables.h"
#include "kernels/train/host_tables.h"
#include "train/engine/batch_loss.h"
#include "train/engine/row_matrix.h"
#include "train/gpu/gpu_plan.h"
#include "train/gpu/hot_rows.h"
#include "train/gpu/row_remap.h"
#include "train/gpu/table_traffic.h"
#include "train/gpu/write_back_turns.h"
#include "train/ranks/rank_averaging.h"

namespace embed::cuda {

// `Slot` derives from BatchSlot with what the model keeps per batch; `Local` is the
// model's batch in slot-local row ids (host placement, RowRemapper).
template <typename Slot, typename Local>
class BatchPipeline : public RowHome {
 public:
  struct Worker {
    std::vector<Slot> slots;
    unsigned next = 0;                    // the slot to take next
    std::optional<RowRemapper> remapper;  // host placement
    Local local;
  };

  virtual ~BatchPipeline() = default;

  // A data-parallel round (mpirun, rank_averaging.h) on rows the GPU holds: called from
  // the training loop's thread while this rank's batches train.
  // The rows past the device tables' (host placement) are the host tables' already.
  void rows_to_host(RowMatrix& table, std::size_t first, std::size_t end) override {
    select_device();
    device_tables_.rows_to_host(is_second(table), table, first, end);
  }
  void add_to_rows(const RowMatrix& table, std::size_t first, std::size_t end, std::span<const float> added) override {
    EMBED_ASSERT(added.size() >= (end - first) * table.stride());
    select_device();
    device_tables_.add_to_rows(is_second(table), added.data(), table.stride(), first, end);
  }
  void rows_from_host(const RowMatrix& table, std::size_t first, std::size_t end) override {
    select_device();
    device_tables_.rows_from_host(is_second(table), table, first, end);
  }
  // A batch's write-back may no longer store a row whole (row_versions.h): the rounds'
  // adds to it would be lost. The rounds' changes to the GPU's rows pass through a buffer
  // made now, before training (DeviceTables::reserve_transfer).
  void host_rows_shared() override {
    host_.add_every_change();
    if (first_ != nullptr) device_tables_.reserve_transfer(first_->stride());
  }

 protected:
  BatchPipeline(const GpuMemoryPlan& plan, const GpuDevice& device, TableTraffic* traffic)
      : plan_(plan), device_(device), traffic_(traffic) {}

  // A batch's row touches (table_traffic.h): all of them, and those of rows in GPU memory.
  struct RowTouches {
    std::uint64_t all = 0, resident = 0;
  };

  // The host-placement rows of the slot's batch, as packed after its ids.
  virtual BatchRows rows_of(const Slot& slot) const = 0;
  // Adds the slot's totals, copied back with it, to `loss`.
  virtual void add_loss(const Slot& slot, BatchLoss& loss) const = 0;

  bool device_placement() const { return plan_.placement == TablePlacement::device; }
  // Which of the two host tables `table` is.
  bool is_second(const RowMatrix& table) const {
    EMBED_ASSERT(&table == first_ || &table == second_);
    return &table == second_;
  }
  void select_device() const { check(cudaSetDevice(device_.ordinal), "selecting the GPU"); }

  // Before place_tables: the compute streams that run the batches' kernels, each batch's
  // on the next (1, the default: one batch's kernels at a time). The model caps each
  // kernel's windows in flight at its share of the whole.
  void set_kernel_lanes(unsigned lanes) {
    EMBED_ASSERT(lanes >= 1 && !lanes_);
    lane_count_ = lanes;
  }
  unsigned kernel_lanes() const { return lane_count_; }

  // Puts the two host tables where the plan says (copies in GPU memory, or pinned in
  // place with the rows each batch touches moved), then makes a worker per
  // plan.workers, each with plan.slots_per_worker slots of `totals_bytes` totals and,
  // for host placement, a RowRemapper. `first_name` and `second_name` name the tables
  // in messages ("the input table"). Host placement's hot rows are those `hot_rows` names
  // of each table (most_touched_rows: hot_rows.h), or without it both tables' first
  // plan.hot_rows rows.
  void place_tables(RowMatrix& first, RowMatrix& second, DType storage, const char* first_name, const char* second_name,
                    std::size_t totals_bytes, const std::optional<HotRows>& hot_rows = std::nullopt) {
    EMBED_ASSERT(!hot_rows || !device_placement());
    const HotRows hot = hot_rows.value_or(HotRows{plan_.hot_rows, {}, plan_.hot_rows});
    EMBED_ASSERT(hot.rows() <= 2 * plan_.hot_rows);  // what the plan counted
    hot_first_ = hot.inputs();
    hot_second_ = hot.output_rows;
    first_ = &first;
    second_ = &second;
    std::size_t free_before = 0, free_after = 0, total = 0;
    check(cudaMemGetInfo(&free_before, &total), "reading the GPU's free memory");
    lanes_ = std::make_unique<Lane[]>(lane_count_);
    if (device_placement()) {
      device_tables_ = DeviceTables(first, second, first.rows(), second.rows(), storage_of(storage), first_name, second_name);
    } else {
      host_ = HostTables(first, second, storage, plan_.transfer, first_name, second_name);
      if (hot.rows() > 0) {
        device_tables_ =
            DeviceTables(first, second, hot_first_, hot_second_, storage_of(storage), first_name, second_name, hot.input_buckets);
      }
    }
    // cudaMemcpy from pageable memory may return before its copy has landed, and the
    // batches run on non-blocking streams that do not wait for it.
    check(cudaDeviceSynchronize(), "copying the tables to the GPU");
    const std::size_t row_bytes = first.stride() * storage_bytes(storage_of(storage));
    workers_.resize(plan_.workers);
    for (Worker& worker : workers_) {
      if (!device_placement()) worker.remapper.emplace(first.rows(), hot);
      for (unsigned s = 0; s < plan_.slots_per_worker; ++s) {
        worker.slots.emplace_back().allocate(plan_, row_bytes, totals_bytes);
      }
    }
    // What the tables and slots took, as the device counts it (allocation granularity
    // included): the figure to compare with --gpu-memory.
    check(cudaMemGetInfo(&free_after, &total), "reading the GPU's free memory");
    if (traffic_ && free_before > free_after) traffic_->gpu_bytes = free_before - free_after;
  }

  // Where the kernels find the tables: the device copies, or for host placement the
  // hot rows' device copies and the slot's copy of the batch's other rows (the first
  // table's, then the second's).
  std::pair<SplitTable, SplitTable> kernel_tables(const Slot& slot) const {
    if (device_placement()) {
      return {{device_tables_.first(), nullptr, kAllRowsHot}, {device_tables_.second(), nullptr, kAllRowsHot}};
    }
    std::byte* rows = slot.rows.template get<std::byte>();
    std::byte* second_rows = rows + host_.second_offset(rows_of(slot));
    return {{device_tables_.first(), rows, static_cast<std::uint32_t>(hot_first_)},
            {device_tables_.second(), second_rows, static_cast<std::uint32_t>(hot_second_)}};
  }

  // Host placement: each table's hot rows (place_tables).
  std::size_t hot_rows_of(bool second) const { return second ? hot_second_ : hot_first_; }
  // The row ids the kernels see of the first table (`second` false) or the second: all
  // its rows (device placement), or its hot rows and a slot's copied rows (host
  // placement): what a per-row-id buffer such as the summed steps' sums must hold.
  std::size_t kernel_row_ids(bool second) const {
    if (device_placement()) return (second ? second_ : first_)->rows();
    return second ? hot_second_ + plan_.max_output_rows : hot_first_ + plan_.max_input_rows;
  }

  // After every worker has finished: the rows trained in GPU memory (all of them, or
  // host placement's hot rows) are copied back into the host tables; host placement
  // has added the other rows' changes there already.
  void copy_tables_home() {
    if (device_tables_.rows() == 0) return;
    select_device();
    check(cudaDeviceSynchronize(), "finishing the GPU's batches");
    device_tables_.copy_to_host(*first_, *second_);
  }

  // Waits until no slot's stream still runs: the backend's destructor calls it before
  // the host tables or the buffers its batches use go away.
  void synchronize_all() {
    for (Worker& worker : workers_) {
      for (Slot& slot : worker.slots) cudaStreamSynchronize(slot.stream.get());
    }
    for (unsigned l = 0; lanes_ && l < lane_count_; ++l) cudaStreamSynchronize(lanes_[l].stream.get());
  }

  // `worker`'s next slot, after completing the batch it last held.
  Slot& take_slot(unsigned worker_index, BatchLoss& loss) {
    select_device();
    Worker& worker = workers_[worker_index];
    Slot& slot = worker.slots[worker.next];
    worker.next = (worker.next + 1) % static_cast<unsigned>(worker.slots.size());
    complete(slot, loss);
    return slot;
  }

  // Queues the slot's batch on its stream (and counts its `touches` and bytes in the
  // run's traffic): the first `id_words` of its ids to the device and its `totals_bytes`
  // of totals cleared; for host placement its rows
  // gathered; `launch(stream)`, the model's kernels, on the compute stream once those
  // copies are done; the rows written back; the totals copied home.
  template <typename Launch>
  void queue(Slot& slot, std::size_t id_words, std::size_t totals_bytes, RowTouches touches, Launch&& launch) {
    cudaStream_t stream = slot.stream.get();
    check(cudaEventRecord(slot.started.get(), stream), "timing a batch");
    // Mapped transfers: the batch claims its rows (flagging those whose change the CPU adds)
    // before its ids go to the device, and takes its turn to queue its write-back in
    // (write_back_turns.h): what comes between holds no lock the other workers wait for.
    WriteBackTurns::Turn write_back_turn;
    if (!device_placement()) {
      host_.prefetch_claims(rows_of(slot));
      write_back_turn = host_.claim_rows(rows_of(slot));
    }
    if (traffic_) {
      std::uint64_t to_gpu = id_words * sizeof(std::uint32_t), from_gpu = totals_bytes;
      if (!device_placement()) {
        const auto [to, from] = host_.bytes_moved(rows_of(slot));
        to_gpu += to;
        from_gpu += from;
      }
      traffic_->add(touches.all, touches.resident, to_gpu, from_gpu);
    }
    check(cudaMemcpyAsync(slot.device_ids.get(), slot.host_ids.get(), id_words * sizeof(std::uint32_t), cudaMemcpyHostToDevice,
                          stream),
          "copying a batch to the GPU");
    check(cudaMemsetAsync(slot.device_totals.get(), 0, totals_bytes, stream), "clearing a batch's loss");
    if (!device_placement()) {
      const WorkerTimer copying(traffic_ ? &traffic_->row_copy_ns : nullptr);
      host_.gather(slot, rows_of(slot), stream);
    }
    check(cudaEventRecord(slot.ready.get(), stream), "ordering a batch's kernels");
    {
      // A batch's kernels are several launches where its steps are summed (summed_kernels.h:
      // runs of sum, step and clear, sharing one set of sums), so each worker queues all of
      // its batch's before another queues any: interleaved, one batch's clears would undo
      // another's sums.
      Lane& lane = lanes_[lane_count_ == 1 ? 0 : next_lane_.fetch_add(1, std::memory_order_relaxed) % lane_count_];
      const std::lock_guard<std::mutex> one_batch_at_a_time(lane.queue);
      cudaStream_t compute = lane.stream.get();
      check(cudaStreamWaitEvent(compute, slot.ready.get(), 0), "ordering a batch's kernels");
      check(cudaEventRecord(slot.computing.get(), compute), "timing a batch");
      check(std::forward<Launch>(launch)(compute), "launching the training kernel");
      check(cudaEventRecord(slot.computed.get(), compute), "ordering a batch's kernels");
    }
    check(cudaStreamWaitEvent(stream, slot.computed.get(), 0), "ordering a batch's kernels");
    if (!device_placement()) {
      // Timed as moving rows: mapped transfers may wait here for the batches that claimed
      // rows before this one to queue their write-backs.
      const WorkerTimer copying(traffic_ ? &traffic_->row_copy_ns : nullptr);
      write_back_turn.wait();
      host_.write_back(slot, rows_of(slot), stream);
      write_back_turn.pass();
    }
    check(cudaMemcpyAsync(slot.host_totals.get(), slot.device_totals.get(), totals_bytes, cudaMemcpyDeviceToHost, stream),
          "copying a batch's loss");
    check(cudaEventRecord(slot.done.get(), stream), "recording a batch's end");
    slot.pending = true;
  }

  // Completes `worker`'s batches in flight.
  void finish_worker(unsigned worker_index, BatchLoss& loss) {
    EMBED_ASSERT(worker_index < workers_.size());
    select_device();
    for (Slot& slot : workers_[worker_index].slots) complete(slot, loss);
  }

  GpuMemoryPlan plan_;
  GpuDevice device_;
  TableTraffic* traffic_;  // the run's counters, or null
  std::vector<Worker> workers_;

 private:
  RowMatrix* first_ = nullptr;
  RowMatrix* second_ = nullptr;
  // A compute stream (made on the GPU in place_tables): its batches' kernels one batch at a
  // time, queued under its lock.
  struct Lane {
    Stream stream;
    std::mutex queue;
  };
  unsigned lane_count_ = 1;
  std::unique_ptr<Lane[]> lanes_;
  std::atomic<unsigned> next_lane_{0};          // the lane of the next batch, modulo lane_count_
  DeviceTables device_tables_;                  // device placement; host placement's hot rows
  HostTables host_;                             // host placement
  std::size_t hot_first_ = 0, hot_second_ = 0;  // host placement: each table's hot rows

  // Waits for the slot's batch and adds its times on the GPU to the run's traffic; for
  // gather transfers adds its deltas to the host tables (mapped: releases its rows); adds
  // its loss.
  void complete(Slot& slot, BatchLoss& loss) {
    if (!slot.pending) return;
    slot.pending = false;
    {
      const WorkerTimer waiting(traffic_ ? &traffic_->gpu_wait_ns : nullptr);
      check(cudaEventSynchronize(slot.done.get()), "training a batch on the GPU");
    }
    if (traffic_) {
      const auto nanoseconds = [](const Event& from, const Event& to) {
        float ms = 0;
        check(cudaEventElapsedTime(&ms, from.get(), to.get()), "timing a batch on the GPU");
        return static_cast<std::uint64_t>(std::max(0.0f, ms) * 1e6f);
      };
      traffic_->add_batch(nanoseconds(slot.started, slot.ready), nanoseconds(slot.ready, slot.computing),
                          nanoseconds(slot.computing, slot.computed), nanoseconds(slot.computed, slot.done));
    }
    if (!device_placement()) {
      const WorkerTimer copying(traffic_ ? &traffic_->row_copy_ns : nullptr);
      host_.complete(slot, rows_of(slot));
    }
    add_loss(slot, loss);
  }
};

}  // namespace embed::cuda
