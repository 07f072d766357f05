// GPU tests of fastText's model on the CUDA word2vec backend (--subwords; ctest label
// "gpu", in gpu_train_tests): one batch against the CPU subword backend, skip-gram and
// CBOW, in every storage type and placement (host placement: the batch's words' lists
// over its copied rows). A batch this small runs as one block, window after window in
// the CPU's order, so f32 tables agree to the order of float sums.
#include <catch2/catch.hpp>

#include <algorithm>
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_train_fixtures.h"
#include "subword_batches.h"
#include "text/fasttext_subwords.h"
#include "train/gpu/hot_rows.h"
#include "train/ranks/rank_averaging.h"
#include "train/word2vec/subword_cpu_backend.h"
#include "train/word2vec/subword_rows.h"
#include "train/word2vec/word2vec_layout.h"
#include "train_fixtures.h"

using namespace embed;
using namespace embed::test;

namespace {

// The CUDA backend for fastText's model on `subwords`, its tables where `placement` says;
// with `most_touched`, host placement's hot rows are each table's most touched, n-gram
// buckets among them (hot_rows.h), as embed-train chooses them, or with `hot`
// those rows.
std::unique_ptr<Word2vecBackend> cuda_subword_backend(Model model, RowMatrix& input, RowMatrix& output,
                                                      const SubwordRows& subwords, std::size_t window, std::size_t negatives,
                                                      DType storage, const Placement& placement, bool most_touched,
                                                      TableTraffic* traffic, const HotRows* hot = nullptr) {
  GpuTrainShape shape;
  shape.rows = output.rows();
  shape.bucket_rows = input.rows() - output.rows();
  shape.subword_ids = subwords.listed();
  std::set<std::uint32_t> listed;
  for (std::uint32_t w = 0; w < subwords.words(); ++w) {
    shape.longest_word_rows = std::max(shape.longest_word_rows, subwords.of(w).size());
    listed.insert(subwords.of(w).begin(), subwords.of(w).end());
  }
  shape.listed_input_rows = listed.size();
  shape.negatives_per_input = model == Model::skipgram;
  shape.dim = input.dim();
  shape.stride = input.stride();
  shape.storage = storage;
  shape.max_inputs_per_window = 2 * window;
  shape.negatives = negatives;
  shape.workers = 1;
  const GpuMemoryPlan plan = plan_gpu_memory(shape, placement.options(output.rows()), default_gpu_budget(the_device.free_memory));
  GpuBackendRequest request{model,   &input,         &output,           shape,    plan, the_device,
                            traffic, Optimizer::sgd, OptimizerParams{}, &subwords};
  if (most_touched) {
    REQUIRE(plan.placement == TablePlacement::host);
    // With no cap on the hot rows, all the rows the words list are hot and nothing is copied.
    if (placement.hot_fraction == 1) REQUIRE(plan.hot_rows == plan.hot_row_limit);
    request.hot_rows = most_touched_rows(&subwords, kSubwordWords.counts, model, window, negatives, 2 * plan.hot_rows);
    // Half the vocabulary hot (10 rows) holds skip-gram's ten output rows, each scored by
    // a window's contexts and drawn as a negative, and none of its buckets (CBOW's: ten
    // buckets); with room for every row, buckets are among them.
    if (placement.hot_fraction == 1) REQUIRE(!request.hot_rows->input_buckets.empty());
  }
  if (hot) {
    REQUIRE((plan.placement == TablePlacement::host && hot->rows() <= 2 * plan.hot_rows));
    request.hot_rows = *hot;
  }
  return gpu_trainer().make_backend(request);
}

// One batch trained on the GPU (gpu_in, gpu_out, gpu_loss) against the CPU's, within the
// storage type's precision, and its input rows moved from where they started (`input`).
void check_batch_as_cpu(DType storage, const RowMatrix& input, const RowMatrix& gpu_in, const RowMatrix& gpu_out,
                        const BatchLoss& gpu_loss, const RowMatrix& cpu_in, const RowMatrix& cpu_out, const BatchLoss& cpu_loss) {
  // f16 and bf16 round the stored rows (to 2^-11 and 2^-8 of their size) at each step.
  const double tolerance = storage == DType::f32 ? 1e-5 : storage == DType::f16 ? 5e-3 : 4e-2;
  CHECK(max_relative_error(gpu_in, cpu_in, 0.05) < tolerance);
  CHECK(max_relative_error(gpu_out, cpu_out, 0.05) < tolerance);
  CHECK(gpu_loss.sum == Approx(cpu_loss.sum).epsilon(storage == DType::f32 ? 1e-5 : 1e-2));
  CHECK(gpu_loss.examples == cpu_loss.examples);
  CHECK(max_relative_error(gpu_in, input, 0.05) > 1e-3);  // the rows moved
}

}  // namespace

TEST_CASE("fastText's model: one batch on the GPU equals the CPU subword backend's", "[gpu][subwords]") {
  for (Model model : {Model::skipgram, Model::cbow}) {
    const SubwordSettings settings = model == Model::skipgram ? SubwordSettings{3, 4, 37} : SubwordSettings{3, 4, 1000003};
    // The unit tests' batches (subword_batches.h): skip-gram's with rows repeated across
    // words and within one; CBOW's with no row shared within a window, where the CPU's
    // cached word sums are exact.
    const SubwordRows subwords(kSubwordWords, settings);
    const WindowBatch batch = model == Model::skipgram ? subword_skipgram_batch() : subword_cbow_batch();
    if (model == Model::cbow) require_no_shared_rows(batch, subwords);
    for (std::size_t dim : {100u, 37u}) {
      RowMatrix input(kSubwordWords.size() + settings.buckets, dim), output(kSubwordWords.size(), dim);
      fill_uniform(input, 11, 0.5f);
      fill_uniform(output, 12, 0.5f);
      RowMatrix cpu_in = copy_of(input), cpu_out = copy_of(output);
      BatchLoss cpu_loss;
      make_subword_cpu_backend(model, cpu_in, cpu_out, Word2vecLayout(dim, Optimizer::sgd), subwords, 1)
          ->train(batch, 0, cpu_loss);
      // Host placement (every row copied, or half the vocabulary's hot) in f32 only: its
      // batches' words' lists, and its copies, are the same in every storage type.
      // With hot rows, host placement also tries each table's most touched, n-gram buckets
      // among them, and with room for them all, every row the words touch hot (the plan's
      // slots then hold one window's copied rows, and none is copied).
      std::vector<Placement> placements(std::begin(kPlacements), std::end(kPlacements));
      placements.push_back({TablePlacement::host, HostTransfer::gather, "host, gather, every touched row hot"});
      placements.push_back({TablePlacement::host, HostTransfer::mapped, "host, mapped, every touched row hot"});
      for (const Placement& placement : placements) {
        for (DType storage : {DType::f32, DType::f16, DType::bf16}) {
          for (bool most_touched : {false, true}) {
            if (placement.table == TablePlacement::host && storage != DType::f32) continue;
            if (most_touched && (placement.table != TablePlacement::host || placement.hot_fraction == 0)) continue;
            if (!most_touched && placement.table == TablePlacement::host && placement.hot_fraction == 1) continue;
            RowMatrix gpu_in = copy_of(input), gpu_out = copy_of(output);
            BatchLoss gpu_loss;
            TableTraffic traffic;
            auto gpu = cuda_subword_backend(model, gpu_in, gpu_out, subwords, 2, 3, storage, placement, most_touched, &traffic);
            INFO(model_name(model) << ", dim " << dim << ", " << dtype_name(storage) << ", " << placement.name << ", "
                                   << gpu->name());
            gpu->train(batch, 0, gpu_loss);
            gpu->finish(0, gpu_loss);
            gpu->copy_tables_to_host();
            check_batch_as_cpu(storage, input, gpu_in, gpu_out, gpu_loss, cpu_in, cpu_out, cpu_loss);
            // Every row the words touch hot: every touch served in GPU memory.
            const TableTraffic::Counts counts = traffic.counts();
            if (placement.hot_fraction == 1) CHECK(counts.resident_touches == counts.row_touches);
            if (placement.hot_fraction == 0) CHECK(counts.resident_touches == 0);
          }
        }
      }
    }
  }
}

TEST_CASE("fastText's skip-gram: the warp, block and rows kernels each train one batch as the CPU does",
          "[gpu][subwords][skipgram-kernel]") {
  // run.sh all runs this first, with word2vec's (test_cuda_train.cpp): the block kernel
  // (the default), the warp and rows kernels (experiments), f32 tables' pairs also added by one
  // atomic (EMBED_GPU_PAIR_ATOMICS=1, another). The batch of the test above (a
  // negative drawn twice in one pair, negatives equal to their pair's context, rows
  // repeated across words and within one), at dims with idle lanes (37), two pairs per
  // lane (100) and five (300), in every storage type; device placement and host placement
  // with every row copied.
  SkipgramKernelChoice choice;
  const SubwordSettings settings{3, 4, 37};
  const SubwordRows subwords(kSubwordWords, settings);
  const WindowBatch batch = subword_skipgram_batch();
  for (const SkipgramKernelCase& kernel : chosen_skipgram_kernels()) {
    choice.use(kernel);
    for (std::size_t dim : {37u, 100u, 300u}) {
      RowMatrix input(kSubwordWords.size() + settings.buckets, dim), output(kSubwordWords.size(), dim);
      fill_uniform(input, 13, 0.5f);
      fill_uniform(output, 14, 0.5f);
      RowMatrix cpu_in = copy_of(input), cpu_out = copy_of(output);
      BatchLoss cpu_loss;
      make_subword_cpu_backend(Model::skipgram, cpu_in, cpu_out, Word2vecLayout(dim, Optimizer::sgd), subwords, 1)
          ->train(batch, 0, cpu_loss);
      for (const Placement& placement : {kPlacements[0], kPlacements[1]}) {
        for (DType storage : {DType::f32, DType::f16, DType::bf16}) {
          for (const char* pair_atomics : {"0", "1"}) {
            if (placement.table == TablePlacement::host && storage != DType::f32) continue;
            if (pair_atomics[0] == '1' && storage != DType::f32) continue;  // their pairs take one atomic anyway
            const ScopedEnvironment pairs("EMBED_GPU_PAIR_ATOMICS", pair_atomics);
            RowMatrix gpu_in = copy_of(input), gpu_out = copy_of(output);
            BatchLoss gpu_loss;
            auto gpu = cuda_subword_backend(Model::skipgram, gpu_in, gpu_out, subwords, 2, 3, storage, placement, false, nullptr);
            INFO(kernel.env << " kernel, dim " << dim << ", " << dtype_name(storage) << ", " << placement.name << ", "
                            << gpu->name());
            CHECK(gpu->name().find(kernel.named) != std::string::npos);
            CHECK((gpu->name().find("per output row") != std::string::npos) == (std::string_view(kernel.env) == "rows"));
            gpu->train(batch, 0, gpu_loss);
            gpu->finish(0, gpu_loss);
            gpu->copy_tables_to_host();
            check_batch_as_cpu(storage, input, gpu_in, gpu_out, gpu_loss, cpu_in, cpu_out, cpu_loss);
          }
        }
      }
    }
  }
}

TEST_CASE("a round between ranks reads, adds to and sets the hot n-gram buckets the GPU holds", "[gpu][subwords]") {
  // mpirun's rounds (RowHome) over host placement whose input table's hot rows are its
  // first 2 and 3 buckets (DeviceTables keeps them after the first rows): a range of rows
  // reaches the hot ones and leaves the others to the host table.
  const SubwordRows subwords(kSubwordWords, SubwordSettings{3, 4, 37});
  const std::vector<std::uint32_t> buckets = listed_buckets(subwords, 2, 3);
  const HotRows hot{2, buckets, 4};
  auto is_hot = [&](std::uint32_t row) { return row < 2 || std::binary_search(buckets.begin(), buckets.end(), row); };
  const Placement placement{TablePlacement::host, HostTransfer::gather, "host, 5 hot rows' worth", 0.5};
  for (DType storage : {DType::f32, DType::f16}) {
    INFO(dtype_name(storage));
    RowMatrix input(kSubwordWords.size() + 37, 8), output(kSubwordWords.size(), 8);
    fill_uniform(input, 3, 0.5f);
    fill_uniform(output, 4, 0.5f);
    const RowMatrix start = copy_of(input);
    auto backend = cuda_subword_backend(Model::skipgram, input, output, subwords, 2, 3, storage, placement, false, nullptr, &hot);
    RowHome* home = backend->row_home();
    REQUIRE(home != nullptr);
    // Rows [1, the second bucket + 1): a first row, words that are not hot, the first two
    // buckets and the rows between them.
    const std::uint32_t first = 1, end = buckets[1] + 1;
    std::vector<float> added((end - first) * input.stride(), 0.0f);
    for (std::uint32_t row = first; row < end; ++row) added[(row - first) * input.stride()] = static_cast<float>(row);
    home->add_to_rows(input, first, end, added);
    home->rows_to_host(input, 0, input.rows());
    const float tolerance = storage == DType::f32 ? 1e-5f : 2e-2f;
    for (std::uint32_t row = 0; row < input.rows(); ++row) {
      INFO("row " << row);
      const float expected = start.row(row)[0] + (is_hot(row) && row >= first && row < end ? static_cast<float>(row) : 0.0f);
      CHECK(std::abs(input.row(row)[0] - expected) <= tolerance * std::max(1.0f, std::abs(expected)));
      CHECK(std::abs(input.row(row)[5] - start.row(row)[5]) <= tolerance);
    }
    // Set from the host: the GPU's copy of the third bucket becomes the host's; the
    // second's is copied home over what the host wrote there.
    input.row(buckets[2])[1] = 7.0f;
    input.row(buckets[1])[1] = 9.0f;
    home->rows_from_host(input, buckets[2], buckets[2] + 1);
    backend->copy_tables_to_host();
    CHECK(input.row(buckets[2])[1] == 7.0f);
    CHECK(std::abs(input.row(buckets[1])[1] - start.row(buckets[1])[1]) <= tolerance);
  }
}
