// Sequential input: a file, standard input ("-"), either of them gzip-compressed.
// Compression is detected from the magic bytes, not the name, so `zcat`-less
// pipelines and misnamed files work alike.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace embed {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `size` bytes; returns 0 only at the end of the input.
  virtual std::size_t read(void* buffer, std::size_t size) = 0;
};

class InputStream {
 public:
  // Opens `path` ("-" for stdin). Throws embed::Error naming the path if it cannot be read.
  static InputStream open(const std::string& path);

  // Name for messages: the path, or "<stdin>".
  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }
  bool compressed() const { return compressed_; }
  // True when the input is an uncompressed regular file, which can be memory-mapped.
  bool mappable() const { return mappable_; }
  // Size of the (decompressed) input when known in advance.
  std::optional<std::uint64_t> size_hint() const { return size_hint_; }
  // Bytes of compressed or raw input consumed so far, for progress reports.
  std::uint64_t raw_bytes_read() const { return raw_bytes_read_->load(std::memory_order_relaxed); }
  std::optional<std::uint64_t> raw_size() const { return raw_size_; }

  // The first bytes of the (decompressed) stream, without consuming them.
  std::string_view peek(std::size_t size);
  // Reads up to `size` bytes; 0 only at the end.
  std::size_t read(void* buffer, std::size_t size);
  // Reads everything that is left.
  std::vector<char> read_all();
  // Reads everything that is left as lines, without their "\n" (a "\r" before it stays);
  // a last line without "\n" counts, an empty input has no lines.
  std::vector<std::string> read_lines();

 private:
  std::string path_;
  std::string name_;
  bool compressed_ = false;
  bool mappable_ = false;
  std::optional<std::uint64_t> size_hint_;
  std::optional<std::uint64_t> raw_size_;
  // Atomic: a reading thread counts while another reports progress.
  std::shared_ptr<std::atomic<std::uint64_t>> raw_bytes_read_ = std::make_shared<std::atomic<std::uint64_t>>(0);
  std::unique_ptr<ByteSource> source_;
  std::vector<char> peeked_;
  std::size_t peek_pos_ = 0;
};

}  // namespace embed
