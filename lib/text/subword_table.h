// A fastText model's n-gram bucket rows, from which the vector of a word outside the
// vocabulary is built, and their place in an .emb file (tensor "subwords.buckets" and
// the "subwords.*" metadata keys, docs/FORMAT.md#subwords).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "core/float_buffer.h"
#include "format/dtype.h"
#include "format/emb_file.h"
#include "format/emb_writer.h"
#include "text/fasttext_subwords.h"

namespace embed {

inline constexpr const char* kSubwordTensor = "subwords.buckets";

class SubwordTable {
 public:
  SubwordTable() = default;
  // Owns `rows` (settings.buckets × dim f32 values, row-major).
  SubwordTable(SubwordSettings settings, std::size_t dim, FloatBuffer rows);
  // Views `rows` (the same shape), which must outlive the table.
  SubwordTable(SubwordSettings settings, std::size_t dim, std::span<const float> rows);
  // The table an .emb holds, or nullopt when it has none. The rows stay in the file's
  // mapping (`file` must outlive the table) unless `copy`. Throws embed::Error for a
  // malformed table (shape, dtype or settings that disagree).
  static std::optional<SubwordTable> from_emb(const EmbFile& file, bool copy);

  const SubwordSettings& settings() const { return settings_; }
  std::size_t dim() const { return dim_; }
  DType dtype() const { return dtype_; }

  // Adds bucket rows `buckets` to `sum` (dim() floats) one after the other in f32, as
  // fastText adds rows.
  void add_rows(std::span<const std::uint32_t> buckets, std::span<float> sum) const;
  // Bucket row `bucket` in f32, into `out` (dim() floats).
  void row(std::uint32_t bucket, std::span<float> out) const;
  // fastText's vector of a word outside the vocabulary: the average of its n-grams'
  // bucket rows. Returns how many n-grams it has (0: `out` is zero, as in fastText).
  std::size_t oov_vector(std::string_view word, std::span<float> out) const;

  // Adds the table (as `dtype`) and its settings to what `options` writes. The returned
  // object holds the tensor's bytes and must outlive the write.
  std::shared_ptr<const void> add_to_emb(DType dtype, EmbWriteOptions& options) const;

 private:
  SubwordSettings settings_;
  std::size_t dim_ = 0;
  DType dtype_ = DType::f32;
  std::span<const std::byte> bytes_;   // buckets × dim values of dtype_
  std::shared_ptr<const void> owner_;  // the bytes when the table owns them
};

}  // namespace embed
