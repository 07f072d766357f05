// The CUDA backend. Each trainer worker owns one or two slots (plan.slots_per_worker);
// a slot is a stream with the buffers of one batch in flight. train() takes the
// worker's least recently used slot, completes the batch it last held, and queues the
// new one: upload the packed ids, train, and for host-resident tables move the rows.
// So the CPU plans and gathers batch i+1 while the GPU trains batch i.
//
// Device placement trains the device copy of both tables in place; host placement
// trains a slot-local copy of the rows the batch touches (RowRemapper) and adds the
// changes back to the pinned host tables as deltas, either by CPU threads from pinned
// staging buffers (gather) or by a kernel through the mapped table (mapped): host_tables.h.
#include "cuda_train_backend.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "core/progress.h"
#include "batch_slot.h"
#include "cuda_memory.h"
#include "host_tables.h"
#include "device_info.h"
#include "train/logistic_table.h"
#include "train/packed_batch.h"
#include "train/row_remap.h"
#include "w2v_kernels.h"

namespace embed::cuda {
namespace {

struct Slot : BatchSlot {
  PackedBatchShape shape;
  std::uint64_t examples = 0;
};

struct Worker {
  SlotRing<Slot> ring;
  std::optional<RowRemapper> remapper;  // host placement
  LocalBatch local;
};

class CudaTrainBackend final : public TrainBackend {
 public:
  explicit CudaTrainBackend(const GpuBackendRequest& request)
      : model_(request.model),
        input_(*request.input),
        output_(*request.output),
        shape_(request.shape),
        plan_(request.plan),
        device_(request.device),
        storage_(storage_of(request.shape.storage)),
        row_bytes_(request.shape.stride * storage_bytes(storage_)) {
    EMBED_ASSERT(input_.stride() == shape_.stride && output_.stride() == shape_.stride);
    check(cudaSetDevice(device_.ordinal), "selecting the GPU");
    check_shared_memory();
    const LogisticTable& table = logistic_table();
    const std::size_t entries = LogisticTable::kSteps + 1;
    sigmoid_ = DeviceBuffer(entries * sizeof(float), "the sigmoid table");
    loss_table_ = DeviceBuffer(entries * sizeof(float), "the loss table");
    check(cudaMemcpy(sigmoid_.get(), table.sigmoid_values(), entries * sizeof(float), cudaMemcpyHostToDevice),
          "copying the sigmoid table");
    check(cudaMemcpy(loss_table_.get(), table.loss_values(), entries * sizeof(float), cudaMemcpyHostToDevice),
          "copying the loss table");
    logistic_ = {sigmoid_.get<float>(), loss_table_.get<float>(), LogisticTable::kRange, LogisticTable::kSteps};

    if (device_placement()) {
      const std::size_t table_bytes = shape_.rows * row_bytes_;
      device_input_ = DeviceBuffer(table_bytes, "the input table");
      device_output_ = DeviceBuffer(table_bytes, "the output table");
      upload(input_, device_input_);
      upload(output_, device_output_);
    } else {
      host_ = HostTables(input_, output_, shape_.storage, plan_.transfer, "the input table", "the output table");
    }
    // cudaMemcpy from pageable memory may return before its copy has landed, and the
    // batches run on non-blocking streams that do not wait for it.
    check(cudaDeviceSynchronize(), "copying the tables to the GPU");

    workers_ = make_workers<Worker>(plan_, shape_.rows, row_bytes_, sizeof(double));
  }

  // Nothing may still write to the host tables or the buffers being freed.
  ~CudaTrainBackend() override { synchronize_all(workers_); }

  std::string name() const override {
    const std::string where = device_placement()
                                  ? "tables in GPU memory"
                                  : fmt::format("tables in pinned host memory, {} transfers, batches of {} words",
                                                host_transfer_name(plan_.transfer), plan_.batch_words);
    return fmt::format("cuda ({}; {}, {}; {} of GPU memory planned)", device_.description, where,
                       vector_dtype_name(shape_.storage), human_bytes(static_cast<double>(plan_.total_bytes())));
  }

  std::size_t max_batch_words() const override { return plan_.batch_words; }

  void train(const WindowBatch& batch, unsigned worker_index, BatchLoss& loss) override {
    EMBED_ASSERT(worker_index < workers_.size());
    check(cudaSetDevice(device_.ordinal), "selecting the GPU");
    Worker& worker = workers_[worker_index];
    Slot& slot = worker.ring.take();
    complete(slot, loss);
    if (batch.windows() == 0) return;
    EMBED_ASSERT(batch.negatives_per_window == shape_.negatives);

    const WindowBatch* to_train = &batch;
    if (!device_placement()) {
      worker.remapper->remap(batch, worker.local);
      to_train = &worker.local.batch;
    }
    const std::size_t words = packed_words_bound(to_train->windows(), shape_.max_inputs_per_window, shape_.negatives,
                                                 worker.local.input_rows.size() + worker.local.output_rows.size());
    EMBED_ASSERT(words <= plan_.ids_words);
    slot.shape = pack_batch(*to_train, worker.local.input_rows, worker.local.output_rows, slot.host_ids.get<std::uint32_t>());
    cudaStream_t stream = slot.stream.get();
    auto* ids = slot.device_ids.get<std::uint32_t>();
    check(cudaMemcpyAsync(ids, slot.host_ids.get(), slot.shape.words() * sizeof(std::uint32_t), cudaMemcpyHostToDevice,
                          stream),
          "copying a batch to the GPU");
    check(cudaMemsetAsync(slot.device_totals.get(), 0, sizeof(double), stream), "clearing the batch loss");

    KernelTables tables{device_input_.get(), device_output_.get(), static_cast<std::uint32_t>(shape_.stride),
                        static_cast<std::uint32_t>(shape_.dim), storage_};
    if (!device_placement()) {
      const BatchRows rows = rows_of(slot);
      tables.input = slot.rows.get<std::byte>();
      tables.output = slot.rows.get<std::byte>() + host_.second_offset(rows);
      host_.gather(slot, rows, stream);
    }

    const KernelBatch kernel_batch{ids + slot.shape.targets_at(),
                                   ids + slot.shape.offsets_at(),
                                   ids + slot.shape.inputs_at(),
                                   ids + slot.shape.negatives_at(),
                                   slot.shape.windows,
                                   slot.shape.negatives_per_window,
                                   static_cast<std::uint32_t>(shape_.max_inputs_per_window)};
    auto* device_loss = slot.device_totals.get<double>();
    check(model_ == Model::skipgram
              ? launch_skipgram(kernel_batch, tables, logistic_, batch.learning_rate, device_loss, stream)
              : launch_cbow(kernel_batch, tables, logistic_, batch.learning_rate, device_loss, stream),
          "launching the training kernel");

    if (!device_placement()) host_.write_back(slot, rows_of(slot), stream);
    check(cudaMemcpyAsync(slot.host_totals.get(), device_loss, sizeof(double), cudaMemcpyDeviceToHost, stream),
          "copying the batch loss");
    check(cudaEventRecord(slot.done.get(), stream), "recording a batch's end");
    slot.pending = true;
    slot.examples = model_ == Model::skipgram ? batch.inputs.size() : batch.windows();
  }

  void finish(unsigned worker_index, BatchLoss& loss) override {
    EMBED_ASSERT(worker_index < workers_.size());
    check(cudaSetDevice(device_.ordinal), "selecting the GPU");
    for (Slot& slot : workers_[worker_index].ring.slots) complete(slot, loss);
  }

  void copy_tables_to_host() override {
    if (!device_placement()) return;  // the host tables are the tables
    check(cudaSetDevice(device_.ordinal), "selecting the GPU");
    check(cudaDeviceSynchronize(), "finishing the GPU's batches");
    download(device_input_, input_);
    download(device_output_, output_);
  }

 private:
  bool device_placement() const { return plan_.placement == TablePlacement::device; }

  // Host placement: the batch's unique rows, as packed into the slot's ids.
  static BatchRows rows_of(const Slot& slot) {
    const auto* host = slot.host_ids.get<std::uint32_t>();
    const auto* device = slot.device_ids.get<std::uint32_t>();
    const PackedBatchShape& shape = slot.shape;
    return {{host + shape.input_rows_at(), shape.input_rows},
            {host + shape.output_rows_at(), shape.output_rows},
            device + shape.input_rows_at(),
            device + shape.output_rows_at()};
  }

  // A window's rows live in shared memory: refuse shapes that cannot fit, and let the
  // kernels use more than the default 48 KB where they need it.
  void check_shared_memory() {
    int limit = 0;
    check(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_.ordinal),
          "reading the GPU's shared memory size");
    const auto stride = static_cast<std::uint32_t>(shape_.stride);
    const std::size_t needed = model_ == Model::skipgram
                                   ? skipgram_shared_bytes(static_cast<std::uint32_t>(shape_.max_inputs_per_window),
                                                           static_cast<std::uint32_t>(shape_.negatives), stride)
                                   : cbow_shared_bytes(stride);
    if (needed + kStaticSharedBytes > static_cast<std::size_t>(limit)) {
      fail("--window {} with --negative {} at --dim {} needs {} of GPU shared memory per window, more than the {} "
           "this GPU has; use a smaller --window or --dim, or --device cpu",
           shape_.max_inputs_per_window / 2, shape_.negatives, shape_.dim, human_bytes(static_cast<double>(needed)),
           human_bytes(limit));
    }
    check(allow_shared_memory(needed), "raising the kernels' shared memory limit");
  }

  // Waits for the slot's batch; for gather transfers adds its deltas to the host
  // tables; adds its loss.
  void complete(Slot& slot, BatchLoss& loss) {
    if (!slot.pending) return;
    slot.pending = false;
    check(cudaEventSynchronize(slot.done.get()), "training a batch on the GPU");
    if (!device_placement()) host_.add_deltas(slot, rows_of(slot));
    loss.sum += *slot.host_totals.get<double>();
    loss.examples += slot.examples;
  }

  // Host f32 rows to the device's storage type and back. f32 copies whole; f16 and
  // bf16 convert on the device, through a bounded f32 buffer a chunk of rows at a time.
  void upload(const RowMatrix& host, DeviceBuffer& device) {
    if (storage_ == Storage::f32) {
      check(cudaMemcpy(device.get(), host.data(), host.span().size_bytes(), cudaMemcpyHostToDevice),
            "copying a table to the GPU");
      return;
    }
    in_chunks(host, [&](std::size_t first, std::size_t count, float* buffer) {
      check(cudaMemcpy(buffer, host.row(first), count * sizeof(float), cudaMemcpyHostToDevice),
            "copying a table to the GPU");
      // The legacy default stream (nullptr) runs after the copy above.
      check(launch_to_storage(buffer, device.get<std::byte>() + first * row_bytes_, count, storage_, nullptr),
            "launching a table conversion");
      check(cudaDeviceSynchronize(), "converting a table on the GPU");
    });
  }

  void download(const DeviceBuffer& device, RowMatrix& host) {
    if (storage_ == Storage::f32) {
      check(cudaMemcpy(host.data(), device.get(), host.span().size_bytes(), cudaMemcpyDeviceToHost),
            "copying a table from the GPU");
      return;
    }
    in_chunks(host, [&](std::size_t first, std::size_t count, float* buffer) {
      check(launch_to_f32(device.get<std::byte>() + first * row_bytes_, buffer, count, storage_, nullptr),
            "launching a table conversion");
      check(cudaMemcpy(host.row(first), buffer, count * sizeof(float), cudaMemcpyDeviceToHost),
            "copying a table from the GPU");
    });
  }

  // Calls step(first row, elements, f32 device buffer) over `host`'s rows in chunks of
  // at most kTransferBufferBytes (the plan's fixed_bytes counts that buffer).
  template <typename Step>
  void in_chunks(const RowMatrix& host, Step step) {
    const std::size_t stride = host.stride();
    const std::size_t chunk_rows = std::max<std::size_t>(1, kTransferBufferBytes / (stride * sizeof(float)));
    DeviceBuffer buffer(std::min(chunk_rows, host.rows()) * stride * sizeof(float), "converting a table");
    for (std::size_t first = 0; first < host.rows(); first += chunk_rows) {
      step(first, std::min(chunk_rows, host.rows() - first) * stride, buffer.get<float>());
    }
  }

  Model model_;
  RowMatrix& input_;
  RowMatrix& output_;
  GpuTrainShape shape_;
  GpuMemoryPlan plan_;
  GpuDevice device_;
  Storage storage_;
  std::size_t row_bytes_;  // bytes of one row in the storage type
  DeviceBuffer sigmoid_, loss_table_;
  KernelLogistic logistic_{};
  DeviceBuffer device_input_, device_output_;      // device placement
  HostTables host_;                                 // host placement
  std::vector<Worker> workers_;
};

}  // namespace

std::optional<GpuDevice> find_training_device(std::string& why_not) {
  const std::optional<SelectedDevice> device = select_first_device(why_not);
  if (!device) return std::nullopt;
  return GpuDevice{device->info.ordinal, device->info.description(), device->free_memory};
}

std::unique_ptr<TrainBackend> make_cuda_train_backend(const GpuBackendRequest& request) {
  return std::make_unique<CudaTrainBackend>(request);
}

}  // namespace embed::cuda
