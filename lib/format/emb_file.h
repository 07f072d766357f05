// Reading .emb files: a safetensors file holding word vectors and their vocabulary
// (docs/FORMAT.md). open() maps the file and validates its header and the shapes,
// dtypes and offsets of every tensor; it never copies or scans the vectors, so
// opening costs the same for 10 MB or 10 GB. verify() additionally checks every
// tensor's CRC-32 and the consistency of the stored hash index.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/dtype.h"
#include "format/safetensors.h"
#include "quant/product_quantizer.h"

namespace embed {

inline constexpr const char* kEmbFormatName = "embed.vectors";
// Version 2 adds compressed rows (RowStorage::int8 and ::pq). Files with vectors stay
// version 1, so that older readers read them; compressed ones are version 2, which older
// readers refuse by name ("newer than this tool reads").
inline constexpr int kEmbFormatVersion = 2;
inline constexpr int kEmbDenseFormatVersion = 1;

// How a file stores its rows (docs/FORMAT.md): `vectors` (F32, F16 or BF16), or compressed:
// int8 values with a scale per row, or product-quantization codes with their codebooks.
// A compressed row decodes to scale x (its int8 values, or its centroids side by side),
// with the scale chosen so that the decoding's norm is the row's exact norm.
enum class RowStorage { dense, int8, pq };
// "dense", "int8", "pq": __metadata__ "storage" (absent: dense).
std::string_view row_storage_name(RowStorage storage);
// The inverse: nullopt for any other word.
std::optional<RowStorage> parse_row_storage(std::string_view name);

class EmbFile {
 public:
  // Maps `path`. Throws embed::Error ("PATH: what is wrong") for a corrupt,
  // truncated or foreign file.
  static EmbFile open(const std::string& path);
  // Reads from bytes already in memory (standard input, a decompressed stream).
  static EmbFile from_bytes(std::vector<char> bytes, const std::string& name);

  const std::string& name() const { return name_; }
  std::uint64_t rows() const { return rows_; }
  std::uint64_t dim() const { return dim_; }
  // The stored rows' element type: F32, F16 or BF16 vectors; I8 (int8) or U8 (pq) when compressed.
  DType dtype() const { return dtype_; }
  RowStorage storage() const { return storage_; }
  bool compressed() const { return storage_ != RowStorage::dense; }
  // The stored rows' tensor: "vectors", "int8.values" or "pq.codes" (its checksum is
  // __metadata__ "checksum." + this name).
  const std::string& rows_tensor_name() const { return rows_tensor_name_; }
  // Bytes of one stored row: dim() elements of dtype(), or pq_m() codes.
  std::size_t row_bytes() const { return row_bytes_; }
  // int8 and pq: the per-row scale that multiplies a row's decoding (empty when dense).
  std::span<const float> row_scales() const { return scales_; }
  // pq: the codebooks (copied at open: 256 x dim floats); nullptr otherwise.
  const PqCodebooks* pq_codebooks() const { return storage_ == RowStorage::pq ? &codebooks_ : nullptr; }
  // pq with OPQ: the rotation R (dim x dim, row-major; codes are of x · R, rows decode as
  // centroids · Rᵀ); empty without one.
  std::span<const float> pq_rotation() const { return rotation_; }
  bool normalized() const { return normalized_; }
  std::uint64_t file_size() const { return file_.size(); }
  const std::map<std::string, std::string>& metadata() const { return header_.metadata; }
  // __metadata__[key] as a whole number. Throws embed::Error when it is missing or not one.
  std::uint64_t metadata_count(const std::string& key) const;
  const std::vector<safetensors::TensorInfo>& tensors() const { return header_.tensors; }

  std::string_view word(std::uint64_t row) const;
  // The row holding `word`, through the stored index: O(1), no load-time work.
  std::optional<std::uint64_t> find(std::string_view word) const;

  // The stored rows, row-major, row_bytes() each (vectors, int8 values or pq codes);
  // 64-byte aligned for files we wrote.
  const std::byte* vector_bytes() const { return vectors_; }
  // Row `row` converted (or decoded) to f32 into out[0, dim()).
  void row_as_f32(std::uint64_t row, float* out) const;
  // Rows [first, first + count) converted to f32 into out[0, count * dim()).
  void rows_as_f32(std::uint64_t first, std::size_t count, float* out) const;

  // Word frequencies, or empty when the file has none.
  std::span<const std::int64_t> counts() const { return counts_; }
  // L2 norm of each stored row, or empty when the file has none.
  std::span<const float> norms() const { return norms_; }

  // A `shape` extent that matches any length (a tensor whose length only its data tells).
  static constexpr std::uint64_t kAnyExtent = ~std::uint64_t{0};
  // The bytes of tensor `name` (8-byte aligned), or nullopt when the file has none.
  // Throws embed::Error when it has one of another dtype, rank or shape.
  std::optional<std::span<const std::byte>> find_tensor(const std::string& name, DType dtype,
                                                        const std::vector<std::uint64_t>& shape) const;

  // Checks every tensor's checksum against __metadata__ and that the index finds
  // every word at its own row. Throws embed::Error on the first mismatch.
  void verify() const;

 private:
  EmbFile() = default;
  void load(const std::string& name);
  // Finds the stored rows' tensor and the tensors that decode it; sets rows_, dim_, dtype_, row_bytes_.
  void load_rows(const std::string& name);
  const std::byte* tensor_data(const safetensors::TensorInfo& info) const;
  // The tensor `tensor_name`; throws naming the file when it is missing.
  const safetensors::TensorInfo& require(const char* tensor_name) const;
  // Throws naming the file unless `t` is of `dtype` and `shape`.
  void expect(const safetensors::TensorInfo& t, DType dtype, const std::vector<std::uint64_t>& shape) const;

  std::string name_;
  std::shared_ptr<const void> owner_;  // the mapping or the owned bytes
  std::span<const std::byte> file_;
  safetensors::Header header_;
  mutable std::vector<std::unique_ptr<std::uint64_t[]>> realigned_;  // copies of tensors another writer left misaligned
  std::uint64_t rows_ = 0;
  std::uint64_t dim_ = 0;
  DType dtype_ = DType::f32;
  RowStorage storage_ = RowStorage::dense;
  std::string rows_tensor_name_ = "vectors";
  std::size_t row_bytes_ = 0;
  std::span<const float> scales_;
  PqCodebooks codebooks_;
  std::span<const float> rotation_;
  bool normalized_ = false;
  const std::byte* vectors_ = nullptr;
  std::span<const std::int64_t> offsets_;
  std::span<const char> word_bytes_;
  std::span<const std::uint32_t> index_;
  std::span<const std::int64_t> counts_;
  std::span<const float> norms_;
};

}  // namespace embed
