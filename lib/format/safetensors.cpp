#include "format/safetensors.h"

#include <algorithm>
#include <cstring>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace embed::safetensors {
namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxDimension = (std::uint64_t{1} << 48) - 1;

// nlohmann keeps the last of duplicate keys silently; the format forbids them, so count keys per object.
json parse_rejecting_duplicates(std::string_view text, const std::string& name) {
  std::vector<std::set<std::string>> keys_per_object;
  std::string duplicate;
  json::parser_callback_t callback = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys_per_object.emplace_back();
    if (event == json::parse_event_t::object_end) keys_per_object.pop_back();
    if (event == json::parse_event_t::key && duplicate.empty() &&
        !keys_per_object.back().insert(parsed.get<std::string>()).second) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  json header;
  try {
    header = json::parse(text.begin(), text.end(), callback);
  } catch (const json::exception& e) {
    fail("{}: the safetensors header is not valid JSON: {}", name, e.what());
  }
  if (!duplicate.empty()) fail("{}: the safetensors header repeats the key \"{}\"", name, duplicate);
  return header;
}

std::uint64_t as_bounded_uint(const json& value, const std::string& name, const std::string& what) {
  if (!value.is_number_unsigned() || value.get<std::uint64_t>() > kMaxDimension) {
    fail("{}: {} must be a non-negative integer below 2^48, found {}", name, what, value.dump());
  }
  return value.get<std::uint64_t>();
}

TensorInfo parse_tensor(const std::string& tensor_name, const json& entry, const std::string& name) {
  const std::string where = fmt::format("tensor \"{}\"", tensor_name);
  if (!entry.is_object()) fail("{}: {}: expected an object with dtype, shape and data_offsets", name, where);
  for (const auto& [key, _] : entry.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") fail("{}: {}: unexpected key \"{}\"", name, where, key);
  }
  if (!entry.contains("dtype") || !entry.contains("shape") || !entry.contains("data_offsets")) {
    fail("{}: {}: needs dtype, shape and data_offsets", name, where);
  }
  TensorInfo info;
  info.name = tensor_name;
  const json& dtype = entry["dtype"];
  if (!dtype.is_string()) fail("{}: {}: dtype must be a string", name, where);
  auto parsed = parse_dtype_name(dtype.get<std::string>());
  if (!parsed) fail("{}: {}: unsupported dtype \"{}\"", name, where, dtype.get<std::string>());
  info.dtype = *parsed;
  const json& shape = entry["shape"];
  if (!shape.is_array()) fail("{}: {}: shape must be an array", name, where);
  for (const json& dim : shape) info.shape.push_back(as_bounded_uint(dim, name, where + " shape entry"));
  const json& offsets = entry["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2) fail("{}: {}: data_offsets must be [begin, end]", name, where);
  info.begin = as_bounded_uint(offsets[0], name, where + " data offset");
  info.end = as_bounded_uint(offsets[1], name, where + " data offset");
  if (info.end < info.begin) fail("{}: {}: data_offsets end before they begin", name, where);
  std::uint64_t bytes = dtype_size(info.dtype);
  for (std::uint64_t dim : info.shape) {
    if (__builtin_mul_overflow(bytes, dim, &bytes)) fail("{}: {}: shape overflows", name, where);
  }
  if (bytes != info.end - info.begin) {
    fail("{}: {}: shape and dtype need {} bytes but data_offsets span {}", name, where, bytes, info.end - info.begin);
  }
  return info;
}

}  // namespace

std::uint64_t read_header_length(const std::byte* p) {
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<std::uint8_t>(p[i]);
  return value;
}

const TensorInfo* Header::find(const std::string& tensor_name) const {
  for (const auto& t : tensors) {
    if (t.name == tensor_name) return &t;
  }
  return nullptr;
}

Header parse(std::span<const std::byte> file, const std::string& name) {
  if (file.size() < 8) fail("{}: too short to be a safetensors file ({} bytes)", name, file.size());
  const std::uint64_t header_size = read_header_length(file.data());
  if (header_size > kMaxHeaderSize) fail("{}: header length {} is too large (corrupt or not safetensors)", name, header_size);
  if (header_size > file.size() - 8) {
    fail("{}: header length {} runs past the end of the file ({} bytes): truncated?", name, header_size, file.size());
  }
  std::string_view text(reinterpret_cast<const char*>(file.data()) + 8, header_size);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') fail("{}: the safetensors header must be a JSON object", name);
  const json header_json = parse_rejecting_duplicates(text, name);
  if (!header_json.is_object()) fail("{}: the safetensors header must be a JSON object", name);

  Header header;
  header.data_start = 8 + header_size;
  for (const auto& [key, value] : header_json.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) fail("{}: __metadata__ must be an object of strings", name);
      for (const auto& [meta_key, meta_value] : value.items()) {
        if (!meta_value.is_string()) fail("{}: __metadata__ value for \"{}\" must be a string", name, meta_key);
        header.metadata[meta_key] = meta_value.get<std::string>();
      }
      continue;
    }
    header.tensors.push_back(parse_tensor(key, value, name));
  }

  // Tensors must tile the buffer exactly: no gaps, no overlap, nothing after the last.
  std::sort(header.tensors.begin(), header.tensors.end(),
            [](const TensorInfo& a, const TensorInfo& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  std::uint64_t expected = 0;
  for (const auto& t : header.tensors) {
    if (t.begin != expected) {
      fail("{}: tensor \"{}\" starts at byte {} of the data, expected {} (gap or overlap)", name, t.name, t.begin, expected);
    }
    expected = t.end;
  }
  const std::uint64_t buffer_size = file.size() - header.data_start;
  if (expected != buffer_size) {
    if (expected > buffer_size) {
      fail("{}: tensors need {} bytes of data but the file holds {}: truncated", name, expected, buffer_size);
    }
    fail("{}: {} unexpected bytes after the last tensor", name, buffer_size - expected);
  }
  return header;
}

std::string header_json(const std::vector<TensorInfo>& tensors, const std::map<std::string, std::string>& metadata) {
  // ordered_json keeps insertion order: __metadata__ first, then tensors in file order.
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  for (const auto& t : tensors) {
    header[t.name] = {{"dtype", dtype_name(t.dtype)}, {"shape", t.shape}, {"data_offsets", {t.begin, t.end}}};
  }
  // Replace rather than throw on a non-UTF-8 metadata value (a source path, say).
  return header.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string frame_header(std::string json, std::uint64_t size) {
  EMBED_ASSERT(json.size() <= size);
  json.append(size - json.size(), ' ');  // trailing spaces are the padding the spec allows
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((size >> (8 * i)) & 0xFF);
  return out + json;
}

}  // namespace embed::safetensors
