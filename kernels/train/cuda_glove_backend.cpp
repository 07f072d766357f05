// The CUDA GloVe backend: the shared per-batch pipeline (batch_pipeline.h) carrying
// blocks of co-occurrence records to the GloVe kernel, so the CPU stages block i+1
// while the GPU trains block i.
//
// The records always stream from host memory: the worker copies its block into the
// slot's pinned buffer and the copy to the device is asynchronous. Device placement
// keeps W and W̃ (vectors, biases, optimizer state: GloveLayout rows, f32) in GPU
// memory for the whole run; host placement pins them and moves only the rows a block
// touches (RowRemapper, host_tables.h), adding the changes back as deltas, by CPU threads (gather)
// or by a kernel through the mapped tables (mapped). Adam's family trains in summed steps
// (summed_kernels.h), with a sum per row id the kernel sees, kept here.
#include "kernels/train/cuda_glove_backend.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "core/progress.h"
#include "kernels/common/cuda_memory.h"
#include "kernels/train/batch_pipeline.h"
#include "kernels/train/glove_kernels.h"
#include "kernels/train/host_tables.h"
#include "kernels/train/row_sums_buffers.h"
#include "kernels/train/summed_kernels.h"
#include "train/gpu/row_remap.h"

namespace embed::cuda {
namespace {

static_assert(sizeof(KernelGloveRecord) == sizeof(GloveRecord));

// What a block's kernels add up, copied back with it.
struct BlockTotals {
  double loss;
  unsigned long long trained;
};

struct Slot : BatchSlot {
  // The ids hold the records, then (host placement) the word rows and context rows.
  std::uint32_t records = 0, word_rows = 0, context_rows = 0;
};

constexpr std::size_t kRecordWords = sizeof(GloveRecord) / sizeof(std::uint32_t);

class CudaGloveBackend final : public GloveBackend, BatchPipeline<Slot, LocalGloveBlock> {
 public:
  explicit CudaGloveBackend(const GloveGpuRequest& request)
      : BatchPipeline(request.plan, request.device, request.traffic),
        words_(*request.words),
        contexts_(*request.contexts),
        layout_(request.layout),
        rule_(kernel_rule_of(layout_.optimizer, layout_.params, layout_.hyper)),
        summed_records_(request.summed_records) {
    // The kernels index rows by `width`: the host tables must not pad beyond it.
    EMBED_ASSERT(words_.stride() == layout_.width && contexts_.stride() == layout_.width);
    select_device();
    place_tables(words_, contexts_, DType::f32, "the word table W", "the context table W̃", sizeof(BlockTotals));
    if (summed_records_ > 0) {
      word_sums_.allocate(kernel_row_ids(false), layout_.params, "the word rows' gradient sums");
      context_sums_.allocate(kernel_row_ids(true), layout_.params, "the context rows' gradient sums");
    }
  }

  // Nothing may still write to the host tables or the buffers being freed.
  ~CudaGloveBackend() override { synchronize_all(); }

  std::string name() const override {
    const std::string where = device_placement() ? "tables in GPU memory" : host_placement_description(plan_);
    const std::string at_once = summed_records_ > 0 ? fmt::format("steps summed over {} records", summed_records_)
                                                    : fmt::format("{} records at a time", max_in_flight_);
    return fmt::format("cuda ({}; {}, blocks of {} records; {} of GPU memory planned; {})", device_.description(), where,
                       plan_.batch_items, human_bytes(static_cast<double>(plan_.total_bytes())), at_once);
  }

  std::size_t max_block_records() const override { return plan_.batch_items; }

  void train(std::span<const GloveRecord> records, unsigned worker_index, float learning_rate, BatchLoss& loss) override {
    EMBED_ASSERT(worker_index < workers_.size() && records.size() <= plan_.batch_items);
    Slot& slot = take_slot(worker_index, loss);
    if (records.empty()) return;

    Worker& worker = workers_[worker_index];
    auto* ids = slot.host_ids.get<std::uint32_t>();
    slot.records = static_cast<std::uint32_t>(records.size());
    slot.word_rows = slot.context_rows = 0;
    RowTouches touches;
    touches.all = touches.resident = 2 * records.size();  // a record's word row and context row
    if (device_placement()) {
      std::memcpy(ids, records.data(), records.size_bytes());
    } else {
      touches.resident = worker.remapper->remap(records, worker.local);
      const LocalGloveBlock& local = worker.local;
      slot.word_rows = static_cast<std::uint32_t>(local.word_rows.size());
      slot.context_rows = static_cast<std::uint32_t>(local.context_rows.size());
      std::memcpy(ids, local.records.data(), records.size_bytes());
      std::copy(local.word_rows.begin(), local.word_rows.end(), ids + word_rows_at(slot));
      std::copy(local.context_rows.begin(), local.context_rows.end(), ids + context_rows_at(slot));
    }

    const auto [words, contexts] = kernel_tables(slot);
    const GloveTables tables{words, contexts, static_cast<std::uint32_t>(layout_.width), static_cast<std::uint32_t>(layout_.dim),
                             static_cast<std::uint32_t>(layout_.state())};
    const auto* device_records = reinterpret_cast<const KernelGloveRecord*>(slot.device_ids.get<std::uint32_t>());
    auto* totals = slot.device_totals.get<BlockTotals>();
    const std::size_t id_words = std::size_t{slot.records} * kRecordWords + slot.word_rows + slot.context_rows;
    queue(slot, id_words, sizeof(BlockTotals), touches, [&](cudaStream_t stream) {
      if (summed_records_ > 0) {
        return launch_glove_summed_steps(device_records, slot.records, tables, rule_, learning_rate, word_sums_.kernel,
                                         context_sums_.kernel, static_cast<std::uint32_t>(summed_records_), &totals->loss,
                                         &totals->trained, stream);
      }
      return launch_glove(device_records, slot.records, tables, rule_, learning_rate, &totals->loss, &totals->trained,
                          max_in_flight_, stream);
    });
  }

  void finish(unsigned worker_index, BatchLoss& loss) override { finish_worker(worker_index, loss); }
  void copy_tables_to_host() override { copy_tables_home(); }
  RowHome* row_home() override { return this; }

 private:
  static std::size_t word_rows_at(const Slot& slot) { return std::size_t{slot.records} * kRecordWords; }
  static std::size_t context_rows_at(const Slot& slot) { return word_rows_at(slot) + slot.word_rows; }

  // Host placement: the block's unique rows, as staged after its records.
  BatchRows rows_of(const Slot& slot) const override {
    auto* host = slot.host_ids.get<std::uint32_t>();
    const auto* device = slot.device_ids.get<std::uint32_t>();
    return {{host + word_rows_at(slot), slot.word_rows},
            {host + context_rows_at(slot), slot.context_rows},
            device + word_rows_at(slot),
            device + context_rows_at(slot)};
  }

  void add_loss(const Slot& slot, BatchLoss& loss) const override {
    const BlockTotals& totals = *slot.host_totals.get<BlockTotals>();
    loss.sum += totals.loss;
    loss.examples += totals.trained;
  }

  RowMatrix& words_;
  RowMatrix& contexts_;
  GloveLayout layout_;
  KernelRuleSpec rule_;
  std::size_t summed_records_;               // 0: every record steps its rows
  RowSumsBuffers word_sums_, context_sums_;  // with summed_records_
  // Records trained at once: half the vocabulary's size (a record touches two rows),
  // at least a block's worth, and the whole GPU's worth (32,768) from 65,536 words up.
  unsigned max_in_flight_ = static_cast<unsigned>(std::clamp<std::size_t>(words_.rows() / 2, 32, 32768));
};

}  // namespace

std::unique_ptr<GloveBackend> make_cuda_glove_backend(const GloveGpuRequest& request) {
  return std::make_unique<CudaGloveBackend>(request);
}

}  // namespace embed::cuda
