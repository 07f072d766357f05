// GPU tests of the CUDA GloVe backend (ctest label "gpu"). Exits 77 (skipped) where no
// device is usable. One block of records against the CPU's arithmetic, for every
// update rule and placement; training to the CPU trainer's cost and topic separation
// on the same co-occurrences and seed.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <limits>
#include <span>
#include <vector>

#include "gpu_train_fixtures.h"
#include "train/glove/glove_cpu_backend.h"
#include "train/glove/glove_summed_steps.h"
#include "train/glove/glove_trainer.h"
#include "train_fixtures.h"

using namespace embed;
using namespace embed::test;

namespace {

// The optimizers whose state atomic adds keep (their `concurrent`), then those whose
// state the kernel writes in place, then Adam's, which the GPU trains in summed steps
// (glove_summed_steps.h).
struct Rule {
  Optimizer optimizer;
  const char* name;
};
const Rule kRules[] = {{Optimizer::adagrad, "adagrad"}, {Optimizer::rowadagrad, "rowadagrad"}, {Optimizer::sgd, "sgd"}};
const Rule kInPlaceRules[] = {
    {Optimizer::rmsprop, "rmsprop"}, {Optimizer::adadelta, "adadelta"}, {Optimizer::rprop, "rprop"}, {Optimizer::asgd, "asgd"}};
const Rule kAdamRules[] = {{Optimizer::adam, "adam"}, {Optimizer::adamw, "adamw"}, {Optimizer::adamax, "adamax"}};

// `summed`: summed steps of that many records (glove_summed_steps.h), or 0.
std::unique_ptr<GloveBackend> cuda_glove(RowMatrix& words, RowMatrix& contexts, const GloveLayout& layout, unsigned workers,
                                         const Placement& placement, std::uint64_t budget = 0, std::size_t summed = 0) {
  GloveGpuShape shape{words.rows(), layout.width, workers};
  shape.summed_records = summed;
  shape.params = layout.params;
  const GpuMemoryPlan plan =
      plan_glove_gpu_memory(shape, placement.options(words.rows()), budget ? budget : default_gpu_budget(the_device.free_memory));
  return gpu_trainer().make_glove_backend({&words, &contexts, layout, plan, summed, the_device});
}

// Adam's family trains in summed steps on the GPU (summed_records_on_gpu): here of 128
// records, against the CPU's summed steps of as many.
std::size_t summed_for(Optimizer optimizer) { return summed_records_on_gpu(optimizer) > 0 ? 128 : 0; }

}  // namespace

TEST_CASE("one block of GloVe records on the GPU equals the CPU's update", "[gpu]") {
  std::vector<Rule> rules(std::begin(kRules), std::end(kRules));
  rules.insert(rules.end(), std::begin(kInPlaceRules), std::end(kInPlaceRules));
  rules.insert(rules.end(), std::begin(kAdamRules), std::end(kAdamRules));
  for (std::size_t dim : {300u, 50u}) {
    for (const Rule& rule : rules) {
      for (const Placement& placement : kPlacements) {
        const GloveLayout layout(dim, rule.optimizer);
        const std::size_t n = 500;
        RowMatrix words = make_glove_table(n + 1, layout, 3, 0, 1);
        RowMatrix contexts = make_glove_table(n + 1, layout, 3, 1, 1);
        // Give the accumulators history, so that the step's divisor matters.
        for (std::size_t r = 0; r <= n; ++r) {
          for (std::size_t e = layout.state(); e < layout.width; ++e) {
            words.row(r)[e] = contexts.row(r)[e] = rule.optimizer == Optimizer::sgd ? 0.0f : 0.01f * float(r % 7);
          }
        }
        // Record i joins word i and context n - i: no two records share a row, so the
        // GPU's concurrent warps cannot interact. One record cannot be trained.
        std::vector<GloveRecord> records;
        for (std::uint32_t i = 0; i < n; ++i) {
          const float x = 1.0f + float(i % 90);
          records.push_back({i, static_cast<std::uint32_t>(n - i), std::log(x), glove_weight(x, 100, 0.75)});
        }
        records[17].log_count = -std::numeric_limits<float>::infinity();
        RowMatrix cpu_words = copy_of(words), cpu_contexts = copy_of(contexts);
        BatchLoss cpu_loss, gpu_loss;
        const std::size_t summed = summed_for(rule.optimizer);
        make_cpu_glove_backend(cpu_words, cpu_contexts, layout, {}, summed)->train(records, 0, 0.05f, cpu_loss);
        auto gpu = cuda_glove(words, contexts, layout, 1, placement, 0, summed);
        gpu->train(records, 0, 0.05f, gpu_loss);
        gpu->finish(0, gpu_loss);
        gpu->copy_tables_to_host();
        INFO("dim " << dim << ", " << rule.name << ", " << placement.name);
        CHECK(cpu_loss.examples == n - 1);
        CHECK(gpu_loss.examples == cpu_loss.examples);
        CHECK(gpu_loss.sum == Approx(cpu_loss.sum).epsilon(1e-5));
        // The dot product sums in another order: the rest is the CPU's arithmetic. Adam's
        // family divides by the root of a second moment near zero, which turns the last bits
        // into more (word2vec's came out up to 3.9e-5 off on an H200).
        const double tolerance = summed > 0 ? 1e-4 : 1e-5;
        CHECK(max_relative_error(words, cpu_words) < tolerance);
        CHECK(max_relative_error(contexts, cpu_contexts) < tolerance);
      }
    }
  }
}

namespace {

// How close the GPU must come to the CPU: `same`, its last cost within 5% of the CPU's and
// its topic separation within 15%; `no_worse`: a cost at most 10% higher, a separation at
// least 70% of the CPU's; `summed`: as no_worse, with a cost at most 50% higher. The CPU's
// 4 threads race too, so its separation swings from run to run: rmsprop's was 1.302 in one
// H200 call and 1.010 in the next (2026-11-28), the GPU's 1.017 to 1.163 in its three
// placements over both, which failed 80% once (an untrained model's is near 0).
enum class Match { same, no_worse, summed };

// Trains the same co-occurrences with `rules` on the CPU and in each placement on the GPU.
void train_like_the_cpu(std::span<const Rule> rules, Match match) {
  // Topics that meet where their lines run together (test_glove.cpp: GloVe cannot
  // separate topics that never meet).
  const Corpus corpus = topic_corpus(11, 4000, 40, 50, false);
  const std::vector<GloveRecord> counted = glove_records_of(corpus);
  for (const Rule& rule : rules) {
    TrainSettings s;
    s.model = Model::glove;
    s.dim = 32;
    s.epochs = 10;
    s.threads = 4;
    s.lr = 0.05f;
    s.optimizer = rule.optimizer;
    const GloveLayout layout(s.dim, s.optimizer, s.hyper);
    double cpu_separation = 0, cpu_cost = 0;
    for (int which = -1; which < kQualityCount; ++which) {
      std::vector<GloveRecord> records = counted;
      shuffle_records(records, s.seed, 0);
      RowMatrix words = make_glove_table(corpus.vocab.size(), layout, s.seed, 0, 1);
      RowMatrix contexts = make_glove_table(corpus.vocab.size(), layout, s.seed, 1, 1);
      const std::size_t summed = summed_for(rule.optimizer);
      std::unique_ptr<GloveBackend> backend =
          which < 0 ? make_cpu_glove_backend(words, contexts, layout, {}, summed)
                    : cuda_glove(words, contexts, layout, s.threads, kQualityPlacements[which], 0, summed);
      GloveTrainer trainer(s, records, *backend, which < 0 ? RecordShuffle::full : RecordShuffle::blocks);
      TrainState state = TrainState::start(s.threads, s.seed, records.size());
      std::atomic<bool> stop{false};
      double cost = 0;
      REQUIRE(trainer.run(
          state, stop, [&](const TrainProgress& p) { cost = p.loss; }, nullptr));
      // Of the vectors: the rows' bias and AdaGrad accumulators (large since the biases
      // step unscaled, issue 23) would make every row alike (0.000 on an H200, 2026-11-26).
      const double separation = topic_separation(corpus, words, s.dim);
      std::printf("glove, %s, %s: separation %.3f, last epoch cost %.4f\n", rule.name,
                  which < 0 ? "cpu" : kQualityPlacements[which].name, separation, cost);
      if (which < 0) {
        cpu_separation = separation;
        cpu_cost = cost;
        continue;
      }
      INFO(rule.name << ", " << kQualityPlacements[which].name);
      if (match == Match::same) {
        CHECK(separation == Approx(cpu_separation).epsilon(0.15));
        CHECK(cost == Approx(cpu_cost).epsilon(0.05));
      } else {
        CHECK(separation > 0.7 * cpu_separation);
        CHECK(cost < (match == Match::summed ? 1.5 : 1.1) * cpu_cost);
      }
    }
  }
}

}  // namespace

TEST_CASE("GloVe on the GPU trains to the CPU's cost and separation on the same co-occurrences", "[gpu]") {
  train_like_the_cpu(kRules, Match::same);
}

// Their state written in place, concurrent records of one row may lose each other's
// change to it (Hogwild): on an H200 (2026-11-26) rmsprop, adadelta and rprop ended at
// lower costs than the CPU's, adadelta at 86% of its separation, rprop (which the CPU's
// run does not train at this rate) far above it.
TEST_CASE("GloVe on the GPU with the rules whose state is written in place trains no worse than the CPU", "[gpu]") {
  train_like_the_cpu(kInPlaceRules, Match::no_worse);
}

// Adam's family in summed steps (of 128 records here) against the CPU's summed steps. Its
// last cost swings with the order of the records, which the GPU's workers take in blocks
// (and in an order that changes from run to run) and the CPU whole-shuffled: on an H200
// (2026-11-27, two runs, one seed) adamw's ended at 0.0097 to 0.036 in the three
// placements, the CPU's at 0.085 and 0.110; adam's at 0.011 to 0.020 against 0.031 and
// 0.034; adamax's at 0.0037 to 0.0048 against 0.0037 and 0.0038 (1.26x at most), its
// separation 0.73 to 0.74 against 0.78 and 0.81. So no worse than the CPU in separation,
// and a cost within 1.5x of its (an untrained model's, or a diverged one's, is far above).
TEST_CASE("GloVe on the GPU trains Adam's family in summed steps no worse than the CPU", "[gpu]") {
  train_like_the_cpu(kAdamRules, Match::summed);
}

TEST_CASE("GloVe tables larger than the GPU memory allowed train in host memory", "[gpu]") {
  // 200,000 words at dim 300 with per-element AdaGrad: 2 x 486 MB of tables in 256 MB.
  const std::size_t rows = 200000;
  const Rule& rule = kRules[0];
  const GloveLayout layout(300, rule.optimizer);
  Random random(9, 9);
  std::vector<GloveRecord> records(4000000);
  for (GloveRecord& r : records) {
    // Pairs of neighbouring words co-occur often, others rarely: something to fit.
    const std::uint32_t a = random.below(rows / 2) * 2;
    const bool pair = random.below(4) != 0;
    const float x = pair ? 20.0f : 1.0f;
    r = {a, pair ? a + 1 : random.below(rows), std::log(x), glove_weight(x, 100, 0.75)};
  }
  TrainSettings s;
  s.model = Model::glove;
  s.dim = 300;
  s.epochs = 2;
  s.threads = 4;  // 4 workers' blocks fit (mapped transfers kept two copies of a block's rows until 2026-11-27)
  s.lr = 0.05f;
  s.optimizer = rule.optimizer;
  for (HostTransfer transfer : {HostTransfer::gather, HostTransfer::mapped}) {
    RowMatrix words = make_glove_table(rows, layout, s.seed, 0, s.threads);
    RowMatrix contexts = make_glove_table(rows, layout, s.seed, 1, s.threads);
    const Placement placement{TablePlacement::automatic, transfer, host_transfer_name(transfer).data()};
    auto backend = cuda_glove(words, contexts, layout, s.threads, placement, 256ull << 20);
    INFO(backend->name());
    REQUIRE(backend->name().find("pinned host memory") != std::string::npos);
    std::vector<GloveRecord> shuffled = records;
    GloveTrainer trainer(s, shuffled, *backend, RecordShuffle::blocks);
    TrainState state = TrainState::start(s.threads, s.seed, shuffled.size());
    std::atomic<bool> stop{false};
    std::vector<double> costs;
    REQUIRE(trainer.run(
        state, stop, [&](const TrainProgress& p) { costs.push_back(p.loss); }, nullptr));
    std::printf("glove 200k x 300 at 256 MB, %s: epoch costs %.4f, %.4f\n", placement.name, costs[0], costs[1]);
    REQUIRE(costs.size() == 2);
    CHECK(costs[1] < costs[0]);
    bool finite = true;
    for (float v : words.span()) finite = finite && std::isfinite(v);
    CHECK(finite);
  }
}

int main(int argc, char** argv) { return run_gpu_tests(argc, argv); }
