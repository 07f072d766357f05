// Writing .emb files (docs/FORMAT.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/atomic_output.h"
#include "format/dtype.h"
#include "format/embedding_table.h"

namespace embed {

struct EmbWriteOptions {
  DType dtype = DType::f32;   // storage type of `vectors`: f32, f16 or bf16
  bool normalized = false;    // recorded in __metadata__: the rows have unit length
  std::string source;         // where the vectors came from, for __metadata__
  std::string creator;        // tool name and version, for __metadata__
  unsigned threads = 1;
  std::map<std::string, std::string> extra_metadata;
};

// Writes `table` as .emb. `index` is index_words(table). Norms are computed from the
// values as stored (after rounding to dtype), so cosine = dot / (norm_a * norm_b) holds
// exactly for readers of the file.
void write_emb(const EmbeddingTable& table, const std::vector<std::uint32_t>& index, const EmbWriteOptions& options,
               AtomicOutput& out);

}  // namespace embed
