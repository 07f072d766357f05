#include "query/line_reader.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace embed {

bool LineReader::take_buffered_line(std::string& line) {
  const std::size_t newline = buffer_.find('\n', start_);
  if (newline == std::string::npos) {
    if (!eof_ || start_ == buffer_.size()) return false;
    line.assign(buffer_, start_, std::string::npos);  // a last line without "\n"
    start_ = buffer_.size();
  } else {
    line.assign(buffer_, start_, newline - start_);
    start_ = newline + 1;
  }
  ++lines_read_;
  return true;
}

bool LineReader::fill(bool wait) {
  if (eof_) return false;
  if (!wait) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0) return false;  // nothing has arrived yet
  }
  if (start_ > 0) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
  char chunk[1 << 16];
  ssize_t got;
  do {
    got = ::read(fd_, chunk, sizeof chunk);
  } while (got < 0 && errno == EINTR);
  if (got < 0) fail("<stdin>: read error: {}", std::strerror(errno));
  if (got == 0) eof_ = true;
  buffer_.append(chunk, static_cast<std::size_t>(got));
  return true;
}

bool LineReader::next_line(std::string& line) {
  while (!take_buffered_line(line)) {
    if (!fill(true) && eof_ && start_ == buffer_.size()) return false;
  }
  return true;
}

std::vector<std::string> LineReader::next_batch(std::size_t max_lines) {
  std::vector<std::string> lines;
  std::string line;
  if (!next_line(line)) return lines;
  lines.push_back(std::move(line));
  while (lines.size() < max_lines) {
    if (take_buffered_line(line)) {
      lines.push_back(std::move(line));
    } else if (!fill(false)) {
      break;
    }
  }
  return lines;
}

}  // namespace embed
