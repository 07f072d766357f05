#include "train/corpus_range_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/ascii_space.h"
#include "core/error.h"
#include "train/corpus.h"

namespace embed {

RowLookup::RowLookup(const Vocabulary& vocab) {
  rows_.reserve(vocab.size());
  for (std::size_t row = 0; row < vocab.size(); ++row) rows_.emplace(vocab.words[row], static_cast<std::uint32_t>(row));
}

std::optional<std::uint32_t> RowLookup::row(std::string_view word) const {
  const auto found = rows_.find(word);
  if (found == rows_.end()) return std::nullopt;
  return found->second;
}

CorpusRangeReader::CorpusRangeReader(const std::string& path, ByteRange range, bool ends_file,
                                     const RowLookup& lookup, std::size_t max_token_bytes)
    : path_(path),
      in_(path, std::ios::binary),
      range_(range),
      ends_file_(ends_file),
      lookup_(lookup),
      max_token_bytes_(max_token_bytes),
      buffer_start_(range.begin),
      end_reported_(!ends_file) {
  if (!in_) fail("{}: cannot open: {}", path, std::strerror(errno));
  in_.seekg(static_cast<std::streamoff>(range.begin));
}

void CorpusRangeReader::fill() {
  constexpr std::size_t kBlock = 1 << 20;
  buffer_start_ += offset_;
  buffer_.erase(0, offset_);
  offset_ = 0;
  const std::uint64_t from = buffer_start_ + buffer_.size();
  const std::size_t wanted = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, range_.end - from));
  const std::size_t old_size = buffer_.size();
  buffer_.resize(old_size + wanted);
  in_.read(buffer_.data() + old_size, static_cast<std::streamsize>(wanted));
  if (static_cast<std::size_t>(in_.gcount()) != wanted) {
    fail("{}: cannot read at byte {} (was the corpus changed?)", path_, from);
  }
}

void CorpusRangeReader::end_line(std::size_t rows_so_far, std::vector<std::uint64_t>& line_ends) {
  const std::uint64_t at = rows_read_ + rows_so_far;
  if (last_end_ == at) return;
  last_end_ = at;
  line_ends.push_back(rows_so_far);
}

void CorpusRangeReader::next(std::size_t max_rows, std::vector<std::uint32_t>& rows,
                             std::vector<std::uint64_t>& line_ends) {
  rows.clear();
  line_ends.clear();
  while (rows.size() < max_rows) {
    if (offset_ == buffer_.size()) {
      if (exhausted()) break;
      fill();
    }
    const char c = buffer_[offset_];
    if (is_ascii_space(static_cast<unsigned char>(c))) {
      if (c == '\n') end_line(rows.size(), line_ends);
      ++offset_;
      continue;
    }
    // A token: it ends at whitespace or at the range's end (cuts lie on whitespace).
    std::size_t end = offset_;
    for (;;) {
      while (end < buffer_.size() && !is_ascii_space(static_cast<unsigned char>(buffer_[end]))) ++end;
      if (end < buffer_.size() || exhausted()) break;
      end -= offset_;  // fill() moves the token to the buffer's start
      fill();
      end += offset_;
    }
    const std::string_view token(buffer_.data() + offset_, end - offset_);
    if (const auto row = lookup_.row(cut_token(token, max_token_bytes_))) rows.push_back(*row);
    ++tokens_;
    offset_ = end;
  }
  if (!end_reported_ && exhausted() && offset_ == buffer_.size()) {
    end_line(rows.size(), line_ends);  // the end of a file ends a line
    end_reported_ = true;
  }
  rows_read_ += rows.size();
}

}  // namespace embed
