// The safetensors container: an 8-byte little-endian header length N, N bytes of
// JSON, then the tensor bytes. Parsing validates everything the reference reader
// does (see docs/FORMAT.md); writing lays tensors out and pads the header so that
// a chosen tensor starts on a 64-byte file offset.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "format/dtype.h"

namespace embed::safetensors {

// The reference reader's limit on the header length (a guard against huge JSON).
inline constexpr std::uint64_t kMaxHeaderSize = 100'000'000;

// The u64 little-endian header length at the start of a safetensors file (8 bytes at p).
std::uint64_t read_header_length(const std::byte* p);

struct TensorInfo {
  std::string name;
  DType dtype;
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0;  // offsets into the data buffer, which starts at data_start
  std::uint64_t end = 0;
};

struct Header {
  std::uint64_t data_start = 0;  // file offset of the data buffer: 8 + N
  std::map<std::string, std::string> metadata;
  std::vector<TensorInfo> tensors;  // sorted by begin
  const TensorInfo* find(const std::string& name) const;
};

// Parses and validates the header of a safetensors file held in `file`
// (the whole file, so that the buffer's extent can be checked).
// Throws embed::Error starting with `name` on any violation.
Header parse(std::span<const std::byte> file, const std::string& name);

// The header JSON for `tensors` (their offsets as given), with __metadata__ first and
// the tensors in the given order, as the reference writer does. Not padded.
std::string header_json(const std::vector<TensorInfo>& tensors, const std::map<std::string, std::string>& metadata);

// The 8-byte little-endian length followed by `json` padded with spaces to exactly
// `size` bytes (size >= json.size()).
std::string frame_header(std::string json, std::uint64_t size);

}  // namespace embed::safetensors
