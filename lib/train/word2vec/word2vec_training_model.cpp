#include "train/word2vec/word2vec_training_model.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include <spdlog/spdlog.h>

#include "core/error.h"
#include "core/progress.h"
#include "text/subword_table.h"
#include "train/corpus/corpus_shards.h"
#include "train/corpus/logged_corpus.h"
#include "train/gpu/hot_rows.h"
#include "train/ranks/rank_averaging.h"
#include "train/ranks/round_length.h"
#include "train/shards/round_words.h"
#include "train/shards/sharded_rounds.h"
#include "train/shards/sharded_tables.h"
#include "train/word2vec/subword_cpu_backend.h"
#include "train/word2vec/summed_steps.h"
#include "train/word2vec/word2vec_backend.h"
#include "train/word2vec/word2vec_trainer.h"

namespace embed {
namespace {

// A rate to two significant digits: the rate the log and the checkpoint show is the one
// trained at.
float two_digits(double rate) {
  const double unit = std::pow(10.0, std::floor(std::log10(rate)) - 1);
  return static_cast<float>(std::round(rate / unit) * unit);
}

// The words of the run the optimizers' starting rates were chosen on: text8-head's
// 1,104,259 words in the vocabulary, 5 epochs.
constexpr double kRateChosenOnWords = 5.5e6;

// `rate` (best for a run of kRateChosenOnWords) for a run of `run_words`: scaled by the root
// of their ratio where the run is longer.
float rate_for_run_length(float rate, std::uint64_t run_words) {
  const double words = static_cast<double>(run_words);
  if (words <= kRateChosenOnWords) return rate;
  return two_digits(rate * std::sqrt(kRateChosenOnWords / words));
}

// SGD's starting rate, the one every default run trains with, follows R, the words a run
// trains per distinct word of its corpus (its words, epochs included, over the distinct
// words before min-count): rate = most x (R / 100)^-0.7, to two digits, never below the
// fixed rate it had before (word2vec's). On text8-head the best rate fell about so whether
// R grew by epochs or by repeating the text: CBOW's 0.1 at 5 epochs (R = 95), 0.062 at 10,
// 0.038 at 20, 0.025 repeated 8 times (R = 808), 0.008 32 times; skip-gram's 0.05 at 5
// and 10 epochs, 0.0085 repeated 8 times, 0.0035 32 times (bench/RESULTS.md, issue 68).
// The least is the old fixed rate because on planted-cluster corpora (text that does not
// repeat) skip-gram's best stayed 0.05 up to R = 5,000 and CBOW's 0.1 at R = 500: lower
// rates help text read many times over, and --lr gives them there.
struct SgdRateRule {
  float most;   // at R <= kRuleWordsPerWord (text8-head's 5 epochs): the best there
  float least;  // the fixed rate before the rule
};
constexpr double kRuleWordsPerWord = 100;  // text8-head's 5 epochs: 5.5M words over 57,993 distinct (95)
constexpr double kRuleExponent = 0.7;
constexpr SgdRateRule kSkipgramSgd{0.05f, 0.025f};  // 0.05: fastText's
constexpr SgdRateRule kSubwordSgd{0.07f, 0.025f};
constexpr SgdRateRule kCbowSgd{0.1f, 0.05f};

float sgd_rate_for_run(const SgdRateRule& rule, const RunLength& run) {
  const double per_word = std::max(run.per_distinct_word(), kRuleWordsPerWord);
  const double rate = rule.most * std::pow(per_word / kRuleWordsPerWord, -kRuleExponent);
  return std::max(two_digits(rate), rule.least);
}

// A small corpus trains more epochs than the 5 that word2vec, fastText and gensim give
// any corpus: enough for kWordsTrainedAtLeast words, at most kMostEpochs. On text8-head
// (1.1M words), 2 seeds, at rates near the rule's: skip-gram's analogy / WS-353 went 5.5% /
// 0.52 at 5 epochs, 6.4% / 0.56 at 10, 7.4% / 0.58 at 15 and 7.4% / 0.60 at 20; CBOW's
// 5.1% / 0.51, 7.1% / 0.57, 8.2% / 0.59 and 9.2% / 0.60. Its defaults now (19 epochs, 3
// seeds): skip-gram 7.7% / 0.60, CBOW 8.7% / 0.62, against 4.1% / 0.41 and 2.0% / 0.34 at
// the old 5 epochs and fixed rates (bench/RESULTS.md, issue 68). From 4M words: 5.
constexpr double kWordsTrainedAtLeast = 20e6;
constexpr unsigned kMostEpochs = 20;

class Word2vecModel final : public TrainingModel {
 public:
  explicit Word2vecModel(Model model) : model_(model) {}

  Model id() const override { return model_; }
  std::string_view name() const override { return model_ == Model::skipgram ? "skipgram" : "cbow"; }
  // word2vec's defaults: CBOW learns at twice skip-gram's rate.
  Defaults defaults() const override { return {5, 5, model_ == Model::skipgram ? 0.025f : 0.05f, Optimizer::sgd}; }
  bool supports(Optimizer) const override { return true; }
  // More epochs for a small corpus (kWordsTrainedAtLeast, above).
  unsigned epochs_for_corpus(const TrainSettings& s, std::uint64_t corpus_words) const override {
    const double wanted = std::ceil(kWordsTrainedAtLeast / static_cast<double>(std::max<std::uint64_t>(corpus_words, 1)));
    return static_cast<unsigned>(std::max(static_cast<double>(s.epochs), std::min(wanted, static_cast<double>(kMostEpochs))));
  }
  // Each optimizer's best rate of five (its GloVe rate × 0.3, 1, 3, 10, 30) for skip-gram
  // and CBOW on text8-head, dim 50, 5 epochs (scripts/bench/optimizers.sh; bench/RESULTS.md,
  // issue 40). word2vec's rows take larger steps than GloVe's: Adam's best is 0.01, not 0.003.
  float starting_lr(Optimizer optimizer) const override {
    const bool skipgram = model_ == Model::skipgram;
    switch (optimizer) {
      case Optimizer::sgd: return defaults().lr;
      case Optimizer::adagrad:
      case Optimizer::rowadagrad: return skipgram ? 0.25f : 0.15f;
      case Optimizer::adam:
      case Optimizer::adamw:
      case Optimizer::rmsprop: return 0.01f;
      case Optimizer::adamax: return skipgram ? 0.1f : 0.03f;
      case Optimizer::adadelta: return 10.0f;
      case Optimizer::rprop: return 0.0003f;
      case Optimizer::asgd: return defaults().lr;
    }
    return defaults().lr;
  }
  // Summed steps (summed_steps.h) step a frequent row once per run of windows, not at each
  // touch: Adam's family and RMSprop take larger rates, ASGD (SGD on summed gradients) a
  // smaller one for skip-gram. Each rule's best of four or more on the CPU with
  // EMBED_SUMMED_WINDOWS=1024 (the GPU's runs of windows), text8-head, dim 50, 5 epochs
  // (bench/RESULTS.md, issue 40); adadelta's 10 is its option's largest.
  //
  // CBOW's adam, adamw and rmsprop want smaller rates the longer the run, per window on the
  // CPU as in the GPU's summed steps: their best fell about as one over the root of the
  // words trained (CBOW, dim 100, bench/RESULTS.md 2026-11-28; summed adam: about 0.015 on
  // text8-head's 5.5M words, 0.005-0.01 on x 8's 26.5M, 0.0025-0.0035 on x 32's 106M; per
  // window at x 8, 6.9% analogy at 0.0046 against 3.4% at the CPU's 0.01). So their rate is
  // the one for text8-head's 5 epochs scaled by that root (rate_for_run_length), never
  // raised for shorter runs. Skip-gram's and Adamax's best did not follow (skip-gram's
  // summed adam at x 32: 6.3% analogy at 0.025 against 5.3% at 0.1, but WS-353 0.50
  // against 0.55; per window at x 8, 4.6% against 4.3% at 0.01), so they keep one rate;
  // fastText's model (subwords) was not measured and keeps it too.
  //
  // SGD, on the CPU or the GPU (whose SGD steps each window as the CPU does), follows
  // sgd_rate_for_run; CBOW with subwords takes CBOW's rule (not measured apart).
  float run_starting_lr(const TrainSettings& s, const RunLength& run, bool on_gpu) const override {
    if (s.optimizer == Optimizer::sgd) {
      const SgdRateRule& rule = model_ == Model::cbow ? kCbowSgd : s.subwords ? kSubwordSgd : kSkipgramSgd;
      return sgd_rate_for_run(rule, run);
    }
    const bool summed = on_gpu && !s.subwords && summed_windows_on_gpu(s.optimizer) > 0;
    const float rate = summed ? summed_starting_lr(s.optimizer) : starting_lr(s.optimizer);
    const bool by_length =
        model_ == Model::cbow && !s.subwords &&
        (s.optimizer == Optimizer::adam || s.optimizer == Optimizer::adamw || s.optimizer == Optimizer::rmsprop);
    return by_length ? rate_for_run_length(rate, run.items) : rate;
  }
  // The GPU's summed steps' rates for text8-head's 5 epochs (above).
  float summed_starting_lr(Optimizer optimizer) const {
    const bool skipgram = model_ == Model::skipgram;
    switch (optimizer) {
      case Optimizer::adam:
      case Optimizer::adamw: return skipgram ? 0.1f : 0.015f;
      case Optimizer::adamax: return skipgram ? 0.3f : 0.03f;
      case Optimizer::rmsprop: return skipgram ? 0.1f : 0.01f;
      case Optimizer::asgd: return skipgram ? 0.01f : 0.05f;
      default: return starting_lr(optimizer);
    }
  }
  std::span<const Option> own_options() const override {
    static constexpr Option kSkipgram[] = {{"--negative", true}, {"--sample", true},       {"--pair-negatives", true},
                                           {"--subwords", true}, {"--minn", true},         {"--maxn", true},
                                           {"--buckets", true},  {"--fasttext-bin", false}};
    static constexpr Option kCbow[] = {{"--negative", true}, {"--sample", true},  {"--subwords", true},     {"--minn", true},
                                       {"--maxn", true},     {"--buckets", true}, {"--fasttext-bin", false}};
    if (model_ == Model::skipgram) return kSkipgram;
    return kCbow;
  }
  std::string_view item_name() const override { return "words"; }

  void write_settings(const TrainSettings& s, std::map<std::string, std::string>& metadata) const override {
    metadata["negative"] = std::to_string(s.negative);
    metadata["sample"] = fmt::format("{}", s.sample);
    if (model_ == Model::skipgram) metadata["pair_negatives"] = std::to_string(s.pair_negatives ? 1 : 0);
    if (s.subwords) {
      metadata["train_subwords"] = std::to_string(1);  // (GCC 12 warns of a C string assigned here: -Wrestrict)
      metadata["train_minn"] = std::to_string(s.minn);
      metadata["train_maxn"] = std::to_string(s.maxn);
      metadata["train_buckets"] = std::to_string(s.buckets);
    }
  }
  bool read_settings(const TensorFileReader& r, TrainSettings& s) const override {
    s.negative = r.meta_uint("negative");
    s.sample = r.meta_double("sample");
    // Files written before --pair-negatives existed shared the window's negatives.
    const std::uint64_t pair_negatives = r.has_meta("pair_negatives") ? r.meta_uint("pair_negatives") : 0;
    s.pair_negatives = pair_negatives == 1;
    // Files written before --subwords existed have none.
    s.subwords = r.has_meta("train_subwords") && r.meta("train_subwords") == "1";
    if (s.subwords) {
      const std::uint64_t minn = r.meta_uint("train_minn"), maxn = r.meta_uint("train_maxn");
      s.buckets = r.meta_uint("train_buckets");
      if (minn < 1 || minn > maxn || maxn > kMaxNgramLength || s.buckets < 1 ||
          static_cast<double>(s.buckets) > kBucketsRange.high) {
        return false;
      }
      s.minn = static_cast<std::uint32_t>(minn);
      s.maxn = static_cast<std::uint32_t>(maxn);
    }
    return s.negative <= 60 && pair_negatives <= 1 && (model_ == Model::skipgram || pair_negatives == 0);
  }
  std::string gpu_refusal(const TrainSettings& s) const override {
    if (s.subwords) {
      // Its kernels (subword_kernels.h) step with SGD only.
      if (s.optimizer != Optimizer::sgd) {
        return fmt::format("--subwords trains with --optimizer sgd on the GPU; --optimizer {} trains on the CPU",
                           optimizer_name(s.optimizer));
      }
      return "";
    }
    if (s.pair_negatives) return "--pair-negatives trains on the CPU: the GPU kernels share a window's negatives";
    return "";
  }

  void start(const TrainingInput& input, TrainingRun& run, AtomicOutput*) const override {
    run.corpus = read_logged_corpus(input.corpus, run.output, run.output.output, run.settings.threads);
    const std::size_t rows = run.corpus.vocab.size();
    const Word2vecLayout layout(run.settings);
    Cluster& job = this_job();
    run.state = Word2vecTrainer::start_state(run.corpus, run.settings.threads, run.settings.seed, job.rank(), job.size());
    if (input.shard_tables) {
      run.sharded = std::make_shared<ShardedTables>(job, rows, layout, input.hot_rows);
      run.sharded->init_fresh(run.settings.seed);
      return;
    }
    // f16 host tables (row_matrix.h) for the GPU's host placement: with SGD, whose rows
    // have no state, and word2vec's model (fastText's averages its rows on the CPU side).
    const DType element =
        input.host_tables == DType::f16 && layout.state() == 0 && !run.settings.subwords && gpu_refusal(run.settings).empty()
            ? DType::f16
            : DType::f32;
    run.input =
        make_word2vec_table(input_rows(run.settings, rows), layout, true, run.settings.seed, run.settings.threads, element);
    // fastText's model starts its rows uniform in ±1/dim, twice word2vec's ±0.5/dim: a word's
    // input averages some twenty of them.
    if (run.settings.subwords) {
      for (std::size_t r = 0; r < run.input.rows(); ++r) {
        float* row = run.input.row(r);
        for (std::size_t k = 0; k < layout.dim; ++k) row[k] *= 2;
      }
    }
    run.output_table = make_word2vec_table(rows, layout, false, run.settings.seed, run.settings.threads, element);
    if (element == DType::f16) {
      const auto bytes = static_cast<double>(run.input.bytes().size() + run.output_table.bytes().size());
      spdlog::info("--table host --dtype f16: the host tables are f16 too, {} (f32: {})", human_bytes(bytes),
                   human_bytes(2 * bytes));
    }
  }

  std::uint64_t items_per_epoch(const TrainingRun& run) const override { return run.corpus.words; }
  std::size_t table_width(const TrainSettings& s) const override { return Word2vecLayout(s).width(); }
  // With --subwords the input table's bucket rows follow the vocabulary's.
  std::size_t input_rows(const TrainSettings& s, std::size_t vocab_rows) const override {
    return vocab_rows + (s.subwords ? s.buckets : 0);
  }
  std::size_t state_column(const TrainSettings& s) const override { return Word2vecLayout(s).padded(); }
  // The workers' positions are bytes of the corpus files, which must be those it counted.
  std::uint64_t load_items(const TensorFileReader&, TrainingRun& run) const override {
    check_corpus_unchanged(run.corpus.files);
    return corpus_bytes(run.corpus.files);
  }

  bool train(TrainingRun& run, const TrainContext& context) const override {
    if (run.sharded) return train_sharded(run, context);
    const TrainSettings& s = run.settings;
    const SubwordRows subwords = s.subwords ? SubwordRows(run.corpus.vocab, subword_settings(s)) : SubwordRows();
    std::unique_ptr<Word2vecBackend> backend;
    Cluster& job = this_job();
    // f16 host tables train only through a GPU's host placement in one process; a run
    // resumed otherwise goes on in f32.
    if (run.input.half() && (!context.gpu || job.size() > 1)) {
      widen_tables(run);
    }
    if (context.gpu) backend = gpu_backend(run, context, s.subwords ? &subwords : nullptr);
    const bool on_gpu = backend != nullptr;
    if (!backend) {
      if (run.input.half()) widen_tables(run);  // the GPU declined (--device auto)
      backend = s.subwords
                    ? make_subword_cpu_backend(s.model, run.input, run.output_table, Word2vecLayout(s), subwords, s.threads)
                    : make_word2vec_cpu_backend(s.model, run.input, run.output_table, Word2vecLayout(s), s.threads,
                                                run.init.locked, summed_windows_override());
    }
    if (s.subwords) {
      spdlog::info("subwords: n-grams of {} to {} characters in {} buckets, {:.1f} input rows per word on average", s.minn,
                   s.maxn, s.buckets, static_cast<double>(subwords.listed()) / static_cast<double>(subwords.words()));
    }
    log_training(s, *backend);
    Word2vecTrainer trainer(s, run.corpus, *backend);
    std::optional<RankAveraging> averaging;
    if (job.size() > 1) {
      // The vectors are summed over the ranks, and the optimizer's state too where it is a sum
      // of steps (a rule that keeps it by atomic adds); any other state stays each rank's.
      const Word2vecLayout layout(s);
      const bool state_is_sum = optimizer_spec(s.optimizer).concurrent;
      averaging.emplace(job, std::vector<RowMatrix*>{&run.input, &run.output_table}, context.sync_rows, SIZE_MAX,
                        state_is_sum ? 0 : layout.dim);
      averaging->set_home(backend->row_home());  // a GPU's rows take part too
      // A round after every rank_round_words words a rank trains, unless --sync-words says
      // otherwise: the ranks' summed changes overshoot when each trains many words between
      // rounds, the more so the more ranks (round_length.h), which a GPU does at any
      // --sync-interval (bench/RESULTS.md).
      const std::uint64_t sync_words = context.sync_words.value_or(rank_round_words(job.size(), run.corpus.words));
      // On the CPU a batch holds at most a worker's share of a round (round_batch_words). A
      // GPU keeps its batches, which its kernels need large, and has several in flight anyway.
      const std::size_t batch_words =
          on_gpu || sync_words == 0 ? 0 : round_batch_words(sync_words, s.threads, backend->max_batch_words());
      trainer.share_with_ranks(rank_sync(job, *averaging), context.sync_seconds, sync_words, batch_words);
      spdlog::info(
          "data parallel over {} ranks: each trains its share of the corpus; the {} most frequent rows are "
          "shared every {} s{}, rarer rows exponentially less often, all rows at each epoch's end",
          job.size(), std::min(context.sync_rows, run.input.rows()), context.sync_seconds,
          sync_words > 0 ? fmt::format(" and after every {} words a rank trains", sync_words) : "");
    }
    const bool finished = trainer.run(run.state, *context.stop, context.on_epoch, context.on_progress);
    if (averaging) {
      spdlog::debug("{}", averaging->summary());
    }
    return finished;
  }

  // --shard-tables: each rank trains the rows its batches touch, fetched from their owners
  // at a round (train/shards).
  bool train_sharded(TrainingRun& run, const TrainContext& context) const {
    const TrainSettings& s = run.settings;
    ShardedTables& tables = *run.sharded;
    Cluster& job = tables.job();
    std::unique_ptr<Word2vecBackend> backend;
    if (context.gpu) backend = sharded_gpu_backend(tables, s, run.output.dtype, context);
    if (!backend) {
      backend = make_word2vec_cpu_backend(s.model, tables.input(), tables.output(), Word2vecLayout(s), s.threads, {},
                                          summed_windows_override());
    }
    tables.set_home(backend->row_home());  // a GPU's hot rows take part in the rounds' sums
    ShardedRounds rounds(tables, *backend, s.threads);
    Word2vecTrainer trainer(s, run.corpus, *backend);
    const std::uint64_t words =
        std::max<std::uint64_t>(context.sync_words.value_or(shard_round_words(s, tables, run.corpus)), 1);
    // Under mpirun a batch holds at most a worker's share of a round, so that a round stays
    // near its words (its rows owned elsewhere take memory); one process keeps a plain run's
    // batches, and its bytes.
    const std::size_t batch_words =
        job.size() > 1 ? round_batch_words(words, s.threads, backend->max_batch_words()) : backend->max_batch_words();
    trainer.train_in_rounds(rounds, words, batch_words);
    const double table_bytes = 2.0 * static_cast<double>(tables.rows()) * static_cast<double>(tables.input().row_bytes());
    log_training(s, *backend);
    spdlog::info(
        "tables sharded over {} rank{}: each holds the {} most frequent rows and about 1/{} of the others, {} of the "
        "tables' {}; a round after every {} words a rank plans fetches the rows it touches and returns their changes",
        job.size(), job.size() > 1 ? "s" : "", tables.hot_rows(), job.size(), human_bytes(static_cast<double>(tables.held_bytes())),
        human_bytes(table_bytes), words);
    const bool finished = trainer.run(run.state, *context.stop, context.on_epoch, context.on_progress);
    spdlog::debug("{}", rounds.summary());
    return finished;
  }

  // With --subwords, fastText's word vectors: the average of each word's rows, computed
  // here (vocabulary × dim floats), before subword_table packs the bucket rows.
  RowReader vector_rows(const TrainingRun& run) const override {
    const TrainSettings& s = run.settings;
    if (!s.subwords) return TrainingModel::vector_rows(run);
    const SubwordRows subwords(run.corpus.vocab, subword_settings(s));
    const std::size_t words = subwords.words(), dim = s.dim, column = written_column(s);
    auto vectors = std::make_shared<FloatBuffer>(words * dim);
    for (std::size_t w = 0; w < words; ++w) {
      float* out = vectors->data() + w * dim;
      const auto rows = subwords.of(static_cast<std::uint32_t>(w));
      std::copy_n(run.input.row(rows[0]) + column, dim, out);
      for (std::size_t i = 1; i < rows.size(); ++i) {
        const float* r = run.input.row(rows[i]) + column;
        for (std::size_t k = 0; k < dim; ++k) out[k] += r[k];
      }
      fasttext_average({out, dim}, rows.size());
    }
    return [vectors, dim](std::size_t row, float* out) { std::copy_n(vectors->data() + row * dim, dim, out); };
  }
  // With --subwords, the bucket rows, so that words outside the vocabulary get vectors:
  // packed in place (dim floats a row, no padding or state) rather than copied, which
  // would double the largest allocation of the run.
  std::optional<SubwordTable> subword_table(TrainingRun& run) const override {
    const TrainSettings& s = run.settings;
    if (!s.subwords) return std::nullopt;
    const std::size_t words = run.corpus.vocab.size(), column = written_column(s);
    float* packed = run.input.data();
    for (std::size_t b = 0; b < s.buckets; ++b) {
      std::memmove(packed + b * s.dim, run.input.row(words + b) + column, s.dim * sizeof(float));
    }
    return SubwordTable(subword_settings(s), s.dim, std::span<const float>(packed, s.buckets * s.dim));
  }

 private:
  static void widen_tables(TrainingRun& run) {
    const auto bytes = static_cast<double>(run.input.bytes().size() + run.output_table.bytes().size());
    spdlog::info("the f16 host tables go on in f32 here: {}", human_bytes(2 * bytes));
    run.input = widened(run.input);
    run.output_table = widened(run.output_table);
  }

  // The run's one line of what trains where, with which settings.
  void log_training(const TrainSettings& s, const Word2vecBackend& backend) const {
    spdlog::info("training {} on {}: dim {}, window {}, negative {}{}, sample {}, {}{} epochs, lr {}, {} threads, seed {}",
                 name(), backend.name(), s.dim, s.window, s.negative, s.pair_negatives ? " per pair" : "", s.sample,
                 s.optimizer == Optimizer::sgd ? "" : fmt::format("optimizer {}, ", optimizer_name(s.optimizer)), s.epochs, s.lr,
                 s.threads, s.seed);
  }

  // What a GPU trains for settings `s` on host tables like `input`, `rows` vocabulary rows
  // each, with the lines that say what the optimizer's state and the summed steps (when
  // `summed_steps`: all but fastText's model) mean for them.
  static GpuTrainShape gpu_train_shape(const TrainSettings& s, const RowMatrix& input, std::size_t rows, DType dtype,
                                       bool summed_steps) {
    const Word2vecLayout layout(s);
    GpuTrainShape shape;
    shape.rows = rows;
    shape.dim = s.dim;
    shape.stride = input.stride();
    shape.state = layout.state();
    // The optimizer's state needs f32: the rows stay f32 on the GPU, whatever --dtype
    // says of the vectors written.
    shape.storage = shape.state == 0 ? dtype : DType::f32;
    shape.half_host_tables = input.half();
    if (shape.state > 0 && dtype != DType::f32) {
      spdlog::info("--optimizer {} keeps f32 rows on the GPU for its state; --dtype {} applies to the vectors written",
                   optimizer_name(s.optimizer), vector_dtype_name(dtype));
    }
    // Row-wise AdaGrad is the way to a smaller table: say so where a plan is refused.
    const std::size_t row_state = optimizer_spec(Optimizer::rowadagrad).state_floats(layout.padded());
    if (shape.state > row_state) {
      shape.smaller_state = fmt::format("; --optimizer rowadagrad keeps {} floats of state per row where {} keeps {}", row_state,
                                        optimizer_name(s.optimizer), shape.state);
    }
    shape.max_inputs_per_window = 2 * s.window;
    shape.negatives = s.negative;
    shape.workers = s.threads;
    shape.summed_windows = summed_steps ? summed_windows_on_gpu(s.optimizer) : 0;
    if (shape.summed_windows > 0 && s.optimizer == Optimizer::asgd) {
      spdlog::warn(
          "--optimizer asgd trains poorly in the GPU's summed steps, which make it SGD on a run of windows' summed "
          "gradients (docs/embed-train.md has the figures); --device cpu trains it per window");
    }
    return shape;
  }

  // --shard-tables on a GPU: each rank's local tables (hot, owned and the round's rows) stay
  // in its host memory, as --table host keeps them, and the GPU gathers each batch's rows
  // (a mapped transfer would pin every row of the round area, untouched pages too). The GPU
  // keeps at most the hot rows every rank holds: the others change at every round's push.
  static std::unique_ptr<Word2vecBackend> sharded_gpu_backend(ShardedTables& tables, const TrainSettings& s, DType dtype,
                                                              const TrainContext& context) {
    const Word2vecLayout layout(s);
    GpuOptions options = context.gpu_options;
    options.table = TablePlacement::host;
    options.transfer = HostTransfer::gather;
    options.max_hot_rows = std::min(options.max_hot_rows, tables.hot_rows());
    const GpuTrainShape shape = gpu_train_shape(s, tables.input(), tables.input().rows(), dtype, true);
    GpuBackendRequest request{s.model,      &tables.input(),     &tables.output(), shape,        plan_gpu_memory(shape, options, context.gpu_budget),
                              *context.gpu, context.gpu_traffic, s.optimizer,      layout.hyper, nullptr};
    spdlog::info("--shard-tables on the GPU: the rank's tables stay in host memory, {} hot rows on the GPU",
                 request.plan.hot_rows);
    return context.gpu_trainer->make_backend(request);
  }

  // The GPU backend for `run` on context.gpu, within the budget; with `subwords`, fastText's
  // model.
  static std::unique_ptr<Word2vecBackend> gpu_backend(TrainingRun& run, const TrainContext& context,
                                                      const SubwordRows* subwords) {
    const TrainSettings& s = run.settings;
    const Word2vecLayout layout(s);
    const GpuOptions& options = context.gpu_options;
    // The vocabulary's rows; with subwords the input table has the buckets' rows too.
    GpuTrainShape shape = gpu_train_shape(s, run.input, run.output_table.rows(), run.output.dtype, subwords == nullptr);
    shape.rank_rounds = this_job().size() > 1;
    if (subwords) {
      shape.bucket_rows = run.input.rows() - shape.rows;
      shape.subword_ids = subwords->listed();
      std::vector<bool> listed(run.input.rows(), false);
      for (std::uint32_t w = 0; w < subwords->words(); ++w) {
        shape.longest_word_rows = std::max(shape.longest_word_rows, subwords->of(w).size());
        for (std::uint32_t row : subwords->of(w)) {
          shape.listed_input_rows += listed[row] ? 0 : 1;
          listed[row] = true;
        }
      }
      shape.negatives_per_input = s.model == Model::skipgram;
    }
    const std::uint64_t table_bytes = (2 * shape.rows + shape.bucket_rows) * shape.stride * dtype_size(shape.storage);
    GpuBackendRequest request{
        s.model,      &run.input,          &run.output_table, shape,        plan_gpu_memory(shape, options, context.gpu_budget),
        *context.gpu, context.gpu_traffic, s.optimizer,       layout.hyper, subwords};
    // Host placement's hot rows: each table's most touched (hot_rows.h). For measuring what
    // that gives, EMBED_HOT_FIRST_ROWS=1 keeps word2vec's as before: both tables' first rows.
    const bool first_rows = !subwords && std::getenv("EMBED_HOT_FIRST_ROWS") != nullptr;
    if (request.plan.placement == TablePlacement::host && !first_rows) {
      request.hot_rows =
          most_touched_rows(subwords, run.corpus.vocab.counts, s.model, s.window, s.negative, 2 * request.plan.hot_rows);
    }
    explain_placement(options, request.plan, table_bytes, context.gpu_budget);
    return context.gpu_trainer->make_backend(request);
  }

  Model model_;
};

}  // namespace

const TrainingModel& word2vec_model(Model model) {
  static const Word2vecModel skipgram(Model::skipgram);
  static const Word2vecModel cbow(Model::cbow);
  EMBED_ASSERT(model == Model::skipgram || model == Model::cbow);
  return model == Model::skipgram ? skipgram : cbow;
}

}  // namespace embed
