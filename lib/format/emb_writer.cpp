#include "format/emb_writer.h"

#include <cmath>

#include "core/checksum.h"
#include "core/error.h"
#include "core/half.h"
#include "core/parallel.h"
#include "format/emb_file.h"
#include "format/safetensors.h"
#include "format/word_index.h"

namespace embed {
namespace {

constexpr std::size_t kRowBlock = 8192;

template <typename Container>
std::span<const std::byte> bytes_of(const Container& v) {
  return std::as_bytes(std::span(v.data(), v.size()));
}

// Converts f32 values to 16-bit storage, in parallel blocks of rows. A finite value
// that the narrower type cannot hold is an error: it would be stored as infinity,
// which no reader (ours included) accepts back.
std::vector<std::uint16_t> to_half(const EmbeddingTable& table, DType dtype, const std::string& source, unsigned threads) {
  std::vector<std::uint16_t> out(table.values.size());
  const std::size_t total = out.size();
  const std::size_t block = kRowBlock * std::max<std::size_t>(table.dim, 1);
  const std::size_t blocks = (total + block - 1) / block;
  std::vector<std::size_t> first_overflow(blocks, total);
  parallel_for(blocks, threads, [&](std::size_t b) {
    const std::size_t end = std::min(total, (b + 1) * block);
    for (std::size_t i = b * block; i < end; ++i) {
      out[i] = dtype == DType::f16 ? f32_to_f16(table.values[i]) : f32_to_bf16(table.values[i]);
      if ((out[i] & 0x7FFF) == (dtype == DType::f16 ? 0x7C00 : 0x7F80) && first_overflow[b] == total) first_overflow[b] = i;
    }
  });
  for (std::size_t i : first_overflow) {
    if (i == total) continue;
    const std::size_t row = i / table.dim;
    fail("{}: {} {} (\"{}\"): {} is outside the range of {}; store as {}", source, table.origin_kind, table.origins[row],
         table.word(row), table.values[i], dtype == DType::f16 ? "f16 (largest 65504)" : "bf16",
         dtype == DType::f16 ? "bf16 or f32" : "f32");
  }
  return out;
}

std::vector<float> row_norms(const EmbeddingTable& table, DType dtype, const std::vector<std::uint16_t>& half, unsigned threads) {
  const std::size_t rows = table.rows();
  const std::size_t dim = table.dim;
  std::vector<float> norms(rows);
  parallel_for((rows + kRowBlock - 1) / kRowBlock, threads, [&](std::size_t b) {
    for (std::size_t r = b * kRowBlock; r < std::min(rows, (b + 1) * kRowBlock); ++r) {
      double sum = 0;
      for (std::size_t i = 0; i < dim; ++i) {
        const std::size_t k = r * dim + i;
        const float v = dtype == DType::f32 ? table.values[k] : dtype == DType::f16 ? f16_to_f32(half[k]) : bf16_to_f32(half[k]);
        sum += static_cast<double>(v) * v;
      }
      norms[r] = static_cast<float>(std::sqrt(sum));
    }
  });
  return norms;
}

std::string dtype_option_name(DType dtype) {
  return dtype == DType::f32 ? "f32" : dtype == DType::f16 ? "f16" : "bf16";
}

}  // namespace

void write_emb(const EmbeddingTable& table, const std::vector<std::uint32_t>& index, const EmbWriteOptions& options,
               AtomicOutput& out) {
  EMBED_ASSERT(is_vector_dtype(options.dtype));
  EMBED_ASSERT(index.size() == index_capacity(table.rows()));
  const std::uint64_t rows = table.rows();
  const std::uint64_t dim = table.dim;

  std::vector<std::uint16_t> half;
  std::span<const std::byte> vector_bytes = bytes_of(table.values);
  if (options.dtype != DType::f32) {
    half = to_half(table, options.dtype, options.source, options.threads);
    vector_bytes = bytes_of(half);
  }
  const std::vector<float> norms = row_norms(table, options.dtype, half, options.threads);

  // Order matters: 8-byte tensors, then 4-byte ones (rows + index capacity is even, so
  // they end 8-aligned), then the vectors (64-aligned through header padding), then bytes.
  std::vector<safetensors::TensorToWrite> tensors;
  tensors.push_back({"vocab.offsets", DType::i64, {rows + 1}, bytes_of(table.word_offsets)});
  if (!table.counts.empty()) {
    EMBED_ASSERT(table.counts.size() == rows);
    tensors.push_back({"counts", DType::i64, {rows}, bytes_of(table.counts)});
  }
  tensors.push_back({"norms", DType::f32, {rows}, bytes_of(norms)});
  tensors.push_back({"vocab.index", DType::u32, {index.size()}, bytes_of(index)});
  tensors.push_back({"vectors", options.dtype, {rows, dim}, vector_bytes});
  tensors.push_back({"vocab.bytes", DType::u8, {table.word_bytes.size()},
                     std::as_bytes(std::span<const char>(table.word_bytes.data(), table.word_bytes.size()))});

  std::map<std::string, std::string> metadata = options.extra_metadata;
  metadata["format"] = kEmbFormatName;
  metadata["format_version"] = std::to_string(kEmbFormatVersion);
  metadata["rows"] = std::to_string(rows);
  metadata["dim"] = std::to_string(dim);
  metadata["dtype"] = dtype_option_name(options.dtype);
  metadata["normalized"] = options.normalized ? "true" : "false";
  metadata["source"] = options.source;
  metadata["creator"] = options.creator;
  metadata["index"] = "fnv1a64-linear-probing";
  std::vector<std::uint32_t> checksums(tensors.size());
  parallel_for(tensors.size(), options.threads, [&](std::size_t i) { checksums[i] = crc32(tensors[i].bytes); });
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    metadata["checksum." + tensors[i].name] = fmt::format("crc32:{:08x}", checksums[i]);
  }

  out.write(safetensors::make_header(tensors, metadata, "vectors", 64));
  for (const auto& t : tensors) out.write(t.bytes.data(), t.bytes.size());
}

}  // namespace embed
