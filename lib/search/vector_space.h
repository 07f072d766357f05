// The vectors embed-query searches: an .emb file mapped as it is, or any other format
// glove-convert reads, converted into memory. Gives words, rows as f32 and each row's
// norm, and nothing that needs a pass over the matrix when the input is an .emb.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/float_buffer.h"
#include "core/utf8.h"
#include "format/emb_file.h"
#include "format/embedding_table.h"
#include "text/format_detect.h"
#include "text/subword_table.h"
#include "text/word_decoding.h"

namespace embed {

// How a vector file is read (embed-query's --from and --unicode-errors).
struct VectorReading {
  std::optional<VectorFormat> format;  // nullopt: detected from the content
  WordDecoding words;  // --encoding and --unicode-errors: text, word2vec and fastText words
};

class VectorSpace {
 public:
  // Opens `path` ("-": stdin). An .emb file is mapped; other formats are read
  // into memory (`threads` parse text). Throws embed::Error for bad input.
  static VectorSpace open(const std::string& path, const VectorReading& reading, unsigned threads);
  static VectorSpace from_emb(EmbFile file);
  static VectorSpace from_table(EmbeddingTable table, std::string name, unsigned threads);

  const std::string& name() const { return name_; }
  std::uint64_t rows() const { return rows_; }
  std::size_t dim() const { return dim_; }
  DType dtype() const { return emb_ ? emb_->dtype() : DType::f32; }
  // True when the input was not an .emb and was converted at open (worth a hint).
  bool converted() const { return !emb_.has_value(); }
  // The mapped .emb, for the tensors beyond the vectors (an approximate index); nullptr when converted.
  const EmbFile* emb() const { return emb_ ? &*emb_ : nullptr; }

  std::string_view word(std::uint64_t row) const;
  std::optional<std::uint64_t> find(std::string_view word) const;

  // Rows [first, first + count) as row-major f32: a pointer into the mapping when
  // stored as f32, otherwise converted into `scratch` (count * dim() floats).
  const float* rows_f32(std::uint64_t first, std::size_t count, float* scratch) const;
  void row_f32(std::uint64_t row, float* out) const;
  // Rows from `first` on as stored: row-major dtype() values (in the mapping, or in the
  // converted f32 table), for copying them as they are (to a GPU).
  const std::byte* stored_rows(std::uint64_t first) const;
  // Bytes of one row as stored: dim() elements of dtype(), or a pq file's codes.
  std::size_t stored_row_bytes() const { return emb_ ? emb_->row_bytes() : dim_ * sizeof(float); }
  // int8 or pq rows, which the GPU's search does not take.
  bool compressed() const { return emb_ && emb_->compressed(); }
  std::vector<float> row_f32(std::uint64_t row) const;
  // The L2 norm of every row (stored in .emb files; computed once when absent).
  std::span<const float> norms() const { return norms_; }
  // A fastText model's n-gram buckets (an .emb made with glove-convert --subwords, or the
  // model itself), which give words outside the vocabulary a vector; nullptr when none.
  const SubwordTable* subwords() const { return subwords_ ? &*subwords_ : nullptr; }

 private:
  VectorSpace() = default;

  std::string name_;
  std::uint64_t rows_ = 0;
  std::size_t dim_ = 0;
  std::optional<EmbFile> emb_;       // a mapped .emb, or
  EmbeddingTable table_;             // vectors converted into memory, with
  std::vector<std::uint32_t> index_; // their word index
  std::vector<float> computed_norms_;
  std::span<const float> norms_;
  std::optional<SubwordTable> subwords_;  // in the mapped .emb, or owned
};

}  // namespace embed
