// Writing .emb files (docs/FORMAT.md).
//
// Layout: the header, padded to a size fixed in advance (so that it can be written
// last), then `vectors` at a 64-byte file offset, then the tensors whose sizes depend
// on the vocabulary. This lets EmbStreamWriter write vectors as a parser produces
// them, with no second copy of the table in memory, and fill in the header (sizes,
// checksums) at the end. write_emb() produces the same bytes from a table in memory,
// also onto outputs that cannot seek, such as a pipe; so does EmbStreamWriter from rows
// that can be given twice (two passes, below).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/atomic_output.h"
#include "format/dtype.h"
#include "format/emb_file.h"
#include "format/embedding_table.h"
#include "format/safetensors.h"

namespace embed {

// A tensor written after the vocabulary's (an approximate index: search/ann/), with its
// checksum. Its bytes must outlive the write.
struct ExtraTensor {
  std::string name;
  DType dtype = DType::u8;
  std::vector<std::uint64_t> shape;
  std::span<const std::byte> bytes;
};

// Rows already compressed (format/quantized_rows.h), written in place of `vectors`: the
// tensor of stored rows (int8.values or pq.codes), the exact norms of the rows it encodes,
// and how they are stored. The tensors that decode them go in extra_tensors.
struct EncodedRows {
  RowStorage storage = RowStorage::int8;
  ExtraTensor rows;
  std::span<const float> norms;
};

struct EmbWriteOptions {
  DType dtype = DType::f32;   // storage type of `vectors`: f32, f16 or bf16 (ignored with `encoded`)
  // Compressed rows (format version 2); write_emb() only, and the table's values are not written.
  std::optional<EncodedRows> encoded;
  bool normalize = false;     // scale rows to unit length as they are written
  bool normalized = false;    // the rows already have unit length (an .emb input said so)
  std::string source;         // where the vectors came from, for __metadata__ and messages
  std::string creator;        // tool name and version, for __metadata__
  unsigned threads = 1;
  std::map<std::string, std::string> extra_metadata;
  // Written before vocab.bytes, widest elements first (in this order among equals), so none needs padding.
  std::vector<ExtraTensor> extra_tensors;
  // When set, __metadata__[key] also holds the vectors' checksum, which ties the extra
  // tensors (an index built from these vectors) to them.
  std::string vectors_checksum_key;
  // vocab.index when the caller has already built it (index_words at
  // emb_index_capacity()); empty: built while writing.
  std::vector<std::uint32_t> word_index;
};

// Where each tensor goes in the data buffer, in file order, and the index capacity
// chosen so that every tensor is naturally aligned.
struct EmbLayout {
  std::vector<safetensors::TensorInfo> tensors;
  std::uint64_t index_capacity = 0;
};
// `rows_tensor`: the stored rows, first in the buffer (its bytes unused here).
EmbLayout plan_emb_layout(const ExtraTensor& rows_tensor, std::uint64_t word_bytes, bool has_counts,
                          std::span<const ExtraTensor> extra_tensors = {});
// The layout of a file of `vectors` in `dtype`.
EmbLayout plan_emb_layout(std::uint64_t rows, std::uint64_t dim, DType dtype, std::uint64_t word_bytes, bool has_counts,
                          std::span<const ExtraTensor> extra_tensors = {});
// The tensor of stored rows these options write: `vectors` in options.dtype, or the encoded rows.
ExtraTensor rows_tensor(const EmbWriteOptions& options, std::uint64_t rows, std::uint64_t dim);

// `values` in a 16-bit storage type (f16 or bf16), rounded to nearest even. first_overflow
// is set to the index of the first finite value that became infinity, or values.size().
std::vector<std::uint16_t> narrow_to_half(std::span<const float> values, DType dtype, unsigned threads,
                                          std::size_t& first_overflow);
// What an overflow message says of the type's range: "f16 (largest 65504)" or "bf16".
std::string_view half_range_name(DType dtype);

// The vocab.index capacity plan_emb_layout() chooses for these vectors (or these options' rows).
std::uint64_t emb_index_capacity(std::uint64_t rows, std::uint64_t dim, DType dtype);
std::uint64_t emb_index_capacity(const EmbWriteOptions& options, std::uint64_t rows, std::uint64_t dim);

struct EmbTrailer;  // the tensors after `vectors` (emb_writer.cpp)

// On a seekable `out` the rows go by once: add_rows() for each block, then finish().
// On one that cannot seek (a pipe, a device) the header, which holds the rows' checksum,
// must come first, so the rows go by twice: passes() is 2, and the caller gives every row
// to add_rows() (only measured: checksum, norms, range), calls write_header(), gives
// them all again (written), then calls finish(). Either way the rows are never all in memory.
class EmbStreamWriter {
 public:
  // Reserves the header space at the start of `out` when it is seekable.
  EmbStreamWriter(AtomicOutput& out, std::size_t dim, EmbWriteOptions options);
  ~EmbStreamWriter();

  int passes() const { return out_.seekable() ? 1 : 2; }

  // Writes (or, in a first pass, measures) rows [first_row, first_row + n) of `table`,
  // whose words and origins are already there; `values` holds their n * dim components
  // (scaled in place when normalizing). Rows must arrive in order.
  void add_rows(const EmbeddingTable& table, std::size_t first_row, std::span<float> values);

  // Ends the first of two passes: writes the header. Throws embed::Error on a duplicate word.
  void write_header(const EmbeddingTable& table);

  // Writes the vocabulary, index and norms, then (seekable) the header. Throws
  // embed::Error on a duplicate word. The caller then commits `out`.
  void finish(const EmbeddingTable& table);

  std::size_t zero_rows() const { return zero_rows_; }  // rows left at zero by normalize

 private:
  AtomicOutput& out_;
  std::size_t dim_;
  EmbWriteOptions options_;
  std::uint64_t header_size_;
  std::size_t rows_written_ = 0;
  std::uint32_t vectors_crc_ = 0;
  std::vector<float> norms_;
  std::size_t zero_rows_ = 0;
  bool measuring_ = false;               // in the first of two passes
  std::unique_ptr<EmbTrailer> trailer_;  // two passes: built for the header, written by finish()
};

// Writes `table` (normalizing its values in place when asked) as .emb in one go.
// Returns the number of rows left at zero by normalize.
std::size_t write_emb(EmbeddingTable& table, const EmbWriteOptions& options, AtomicOutput& out);

}  // namespace embed
