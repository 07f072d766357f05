// The CUDA word2vec backend: the shared per-batch pipeline (batch_pipeline.h) carrying
// packed batches of windows (train/gpu/packed_batch.h) to the skip-gram and CBOW kernels,
// or with --subwords to fastText's (subword_kernels.h), whose word-to-rows lists it keeps
// in GPU memory.
//
// Device placement trains the device copy of both tables in place; host placement
// trains a slot-local copy of the rows the batch touches (RowRemapper) and adds the
// changes back to the pinned host tables as deltas, either by CPU threads from pinned
// staging buffers (gather) or by a kernel through the mapped table (mapped): host_tables.h.
// A rule whose state is not a sum (Adam's family and the like) trains in summed steps
// (summed_kernels.h), with a sum per row id the kernels see, kept here.
#include "kernels/train/cuda_word2vec_backend.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/progress.h"
#include "kernels/common/cuda_memory.h"
#include "kernels/common/row_movers.h"
#include "kernels/train/batch_pipeline.h"
#include "kernels/train/host_tables.h"
#include "kernels/train/kernel_clocks.h"
#include "kernels/train/kernel_lanes.h"
#include "kernels/train/row_sums_buffers.h"
#include "kernels/train/subword_kernels.h"
#include "kernels/train/summed_kernels.h"
#include "kernels/train/word2vec_kernels.h"
#include "train/gpu/packed_batch.h"
#include "train/gpu/row_remap.h"
#include "train/word2vec/logistic_table.h"

namespace embed::cuda {
namespace {

struct Slot : BatchSlot {
  PackedBatchShape shape;
  std::uint64_t examples = 0;
};

class CudaWord2vecBackend final : public Word2vecBackend, BatchPipeline<Slot, LocalBatch> {
 public:
  explicit CudaWord2vecBackend(const GpuBackendRequest& request)
      : BatchPipeline(request.plan, request.device, request.traffic),
        model_(request.model),
        input_(*request.input),
        output_(*request.output),
        shape_(request.shape),
        storage_(storage_of(request.shape.storage)),
        rule_(kernel_rule_of(request.optimizer, padded_, request.hyper)),
        pair_atomics_(pair_atomics_chosen(request.subwords != nullptr)),
        most_touched_(request.hot_rows.has_value()),
        hot_buckets_(request.hot_rows ? request.hot_rows->input_buckets.size() : 0) {
    // Rows of the vector padded to `padded`, then the optimizer's state (Word2vecLayout),
    // which needs f32 rows.
    EMBED_ASSERT(input_.stride() == shape_.stride && output_.stride() == shape_.stride);
    EMBED_ASSERT(padded_ == shape_.stride || storage_ == Storage::f32);
    EMBED_ASSERT(shape_.negatives + 1 <= kMaxWindowOutputs);
    // A rule whose state is written in place trains in summed steps (summed_steps.h).
    EMBED_ASSERT(!rule_.in_place || summed_windows_ > 0);
    select_device();
    check_shared_memory(request.subwords != nullptr);
    const LogisticTable& table = logistic_table();
    const std::size_t entries = LogisticTable::kSteps + 1;
    sigmoid_ = DeviceBuffer(entries * sizeof(float), "the sigmoid table");
    loss_table_ = DeviceBuffer(entries * sizeof(float), "the loss table");
    check(cudaMemcpy(sigmoid_.get(), table.sigmoid_values(), entries * sizeof(float), cudaMemcpyHostToDevice),
          "copying the sigmoid table");
    check(cudaMemcpy(loss_table_.get(), table.loss_values(), entries * sizeof(float), cudaMemcpyHostToDevice),
          "copying the loss table");
    logistic_ = {sigmoid_.get<float>(), loss_table_.get<float>(), LogisticTable::kRange, LogisticTable::kSteps};
    if (request.subwords) use_subwords(*request.subwords);

    set_kernel_lanes(kernel_lanes_chosen());
    place_tables(input_, output_, shape_.storage, "the input table", "the output table", sizeof(double), request.hot_rows);
    if (summed_windows_ > 0) allocate_row_sums();
    if (clocks_chosen()) {
      kernel_clocks_ = DeviceBuffer(kClockSlots * sizeof(std::uint64_t), "the kernels' clocks");
      check(cudaMemset(kernel_clocks_.get(), 0, kClockSlots * sizeof(std::uint64_t)), "clearing the kernels' clocks");
    }
  }

  // Nothing may still write to the host tables or the buffers being freed.
  ~CudaWord2vecBackend() override {
    synchronize_all();
    log_kernel_clocks();
  }

  std::string name() const override {
    // Each table's own hot rows, when they were chosen by touches (hot_rows.h).
    const std::string host = !most_touched_
                                 ? host_placement_description(plan_)
                                 : host_placement_description(plan_, hot_rows_of(false), hot_buckets_, hot_rows_of(true));
    const std::string where =
        device_placement() ? "tables in GPU memory" : fmt::format("{}, batches of {} words", host, plan_.batch_items);
    const bool by_warp = sgd_skipgram() && skipgram_kernel_ == SkipgramKernel::warp;
    const bool by_rows = rows_kernel();
    const std::string at_once =
        summed_windows_ > 0 ? fmt::format("steps summed over {} windows", summed_windows_)
                            : fmt::format("{} windows at a time{}, {} each{}",
                                          windows_in_flight(max_blocks_, kernel_lanes(), batch_blocks()),
                                          kernel_lanes() > 1 ? fmt::format(" in {} batches' kernels", kernel_lanes()) : "",
                                          by_warp ? "a warp" : "a block", by_rows ? ", a warp per output row" : "");
    return fmt::format("cuda ({}; {}, {}{}{}; {} of GPU memory planned; {})", device_.description(), where,
                       vector_dtype_name(shape_.storage), subwords_ ? ", subwords" : "",
                       pair_atomics_ ? ", element pairs added by one atomic" : "",
                       human_bytes(static_cast<double>(plan_.total_bytes())), at_once);
  }

  std::size_t max_batch_words() const override { return plan_.batch_items; }

  void train(const WindowBatch& batch, unsigned worker_index, BatchLoss& loss) override {
    EMBED_ASSERT(worker_index < workers_.size());
    if (batch.windows() == 0) {
      take_slot(worker_index, loss);
      return;
    }
    EMBED_ASSERT(batch.negatives_per_window == shape_.negatives);
    if (device_placement()) {
      train_windows(batch, 0, batch.windows(), worker_index, loss);
      return;
    }
    // Host placement: in parts when the batch copies more rows (or lists more) than a slot holds.
    RowRemapper& remapper = *workers_[worker_index].remapper;
    for (std::size_t first = 0; first < batch.windows();) {
      const std::size_t end =
          subwords_ ? remapper.subword_windows_within(batch, first, *subwords_, model_ == Model::skipgram, plan_.max_input_rows,
                                                      plan_.max_output_rows, plan_.max_words, plan_.max_listed)
                    : remapper.windows_within(batch, first, plan_.max_input_rows, plan_.max_output_rows);
      train_windows(batch, first, end, worker_index, loss);
      first = end;
    }
  }

  void finish(unsigned worker_index, BatchLoss& loss) override { finish_worker(worker_index, loss); }
  void copy_tables_to_host() override { copy_tables_home(); }
  RowHome* row_home() override { return this; }

 private:
  // Queues windows [first, end) of `batch` on the worker's next slot.
  void train_windows(const WindowBatch& batch, std::size_t first, std::size_t end, unsigned worker_index, BatchLoss& loss) {
    Slot& slot = take_slot(worker_index, loss);
    Worker& worker = workers_[worker_index];
    const WindowBatch* to_train = &batch;
    RowTouches touches;
    if (device_placement()) {
      touches.all = batch.inputs.size() + batch.targets.size() + batch.negatives.size();
      touches.resident = touches.all;
    } else if (subwords_) {
      // The words' lists count a row per listing; the averaged words are no rows of their own.
      const bool skipgram = model_ == Model::skipgram;
      touches.resident = worker.remapper->remap_subwords(batch, first, end, *subwords_, skipgram, worker.local);
      to_train = &worker.local.batch;
      touches.all = worker.local.words.rows.size() + (skipgram ? to_train->inputs.size() : to_train->targets.size()) +
                    to_train->negatives.size();
    } else {
      touches.resident = worker.remapper->remap(batch, first, end, worker.local);
      to_train = &worker.local.batch;
      touches.all = to_train->inputs.size() + to_train->targets.size() + to_train->negatives.size();
    }
    const LocalWordRows& words = worker.local.words;  // empty but for --subwords in host placement
    const std::size_t id_words =
        packed_words_bound(to_train->windows(), shape_.max_inputs_per_window, shape_.negatives, batch.negatives_per_input,
                           worker.local.input_rows.size() + worker.local.output_rows.size()) +
        (device_placement() ? 0 : words.offsets.size() + words.rows.size() + words.gains.size());
    EMBED_ASSERT(id_words <= plan_.ids_words);
    auto* host_ids = slot.host_ids.get<std::uint32_t>();
    slot.shape = pack_batch(*to_train, worker.local.input_rows, worker.local.output_rows, host_ids);
    if (subwords_ && !device_placement()) pack_word_rows(words.offsets, words.rows, words.gains, slot.shape, host_ids);
    slot.examples = model_ == Model::skipgram ? to_train->inputs.size() : to_train->windows();

    auto [input, output] = kernel_tables(slot);
    input.pair_atomics = output.pair_atomics = pair_atomics_;
    const KernelTables tables{input,
                              output,
                              static_cast<std::uint32_t>(padded_),
                              static_cast<std::uint32_t>(shape_.stride),
                              static_cast<std::uint32_t>(shape_.dim),
                              storage_};
    const auto* ids = slot.device_ids.get<std::uint32_t>();
    const KernelBatch kernel_batch{ids + slot.shape.targets_at(),
                                   ids + slot.shape.offsets_at(),
                                   ids + slot.shape.inputs_at(),
                                   ids + slot.shape.negatives_at(),
                                   slot.shape.windows,
                                   slot.shape.negatives_per_window,
                                   static_cast<std::uint32_t>(shape_.max_inputs_per_window),
                                   kernel_clocks_.get<unsigned long long>()};
    // --subwords: the words' lists on the device (device placement), or the batch's own
    // after its ids (host placement).
    const KernelSubwords subwords = device_placement()
                                        ? kernel_subwords_
                                        : KernelSubwords{ids + slot.shape.word_offsets_at(), ids + slot.shape.word_rows_at(),
                                                         reinterpret_cast<const float*>(ids + slot.shape.word_gains_at())};
    auto* device_loss = slot.device_totals.get<double>();
    queue(slot, slot.shape.size(), sizeof(double), touches, [&](cudaStream_t stream) {
      if (summed_windows_ > 0) {
        return launch_summed_steps(model_ == Model::skipgram, kernel_batch, tables, logistic_, rule_, batch.learning_rate,
                                   input_sums_.kernel, output_sums_.kernel, static_cast<std::uint32_t>(summed_windows_),
                                   device_loss, stream);
      }
      if (subwords_) {
        return model_ == Model::skipgram ? launch_subword_skipgram(kernel_batch, subwords, tables, logistic_, batch.learning_rate,
                                                                   device_loss, kernel_blocks(), stream, skipgram_kernel_)
                                         : launch_subword_cbow(kernel_batch, subwords, tables, logistic_, batch.learning_rate,
                                                               device_loss, kernel_blocks(), stream);
      }
      return model_ == Model::skipgram
                 ? launch_skipgram(kernel_batch, tables, logistic_, rule_, batch.learning_rate, device_loss, kernel_blocks(),
                                   stream, skipgram_kernel_)
                 : launch_cbow(kernel_batch, tables, logistic_, rule_, batch.learning_rate, device_loss, kernel_blocks(), stream);
    });
  }

  // Host placement: the batch's unique rows, as packed into the slot's ids.
  BatchRows rows_of(const Slot& slot) const override {
    auto* host = slot.host_ids.get<std::uint32_t>();
    const auto* device = slot.device_ids.get<std::uint32_t>();
    const PackedBatchShape& shape = slot.shape;
    return {{host + shape.input_rows_at(), shape.input_rows},
            {host + shape.output_rows_at(), shape.output_rows},
            device + shape.input_rows_at(),
            device + shape.output_rows_at()};
  }

  // --subwords: with device placement each word's rows, their offsets and the words'
  // gains go to the device (the plan counted them: GpuTrainShape::subword_ids); with host
  // placement each batch takes its own words' lists (RowRemapper::remap_subwords). The
  // kernels train SGD (word2vec_training_model.cpp refuses the rest).
  void use_subwords(const SubwordRows& subwords) {
    EMBED_ASSERT(padded_ == shape_.stride && rule_.rule == KernelRule::sgd);
    EMBED_ASSERT(subwords.words() == output_.rows() && input_.rows() >= output_.rows());
    subwords_ = &subwords;
    if (!device_placement()) return;
    std::vector<std::uint32_t> offsets{0}, rows;
    std::vector<float> gains;
    rows.reserve(subwords.listed());
    for (std::uint32_t w = 0; w < subwords.words(); ++w) {
      const auto listed = subwords.of(w);
      rows.insert(rows.end(), listed.begin(), listed.end());
      offsets.push_back(static_cast<std::uint32_t>(rows.size()));
      gains.push_back(subwords.gain(w));
    }
    auto upload = [](DeviceBuffer& to, const auto& from, const char* what) {
      const std::size_t bytes = from.size() * sizeof(from[0]);
      to = DeviceBuffer(bytes, what);
      check(cudaMemcpy(to.get(), from.data(), bytes, cudaMemcpyHostToDevice), what);
    };
    upload(subword_offsets_, offsets, "the words' subword offsets");
    upload(subword_rows_, rows, "the words' subword rows");
    upload(subword_gains_, gains, "the words' subword gains");
    kernel_subwords_ = {subword_offsets_.get<std::uint32_t>(), subword_rows_.get<std::uint32_t>(), subword_gains_.get<float>()};
  }

  // A window's rows live in shared memory: refuse shapes that cannot fit, and let the
  // kernels use more than the default 48 KB where they need it.
  void check_shared_memory(bool subwords) {
    int limit = 0;
    check(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_.ordinal),
          "reading the GPU's shared memory size");
    const auto padded = static_cast<std::uint32_t>(padded_);
    const std::size_t needed =
        subwords ? subword_shared_bytes(padded, static_cast<std::uint32_t>(shape_.negatives), skipgram_kernel_)
        : summed_windows_ > 0
            ? summed_shared_bytes(model_ == Model::skipgram, static_cast<std::uint32_t>(shape_.max_inputs_per_window),
                                  static_cast<std::uint32_t>(shape_.negatives), padded)
        : model_ == Model::skipgram ? skipgram_shared_bytes(static_cast<std::uint32_t>(shape_.max_inputs_per_window),
                                                            static_cast<std::uint32_t>(shape_.negatives), padded,
                                                            static_cast<std::uint32_t>(shape_.stride), skipgram_kernel_)
                                    : cbow_shared_bytes(padded);
    if (needed + kStaticSharedBytes > static_cast<std::size_t>(limit)) {
      fail(
          "--window {} with --negative {} at --dim {} needs {} of GPU shared memory per window, more than the {} "
          "this GPU has; use a smaller --window or --dim, or --device cpu",
          shape_.max_inputs_per_window / 2, shape_.negatives, shape_.dim, human_bytes(static_cast<double>(needed)),
          human_bytes(limit));
    }
    check(allow_shared_memory(needed), "raising the kernels' shared memory limit");
    if (subwords) check(allow_subword_shared_memory(needed), "raising the kernels' shared memory limit");
    if (summed_windows_ > 0) check(allow_summed_shared_memory(needed), "raising the kernels' shared memory limit");
  }

  // Summed steps: each table's sums, for every row id its kernels see: the whole table,
  // or the hot rows and a slot's copied rows (the plan counted them: sum_bytes).
  void allocate_row_sums() {
    input_sums_.allocate(kernel_row_ids(false), padded_, "the input rows' gradient sums");
    output_sums_.allocate(kernel_row_ids(true), padded_, "the output rows' gradient sums");
  }

  // How many windows train at once (word2vec_kernels.h says why this is capped):
  // kConcurrentWindows, fewer for a small vocabulary (a window touches about 16 rows,
  // so with an eighth of the rows' count in flight a row meets about two others), or
  // EMBED_GPU_WINDOWS where it is set. (Summed steps have no such cap: their windows
  // read the rows and step none.)
  static unsigned concurrent_windows(std::size_t rows) {
    if (const char* forced = std::getenv("EMBED_GPU_WINDOWS")) {
      const int windows = std::atoi(forced);
      if (windows > 0) return static_cast<unsigned>(windows);
    }
    return static_cast<unsigned>(std::clamp<std::size_t>(rows / 8, 1, kConcurrentWindows));
  }

  // Each kernel's share of the windows in flight: all of them, or with kernel lanes a lane's.
  unsigned kernel_blocks() const { return lane_blocks(max_blocks_, kernel_lanes()); }
  // The most blocks a full batch's kernel runs (kernel_lanes.h): a batch of at most W corpus
  // words runs at most W / (max inputs + 1), fewer where subsampling drops words: 236 for
  // host placement's 2,604-word batches at big_table's 1/4, 59 at 1/16's 649.
  std::size_t batch_blocks() const { return full_batch_blocks(plan_.batch_items, shape_.max_inputs_per_window); }

  // How many batches' kernels run at once (batch_pipeline.h), under
  // EMBED_GPU_KERNEL_LANES, for experiments: N, or "auto", as many as the windows in flight
  // allow full batches' kernels, at most 8 (kernel_lanes.h). Unset: 1. Summed steps share
  // one set of sums: 1.
  unsigned kernel_lanes_chosen() const {
    if (summed_windows_ > 0) return 1;
    return kernel_lanes_from(std::getenv("EMBED_GPU_KERNEL_LANES"), max_blocks_, batch_blocks());
  }

  // EMBED_GPU_PAIR_ATOMICS=1, for experiments: f32 tables' element pairs added by one
  // 8-byte atomic on sm_90 (storage.h's SplitTable::pair_atomics). Skip-gram adds some
  // 12 rows per window with atomics: at dim 300 and 41M words/s on an H200 (text8, about
  // half the words kept) about 80 billion floats a second, at dim 100 and 58M 37 billion;
  // whether the L2's atomics bound dim 300 is what this measures. Only the kernels of a
  // rule without state add pairs so (skip-gram's with SGD, and fastText's, which train
  // nothing else): CBOW's, the rules with state and the summed steps never do, and their
  // runs do not say they did.
  bool pair_atomics_chosen(bool subwords) const {
    const char* chosen = std::getenv("EMBED_GPU_PAIR_ATOMICS");
    return chosen != nullptr && std::string_view(chosen) == "1" && storage_ == Storage::f32 && device_.compute_major >= 9 &&
           (subwords || sgd_skipgram());
  }

  // Skip-gram with SGD (word2vec's or fastText's): a block per window, or under
  // EMBED_GPU_SKIPGRAM_KERNEL=warp a warp per window, for experiments: at the same 512
  // windows in flight the warp kernel ran at 0.45x the block's words/s at dim 100 and
  // 0.33x at dim 300 on an H200 (word2vec_kernels.h). EMBED_GPU_SKIPGRAM_KERNEL=rows: a
  // block per window whose warps each own an output row (fastText's: of each pair), for
  // experiments, not yet run on a GPU.
  static SkipgramKernel skipgram_kernel_chosen() {
    const char* chosen = std::getenv("EMBED_GPU_SKIPGRAM_KERNEL");
    const std::string_view name = chosen != nullptr ? chosen : "";
    return name == "warp" ? SkipgramKernel::warp : name == "rows" ? SkipgramKernel::rows : SkipgramKernel::block;
  }

  // EMBED_GPU_KERNEL_CLOCKS=1, for experiments: skip-gram's block or rows kernel (word2vec's,
  // with SGD) times its windows' phases (kernel_clocks.h), logged when training ends.
  bool clocks_chosen() const {
    const char* chosen = std::getenv("EMBED_GPU_KERNEL_CLOCKS");
    return chosen != nullptr && std::string_view(chosen) == "1" && sgd_skipgram() && subwords_ == nullptr &&
           skipgram_kernel_ != SkipgramKernel::warp;
  }

  // The kernels' clocks, if they were kept, to the log: from the destructor, so nothing
  // here throws.
  void log_kernel_clocks() const {
    if (kernel_clocks_.get() == nullptr) return;
    std::uint64_t counters[kClockSlots] = {};
    int clock_khz = 0;
    if (cudaMemcpy(counters, kernel_clocks_.get(), sizeof(counters), cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device_.ordinal) != cudaSuccess) {
      spdlog::warn("EMBED_GPU_KERNEL_CLOCKS: cannot read the kernels' clocks back");
      return;
    }
    const std::string line = describe_kernel_clocks(counters, rows_kernel(), clock_khz / 1000.0);
    if (!line.empty()) spdlog::info("{}", line);
  }

  // Whether skip-gram trains with a rule without state (SGD), every window stepping its
  // rows: the kernel EMBED_GPU_SKIPGRAM_KERNEL chooses trains it (summed steps are for rules
  // with state, whose rows are wider than the padded vector).
  bool sgd_skipgram() const { return model_ == Model::skipgram && padded_ == shape_.stride && summed_windows_ == 0; }

  // Whether skip-gram trains with the rows kernel.
  bool rows_kernel() const { return sgd_skipgram() && skipgram_kernel_ == SkipgramKernel::rows; }

  void add_loss(const Slot& slot, BatchLoss& loss) const override {
    loss.sum += *slot.host_totals.get<double>();
    loss.examples += slot.examples;
  }

  Model model_;
  RowMatrix& input_;
  RowMatrix& output_;
  GpuTrainShape shape_;
  Storage storage_;
  std::size_t padded_ = RowMatrix::stride_for(shape_.dim);  // where a row's state starts
  KernelRuleSpec rule_;                                     // after padded_, which it reads
  std::size_t summed_windows_ = shape_.summed_windows;      // 0: every window steps its rows
  RowSumsBuffers input_sums_, output_sums_;                 // with summed_windows_
  DeviceBuffer sigmoid_, loss_table_;
  KernelLogistic logistic_{};
  // Whatever the GPU's size: staleness grows with the windows in flight, not with the
  // multiprocessors. Measured on an H100 (text8-head, dim 100, 5 epochs): 512 at once
  // ended 0.5% above the CPU's loss with its analogy score, 1024 1.4% above.
  static constexpr unsigned kConcurrentWindows = 512;
  const unsigned max_blocks_ = concurrent_windows(input_.rows());
  const bool pair_atomics_;
  const SkipgramKernel skipgram_kernel_ = skipgram_kernel_chosen();
  // --subwords (use_subwords): each word's rows, and device placement's copy of them.
  const SubwordRows* subwords_ = nullptr;
  const bool most_touched_;            // host placement: hot rows by touches (GpuBackendRequest::hot_rows)
  const std::size_t hot_buckets_ = 0;  // and of them n-gram bucket rows
  DeviceBuffer subword_offsets_, subword_rows_, subword_gains_;
  KernelSubwords kernel_subwords_{};
  DeviceBuffer kernel_clocks_;  // EMBED_GPU_KERNEL_CLOCKS (clocks_chosen), or none
};

}  // namespace

std::unique_ptr<Word2vecBackend> make_cuda_word2vec_backend(const GpuBackendRequest& request) {
  return std::make_unique<CudaWord2vecBackend>(request);
}

}  // namespace embed::cuda
