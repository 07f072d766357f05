#include "train/corpus/corpus_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/ascii_space.h"
#include "core/error.h"
#include "core/file_io.h"

namespace embed {

RowLookup::RowLookup(const Vocabulary& vocab) : words_(vocab.words.begin(), vocab.words.end()) {
  std::size_t slots = 1024;
  while (slots < 2 * vocab.size()) slots *= 2;  // a load of at most one half
  slots_.resize(slots);
  mask_ = slots - 1;
  for (std::size_t row = 0; row < vocab.size(); ++row) {
    const std::string_view word = vocab.words[row];
    const std::uint32_t hash = token_hash(word);
    std::size_t s = hash & mask_;
    while (slots_[s].row_plus_one != 0) s = (s + 1) & mask_;
    slots_[s] = {key_of(word), hash, static_cast<std::uint32_t>(row + 1)};
  }
}

CorpusReader::CorpusReader(const std::vector<CorpusFile>& files, ByteRange range, const RowLookup& lookup,
                           std::size_t max_token_bytes)
    : files_(files), range_(range), lookup_(lookup), max_token_bytes_(max_token_bytes) {
  EMBED_ASSERT(range.begin <= range.end);
  // Find the file holding range.begin (a range that begins at a file's end begins the next).
  while (file_ < files_.size() && file_start_ + files_[file_].size <= range.begin) file_start_ += files_[file_++].size;
  if (file_ == files_.size()) {  // an empty range at the corpus's end
    buffer_start_ = range.begin - file_start_;
    part_end_ = buffer_start_;
    return;
  }
  buffer_start_ = range.begin - file_start_;
  part_end_ = std::min(files_[file_].size, range.end - file_start_);
}

CorpusReader::~CorpusReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool CorpusReader::fill() {
  constexpr std::size_t kBlock = 1 << 20;
  buffer_start_ += offset_;
  buffer_.erase(0, offset_);
  offset_ = 0;
  const std::uint64_t from = buffer_start_ + buffer_.size();
  if (from >= part_end_) return false;
  const CorpusFile& file = files_[file_];
  if (fd_ < 0) {
    fd_ = ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail("{}: cannot open: {}", file.path, std::strerror(errno));
  }
  const auto wanted = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, part_end_ - from));
  const std::size_t old_size = buffer_.size();
  buffer_.resize(old_size + wanted);
  const std::size_t got = read_at(fd_, buffer_.data() + old_size, wanted, from, file.path);
  if (got < wanted) {
    fail("{}: ends at byte {}, but it had {} bytes when the corpus was counted: the corpus changed during training", file.path,
         from + got, file.size);
  }
  return true;
}

bool CorpusReader::next_file() {
  if (file_ >= files_.size()) return false;
  const std::uint64_t next_start = file_start_ + files_[file_].size;
  if (part_end_ < files_[file_].size || next_start >= range_.end) return false;  // the range ends in this file
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  file_start_ = next_start;
  ++file_;
  buffer_.clear();
  buffer_start_ = 0;
  offset_ = 0;
  part_end_ = std::min(files_[file_].size, range_.end - file_start_);
  return true;
}

bool CorpusReader::next_sentence(std::size_t max_rows, std::vector<std::uint32_t>& rows) {
  EMBED_ASSERT(max_rows > 0);
  rows.clear();
  for (;;) {
    if (offset_ == buffer_.size() && !fill()) {
      // The end of a file ends a line; the end of the range ends the sentence.
      const bool file_ended = file_ < files_.size() && part_end_ == files_[file_].size;
      const bool more = next_file();
      if (file_ended) line_start_ = true;
      if (!rows.empty() || !more) return !rows.empty();
      continue;
    }
    const char c = buffer_[offset_];
    if (is_ascii_space(static_cast<unsigned char>(c))) {
      ++offset_;
      if (c == '\n') {
        line_start_ = true;
        if (!rows.empty()) return true;
      }
      continue;
    }
    // A token: it ends at whitespace or at the part's end (cuts lie on whitespace).
    std::size_t end = offset_;
    bool long_token = false;  // longer than any word: its first bytes are in long_token_
    for (;;) {
      while (end < buffer_.size() && !is_ascii_space(static_cast<unsigned char>(buffer_[end]))) ++end;
      if (end < buffer_.size()) break;
      if (!long_token && end - offset_ > max_token_bytes_) {
        // Keep the bytes that decide its cut and drop the rest as it is read, so that a
        // file without whitespace never makes the buffer larger than a block.
        long_token_.assign(buffer_, offset_, max_token_bytes_ + 1);
        long_token = true;
      }
      if (long_token) offset_ = end;
      end -= offset_;  // fill() moves the token to the buffer's start
      const bool more = fill();
      end += offset_;
      if (!more) break;
    }
    const std::string_view token =
        long_token ? std::string_view(long_token_) : std::string_view(buffer_.data() + offset_, end - offset_);
    offset_ = end;
    if (const auto row = lookup_.row(cut_token(token, max_token_bytes_))) {
      if (rows.empty()) {
        starts_line_ = line_start_;
        line_start_ = false;
      }
      rows.push_back(*row);
      if (rows.size() == max_rows) return true;
    }
  }
}

}  // namespace embed
