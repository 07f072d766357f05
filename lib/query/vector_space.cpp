#include "query/vector_space.h"

#include <cmath>
#include <cstring>

#include "convert/load.h"
#include "core/error.h"
#include "core/half_array.h"
#include "core/parallel.h"
#include "format/word_index.h"

namespace embed {

VectorSpace VectorSpace::open(const std::string& path, std::optional<VectorFormat> format, unsigned threads) {
  InputStream in = InputStream::open(path);
  const VectorFormat detected = format ? *format : detect_format(in);
  if (detected == VectorFormat::emb) return from_emb(in.mappable() ? EmbFile::open(in.path()) : EmbFile::from_bytes(in.read_all(), in.name()));
  LoadOptions options;
  options.format = detected;
  options.threads = threads;
  LoadedVectors loaded = load_vectors(in, detected, options);
  return from_table(std::move(loaded.table), in.name(), threads);
}

VectorSpace VectorSpace::from_emb(EmbFile file) {
  VectorSpace space;
  space.name_ = file.name();
  space.rows_ = file.rows();
  space.dim_ = file.dim();
  space.emb_.emplace(std::move(file));
  space.norms_ = space.emb_->norms();
  if (space.norms_.size() != space.rows_) {
    // Another writer's file without a norms tensor: compute them once.
    space.computed_norms_.resize(space.rows_);
    std::vector<float> row(space.dim_);
    for (std::uint64_t r = 0; r < space.rows_; ++r) {
      space.emb_->row_as_f32(r, row.data());
      double sum = 0;
      for (float x : row) sum += double{x} * x;
      space.computed_norms_[r] = static_cast<float>(std::sqrt(sum));
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

bool VectorSpace::has_counts() const { return emb_ ? !emb_->counts().empty() : !table_.counts.empty(); }

std::string_view VectorSpace::word(std::uint64_t row) const { return emb_ ? emb_->word(row) : table_.word(row); }

std::optional<std::uint64_t> VectorSpace::find(std::string_view word) const {
  if (emb_) return emb_->find(word);
  return find_in_index(index_, rows_, [this](std::uint64_t r) { return table_.word(r); }, word);
}

const float* VectorSpace::rows_f32(std::uint64_t first, std::size_t count, float* scratch) const {
  if (!emb_) return table_.values.data() + first * dim_;
  const std::size_t n = count * dim_;
  const std::byte* base = emb_->vector_bytes();
  switch (emb_->dtype()) {
    case DType::f32:
      return reinterpret_cast<const float*>(base) + first * dim_;
    case DType::f16: {
      const auto* halves = reinterpret_cast<const std::uint16_t*>(base) + first * dim_;
      f16_to_f32_array(halves, scratch, n);
      return scratch;
    }
    case DType::bf16: {
      const auto* halves = reinterpret_cast<const std::uint16_t*>(base) + first * dim_;
      bf16_to_f32_array(halves, scratch, n);
      return scratch;
    }
    default:
      EMBED_ASSERT(false);
  }
  return nullptr;
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
