// Compressed rows (int8 values or pq codes, lib/format/emb_file.h) decoded on the device
// into an f32 block for the search's GEMM, exactly as EmbFile::rows_as_f32 decodes them on
// the CPU (one product per value: the same floats). Plain structs in, as search_kernels.h.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

namespace embed::cuda {

struct DecodeRowsArgs {
  const void* rows;           // the block's stored rows: int8 values (rows x dim) or pq codes (rows x m)
  const float* scales;        // the block's per-row scales
  const float* codebooks;     // pq: [m][256][dim / m]; nullptr for int8
  std::uint32_t rows_count;   // rows in the block
  std::uint32_t dim;
  std::uint32_t m;            // pq: codes per row; 0 for int8
  float* out;                 // rows_count x dim, row-major
};

// Queues the decoding of the block on `stream`; returns the launch's status.
cudaError_t launch_decode_rows(const DecodeRowsArgs& args, cudaStream_t stream);

}  // namespace embed::cuda
