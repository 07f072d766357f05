// The update rules the trainers' inner loops call, one struct per optimizer, shared by
// the CPU backends and the CUDA kernels (plain C++17 with host-device annotations under
// nvcc). Which rules exist, their names, options and the models that take them: the
// optimizer registry (optimizer.h). A rule sees a row's gradient as the backend forms
// it: a coefficient (word2vec: label - sigmoid(score); GloVe: f(X) × the prediction's
// error) times a direction (the other row).
//
// Every rule has
//   gradient_scale(c)  what the backend multiplies a direction by to form a gradient
//                      (or a step): SGD folds its learning rate in here, as word2vec
//                      does, so that its sums are already steps; a rule with state keeps
//                      the plain gradient and turns it into a step in its update;
//   state_floats(P)    the floats of state it keeps beside a row of P parameters (P a
//                      multiple of 16: the vector, a bias, padding), after them;
//   init_state(s, P)   a fresh row's state.
//
// Two forms of the update, for the two shapes of inner loop:
// - Accumulated (word2vec's loops, which form a row's whole step before applying it):
//   rule_step(rule, row, state, s, x, n) applies the ascent direction s × x (word2vec's
//   coefficient is label - sigmoid, the negative of the loss's gradient). SGD has its own
//   vectorised add(row, s, x, n) for it, which word2vec's kernels call too; every other
//   rule goes through the element form below (on the CPU only, so far).
// - Element by element (GloVe's loops, which update two rows per record), on a row whose
//   state starts at `state`:
//     Row r = begin(state)                 the row's values for this step (Adam's
//                                          bias-corrected step size); may advance state
//     change<Add>(r, state, k, p, g, sum)  what to subtract from parameter k, of value p
//                                          (weight decay reads it), whose gradient as
//                                          gradient_scale formed it is g;
//                                          `sum` is a sum over the row that the caller
//                                          keeps (a simd reduction; a warp sum on the
//                                          GPU) for a rule whose sums_row is true
//     end<Add>(state, sum, n)              after the row's n elements: only a rule whose
//                                          sums_row is true has one (rule_end calls it)
//     bias_change<Add>(r, state, k, p, s, c)  what to subtract from an unclipped extra
//                                          parameter k (GloVe's bias) of value p and
//                                          coefficient c, s being gradient_scale(c) as the
//                                          row used it: only a rule whose bias steps
//                                          unlike its elements has one; rule_bias_change
//                                          calls it, or change for the others
//   Add is how the rule adds to its state: PlainAdd on the CPU, where one thread owns a
//   step; GloVe's kernels (kernels/train/glove_kernels.cu) pass an atomic add, run
//   begin, end and the bias on one lane of a warp and the elements on all 32. A rule
//   whose `concurrent` is false changes its state in ways atomic adds cannot express
//   (Adam's decaying moments and step counts): skip-gram's and CBOW's kernels take it in
//   summed steps (train/word2vec/summed_steps.h), where one warp steps a row.
//
// Every rule is sparse: only the rows a step touches change, state included (lazy
// AdaGrad and Adam, as PyTorch's SparseAdam).
#pragma once

#include <cmath>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "train/engine/update_constants.h"

#ifdef __CUDACC__
#define EMBED_HOST_DEVICE __host__ __device__
#else
#define EMBED_HOST_DEVICE
#endif

namespace embed {

// An add to a rule's state that returns the value it replaced. The kernels' atomic add
// does the same, so that concurrent records each see their own predecessor's value, as
// in a sequential order.
struct PlainAdd {
  EMBED_HOST_DEVICE static float fetch_add(float& x, float v) {
    const float before = x;
    x = before + v;
    return before;
  }
};

// AdaGrad as Stanford GloVe applies it: `scaled` is the gradient already multiplied by
// the learning rate (and clipped); the step divides it by the root of 1 plus the
// accumulated squares of earlier such values (the reference starts its accumulators
// at 1). The accumulator holds the sum without that 1: in float, squares of order
// 1e-9 added to 1.0 would round away, and Stanford's doubles keep them.
template <typename Add = PlainAdd>
EMBED_HOST_DEVICE inline float adagrad_step(float& accumulator, float scaled) {
  const float before = Add::fetch_add(accumulator, scaled * scaled);
  return scaled / sqrtf(kAdagradStart + before);
}

// Adam (Kingma & Ba) with the usual constants, applied lazily: a row's moments move
// only when the row is touched, and bias correction uses the row's own step count, as
// DGL's sparse Adam does (a global count would over-correct rare rows).
inline constexpr float kAdamBeta1 = 0.9f;
inline constexpr float kAdamBeta2 = 0.999f;
inline constexpr float kAdamEpsilon = 1e-8f;

// The bias-corrected step size, from beta1^t and beta2^t after the row's t-th update
// (kept per row as two numbers, so the inner loop needs no pow).
EMBED_HOST_DEVICE inline float adam_step_size(float lr, float beta1_power, float beta2_power) {
  return lr * sqrtf(1 - beta2_power) / (1 - beta1_power);
}

// Updates the moments with `gradient` and returns the step to subtract.
EMBED_HOST_DEVICE inline float adam_step(float& mean, float& variance, float gradient, float step_size, float beta1, float beta2,
                                         float eps) {
  mean = beta1 * mean + (1 - beta1) * gradient;
  variance = beta2 * variance + (1 - beta2) * gradient * gradient;
  return step_size * mean / (sqrtf(variance) + eps);
}

// Plain SGD with word2vec's schedule (the learning rate falls linearly, optimizer.h).
struct SgdRule {
  float lr;

  struct Row {};
  static constexpr bool sums_row = false;
  static constexpr bool concurrent = true;

  static constexpr std::size_t state_floats(std::size_t) { return 0; }
  static void init_state(float*, std::size_t) {}

  EMBED_HOST_DEVICE float gradient_scale(float coefficient) const { return coefficient * lr; }

  EMBED_HOST_DEVICE Row begin(float*) const { return {}; }
  template <typename Add = PlainAdd>
  EMBED_HOST_DEVICE float change(Row, float*, std::size_t, float, float g, float&) const {
    return g;
  }

#ifndef __CUDACC__
  // The CPU's loops: whole padded rows, vectorised (each caller is a target clone).
  static void add(float* __restrict row, float scale, const float* __restrict x, std::size_t n) {
#pragma omp simd
    for (std::size_t i = 0; i < n; ++i) row[i] += scale * x[i];
  }
#endif
};

// AdaGrad with an accumulator per parameter, Stanford GloVe's glove.c as it has been
// since its gradient clip (2020): a vector's gradient is clipped, then scaled by the
// learning rate; a bias's is not scaled at all, so the biases step at AdaGrad's rate 1
// (upstream pull request #209 proposes scaling them and its maintainers found the
// vectors worse). On text8-head the unscaled bias step is what brings WS-353 up to
// Stanford's figure (bench/RESULTS.md, issue 23).
// State: [ g²(p_0) .. g²(p_{P-1}) ], P floats.
struct AdagradRule {
  float lr;

  struct Row {};
  static constexpr bool sums_row = false;
  static constexpr bool concurrent = true;

  static constexpr std::size_t state_floats(std::size_t params) { return params; }
  static void init_state(float*, std::size_t) {}

  EMBED_HOST_DEVICE float gradient_scale(float coefficient) const { return coefficient; }

  EMBED_HOST_DEVICE Row begin(float*) const { return {}; }
  template <typename Add = PlainAdd>
  EMBED_HOST_DEVICE float change(Row, float* state, std::size_t k, float, float g, float&) const {
    return adagrad_step<Add>(state[k], g * lr);
  }
  template <typename Add = PlainAdd>
  EMBED_HOST_DEVICE float bias_change(Row, float* state, std::size_t k, float, float, float coefficient) const {
    return adagrad_step<Add>(state[k], coefficient);
  }
};

// AdaGrad with one accumulator per row, PyTorch-BigGraph's RowAdagrad: the mean of the
// row's squared (scaled, clipped) gradients, about P times less state. The bias keeps
// an accumulator of its own. State: [ mean g²(vector) | g²(bias) | pad ], 16 floats.
struct RowAdagradRule {
  float lr;

  struct Row {
    float scale;  // 1 / sqrt(1 + the row's accumulator) before this step
  };
  static constexpr bool sums_row = true;
  static constexpr bool concurrent = true;

  static constexpr std::size_t state_floats(std::size_t) { return 16; }
  static void init_state(float*, std::size_t) {}

  EMBED_HOST_DEVICE float gradient_scale(float coefficient) const { return coefficient * lr; }

  EMBED_HOST_DEVICE Row begin(float* state) const { return {1.0f / sqrtf(kAdagradStart + state[0])}; }
  template <typename Add = PlainAdd>
  EMBED_HOST_DEVICE float change(Row r, float*, std::size_t, float, float g, float& squares) const {
    squares += g * g;
    return g * r.scale;
  }
  template <typename Add = PlainAdd>
  EMBED_HOST_DEVICE void end(float* state, float squares, std::size_t n) const {
    Add::fetch_add(state[0], squares / static_cast<float>(n));
  }
  template <typename Add = PlainAdd>
  EMBED_HOST_DEVICE float bias_change(Row, float* state, std::size_t, float, float scale, float) const {
    return adagrad_step<Add>(state[1], scale);
  }
};

// Adam's and AdamW's bias correction: the row's beta1^t and beta2^t after its t-th step,
// kept after its moments (both 1 before its first step), so that the step needs no pow.
struct BetaPowers {
  static void init(float* powers) {
    powers[0] = 1.0f;
    powers[1] = 1.0f;
  }
  // Counts the row's step: returns the powers, advanced.
  EMBED_HOST_DEVICE static const float* advance(float* powers, float beta1, float beta2) {
    powers[0] *= beta1;
    powers[1] *= beta2;
    return powers;
  }
};

// Adam, lazy and bias-corrected per row (above), in Kingma & Ba's efficient form (their
// section 2): θ -= lr × sqrt(1 - β2^t) / (1 - β1^t) × m / (sqrt(v) + ε), which is PyTorch's
// m̂ / (sqrt(v̂) + ε) with ε scaled by sqrt(1 - β2^t). State: [ m (P) ][ v (P) ][ beta1^t |
// beta2^t | pad ], 2P + 16 floats; the powers start at 1.
struct AdamRule {
  float lr;
  std::size_t params;  // P: where v and the powers start in the state
  float beta1 = kAdamBeta1;
  float beta2 = kAdamBeta2;
  float eps = kAdamEpsilon;

  struct Row {
    float step;  // the bias-corrected step size of this update
  };
  static constexpr bool sums_row = false;
  // Its moments decay before they add and its beta powers multiply: concurrent updates
  // of a row would lose steps, so the GPU trains it in summed steps
  // (train/word2vec/summed_steps.h: one writer per row).
  static constexpr bool concurrent = false;

  static constexpr std::size_t state_floats(std::size_t params) { return 2 * params + 16; }
  static void init_state(float* state, std::size_t params) { BetaPowers::init(state + 2 * params); }

  EMBED_HOST_DEVICE float gradient_scale(float coefficient) const { return coefficient; }

  EMBED_HOST_DEVICE Row begin(float* state) const {
    const float* powers = BetaPowers::advance(state + 2 * params, beta1, beta2);
    return {adam_step_size(lr, powers[0], powers[1])};
  }
  template <typename Add = PlainAdd>
  EMBED_HOST_DEVICE float change(Row r, float* state, std::size_t k, float, float g, float&) const {
    return adam_step(state[k], state[params + k], g, r.step, beta1, beta2, eps);
  }
};

// The rules below follow PyTorch's documented algorithms, made sparse the way its
// SparseAdam is: a row's state moves only when the row is touched, and a rule that
// corrects bias counts the row's own steps. Each starts from the plain gradient
// (gradient_scale is the identity) and, where PyTorch's does, has a weight decay.

// AdamW (Loshchilov & Hutter): the decay is decoupled from the gradient, θ -= lr × λ × θ,
// then θ -= lr × m̂ / (sqrt(v̂) + ε) with m̂ = m / (1 - β1^t), v̂ = v / (1 - β2^t).
// State: [ m (P) ][ v (P) ][ beta1^t | beta2^t | pad ], 2P + 16 floats; the powers start at 1.
struct AdamWRule {
  float lr;
  std::size_t params;
  float beta1 = kAdamBeta1;
  float beta2 = kAdamBeta2;
  float eps = kAdamEpsilon;
  float weight_decay = 0.01f;

  struct Row {
    float step;         // lr / (1 - β1^t)
    float correction2;  // sqrt(1 - β2^t)
  };
  static constexpr bool sums_row = false;
  static constexpr bool concurrent = false;

  static constexpr std::size_t state_floats(std::size_t params) { return 2 * params + 16; }
  static void init_state(float* state, std::size_t params) { BetaPowers::init(state + 2 * params); }

  EMBED_HOST_DEVICE float gradient_scale(float coefficient) const { return coefficient; }

  EMBED_HOST_DEVICE Row begin(float* state) const {
    const float* powers = BetaPowers::advance(state + 2 * params, beta1, beta2);
    return {lr / (1 - powers[0]), sqrtf(1 - powers[1])};
  }
  template <typename Add = PlainAdd>
  EMBED_HOST_DEVICE float change(Row r, float* state, std::size_t k, float param, float g, float&) const {
    float& m = state[k];
    float& v = state[params + k];
    m = beta1 * m + (1 - beta1) * g;
    v = beta2 * v + (1 - beta2) * g * g;
    return lr * weight_decay * param + r.step * m / (sqrtf(v) / r.correction2 + eps);
  }
};

// Adamax, Adam with the infinity norm: u = max(β2 × u, |g| + ε), θ -= lr / (1 - β1^t) × m / u.
// State: [ m (P) ][ u (P) ][ beta1^t | pad ], 2P + 16 floats; the power starts at 1.
struct AdamaxRule {
  float lr;
  std::size_t params;
  float beta1 = kAdamBeta1;
  float beta2 = kAdamBeta2;
  float eps = kAdamEpsilon;

  struct Row {
    float step;  // lr / (1 - β1^t)
  };
  static constexpr bool sums_row = false;
  static constexpr bool concurrent = false;

  static constexpr std::size_t state_floats(std::size_t params) { return 2 * params + 16; }
  static void init_state(float* state, std::size_t params) { state[2 * params] = 1.0f; }

  EMBED_HOST_DEVICE float gradient_scale(float coefficient) const { return coefficient; }

  EMBED_HOST_DEVICE Row begin(float* state) const {
    float& power = state[2 * params];
    power *= beta1;
    return {lr / (1 - power)};
  }
  template <typename Add = PlainAdd>
  EMBED_HOST_DEVICE float change(Row r, float* state, std::size_t k, float, float g, float&) const {
    float& m = state[k];
    float& u = state[params + k];
    m = beta1 * m + (1 - beta1) * g;
    // Comparisons rather than fmaxf and fabsf, whose NaN rules keep GCC from vectorising them.
    const float decayed = beta2 * u, magnitude = (g < 0 ? -g : g) + eps;
    u = decayed > magnitude ? decayed : magnitude;
    return r.step * m / u;
  }
};

// RMSprop (Hinton), PyTorch's without momentum or centring: v = α × v + (1 - α) × g²,
// θ -= lr × g / (sqrt(v) + ε). α is --rho. State: [ v (P) ], P floats.
struct RmspropRule {
  float lr;
  float rho = 0.99f;
  float eps = 1e-8f;

  struct Row {};
  static constexpr bool sums_row = false;
  static constexpr bool concurrent = false;

  static constexpr std::size_t state_floats(std::size_t params) { return params; }
  static void init_state(float*, std::size_t) {}

  EMBED_HOST_DEVICE float gradient_scale(float coefficient) const { return coefficient; }

  EMBED_HOST_DEVICE Row begin(float*) const { return {}; }
  template <typename Add = PlainAdd>
  EMBED_HOST_DEVICE float change(Row, float* state, std::size_t k, float, float g, float&) const {
    float& v = state[k];
    v = rho * v + (1 - rho) * g * g;
    return lr * g / (sqrtf(v) + eps);
  }
};

// Adadelta (Zeiler): v = ρ × v + (1 - ρ) × g², Δ = sqrt(u + ε) / sqrt(v + ε) × g,
// u = ρ × u + (1 - ρ) × Δ², θ -= lr × Δ (lr 1 in the paper). State: [ v (P) ][ u (P) ], 2P.
struct AdadeltaRule {
  float lr;
  std::size_t params;
  float rho = 0.9f;
  float eps = 1e-6f;

  struct Row {};
  static constexpr bool sums_row = false;
  static constexpr bool concurrent = false;

  static constexpr std::size_t state_floats(std::size_t params) { return 2 * params; }
  static void init_state(float*, std::size_t) {}

  EMBED_HOST_DEVICE float gradient_scale(float coefficient) const { return coefficient; }

  EMBED_HOST_DEVICE Row begin(float*) const { return {}; }
  template <typename Add = PlainAdd>
  EMBED_HOST_DEVICE float change(Row, float* state, std::size_t k, float, float g, float&) const {
    float& v = state[k];
    float& u = state[params + k];
    v = rho * v + (1 - rho) * g * g;
    const float delta = sqrtf(u + eps) / sqrtf(v + eps) * g;
    u = rho * u + (1 - rho) * delta * delta;
    return lr * delta;
  }
};

// Rprop (Riedmiller & Braun), sparse: Rprop steps each parameter by its own step size in
// the direction of its gradient's sign, growing the size by η+ while the sign holds and
// shrinking it by η- (and skipping the step) when it flips. It was designed for full
// batches; here a row's signs and sizes move each time the row is touched, so a row
// compares its gradient with the one of its previous touch. A size starts at lr (0 in
// the state means "not yet touched") and stays within [step_min, step_max]. PyTorch's
// step_max of 50 suits full batches; the trainers give kRpropLargestSteps × lr instead
// (with_update_rule), since a frequent row touched thousands of times with a steady sign
// otherwise grows its steps until word2vec's loss diverges (measured: 453,668 after one
// epoch of skip-gram on text8-200k).
// State: [ previous g (P) ][ step size (P) ], 2P floats.
inline constexpr float kRpropLargestSteps = 10.0f;
struct RpropRule {
  float lr;
  std::size_t params;
  float eta_minus = 0.5f;
  float eta_plus = 1.2f;
  float step_min = 1e-6f;
  float step_max = 50.0f;

  struct Row {};
  static constexpr bool sums_row = false;
  static constexpr bool concurrent = false;

  static constexpr std::size_t state_floats(std::size_t params) { return 2 * params; }
  static void init_state(float*, std::size_t) {}

  EMBED_HOST_DEVICE float gradient_scale(float coefficient) const { return coefficient; }

  EMBED_HOST_DEVICE Row begin(float*) const { return {}; }
  template <typename Add = PlainAdd>
  EMBED_HOST_DEVICE float change(Row, float* state, std::size_t k, float, float g, float&) const {
    float& previous = state[k];
    float& size = state[params + k];
    const float size_before = size == 0 ? lr : size;
    const float agreement = g * previous;
    // Comparisons rather than fminf and fmaxf, which GCC does not vectorise.
    const float grown = size_before * eta_plus < step_max ? size_before * eta_plus : step_max;
    const float shrunk = size_before * eta_minus > step_min ? size_before * eta_minus : step_min;
    size = agreement > 0 ? grown : agreement < 0 ? shrunk : size_before;
    const float used = agreement < 0 ? 0.0f : g;
    previous = used;
    return used > 0 ? size : used < 0 ? -size : 0.0f;
  }
};

#ifndef __CUDACC__
// word2vec's step of one row: the ascent direction scale × x taken by the rule in its
// element form, whose gradient is the direction's negative, over the vector's `dim`
// elements (the padding stays zero; RowAdagrad's mean is over `dim`). SGD's own add runs
// over `padded` elements (dim rounded up to whole vectors: x's padding is zero), as
// word2vec's loops always have.
template <typename Rule>
inline __attribute__((always_inline)) void rule_step(const Rule& rule, float* __restrict row, float* __restrict state,
                                                     float scale, const float* __restrict x, std::size_t dim,
                                                     std::size_t /*padded*/) {
  const auto r = rule.begin(state);
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (std::size_t k = 0; k < dim; ++k) row[k] -= rule.template change<PlainAdd>(r, state, k, row[k], -(scale * x[k]), sum);
  if constexpr (Rule::sums_row) rule.template end<PlainAdd>(state, sum, dim);
}
inline __attribute__((always_inline)) void rule_step(const SgdRule&, float* __restrict row, float*, float scale,
                                                     const float* __restrict x, std::size_t, std::size_t padded) {
  SgdRule::add(row, scale, x, padded);
}
#endif

// ASGD (Polyak & Juditsky's averaged SGD, as PyTorch's ASGD), sparse: each row counts its
// own steps t, and its step size and averaging weight follow from them, as PyTorch's do
// from the global step: η = lr / (1 + λ × lr × t)^power, θ -= η × (λ × θ + g), then the
// average a = θ while t ≤ t0, else a += (θ - a) / (t - t0). The average is what the
// trainers write (OptimizerSpec::averages); the parameters go on training. State:
// [ a (P) ][ t | pad ], P + 16 floats.
struct AsgdRule {
  float lr;
  std::size_t params;
  float lambda = 1e-4f;
  float power = 0.75f;
  float t0 = 1e6f;

  struct Row {
    float eta;  // this step's size
    float mu;   // the weight of this step's parameters in the average
  };
  static constexpr bool sums_row = false;
  static constexpr bool concurrent = false;

  static constexpr std::size_t state_floats(std::size_t params) { return params + 16; }
  static void init_state(float*, std::size_t) {}

  EMBED_HOST_DEVICE float gradient_scale(float coefficient) const { return coefficient; }

  // The row's step count before this step gives its η and μ (PyTorch's, after that many
  // steps); then it counts this one.
  EMBED_HOST_DEVICE Row begin(float* state) const {
    float& t = state[params];
    const float eta = lr / powf(1 + lambda * lr * t, power);
    const float past_t0 = t - t0;
    const float mu = past_t0 > 1 ? 1 / past_t0 : 1.0f;
    t += 1;
    return {eta, mu};
  }
  template <typename Add = PlainAdd>
  EMBED_HOST_DEVICE float change(Row r, float* state, std::size_t k, float param, float g, float&) const {
    const float step = r.eta * (lambda * param + g);
    const float updated = param - step;
    float& average = state[k];
    average = r.mu == 1.0f ? updated : average + (updated - average) * r.mu;
    return step;
  }
};

// A rule's own bias_change, where it has one.
template <typename Rule, typename = void>
struct HasBiasChange : std::false_type {};
template <typename Rule>
struct HasBiasChange<Rule, std::void_t<decltype(std::declval<const Rule&>().template bias_change<PlainAdd>(
                               std::declval<typename Rule::Row>(), nullptr, std::size_t{}, 0.0f, 0.0f, 0.0f))>> : std::true_type {
};

// The detection holds under every compiler that builds the rules (nvcc's too).
static_assert(HasBiasChange<AdagradRule>::value && HasBiasChange<RowAdagradRule>::value && !HasBiasChange<SgdRule>::value);

// What to subtract from an unclipped extra parameter (GloVe's bias): the rule's own
// bias_change where its bias steps unlike its elements (AdaGrad's unscaled step,
// RowAdagrad's accumulator of its own), else its change, as for any element.
template <typename Add, typename Rule>
EMBED_HOST_DEVICE float rule_bias_change(const Rule& rule, typename Rule::Row r, float* state, std::size_t k, float param,
                                         float scale, float coefficient) {
  if constexpr (HasBiasChange<Rule>::value) {
    return rule.template bias_change<Add>(r, state, k, param, scale, coefficient);
  } else {
    float unused = 0;
    return rule.template change<Add>(r, state, k, param, scale, unused);
  }
}

// After a row's elements: only a rule that sums over its row has anything to do.
template <typename Add, typename Rule>
EMBED_HOST_DEVICE void rule_end(const Rule& rule, float* state, float sum, std::size_t n) {
  if constexpr (Rule::sums_row) rule.template end<Add>(state, sum, n);
}

}  // namespace embed
