#include "train/glove/record_order.h"

#include <cstring>
#include <utility>

#include "train/engine/random.h"

namespace embed {

std::string_view record_shuffle_name(RecordShuffle shuffle) { return shuffle == RecordShuffle::full ? "full" : "blocks"; }

std::optional<RecordShuffle> parse_record_shuffle(std::string_view name) {
  if (name == "full") return RecordShuffle::full;
  if (name == "blocks") return RecordShuffle::blocks;
  return std::nullopt;
}

void shuffle_records(std::span<GloveRecord> records, std::uint64_t seed, unsigned epoch) {
  Random random(seed, 0x3000000000ull + epoch);
  shuffle_records(records, random);
}

void shuffle_records(std::span<GloveRecord> records, Random& random) {
  for (std::size_t i = records.size(); i > 1; --i) {
    const std::size_t j = random.next() % i;  // modulo bias below 2^-30 for any realistic count
    std::swap(records[i - 1], records[j]);
  }
}

std::vector<std::uint64_t> block_order(std::uint64_t records, std::uint64_t seed, unsigned epoch) {
  const std::uint64_t blocks = records / kShuffleBlockRecords;
  std::vector<std::uint64_t> order(blocks);
  for (std::uint64_t b = 0; b < blocks; ++b) order[b] = b;
  if (epoch == 0) return order;
  Random random(seed, 0x3100000000ull + epoch);
  for (std::uint64_t i = blocks; i > 1; --i) std::swap(order[i - 1], order[random.next() % i]);
  return order;
}

void reorder_record_blocks(std::span<GloveRecord> records, std::uint64_t seed, unsigned from, unsigned to) {
  if (from == to) return;
  const std::vector<std::uint64_t> now = block_order(records.size(), seed, from);
  const std::vector<std::uint64_t> next = block_order(records.size(), seed, to);
  const std::size_t blocks = now.size();
  if (blocks < 2) return;
  // where[f]: the position file block f holds now; source[b]: the position whose block moves to b.
  std::vector<std::size_t> where(blocks), source(blocks);
  for (std::size_t b = 0; b < blocks; ++b) where[now[b]] = b;
  for (std::size_t b = 0; b < blocks; ++b) source[b] = where[next[b]];
  // Follow each cycle of the permutation with one block held aside.
  std::vector<GloveRecord> held(kShuffleBlockRecords);
  std::vector<bool> placed(blocks, false);
  auto block = [&](std::size_t b) { return records.data() + b * kShuffleBlockRecords; };
  const std::size_t bytes = kShuffleBlockRecords * sizeof(GloveRecord);
  for (std::size_t start = 0; start < blocks; ++start) {
    if (placed[start] || source[start] == start) continue;
    std::memcpy(held.data(), block(start), bytes);
    std::size_t at = start;
    while (source[at] != start) {
      std::memcpy(block(at), block(source[at]), bytes);
      placed[at] = true;
      at = source[at];
    }
    std::memcpy(block(at), held.data(), bytes);
    placed[at] = true;
  }
}

}  // namespace embed
