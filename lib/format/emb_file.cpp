#include "format/emb_file.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "core/checksum.h"
#include "core/enum_names.h"
#include "core/error.h"
#include "core/excerpt.h"
#include "core/half.h"
#include "core/half_array.h"
#include "core/mapped_file.h"
#include "format/word_index.h"
#include "quant/int8_rows.h"
#include "quant/opq.h"

namespace embed {
namespace {

std::uint64_t parse_count(const std::map<std::string, std::string>& meta, const std::string& key, const std::string& name) {
  auto it = meta.find(key);
  if (it == meta.end()) fail("{}: __metadata__ has no \"{}\"", name, key);
  std::uint64_t value = 0;
  const auto& text = it->second;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) fail("{}: __metadata__ \"{}\" is not a number: \"{}\"", name, key, excerpt(text));
  return value;
}

constexpr EnumName<RowStorage> kRowStorageNames[] = {
    {RowStorage::dense, "dense"}, {RowStorage::int8, "int8"}, {RowStorage::pq, "pq"}};

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::vector<std::string> extents;
  for (std::uint64_t d : shape) extents.push_back(d == EmbFile::kAnyExtent ? "n" : std::to_string(d));
  return fmt::format("[{}]", fmt::join(extents, ", "));
}

}  // namespace

std::string_view row_storage_name(RowStorage storage) { return name_in(kRowStorageNames, storage); }
std::optional<RowStorage> parse_row_storage(std::string_view name) { return parse_in(kRowStorageNames, name); }

EmbFile EmbFile::open(const std::string& path) {
  auto mapping = MappedFile::open(path);
  EmbFile file;
  file.file_ = mapping->bytes();
  file.owner_ = std::move(mapping);
  file.load(path);
  return file;
}

EmbFile EmbFile::from_bytes(std::vector<char> bytes, const std::string& name) {
  auto owned = std::make_shared<std::vector<char>>(std::move(bytes));
  EmbFile file;
  file.file_ = std::as_bytes(std::span<const char>(*owned));
  file.owner_ = std::move(owned);
  file.load(name);
  return file;
}

const safetensors::TensorInfo& EmbFile::require(const char* tensor_name) const {
  const auto* t = header_.find(tensor_name);
  if (t == nullptr) fail("{}: missing the \"{}\" tensor", name_, tensor_name);
  return *t;
}

void EmbFile::expect(const safetensors::TensorInfo& t, DType dtype, const std::vector<std::uint64_t>& shape) const {
  if (t.dtype != dtype || t.shape != shape) {
    fail("{}: tensor \"{}\" is {} {}, expected {} {}", name_, t.name, dtype_name(t.dtype), shape_text(t.shape),
         dtype_name(dtype), shape_text(shape));
  }
}

const std::byte* EmbFile::tensor_data(const safetensors::TensorInfo& info) const {
  const std::byte* p = file_.data() + header_.data_start + info.begin;
  if (reinterpret_cast<std::uintptr_t>(p) % dtype_size(info.dtype) == 0) return p;
  // Another writer may leave tensors misaligned (the container does not require alignment): copy those.
  const std::size_t size = info.end - info.begin;
  auto copy = std::make_unique<std::uint64_t[]>(size / 8 + 1);
  std::memcpy(copy.get(), p, size);
  realigned_.push_back(std::move(copy));
  return reinterpret_cast<const std::byte*>(realigned_.back().get());
}

void EmbFile::load(const std::string& name) {
  name_ = name;
  header_ = safetensors::parse(file_, name);
  const auto& meta = header_.metadata;
  auto format = meta.find("format");
  if (format == meta.end() || format->second != kEmbFormatName) {
    fail("{}: a safetensors file but not embed vectors (__metadata__ \"format\" is not \"{}\")", name, kEmbFormatName);
  }
  const std::uint64_t version = parse_count(meta, "format_version", name);
  if (version > kEmbFormatVersion) {
    fail("{}: format version {} is newer than this tool reads ({}); upgrade embed", name, version, kEmbFormatVersion);
  }
  if (version == 0) fail("{}: format_version 0 is not valid", name);


  load_rows(name);
  if (compressed() && version < 2) {
    fail("{}: {} rows need format_version 2, the file says {}", name, row_storage_name(storage_), version);
  }
  if (rows_ >= kMaxIndexedRows) fail("{}: {} rows is more than the format allows", name, rows_);
  normalized_ = meta.count("normalized") && meta.at("normalized") == "true";

  const auto& offsets = require("vocab.offsets");
  expect(offsets, DType::i64, {rows_ + 1});
  const auto& bytes = require("vocab.bytes");
  if (bytes.dtype != DType::u8 || bytes.shape.size() != 1) fail("{}: tensor \"vocab.bytes\" must be 1-D U8", name);
  const auto& index = require("vocab.index");
  if (index.dtype != DType::u32 || index.shape.size() != 1 || index.shape[0] <= rows_) {
    fail("{}: tensor \"vocab.index\" must be U32 with more slots than rows ({}), found {} {}", name, rows_,
         dtype_name(index.dtype), shape_text(index.shape));
  }

  offsets_ = {reinterpret_cast<const std::int64_t*>(tensor_data(offsets)), rows_ + 1};
  word_bytes_ = {reinterpret_cast<const char*>(tensor_data(bytes)), bytes.shape[0]};
  index_ = {reinterpret_cast<const std::uint32_t*>(tensor_data(index)), index.shape[0]};
  if (const auto* counts = header_.find("counts")) {
    expect(*counts, DType::i64, {rows_});
    counts_ = {reinterpret_cast<const std::int64_t*>(tensor_data(*counts)), rows_};
  }
  if (const auto* norms = header_.find("norms")) {
    expect(*norms, DType::f32, {rows_});
    norms_ = {reinterpret_cast<const float*>(tensor_data(*norms)), rows_};
  } else if (compressed()) {
    fail("{}: missing the \"norms\" tensor, which {} rows need", name, row_storage_name(storage_));
  }

  // Offsets must rise from 0 to the size of vocab.bytes, or word() could read outside it.
  // 8 bytes a word: a few milliseconds for millions of words, and it makes word() safe.
  if (offsets_[0] != 0 || static_cast<std::uint64_t>(offsets_[rows_]) != word_bytes_.size()) {
    fail("{}: vocab.offsets must run from 0 to {} (the size of vocab.bytes)", name, word_bytes_.size());
  }
  for (std::uint64_t r = 0; r < rows_; ++r) {
    if (offsets_[r + 1] < offsets_[r]) fail("{}: vocab.offsets decrease at row {}", name, r);
  }
}

void EmbFile::load_rows(const std::string& name) {
  const auto& meta = header_.metadata;
  if (auto it = meta.find("storage"); it != meta.end()) {
    auto storage = parse_row_storage(it->second);
    if (!storage) {
      fail("{}: __metadata__ \"storage\" is \"{}\", which this tool does not read (it reads dense, int8 and pq); upgrade "
           "embed",
           name, excerpt(it->second));
    }
    storage_ = *storage;
  }
  const std::string meta_dtype = meta.count("dtype") ? meta.at("dtype") : std::string();
  if (storage_ == RowStorage::dense) {
    const auto& vectors = require("vectors");
    if (vectors.shape.size() != 2 || !is_vector_dtype(vectors.dtype)) {
      fail("{}: tensor \"vectors\" must be 2-D F32, F16 or BF16, found {} {}", name, dtype_name(vectors.dtype),
           shape_text(vectors.shape));
    }
    rows_ = vectors.shape[0];
    dim_ = vectors.shape[1];
    dtype_ = vectors.dtype;
    row_bytes_ = dim_ * dtype_size(dtype_);
    if (parse_count(meta, "rows", name) != rows_ || parse_count(meta, "dim", name) != dim_) {
      fail("{}: __metadata__ rows/dim disagree with the vectors' shape {}", name, shape_text(vectors.shape));
    }
    if (parse_vector_dtype(meta_dtype) != dtype_) {
      fail("{}: __metadata__ \"dtype\" disagrees with the vectors' dtype {}", name, dtype_name(dtype_));
    }
    vectors_ = tensor_data(vectors);
    return;
  }
  // Compressed: the shape of the stored rows does not give dim (pq), so the metadata does.
  rows_ = parse_count(meta, "rows", name);
  dim_ = parse_count(meta, "dim", name);
  if (dim_ == 0) fail("{}: __metadata__ \"dim\" is 0", name);
  if (meta_dtype != row_storage_name(storage_)) {
    fail("{}: __metadata__ \"dtype\" is \"{}\", expected \"{}\" for {} storage", name, excerpt(meta_dtype),
         row_storage_name(storage_), row_storage_name(storage_));
  }
  const char* scale_name = storage_ == RowStorage::int8 ? "int8.scale" : "pq.scale";
  const auto& scale = require(scale_name);
  expect(scale, DType::f32, {rows_});
  scales_ = {reinterpret_cast<const float*>(tensor_data(scale)), rows_};
  if (storage_ == RowStorage::int8) {
    const auto& values = require("int8.values");
    expect(values, DType::i8, {rows_, dim_});
    dtype_ = DType::i8;
    rows_tensor_name_ = values.name;
    row_bytes_ = dim_;
    vectors_ = tensor_data(values);
    return;
  }
  const std::uint64_t m = parse_count(meta, "pq.m", name);
  if (m == 0 || dim_ % m != 0) fail("{}: __metadata__ \"pq.m\" {} does not divide dim {}", name, m, dim_);
  const auto& codes = require("pq.codes");
  expect(codes, DType::u8, {rows_, m});
  const auto& books = require("pq.codebooks");
  expect(books, DType::f32, {m, kPqCentroids, dim_ / m});
  dtype_ = DType::u8;
  rows_tensor_name_ = codes.name;
  row_bytes_ = m;
  vectors_ = tensor_data(codes);
  codebooks_.dim = dim_;
  codebooks_.m = m;
  const auto* centroids = reinterpret_cast<const float*>(tensor_data(books));
  codebooks_.centroids.assign(centroids, centroids + m * kPqCentroids * (dim_ / m));
  for (float c : codebooks_.centroids) {
    if (!std::isfinite(c)) fail("{}: tensor \"pq.codebooks\" holds a value that is not finite", name);
  }
  if (const auto* rotation = header_.find("pq.rotation")) {
    expect(*rotation, DType::f32, {dim_, dim_});
    rotation_ = {reinterpret_cast<const float*>(tensor_data(*rotation)), dim_ * dim_};
    for (float r : rotation_) {
      if (!std::isfinite(r)) fail("{}: tensor \"pq.rotation\" holds a value that is not finite", name);
    }
  }
}

std::optional<std::span<const std::byte>> EmbFile::find_tensor(const std::string& name, DType dtype,
                                                               const std::vector<std::uint64_t>& shape) const {
  const auto* t = header_.find(name);
  if (t == nullptr) return std::nullopt;
  const bool shape_matches =
      t->shape.size() == shape.size() &&
      std::equal(shape.begin(), shape.end(), t->shape.begin(), [](std::uint64_t want, std::uint64_t have) {
        return want == kAnyExtent || want == have;
      });
  if (t->dtype != dtype || !shape_matches) {
    fail("{}: tensor \"{}\" is {} {}, expected {} {}", name_, t->name, dtype_name(t->dtype), shape_text(t->shape),
         dtype_name(dtype), shape_text(shape));
  }
  return std::span<const std::byte>(tensor_data(*t), t->end - t->begin);
}

std::uint64_t EmbFile::metadata_count(const std::string& key) const { return parse_count(header_.metadata, key, name_); }

std::string_view EmbFile::word(std::uint64_t row) const {
  return {word_bytes_.data() + offsets_[row], static_cast<std::size_t>(offsets_[row + 1] - offsets_[row])};
}

std::optional<std::uint64_t> EmbFile::find(std::string_view w) const {
  return find_in_index(index_, rows_, [this](std::uint64_t r) { return word(r); }, w);
}

void EmbFile::rows_as_f32(std::uint64_t first, std::size_t count, float* out) const {
  const std::size_t n = count * dim_;
  switch (dtype_) {
    case DType::f32:
      std::memcpy(out, vectors_ + first * dim_ * 4, n * 4);
      break;
    case DType::f16:
      f16_to_f32_array(reinterpret_cast<const std::uint16_t*>(vectors_) + first * dim_, out, n);
      break;
    case DType::bf16:
      bf16_to_f32_array(reinterpret_cast<const std::uint16_t*>(vectors_) + first * dim_, out, n);
      break;
    case DType::i8:
      dequantize_int8_rows(reinterpret_cast<const std::int8_t*>(vectors_) + first * dim_, scales_.data() + first, count,
                           dim_, out);
      break;
    case DType::u8:
      if (rotation_.empty()) {
        pq_decode(codebooks_, reinterpret_cast<const std::uint8_t*>(vectors_) + first * codebooks_.m, count, out);
      } else {
        std::vector<float> rotated(n);
        pq_decode(codebooks_, reinterpret_cast<const std::uint8_t*>(vectors_) + first * codebooks_.m, count, rotated.data());
        rotate_rows_back(rotated.data(), count, dim_, rotation_.data(), out, 1);
      }
      for (std::size_t r = 0; r < count; ++r) {
        for (std::size_t j = 0; j < dim_; ++j) out[r * dim_ + j] *= scales_[first + r];
      }
      break;
    default:
      EMBED_ASSERT(false);
  }
}

void EmbFile::row_as_f32(std::uint64_t row, float* out) const { rows_as_f32(row, 1, out); }

void EmbFile::verify() const {
  for (const auto& t : header_.tensors) {
    auto it = header_.metadata.find("checksum." + t.name);
    if (it == header_.metadata.end()) fail("{}: no checksum recorded for tensor \"{}\"", name_, t.name);
    const std::uint32_t actual = crc32(file_.subspan(header_.data_start + t.begin, t.end - t.begin));
    const std::string expected = fmt::format("crc32:{:08x}", actual);
    if (it->second != expected) {
      fail("{}: checksum mismatch in tensor \"{}\": recorded {}, computed {} (the file is corrupt)", name_, t.name,
           it->second, expected);
    }
  }
  std::uint64_t filled = 0;
  for (std::uint32_t slot : index_) {
    if (slot == kEmptySlot) continue;
    if (slot >= rows_) fail("{}: vocab.index holds row {} but there are only {} rows", name_, slot, rows_);
    ++filled;
  }
  if (filled != rows_) fail("{}: vocab.index holds {} entries for {} rows", name_, filled, rows_);
  for (std::uint64_t r = 0; r < rows_; ++r) {
    auto found = find(word(r));
    if (!found || *found != r) {
      fail("{}: vocab.index does not lead to row {} (\"{}\"){}", name_, r, word(r),
           found ? fmt::format(": it finds row {}, a duplicate word", *found) : std::string());
    }
  }
}

}  // namespace embed
