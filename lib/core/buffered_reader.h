// Byte-at-a-time access over an InputStream, for binary readers that parse small
// fields (word2vec binary words, fastText model headers) between large reads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/byte_source.h"

namespace embed {

// Byte-at-a-time access over an InputStream, refilled a megabyte at a time.
class BufferedReader {
 public:
  explicit BufferedReader(InputStream& in) : in_(in), buffer_(1 << 20) {}
  // Next byte, or -1 at the end.
  int get() {
    if (pos_ == size_ && !refill()) return -1;
    return static_cast<unsigned char>(buffer_[pos_++]);
  }
  // Copies exactly `size` bytes; false if the input ends first.
  bool read_exact(char* out, std::size_t size) {
    while (size > 0) {
      if (pos_ == size_ && !refill()) return false;
      const std::size_t n = std::min(size, size_ - pos_);
      std::memcpy(out, buffer_.data() + pos_, n);
      pos_ += n;
      out += n;
      size -= n;
    }
    return true;
  }
  std::uint64_t offset() const { return consumed_ + pos_; }

 private:
  bool refill() {
    consumed_ += size_;
    size_ = in_.read(buffer_.data(), buffer_.size());
    pos_ = 0;
    return size_ > 0;
  }
  InputStream& in_;
  std::vector<char> buffer_;
  std::size_t pos_ = 0;
  std::size_t size_ = 0;
  std::uint64_t consumed_ = 0;
};


}  // namespace embed
