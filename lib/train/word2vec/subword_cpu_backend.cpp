// The CPU backend of fastText's model (--subwords): skip-gram and CBOW whose input vector
// is the average of a word's rows, its own and its n-grams' (subword_rows.h), Hogwild
// updates in place as in the word2vec backend, each row's step by the optimizer's rule.
//
// Skip-gram in fastText's orientation: the window's centre word is the input (h, the
// average of its rows) and each context word an output, with the window's negatives (or,
// with --pair-negatives, each pair's own), as fastText's Model::update trains a (centre,
// context) pair. fastText then adds the pair's input gradient to each of the centre's
// rows and averages them again for the next pair; each row taking the same step moves the
// average by that step (times the word's gain), so with SGD h moves by it and the rows
// take the window's summed step once at its end: the same arithmetic, with one pass over
// the rows per window instead of two per pair. A rule with state steps the rows after
// each pair and averages them again, as fastText.
//
// CBOW: the rows of all the context words together (fastText's bag of subwords) are the
// input, their average trained against the centre word and the negatives, and each row
// takes the whole gradient, as fastText adds it (it divides it by the rows only for
// supervised models).
#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/cpu_isa.h"
#include "core/error.h"
#include "train/engine/row_ops.h"
#include "train/engine/row_prefetcher.h"
#include "train/engine/update_rule_for.h"
#include "train/word2vec/logistic_table.h"
#include "train/word2vec/subword_cpu_backend.h"

namespace embed {
namespace {

struct Tables {
  float* input;        // vocabulary rows, then bucket rows
  float* output;       // vocabulary rows
  std::size_t width;   // floats from one row to the next: the padded vector, then the optimizer's state
  std::size_t padded;  // the vector rounded up to 16 floats, where the state starts
  std::size_t dim;
  const SubwordRows* subwords;

  float* input_row(std::uint32_t r) const { return input + std::size_t{r} * width; }
  float* output_row(std::uint32_t r) const { return output + std::size_t{r} * width; }
  // Steps `row` (of either table) by the ascent direction scale × x.
  template <typename Rule>
  __attribute__((always_inline)) void step(const Rule& rule, float* row, float scale, const float* x) const {
    rule_step(rule, row, row + padded, scale, x, dim, padded);
  }
  // sum = Σ `rows`' vectors, in order. Always inlined, as row_ops.h's loops, for the caller's clone.
  __attribute__((always_inline)) void sum(std::span<const std::uint32_t> rows, float* sum) const {
    scale_copy(1.0f, input_row(rows[0]), sum, padded);
    for (std::size_t i = 1; i < rows.size(); ++i) axpy(1.0f, input_row(rows[i]), sum, padded);
  }
  // h = the average of `rows`' vectors, summed in order and scaled as fastText does.
  __attribute__((always_inline)) void average(std::span<const std::uint32_t> rows, float* h) const {
    sum(rows, h);
    fasttext_average({h, padded}, rows.size());
  }
};

// Per worker.
// CBOW with SGD: a context word of the sliding window, its rows' sum and the step they
// owe (train_cbow says why).
struct CachedWord {
  std::uint32_t word;
  std::size_t last_window;  // the last window that had it as a context word
  std::size_t slot;         // its sum and pending step in Scratch::cached_rows
};

struct Scratch {
  std::vector<float> hidden;           // the input's average (padded)
  std::vector<float> gradient;         // its gradient from one (input, outputs) step
  std::vector<float> window_gradient;  // skip-gram with SGD: the window's summed gradient
  std::vector<std::uint32_t> bag;      // CBOW: the context words' rows
  std::vector<CachedWord> cached;      // CBOW with SGD: the window's words
  std::vector<float> cached_rows;      // per slot: sum, then pending step (padded each)
  std::vector<std::size_t> free_slots;
  RowPrefetcher prefetcher;  // the next window's rows
};

// The input h against out_rows[0] (label 1) and out_rows[1, n_out) (label 0), one after
// another as fastText's negative sampling does: each output row's score, its share of
// h's gradient (from the row before its step), then its step. `gradient` gets h's.
// `after_each()` runs after each output row's step.
template <typename Rule, typename AfterEach = void (*)()>
__attribute__((always_inline)) inline void train_outputs(
    const Rule& rule, const float* hidden, const std::uint32_t* out_rows, std::size_t n_out, const Tables& t, float* gradient,
    double& loss_sum, AfterEach after_each = [] {}) {
  const LogisticTable& table = logistic_table();
  const std::size_t n = t.padded;
  if constexpr (std::is_same_v<Rule, SgdRule>) {
    // SGD with no row listed twice: no row's score depends on another's step, so the
    // scores come first, several rows at a time, and the negatives' steps in one pass
    // (sgd_output_steps): the loop below's arithmetic, in its order per element.
    float* rows[64];
    for (std::size_t o = 0; o < n_out; ++o) rows[o] = t.output_row(out_rows[o]);
    if (!has_repeat(rows, n_out)) {
      float scores[64], g[64];
      dots_of(hidden, rows, n_out, n, scores);
      output_gradients(rule, scores, n_out, g, loss_sum);
      for (std::size_t o = 0; o < n_out; ++o) after_each();
      scale_copy(g[0], rows[0], gradient, n);
      t.step(rule, rows[0], g[0], hidden);
      sgd_output_steps(rows + 1, g + 1, n_out - 1, hidden, gradient, n);
      return;
    }
  }
  for (std::size_t o = 0; o < n_out; ++o) {
    float* out = t.output_row(out_rows[o]);
    const float score = dot(hidden, out, n);
    const float label = o == 0 ? 1.0f : 0.0f;
    const float g = rule.gradient_scale(label - table.sigmoid(score));
    loss_sum += table.loss(o == 0 ? score : -score);
    if (o == 0) {
      scale_copy(g, out, gradient, n);
      t.step(rule, out, g, hidden);
    } else if constexpr (std::is_same_v<Rule, SgdRule>) {
      sgd_output_step(out, g, hidden, gradient, n);  // the two below in one pass
    } else {
      axpy(g, out, gradient, n);
      t.step(rule, out, g, hidden);
    }
    after_each();
  }
}

template <typename Rule>
__attribute__((always_inline)) inline void train_skipgram(const Rule& rule, const WindowBatch& batch, const Tables& t, Scratch& s,
                                                          BatchLoss& loss) {
  constexpr bool kMovesAverage = std::is_same_v<Rule, SgdRule>;  // rows step by the gradient itself
  const std::size_t n = t.padded;
  double loss_sum = 0;
  std::uint32_t out_rows[64];
  float* hidden = s.hidden.data();
  float* gradient = s.gradient.data();
  float* window_gradient = s.window_gradient.data();
  for (std::size_t w = 0; w < batch.windows(); ++w) {
    const std::size_t first = batch.input_offsets[w];
    const auto contexts = batch.window_inputs(w);
    if (contexts.empty()) continue;
    // The next window's rows, over this window's output steps: its centre's, its context
    // words', its negatives'.
    RowPrefetcher& prefetcher = s.prefetcher;
    prefetcher.start_window(n);
    if (w + 1 < batch.windows()) {
      for (std::uint32_t r : t.subwords->of(batch.targets[w + 1])) prefetcher.add(t.input_row(r));
      for (std::uint32_t word : batch.window_inputs(w + 1)) prefetcher.add(t.output_row(word));
      const std::size_t next = batch.input_offsets[w + 1];
      const std::size_t negatives = batch.negatives_per_input ? (batch.input_offsets[w + 2] - next) * batch.negatives_per_window
                                                              : batch.negatives_per_window;
      const std::uint32_t* negative =
          batch.negatives_per_input ? batch.input_negatives(next).data() : batch.window_negatives(w + 1).data();
      for (std::size_t k = 0; k < negatives; ++k) prefetcher.add(t.output_row(negative[k]));
    }
    prefetcher.spread_over(contexts.size() * (1 + batch.negatives_per_window));
    const std::uint32_t centre = batch.targets[w];
    const auto rows = t.subwords->of(centre);
    const float gain = t.subwords->gain(centre);
    t.average(rows, hidden);
    if constexpr (kMovesAverage) std::fill(window_gradient, window_gradient + n, 0.0f);
    for (std::size_t c = 0; c < contexts.size(); ++c) {
      const auto negatives = batch.negatives_per_input ? batch.input_negatives(first + c) : batch.window_negatives(w);
      const std::size_t n_out = list_output_rows(contexts[c], negatives, out_rows);
      train_outputs(rule, hidden, out_rows, n_out, t, gradient, loss_sum, [&]() __attribute__((always_inline)) { prefetcher.step(n); });
      if constexpr (kMovesAverage) {
        axpy(gain, gradient, hidden, n);
        axpy(1.0f, gradient, window_gradient, n);
      } else {
        for (std::uint32_t r : rows) t.step(rule, t.input_row(r), 1.0f, gradient);
        t.average(rows, hidden);
      }
    }
    if constexpr (kMovesAverage) {
      for (std::uint32_t r : rows) t.step(rule, t.input_row(r), 1.0f, window_gradient);
    }
    loss.examples += contexts.size();
  }
  loss.sum += loss_sum;
}

// CBOW: queues window w + 1's rows in s.prefetcher, to be asked for over window w's output
// steps (RowPrefetcher): its centre word's and negatives' output rows, and the input rows
// of its context words that `wanted(word)`.
template <typename Wanted>
__attribute__((always_inline)) inline void queue_next_cbow_window(const WindowBatch& batch, std::size_t w, const Tables& t,
                                                                  Scratch& s, Wanted wanted) {
  RowPrefetcher& prefetcher = s.prefetcher;
  prefetcher.start_window(t.padded);
  if (w + 1 >= batch.windows()) return;
  prefetcher.add(t.output_row(batch.targets[w + 1]));
  for (std::uint32_t negative : batch.window_negatives(w + 1)) prefetcher.add(t.output_row(negative));
  for (std::uint32_t word : batch.window_inputs(w + 1)) {
    if (!wanted(word)) continue;
    for (std::uint32_t r : t.subwords->of(word)) prefetcher.add(t.input_row(r));
  }
  prefetcher.spread_over(1 + batch.negatives_per_window);
}

// CBOW: the bag of the context words' rows averaged, trained against the centre word and
// the negatives, each row stepped by the whole gradient.
template <typename Rule>
__attribute__((always_inline)) inline void train_cbow(const Rule& rule, const WindowBatch& batch, const Tables& t, Scratch& s,
                                                      BatchLoss& loss) {
  double loss_sum = 0;
  std::uint32_t out_rows[64];
  const std::size_t n = t.padded;
  for (std::size_t w = 0; w < batch.windows(); ++w) {
    queue_next_cbow_window(batch, w, t, s, [](std::uint32_t) { return true; });
    const auto contexts = batch.window_inputs(w);
    if (contexts.empty()) continue;
    s.bag.clear();
    for (std::uint32_t word : contexts) {
      const auto rows = t.subwords->of(word);
      s.bag.insert(s.bag.end(), rows.begin(), rows.end());
    }
    t.average(s.bag, s.hidden.data());
    const std::size_t n_out = list_output_rows(batch.targets[w], batch.window_negatives(w), out_rows);
    train_outputs(rule, s.hidden.data(), out_rows, n_out, t, s.gradient.data(), loss_sum, [&]() __attribute__((always_inline)) { s.prefetcher.step(n); });
    for (std::uint32_t r : s.bag) t.step(rule, t.input_row(r), 1.0f, s.gradient.data());
    ++loss.examples;
  }
  loss.sum += loss_sum;
}

// CBOW with SGD, cheaper: consecutive windows share most of their context words, and a
// word's rows all take the same steps, so each word of the sliding window keeps the sum
// of its rows and the step they owe; the average is the sum of the words' sums over the
// rows listed, and a word's rows take their summed steps once, when it leaves the window
// (about 2 × window / 1.5 windows later, instead of once per window). The arithmetic of
// train_cbow, but for one thing: a row that two words of one window share (a common
// n-gram: "<th" of "the" and "then") owes the other word's steps while both are cached,
// so the other word's sum misses them until then.
__attribute__((always_inline)) inline void train_cbow_cached(const SgdRule& rule, const WindowBatch& batch, const Tables& t,
                                                             Scratch& s, BatchLoss& loss) {
  double loss_sum = 0;
  std::uint32_t out_rows[64];
  const std::size_t n = t.padded;
  auto sum_of = [&](const CachedWord& c) __attribute__((always_inline)) { return s.cached_rows.data() + c.slot * 2 * n; };
  auto pending_of = [&](const CachedWord& c) __attribute__((always_inline)) { return s.cached_rows.data() + c.slot * 2 * n + n; };
  // The lambdas always inlined, so that their loops are compiled for the caller's level.
  auto flush = [&](const CachedWord& c) __attribute__((always_inline)) {
    for (std::uint32_t r : t.subwords->of(c.word)) SgdRule::add(t.input_row(r), 1.0f, pending_of(c), n);
    s.free_slots.push_back(c.slot);
  };
  for (std::size_t w = 0; w < batch.windows(); ++w) {
    queue_next_cbow_window(batch, w, t, s, [&](std::uint32_t word) {  // the words not cached
      return std::none_of(s.cached.begin(), s.cached.end(), [&](const CachedWord& c) { return c.word == word; });
    });
    const auto contexts = batch.window_inputs(w);
    if (contexts.empty()) continue;
    // This window's words: cached, or their sums read now.
    std::size_t listed = 0;
    for (std::uint32_t word : contexts) {
      listed += t.subwords->of(word).size();
      auto it = std::find_if(s.cached.begin(), s.cached.end(), [&](const CachedWord& c) { return c.word == word; });
      if (it == s.cached.end()) {
        if (s.free_slots.empty()) {
          s.free_slots.push_back(s.cached_rows.size() / (2 * n));
          s.cached_rows.resize(s.cached_rows.size() + 2 * n);
        }
        s.cached.push_back({word, w, s.free_slots.back()});
        s.free_slots.pop_back();
        t.sum(t.subwords->of(word), sum_of(s.cached.back()));
        std::fill(pending_of(s.cached.back()), pending_of(s.cached.back()) + n, 0.0f);
      } else {
        it->last_window = w;
      }
    }
    // The words no longer in the window pay their rows what they owe.
    for (std::size_t i = 0; i < s.cached.size();) {
      if (s.cached[i].last_window == w) {
        ++i;
        continue;
      }
      flush(s.cached[i]);
      s.cached[i] = s.cached.back();
      s.cached.pop_back();
    }
    float* hidden = s.hidden.data();
    std::fill(hidden, hidden + n, 0.0f);
    for (std::uint32_t word : contexts) {
      const auto it = std::find_if(s.cached.begin(), s.cached.end(), [&](const CachedWord& c) { return c.word == word; });
      axpy(1.0f, sum_of(*it), hidden, n);
    }
    fasttext_average({hidden, n}, listed);
    const std::size_t n_out = list_output_rows(batch.targets[w], batch.window_negatives(w), out_rows);
    train_outputs(rule, hidden, out_rows, n_out, t, s.gradient.data(), loss_sum, [&]() __attribute__((always_inline)) { s.prefetcher.step(n); });
    for (std::uint32_t word : contexts) {
      const auto it = std::find_if(s.cached.begin(), s.cached.end(), [&](const CachedWord& c) { return c.word == word; });
      const float moved = static_cast<float>(t.subwords->of(word).size()) * t.subwords->gain(word);
      axpy(1.0f, s.gradient.data(), pending_of(*it), n);
      axpy(moved, s.gradient.data(), sum_of(*it), n);
    }
    ++loss.examples;
  }
  for (const CachedWord& c : s.cached) flush(c);
  s.cached.clear();
  loss.sum += loss_sum;
}

// CBOW's loop for a rule: SGD's caches the window's words.
template <typename Rule>
__attribute__((always_inline)) inline void train_cbow_by_rule(const Rule& rule, const WindowBatch& batch, const Tables& t,
                                                              Scratch& s, BatchLoss& loss) {
  train_cbow(rule, batch, t, s, loss);
}
__attribute__((always_inline)) inline void train_cbow_by_rule(const SgdRule& rule, const WindowBatch& batch, const Tables& t,
                                                              Scratch& s, BatchLoss& loss) {
  train_cbow_cached(rule, batch, t, s, loss);
}

// Each rule's entry points, one per instruction-set level (core/cpu_isa.h), as the
// word2vec backend's.
#define EMBED_SUBWORD_LOOP(target, isa, Rule)                                                                           \
  target void train_subwords_##isa(const Rule& rule, Model model, const WindowBatch& batch, const Tables& t, Scratch& s, \
                                   BatchLoss& loss) {                                                                   \
    if (model == Model::skipgram) {                                                                                     \
      train_skipgram(rule, batch, t, s, loss);                                                                          \
    } else {                                                                                                            \
      train_cbow_by_rule(rule, batch, t, s, loss);                                                                      \
    }                                                                                                                   \
  }
#define EMBED_SUBWORD_LOOPS(Rule) EMBED_AT_EACH_ISA(EMBED_SUBWORD_LOOP, Rule)
EMBED_UPDATE_RULES(EMBED_SUBWORD_LOOPS)
#undef EMBED_SUBWORD_LOOPS
#undef EMBED_SUBWORD_LOOP

template <typename Rule>
void train_subwords_by(CpuIsa isa, const Rule& rule, Model model, const WindowBatch& batch, const Tables& t, Scratch& s,
                       BatchLoss& loss) {
  using Loop = void(const Rule&, Model, const WindowBatch&, const Tables&, Scratch&, BatchLoss&);
  version_for<Loop>(isa, &train_subwords_avx512, &train_subwords_avx2, &train_subwords_baseline)(rule, model, batch, t, s, loss);
}

class SubwordCpuBackend final : public Word2vecBackend {
 public:
  SubwordCpuBackend(Model model, RowMatrix& input, RowMatrix& output, const Word2vecLayout& layout, const SubwordRows& subwords,
                    unsigned workers)
      : model_(model), layout_(layout), subwords_(subwords), tables_{input.data(),    output.data(), input.stride(),
                                                                     layout.padded(), layout.dim,    &subwords_} {
    EMBED_ASSERT(input.stride() == output.stride() && input.stride() == layout.width());
    EMBED_ASSERT(output.rows() == subwords_.words() && input.rows() >= output.rows());
    scratch_.resize(workers);
    logistic_table();  // build the table before workers race to it
  }
  std::string name() const override { return "cpu (" + std::string(cpu_isa_name(isa_)) + ")"; }

  void train(const WindowBatch& batch, unsigned worker, BatchLoss& loss) override {
    EMBED_ASSERT(worker < scratch_.size());
    EMBED_ASSERT(batch.negatives_per_window < 63);
    Scratch& s = scratch_[worker];
    if (s.hidden.empty()) {
      for (auto* v : {&s.hidden, &s.gradient, &s.window_gradient}) v->assign(tables_.padded, 0.0f);
    }
    with_update_rule(layout_.optimizer, batch.learning_rate, layout_.padded(), layout_.hyper,
                     [&](const auto& rule) { train_subwords_by(isa_, rule, model_, batch, tables_, s, loss); });
  }

 private:
  Model model_;
  CpuIsa isa_ = cpu_isa();
  Word2vecLayout layout_;
  const SubwordRows& subwords_;
  Tables tables_;
  std::vector<Scratch> scratch_;
};

}  // namespace

std::unique_ptr<Word2vecBackend> make_subword_cpu_backend(Model model, RowMatrix& input, RowMatrix& output,
                                                          const Word2vecLayout& layout, const SubwordRows& subwords,
                                                          unsigned workers) {
  return std::make_unique<SubwordCpuBackend>(model, input, output, layout, subwords, workers);
}

}  // namespace embed
