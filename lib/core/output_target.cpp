#include "core/output_target.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <string_view>

#include "core/error.h"

namespace embed {
namespace {

constexpr int kMaxLinks = 40;  // Linux's own limit (MAXSYMLINKS)

// N for "/dev/fd/N", "/proc/self/fd/N" or "/proc/thread-self/fd/N"; -1 for any other path.
int descriptor_named(std::string_view path) {
  for (std::string_view prefix : {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"}) {
    if (!path.starts_with(prefix)) continue;
    const std::string_view digits = path.substr(prefix.size());
    int fd = -1;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), fd);
    if (error == std::errc() && end == digits.data() + digits.size() && !digits.empty()) return fd;
  }
  return -1;
}

// Where the symbolic link `link` points, as a path usable from here.
std::string follow_link(const std::string& original, const std::string& link) {
  char buffer[PATH_MAX];
  const ssize_t n = ::readlink(link.c_str(), buffer, sizeof buffer);
  if (n < 0 || n == static_cast<ssize_t>(sizeof buffer)) {
    fail("{}: cannot follow the symbolic link {}: {}", original, link, std::strerror(n < 0 ? errno : ENAMETOOLONG));
  }
  std::string target(buffer, static_cast<std::size_t>(n));
  const std::size_t slash = link.rfind('/');
  if (target.starts_with('/') || slash == std::string::npos) return target;
  return link.substr(0, slash + 1) + target;
}

// A path that exists and is not a regular file: written in place where that can be.
OutputTarget of_type(const std::string& original, const std::string& path, mode_t mode) {
  if (S_ISFIFO(mode)) return {OutputTarget::Kind::device, path, -1, "a FIFO"};
  if (S_ISCHR(mode)) return {OutputTarget::Kind::device, path, -1, "a character device"};
  if (S_ISDIR(mode)) fail("{}: is a directory", original);
  fail("{}: is {}: an output must be a regular file, a FIFO or a character device", original,
       S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : "not a file");
}

}  // namespace

OutputTarget resolve_output_target(const std::string& path) {
  std::string current = path;
  for (int links = 0;; ++links) {
    if (const int fd = descriptor_named(current); fd >= 0) {
      return {OutputTarget::Kind::descriptor, current, fd, "descriptor " + std::to_string(fd)};
    }
    // stat() follows every link, /proc's too, whose targets ("pipe:[123]") are no paths.
    struct stat st {};
    if (::stat(current.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return of_type(path, current, st.st_mode);
    // A regular file or none yet: find the file itself, for the temporary to go beside it.
    // Where lstat fails (a missing folder, no permission), creating the temporary says why.
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
      return {OutputTarget::Kind::file, current, -1, "a regular file"};
    }
    if (links == kMaxLinks) fail("{}: cannot follow its symbolic links: {}", path, std::strerror(ELOOP));
    current = follow_link(path, current);
  }
}

}  // namespace embed
