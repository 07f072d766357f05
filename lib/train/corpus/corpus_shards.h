// Byte ranges of a corpus, one per worker: each worker of an epoch reads its own
// contiguous range from disk, as fastText's threads do. Positions are global: the
// corpus files laid end to end, file i starting where file i-1 ends.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "train/corpus/corpus.h"
#include "train/engine/epoch_loop.h"

namespace embed {

// [begin, end) in bytes: a worker's shard of the corpus.
using ByteRange = PositionRange;

// The corpus's bytes: the sum of its files' sizes.
std::uint64_t corpus_bytes(const std::vector<CorpusFile>& files);

// Cuts `files` into `count` contiguous ranges covering them, nominally of equal size,
// each cut moved forward to the next ASCII whitespace byte or the end of a file. No
// token straddles a cut, so tokenizing the ranges one by one gives the corpus's tokens
// exactly once, in order. A range can be empty (a token longer than a range, or a
// corpus smaller than `count` bytes). Throws embed::Error when a file cannot be read.
std::vector<ByteRange> token_aligned_ranges(const std::vector<CorpusFile>& files, unsigned count);

}  // namespace embed
