// The CUDA GloVe backend. As the word2vec backend (cuda_train_backend.cpp), each
// trainer worker owns one or two slots, a slot being a stream with the buffers of one
// block of records in flight: train() completes the slot's last block and queues the
// new one, so the CPU stages block i+1 while the GPU trains block i.
//
// The records always stream from host memory: the worker copies its block into the
// slot's pinned buffer and the copy to the device is asynchronous. Device placement
// keeps W and W̃ (vectors, biases, optimizer state: GloveLayout rows, f32) in GPU
// memory for the whole run; host placement pins them and moves only the rows a block
// touches (RowRemapper, host_tables.h), adding the changes back as deltas, by CPU threads (gather)
// or by a kernel through the mapped tables (mapped).
#include "cuda_glove_backend.h"

#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "core/progress.h"
#include "batch_slot.h"
#include "cuda_memory.h"
#include "host_tables.h"
#include "glove_kernels.h"
#include "train/row_remap.h"

namespace embed::cuda {
namespace {

static_assert(sizeof(KernelGloveRecord) == sizeof(GloveRecord));

// What a block's kernels add up, copied back with it.
struct BlockTotals {
  double loss;
  unsigned long long trained;
};

GloveRule rule_of(Optimizer optimizer, AdagradMode adagrad) {
  EMBED_ASSERT(supports_glove_on_gpu(optimizer));
  if (optimizer == Optimizer::sgd) return GloveRule::sgd;
  return adagrad == AdagradMode::element ? GloveRule::adagrad_element : GloveRule::adagrad_row;
}

struct Slot : BatchSlot {
  // The ids hold the records, then (host placement) the word rows and context rows.
  std::uint32_t records = 0, word_rows = 0, context_rows = 0;
};

struct Worker {
  SlotRing<Slot> ring;
  std::optional<RowRemapper> remapper;  // host placement
  LocalGloveBlock local;
};

constexpr std::size_t kRecordWords = sizeof(GloveRecord) / sizeof(std::uint32_t);

class CudaGloveBackend final : public GloveBackend {
 public:
  explicit CudaGloveBackend(const GloveGpuRequest& request)
      : words_(*request.words),
        contexts_(*request.contexts),
        layout_(request.layout),
        rule_(rule_of(request.optimizer, request.adagrad)),
        plan_(request.plan),
        device_(request.device),
        row_bytes_(layout_.width * sizeof(float)) {
    // The kernels index rows by `width`: the host tables must not pad beyond it.
    EMBED_ASSERT(words_.stride() == layout_.width && contexts_.stride() == layout_.width);
    check(cudaSetDevice(device_.ordinal), "selecting the GPU");
    const std::size_t table_bytes = words_.rows() * row_bytes_;
    if (device_placement()) {
      device_words_ = DeviceBuffer(table_bytes, "the word table W");
      device_contexts_ = DeviceBuffer(table_bytes, "the context table W̃");
      check(cudaMemcpy(device_words_.get(), words_.data(), table_bytes, cudaMemcpyHostToDevice), "copying W to the GPU");
      check(cudaMemcpy(device_contexts_.get(), contexts_.data(), table_bytes, cudaMemcpyHostToDevice),
            "copying W̃ to the GPU");
    } else {
      host_ = HostTables(words_, contexts_, DType::f32, plan_.transfer, "the word table W", "the context table W̃");
    }
    // cudaMemcpy from pageable memory may return before its copy has landed, and the
    // blocks run on non-blocking streams that do not wait for it.
    check(cudaDeviceSynchronize(), "copying the tables to the GPU");
    workers_ = make_workers<Worker>(plan_, words_.rows(), row_bytes_, sizeof(BlockTotals));
  }

  // Nothing may still write to the host tables or the buffers being freed.
  ~CudaGloveBackend() override { synchronize_all(workers_); }

  std::string name() const override {
    const std::string where = device_placement()
                                  ? "tables in GPU memory"
                                  : fmt::format("tables in pinned host memory, {} transfers", host_transfer_name(plan_.transfer));
    return fmt::format("cuda ({}; {}, blocks of {} records; {} of GPU memory planned)", device_.description, where,
                       plan_.batch_words, human_bytes(static_cast<double>(plan_.total_bytes())));
  }

  std::size_t max_block_records() const override { return plan_.batch_words; }

  void train(std::span<const GloveRecord> records, unsigned worker_index, float learning_rate, BatchLoss& loss) override {
    EMBED_ASSERT(worker_index < workers_.size() && records.size() <= plan_.batch_words);
    check(cudaSetDevice(device_.ordinal), "selecting the GPU");
    Worker& worker = workers_[worker_index];
    Slot& slot = worker.ring.take();
    complete(slot, loss);
    if (records.empty()) return;

    auto* ids = slot.host_ids.get<std::uint32_t>();
    slot.records = static_cast<std::uint32_t>(records.size());
    slot.word_rows = slot.context_rows = 0;
    if (device_placement()) {
      std::memcpy(ids, records.data(), records.size_bytes());
    } else {
      worker.remapper->remap(records, worker.local);
      const LocalGloveBlock& local = worker.local;
      slot.word_rows = static_cast<std::uint32_t>(local.word_rows.size());
      slot.context_rows = static_cast<std::uint32_t>(local.context_rows.size());
      std::memcpy(ids, local.records.data(), records.size_bytes());
      std::copy(local.word_rows.begin(), local.word_rows.end(), ids + word_rows_at(slot));
      std::copy(local.context_rows.begin(), local.context_rows.end(), ids + context_rows_at(slot));
    }
    cudaStream_t stream = slot.stream.get();
    auto* device_ids = slot.device_ids.get<std::uint32_t>();
    const std::size_t id_words = std::size_t{slot.records} * kRecordWords + slot.word_rows + slot.context_rows;
    check(cudaMemcpyAsync(device_ids, ids, id_words * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream),
          "copying records to the GPU");
    check(cudaMemsetAsync(slot.device_totals.get(), 0, sizeof(BlockTotals), stream), "clearing a block's loss");

    GloveTables tables{device_words_.get<float>(), device_contexts_.get<float>(), static_cast<std::uint32_t>(layout_.width),
                       static_cast<std::uint32_t>(layout_.dim), static_cast<std::uint32_t>(layout_.state())};
    if (!device_placement()) {
      const BatchRows rows = rows_of(slot);
      tables.words = slot.rows.get<float>();
      tables.contexts = reinterpret_cast<float*>(slot.rows.get<std::byte>() + host_.second_offset(rows));
      host_.gather(slot, rows, stream);
    }

    auto* totals = slot.device_totals.get<BlockTotals>();
    check(launch_glove(reinterpret_cast<const KernelGloveRecord*>(device_ids), slot.records, tables, rule_,
                       learning_rate, &totals->loss, &totals->trained, stream),
          "launching the GloVe kernel");

    if (!device_placement()) host_.write_back(slot, rows_of(slot), stream);
    check(cudaMemcpyAsync(slot.host_totals.get(), totals, sizeof(BlockTotals), cudaMemcpyDeviceToHost, stream),
          "copying a block's loss");
    check(cudaEventRecord(slot.done.get(), stream), "recording a block's end");
    slot.pending = true;
  }

  void finish(unsigned worker_index, BatchLoss& loss) override {
    EMBED_ASSERT(worker_index < workers_.size());
    check(cudaSetDevice(device_.ordinal), "selecting the GPU");
    for (Slot& slot : workers_[worker_index].ring.slots) complete(slot, loss);
  }

  void copy_tables_to_host() override {
    if (!device_placement()) return;  // the host tables are the tables
    check(cudaSetDevice(device_.ordinal), "selecting the GPU");
    check(cudaDeviceSynchronize(), "finishing the GPU's blocks");
    const std::size_t table_bytes = words_.rows() * row_bytes_;
    check(cudaMemcpy(words_.data(), device_words_.get(), table_bytes, cudaMemcpyDeviceToHost), "copying W from the GPU");
    check(cudaMemcpy(contexts_.data(), device_contexts_.get(), table_bytes, cudaMemcpyDeviceToHost),
          "copying W̃ from the GPU");
  }

 private:
  bool device_placement() const { return plan_.placement == TablePlacement::device; }
  static std::size_t word_rows_at(const Slot& slot) { return std::size_t{slot.records} * kRecordWords; }
  static std::size_t context_rows_at(const Slot& slot) { return word_rows_at(slot) + slot.word_rows; }

  // Host placement: the block's unique rows, as staged after its records.
  static BatchRows rows_of(const Slot& slot) {
    const auto* host = slot.host_ids.get<std::uint32_t>();
    const auto* device = slot.device_ids.get<std::uint32_t>();
    return {{host + word_rows_at(slot), slot.word_rows},
            {host + context_rows_at(slot), slot.context_rows},
            device + word_rows_at(slot),
            device + context_rows_at(slot)};
  }

  // Waits for the slot's block; for gather transfers adds its deltas to the host
  // tables; adds its loss.
  void complete(Slot& slot, BatchLoss& loss) {
    if (!slot.pending) return;
    slot.pending = false;
    check(cudaEventSynchronize(slot.done.get()), "training a block of records on the GPU");
    if (!device_placement()) host_.add_deltas(slot, rows_of(slot));
    const BlockTotals& totals = *slot.host_totals.get<BlockTotals>();
    loss.sum += totals.loss;
    loss.examples += totals.trained;
  }

  RowMatrix& words_;
  RowMatrix& contexts_;
  GloveLayout layout_;
  GloveRule rule_;
  GpuMemoryPlan plan_;
  GpuDevice device_;
  std::size_t row_bytes_;
  DeviceBuffer device_words_, device_contexts_;        // device placement
  HostTables host_;                                    // host placement
  std::vector<Worker> workers_;
};

}  // namespace

std::unique_ptr<GloveBackend> make_cuda_glove_backend(const GloveGpuRequest& request) {
  return std::make_unique<CudaGloveBackend>(request);
}

}  // namespace embed::cuda
