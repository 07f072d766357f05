#include "format/embedding_table.h"

#include <cmath>

#include "core/error.h"
#include "core/parallel.h"
#include "format/word_index.h"

namespace embed {

void EmbeddingTable::add_row(std::string_view word, std::span<const float> vector, std::uint64_t origin) {
  EMBED_ASSERT(vector.size() == dim);
  word_bytes.append(word);
  word_offsets.push_back(static_cast<std::int64_t>(word_bytes.size()));
  values.insert(values.end(), vector.begin(), vector.end());
  origins.push_back(origin);
}

std::vector<std::uint32_t> index_words(const EmbeddingTable& table, const std::string& source_name) {
  if (table.rows() >= kMaxIndexedRows) {
    fail("{}: {} words is more than the format's limit of {}", source_name, table.rows(), kMaxIndexedRows - 1);
  }
  auto word_at = [&](std::uint64_t row) { return table.word(row); };
  auto on_duplicate = [&](std::uint64_t first, std::uint64_t again) {
    // Text inputs point at lines ("vectors.txt:17: ..."), others at rows ("vectors.bin: row 17: ...").
    const std::string where = table.origin_kind == "line"
                                  ? fmt::format("{}:{}", source_name, table.origins[again])
                                  : fmt::format("{}: {} {}", source_name, table.origin_kind, table.origins[again]);
    fail("{}: duplicate word \"{}\" (also on {} {})", where, table.word(again), table.origin_kind, table.origins[first]);
  };
  return build_index(table.rows(), word_at, on_duplicate);
}

std::size_t normalize_rows(EmbeddingTable& table, unsigned threads) {
  const std::size_t rows = table.rows();
  constexpr std::size_t kBlock = 4096;
  std::vector<std::size_t> zero_rows((rows + kBlock - 1) / kBlock, 0);
  parallel_for(zero_rows.size(), threads, [&](std::size_t block) {
    for (std::size_t r = block * kBlock; r < std::min(rows, (block + 1) * kBlock); ++r) {
      auto row = table.row(r);
      double sum = 0;
      for (float v : row) sum += static_cast<double>(v) * v;
      if (sum == 0) {
        ++zero_rows[block];
        continue;
      }
      const auto scale = static_cast<float>(1.0 / std::sqrt(sum));
      for (float& v : row) v *= scale;
    }
  });
  std::size_t zeros = 0;
  for (std::size_t z : zero_rows) zeros += z;
  return zeros;
}

}  // namespace embed
