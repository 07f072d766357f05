#include "format/tensor_file.h"

#include <optional>

#include <fmt/format.h>

#include "core/checksum.h"
#include "core/error.h"
#include "core/excerpt.h"
#include "core/mapped_file.h"

namespace embed {

void write_tensor_file(AtomicOutput& out, const std::string& format, const std::string& version,
                       const std::vector<TensorBlob>& blobs, std::map<std::string, std::string> metadata) {
  EMBED_ASSERT(out.seekable());
  std::vector<safetensors::TensorInfo> tensors;
  std::uint64_t offset = 0;
  for (const auto& b : blobs) {
    std::uint64_t size = dtype_size(b.dtype);
    for (auto extent : b.shape) size *= extent;
    EMBED_ASSERT(b.stream || size == b.bytes.size());
    tensors.push_back({b.name, b.dtype, b.shape, offset, offset + size});
    offset += size;
  }
  metadata["format"] = format;
  metadata["version"] = version;
  // The checksum is known only once the data has gone by: the header is written with a
  // placeholder of the same length and again at the end.
  auto header = [&](std::uint32_t crc) {
    metadata["crc32"] = fmt::format("{:08x}", crc);
    std::string json = safetensors::header_json(tensors, metadata);
    const std::uint64_t header_size = (json.size() + 7) / 8 * 8;
    return safetensors::frame_header(std::move(json), header_size);
  };
  out.write(header(0));
  std::uint32_t crc = 0;
  for (std::size_t i = 0; i < blobs.size(); ++i) {
    std::uint64_t written = 0;
    auto put = [&](std::span<const std::byte> bytes) {
      out.write(bytes.data(), bytes.size());
      crc = crc32(bytes, crc);
      written += bytes.size();
    };
    if (blobs[i].stream) blobs[i].stream(put); else put(blobs[i].bytes);
    EMBED_ASSERT(written == tensors[i].end - tensors[i].begin);
  }
  const std::string final_header = header(crc);
  out.write_at(0, final_header.data(), final_header.size());
  out.commit();
}

TensorFileReader::TensorFileReader(const std::string& path, const std::string& format, const std::string& version,
                                   const std::string& what)
    : path_(path), what_(what), file_(MappedFile::open(path)) {
  header_ = safetensors::parse(file_->bytes(), path);
  const auto kind = header_.metadata.find("format");
  if (kind == header_.metadata.end() || kind->second != format) fail("{}: not an embed-train {}", path, what);
  if (meta("version") != version) {
    fail("{}: {} version {} is not supported (this embed-train reads version {})", path, what, meta("version"), version);
  }
  const auto data = file_->bytes().subspan(header_.data_start);
  if (fmt::format("{:08x}", crc32(data)) != meta("crc32")) fail("{}: the {} is damaged (checksum mismatch)", path, what);
}

std::string TensorFileReader::meta(const std::string& key) const {
  auto it = header_.metadata.find(key);
  if (it == header_.metadata.end()) fail("{}: the {} lacks \"{}\"", path_, what_, key);
  return it->second;
}

bool TensorFileReader::has_meta(const std::string& key) const { return header_.metadata.contains(key); }

namespace {

// The metadata value `text`, read whole by `parse` (std::stoull, std::stod); nullopt if it is not a number.
template <typename Parse>
auto parse_whole(const std::string& text, Parse parse) -> std::optional<decltype(parse(text, nullptr))> {
  try {
    std::size_t used = 0;
    const auto value = parse(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

std::uint64_t TensorFileReader::meta_uint(const std::string& key) const {
  const std::string text = meta(key);
  const auto value = parse_whole(text, [](const std::string& t, std::size_t* used) { return std::stoull(t, used); });
  if (!value || text.starts_with('-')) fail("{}: {} field \"{}\" is not a number: \"{}\"", path_, what_, key, excerpt(text));
  return *value;
}

double TensorFileReader::meta_double(const std::string& key) const {
  const std::string text = meta(key);
  const auto value = parse_whole(text, [](const std::string& t, std::size_t* used) { return std::stod(t, used); });
  if (!value) fail("{}: {} field \"{}\" is not a number: \"{}\"", path_, what_, key, excerpt(text));
  return *value;
}

std::span<const std::byte> TensorFileReader::tensor(const std::string& name, DType dtype, std::uint64_t elements) const {
  const auto* info = header_.find(name);
  if (info == nullptr) fail("{}: the {} lacks the tensor \"{}\"", path_, what_, name);
  // elements > bytes / size first: a hostile count must not wrap the product.
  const std::uint64_t bytes = info->end - info->begin;
  if (info->dtype != dtype || elements > bytes / dtype_size(dtype) || bytes != elements * dtype_size(dtype)) {
    fail("{}: {} tensor \"{}\" has the wrong type or size", path_, what_, name);
  }
  return file_->bytes().subspan(header_.data_start + info->begin, info->end - info->begin);
}

std::uint64_t TensorFileReader::elements(const std::string& name) const {
  const auto* info = header_.find(name);
  if (info == nullptr) fail("{}: the {} lacks the tensor \"{}\"", path_, what_, name);
  return (info->end - info->begin) / dtype_size(info->dtype);
}

DType TensorFileReader::dtype(const std::string& name) const {
  const auto* info = header_.find(name);
  if (info == nullptr) fail("{}: the {} lacks the tensor \"{}\"", path_, what_, name);
  return info->dtype;
}

}  // namespace embed
