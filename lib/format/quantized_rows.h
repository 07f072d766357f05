// Compressing a table's rows for an .emb of format version 2 (docs/FORMAT.md, "Compressed
// rows"): int8 values with a scale per row, or product-quantization codes of the unit rows
// with their codebooks. Either way each row's exact norm is kept, and its scale is chosen
// so that the decoding has that norm: cosines and lengths read from the file are the
// decoding's own, and a row's direction is the only thing compression changes.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "format/emb_file.h"
#include "format/emb_writer.h"
#include "quant/opq.h"
#include "quant/product_quantizer.h"

namespace embed {

struct QuantizeSpec {
  RowStorage storage = RowStorage::dense;  // int8 or pq
  PqTraining pq;                           // pq: m, the sample, iterations, seed
  bool opq = false;                        // pq: learn a rotation with the codebooks (quant/opq.h)
  OpqTraining opq_training;
  unsigned threads = 1;
  // Called as work advances: what is being done ("training the product quantizer") and
  // how much of `total` is done (sub-spaces while training, rows while encoding).
  std::function<void(const std::string& stage, std::uint64_t done, std::uint64_t total)> on_progress;
};

class QuantizedRows {
 public:
  // Encodes `values` (rows of `dim` floats). Throws embed::Error for a value that is not
  // finite, or a pq.m that does not divide dim.
  static QuantizedRows encode(std::span<const float> values, std::size_t dim, const QuantizeSpec& spec);

  // Points `options` at these rows' tensors (which must outlive the write) and records the
  // settings in its metadata.
  void add_to_emb(EmbWriteOptions& options) const;

  RowStorage storage() const { return storage_; }
  std::span<const float> norms() const { return norms_; }

 private:
  RowStorage storage_ = RowStorage::int8;
  std::size_t rows_ = 0, dim_ = 0;
  QuantizeSpec spec_;
  std::vector<std::int8_t> int8_values_;
  std::vector<std::uint8_t> codes_;
  PqCodebooks codebooks_;
  std::vector<float> rotation_;  // pq with OPQ: dim x dim, rotated = x · R; else empty
  std::vector<float> scales_, norms_;
};

}  // namespace embed
