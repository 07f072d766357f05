// GloVe's training data and parameters.
//
// A record is one non-zero co-occurrence X_ij with what the loss needs of it
// precomputed (log X_ij and the weight f(X_ij) = min(1, (X_ij / x_max)^alpha)), so
// the inner loop has no log or pow: 16 bytes, as the design brief lays it out.
//
// Each of the two tables (words W and contexts W̃) keeps, per row, the vector, its bias
// and the optimizer's state side by side, so that one record touches two contiguous
// stretches of memory:
//   [ w_0 .. w_{d-1} | b | pad ]  P = d + 1 rounded up to 16 floats
//   then the optimizer's state, as its rule lays it out (train/engine/update_rules.h):
//     sgd              nothing
//     adagrad          [ g²(w_0) .. g²(w_{d-1}) | g²(b) | pad ]             P floats
//     rowadagrad       [ mean g²(w) | g²(b) | pad ]                          16 floats
//     adam             [ m(w) | m(b) | pad ][ v(w) | v(b) | pad ][ beta1^t | beta2^t | pad ]  2P + 16
//     and so on (optimizer.cpp's registry; docs/embed-train.md has every one's bytes per row)
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "train/engine/optimizer.h"
#include "train/engine/row_matrix.h"

namespace embed {

struct GloveRecord {
  std::uint32_t row;     // word i (a row of W)
  std::uint32_t column;  // context word j (a row of W̃)
  float log_count;       // log X_ij
  float weight;          // f(X_ij)
};
static_assert(sizeof(GloveRecord) == 16);

// f(x) = min(1, (x / x_max)^alpha).
float glove_weight(double count, double x_max, double alpha);

struct GloveLayout {
  std::size_t dim = 0;
  std::size_t params = 0;                    // P: floats of vector, bias and padding
  std::size_t width = 0;                     // floats per row, state included
  Optimizer optimizer = Optimizer::adagrad;  // whose state the rows keep
  OptimizerParams hyper;                     // its hyper-parameters, resolved
  std::size_t bias() const { return dim; }
  std::size_t state() const { return params; }  // where the optimizer's state starts

  // `hyper`: the optimizer's hyper-parameters as given (its defaults fill in the rest).
  GloveLayout(std::size_t dim, Optimizer optimizer, const OptimizerParams& hyper = {});
};

// A fresh table: vectors and biases uniform in [-0.5, 0.5) / dim, as Stanford GloVe
// draws them, per row from (seed, table, row); the optimizer's state as its registry
// entry starts it (accumulators and moments at 0, Adam's beta powers at 1).
RowMatrix make_glove_table(std::size_t rows, const GloveLayout& layout, std::uint64_t seed, unsigned table, unsigned threads);

}  // namespace embed
