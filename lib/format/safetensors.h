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

// A tensor to write: its bytes are supplied by the caller.
struct TensorToWrite {
  std::string name;
  DType dtype;
  std::vector<std::uint64_t> shape;
  std::span<const std::byte> bytes;
};

// Serializes the header for `tensors`, laid out in the given order with no gaps,
// padded with spaces so that the tensor named `align_name` starts at a file
// offset that is a multiple of `alignment`. Returns the 8-byte length plus JSON.
// The caller then writes each tensor's bytes in order.
std::string make_header(const std::vector<TensorToWrite>& tensors,
                        const std::map<std::string, std::string>& metadata,
                        const std::string& align_name, std::uint64_t alignment);

}  // namespace embed::safetensors
