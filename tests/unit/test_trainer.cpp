// The trainer: the backend's arithmetic against a plain reference, batch planning,
// learning on a corpus with planted structure, determinism, and checkpoint/resume.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "cluster/cluster.h"
#include "core/half.h"
#include "test_util.h"
#include "thread_cluster.h"
#include "train/corpus/corpus.h"
#include "train/files/checkpoint.h"
#include "train/files/vectors_output.h"
#include "train/ranks/rank_averaging.h"
#include "train/ranks/round_length.h"
#include "train/ranks/rank_state.h"
#include "train/run/model_registry.h"
#include "train/word2vec/subword_cpu_backend.h"
#include "train/word2vec/word2vec_trainer.h"
#include "train_fixtures.h"

using namespace embed;
using test::cosine;

namespace {

// Reference skip-gram / CBOW update for one window, in double, as word2vec does it
// (with the window's negatives shared by its context rows).
void reference_window(Model model, std::vector<std::vector<double>>& in, std::vector<std::vector<double>>& out,
                      const std::vector<std::uint32_t>& inputs, std::uint32_t target, const std::vector<std::uint32_t>& negatives,
                      double lr) {
  std::vector<std::uint32_t> outputs{target};
  for (auto n : negatives) {
    if (n != target) outputs.push_back(n);
  }
  const std::size_t dim = in[0].size();
  auto sigmoid = [](double x) { return 1 / (1 + std::exp(-x)); };
  if (model == Model::skipgram) {
    // Context row after context row: each scores the outputs as the previous one left
    // them, and is updated before the next one is scored.
    for (auto c : inputs) {
      std::vector<double> grad(dim, 0);
      for (std::size_t o = 0; o < outputs.size(); ++o) {
        double score = 0;
        for (std::size_t i = 0; i < dim; ++i) score += in[c][i] * out[outputs[o]][i];
        const double g = ((o == 0 ? 1.0 : 0.0) - sigmoid(score)) * lr;
        for (std::size_t i = 0; i < dim; ++i) {
          grad[i] += g * out[outputs[o]][i];
          out[outputs[o]][i] += g * in[c][i];
        }
      }
      for (std::size_t i = 0; i < dim; ++i) in[c][i] += grad[i];
    }
  } else {
    std::vector<double> mean(dim, 0), grad(dim, 0);
    for (auto c : inputs) {
      for (std::size_t i = 0; i < dim; ++i) mean[i] += in[c][i] / static_cast<double>(inputs.size());
    }
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      double score = 0;
      for (std::size_t i = 0; i < dim; ++i) score += mean[i] * out[outputs[o]][i];
      const double g = ((o == 0 ? 1.0 : 0.0) - sigmoid(score)) * lr;
      for (std::size_t i = 0; i < dim; ++i) {
        grad[i] += g * out[outputs[o]][i];
        out[outputs[o]][i] += g * mean[i];
      }
    }
    for (auto c : inputs) {
      for (std::size_t i = 0; i < dim; ++i) in[c][i] += grad[i];
    }
  }
}

Corpus topic_corpus(unsigned seed) { return test::topic_corpus(seed, 400, 30, 15); }

TrainSettings small_settings(Model model) {
  TrainSettings s;
  s.model = model;
  s.dim = 16;
  s.window = 3;
  s.negative = 4;
  s.sample = 0;
  s.epochs = 3;
  s.lr = model == Model::skipgram ? 0.025f : 0.05f;
  s.seed = 5;
  s.threads = 1;
  return s;
}

struct Tables {
  RowMatrix input, output;
};

// Fresh tables for `s` (its optimizer's state in the rows, --subwords' bucket rows after
// the vocabulary's), as embed-train makes them.
Tables fresh_tables(const TrainSettings& s, const Corpus& corpus) {
  const Word2vecLayout layout(s);
  const std::size_t words = corpus.vocab.size();
  return {make_word2vec_table(training_model(s.model).input_rows(s, words), layout, true, s.seed, s.threads),
          make_word2vec_table(words, layout, false, s.seed, s.threads)};
}

// The CPU backend embed-train trains `s` with: fastText's with --subwords (with the rows
// it lists for each word), else word2vec's.
struct CpuBackend {
  std::unique_ptr<SubwordRows> subwords;
  std::unique_ptr<Word2vecBackend> backend;
};
CpuBackend cpu_backend(const TrainSettings& s, const Corpus& corpus, RowMatrix& input, RowMatrix& output) {
  if (!s.subwords) return {nullptr, make_word2vec_cpu_backend(s.model, input, output, Word2vecLayout(s), s.threads)};
  auto subwords = std::make_unique<SubwordRows>(corpus.vocab, subword_settings(s));
  auto backend = make_subword_cpu_backend(s.model, input, output, Word2vecLayout(s), *subwords, s.threads);
  return {std::move(subwords), std::move(backend)};
}

Tables train(const TrainSettings& s, const Corpus& corpus) {
  Tables t = fresh_tables(s, corpus);
  const CpuBackend cpu = cpu_backend(s, corpus, t.input, t.output);
  Word2vecTrainer trainer(s, corpus, *cpu.backend);
  TrainState state = Word2vecTrainer::start_state(corpus, s.threads, s.seed);
  std::atomic<bool> stop{false};
  REQUIRE(trainer.run(state, stop, nullptr, nullptr));
  REQUIRE(state.epoch == s.epochs);
  return t;
}

// A backend that asks the trainer to stop after a given number of batches.
class StoppingBackend final : public Word2vecBackend {
 public:
  StoppingBackend(Word2vecBackend& inner, std::atomic<bool>& stop, int batches) : inner_(inner), stop_(stop), left_(batches) {}
  std::string name() const override { return "stopping"; }
  void train(const WindowBatch& batch, unsigned worker, BatchLoss& loss) override {
    inner_.train(batch, worker, loss);
    if (--left_ == 0) stop_.store(true);
  }

 private:
  Word2vecBackend& inner_;
  std::atomic<bool>& stop_;
  int left_;
};

bool same_bits(const RowMatrix& a, const RowMatrix& b) {
  return a.rows() == b.rows() && a.stride() == b.stride() &&
         std::memcmp(a.data(), b.data(), a.rows() * a.stride() * sizeof(float)) == 0;
}

// A run of `s` from fresh tables stopped by its backend after `batches` batches (by default
// 18: in epoch 2 of a corpus of 12 batches an epoch), checkpointed at `path`: what was saved
// and what loads back.
struct Stopped {
  TrainingRun saved, loaded;
};
Stopped stop_and_checkpoint(const TrainSettings& s, const Corpus& corpus, const std::string& path, int batches = 18) {
  Tables part = fresh_tables(s, corpus);
  const CpuBackend cpu = cpu_backend(s, corpus, part.input, part.output);
  std::atomic<bool> stop{false};
  StoppingBackend stopping(*cpu.backend, stop, batches);
  Word2vecTrainer first(s, corpus, stopping);
  TrainState state = Word2vecTrainer::start_state(corpus, s.threads, s.seed);
  REQUIRE_FALSE(first.run(state, stop, nullptr, nullptr));
  REQUIRE(state.epoch == 1);
  OutputSettings output;
  output.output = "out.emb";
  output.min_count = 1;
  TrainingRun saved{s, output, corpus, std::move(part.input), std::move(part.output), state, {}};
  save_checkpoint(path, saved);
  return {std::move(saved), load_checkpoint(path)};
}

// Tables of `rows` × `dim` with the same random values as float rows (for a backend)
// and double rows (for reference_window); dim not a multiple of 16 checks the padding.
struct ReferenceTables {
  RowMatrix input, output;
  std::vector<std::vector<double>> in, out;
  ReferenceTables(std::size_t rows, std::size_t dim, std::uint64_t seed)
      : input(rows, dim), output(rows, dim), in(rows, std::vector<double>(dim)), out(in) {
    Random random(seed, 0);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t i = 0; i < dim; ++i) {
        in[r][i] = input.row(r)[i] = random.uniform() - 0.5f;
        out[r][i] = output.row(r)[i] = (random.uniform() - 0.5f) * 0.5f;
      }
    }
  }
};

}  // namespace

TEST_CASE("CPU backend: one batch equals the reference update", "[train]") {
  for (Model model : {Model::skipgram, Model::cbow}) {
    const std::size_t rows = 12, dim = 37;  // dim not a multiple of 16: padding must stay inert
    ReferenceTables tables(rows, dim, 3);
    RowMatrix &input = tables.input, &output = tables.output;
    auto &in = tables.in, &out = tables.out;
    WindowBatch batch;
    batch.learning_rate = 0.1f;
    batch.negatives_per_window = 3;
    // Windows that share rows, a negative equal to the target, a repeated input.
    const std::vector<std::vector<std::uint32_t>> inputs = {{1, 2, 3, 4}, {2, 5}, {7, 7, 8, 9, 10, 11}};
    const std::vector<std::uint32_t> targets = {0, 3, 6};
    const std::vector<std::vector<std::uint32_t>> negatives = {{5, 6, 0}, {9, 10, 11}, {1, 2, 3}};
    for (std::size_t w = 0; w < targets.size(); ++w) {
      batch.targets.push_back(targets[w]);
      batch.inputs.insert(batch.inputs.end(), inputs[w].begin(), inputs[w].end());
      batch.input_offsets.push_back(static_cast<std::uint32_t>(batch.inputs.size()));
      batch.negatives.insert(batch.negatives.end(), negatives[w].begin(), negatives[w].end());
      reference_window(model, in, out, inputs[w], targets[w], negatives[w], 0.1);
    }
    auto backend = make_word2vec_cpu_backend(model, input, output, 1);
    BatchLoss loss;
    backend->train(batch, 0, loss);
    REQUIRE(loss.examples == (model == Model::skipgram ? 12u : 3u));
    REQUIRE(loss.sum > 0);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t i = 0; i < input.stride(); ++i) {
        if (i >= dim) {
          REQUIRE(input.row(r)[i] == 0.0f);
          REQUIRE(output.row(r)[i] == 0.0f);
          continue;
        }
        // The table's sigmoid has steps of 0.002: a bound far below any real change.
        REQUIRE(std::abs(input.row(r)[i] - in[r][i]) < 2e-4);
        REQUIRE(std::abs(output.row(r)[i] - out[r][i]) < 2e-4);
      }
    }
  }
}

TEST_CASE("plan_batch: reduced windows inside the sentence, negatives per window", "[train]") {
  CorpusOptions options;
  options.min_count = 1;
  const Corpus corpus = corpus_from_text("a b c d e f g\nh i\nj", options);
  TrainSettings s = small_settings(Model::skipgram);
  s.window = 2;
  s.negative = 3;
  RowMatrix in(corpus.vocab.size(), 4), out(corpus.vocab.size(), 4);
  auto backend = make_word2vec_cpu_backend(s.model, in, out, 1);
  Word2vecTrainer trainer(s, corpus, *backend);
  // Sentences end at line ends and after max_rows words.
  const auto sentences = test::corpus_sentences(corpus);
  REQUIRE(sentences == std::vector<std::vector<std::uint32_t>>{{0, 1, 2, 3, 4, 5, 6}, {7, 8}, {9}});
  REQUIRE(test::corpus_sentences(corpus, 3) == std::vector<std::vector<std::uint32_t>>{{0, 1, 2}, {3, 4, 5}, {6}, {7, 8}, {9}});
  const std::vector<std::uint32_t>& sentence = sentences[0];
  Random random(1, 0);
  WindowBatch batch;
  std::vector<std::uint32_t> kept;
  for (int trial = 0; trial < 50; ++trial) {
    trainer.plan_batch(sentence, 0.5f, random, batch, kept);
    REQUIRE(batch.learning_rate == 0.5f);
    REQUIRE(batch.windows() == 7);  // sample 0 keeps every word
    REQUIRE(batch.negatives.size() == 7 * 3);
    for (std::size_t w = 0; w < 7; ++w) {
      const auto inputs = batch.window_inputs(w);
      REQUIRE(batch.targets[w] == sentence[w]);
      REQUIRE(!inputs.empty());
      REQUIRE(inputs.size() <= 4);
      for (auto row : inputs) {
        REQUIRE(row != batch.targets[w]);  // every word of this sentence is distinct
        const auto at = std::find(sentence.begin(), sentence.end(), row) - sentence.begin();
        REQUIRE(std::abs(static_cast<long>(at) - static_cast<long>(w)) <= 2);
      }
    }
  }
  trainer.plan_batch(sentences[2], 0.5f, random, batch, kept);
  REQUIRE(batch.windows() == 0);  // a one-word sentence has no context

  // --pair-negatives: K negatives for each input, in the inputs' order.
  s.pair_negatives = true;
  Word2vecTrainer pair_trainer(s, corpus, *backend);
  for (int trial = 0; trial < 20; ++trial) {
    pair_trainer.plan_batch(sentence, 0.5f, random, batch, kept);
    REQUIRE(batch.negatives_per_input);
    REQUIRE(batch.negatives_per_window == 3);
    REQUIRE(batch.windows() == 7);
    REQUIRE(batch.negatives.size() == batch.inputs.size() * 3);
    REQUIRE(batch.input_negatives(batch.inputs.size() - 1).size() == 3);
  }
  s.model = Model::cbow;  // CBOW's one prediction per window has a window's negatives
  Word2vecTrainer cbow_trainer(s, corpus, *backend);
  cbow_trainer.plan_batch(sentence, 0.5f, random, batch, kept);
  REQUIRE(!batch.negatives_per_input);
  REQUIRE(batch.negatives.size() == 7 * 3);
}

TEST_CASE("CPU backend with --pair-negatives: each input against its own negatives, as word2vec", "[train]") {
  const std::size_t rows = 14, dim = 37;
  ReferenceTables t(rows, dim, 4);
  WindowBatch batch;
  batch.learning_rate = 0.1f;
  batch.negatives_per_window = 2;
  batch.negatives_per_input = true;
  // Two windows sharing rows; one input's negative equals the target; a repeated input.
  const std::vector<std::vector<std::uint32_t>> inputs = {{1, 2, 3}, {4, 4, 5}};
  const std::vector<std::uint32_t> targets = {0, 6};
  const std::vector<std::vector<std::vector<std::uint32_t>>> negatives = {{{7, 8}, {9, 0}, {10, 11}}, {{12, 13}, {7, 1}, {2, 3}}};
  for (std::size_t w = 0; w < targets.size(); ++w) {
    batch.targets.push_back(targets[w]);
    for (std::size_t c = 0; c < inputs[w].size(); ++c) {
      batch.inputs.push_back(inputs[w][c]);
      batch.negatives.insert(batch.negatives.end(), negatives[w][c].begin(), negatives[w][c].end());
      // word2vec's pair: one input, the target and that input's own negatives.
      reference_window(Model::skipgram, t.in, t.out, {inputs[w][c]}, targets[w], negatives[w][c], 0.1);
    }
    batch.input_offsets.push_back(static_cast<std::uint32_t>(batch.inputs.size()));
  }
  auto backend = make_word2vec_cpu_backend(Model::skipgram, t.input, t.output, 1);
  BatchLoss loss;
  backend->train(batch, 0, loss);
  REQUIRE(loss.examples == 6u);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t i = 0; i < dim; ++i) {
      REQUIRE(std::abs(t.input.row(r)[i] - t.in[r][i]) < 2e-4);
      REQUIRE(std::abs(t.output.row(r)[i] - t.out[r][i]) < 2e-4);
    }
  }
}

TEST_CASE("training separates two planted topics", "[train]") {
  const Corpus corpus = topic_corpus(1);
  REQUIRE(corpus.vocab.size() == 30);
  for (Model model : {Model::skipgram, Model::cbow}) {
    TrainSettings s = small_settings(model);
    s.epochs = 10;
    const Tables t = train(s, corpus);
    // Mean cosine within a topic exceeds the mean across topics by more than 0.6. Measured
    // (2026-11): skip-gram 0.890 (seeds 5, 6, 7: 0.890 to 0.890), CBOW 0.763 (0.763 to
    // 0.830); broken, lr / 100: 0.028 and 0.026, dim 1: 0.000. (This fixture is easy: one
    // or two epochs already give 0.89 to 0.91; the neighbour check below is the finer one.)
    const double separation = test::topic_separation(corpus, t.input);
    INFO("model " << model_name(model) << ": separation " << separation);
    REQUIRE(separation > 0.6);
    // Every word's nearest neighbour shares its topic.
    for (std::size_t a = 0; a < 30; ++a) {
      std::size_t best = a == 0 ? 1 : 0;
      for (std::size_t b = 0; b < 30; ++b) {
        if (b != a && cosine(t.input, a, b) > cosine(t.input, a, best)) best = b;
      }
      REQUIRE(corpus.vocab.words[a][0] == corpus.vocab.words[best][0]);
    }
  }
}

TEST_CASE("one thread and a seed give the same tables every time; another seed does not", "[train]") {
  const Corpus corpus = topic_corpus(2);
  TrainSettings s = small_settings(Model::skipgram);
  s.sample = 1e-2;  // subsampling draws too
  const Tables a = train(s, corpus), b = train(s, corpus);
  REQUIRE(same_bits(a.input, b.input));
  REQUIRE(same_bits(a.output, b.output));
  s.seed = 6;
  const Tables c = train(s, corpus);
  REQUIRE_FALSE(same_bits(a.input, c.input));
}

TEST_CASE("a run stopped mid-epoch and resumed from its checkpoint ends bit-identical", "[train]") {
  test::TempDir dir;
  // 120,000 words an epoch: batches of 10,000 words (the CPU backend's), 12 an epoch.
  const Corpus corpus = test::topic_corpus(3, 4000, 30, 15);
  for (unsigned threads : {1u, 2u}) {
    TrainSettings s = small_settings(Model::skipgram);
    s.sample = 1e-2;
    s.threads = threads;
    const Tables whole = train(s, corpus);

    Stopped stopped = stop_and_checkpoint(s, corpus, dir.file("run.ckpt"));
    const TrainingRun& saved = stopped.saved;
    const TrainState& state = saved.state;
    TrainingRun& c = stopped.loaded;
    REQUIRE(c.settings.threads == threads);
    REQUIRE(c.settings.dim == s.dim);
    REQUIRE(c.settings.sample == s.sample);
    REQUIRE(c.settings.lr == s.lr);
    REQUIRE(c.output.output == "out.emb");
    REQUIRE(c.corpus.files.size() == 1);
    REQUIRE(c.corpus.files[0].path == corpus.files[0].path);
    REQUIRE(c.corpus.words == corpus.words);
    REQUIRE(c.corpus.vocab.words == corpus.vocab.words);
    REQUIRE(c.state.shards == state.shards);
    REQUIRE(c.state.positions == state.positions);
    REQUIRE(c.state.random == state.random);
    REQUIRE(c.state.items_done == state.items_done);
    REQUIRE(same_bits(c.input, saved.input));

    auto resumed_cpu = make_word2vec_cpu_backend(c.settings.model, c.input, c.output_table, threads);
    Word2vecTrainer second(c.settings, c.corpus, *resumed_cpu);
    std::atomic<bool> no_stop{false};
    REQUIRE(second.run(c.state, no_stop, nullptr, nullptr));
    if (threads == 1) {
      REQUIRE(same_bits(c.input, whole.input));
      REQUIRE(same_bits(c.output_table, whole.output));
    } else {
      // Two Hogwild threads interleave differently in every run; the resumed run must still
      // learn: its topic separation at least half the uninterrupted run's. Measured
      // (2026-11, 21 runs of seeds 5, 6, 7): uninterrupted 0.53 to 1.38, resumed / uninterrupted
      // 0.76 to 1.27; broken: untrained tables -0.03 to 0.02, lr / 100 0.09 to 0.18
      // (ratio at most 0.34).
      const double whole_separation = test::topic_separation(corpus, whole.input);
      const double resumed_separation = test::topic_separation(corpus, c.input);
      INFO("separation: uninterrupted " << whole_separation << ", resumed " << resumed_separation);
      REQUIRE(whole_separation > 0.35);
      REQUIRE(resumed_separation > 0.5 * whole_separation);
    }
  }
}

// Each optimizer at the rate the model starts it at, its hyper-parameters resolved, as
// embed-train resolves them.
TrainSettings with_optimizer(TrainSettings s, const OptimizerSpec& spec) {
  s.optimizer = spec.optimizer;
  s.hyper = resolve_params(spec.optimizer, {});
  s.lr = training_model(s.model).starting_lr(spec.optimizer);
  return s;
}

TEST_CASE("skip-gram and CBOW learn the planted topics under every optimizer", "[train][optimizers]") {
  const Corpus corpus = topic_corpus(4);
  for (const Model model : {Model::skipgram, Model::cbow}) {
    for (const OptimizerSpec& spec : optimizers()) {
      const TrainSettings s = with_optimizer(small_settings(model), spec);
      const Tables t = train(s, corpus);
      const double separation = test::topic_separation(corpus, t.input, s.dim);  // the vectors, not their state
      INFO(model_name(model) << ", " << spec.name << ": separation " << separation);
      // Untrained tables separate the topics by about 0 (-0.03 to 0.02, the resume test's
      // measure; SGD at lr / 100: 0.09 to 0.18); every optimizer at its starting rate learns
      // them (measured: 0.76, adamax on skip-gram, to 1.93). The vectors' padding stays
      // zero: the state after it is the rule's alone.
      CHECK(separation > 0.2);
      const std::size_t padded = RowMatrix::stride_for(s.dim);
      bool padding_zero = true;
      for (std::size_t r = 0; r < t.input.rows(); ++r) {
        for (std::size_t i = s.dim; i < padded; ++i)
          padding_zero = padding_zero && t.input.row(r)[i] == 0 && t.output.row(r)[i] == 0;
      }
      CHECK(padding_zero);
      CHECK(t.input.stride() == Word2vecLayout(s).width());
    }
  }
}

TEST_CASE("a word2vec run with any optimizer resumes from its checkpoint bit-identical, its state included",
          "[train][optimizers]") {
  test::TempDir dir;
  // 3 batches an epoch, stopped after 4: in epoch 2, as the test above, on a quarter of its
  // corpus (20 runs of every optimizer and model: the corpus's size checks nothing here).
  const Corpus corpus = test::topic_corpus(3, 1000, 30, 15);
  for (const Model model : {Model::skipgram, Model::cbow}) {
    for (const OptimizerSpec& spec : optimizers()) {
      TrainSettings s = with_optimizer(small_settings(model), spec);
      s.epochs = 2;
      if (!std::isnan(spec.defaults.eps)) s.hyper.eps = 1e-7f;  // a hyper-parameter given is kept too
      const Tables whole = train(s, corpus);

      Stopped stopped = stop_and_checkpoint(s, corpus, dir.file("run.ckpt"), 4);
      const TrainingRun& saved = stopped.saved;
      TrainingRun& c = stopped.loaded;
      INFO(model_name(model) << ", " << spec.name);
      REQUIRE(c.settings.optimizer == s.optimizer);
      REQUIRE(same_bits(c.input, saved.input));  // the rows' state too
      REQUIRE(same_bits(c.output_table, saved.output_table));
      for (const OptimizerParamSpec& param : optimizer_param_specs()) {
        const float want = s.hyper.*param.field, got = c.settings.hyper.*param.field;
        CHECK((want == got || (std::isnan(want) && std::isnan(got))));
      }
      auto resumed_cpu = make_word2vec_cpu_backend(c.settings.model, c.input, c.output_table, Word2vecLayout(c.settings), 1);
      Word2vecTrainer second(c.settings, c.corpus, *resumed_cpu);
      std::atomic<bool> no_stop{false};
      REQUIRE(second.run(c.state, no_stop, nullptr, nullptr));
      CHECK(same_bits(c.input, whole.input));
      CHECK(same_bits(c.output_table, whole.output));
    }
  }
}

TEST_CASE("a run with subwords resumes from its checkpoint bit-identical, its bucket rows included", "[train][subwords]") {
  test::TempDir dir;
  const Corpus corpus = test::topic_corpus(3, 1000, 30, 15);  // 3 batches an epoch, stopped after 4
  for (const Model model : {Model::skipgram, Model::cbow}) {
    for (const Optimizer optimizer : {Optimizer::sgd, Optimizer::rowadagrad}) {
      TrainSettings s = with_optimizer(small_settings(model), optimizer_spec(optimizer));
      s.epochs = 2;
      s.subwords = true;
      s.buckets = 500;
      s.pair_negatives = model == Model::skipgram;  // as embed-train sets it
      const Tables whole = train(s, corpus);
      REQUIRE(whole.input.rows() == corpus.vocab.size() + 500);

      Stopped stopped = stop_and_checkpoint(s, corpus, dir.file("run.ckpt"), 4);
      TrainingRun& c = stopped.loaded;
      INFO(model_name(model) << ", " << optimizer_name(optimizer));
      REQUIRE(c.settings.subwords);
      REQUIRE((c.settings.minn == 3 && c.settings.maxn == 6 && c.settings.buckets == 500));
      REQUIRE(same_bits(c.input, stopped.saved.input));
      const CpuBackend resumed = cpu_backend(c.settings, c.corpus, c.input, c.output_table);
      Word2vecTrainer second(c.settings, c.corpus, *resumed.backend);
      std::atomic<bool> no_stop{false};
      REQUIRE(second.run(c.state, no_stop, nullptr, nullptr));
      CHECK(same_bits(c.input, whole.input));
      CHECK(same_bits(c.output_table, whole.output));
    }
  }
}

TEST_CASE("a checkpoint is the size of its tables, not of its corpus, and names the corpus it needs", "[train]") {
  test::TempDir dir;
  const TrainSettings s = small_settings(Model::skipgram);
  std::uintmax_t sizes[2];
  Corpus corpora[2] = {topic_corpus(8), test::topic_corpus(8, 40000, 30, 15)};  // 12k and 1.2M words
  for (int i = 0; i < 2; ++i) {
    const Corpus& corpus = corpora[i];
    REQUIRE(corpus.vocab.size() == 30);
    const TrainingRun run{s,
                          OutputSettings{},
                          corpus,
                          RowMatrix(corpus.vocab.size(), s.dim),
                          RowMatrix(corpus.vocab.size(), s.dim),
                          Word2vecTrainer::start_state(corpus, 1, s.seed),
                          {}};
    save_checkpoint(dir.file("c.ckpt"), run);
    sizes[i] = std::filesystem::file_size(dir.file("c.ckpt"));
  }
  REQUIRE(corpora[1].words == 100 * corpora[0].words);
  REQUIRE(sizes[1] <= sizes[0] + 64);  // a few digits of metadata more, no words
  // A corpus changed since the checkpoint was written is refused, naming the file.
  {
    std::ofstream append(corpora[1].files[0].path, std::ios::app);
    append << "a1 a2\n";
  }
  REQUIRE_ERROR_CONTAINS(load_checkpoint(dir.file("c.ckpt")), "the corpus changed since the checkpoint was written");
  ::unlink(corpora[1].files[0].path.c_str());
  REQUIRE_ERROR_CONTAINS(load_checkpoint(dir.file("c.ckpt")), "the corpus file is gone");
}

TEST_CASE("f16 tables hold their rows rounded once, and draw the f32 tables' values", "[train]") {
  // A GPU's host tables with --dtype f16 (row_matrix.h).
  RowMatrix wide(50, 37), half(50, 37, DType::f16);
  init_uniform(wide, 9, 2);
  init_uniform(half, 9, 2);
  REQUIRE(half.half());
  REQUIRE(half.row_bytes() == 48 * 2);
  REQUIRE(half.bytes().size() == 50 * 48 * 2);
  std::vector<float> row(half.stride());
  bool drawn_alike = true, padding_zero = true;
  for (std::size_t r = 0; r < 50; ++r) {
    half.load_row(r, row.data(), half.stride());
    for (std::size_t e = 0; e < 37; ++e) drawn_alike &= row[e] == f16_to_f32(f32_to_f16(wide.row(r)[e]));
    for (std::size_t e = 37; e < half.stride(); ++e) padding_zero &= row[e] == 0.0f;
  }
  CHECK(drawn_alike);
  CHECK(padding_zero);
  const RowMatrix back = widened(half);
  REQUIRE_FALSE(back.half());
  half.load_row(17, row.data(), 37);
  CHECK(std::equal(row.begin(), row.begin() + 37, back.row(17)));
  // The vectors written from it: each row widened.
  std::vector<float> out(37);
  table_rows(half, 37)(17, out.data());
  CHECK(std::equal(out.begin(), out.end(), back.row(17)));
  table_rows(half, 30, 4)(3, out.data());
  CHECK(std::equal(out.begin(), out.begin() + 30, back.row(3) + 4));
}

TEST_CASE("a checkpoint keeps f16 tables as they are, and --init reads them in f32", "[train]") {
  test::TempDir dir;
  const TrainSettings s = small_settings(Model::skipgram);
  const Corpus corpus = topic_corpus(8);
  RowMatrix input(corpus.vocab.size(), s.dim), output(corpus.vocab.size(), s.dim);
  test::fill_uniform(input, 3, 0.5f);
  test::fill_uniform(output, 4, 0.5f);
  OutputSettings out_settings;
  out_settings.output = "out.emb";
  out_settings.dtype = DType::f16;
  out_settings.min_count = 1;
  TrainingRun run{s,
                  out_settings,
                  corpus,
                  test::half_copy_of(input),
                  test::half_copy_of(output),
                  Word2vecTrainer::start_state(corpus, s.threads, s.seed),
                  {}};
  save_checkpoint(dir.file("h.ckpt"), run);
  const TrainingRun loaded = load_checkpoint(dir.file("h.ckpt"));
  REQUIRE(loaded.input.half());
  REQUIRE(loaded.output_table.half());
  CHECK(std::ranges::equal(loaded.input.bytes(), run.input.bytes()));
  CHECK(std::ranges::equal(loaded.output_table.bytes(), run.output_table.bytes()));
  const CheckpointTables tables = read_checkpoint_tables(dir.file("h.ckpt"));
  REQUIRE_FALSE(tables.input.half());
  CHECK(same_bits(tables.input, widened(run.input)));
  CHECK(same_bits(tables.output, widened(run.output_table)));
}

TEST_CASE("a damaged or foreign checkpoint is refused", "[train]") {
  test::TempDir dir;
  const Corpus corpus = topic_corpus(4);
  const TrainSettings s = small_settings(Model::cbow);
  const TrainingRun run{s,
                        OutputSettings{},
                        corpus,
                        RowMatrix(corpus.vocab.size(), s.dim),
                        RowMatrix(corpus.vocab.size(), s.dim),
                        Word2vecTrainer::start_state(corpus, s.threads, s.seed),
                        {}};
  save_checkpoint(dir.file("a.ckpt"), run);
  std::string bytes = test::read_file(dir.file("a.ckpt"));
  REQUIRE(load_checkpoint(dir.file("a.ckpt")).settings.model == Model::cbow);

  std::string flipped = bytes;
  flipped[flipped.size() - 10] ^= 0x40;
  test::write_file(dir.file("flipped.ckpt"), flipped);
  REQUIRE_ERROR_CONTAINS(load_checkpoint(dir.file("flipped.ckpt")), "damaged");
  test::write_file(dir.file("short.ckpt"), bytes.substr(0, bytes.size() - 100));
  REQUIRE_ERROR_CONTAINS(load_checkpoint(dir.file("short.ckpt")), "short.ckpt");
  test::write_file(dir.file("text.ckpt"), "hello world\n");
  REQUIRE_ERROR_CONTAINS(load_checkpoint(dir.file("text.ckpt")), "text.ckpt");
}

TEST_CASE("rank rounds share the hot rows every time and each band of rarer rows half as often", "[mpi]") {
  using Spans = std::vector<RowSpan>;
  // 1000 rows, 100 hot: bands [100,200) every 2nd round, [200,400) every 4th, [400,800)
  // every 8th, [800,1000) every 16th; adjoining ranges merge.
  CHECK(rows_of_round(1, 1000, 100) == Spans{{0, 100}});
  CHECK(rows_of_round(2, 1000, 100) == Spans{{0, 200}});
  CHECK(rows_of_round(4, 1000, 100) == Spans{{0, 400}});
  CHECK(rows_of_round(6, 1000, 100) == Spans{{0, 200}});
  CHECK(rows_of_round(8, 1000, 100) == Spans{{0, 800}});
  CHECK(rows_of_round(16, 1000, 100) == Spans{{0, 1000}});
  CHECK(rows_of_round(12, 1000, 100) == Spans{{0, 400}});
  // Every row is reached within 16 rounds.
  std::vector<int> reached(1000, 0);
  for (std::uint64_t round = 1; round <= 16; ++round) {
    for (const RowSpan& s : rows_of_round(round, 1000, 100)) {
      for (std::size_t r = s.first; r < s.end; ++r) ++reached[r];
    }
  }
  CHECK(reached[0] == 16);
  CHECK(reached[150] == 8);
  CHECK(reached[999] == 1);
  CHECK(std::count(reached.begin(), reached.end(), 0) == 0);
  // Fewer rows than hot: all of them, every round.
  CHECK(rows_of_round(3, 50, 100) == Spans{{0, 50}});
}

TEST_CASE("sharing over one process leaves the tables as they are", "[mpi]") {
  auto job = single_process_cluster();
  RowMatrix a(10, 3), b(10, 3);
  a.row(4)[1] = 2.5f;
  RankAveraging sharing(*job, {&a, &b}, 4);
  a.row(4)[1] = 3.0f;
  sharing.round();
  sharing.all();
  CHECK(a.row(4)[1] == 3.0f);
  CHECK(b.row(4)[1] == 0.0f);
}

TEST_CASE("counting a corpus on the ranks' path gives read_corpus's vocabulary", "[mpi]") {
  test::TempDir dir;
  const std::string a = dir.file("a.txt"), b = dir.file("b.txt");
  std::ofstream(a) << "the cat sat on the mat\nthe dog\n";
  std::ofstream(b) << "a cat and a dog and the end";  // no final newline
  CorpusOptions options;
  options.min_count = 1;
  auto job = single_process_cluster();
  const Corpus ranks = read_corpus_on_ranks({a, b}, options, *job);
  const Corpus one = read_corpus({a, b}, options);
  CHECK(ranks.vocab.words == one.vocab.words);
  CHECK(ranks.vocab.counts == one.vocab.counts);
  CHECK(ranks.tokens == one.tokens);
  CHECK(ranks.words == one.words);
  REQUIRE_ERROR_CONTAINS(read_corpus_on_ranks({"-"}, options, *job), "standard input");
}

TEST_CASE("ranks counting on several threads each give read_corpus's vocabulary, ties included", "[mpi]") {
  // Words that tie in frequency, first seen in different ranks' and threads' parts, and
  // the parts sharing some words and not others.
  test::TempDir dir;
  const std::string a = dir.file("a.txt"), b = dir.file("b.txt");
  {
    std::ofstream out(a);
    for (int line = 0; line < 400; ++line) {
      out << "w" << line % 37 << " common x" << line << " y" << (line * 7) % 113 << (line % 5 == 0 ? "\n" : " ");
    }
  }
  std::ofstream(b) << "common tail z1 z2 z1 x399 w3";  // no final newline
  CorpusOptions options;
  options.min_count = 1;
  const Corpus one = read_corpus({a, b}, options);
  for (unsigned ranks : {1u, 2u, 3u}) {
    for (unsigned threads : {1u, 2u, 4u}) {
      options.threads = threads;
      test::ThreadJob job(ranks);
      std::vector<Corpus> counted(ranks);
      job.run([&](Cluster& rank) { counted[rank.rank()] = read_corpus_on_ranks({a, b}, options, rank); });
      for (const Corpus& c : counted) {
        INFO(ranks << " ranks, " << threads << " threads");
        CHECK(c.vocab.words == one.vocab.words);
        CHECK(c.vocab.counts == one.vocab.counts);
        CHECK(c.tokens == one.tokens);
        CHECK(c.words == one.words);
        CHECK(c.distinct_words == one.distinct_words);
      }
    }
  }
  // Ranks with different --threads (on machines with other core counts) cut the corpus
  // alike and count the same vocabulary.
  test::ThreadJob job(3);
  std::vector<Corpus> counted(3);
  job.run([&](Cluster& rank) {
    CorpusOptions mine = options;
    mine.threads = rank.rank() + 1;
    counted[rank.rank()] = read_corpus_on_ranks({a, b}, mine, rank);
  });
  for (const Corpus& c : counted) {
    CHECK(c.vocab.words == one.vocab.words);
    CHECK(c.vocab.counts == one.vocab.counts);
    CHECK(c.tokens == one.tokens);
  }
}

TEST_CASE("a job's checkpoint holds every rank's workers, and each rank of the resumed job takes its own", "[mpi]") {
  test::TempDir dir;
  const Corpus corpus = topic_corpus(3);
  TrainSettings s = small_settings(Model::skipgram);
  s.threads = 2;
  constexpr unsigned kRanks = 3;
  // What gather_rank_states makes of three ranks' states: their workers in rank order.
  std::vector<TrainState> ranks;
  TrainState job_state;
  for (unsigned r = 0; r < kRanks; ++r) {
    ranks.push_back(Word2vecTrainer::start_state(corpus, s.threads, s.seed, r, kRanks));
    ranks.back().positions[1] = ranks.back().shards[1].end;  // this worker is done
    for (std::size_t w = 0; w < ranks.back().shards.size(); ++w) {
      job_state.shards.push_back(ranks.back().shards[w]);
      job_state.positions.push_back(ranks.back().positions[w]);
      job_state.random.push_back(ranks.back().random[w]);
    }
  }
  job_state.epoch = 1;
  job_state.items_done = 1234;
  job_state.epoch_loss = 6.0;
  job_state.epoch_examples = 30;
  // One process's "job" is itself.
  auto one = single_process_cluster();
  const TrainState gathered = gather_rank_states(*one, ranks[1]);
  CHECK(gathered.shards == ranks[1].shards);
  CHECK(gathered.positions == ranks[1].positions);
  CHECK(gathered.random == ranks[1].random);

  TrainingRun run{
      s, OutputSettings{}, corpus, RowMatrix(corpus.vocab.size(), s.dim), RowMatrix(corpus.vocab.size(), s.dim), job_state, {}};
  run.ranks = kRanks;
  save_checkpoint(dir.file("job.ckpt"), run);
  const TrainingRun loaded = load_checkpoint(dir.file("job.ckpt"));
  REQUIRE(loaded.ranks == kRanks);
  REQUIRE(loaded.state.shards.size() == kRanks * s.threads);
  for (unsigned r = 0; r < kRanks; ++r) {
    const TrainState share = rank_share(loaded.state, r, kRanks);
    CHECK(share.shards == ranks[r].shards);
    CHECK(share.positions == ranks[r].positions);
    CHECK(share.random == ranks[r].random);
    CHECK(share.epoch == 1);
    CHECK(share.items_done == 1234);  // the job's, on every rank: the schedule's
    // The epoch's loss so far stays the job's when the ranks' are added up.
    CHECK(share.epoch_loss == (r == 0 ? 6.0 : 0.0));
    CHECK(share.epoch_examples == (r == 0 ? 30u : 0u));
  }
  // A checkpoint of one process says one rank.
  run.ranks = 1;
  run.state = ranks[0];
  save_checkpoint(dir.file("one.ckpt"), run);
  CHECK(load_checkpoint(dir.file("one.ckpt")).ranks == 1);
}

TEST_CASE("ranks add up their updates to shared rows, and leave an epoch with equal tables", "[mpi]") {
  // Catch's assertions are not for several threads: each rank notes what it saw.
  struct Seen {
    float hot_after_round, rare_after_round, own_after_round;
    float hot_after_all, later_after_all, rare_after_all, own_after_all;
    std::uint64_t sent;
  };
  test::ThreadJob job(2);
  std::vector<RowMatrix> shared(2), own(2);
  std::vector<Seen> seen(2);
  job.run([&](Cluster& rank) {
    const unsigned r = rank.rank();
    RowMatrix& a = shared[r] = RowMatrix(8, 3);
    RowMatrix& b = own[r] = RowMatrix(8, 3);
    // The second table is shared only when settled (first_settled_only 1).
    RankAveraging sharing(rank, {&a, &b}, 2, 1);
    a.row(1)[0] = r == 0 ? 1.0f : 2.0f;          // a hot row: both ranks changed it
    a.row(6)[2] = 0.5f * static_cast<float>(r);  // a rare row: not in round 1
    b.row(1)[0] = 4.0f * static_cast<float>(r);
    sharing.round();
    Seen& s = seen[r];
    s.hot_after_round = a.row(1)[0];
    s.rare_after_round = a.row(6)[2];
    s.own_after_round = b.row(1)[0];
    a.row(1)[1] = 1.0f;  // after the share: goes on top of the sum
    sharing.all();
    s.hot_after_all = a.row(1)[0];
    s.later_after_all = a.row(1)[1];
    s.rare_after_all = a.row(6)[2];
    s.own_after_all = b.row(1)[0];
    s.sent = rank.bytes_sent();
  });
  for (unsigned r = 0; r < 2; ++r) {
    const Seen& s = seen[r];
    CHECK(s.hot_after_round == 3.0f);                           // 1 + 2: neither rank's update divided or lost
    CHECK(s.rare_after_round == 0.5f * static_cast<float>(r));  // not shared yet
    CHECK(s.own_after_round == 4.0f * static_cast<float>(r));   // shared only when settled
    CHECK(s.hot_after_all == 3.0f);
    CHECK(s.later_after_all == 2.0f);
    CHECK(s.rare_after_all == 0.5f);
    CHECK(s.own_after_all == 4.0f);
    CHECK(s.sent > 0);
  }
  CHECK(same_bits(shared[0], shared[1]));
  CHECK(same_bits(own[0], own[1]));
}

TEST_CASE("a round's words by default shrink with the cube of the ranks past one", "[mpi]") {
  // text8-head x 8 (bench/RESULTS.md): a 32nd of a rank's share is far more than the cap.
  const std::uint64_t corpus = 9375568;
  CHECK(rank_round_words(1, corpus) == 65536);
  CHECK(rank_round_words(2, corpus) == 65536);
  CHECK(rank_round_words(3, corpus) == 8192);
  CHECK(rank_round_words(4, corpus) == 2427);
  CHECK(rank_round_words(5, corpus) == 1024);
  CHECK(rank_round_words(64, corpus) == 1);  // 65,536 / 250,047: under a word, so a round a batch
  // A small corpus: a 32nd of a rank's share, at least one word.
  CHECK(rank_round_words(2, 64000) == 1000);
  CHECK(rank_round_words(3, 10) == 1);
  // A worker's batch: its share of the round, from 1,000 words to the backend's most.
  CHECK(round_batch_words(8192, 1, 10000) == 8192);
  CHECK(round_batch_words(8192, 4, 10000) == 2048);
  CHECK(round_batch_words(2427, 16, 10000) == 1000);
  CHECK(round_batch_words(65536, 1, 10000) == 10000);
  CHECK(round_batch_words(8192, 16, 649) == 649);  // a GPU's smaller batch wins over the floor
}

TEST_CASE("two ranks train their halves of a corpus into one model, equal on both", "[mpi]") {
  const Corpus corpus = topic_corpus(4);
  TrainSettings s = small_settings(Model::skipgram);
  s.epochs = 10;
  test::ThreadJob job(2);
  std::vector<Tables> tables(2);
  std::vector<std::uint64_t> words_done(2);
  std::vector<char> finished(2);
  job.run([&](Cluster& rank) {
    const unsigned r = rank.rank();
    Tables& t = tables[r] = Tables{RowMatrix(corpus.vocab.size(), s.dim), RowMatrix(corpus.vocab.size(), s.dim)};
    init_uniform(t.input, s.seed, 1);  // the same start on every rank
    auto backend = make_word2vec_cpu_backend(s.model, t.input, t.output, 1);
    Word2vecTrainer trainer(s, corpus, *backend);
    RankAveraging averaging(rank, {&t.input, &t.output}, 8);
    trainer.share_with_ranks(rank_sync(rank, averaging), 0.005);
    TrainState state = Word2vecTrainer::start_state(corpus, 1, s.seed, r, 2);
    std::atomic<bool> stop{false};
    finished[r] = trainer.run(state, stop, nullptr, nullptr);
    words_done[r] = state.items_done;
  });
  CHECK(finished == std::vector<char>{1, 1});
  // The schedule counted the whole corpus on each rank, and the tables left equal.
  CHECK(words_done[0] == corpus.words * s.epochs);
  CHECK(words_done[1] == corpus.words * s.epochs);
  CHECK(same_bits(tables[0].input, tables[1].input));
  CHECK(same_bits(tables[0].output, tables[1].output));
  // Measured (2026-11): 1.242 in Release (seeds 5, 6, 7: 1.133 to 1.242), but 0.871 under the
  // sanitizers, whose slower ranks meet at other moments (rounds are timed); 1 epoch gives
  // 0.867 to 0.892, so the epochs' count is not what this can check. A model that learns
  // nothing scores about 0 (the planted-topic test's lr / 100: 0.03; untrained: 0.00).
  const double separation = test::topic_separation(corpus, tables[0].input);
  INFO("separation " << separation);
  CHECK(separation > 0.6);
}

// The CPU backend with batches of at most `words` corpus words, so that a rank's share of
// the topic corpus takes many chunks (a GPU's batches are 20,000 words of a far larger one).
class SmallBatches : public Word2vecBackend {
 public:
  SmallBatches(std::unique_ptr<Word2vecBackend> inner, std::size_t words) : inner_(std::move(inner)), words_(words) {}
  std::string name() const override { return inner_->name(); }
  void train(const WindowBatch& batch, unsigned worker, BatchLoss& loss) override { inner_->train(batch, worker, loss); }
  std::size_t max_batch_words() const override { return words_; }

 private:
  std::unique_ptr<Word2vecBackend> inner_;
  std::size_t words_;
};

TEST_CASE("with a words budget the ranks share after every budget of words whatever their speed", "[mpi]") {
  // Rounds by time alone (3600 s) come at the epochs' ends only; a budget of a tenth of a
  // rank's share of an epoch makes about ten rounds an epoch, and no rank trains more than
  // the budget and one batch between two. The ranks still leave with equal tables and
  // the topics learnt.
  const Corpus corpus = topic_corpus(4);
  TrainSettings s = small_settings(Model::skipgram);
  s.epochs = 4;
  const std::uint64_t share = corpus.words / 2, budget = share / 10, batch = 120;
  for (const std::uint64_t words : {std::uint64_t{0}, budget}) {
    test::ThreadJob job(2);
    std::vector<Tables> tables(2);
    std::vector<std::uint64_t> rounds(2), most_between(2);
    job.run([&](Cluster& rank) {
      const unsigned r = rank.rank();
      Tables& t = tables[r] = Tables{RowMatrix(corpus.vocab.size(), s.dim), RowMatrix(corpus.vocab.size(), s.dim)};
      init_uniform(t.input, s.seed, 1);
      SmallBatches backend(make_word2vec_cpu_backend(s.model, t.input, t.output, 1), batch);
      Word2vecTrainer trainer(s, corpus, backend);
      RankAveraging averaging(rank, {&t.input, &t.output}, 8);
      auto sync = rank_sync(rank, averaging);
      std::uint64_t items_before = 0;
      trainer.share_with_ranks(
          [&](const RankReport& report) {
            ++rounds[r];
            // Items this rank trained since its last round in this epoch.
            const std::uint64_t since =
                report.epoch_items >= items_before ? report.epoch_items - items_before : report.epoch_items;
            most_between[r] = std::max(most_between[r], since);
            const RankAgreement agreed = sync(report);
            items_before = agreed.all_done ? 0 : report.epoch_items;
            return agreed;
          },
          3600, words);
      TrainState state = Word2vecTrainer::start_state(corpus, 1, s.seed, r, 2);
      std::atomic<bool> stop{false};
      REQUIRE(trainer.run(state, stop, nullptr, nullptr));
    });
    INFO("budget " << words << " of a share of " << share << " words; rounds " << rounds[0] << ", " << rounds[1]
                   << "; most words between two " << most_between[0] << ", " << most_between[1]);
    CHECK(same_bits(tables[0].input, tables[1].input));
    CHECK(test::topic_separation(corpus, tables[0].input) > 0.6);
    for (unsigned r = 0; r < 2; ++r) {
      if (words == 0) {
        CHECK(rounds[r] == s.epochs);  // each epoch's end
      } else {
        CHECK(rounds[r] >= s.epochs * 9);
        CHECK(most_between[r] <= budget + batch);
      }
    }
  }
}

TEST_CASE("gathering the ranks' states puts their workers in rank order and adds up the epoch's loss", "[mpi]") {
  const Corpus corpus = topic_corpus(3);
  test::ThreadJob job(3);
  std::vector<TrainState> gathered(3);
  job.run([&](Cluster& rank) {
    TrainState mine = Word2vecTrainer::start_state(corpus, 2, 9, rank.rank(), 3);
    mine.epoch_loss = 1.0 + rank.rank();
    mine.epoch_examples = 10;
    gathered[rank.rank()] = gather_rank_states(rank, mine);
  });
  const TrainState all = Word2vecTrainer::start_state(corpus, 6, 9);
  for (const TrainState& g : gathered) {
    CHECK(g.shards == all.shards);
    CHECK(g.random == all.random);
    CHECK(g.epoch_loss == 6.0);
    CHECK(g.epoch_examples == 30);
  }
}

// Records the batches a trainer hands over, asking for `batch_words` words each.
class RecordingBackend final : public Word2vecBackend {
 public:
  explicit RecordingBackend(std::size_t batch_words) : batch_words_(batch_words) {}
  std::string name() const override { return "recording"; }
  void train(const WindowBatch& batch, unsigned, BatchLoss&) override { batches.push_back(batch); }
  std::size_t max_batch_words() const override { return batch_words_; }
  std::vector<WindowBatch> batches;

 private:
  std::size_t batch_words_;
};

TEST_CASE("a batch takes sentences until it holds the backend's words, and no window spans two", "[train]") {
  // One topic per line ('a' and 'b' lines alternate), 30 words a line: a window with words
  // of both topics would span a line break.
  const Corpus corpus = topic_corpus(4);
  TrainSettings s = small_settings(Model::skipgram);
  s.epochs = 1;
  for (std::size_t batch_words : {300u, 1000u, 10000u}) {
    RecordingBackend recording(batch_words);
    Word2vecTrainer trainer(s, corpus, recording);
    TrainState state = Word2vecTrainer::start_state(corpus, 1, s.seed);
    std::atomic<bool> stop{false};
    REQUIRE(trainer.run(state, stop, nullptr, nullptr));
    INFO("batches of " << batch_words << " words");
    // 12,000 words: full batches but the last, not a batch per line (which gave a GPU
    // batches of 20 words on a corpus of short lines: issue 36).
    CHECK(recording.batches.size() == (12000 + batch_words - 1) / batch_words);
    std::size_t windows = 0;
    for (const WindowBatch& b : recording.batches) {
      REQUIRE(b.windows() <= batch_words);
      windows += b.windows();
      for (std::size_t w = 0; w < b.windows(); ++w) {
        const char topic = corpus.vocab.words[b.targets[w]][0];
        for (std::uint32_t i = b.input_offsets[w]; i < b.input_offsets[w + 1]; ++i) {
          REQUIRE(corpus.vocab.words[b.inputs[i]][0] == topic);
        }
      }
    }
    // Every word is a window's target (no subsampling; a 30-word line has context for all).
    CHECK(windows == 12000);
  }
}
