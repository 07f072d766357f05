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

std::vector<std::uint32_t> index_words(const EmbeddingTable& table, const std::string& source_name,
                                       std::uint64_t capacity) {
  if (table.rows() >= kMaxIndexedRows) {
    fail("{}: {} words is more than the format's limit of {}", source_name, table.rows(), kMaxIndexedRows - 1);
  }
  auto word_at = [&](std::uint64_t row) { return table.word(row); };
  auto on_duplicate = [&](std::uint64_t first, std::uint64_t again) {
    // Text inputs point at lines ("vectors.txt:17: ..."), others at rows ("vectors.bin: row 17: ...").
    const std::string where = table.origin_kind == "line"
                                  ? fmt::format("{}:{}", source_name, table.origins[again])
                                  : fmt::format("{}: {} {}", source_name, table.origin_kind, table.origins[again]);
    fail("{}: duplicate word \"{}\" (also on {} {}){}", where, table.word(again), table.origin_kind, table.origins[first],
         table.duplicate_note);
  };
  if (capacity == 0) capacity = min_index_capacity(table.rows());
  return build_index(table.rows(), capacity, word_at, on_duplicate);
}

namespace {
constexpr std::size_t kRowBlock = 4096;
}  // namespace

std::size_t normalize_rows(std::span<float> values, std::size_t dim, unsigned threads) {
  const std::size_t rows = dim ? values.size() / dim : 0;
  std::vector<std::size_t> zero_rows((rows + kRowBlock - 1) / kRowBlock, 0);
  parallel_for(zero_rows.size(), threads, [&](std::size_t block) {
    for (std::size_t r = block * kRowBlock; r < std::min(rows, (block + 1) * kRowBlock); ++r) {
      const auto row = values.subspan(r * dim, dim);
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

std::vector<float> row_norms(std::span<const float> values, std::size_t dim, unsigned threads) {
  const std::size_t rows = dim ? values.size() / dim : 0;
  std::vector<float> norms(rows);
  parallel_for((rows + kRowBlock - 1) / kRowBlock, threads, [&](std::size_t block) {
    for (std::size_t r = block * kRowBlock; r < std::min(rows, (block + 1) * kRowBlock); ++r) {
      double sum = 0;
      for (float v : values.subspan(r * dim, dim)) sum += static_cast<double>(v) * v;
      norms[r] = static_cast<float>(std::sqrt(sum));
    }
  });
  return norms;
}

}  // namespace embed
