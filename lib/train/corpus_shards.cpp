#include "train/corpus_shards.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include "core/ascii_space.h"
#include "core/error.h"
#include "train/epoch_loop.h"

namespace embed {
namespace {

// The first position at or after `from` that holds whitespace, or `size`: reads
// forward in blocks, since a token can be as long as the file.
std::uint64_t next_space(std::ifstream& in, const std::string& path, std::uint64_t from, std::uint64_t size) {
  constexpr std::size_t kBlock = 64 * 1024;
  std::vector<char> block(kBlock);
  std::uint64_t position = from;
  while (position < size) {
    in.clear();
    in.seekg(static_cast<std::streamoff>(position));
    const auto wanted = static_cast<std::streamsize>(std::min<std::uint64_t>(kBlock, size - position));
    in.read(block.data(), wanted);
    if (in.gcount() != wanted) fail("{}: cannot read at byte {}: {}", path, position, std::strerror(errno));
    for (std::streamsize i = 0; i < wanted; ++i) {
      if (is_ascii_space(static_cast<unsigned char>(block[static_cast<std::size_t>(i)]))) return position + i;
    }
    position += static_cast<std::uint64_t>(wanted);
  }
  return size;
}

}  // namespace

std::vector<ByteRange> token_aligned_ranges(const std::string& path, unsigned count) {
  EMBED_ASSERT(count > 0);
  std::error_code error;
  const std::uint64_t size = std::filesystem::file_size(path, error);
  if (error) fail("{}: cannot read: {}", path, error.message());
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot open: {}", path, std::strerror(errno));
  std::vector<ByteRange> ranges(count);
  std::uint64_t begin = 0;
  for (unsigned i = 0; i < count; ++i) {
    // The nominal cut is where the epochs' item shards would end; a cut that falls
    // inside a token moves to the whitespace after it (never back: the ranges stay in
    // order). The last nominal cut is the end of the file.
    const std::uint64_t nominal = shard_bounds(size, i, count).second;
    const std::uint64_t end = next_space(in, path, std::max(begin, nominal), size);
    ranges[i] = {begin, end};
    begin = end;
  }
  return ranges;
}

}  // namespace embed
