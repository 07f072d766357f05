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

class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  // Up to `max_lines` lines without their "\n"; empty at end of input. Throws embed::Error on a read error.
  std::vector<std::string> next_batch(std::size_t max_lines);
  // One line, waiting for it; false at end of input.
  bool next_line(std::string& line);
  std::size_t lines_read() const { return lines_read_; }

 private:
  bool take_buffered_line(std::string& line);
  bool fill(bool wait);  // reads what is available (waiting when asked); false at end of input

  int fd_;
  std::string buffer_;
  std::size_t start_ = 0;
  bool eof_ = false;
  std::size_t lines_read_ = 0;
};

}  // namespace embed
