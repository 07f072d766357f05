// Optimized product quantization (Ge, He, Ke and Sun 2013; trained as faiss's OPQMatrix
// trains it): an orthogonal dim x dim rotation R learned together with the codebooks, so
// that the rotated rows x·R spread their variance over the sub-spaces and quantize with
// less error. A row is encoded as x·R and decoded as (its centroids)·Rᵀ; a search rotates
// the query once (q·R) and scores the codes in the rotated space.
//
// Training alternates: the codebooks, a few Lloyd iterations on the rotated rows; then R,
// the orthogonal matrix nearest to mapping the rows onto their decodings (Procrustes:
// the polar factor of Xᵀ·Y, by Newton-Schulz iterations). It starts from R = I, so its
// first step is plain PQ, and every step lowers the quantization error on the sample.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "quant/product_quantizer.h"

namespace embed {

struct OpqTraining {
  unsigned rounds = 20;         // rotation updates (faiss: 50)
  unsigned pq_iterations = 4;   // Lloyd iterations between them (faiss: 4); the first PQ gets PqTraining's
};

struct OpqModel {
  std::vector<float> rotation;  // R, dim x dim row-major: rotated = x · R
  PqCodebooks codebooks;        // in the rotated space
};

// Trains on `count` rows of `dim` floats (all of them: the caller samples), with `pq` (m,
// iterations of the first PQ, seed, threads, progress per round as sub-spaces done / m).
// Throws embed::Error as train_pq does.
OpqModel train_opq(const float* rows, std::size_t count, std::size_t dim, const PqTraining& pq, const OpqTraining& opq);

// out[count x dim] = rows · R (rotate) or rows · Rᵀ (rotate back), R dim x dim row-major.
void rotate_rows(const float* rows, std::size_t count, std::size_t dim, const float* rotation, float* out, unsigned threads);
void rotate_rows_back(const float* rows, std::size_t count, std::size_t dim, const float* rotation, float* out,
                      unsigned threads);

// Rᵀ, for callers that rotate often (a search's queries).
std::vector<float> transposed(const float* matrix, std::size_t rows, std::size_t columns);

}  // namespace embed
