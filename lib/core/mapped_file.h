// A read-only memory mapping of a whole file. The pages are the page cache's:
// opening costs a system call, not a read, which is what makes .emb files instant.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace embed {

class MappedFile {
 public:
  // Maps `path` read-only. Throws embed::Error naming the path on failure.
  static std::shared_ptr<const MappedFile> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const std::byte> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

 private:
  MappedFile(std::string path, const std::byte* data, std::size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}
  std::string path_;
  const std::byte* data_;
  std::size_t size_;
};

}  // namespace embed
