// Reading queries from standard input in batches without stalling a conversation:
// next_batch() waits for one line, then takes every further line that has already
// arrived (up to a limit). A file or a script's whole input arrives as large
// batches answered by blocked SGEMM; a program that writes one query and waits for its
// answer gets it at once.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace embed {

// The longest line a query may be: a query is a few words, and a stream without newlines
// must not be held in memory whole.
inline constexpr std::size_t kMaxQueryLineBytes = 1 << 20;

class LineReader {
 public:
  explicit LineReader(int fd, std::size_t max_line_bytes = kMaxQueryLineBytes) : fd_(fd), max_line_bytes_(max_line_bytes) {}
  // Up to `max_lines` lines without their "\n"; empty at end of input. Throws embed::Error
  // on a read error or a line longer than max_line_bytes.
  std::vector<std::string> next_batch(std::size_t max_lines);
  // One line, waiting for it; false at end of input.
  bool next_line(std::string& line);
  std::size_t lines_read() const { return lines_read_; }

 private:
  enum class Buffered { line, none, too_long };  // a whole line taken; none yet; one over the limit
  Buffered take_buffered_line(std::string& line);
  [[noreturn]] void fail_too_long() const;
  bool fill(bool wait);  // reads what is available (waiting when asked); false at end of input

  int fd_;
  std::size_t max_line_bytes_;
  std::string buffer_;
  std::size_t start_ = 0;
  std::size_t scanned_ = 0;  // buffer_[start_, scanned_) holds no "\n": a long line is searched once
  bool eof_ = false;
  std::size_t lines_read_ = 0;
};

}  // namespace embed
