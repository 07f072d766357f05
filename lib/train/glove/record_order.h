// The order each epoch walks GloVe's co-occurrence records in. It is a function of the
// records file's order (epoch 0's: records_file.h), the seed and the epoch, never of
// the epochs before, so that a checkpoint needs only the epoch to resume and records
// streamed from disk can follow the same rule as records in memory.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "train/engine/random.h"
#include "train/glove/glove_layout.h"

namespace embed {

// How the records are reordered between epochs: `full`, a Fisher-Yates shuffle of
// them all (records in memory, on the CPU); `blocks`, a permutation of whole blocks of
// kShuffleBlockRecords (the GPU, which trains an epoch faster than the CPU reshuffles
// records one by one, and records streamed from disk, which are read a block at a time).
// Inside a block the records keep the file's order, as Stanford GloVe's records keep
// the order of its one `shuffle` pass for every epoch.
enum class RecordShuffle { full, blocks };

// "full" or "blocks", for checkpoints and logs; nullopt for anything else.
std::string_view record_shuffle_name(RecordShuffle shuffle);
std::optional<RecordShuffle> parse_record_shuffle(std::string_view name);

// Records per block: 1 MB.
inline constexpr std::size_t kShuffleBlockRecords = 1 << 16;

// A Fisher-Yates shuffle of `records` drawn from (seed, epoch). Epoch 0's shuffle is the
// one that puts counted records (sorted) in a random order; for epoch e > 0, `records`
// must be in the file's order.
void shuffle_records(std::span<GloveRecord> records, std::uint64_t seed, unsigned epoch);
// The same shuffle drawn from `random` (the on-disk shuffle's pieces have streams of their own).
void shuffle_records(std::span<GloveRecord> records, Random& random);

// Under `blocks`: which block of the file each block position of epoch `epoch` holds,
// for `records` records. Epoch 0 is the file's order; a partial last block stays last
// (it is not in the list).
std::vector<std::uint64_t> block_order(std::uint64_t records, std::uint64_t seed, unsigned epoch);

// Moves records in memory from the block order of epoch `from` to that of epoch `to`,
// in place, at copy speed.
void reorder_record_blocks(std::span<GloveRecord> records, std::uint64_t seed, unsigned from, unsigned to);

}  // namespace embed
