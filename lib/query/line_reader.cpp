#include "query/line_reader.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/file_io.h"

namespace embed {

LineReader::Buffered LineReader::take_buffered_line(std::string& line) {
  const std::size_t newline = buffer_.find('\n', std::max(start_, scanned_));
  const std::size_t line_end = newline == std::string::npos ? buffer_.size() : newline;
  if (line_end - start_ > max_line_bytes_) return Buffered::too_long;
  if (newline == std::string::npos) {
    scanned_ = buffer_.size();
    if (!eof_ || start_ == buffer_.size()) return Buffered::none;
    line.assign(buffer_, start_, std::string::npos);  // a last line without "\n"
    start_ = buffer_.size();
  } else {
    line.assign(buffer_, start_, newline - start_);
    start_ = newline + 1;
  }
  scanned_ = start_;
  ++lines_read_;
  return Buffered::line;
}

void LineReader::fail_too_long() const {
  fail("<stdin>:{}: a line longer than {} bytes; expected one query (a few words) per line", lines_read_ + 1,
       max_line_bytes_);
}

bool LineReader::fill(bool wait) {
  if (eof_) return false;
  if (!wait) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) return false;  // nothing has arrived yet
  }
  if (start_ > 0) {
    buffer_.erase(0, start_);
    scanned_ -= start_;
    start_ = 0;
  }
  char chunk[1 << 16];
  const std::size_t got = read_some(fd_, chunk, sizeof chunk, "<stdin>");
  if (got == 0) eof_ = true;
  buffer_.append(chunk, got);
  return true;
}

bool LineReader::next_line(std::string& line) {
  for (;;) {
    switch (take_buffered_line(line)) {
      case Buffered::line:
        return true;
      case Buffered::too_long:
        fail_too_long();
      case Buffered::none:
        if (!fill(true) && eof_ && start_ == buffer_.size()) return false;
    }
  }
}

std::vector<std::string> LineReader::next_batch(std::size_t max_lines) {
  std::vector<std::string> lines;
  std::string line;
  if (!next_line(line)) return lines;
  lines.push_back(std::move(line));
  while (lines.size() < max_lines) {
    const Buffered taken = take_buffered_line(line);
    // A line too long: the lines before it are answered first, the next call reports it.
    if (taken == Buffered::too_long) break;
    if (taken == Buffered::line) {
      lines.push_back(std::move(line));
    } else if (!fill(false)) {
      break;
    }
  }
  return lines;
}

}  // namespace embed
