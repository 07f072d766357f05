#include "text/subword_table.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/half_array.h"

namespace embed {
namespace {

constexpr const char* kMinnKey = "subwords.minn";
constexpr const char* kMaxnKey = "subwords.maxn";
constexpr const char* kBucketsKey = "subwords.bucket_count";
constexpr const char* kHashKey = "subwords.hash";

}  // namespace

SubwordTable::SubwordTable(SubwordSettings settings, std::size_t dim, FloatBuffer rows)
    : settings_(settings), dim_(dim), dtype_(DType::f32) {
  EMBED_ASSERT(rows.size() == settings.buckets * dim);
  auto owned = std::make_shared<FloatBuffer>(std::move(rows));
  bytes_ = std::as_bytes(std::span<const float>(owned->data(), owned->size()));
  owner_ = std::move(owned);
}

SubwordTable::SubwordTable(SubwordSettings settings, std::size_t dim, std::span<const float> rows)
    : settings_(settings), dim_(dim), dtype_(DType::f32), bytes_(std::as_bytes(rows)) {
  EMBED_ASSERT(rows.size() == settings.buckets * dim);
}

std::optional<SubwordTable> SubwordTable::from_emb(const EmbFile& file, bool copy) {
  const safetensors::TensorInfo* info = nullptr;
  for (const auto& t : file.tensors()) {
    if (t.name == kSubwordTensor) info = &t;
  }
  if (info == nullptr) return std::nullopt;
  const auto& metadata = file.metadata();
  const auto hash = metadata.find(kHashKey);
  if (hash == metadata.end() || hash->second != kSubwordHashName) {
    fail("{}: tensor \"{}\" needs __metadata__ \"{}\" = \"{}\" (the only n-gram hashing known)", file.name(), kSubwordTensor,
         kHashKey, kSubwordHashName);
  }
  SubwordTable table;
  const std::uint64_t minn = file.metadata_count(kMinnKey), maxn = file.metadata_count(kMaxnKey);
  if (maxn == 0 || maxn > kMaxNgramLength || minn > maxn) {
    fail("{}: __metadata__ gives n-grams of {} to {} characters; expected 0 <= minn <= maxn, 1 <= maxn <= {}", file.name(), minn,
         maxn, kMaxNgramLength);
  }
  table.settings_ = {static_cast<std::uint32_t>(minn), static_cast<std::uint32_t>(maxn), file.metadata_count(kBucketsKey)};
  table.dim_ = file.dim();
  table.dtype_ = info->dtype;
  if (!is_vector_dtype(info->dtype) || table.settings_.buckets == 0) {
    fail("{}: tensor \"{}\" is {}, expected F32, F16 or BF16 [{}, {}] (subwords.bucket_count, dim)", file.name(), kSubwordTensor,
         dtype_name(info->dtype), table.settings_.buckets, file.dim());
  }
  table.bytes_ = *file.find_tensor(kSubwordTensor, info->dtype, {table.settings_.buckets, file.dim()});
  if (copy) {
    auto owned = std::make_shared<std::vector<std::byte>>(table.bytes_.begin(), table.bytes_.end());
    table.bytes_ = *owned;
    table.owner_ = std::move(owned);
  }
  return table;
}

void SubwordTable::add_rows(std::span<const std::uint32_t> buckets, std::span<float> sum) const {
  std::vector<float> converted(dtype_ == DType::f32 ? 0 : dim_);
  for (const std::uint32_t b : buckets) {
    const std::byte* row = bytes_.data() + std::size_t{b} * dim_ * dtype_size(dtype_);
    const float* values = reinterpret_cast<const float*>(row);
    if (dtype_ != DType::f32) {
      const auto* half = reinterpret_cast<const std::uint16_t*>(row);
      if (dtype_ == DType::f16) f16_to_f32_array(half, converted.data(), dim_);
      else bf16_to_f32_array(half, converted.data(), dim_);
      values = converted.data();
    }
    for (std::size_t x = 0; x < dim_; ++x) sum[x] += values[x];
  }
}

void SubwordTable::row(std::uint32_t bucket, std::span<float> out) const {
  std::fill(out.begin(), out.end(), 0.0f);
  add_rows(std::span(&bucket, 1), out);
}

std::size_t SubwordTable::oov_vector(std::string_view word, std::span<float> out) const {
  std::fill(out.begin(), out.end(), 0.0f);
  const std::vector<std::uint32_t> buckets = subword_buckets(word, settings_);
  add_rows(buckets, out);
  fasttext_average(out, buckets.size());
  return buckets.size();
}

std::shared_ptr<const void> SubwordTable::add_to_emb(DType dtype, EmbWriteOptions& options) const {
  options.extra_metadata[kMinnKey] = std::to_string(settings_.minn);
  options.extra_metadata[kMaxnKey] = std::to_string(settings_.maxn);
  options.extra_metadata[kBucketsKey] = std::to_string(settings_.buckets);
  options.extra_metadata[kHashKey] = std::string(kSubwordHashName);
  ExtraTensor tensor{kSubwordTensor, dtype, {settings_.buckets, dim_}, {}};
  if (dtype == dtype_) {
    tensor.bytes = bytes_;
    options.extra_tensors.push_back(tensor);
    return owner_;
  }
  // Another storage type: through f32, as the vectors are.
  std::vector<float> values(settings_.buckets * dim_);
  for (std::uint64_t b = 0; b < settings_.buckets; ++b) {
    row(static_cast<std::uint32_t>(b), std::span(values.data() + b * dim_, dim_));
  }
  if (dtype == DType::f32) {
    auto owned = std::make_shared<std::vector<float>>(std::move(values));
    tensor.bytes = std::as_bytes(std::span<const float>(*owned));
    options.extra_tensors.push_back(tensor);
    return owned;
  }
  std::size_t overflow = 0;
  auto owned = std::make_shared<std::vector<std::uint16_t>>(narrow_to_half(values, dtype, options.threads, overflow));
  if (overflow != values.size()) {
    fail("{}: subword bucket {}: {} is outside the range of {}; store as {}", options.source, overflow / dim_, values[overflow],
         half_range_name(dtype), dtype == DType::f16 ? "bf16 or f32" : "f32");
  }
  tensor.bytes = std::as_bytes(std::span<const std::uint16_t>(*owned));
  options.extra_tensors.push_back(tensor);
  return owned;
}

}  // namespace embed
