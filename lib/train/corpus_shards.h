// Byte ranges of a corpus file, one per worker, for epochs that read the corpus from
// disk (issue 17: each worker reads its own contiguous range, as fastText's threads
// do). Not yet used by the trainer, which still keeps the corpus in memory as ids.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace embed {

struct ByteRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;  // one past the last byte
  bool operator==(const ByteRange&) const = default;
};

// Cuts the regular file `path` into `count` contiguous ranges covering it, nominally
// of equal size, each cut moved forward to the next ASCII whitespace byte (or the end
// of the file). No token straddles a cut, so tokenizing the ranges one by one gives
// the file's tokens exactly once, in order. A range can be empty (a token longer than
// a range, or a file smaller than `count` bytes). Throws embed::Error when the file
// cannot be read.
std::vector<ByteRange> token_aligned_ranges(const std::string& path, unsigned count);

}  // namespace embed
