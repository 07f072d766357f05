#include "train/corpus/corpus_shards.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/ascii_space.h"
#include "core/error.h"
#include "train/engine/epoch_loop.h"

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

std::uint64_t corpus_bytes(const std::vector<CorpusFile>& files) {
  std::uint64_t bytes = 0;
  for (const CorpusFile& file : files) bytes += file.size;
  return bytes;
}

std::vector<ByteRange> token_aligned_ranges(const std::vector<CorpusFile>& files, unsigned count) {
  EMBED_ASSERT(count > 0);
  const std::uint64_t total = corpus_bytes(files);
  std::vector<ByteRange> ranges(count);
  std::uint64_t begin = 0;
  std::size_t file = 0;
  std::uint64_t file_start = 0;  // global position of files[file]
  for (unsigned i = 0; i < count; ++i) {
    // The nominal cut is where the epochs' item shards would end; a cut that falls
    // inside a token moves to the whitespace after it, or to the end of its file
    // (never back: the ranges stay in order). The last nominal cut is the corpus's end.
    const std::uint64_t nominal = std::max(begin, shard_bounds(total, i, count).second);
    while (file < files.size() && file_start + files[file].size <= nominal) file_start += files[file++].size;
    std::uint64_t end = nominal;
    if (file < files.size() && nominal > file_start) {
      const CorpusFile& f = files[file];
      std::ifstream in(f.path, std::ios::binary);
      if (!in) fail("{}: cannot open: {}", f.path, std::strerror(errno));
      end = file_start + next_space(in, f.path, nominal - file_start, f.size);
    }
    ranges[i] = {begin, end};
    begin = end;
  }
  return ranges;
}

}  // namespace embed
