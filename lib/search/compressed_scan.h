// The exact search's inner product over compressed rows (an .emb with int8 or pq storage,
// format/emb_file.h), in place of the SGEMM that dense rows go through: the products of
// a pass's query rows with a block of stored rows, scaled to the rows' decodings, so that
// the rest of the search (norms, 3CosMul, top-k) is the dense search's.
//
// int8 rows, on a CPU with AVX-512 VNNI: each query row is quantized to int8 too (a scale
// per query row) and the products are integer dot products, four times f32's multiply-adds
// per instruction. Elsewhere int8 rows are decoded a block at a time and go through the
// SGEMM, which is faster there than integer loops (takes() says which). pq rows:
// asymmetric distance (ADC), a table of the query's products with every centroid, so
// that a row's product is the sum of its m table entries (the query is not quantized).
// Both are exact for what they compare: the query (int8: as quantized) against the
// stored decoding, which only approximates the row the file was made from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "format/emb_file.h"

namespace embed {

class CompressedScan {
 public:
  // Whether this file's rows are scanned here (pq always; int8 with VNNI) rather than decoded.
  static bool takes(const EmbFile& file);

  // `queries`: query_rows rows of file.dim() floats (unit length, as the search builds
  // them), kept by reference only while the constructor runs.
  CompressedScan(const EmbFile& file, const float* queries, std::size_t query_rows, unsigned threads);

  // products[t * count + j] = <query row t, decoding of stored row first + j>, for the rows
  // [first, first + count).
  void products(std::uint64_t first, std::size_t count, float* products) const;

  // Query rows a pass should take at most: pq's tables are 1 KiB per sub-quantizer and
  // query row, so that a pass's tables stay within a few megabytes.
  static std::size_t max_query_rows(const EmbFile& file, std::size_t dense_max);

 private:
  // products[(first_query + u) * count + j] from the int8 dots[u * dots_stride + j] of
  // `queries` query rows: dot x the query row's scale x the stored row's.
  void scale_dots(std::size_t first_query, std::size_t queries, std::size_t count, std::size_t dots_stride,
                  const std::int32_t* dots, const float* scales, float* products) const;

  const EmbFile& file_;
  std::size_t query_rows_ = 0;
  std::vector<std::int8_t> int8_queries_;  // int8: query rows (padded to tiles) x dim (padded to 64 bytes)
  std::vector<float> query_scales_;        // int8: per query row
  std::vector<std::int32_t> query_sums_;   // int8: the sum of each query row's values
  std::vector<float> tables_;              // pq: query_rows x m x 256
};

}  // namespace embed
