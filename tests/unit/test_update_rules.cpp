// The optimizer registry and its update rules (train/engine/update_rules.h), each against
// a reference written from the rule's definition in double precision: PyTorch's
// documented algorithms for SGD, AdamW, Adamax, RMSprop, Adadelta, Rprop and ASGD, Kingma & Ba's
// efficient form of Adam, PBG's RowAdagrad, and Stanford GloVe's AdaGrad with its unscaled
// bias step. Three steps on one row: what the rows a batch touches see (the sparse rules'
// state moves only then, and bias correction counts the row's own steps).

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "test_util.h"
#include "train/engine/optimizer.h"
#include "train/engine/update_rules.h"
#include "train/glove/glove_layout.h"
#include "train/run/model_registry.h"

using namespace embed;

namespace {

constexpr std::size_t kDim = 5;
constexpr std::size_t kParams = 16;  // the padded row: vector, bias, padding
constexpr float kLr = 0.1f;

// Three steps of made-up gradients (as gradient_scale's caller forms them: coefficient ×
// direction), element k of step s.
double gradient(int step, std::size_t k) { return 0.3 * std::sin(1.0 + step + 0.7 * static_cast<double>(k)) - 0.05 * step; }

// Applies `rule` to one row (kDim elements and the bias at kDim) for three steps of
// coefficient 1 and the gradients above: returns the row's parameters after each step
// (and, given `states`, the first kDim + 1 floats of its state after each step).
template <typename Rule>
std::vector<std::vector<float>> run_rule(const Rule& rule, std::vector<std::vector<float>>* states = nullptr) {
  std::vector<float> row(kParams + Rule::state_floats(kParams), 0.0f);
  for (std::size_t k = 0; k <= kDim; ++k) row[k] = 0.5f + 0.1f * static_cast<float>(k);
  Rule::init_state(row.data() + kParams, kParams);
  std::vector<std::vector<float>> after;
  for (int step = 0; step < 3; ++step) {
    float* state = row.data() + kParams;
    const auto r = rule.begin(state);
    float sum = 0;
    for (std::size_t k = 0; k < kDim; ++k) {
      // The direction is the gradient divided by the coefficient's scale: the rule's
      // gradient_scale(1) times it gives back gradient(step, k) (times lr for the rules
      // that fold it in).
      const float g = rule.gradient_scale(1.0f) * static_cast<float>(gradient(step, k));
      row[k] -= rule.change(r, state, k, row[k], g, sum);
    }
    rule_end<PlainAdd>(rule, state, sum, kDim);
    const float bias_coefficient = static_cast<float>(gradient(step, kDim));
    row[kDim] -=
        rule_bias_change<PlainAdd>(rule, r, state, kDim, row[kDim], rule.gradient_scale(bias_coefficient), bias_coefficient);
    after.emplace_back(row.begin(), row.begin() + kDim + 1);
    if (states) states->emplace_back(state, state + kDim + 1);
  }
  return after;
}

void check_close(const std::vector<std::vector<float>>& got, const std::vector<std::vector<double>>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t s = 0; s < got.size(); ++s) {
    for (std::size_t k = 0; k <= kDim; ++k) {
      INFO("step " << s << ", element " << k);
      CHECK(got[s][k] == Approx(want[s][k]).epsilon(1e-5));
    }
  }
}

// run_rule's starting row, as the floats it holds.
std::vector<double> start_row() {
  std::vector<double> row(kDim + 1);
  for (std::size_t k = 0; k <= kDim; ++k) row[k] = static_cast<double>(0.5f + 0.1f * static_cast<float>(k));
  return row;
}

}  // namespace

TEST_CASE("SGD steps by the learning rate times the gradient", "[train][optimizer]") {
  std::vector<double> p = start_row();
  std::vector<std::vector<double>> want;
  for (int step = 0; step < 3; ++step) {
    for (std::size_t k = 0; k <= kDim; ++k) p[k] -= double{kLr} * gradient(step, k);
    want.push_back(p);
  }
  check_close(run_rule(SgdRule{kLr}), want);
}

TEST_CASE("AdaGrad per element divides by the root of 1 plus the squares before it", "[train][optimizer]") {
  std::vector<double> p = start_row(), squares(kDim + 1, 0.0);
  std::vector<std::vector<double>> want;
  for (int step = 0; step < 3; ++step) {
    for (std::size_t k = 0; k <= kDim; ++k) {
      // Stanford GloVe: the vector's gradient scaled by the learning rate, the bias's not.
      const double scaled = k < kDim ? double{kLr} * gradient(step, k) : gradient(step, k);
      p[k] -= scaled / std::sqrt(1.0 + squares[k]);
      squares[k] += scaled * scaled;
    }
    want.push_back(p);
  }
  check_close(run_rule(AdagradRule{kLr}), want);
}

TEST_CASE("RowAdagrad keeps the mean square of a row's gradients, and the bias's own", "[train][optimizer]") {
  std::vector<double> p = start_row();
  double row_squares = 0, bias_squares = 0;
  std::vector<std::vector<double>> want;
  for (int step = 0; step < 3; ++step) {
    double sum = 0;
    for (std::size_t k = 0; k < kDim; ++k) {
      const double scaled = double{kLr} * gradient(step, k);
      p[k] -= scaled / std::sqrt(1.0 + row_squares);
      sum += scaled * scaled;
    }
    row_squares += sum / kDim;
    const double bias = double{kLr} * gradient(step, kDim);
    p[kDim] -= bias / std::sqrt(1.0 + bias_squares);
    bias_squares += bias * bias;
    want.push_back(p);
  }
  check_close(run_rule(RowAdagradRule{kLr}), want);
}

TEST_CASE("Adam is bias-corrected by the row's own step count", "[train][optimizer]") {
  std::vector<double> p = start_row(), m(kDim + 1, 0.0), v(kDim + 1, 0.0);
  const double b1 = kAdamBeta1, b2 = kAdamBeta2, eps = kAdamEpsilon;
  std::vector<std::vector<double>> want;
  for (int step = 0; step < 3; ++step) {
    const int t = step + 1;
    for (std::size_t k = 0; k <= kDim; ++k) {
      const double g = gradient(step, k);
      m[k] = b1 * m[k] + (1 - b1) * g;
      v[k] = b2 * v[k] + (1 - b2) * g * g;
      // PyTorch's Adam, with epsilon added to the uncorrected root as it documents:
      // lr × sqrt(1 - b2^t) / (1 - b1^t) × m / (sqrt(v) + eps).
      p[k] -= double{kLr} * std::sqrt(1 - std::pow(b2, t)) / (1 - std::pow(b1, t)) * m[k] / (std::sqrt(v[k]) + eps);
    }
    want.push_back(p);
  }
  check_close(run_rule(AdamRule{kLr, kParams}), want);
}

TEST_CASE("the optimizer registry lays out each rule's state and names its options", "[train][optimizer][registry]") {
  for (const OptimizerSpec& spec : optimizers()) {
    CHECK(parse_optimizer(spec.name) == spec.optimizer);
    CHECK(&optimizer_spec(spec.optimizer) == &spec);
    const GloveLayout layout(300, spec.optimizer);
    CHECK(layout.width == layout.params + spec.state_floats(layout.params));
    CHECK(layout.width % 16 == 0);  // rows stay whole vectors for the kernels
    // --optimizer's help names each optimizer with the models that take it.
    CHECK_THAT(optimizer_help(), Catch::Matchers::Contains(std::string(spec.name) + " ("));
  }
  CHECK(GloveLayout(300, Optimizer::sgd).width == 304);
  CHECK(GloveLayout(300, Optimizer::adagrad).width == 2 * 304);
  CHECK(GloveLayout(300, Optimizer::rowadagrad).width == 304 + 16);
  CHECK(GloveLayout(300, Optimizer::adam).width == 3 * 304 + 16);
  CHECK(GloveLayout(300, Optimizer::rmsprop).width == 2 * 304);
  CHECK(GloveLayout(300, Optimizer::adadelta).width == 3 * 304);
  CHECK(GloveLayout(300, Optimizer::asgd).width == 2 * 304 + 16);
  CHECK_FALSE(parse_optimizer("sparseadam").has_value());
  // A fresh Adam row's beta powers are 1 (no step yet); its moments 0.
  const GloveLayout adam(4, Optimizer::adam);
  const RowMatrix table = make_glove_table(3, adam, 1, 0, 1);
  for (std::size_t r = 0; r < 3; ++r) {
    const float* state = table.row(r) + adam.state();
    CHECK(state[0] == 0.0f);
    CHECK(state[2 * adam.params] == 1.0f);
    CHECK(state[2 * adam.params + 1] == 1.0f);
  }
}

TEST_CASE("AdamW decays the weights apart from the gradient, then steps by the corrected moments", "[train][optimizer]") {
  const double lr = kLr, b1 = 0.9, b2 = 0.99, eps = 1e-8, decay = 0.05;
  std::vector<double> p = start_row(), m(kDim + 1, 0.0), v(kDim + 1, 0.0);
  std::vector<std::vector<double>> want;
  for (int step = 0; step < 3; ++step) {
    const int t = step + 1;
    for (std::size_t k = 0; k <= kDim; ++k) {
      const double g = gradient(step, k);
      p[k] -= lr * decay * p[k];  // PyTorch: θ ← θ − γλθ, then the Adam step
      m[k] = b1 * m[k] + (1 - b1) * g;
      v[k] = b2 * v[k] + (1 - b2) * g * g;
      const double m_hat = m[k] / (1 - std::pow(b1, t)), v_hat = v[k] / (1 - std::pow(b2, t));
      p[k] -= lr * m_hat / (std::sqrt(v_hat) + eps);
    }
    want.push_back(p);
  }
  check_close(run_rule(AdamWRule{kLr, kParams, 0.9f, 0.99f, 1e-8f, 0.05f}), want);
}

TEST_CASE("Adamax divides by the decaying largest gradient", "[train][optimizer]") {
  const double lr = kLr, b1 = 0.9, b2 = 0.999, eps = 1e-8;
  std::vector<double> p = start_row(), m(kDim + 1, 0.0), u(kDim + 1, 0.0);
  std::vector<std::vector<double>> want;
  for (int step = 0; step < 3; ++step) {
    const int t = step + 1;
    for (std::size_t k = 0; k <= kDim; ++k) {
      const double g = gradient(step, k);
      m[k] = b1 * m[k] + (1 - b1) * g;
      u[k] = std::max(b2 * u[k], std::abs(g) + eps);
      p[k] -= lr / (1 - std::pow(b1, t)) * m[k] / u[k];
    }
    want.push_back(p);
  }
  check_close(run_rule(AdamaxRule{kLr, kParams}), want);
}

TEST_CASE("RMSprop divides by the root of the decaying mean square", "[train][optimizer]") {
  const double lr = kLr, alpha = 0.9, eps = 1e-8;
  std::vector<double> p = start_row(), v(kDim + 1, 0.0);
  std::vector<std::vector<double>> want;
  for (int step = 0; step < 3; ++step) {
    for (std::size_t k = 0; k <= kDim; ++k) {
      const double g = gradient(step, k);
      v[k] = alpha * v[k] + (1 - alpha) * g * g;
      p[k] -= lr * g / (std::sqrt(v[k]) + eps);
    }
    want.push_back(p);
  }
  check_close(run_rule(RmspropRule{kLr, 0.9f, 1e-8f}), want);
}

TEST_CASE("ASGD decays its step with the row's steps and averages the row after t0 of them", "[train][optimizer]") {
  // PyTorch's ASGD, from its documented algorithm, with t0 = 0 so that the third step
  // averages (μ = 1/2) where the first two copy.
  const double lambda = 1e-2, power = 0.75, t0 = 0, lr = kLr;
  std::vector<double> p = start_row(), average(kDim + 1, 0.0);
  std::vector<std::vector<double>> want, want_average;
  double eta = lr, mu = 1;
  for (int step = 1; step <= 3; ++step) {
    for (std::size_t k = 0; k <= kDim; ++k) {
      p[k] = p[k] * (1 - lambda * eta) - eta * gradient(step - 1, k);
      average[k] = mu == 1 ? p[k] : average[k] + (p[k] - average[k]) * mu;
    }
    eta = lr / std::pow(1 + lambda * lr * step, power);
    mu = 1 / std::max(1.0, step - t0);
    want.push_back(p);
    want_average.push_back(average);
  }
  std::vector<std::vector<float>> averages;
  check_close(run_rule(AsgdRule{kLr, kParams, 1e-2f, 0.75f, 0.0f}, &averages), want);
  check_close(averages, want_average);
  CHECK(want_average[2][0] != want[2][0]);  // the third step did average
  CHECK(optimizer_spec(Optimizer::asgd).averages);
}

TEST_CASE("Adadelta scales steps by the mean square of earlier steps", "[train][optimizer]") {
  const double lr = 1.0, rho = 0.9, eps = 1e-6;
  std::vector<double> p = start_row(), v(kDim + 1, 0.0), u(kDim + 1, 0.0);
  std::vector<std::vector<double>> want;
  for (int step = 0; step < 3; ++step) {
    for (std::size_t k = 0; k <= kDim; ++k) {
      const double g = gradient(step, k);
      v[k] = rho * v[k] + (1 - rho) * g * g;
      const double delta = std::sqrt(u[k] + eps) / std::sqrt(v[k] + eps) * g;
      u[k] = rho * u[k] + (1 - rho) * delta * delta;
      p[k] -= lr * delta;
    }
    want.push_back(p);
  }
  check_close(run_rule(AdadeltaRule{1.0f, kParams}), want);
}

TEST_CASE("Rprop steps by the sign, growing the step while the sign holds and shrinking it when it flips", "[train][optimizer]") {
  const double lr = kLr, minus = 0.5, plus = 1.2, smallest = 1e-6, largest = 50;
  std::vector<double> p = start_row(), previous(kDim + 1, 0.0), size(kDim + 1, lr);
  std::vector<std::vector<double>> want;
  // gradient() changes sign for some elements between steps, so both branches run.
  bool flipped = false, held = false;
  for (int step = 0; step < 3; ++step) {
    for (std::size_t k = 0; k <= kDim; ++k) {
      double g = gradient(step, k);
      const double agreement = g * previous[k];
      if (agreement > 0) {
        size[k] = std::min(size[k] * plus, largest);
        held = true;
      } else if (agreement < 0) {
        size[k] = std::max(size[k] * minus, smallest);
        g = 0;  // PyTorch: no step where the sign flipped
        flipped = true;
      }
      p[k] -= (g > 0 ? 1 : g < 0 ? -1 : 0) * size[k];
      previous[k] = g;
    }
    want.push_back(p);
  }
  REQUIRE(flipped);
  REQUIRE(held);
  check_close(run_rule(RpropRule{kLr, kParams}), want);
}

TEST_CASE("hyper-parameters: the defaults of the optimizers that take them, refused by those that do not",
          "[train][optimizer][registry]") {
  const OptimizerParams adam = resolve_params(Optimizer::adam, {});
  CHECK(adam.beta1 == 0.9f);
  CHECK(adam.beta2 == 0.999f);
  CHECK(adam.eps == 1e-8f);
  CHECK(std::isnan(adam.rho));
  OptimizerParams given;
  given.eps = 1e-4f;
  CHECK(resolve_params(Optimizer::adadelta, given).eps == 1e-4f);
  CHECK(resolve_params(Optimizer::adadelta, {}).eps == 1e-6f);
  CHECK(std::isnan(resolve_params(Optimizer::sgd, given).eps));  // sgd takes none
  for (const OptimizerParamSpec& param : optimizer_param_specs()) {
    CHECK_FALSE(optimizers_taking(param).empty());
    CHECK_THAT(optimizer_param_help(param), Catch::Matchers::Contains("default"));
  }
  CHECK(optimizer_param_help(optimizer_param_specs()[2]) ==
        "added to the denominator (adam, adamw, adamax, rmsprop, adadelta; default 1e-08 for adam, adamw, adamax, "
        "rmsprop; 1e-06 for adadelta)");
}
