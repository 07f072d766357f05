// Skip-gram's and CBOW's rows: the vector padded to 16 floats (so that every loop runs
// over whole vectors), then the optimizer's state as its rule lays it out after them
// (train/engine/update_rules.h), so that a step touches one stretch of memory:
//   [ v_0 .. v_{d-1} | pad ]   P = d rounded up to 16 floats
//   sgd         nothing more (the rows are as they have always been)
//   adagrad     [ g²(v_0) .. g²(v_{d-1}) | pad ]                  P floats
//   rowadagrad  [ mean g²(v) | pad ]                              16 floats
//   adam        [ m | pad ][ v | pad ][ beta1^t | beta2^t | pad ]  2P + 16 floats
//   and so on (optimizer.cpp's registry; docs/embed-train.md has every one's bytes per row)
// Both tables (input and output) have the same layout; a checkpoint keeps the whole rows.
#pragma once

#include <cstddef>
#include <cstdint>

#include "train/engine/optimizer.h"
#include "train/engine/row_matrix.h"

namespace embed {

struct TrainSettings;

struct Word2vecLayout {
  std::size_t dim = 0;
  Optimizer optimizer = Optimizer::sgd;
  OptimizerParams hyper;  // resolved (resolve_params)

  explicit Word2vecLayout(const TrainSettings& settings);
  Word2vecLayout(std::size_t dim, Optimizer optimizer, const OptimizerParams& hyper = {});

  std::size_t padded() const { return RowMatrix::stride_for(dim); }  // where the state starts
  std::size_t state() const;                                         // floats of state
  std::size_t width() const { return padded() + state(); }           // floats per row
};

// A fresh table of `rows` rows: the vectors drawn by init_uniform (`uniform`: the input
// table) or zero (the output table), each row's state as the optimizer's registry entry
// starts it. SGD's is a plain RowMatrix(rows, dim), as every run's was before optimizers,
// and may be f16 (`element`: row_matrix.h says where); a table with state is f32.
RowMatrix make_word2vec_table(std::size_t rows, const Word2vecLayout& layout, bool uniform, std::uint64_t seed, unsigned threads,
                              DType element = DType::f32);

}  // namespace embed
