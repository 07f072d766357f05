#include "core/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/file_io.h"

namespace embed {
namespace {

class FdSource : public ByteSource {
 public:
  FdSource(int fd, bool owned, std::string name, std::shared_ptr<std::atomic<std::uint64_t>> counter)
      : fd_(fd), owned_(owned), name_(std::move(name)), counter_(std::move(counter)) {}
  ~FdSource() override {
    if (owned_) ::close(fd_);
  }
  std::size_t read(void* buffer, std::size_t size) override {
    const std::size_t n = read_some(fd_, buffer, size, name_);
    counter_->fetch_add(n, std::memory_order_relaxed);
    return n;
  }

 private:
  int fd_;
  bool owned_;
  std::string name_;
  std::shared_ptr<std::atomic<std::uint64_t>> counter_;
};

// Streaming gzip decoder over another source. Handles concatenated members, as gzip does.
class GzipSource : public ByteSource {
 public:
  // `prefix`: compressed bytes already taken from `raw` while sniffing the format.
  GzipSource(std::unique_ptr<ByteSource> raw, std::vector<char> prefix, std::string name)
      : raw_(std::move(raw)), input_(std::move(prefix)), name_(std::move(name)) {
    const std::size_t prefix_size = input_.size();
    input_.resize(std::max(prefix_size, kChunk));
    if (inflateInit2(&stream_, 16 + MAX_WBITS) != Z_OK) fail("{}: cannot start the gzip decoder", name_);
    stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
    stream_.avail_in = static_cast<uInt>(prefix_size);
  }
  ~GzipSource() override { inflateEnd(&stream_); }

  std::size_t read(void* buffer, std::size_t size) override {
    stream_.next_out = static_cast<Bytef*>(buffer);
    stream_.avail_out = static_cast<uInt>(std::min<std::size_t>(size, 1u << 30));
    while (stream_.avail_out > 0 && !finished_) {
      if (stream_.avail_in == 0) {
        std::size_t n = raw_->read(input_.data(), kChunk);
        if (n == 0) {
          if (!member_done_) fail("{}: truncated gzip data (the compressed stream ends early)", name_);
          finished_ = true;
          break;
        }
        stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
        stream_.avail_in = static_cast<uInt>(n);
      }
      if (member_done_) {
        // More bytes after a complete member: another concatenated member begins.
        inflateReset(&stream_);
        member_done_ = false;
      }
      int rc = inflate(&stream_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        member_done_ = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        fail("{}: corrupt gzip data: {}", name_, stream_.msg ? stream_.msg : "inflate failed");
      }
    }
    return static_cast<std::size_t>(static_cast<Bytef*>(stream_.next_out) - static_cast<Bytef*>(buffer));
  }

 private:
  static constexpr std::size_t kChunk = 1 << 20;
  std::unique_ptr<ByteSource> raw_;
  std::vector<char> input_;
  std::string name_;
  z_stream stream_{};
  bool member_done_ = false;
  bool finished_ = false;
};

}  // namespace

InputStream InputStream::open(const std::string& path) {
  InputStream in;
  in.path_ = path;
  in.name_ = path == "-" ? "<stdin>" : path;
  int fd = STDIN_FILENO;
  bool owned = false;
  if (path != "-") {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail("{}: cannot open: {}", path, std::strerror(errno));
    owned = true;
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    if (owned) ::close(fd);
    fail("{}: is a directory", in.name_);
  }
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (regular) in.raw_size_ = static_cast<std::uint64_t>(st.st_size);
  auto raw = std::make_unique<FdSource>(fd, owned, in.name_, in.raw_bytes_read_);

  // Sniff two bytes for the gzip magic without losing them.
  std::vector<char> head(2);
  std::size_t got = 0;
  while (got < head.size()) {
    std::size_t n = raw->read(head.data() + got, head.size() - got);
    if (n == 0) break;
    got += n;
  }
  head.resize(got);
  if (got == 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b) {
    in.compressed_ = true;
    in.source_ = std::make_unique<GzipSource>(std::move(raw), std::move(head), in.name_);
  } else {
    in.source_ = std::move(raw);
    in.peeked_ = std::move(head);
    in.mappable_ = regular && path != "-";
    if (regular) in.size_hint_ = in.raw_size_;
  }
  return in;
}

std::string_view InputStream::peek(std::size_t size) {
  while (peeked_.size() - peek_pos_ < size) {
    const std::size_t have = peeked_.size();
    const std::size_t want = size - (have - peek_pos_);
    peeked_.resize(have + want);
    std::size_t n = source_->read(peeked_.data() + have, want);
    peeked_.resize(have + n);
    if (n == 0) break;
  }
  return {peeked_.data() + peek_pos_, std::min(size, peeked_.size() - peek_pos_)};
}

std::size_t InputStream::read(void* buffer, std::size_t size) {
  if (peek_pos_ < peeked_.size()) {
    std::size_t n = std::min(size, peeked_.size() - peek_pos_);
    std::memcpy(buffer, peeked_.data() + peek_pos_, n);
    peek_pos_ += n;
    if (peek_pos_ == peeked_.size()) {
      peeked_.clear();
      peek_pos_ = 0;
    }
    return n;
  }
  return source_->read(buffer, size);
}

std::vector<char> InputStream::read_all() {
  std::vector<char> all;
  if (size_hint_) all.reserve(*size_hint_);
  std::size_t used = 0;
  for (;;) {
    if (all.size() - used < (1 << 20)) all.resize(std::max<std::size_t>(all.size() * 2, used + (1 << 20)));
    std::size_t n = read(all.data() + used, all.size() - used);
    if (n == 0) break;
    used += n;
  }
  all.resize(used);
  return all;
}

std::vector<std::string> InputStream::read_lines() {
  const std::vector<char> bytes = read_all();
  std::vector<std::string> lines;
  for (auto begin = bytes.begin(); begin != bytes.end();) {
    const auto end = std::find(begin, bytes.end(), '\n');
    lines.emplace_back(begin, end);
    begin = end == bytes.end() ? end : end + 1;
  }
  return lines;
}

}  // namespace embed
