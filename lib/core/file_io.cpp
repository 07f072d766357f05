#include "core/file_io.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "core/error.h"

namespace embed {

std::size_t read_at(int fd, void* buffer, std::size_t size, std::uint64_t offset, std::string_view what) {
  auto* p = static_cast<char*>(buffer);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, p + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("{}: cannot read at byte {}: {}", what, offset + done, std::strerror(errno));
    if (n == 0) break;  // the end of the file
    done += static_cast<std::size_t>(n);
  }
  return done;
}

std::size_t read_some(int fd, void* buffer, std::size_t size, std::string_view what) {
  for (;;) {
    const ssize_t n = ::read(fd, buffer, size);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) fail("{}: cannot read: {}", what, std::strerror(errno));
  }
}

void write_all(int fd, const void* data, std::size_t size, std::optional<std::uint64_t> offset, std::string_view what) {
  const auto* p = static_cast<const char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = offset ? ::pwrite(fd, p + done, size - done, static_cast<off_t>(*offset + done))
                             : ::write(fd, p + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    // write(2) returns 0 for a non-empty buffer only on odd devices: treat it as an I/O error, not a loop.
    if (n <= 0) fail("{}: cannot write: {}", what, std::strerror(n < 0 ? errno : EIO));
    done += static_cast<std::size_t>(n);
  }
}

void flush_stdout(std::string_view what) {
  errno = 0;
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0) fail("{}: {}", what, errno ? std::strerror(errno) : "write error");
}

}  // namespace embed
