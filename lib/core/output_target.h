// What a path given as an output names, once symbolic links are followed: this decides
// how AtomicOutput writes it. A regular file, or a path with nothing there yet, is
// replaced whole through a temporary beside the file itself (not beside a link to it, so
// that the link stays a link). A FIFO or a character device (/dev/null, a terminal)
// would be destroyed by a rename, so it is opened and written in place; so is a path
// that names a descriptor this process holds (/dev/stdout, /dev/fd/N: the shell's
// process substitution >(...)), which is written as "-" writes standard output.
#pragma once

#include <string>

namespace embed {

struct OutputTarget {
  enum class Kind {
    file,        // `path`: a regular file or none yet, replaced through a temporary
    device,      // `path`: a FIFO or a character device, opened and written in place
    descriptor,  // `descriptor`: a descriptor of this process, written in place
  };
  Kind kind = Kind::file;
  std::string path;
  int descriptor = -1;
  std::string what;  // for messages: "a regular file", "a FIFO", "a character device", "descriptor 63"
};

// Follows `path`'s symbolic links as the kernel would (a relative target is relative to
// its link's folder; at most 40). Throws embed::Error naming `path` for a directory, a
// block device, a socket or a loop of links.
OutputTarget resolve_output_target(const std::string& path);

}  // namespace embed
