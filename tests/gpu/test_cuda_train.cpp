// GPU tests of the CUDA word2vec backend (ctest label "gpu"). Exits 77 (skipped) where
// no device is usable. They compare one batch against the CPU backend, train host and
// device placements to the same quality, train a table four times larger than the GPU
// memory allowed, and take part in a data-parallel run's rounds (mpirun's ranks played
// by threads).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "gpu_train_fixtures.h"
#include "thread_cluster.h"
#include "train/corpus/corpus.h"
#include "train/ranks/rank_averaging.h"
#include "train/run/model_registry.h"
#include "train/run/training_model.h"
#include "train/word2vec/summed_steps.h"
#include "train/word2vec/word2vec_layout.h"
#include "train/word2vec/word2vec_trainer.h"
#include "train_fixtures.h"

using namespace embed;
using namespace embed::test;

namespace {

// `layout`: the tables' rows (Word2vecLayout) when the optimizer keeps state; SGD's plain
// rows of input.dim() otherwise. `summed_windows`: summed steps of that many windows
// (summed_steps.h), which a rule whose state is not a sum needs.
std::unique_ptr<Word2vecBackend> cuda_backend(Model model, RowMatrix& input, RowMatrix& output, std::size_t window,
                                              std::size_t negatives, unsigned workers, const Placement& placement,
                                              DType storage = DType::f32, std::uint64_t budget = 0,
                                              const std::optional<Word2vecLayout>& layout = std::nullopt,
                                              std::size_t summed_windows = 0) {
  GpuTrainShape shape;
  shape.rows = input.rows();
  shape.dim = layout ? layout->dim : input.dim();
  shape.stride = input.stride();
  shape.state = layout ? layout->state() : 0;
  shape.storage = storage;
  shape.max_inputs_per_window = 2 * window;
  shape.negatives = negatives;
  shape.workers = workers;
  shape.summed_windows = summed_windows;
  const GpuMemoryPlan plan =
      plan_gpu_memory(shape, placement.options(shape.rows), budget ? budget : default_gpu_budget(the_device.free_memory));
  return gpu_trainer().make_backend({model, &input, &output, shape, plan, the_device, nullptr,
                                     layout ? layout->optimizer : Optimizer::sgd, layout ? layout->hyper : OptimizerParams{}});
}

// Windows over disjoint rows (so that the GPU's concurrent windows cannot interact),
// with a repeated input word (unless !repeated_input) and a negative equal to the target,
// and with `repeated_negative` a negative drawn twice.
WindowBatch disjoint_batch(std::size_t windows, std::size_t negatives, bool repeated_negative = false,
                           bool repeated_input = true) {
  WindowBatch b;
  b.learning_rate = 0.05f;
  b.negatives_per_window = negatives;
  const std::uint32_t per_window = 4 + static_cast<std::uint32_t>(negatives);
  for (std::uint32_t w = 0; w < windows; ++w) {
    const std::uint32_t base = w * per_window;
    for (std::uint32_t c : {base, base + 1, base + 2, repeated_input ? base : base + 3}) b.inputs.push_back(c);
    b.input_offsets.push_back(static_cast<std::uint32_t>(b.inputs.size()));
    b.targets.push_back(base + 3);
    for (std::uint32_t k = 0; k < negatives; ++k) {
      const std::uint32_t drawn = repeated_negative && k == 3 ? 2 : k;
      b.negatives.push_back(k == 1 ? base + 3 : base + 4 + drawn);
    }
  }
  return b;
}

// The quality tests' settings: dim 32, window 5, negative 5, no subsampling, 3 epochs.
TrainSettings quality_settings(Model model, unsigned threads) {
  TrainSettings s;
  s.model = model;
  s.dim = 32;
  s.window = 5;
  s.negative = 5;
  s.sample = 0;
  s.epochs = 3;
  s.lr = model == Model::skipgram ? 0.025f : 0.05f;
  s.threads = threads;
  return s;
}

// Trains `backend` on `corpus` with `s` from the start: the last epoch's loss.
double train_whole_run(const TrainSettings& s, const Corpus& corpus, Word2vecBackend& backend) {
  Word2vecTrainer trainer(s, corpus, backend);
  TrainState state = Word2vecTrainer::start_state(corpus, s.threads, s.seed);
  std::atomic<bool> stop{false};
  double last_epoch_loss = 0;
  REQUIRE(trainer.run(
      state, stop, [&](const TrainProgress& p) { last_epoch_loss = p.loss; }, nullptr));
  return last_epoch_loss;
}

}  // namespace

TEST_CASE("one batch on the GPU equals the CPU backend's update", "[gpu]") {
  const std::size_t negatives = 5, windows = 40;
  for (Model model : {Model::skipgram, Model::cbow}) {
    for (std::size_t dim : {100u, 37u}) {
      for (const Placement& placement : kPlacements) {
        RowMatrix input(windows * (4 + negatives), dim), output(windows * (4 + negatives), dim);
        fill_uniform(input, 1, 0.125f);
        fill_uniform(output, 2, 0.125f);
        RowMatrix cpu_in = copy_of(input), cpu_out = copy_of(output);
        const WindowBatch batch = disjoint_batch(windows, negatives);
        BatchLoss cpu_loss, gpu_loss;
        make_word2vec_cpu_backend(model, cpu_in, cpu_out, 1)->train(batch, 0, cpu_loss);
        auto gpu = cuda_backend(model, input, output, 2, negatives, 1, placement);
        gpu->train(batch, 0, gpu_loss);
        gpu->finish(0, gpu_loss);
        gpu->copy_tables_to_host();
        INFO(model_name(model) << ", dim " << dim << ", " << placement.name);
        CHECK(max_relative_error(input, cpu_in) < 1e-5);
        CHECK(max_relative_error(output, cpu_out) < 1e-5);
        CHECK(gpu_loss.sum == Approx(cpu_loss.sum).epsilon(1e-5));
        CHECK(gpu_loss.examples == cpu_loss.examples);
      }
    }
  }
}

TEST_CASE("skip-gram's warp, block and rows kernels each train one batch as the CPU does", "[gpu][skipgram-kernel]") {
  // run.sh all runs this first: the block kernel (the default), the warp and rows kernels
  // (experiments), f32 pairs added by two atomics or by one (EMBED_GPU_PAIR_ATOMICS, another).
  // The batch repeats an input word in every window (the rows kernel waits for its earlier
  // copy's steps there) and a negative equal to the target.
  // Dims with idle lanes (37), two pairs per lane (100) and five (300); 16 output rows
  // (two of the warp's score chunks of 8); a negative drawn twice; f16 and bf16 tables
  // within their precision (with 5 negatives, as in their test below: more steps per row
  // add up their rounding).
  struct Shape {
    DType storage;
    std::size_t negatives;
    bool repeated;
    bool repeated_input = true;
  };
  const Shape shapes[] = {{DType::f32, 5, false, false}, {DType::f32, 5, false}, {DType::f32, 5, true},
                          {DType::f32, 15, true},        {DType::f16, 5, true},  {DType::bf16, 5, true}};
  const Placement placements[] = {kPlacements[0], kPlacements[1], kPlacements[4]};  // device; every row copied; half hot
  SkipgramKernelChoice choice;
  for (const SkipgramKernelCase& kernel : chosen_skipgram_kernels()) {
    choice.use(kernel);
    for (const Shape& shape : shapes) {
      for (const bool pair_atomics : {false, true}) {
        if (pair_atomics && shape.storage != DType::f32) continue;  // f16 and bf16 pairs take one atomic anyway
        const ScopedEnvironment pairs("EMBED_GPU_PAIR_ATOMICS", pair_atomics ? "1" : "0");
        // The block and rows kernels timing their windows (kernel_clocks.h) with the pairs'
        // atomics: the clocks change nothing the kernels compute.
        const ScopedEnvironment clocks("EMBED_GPU_KERNEL_CLOCKS", pair_atomics ? "1" : "0");
        for (std::size_t dim : {37u, 100u, 300u}) {
          if (shape.storage != DType::f32 && dim == 100) continue;  // the test of their tables below has 64
          for (const Placement& placement : placements) {
            const std::size_t windows = 40, rows = windows * (4 + shape.negatives);
            RowMatrix input(rows, dim), output(rows, dim);
            fill_uniform(input, 5, 0.125f);
            fill_uniform(output, 6, 0.125f);
            RowMatrix cpu_in = copy_of(input), cpu_out = copy_of(output);
            const WindowBatch batch = disjoint_batch(windows, shape.negatives, shape.repeated, shape.repeated_input);
            BatchLoss cpu_loss, gpu_loss;
            make_word2vec_cpu_backend(Model::skipgram, cpu_in, cpu_out, 1)->train(batch, 0, cpu_loss);
            auto gpu = cuda_backend(Model::skipgram, input, output, 2, shape.negatives, 1, placement, shape.storage);
            INFO(kernel.env << " kernel, " << vector_dtype_name(shape.storage) << ", dim " << dim << ", " << shape.negatives
                            << " negatives" << (shape.repeated ? ", one drawn twice" : "")
                            << (shape.repeated_input ? "" : ", no input repeated") << ", " << placement.name
                            << (pair_atomics ? ", pairs added by one atomic, clocks kept" : ""));
            CHECK(gpu->name().find(kernel.named) != std::string::npos);
            CHECK((gpu->name().find("per output row") != std::string::npos) == (std::string_view(kernel.env) == "rows"));
            CHECK((gpu->name().find("element pairs added by one atomic") != std::string::npos) ==
                  (pair_atomics && the_device.compute_major >= 9));
            gpu->train(batch, 0, gpu_loss);
            gpu->finish(0, gpu_loss);
            gpu->copy_tables_to_host();
            const bool f32 = shape.storage == DType::f32;
            const double tolerance = f32 ? 1e-5 : shape.storage == DType::f16 ? 4e-3 : 2e-2;
            const double floor = f32 ? 1e-3 : 1e-2;
            CHECK(max_relative_error(input, cpu_in, floor) < tolerance);
            CHECK(max_relative_error(output, cpu_out, floor) < tolerance);
            if (f32) CHECK(gpu_loss.sum == Approx(cpu_loss.sum).epsilon(1e-5));
            CHECK(gpu_loss.examples == cpu_loss.examples);
          }
        }
      }
    }
  }
}

TEST_CASE("optimizers with state train one batch on the GPU as the CPU does", "[gpu]") {
  // Two batches, so that the second steps rows whose state the first left non-zero; a
  // negative drawn twice steps its row twice (rowadagrad: with the accumulator of
  // before both, a millionth of its scale off the CPU's). A rule whose state is not a sum
  // trains in summed steps (summed_steps.h), here of 16 windows (three per batch), against
  // the CPU's summed steps of as many.
  const std::size_t negatives = 5, windows = 40, rows = windows * (4 + negatives), per_step = 16;
  for (const OptimizerSpec& spec : optimizers()) {
    const Optimizer optimizer = spec.optimizer;
    if (optimizer == Optimizer::sgd) continue;
    const std::size_t summed = spec.concurrent ? 0 : per_step;
    for (Model model : {Model::skipgram, Model::cbow}) {
      for (std::size_t dim : {100u, 37u}) {
        // Adam's family and RMSprop divide by the root of a second moment near zero, which
        // turns the last bits of a different order of sums into more: skip-gram with adamw
        // and adamax came out 1.1e-5 to 3.9e-5 off on an H200 on 2026-11-27 (windows
        // stepping the rows in place), and on the CPU alone RMSprop's summed and
        // per-window steps differ by 5.5e-5 (test_summed_steps.cpp); on an H200
        // (2026-11-27) RMSprop's summed steps came out 1.0e-4 to 1.4e-4 off the CPU's, Adam's
        // family within 1e-4. A wrong rule or a missed sum is off by far more than 1e-3.
        const double tolerance = optimizer == Optimizer::rmsprop ? 3e-4 : summed > 0 ? 1e-4 : 1e-5;
        for (const Placement& placement : kPlacements) {
          const Word2vecLayout layout(dim, optimizer);
          RowMatrix input = make_word2vec_table(rows, layout, true, 1, 1);
          RowMatrix output = make_word2vec_table(rows, layout, true, 2, 1);
          RowMatrix cpu_in = copy_of(input), cpu_out = copy_of(output);
          const WindowBatch batch = disjoint_batch(windows, negatives, true);
          BatchLoss cpu_loss, gpu_loss;
          auto cpu = make_word2vec_cpu_backend(model, cpu_in, cpu_out, layout, 1, {}, summed);
          auto gpu = cuda_backend(model, input, output, 2, negatives, 1, placement, DType::f32, 0, layout, summed);
          for (int round = 0; round < 2; ++round) {
            cpu->train(batch, 0, cpu_loss);
            gpu->train(batch, 0, gpu_loss);
            gpu->finish(0, gpu_loss);
          }
          gpu->copy_tables_to_host();
          INFO(optimizer_name(optimizer) << ", " << model_name(model) << ", dim " << dim << ", " << placement.name);
          // Whole rows: the vectors and the state.
          CHECK(max_relative_error(input, cpu_in) < tolerance);
          CHECK(max_relative_error(output, cpu_out) < tolerance);
          CHECK(cpu_in.row(0)[layout.padded()] != 0);  // the state the comparison covers has moved
          CHECK(gpu_loss.sum == Approx(cpu_loss.sum).epsilon(1e-5));
          CHECK(gpu_loss.examples == cpu_loss.examples);
        }
      }
    }
  }
}

TEST_CASE("only the kernels that add element pairs by one atomic say they do", "[gpu]") {
  // EMBED_GPU_PAIR_ATOMICS=1 changes skip-gram's SGD kernels (and fastText's) on sm_90:
  // CBOW's and the rules with state add their rows otherwise, and say nothing of it.
  const ScopedEnvironment pairs("EMBED_GPU_PAIR_ATOMICS", "1");
  const bool sm90 = the_device.compute_major >= 9;
  RowMatrix input(64, 8), output(64, 8);
  CHECK((cuda_backend(Model::skipgram, input, output, 2, 2, 1, kPlacements[0])->name().find("one atomic") !=
         std::string::npos) == sm90);
  CHECK(cuda_backend(Model::cbow, input, output, 2, 2, 1, kPlacements[0])->name().find("one atomic") == std::string::npos);
  const Word2vecLayout layout(8, Optimizer::adagrad);
  RowMatrix state_in = make_word2vec_table(64, layout, true, 1, 1), state_out = make_word2vec_table(64, layout, true, 2, 1);
  CHECK(cuda_backend(Model::skipgram, state_in, state_out, 2, 2, 1, kPlacements[0], DType::f32, 0, layout)
            ->name()
            .find("one atomic") == std::string::npos);
}

TEST_CASE("f16 and bf16 tables train one batch to the CPU's result within their precision", "[gpu]") {
  for (DType storage : {DType::f16, DType::bf16}) {
    for (const Placement& placement : kPlacements) {
      RowMatrix input(40 * 9, 64), output(40 * 9, 64);
      fill_uniform(input, 3, 0.125f);
      fill_uniform(output, 4, 0.125f);
      RowMatrix cpu_in = copy_of(input), cpu_out = copy_of(output);
      const WindowBatch batch = disjoint_batch(40, 5);
      BatchLoss cpu_loss, gpu_loss;
      make_word2vec_cpu_backend(Model::skipgram, cpu_in, cpu_out, 1)->train(batch, 0, cpu_loss);
      auto gpu = cuda_backend(Model::skipgram, input, output, 2, 5, 1, placement, storage);
      gpu->train(batch, 0, gpu_loss);
      gpu->finish(0, gpu_loss);
      gpu->copy_tables_to_host();
      INFO(vector_dtype_name(storage) << ", " << placement.name);
      // Rounded when stored and again when updated: a few ulps (2^-11 for f16, 2^-8 for bf16)
      // of values around 0.1, whose updates are around 0.01.
      const double tolerance = storage == DType::f16 ? 4e-3 : 2e-2;
      CHECK(max_relative_error(input, cpu_in, 1e-2) < tolerance);
      CHECK(max_relative_error(output, cpu_out, 1e-2) < tolerance);
    }
  }
}

TEST_CASE("host and device placements train to the same quality as the CPU", "[gpu]") {
  const Corpus corpus = topic_corpus(11, 4000, 40, 500);
  for (Model model : {Model::skipgram, Model::cbow}) {
    const TrainSettings s = quality_settings(model, 4);
    // Each placement trains its own tables from the same start.
    double cpu_separation = 0, cpu_loss = 0;
    for (int which = -1; which < kQualityCount; ++which) {
      RowMatrix input(corpus.vocab.size(), s.dim), output(corpus.vocab.size(), s.dim);
      init_uniform(input, s.seed, 1);
      std::unique_ptr<Word2vecBackend> backend =
          which < 0 ? make_word2vec_cpu_backend(model, input, output, s.threads)
                    : cuda_backend(model, input, output, s.window, s.negative, s.threads, kQualityPlacements[which]);
      const double last_epoch_loss = train_whole_run(s, corpus, *backend);
      const double separation = topic_separation(corpus, input);
      std::printf("%s, %s: separation %.3f, last epoch loss %.4f\n", model_name(model).data(),
                  which < 0 ? "cpu" : kQualityPlacements[which].name, separation, last_epoch_loss);
      if (which < 0) {
        cpu_separation = separation;
        cpu_loss = last_epoch_loss;
        continue;
      }
      INFO(model_name(model) << ", " << kQualityPlacements[which].name);
      // Windows of a batch run at once on the GPU (each sees the rows as the batch
      // found them, plus whatever atomics landed): close to, not the same as, the CPU.
      CHECK(separation > 0.5 * cpu_separation);
      CHECK(separation == Approx(cpu_separation).epsilon(0.15));
      CHECK(last_epoch_loss == Approx(cpu_loss).epsilon(0.05));
    }
  }
}

// Several batches' kernels at once (EMBED_GPU_KERNEL_LANES), each capped at its share of
// the windows in flight, train as one batch's kernels at a time do (host placement, every
// row hot, as in the test above: this vocabulary's rows are all as busy as a frequent word's).
TEST_CASE("batches' kernels on several compute streams train to the CPU's quality", "[gpu]") {
  const Corpus corpus = topic_corpus(11, 4000, 40, 500);
  const TrainSettings s = quality_settings(Model::skipgram, 4);
  double separation_of[2] = {}, loss_of[2] = {};
  for (const char* lanes : {"1", "4"}) {
    const ScopedEnvironment chosen("EMBED_GPU_KERNEL_LANES", lanes);
    RowMatrix input(corpus.vocab.size(), s.dim), output(corpus.vocab.size(), s.dim);
    init_uniform(input, s.seed, 1);
    std::unique_ptr<Word2vecBackend> backend =
        cuda_backend(Model::skipgram, input, output, s.window, s.negative, s.threads, kQualityPlacements[1]);
    INFO(backend->name());
    CHECK((lanes[0] == '1') == (backend->name().find("batches' kernels") == std::string::npos));
    const int which = lanes[0] == '1' ? 0 : 1;
    loss_of[which] = train_whole_run(s, corpus, *backend);
    separation_of[which] = topic_separation(corpus, input);
    std::printf("skipgram, host, gather, all hot, %s kernel lanes: separation %.3f, last epoch loss %.4f\n", lanes,
                separation_of[which], loss_of[which]);
  }
  CHECK(separation_of[1] == Approx(separation_of[0]).epsilon(0.15));
  CHECK(loss_of[1] == Approx(loss_of[0]).epsilon(0.05));
}

TEST_CASE("summed steps train adam on the GPU as on the CPU", "[gpu]") {
  // The GPU's summed steps (kSummedWindows) against the CPU's summed steps of as many
  // windows, from the same start, at the GPU's starting rates for adam.
  const Corpus corpus = topic_corpus(11, 4000, 40, 500);
  for (Model model : {Model::skipgram, Model::cbow}) {
    TrainSettings s = quality_settings(model, 4);
    s.optimizer = Optimizer::adam;
    s.lr = training_model(model).run_starting_lr(s, {corpus.words * s.epochs, corpus.vocab.size()}, true);
    const Word2vecLayout layout(s);
    double cpu_separation = 0, cpu_loss = 0;
    for (int which = -1; which < kQualityCount; ++which) {
      RowMatrix input = make_word2vec_table(corpus.vocab.size(), layout, true, s.seed, 1);
      RowMatrix output = make_word2vec_table(corpus.vocab.size(), layout, false, s.seed, 1);
      std::unique_ptr<Word2vecBackend> backend =
          which < 0 ? make_word2vec_cpu_backend(model, input, output, layout, s.threads, {}, kSummedWindows)
                    : cuda_backend(model, input, output, s.window, s.negative, s.threads, kQualityPlacements[which], DType::f32,
                                   0, layout, kSummedWindows);
      const double last_epoch_loss = train_whole_run(s, corpus, *backend);
      const double separation = topic_separation(corpus, input, s.dim);
      std::printf("adam, summed, %s, %s: separation %.3f, last epoch loss %.4f\n", model_name(model).data(),
                  which < 0 ? "cpu" : kQualityPlacements[which].name, separation, last_epoch_loss);
      if (which < 0) {
        cpu_separation = separation;
        cpu_loss = last_epoch_loss;
        continue;
      }
      INFO(model_name(model) << ", " << kQualityPlacements[which].name);
      CHECK(separation == Approx(cpu_separation).epsilon(0.15));
      CHECK(last_epoch_loss == Approx(cpu_loss).epsilon(0.05));
    }
  }
}

TEST_CASE("a 2,000,000 x 128 table trains with 256 MB of GPU memory", "[gpu][large]") {
  // 1 GB per f32 table, four times the budget: host placement, rows moved per batch.
  const std::size_t rows = 2000000, dim = 128;
  Corpus corpus;
  corpus.vocab.words.reserve(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    corpus.vocab.words.push_back("w" + std::to_string(r));
    corpus.vocab.counts.push_back(static_cast<std::int64_t>(1000000 / (r + 1)) + 1);  // Zipf-like
  }
  // 4M tokens drawn Zipf-like, in pairs that always follow each other: something to
  // learn. One line, on disk as the epochs read it.
  Random random(5, 5);
  std::string text;
  for (std::size_t i = 0; i < 2000000; ++i) {
    const auto u = random.uniform();
    const auto id = static_cast<std::uint32_t>(std::min<double>(rows - 2, std::exp(u * std::log(double(rows))) - 1));
    text += corpus.vocab.words[id & ~1u] + " " + corpus.vocab.words[(id & ~1u) + 1] + " ";
  }
  const std::string path = (std::filesystem::temp_directory_path() / "embed-gpu-test-2M.txt").string();
  std::ofstream(path, std::ios::binary) << text;
  const std::unique_ptr<const char, int (*)(const char*)> remove_later(path.c_str(), std::remove);
  corpus.files = {describe_corpus_file(path)};
  corpus.words = corpus.tokens = 4000000;
  TrainSettings s;
  s.dim = dim;
  s.epochs = 2;
  s.sample = 0;
  s.threads = 8;
  // The CPU's last epoch loss is the yardstick; each run starts from the same tables.
  double cpu_loss = 0;
  for (int which = -1; which < 2; ++which) {
    const HostTransfer transfer = which == 1 ? HostTransfer::mapped : HostTransfer::gather;
    const Placement placement{TablePlacement::automatic, transfer,
                              which < 0                          ? "cpu"
                              : transfer == HostTransfer::gather ? "gather"
                                                                 : "mapped"};
    RowMatrix input(rows, dim), output(rows, dim);
    init_uniform(input, s.seed, s.threads);
    auto backend = which < 0 ? make_word2vec_cpu_backend(Model::skipgram, input, output, s.threads)
                             : cuda_backend(Model::skipgram, input, output, s.window, s.negative, s.threads, placement,
                                            DType::f32, 256ull << 20);
    INFO(backend->name());
    if (which >= 0) REQUIRE(backend->name().find("pinned host memory") != std::string::npos);
    Word2vecTrainer trainer(s, corpus, *backend);
    TrainState state = Word2vecTrainer::start_state(corpus, s.threads, s.seed);
    std::atomic<bool> stop{false};
    std::vector<double> losses;
    REQUIRE(trainer.run(
        state, stop, [&](const TrainProgress& p) { losses.push_back(p.loss); }, nullptr));
    std::printf("2M x 128 at 256 MB, %s: epoch losses %.4f, %.4f (%s)\n", placement.name, losses[0], losses[1],
                backend->name().c_str());
    REQUIRE(losses.size() == 2);
    CHECK(losses[1] < losses[0]);
    if (which < 0) cpu_loss = losses[1];
    else CHECK(losses[1] == Approx(cpu_loss).epsilon(0.05));
    bool finite = true;
    for (float v : input.span()) finite = finite && std::isfinite(v);
    for (float v : output.span()) finite = finite && std::isfinite(v);
    CHECK(finite);
  }
}

int main(int argc, char** argv) { return run_gpu_tests(argc, argv); }

TEST_CASE("a round between ranks reads, adds to and sets the rows the GPU holds", "[gpu][mpi]") {
  for (const DType storage : {DType::f32, DType::f16}) {
    for (int which = 0; which < kQualityCount; ++which) {
      RowMatrix input(64, 8), output(64, 8);
      fill_uniform(input, 3, 0.5f);
      const RowMatrix start = copy_of(input);
      auto backend = cuda_backend(Model::skipgram, input, output, 2, 2, 1, kQualityPlacements[which], storage);
      RowHome* home = backend->row_home();
      REQUIRE(home != nullptr);
      // As RankAveraging::set_home does before training: the buffer the rounds' changes
      // pass through is made now, not at each round (cudaFree would stall every kernel).
      home->host_rows_shared();
      INFO(kQualityPlacements[which].name << ", " << dtype_name(storage));
      // Added while the rows live on the GPU, then read back: what was there plus `added`.
      std::vector<float> added(2 * input.stride(), 0.0f);
      for (std::size_t e = 0; e < 8; ++e) {
        added[e] = 1.0f;
        added[input.stride() + e] = -0.5f;
      }
      home->add_to_rows(input, 1, 3, added);
      home->rows_to_host(input, 0, 64);
      const RowMatrix& seen = input;
      const float tolerance = storage == DType::f32 ? 1e-6f : 2e-2f;
      CHECK(std::abs(seen.row(1)[0] - (start.row(1)[0] + 1.0f)) <= tolerance);
      CHECK(std::abs(seen.row(2)[7] - (start.row(2)[7] - 0.5f)) <= tolerance);
      CHECK(std::abs(seen.row(5)[3] - start.row(5)[3]) <= tolerance);
      // Set from the host: the GPU's rows become the host's.
      input.row(4)[2] = 7.0f;
      home->rows_from_host(input, 4, 5);
      backend->copy_tables_to_host();
      CHECK(input.row(4)[2] == 7.0f);
    }
  }
}

TEST_CASE("two ranks on the GPU share their rows into one model that learns the topics", "[gpu][mpi]") {
  const Corpus corpus = topic_corpus(11, 4000, 40, 500);
  const TrainSettings s = quality_settings(Model::skipgram, 2);
  for (int which = 0; which < kQualityCount; ++which) {
    test::ThreadJob job(2);
    std::vector<RowMatrix> inputs(2), outputs(2);
    std::vector<char> finished(2);
    std::vector<std::uint64_t> words(2);
    job.run([&](Cluster& rank) {
      const unsigned r = rank.rank();
      RowMatrix& input = inputs[r] = RowMatrix(corpus.vocab.size(), s.dim);
      RowMatrix& output = outputs[r] = RowMatrix(corpus.vocab.size(), s.dim);
      init_uniform(input, s.seed, 1);
      auto backend = cuda_backend(s.model, input, output, s.window, s.negative, s.threads, kQualityPlacements[which]);
      Word2vecTrainer trainer(s, corpus, *backend);
      RankAveraging averaging(rank, {&input, &output}, 64);
      averaging.set_home(backend->row_home());
      trainer.share_with_ranks(rank_sync(rank, averaging), 0.02);
      TrainState state = Word2vecTrainer::start_state(corpus, s.threads, s.seed, r, 2);
      std::atomic<bool> stop{false};
      finished[r] = trainer.run(state, stop, nullptr, nullptr);
      words[r] = state.items_done;
    });
    INFO(kQualityPlacements[which].name);
    CHECK(finished == std::vector<char>{1, 1});
    CHECK(words[0] == corpus.words * s.epochs);
    CHECK(std::memcmp(inputs[0].data(), inputs[1].data(), inputs[0].span().size_bytes()) == 0);
    CHECK(std::memcmp(outputs[0].data(), outputs[1].data(), outputs[0].span().size_bytes()) == 0);
    const double separation = topic_separation(corpus, inputs[0]);
    std::printf("two ranks on the GPU, %s: separation %.3f\n", kQualityPlacements[which].name, separation);
    CHECK(separation > 0.3);
  }
}
