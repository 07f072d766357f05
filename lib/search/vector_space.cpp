#include "search/vector_space.h"

#include <algorithm>
#include <cstring>

#include "format/word_index.h"
#include "vectors/load.h"
#include "vectors/vector_formats.h"

namespace embed {

VectorSpace VectorSpace::open(const std::string& path, const VectorReading& reading, unsigned threads) {
  InputStream in = InputStream::open(path);
  const VectorFormat detected = reading.format ? *reading.format : detect_format(in);
  if (detected == VectorFormat::emb)
    return from_emb(in.mappable() ? EmbFile::open(in.path()) : EmbFile::from_bytes(in.read_all(), in.name()));
  LoadOptions options;
  options.format = detected;
  options.threads = threads;
  options.words = reading.words;
  options.subwords = true;
  LoadedVectors loaded = load_vectors(in, detected, options);
  VectorSpace space = from_table(std::move(loaded.table), in.name(), threads);
  space.subwords_ = std::move(loaded.subwords);
  return space;
}

VectorSpace VectorSpace::from_emb(EmbFile file) {
  VectorSpace space;
  space.name_ = file.name();
  space.rows_ = file.rows();
  space.dim_ = file.dim();
  space.emb_.emplace(std::move(file));
  space.norms_ = space.emb_->norms();
  space.subwords_ = SubwordTable::from_emb(*space.emb_, false);  // its rows stay in the mapping
  if (space.norms_.size() != space.rows_) {
    // Another writer's file without a norms tensor: compute them once, a block of at most
    // 4096 rows and 16 MB at a time (never more rows than the file has).
    const std::size_t block_rows = static_cast<std::size_t>(std::clamp<std::uint64_t>(
        std::min<std::uint64_t>(4096, (16u << 20) / (space.dim_ * sizeof(float))), 1, std::max<std::uint64_t>(space.rows_, 1)));
    std::vector<float> block(block_rows * space.dim_);
    for (std::uint64_t first = 0; first < space.rows_; first += block_rows) {
      const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(block_rows, space.rows_ - first));
      space.emb_->rows_as_f32(first, count, block.data());
      const std::vector<float> norms = row_norms({block.data(), count * space.dim_}, space.dim_, 1);
      space.computed_norms_.insert(space.computed_norms_.end(), norms.begin(), norms.end());
    }
    space.norms_ = space.computed_norms_;
  }
  return space;
}

VectorSpace VectorSpace::from_table(EmbeddingTable table, std::string name, unsigned threads) {
  VectorSpace space;
  space.name_ = std::move(name);
  space.index_ = index_words(table, space.name_);
  space.computed_norms_ = row_norms(table.values, table.dim, threads);
  space.norms_ = space.computed_norms_;
  space.rows_ = table.rows();
  space.dim_ = table.dim;
  space.table_ = std::move(table);
  return space;
}

std::string_view VectorSpace::word(std::uint64_t row) const { return emb_ ? emb_->word(row) : table_.word(row); }

std::optional<std::uint64_t> VectorSpace::find(std::string_view word) const {
  if (emb_) return emb_->find(word);
  return find_in_index(
      index_, rows_, [this](std::uint64_t r) { return table_.word(r); }, word);
}

const float* VectorSpace::rows_f32(std::uint64_t first, std::size_t count, float* scratch) const {
  if (!emb_) return table_.values.data() + first * dim_;
  if (emb_->dtype() == DType::f32) return reinterpret_cast<const float*>(emb_->vector_bytes()) + first * dim_;
  emb_->rows_as_f32(first, count, scratch);
  return scratch;
}

const std::byte* VectorSpace::stored_rows(std::uint64_t first) const {
  if (!emb_) return reinterpret_cast<const std::byte*>(table_.values.data() + first * dim_);
  return emb_->vector_bytes() + first * emb_->row_bytes();
}

void VectorSpace::row_f32(std::uint64_t row, float* out) const {
  if (emb_) return emb_->row_as_f32(row, out);
  std::memcpy(out, table_.values.data() + row * dim_, dim_ * sizeof(float));
}

std::vector<float> VectorSpace::row_f32(std::uint64_t row) const {
  std::vector<float> out(dim_);
  row_f32(row, out.data());
  return out;
}

}  // namespace embed
