// The host side of GloVe on a GPU, on the CPU: a block trained on compact copies of
// the rows it touches and added back as deltas equals training the tables directly;
// a backend that completes its blocks late (as a GPU's) trains as the CPU's does;
// the block reshuffle between epochs; the GPU memory plan for GloVe's tables.
#include <algorithm>
#include <deque>
#include <numeric>

#include "test_util.h"
#include "train/glove/glove_cpu_backend.h"
#include "train/glove/glove_trainer.h"
#include "train/gpu/gpu_backend.h"
#include "train/gpu/row_remap.h"
#include "train_fixtures.h"

using namespace embed;
using namespace embed::test;

namespace {

// The optimizers whose rules GloVe's kernel takes (their `concurrent`).
struct Rule {
  Optimizer optimizer;
};
const Rule kGpuRules[] = {{Optimizer::adagrad}, {Optimizer::rowadagrad}, {Optimizer::sgd}};

// Records over a small vocabulary, so that rows repeat within a block.
std::vector<GloveRecord> random_records(std::size_t count, std::uint32_t rows, std::uint64_t seed) {
  Random random(seed, 5);
  std::vector<GloveRecord> records(count);
  for (GloveRecord& r : records) {
    const float x = 1.0f + static_cast<float>(random.below(50));
    r = {random.below(rows), random.below(rows), std::log(x), glove_weight(x, 100, 0.75)};
  }
  return records;
}

// Trains `records` the way a host-placement GPU slot does, on the CPU: remap to local
// rows, gather copies, train the copies, add the deltas back.
void train_through_copies(std::span<const GloveRecord> records, RowMatrix& words, RowMatrix& contexts, const GloveLayout& layout,
                          BatchLoss& loss) {
  RowRemapper remapper(words.rows(), 0);
  LocalGloveBlock local;
  remapper.remap(records, local);
  RowMatrix word_copy(local.word_rows.size(), layout.width), context_copy(local.context_rows.size(), layout.width);
  gather_rows(words, local.word_rows, DType::f32, word_copy.data());
  gather_rows(contexts, local.context_rows, DType::f32, context_copy.data());
  const RowMatrix word_before = copy_of(word_copy), context_before = copy_of(context_copy);
  train_glove_records(local.records, word_copy, context_copy, layout, 0.05f, loss);
  scatter_deltas(words, local.word_rows, DType::f32, word_copy.data(), word_before.data());
  scatter_deltas(contexts, local.context_rows, DType::f32, context_copy.data(), context_before.data());
}

// A backend that trains each block only when the worker's next block or finish() comes,
// as a GPU completes its queued blocks, and counts copy_tables_to_host calls.
class LateBackend final : public GloveBackend {
 public:
  LateBackend(RowMatrix& words, RowMatrix& contexts, const GloveLayout& layout, std::size_t block)
      : cpu_(make_cpu_glove_backend(words, contexts, layout)), block_(block) {}
  std::string name() const override { return "late"; }
  void train(std::span<const GloveRecord> records, unsigned worker, float lr, BatchLoss& loss) override {
    finish(worker, loss);
    pending_.assign(records.begin(), records.end());  // the caller may reuse `records`
    lr_ = lr;
  }
  void finish(unsigned worker, BatchLoss& loss) override {
    if (pending_.empty()) return;
    cpu_->train(pending_, worker, lr_, loss);
    pending_.clear();
  }
  void copy_tables_to_host() override { ++copies_; }
  std::size_t max_block_records() const override { return block_; }
  int copies_ = 0;

 private:
  std::unique_ptr<GloveBackend> cpu_;
  std::size_t block_;
  std::vector<GloveRecord> pending_;
  float lr_ = 0;
};

TrainSettings glove_settings(unsigned epochs) {
  TrainSettings s;
  s.model = Model::glove;
  s.dim = 16;
  s.epochs = epochs;
  s.threads = 1;
  s.lr = 0.05f;
  s.optimizer = Optimizer::adagrad;
  return s;
}

}  // namespace

TEST_CASE("GloVe: a block trained on copies of its rows and added back equals training the tables", "[gpu-host]") {
  for (const Rule& rule : kGpuRules) {
    const GloveLayout layout(20, rule.optimizer);
    RowMatrix words = make_glove_table(60, layout, 1, 0, 1);
    RowMatrix contexts = make_glove_table(60, layout, 1, 1, 1);
    RowMatrix direct_words = copy_of(words), direct_contexts = copy_of(contexts);
    const auto records = random_records(2000, 60, 7);  // every row many times over
    BatchLoss through, direct;
    train_through_copies(records, words, contexts, layout, through);
    train_glove_records(records, direct_words, direct_contexts, layout, 0.05f, direct);
    INFO(optimizer_name(rule.optimizer));
    CHECK(through.examples == direct.examples);
    CHECK(through.sum == Approx(direct.sum).epsilon(1e-9));
    // new = old + (trained - old): exact unless the subtraction rounds.
    CHECK(max_relative_error(words, direct_words, 1e-3) < 1e-6);
    CHECK(max_relative_error(contexts, direct_contexts, 1e-3) < 1e-6);
  }
}

TEST_CASE("GloVe: the remapped block lists each row once and rewrites the records to index the lists", "[gpu-host]") {
  const std::vector<GloveRecord> records = {{7, 3, 1.0f, 0.5f}, {2, 3, 2.0f, 0.25f}, {7, 9, 3.0f, 1.0f}};
  RowRemapper remapper(10, 0);
  LocalGloveBlock local;
  remapper.remap(records, local);
  CHECK(local.word_rows == std::vector<std::uint32_t>{7, 2});
  CHECK(local.context_rows == std::vector<std::uint32_t>{3, 9});
  REQUIRE(local.records.size() == 3);
  CHECK(local.records[1].row == 1);
  CHECK(local.records[2].column == 1);
  CHECK(local.records[2].log_count == 3.0f);
  // The remapper forgets the block: the next one starts its lists afresh.
  remapper.remap(std::span(records).subspan(2), local);
  CHECK(local.word_rows == std::vector<std::uint32_t>{7});
  CHECK(local.records[0].row == 0);
  // With rows 0-3 hot, the touches of rows 3, 2 and 3 are served in GPU memory.
  RowRemapper hot(10, 4);
  CHECK(hot.remap(records, local) == 3);
  CHECK(local.word_rows == std::vector<std::uint32_t>{7});
  CHECK(local.context_rows == std::vector<std::uint32_t>{9});
}

TEST_CASE("GloVe: a backend that completes blocks late trains as the CPU does, and its tables are fetched each epoch",
          "[gpu-host]") {
  const Corpus corpus = topic_corpus(4, 300, 20, 30);
  const TrainSettings s = glove_settings(3);
  const GloveLayout layout(s.dim, s.optimizer, s.hyper);
  auto run = [&](bool late, std::vector<double>& costs, int* copies) {
    std::vector<GloveRecord> records = glove_records_of(corpus);
    shuffle_records(records, s.seed, 0);
    RowMatrix words = make_glove_table(corpus.vocab.size(), layout, s.seed, 0, 1);
    RowMatrix contexts = make_glove_table(corpus.vocab.size(), layout, s.seed, 1, 1);
    LateBackend late_backend(words, contexts, layout, 1000);
    auto cpu = make_cpu_glove_backend(words, contexts, layout);
    GloveBackend& backend = late ? static_cast<GloveBackend&>(late_backend) : *cpu;
    TrainState state = TrainState::start(1, s.seed, records.size());
    std::atomic<bool> stop{false};
    GloveTrainer trainer(s, records, backend, RecordShuffle::full);
    REQUIRE(trainer.run(
        state, stop, [&](const TrainProgress& p) { costs.push_back(p.loss); }, nullptr));
    if (copies) *copies = late_backend.copies_;
    return copy_of(words);
  };
  std::vector<double> late_costs, cpu_costs;
  int copies = 0;
  const RowMatrix late_words = run(true, late_costs, &copies);
  const RowMatrix cpu_words = run(false, cpu_costs, nullptr);
  CHECK(copies == 3);
  REQUIRE(late_costs.size() == 3);
  for (std::size_t e = 0; e < 3; ++e) CHECK(late_costs[e] == Approx(cpu_costs[e]).epsilon(1e-12));
  // Same records in the same order (block sizes differ, which the update does not see).
  CHECK(std::memcmp(late_words.data(), cpu_words.data(), cpu_words.span().size_bytes()) == 0);
}

TEST_CASE("GloVe: the block reshuffle moves whole blocks, keeps the tail, and follows (seed, epoch)", "[gpu-host]") {
  const std::size_t n = 5 * kShuffleBlockRecords + 123;
  std::vector<GloveRecord> records(n);
  for (std::size_t i = 0; i < n; ++i) records[i] = {static_cast<std::uint32_t>(i), 0, 0, 0};
  const std::vector<GloveRecord> file_order = records;
  std::vector<GloveRecord> again = records;
  reorder_record_blocks(records, 42, 0, 1);
  reorder_record_blocks(again, 42, 0, 1);
  auto order = [](const std::vector<GloveRecord>& r) {
    std::vector<std::uint32_t> rows;
    for (const GloveRecord& x : r) rows.push_back(x.row);
    return rows;
  };
  CHECK(order(records) == order(again));
  const std::vector<std::uint32_t> rows = order(records);
  std::vector<std::uint64_t> sources;
  for (std::size_t b = 0; b < 5; ++b) {
    const std::uint32_t first = rows[b * kShuffleBlockRecords];
    REQUIRE(first % kShuffleBlockRecords == 0);
    sources.push_back(first / kShuffleBlockRecords);
    for (std::size_t i = 1; i < kShuffleBlockRecords; ++i) REQUIRE(rows[b * kShuffleBlockRecords + i] == first + i);
  }
  CHECK(sources == block_order(n, 42, 1));
  std::vector<std::uint64_t> sorted = sources;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == std::vector<std::uint64_t>{0, 1, 2, 3, 4});
  CHECK(sources != sorted);  // 1 in 120 seeds would keep the order; this one does not
  for (std::size_t i = 5 * kShuffleBlockRecords; i < n; ++i) REQUIRE(rows[i] == i);
  // An epoch's order depends on the epoch only, not on the orders before it.
  std::vector<GloveRecord> direct = file_order;
  reorder_record_blocks(direct, 42, 0, 2);
  reorder_record_blocks(again, 42, 1, 2);
  CHECK(order(again) == order(direct));
  CHECK(order(again) != order(records));
  reorder_record_blocks(again, 42, 2, 0);
  CHECK(order(again) == order(file_order));
}

TEST_CASE("the GPU memory plan for GloVe: device when the tables fit, else host blocks within the budget", "[gpu-host]") {
  const std::uint64_t MB = 1 << 20;
  GpuOptions options;
  // text8's 71k words at dim 300 with AdaGrad per element: 608 floats a row, 2 x 173 MB.
  const GloveLayout layout(300, Optimizer::adagrad);
  REQUIRE(layout.width == 608);
  GpuMemoryPlan plan = plan_glove_gpu_memory({71000, layout.width, 16}, options, 8192 * MB);
  REQUIRE(plan.placement == TablePlacement::device);
  REQUIRE(plan.batch_items == kGloveBatchRecords);
  REQUIRE(plan.table_bytes == 2ull * 71000 * 608 * 4);
  REQUIRE(plan.ids_words == kGloveBatchRecords * 4);
  REQUIRE(plan.total_bytes() <= 8192 * MB);

  // 2M words (4.9 GB per table) in 1 GB: host placement, smaller blocks.
  plan = plan_glove_gpu_memory({2000000, layout.width, 4}, options, 1024 * MB);
  REQUIRE(plan.placement == TablePlacement::host);
  REQUIRE(plan.total_bytes() <= 1024 * MB);
  REQUIRE(plan.batch_items >= kMinGloveBatchRecords);
  REQUIRE(plan.batch_items < kGloveBatchRecords);
  REQUIRE(plan.max_input_rows == plan.batch_items);
  REQUIRE(plan.ids_words == plan.batch_items * 6);
  REQUIRE(plan.hot_rows > 0);
  REQUIRE(plan.table_bytes == 2ull * plan.hot_rows * 608 * 4);

  options.table = TablePlacement::device;
  REQUIRE_ERROR_CONTAINS(plan_glove_gpu_memory({2000000, layout.width, 4}, options, 1024 * MB),
                         "--table device: the two glove tables (2000000 rows x 608 floats");
  REQUIRE_ERROR_CONTAINS(
      plan_glove_gpu_memory({2000000, layout.width, 4, "; --optimizer rowadagrad keeps less"}, options, 1024 * MB),
      "or a larger --gpu-memory; --optimizer rowadagrad keeps less");
  options.table = TablePlacement::automatic;
  REQUIRE_ERROR_CONTAINS(plan_glove_gpu_memory({2000000, layout.width, 64}, options, 16 * MB), "lower --threads");
}

TEST_CASE("GloVe's summed steps' sums are counted in its GPU memory plan", "[gpu-host]") {
  const std::uint64_t MB = 1 << 20;
  // Adam at dim 300: rows of 304 + 624 floats; a sum is the 304 of vector, bias and padding
  // plus two uint32 per row id the kernel sees.
  const GloveLayout layout(300, Optimizer::adam);
  GloveGpuShape shape{71000, layout.width, 4};
  const GpuMemoryPlan plain = plan_glove_gpu_memory(shape, GpuOptions{}, 8192 * MB);
  shape.summed_records = 32768;
  shape.params = layout.params;
  const std::uint64_t per_row = 304 * 4 + 8;
  const GpuMemoryPlan device = plan_glove_gpu_memory(shape, GpuOptions{}, 8192 * MB);
  REQUIRE(device.placement == TablePlacement::device);
  REQUIRE(plain.sum_bytes == 0);
  REQUIRE(device.sum_bytes == 2 * 71000 * per_row);
  REQUIRE(device.total_bytes() == plain.total_bytes() + device.sum_bytes);
  GpuOptions host;
  host.table = TablePlacement::host;
  const GpuMemoryPlan with = plan_glove_gpu_memory(shape, host, 256 * MB);
  shape.summed_records = 0;
  const GpuMemoryPlan without = plan_glove_gpu_memory(shape, host, 256 * MB);
  REQUIRE(with.total_bytes() <= 256 * MB);
  REQUIRE(with.hot_rows < without.hot_rows);
  REQUIRE(with.sum_bytes == (2 * with.hot_rows + with.max_input_rows + with.max_output_rows) * per_row);
}

TEST_CASE("under mpirun GloVe's plan counts the buffer the ranks' changes pass through", "[gpu-host]") {
  const std::uint64_t MB = 1 << 20;
  const GloveLayout layout(300, Optimizer::adagrad);
  GloveGpuShape shape{71000, layout.width, 4};
  const GpuMemoryPlan device_alone = plan_glove_gpu_memory(shape, GpuOptions{}, 8192 * MB);
  GpuOptions host;
  host.table = TablePlacement::host;
  const GpuMemoryPlan host_alone = plan_glove_gpu_memory(shape, host, 256 * MB);
  shape.rank_rounds = true;
  const std::uint64_t row_bytes = layout.width * 4;
  const GpuMemoryPlan device = plan_glove_gpu_memory(shape, GpuOptions{}, 8192 * MB);
  REQUIRE(device.placement == TablePlacement::device);
  REQUIRE(device.fixed_bytes == device_alone.fixed_bytes + std::min<std::uint64_t>(64 * MB, 71000 * row_bytes));
  const GpuMemoryPlan host_ranks = plan_glove_gpu_memory(shape, host, 256 * MB);
  REQUIRE(host_ranks.total_bytes() <= 256 * MB);
  REQUIRE(host_ranks.hot_rows < host_alone.hot_rows);
  REQUIRE(host_ranks.fixed_bytes == host_alone.fixed_bytes + std::min<std::uint64_t>(64 * MB, host_ranks.hot_rows * row_bytes));
}
