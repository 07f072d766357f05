#include "format/emb_writer.h"

#include <algorithm>
#include <limits>

#include "core/checksum.h"
#include "core/error.h"
#include "core/half.h"
#include "core/parallel.h"
#include "format/emb_file.h"
#include "format/word_index.h"

namespace embed {
namespace {

// Values narrowed to 16 bits per parallel task.
constexpr std::size_t kNarrowBlockValues = 8192 * 64;
constexpr const char* kPaddingTensor = "__padding__";

template <typename Container>
std::span<const std::byte> bytes_of(const Container& v) {
  return std::as_bytes(std::span(v.data(), v.size()));
}

std::map<std::string, std::string> base_metadata(const EmbWriteOptions& options, std::uint64_t rows, std::uint64_t dim) {
  std::map<std::string, std::string> metadata = options.extra_metadata;
  metadata["format"] = kEmbFormatName;
  metadata["format_version"] = std::to_string(options.encoded ? kEmbFormatVersion : kEmbDenseFormatVersion);
  metadata["rows"] = std::to_string(rows);
  metadata["dim"] = std::to_string(dim);
  if (options.encoded) {
    metadata["storage"] = row_storage_name(options.encoded->storage);
    metadata["dtype"] = row_storage_name(options.encoded->storage);
  } else {
    metadata["dtype"] = vector_dtype_name(options.dtype);
  }
  metadata["normalized"] = options.normalize || options.normalized ? "true" : "false";
  metadata["source"] = options.source;
  metadata["creator"] = options.creator;
  metadata["index"] = "fnv1a64-linear-probing";
  return metadata;
}

// The JSON header can only grow with the numbers in it, so rendering it with every
// number at its widest gives a size that any real header fits in. Padded so that the
// vectors, first in the buffer, start at a file offset that is a multiple of 64.
std::uint64_t reserved_header_size(const EmbWriteOptions& options) {
  constexpr std::uint64_t kWidest = std::numeric_limits<std::uint64_t>::max();
  EmbWriteOptions widest = options;
  widest.dtype = DType::bf16;
  widest.normalize = widest.normalized = false;
  auto metadata = base_metadata(widest, kWidest, kWidest);
  std::vector<safetensors::TensorInfo> tensors;
  const std::string rows_name = rows_tensor(options, 0, 0).name;
  std::vector<std::string> names = {rows_name, kPaddingTensor, "norms", "vocab.index", "vocab.offsets", "counts", "vocab.bytes"};
  for (const ExtraTensor& t : options.extra_tensors) names.push_back(t.name);
  for (const std::string& name : names) {
    const std::vector<std::uint64_t> shape = name == rows_name ? std::vector{kWidest, kWidest} : std::vector{kWidest};
    tensors.push_back({name, DType::bf16, shape, kWidest, kWidest});
    metadata["checksum." + name] = "crc32:ffffffff";
  }
  if (!options.vectors_checksum_key.empty()) metadata[options.vectors_checksum_key] = "crc32:ffffffff";
  const std::uint64_t json = safetensors::header_json(tensors, metadata).size();
  return (8 + json + 63) / 64 * 64 - 8;
}

// Converts f32 rows to the storage type. A finite value the narrower type cannot hold
// is an error: it would be stored as infinity, which no reader (ours included) accepts.
std::vector<std::uint16_t> to_half(std::span<const float> values, const EmbeddingTable& table, std::size_t first_row,
                                   std::size_t dim, const EmbWriteOptions& options) {
  const DType dtype = options.dtype;
  std::size_t overflow = 0;
  std::vector<std::uint16_t> out = narrow_to_half(values, dtype, options.threads, overflow);
  if (overflow != values.size()) {
    const std::size_t row = first_row + overflow / dim;
    fail("{}: {} {} (\"{}\"): {} is outside the range of {}; store as {}", options.source, table.origin_kind,
         table.origins[row], table.word(row), values[overflow], half_range_name(dtype),
         dtype == DType::f16 ? "bf16 or f32" : "f32");
  }
  return out;
}

// Norms of the rows as stored (after rounding to 16 bits), so that for readers of the
// file cosine = dot / (norm_a * norm_b) holds exactly.
std::vector<float> stored_norms(std::span<const float> values, const std::vector<std::uint16_t>& half, std::size_t dim,
                                DType dtype, unsigned threads) {
  if (dtype == DType::f32) return row_norms(values, dim, threads);
  std::vector<float> widened(half.size());
  for (std::size_t i = 0; i < half.size(); ++i) widened[i] = dtype == DType::f16 ? f16_to_f32(half[i]) : bf16_to_f32(half[i]);
  return row_norms(widened, dim, threads);
}

}  // namespace

// The tensors after `vectors`, with their bytes, in file order.
struct EmbTrailer {
  EmbLayout layout;
  std::vector<std::uint32_t> index;
  std::vector<std::pair<std::string, std::span<const std::byte>>> tensors;
};

namespace {

EmbTrailer make_trailer(const EmbeddingTable& table, std::size_t dim, std::span<const float> norms,
                        const EmbWriteOptions& options) {
  static constexpr std::byte kZeros[8] = {};
  EmbTrailer trailer;
  const ExtraTensor stored_rows = rows_tensor(options, table.rows(), dim);
  trailer.layout = plan_emb_layout(stored_rows, table.word_bytes.size(), !table.counts.empty(), options.extra_tensors);
  if (options.word_index.empty()) {
    trailer.index = index_words(table, options.source, trailer.layout.index_capacity);  // rejects duplicate words
  } else {
    EMBED_ASSERT(options.word_index.size() == trailer.layout.index_capacity);
    trailer.index = options.word_index;
  }
  for (const auto& t : trailer.layout.tensors) {
    std::span<const std::byte> bytes;
    if (t.name == kPaddingTensor) bytes = std::span(kZeros, t.end - t.begin);
    if (t.name == "norms") bytes = bytes_of(norms);
    if (t.name == "vocab.index") bytes = bytes_of(trailer.index);
    if (t.name == "vocab.offsets") bytes = bytes_of(table.word_offsets);
    if (t.name == "counts") bytes = bytes_of(table.counts);
    if (t.name == "vocab.bytes") bytes = bytes_of(table.word_bytes);
    for (const ExtraTensor& extra : options.extra_tensors) {
      if (t.name == extra.name) bytes = extra.bytes;
    }
    if (t.name == stored_rows.name) continue;
    EMBED_ASSERT(bytes.size() == t.end - t.begin);
    trailer.tensors.emplace_back(t.name, bytes);
  }
  return trailer;
}

std::string make_header(const EmbTrailer& trailer, std::uint32_t vectors_crc, const EmbWriteOptions& options,
                        std::uint64_t rows, std::uint64_t dim, std::uint64_t header_size) {
  auto metadata = base_metadata(options, rows, dim);
  const std::string rows_checksum = fmt::format("crc32:{:08x}", vectors_crc);
  metadata["checksum." + rows_tensor(options, rows, dim).name] = rows_checksum;
  if (!options.vectors_checksum_key.empty()) metadata[options.vectors_checksum_key] = rows_checksum;
  for (const auto& [name, bytes] : trailer.tensors) metadata["checksum." + name] = fmt::format("crc32:{:08x}", crc32(bytes));
  return safetensors::frame_header(safetensors::header_json(trailer.layout.tensors, metadata), header_size);
}

}  // namespace

std::vector<std::uint16_t> narrow_to_half(std::span<const float> values, DType dtype, unsigned threads,
                                          std::size_t& first_overflow) {
  EMBED_ASSERT(dtype == DType::f16 || dtype == DType::bf16);
  std::vector<std::uint16_t> out(values.size());
  const std::size_t total = out.size();
  const std::size_t block = kNarrowBlockValues;
  const std::size_t blocks = (total + block - 1) / block;
  const std::uint16_t infinity = dtype == DType::f16 ? 0x7C00 : 0x7F80;
  std::vector<std::size_t> overflows(blocks, total);
  parallel_for(blocks, threads, [&](std::size_t b) {
    const std::size_t end = std::min(total, (b + 1) * block);
    for (std::size_t i = b * block; i < end; ++i) {
      out[i] = dtype == DType::f16 ? f32_to_f16(values[i]) : f32_to_bf16(values[i]);
      if ((out[i] & 0x7FFF) == infinity && overflows[b] == total) overflows[b] = i;
    }
  });
  first_overflow = total;
  for (std::size_t i : overflows) first_overflow = std::min(first_overflow, i);
  return out;
}

std::string_view half_range_name(DType dtype) { return dtype == DType::f16 ? "f16 (largest 65504)" : "bf16"; }

ExtraTensor rows_tensor(const EmbWriteOptions& options, std::uint64_t rows, std::uint64_t dim) {
  if (options.encoded) return options.encoded->rows;
  return {"vectors", options.dtype, {rows, dim}, {}};
}

EmbLayout plan_emb_layout(std::uint64_t rows, std::uint64_t dim, DType dtype, std::uint64_t word_bytes, bool has_counts,
                          std::span<const ExtraTensor> extra_tensors) {
  return plan_emb_layout({"vectors", dtype, {rows, dim}, {}}, word_bytes, has_counts, extra_tensors);
}

EmbLayout plan_emb_layout(const ExtraTensor& rows_tensor, std::uint64_t word_bytes, bool has_counts,
                          std::span<const ExtraTensor> extra_tensors) {
  const std::uint64_t rows = rows_tensor.shape.at(0);
  EmbLayout layout;
  std::uint64_t offset = 0;
  auto place = [&](const char* name, DType type, std::vector<std::uint64_t> shape) {
    std::uint64_t size = dtype_size(type);
    for (std::uint64_t d : shape) size *= d;
    EMBED_ASSERT(offset % dtype_size(type) == 0);
    layout.tensors.push_back({name, type, std::move(shape), offset, offset + size});
    offset += size;
  };
  place(rows_tensor.name.c_str(), rows_tensor.dtype, rows_tensor.shape);
  // 16-bit vectors with rows * dim odd, or bytes (int8 values, pq codes) of any count not a
  // multiple of 4, end off a 4-byte boundary: pad.
  if (offset % 4 != 0) place(kPaddingTensor, DType::u8, {4 - offset % 4});
  place("norms", DType::f32, {rows});
  // Pick the capacity's parity so that the index ends on an 8-byte boundary for the I64 tensors.
  layout.index_capacity = min_index_capacity(rows);
  if ((offset + 4 * layout.index_capacity) % 8 != 0) ++layout.index_capacity;
  place("vocab.index", DType::u32, {layout.index_capacity});
  place("vocab.offsets", DType::i64, {rows + 1});
  if (has_counts) place("counts", DType::i64, {rows});
  // Widest elements first, so that every extra tensor is naturally aligned whatever the
  // sizes of those before it (an index's I64 and U32 tensors beside 16-bit subword rows).
  std::vector<const ExtraTensor*> extras;
  for (const ExtraTensor& t : extra_tensors) extras.push_back(&t);
  std::stable_sort(extras.begin(), extras.end(),
                   [](const ExtraTensor* a, const ExtraTensor* b) { return dtype_size(a->dtype) > dtype_size(b->dtype); });
  for (const ExtraTensor* t : extras) place(t->name.c_str(), t->dtype, t->shape);
  place("vocab.bytes", DType::u8, {word_bytes});
  return layout;
}

std::uint64_t emb_index_capacity(std::uint64_t rows, std::uint64_t dim, DType dtype) {
  return plan_emb_layout(rows, dim, dtype, 0, false).index_capacity;
}

std::uint64_t emb_index_capacity(const EmbWriteOptions& options, std::uint64_t rows, std::uint64_t dim) {
  return plan_emb_layout(rows_tensor(options, rows, dim), 0, false).index_capacity;
}

EmbStreamWriter::EmbStreamWriter(AtomicOutput& out, std::size_t dim, EmbWriteOptions options)
    : out_(out), dim_(dim), options_(std::move(options)), header_size_(reserved_header_size(options_)) {
  EMBED_ASSERT(is_vector_dtype(options_.dtype) && !options_.encoded);
  measuring_ = !out_.seekable();
  if (!measuring_) out_.write(std::string(8 + header_size_, ' '));  // the header's place
}

EmbStreamWriter::~EmbStreamWriter() = default;

void EmbStreamWriter::add_rows(const EmbeddingTable& table, std::size_t first_row, std::span<float> values) {
  EMBED_ASSERT(first_row == rows_written_ && values.size() % dim_ == 0);
  const bool writing_second_pass = trailer_ != nullptr;  // measured already: only the bytes are needed
  const std::size_t zeros = options_.normalize ? normalize_rows(values, dim_, options_.threads) : 0;
  std::vector<std::uint16_t> half;
  std::span<const std::byte> bytes = std::as_bytes(std::span<const float>(values));
  if (options_.dtype != DType::f32) {
    half = to_half(values, table, first_row, dim_, options_);
    bytes = bytes_of(half);
  }
  if (!writing_second_pass) {
    zero_rows_ += zeros;
    const auto norms = stored_norms(values, half, dim_, options_.dtype, options_.threads);
    norms_.insert(norms_.end(), norms.begin(), norms.end());
    vectors_crc_ = crc32(bytes, vectors_crc_);
  }
  if (!measuring_) out_.write(bytes.data(), bytes.size());
  rows_written_ += values.size() / dim_;
}

void EmbStreamWriter::write_header(const EmbeddingTable& table) {
  EMBED_ASSERT(measuring_ && table.rows() == rows_written_);
  trailer_ = std::make_unique<EmbTrailer>(make_trailer(table, dim_, norms_, options_));
  out_.write(make_header(*trailer_, vectors_crc_, options_, table.rows(), dim_, header_size_));
  measuring_ = false;
  rows_written_ = 0;
}

void EmbStreamWriter::finish(const EmbeddingTable& table) {
  EMBED_ASSERT(!measuring_ && table.rows() == rows_written_);
  if (trailer_) {  // the second of two passes: the header is out
    for (const auto& [name, bytes] : trailer_->tensors) out_.write(bytes.data(), bytes.size());
    return;
  }
  const EmbTrailer trailer = make_trailer(table, dim_, norms_, options_);
  for (const auto& [name, bytes] : trailer.tensors) out_.write(bytes.data(), bytes.size());
  out_.write_at(0, make_header(trailer, vectors_crc_, options_, table.rows(), dim_, header_size_).data(), 8 + header_size_);
}

namespace {

// The whole file in order, header first (its checksums known): for outputs that cannot seek
// and for compressed rows, whose bytes are all there before the write.
void write_in_order(const EmbeddingTable& table, std::span<const std::byte> rows, std::span<const float> norms,
                    const EmbWriteOptions& options, AtomicOutput& out) {
  const EmbTrailer trailer = make_trailer(table, table.dim, norms, options);
  out.write(make_header(trailer, crc32(rows), options, table.rows(), table.dim, reserved_header_size(options)));
  out.write(rows.data(), rows.size());
  for (const auto& [name, tensor_bytes] : trailer.tensors) out.write(tensor_bytes.data(), tensor_bytes.size());
}

}  // namespace

std::size_t write_emb(EmbeddingTable& table, const EmbWriteOptions& options, AtomicOutput& out) {
  if (options.encoded) {  // compressed rows: their bytes and norms are given
    EMBED_ASSERT(!options.normalize && options.encoded->norms.size() == table.rows());
    write_in_order(table, options.encoded->rows.bytes, options.encoded->norms, options, out);
    return 0;
  }
  if (out.seekable()) {
    EmbStreamWriter writer(out, table.dim, options);
    writer.add_rows(table, 0, table.values);
    writer.finish(table);
    return writer.zero_rows();
  }
  // A pipe: the header, with its checksums, has to go first.
  const std::size_t zeros = options.normalize ? normalize_rows(table.values, table.dim, options.threads) : 0;
  std::vector<std::uint16_t> half;
  std::span<const std::byte> bytes = bytes_of(table.values);
  if (options.dtype != DType::f32) {
    half = to_half(table.values, table, 0, table.dim, options);
    bytes = bytes_of(half);
  }
  write_in_order(table, bytes, stored_norms(table.values, half, table.dim, options.dtype, options.threads), options, out);
  return zeros;
}

}  // namespace embed
