// Files of named tensors that embed writes for itself (training checkpoints,
// co-occurrence counts): safetensors, so the usual tools can look inside, with
// "format", "version" and a CRC-32 of the data in __metadata__, so that a file of
// another kind, another version, or damaged (truncated, a flipped byte) is refused
// with a message instead of being trained on.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/atomic_output.h"
#include "format/dtype.h"
#include "format/safetensors.h"

namespace embed {

class MappedFile;

// A tensor to write: its name, type, shape and bytes, or, for one too large to hold
// in memory, a `stream` that hands its bytes (exactly those the shape says) to `put`.
struct TensorBlob {
  using Put = std::function<void(std::span<const std::byte>)>;
  std::string name;
  DType dtype;
  std::vector<std::uint64_t> shape;
  std::span<const std::byte> bytes;
  std::function<void(const Put& put)> stream = {};
};

// Writes `blobs` and `metadata` (plus "format", "version" and "crc32") to `out` (a
// file, not standard output: the checksum is written into the header last), and
// commits it.
void write_tensor_file(AtomicOutput& out, const std::string& format, const std::string& version,
                       const std::vector<TensorBlob>& blobs, std::map<std::string, std::string> metadata);

class TensorFileReader {
 public:
  // Maps `path` and checks its kind, version and checksum; `what` names the kind in
  // messages ("checkpoint"). Throws embed::Error naming the path.
  TensorFileReader(const std::string& path, const std::string& format, const std::string& version, const std::string& what);

  const std::string& path() const { return path_; }
  std::string meta(const std::string& key) const;  // required
  bool has_meta(const std::string& key) const;     // for keys later versions added
  std::uint64_t meta_uint(const std::string& key) const;
  double meta_double(const std::string& key) const;

  // The tensor's bytes, checked against the expected type and element count.
  std::span<const std::byte> tensor(const std::string& name, DType dtype, std::uint64_t elements) const;
  std::uint64_t elements(const std::string& name) const;
  DType dtype(const std::string& name) const;
  // The tensor's bytes (`elements` of `dtype`, checked as by tensor()) as Ts: records
  // may pack several elements each.
  template <typename T>
  std::vector<T> copy(const std::string& name, DType dtype, std::uint64_t elements) const {
    const auto bytes = tensor(name, dtype, elements);
    std::vector<T> out(bytes.size() / sizeof(T));
    if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  }

 private:
  std::string path_;
  std::string what_;
  std::shared_ptr<const MappedFile> file_;
  safetensors::Header header_;
};

}  // namespace embed
