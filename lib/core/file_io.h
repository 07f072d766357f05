// Whole reads and writes on a file descriptor: the loops that retry on EINTR and go on
// after a short transfer, written once. `what` names the file (or its purpose) in the
// one-line error each throws.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace embed {

// Reads `size` bytes at `offset` (pread); returns how many, fewer only where the file ends.
// Throws embed::Error "WHAT: cannot read at byte N: REASON".
std::size_t read_at(int fd, void* buffer, std::size_t size, std::uint64_t offset, std::string_view what);

// Reads what is available, up to `size` bytes (read: pipes, terminals, sockets); 0 only
// at the end of the input. Throws embed::Error "WHAT: cannot read: REASON".
std::size_t read_some(int fd, void* buffer, std::size_t size, std::string_view what);

// Writes all `size` bytes, at `offset` (pwrite) or, without one, at the file's position
// (write: pipes, appends). Throws embed::Error "WHAT: cannot write: REASON".
void write_all(int fd, const void* data, std::size_t size, std::optional<std::uint64_t> offset, std::string_view what);

// Writes what std::cout and C's stdout still buffer. Standard output that refuses it (a full
// disk, /dev/full) throws embed::Error "WHAT: REASON", rather than the output being lost
// with exit status 0.
void flush_stdout(std::string_view what);

// A file's modification time in nanoseconds, as checkpoints record it.
inline std::int64_t mtime_ns(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

}  // namespace embed
