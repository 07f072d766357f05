#include "common/option_checks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace embed::cli {
namespace {

// Recorded rather than returned to CLI11: a validator's message is a usage error (exit 2),
// and a missing input is not one.
std::string& first_file_error() {
  static std::string error;
  return error;
}

// The wording of the readers' own open failures (core/byte_source.cpp), so that an option's
// file and a positional one fail alike.
std::string unreadable(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return path + ": cannot open: " + std::strerror(errno);
  struct stat status {};
  const bool directory = ::fstat(fd, &status) == 0 && S_ISDIR(status.st_mode);
  ::close(fd);
  return directory ? path + ": is a directory" : "";
}

}  // namespace

CLI::Validator input_file(Stdin stdin_allowed) {
  return CLI::Validator(
      [stdin_allowed](std::string& path) {
        if (stdin_allowed == Stdin::allowed && path == "-") return std::string{};
        if (first_file_error().empty()) first_file_error() = unreadable(path);
        return std::string{};
      },
      "FILE");
}

std::string take_input_file_error() { return std::exchange(first_file_error(), {}); }

}  // namespace embed::cli
