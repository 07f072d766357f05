#include "train/glove/cooc_on_ranks.h"

#include <chrono>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

#include "core/error.h"
#include "train/corpus/corpus.h"
#include "train/corpus/corpus_shards.h"

namespace embed {

std::uint64_t count_cooccurrences_on_ranks(const Corpus& corpus, CoocOptions options, CoocStats& stats, Cluster& job,
                                           const std::function<void(std::uint64_t at_most)>& begin,
                                           const std::function<void(const CoocEntry&)>& emit) {
  const unsigned ranks = job.size();
  const ByteRange share = token_aligned_ranges(corpus.files, ranks)[job.rank()];
  options.first_byte = share.begin;
  options.end_byte = share.end;
  // An empty share (a corpus of fewer tokens than ranks) counts nothing but still exchanges.
  std::vector<std::vector<char>> to_each(ranks);
  if (share.end > share.begin) {
    count_cooccurrences(
        corpus, options, stats, [](std::uint64_t) {},
        [&](const CoocEntry& e) {
          std::vector<char>& out = to_each[cooc_row_owner(e.row, ranks)];
          const auto* bytes = reinterpret_cast<const char*>(&e);
          out.insert(out.end(), bytes, bytes + sizeof e);
        });
  }
  const auto exchange_start = std::chrono::steady_clock::now();
  const std::vector<std::vector<char>> received = job.all_to_all(std::move(to_each));

  // Each rank's counts came sorted: a merge of `ranks` sorted lists, equal pairs summed in
  // rank order (the same sum on any run).
  std::vector<std::span<const CoocEntry>> lists;
  std::uint64_t at_most = 0;
  for (const std::vector<char>& part : received) {
    EMBED_ASSERT(part.size() % sizeof(CoocEntry) == 0);
    lists.emplace_back(reinterpret_cast<const CoocEntry*>(part.data()), part.size() / sizeof(CoocEntry));
    at_most += lists.back().size();
  }
  begin(at_most);
  std::vector<std::size_t> next(lists.size(), 0);
  std::uint64_t merged = 0;
  for (;;) {
    std::uint64_t key = std::numeric_limits<std::uint64_t>::max();
    for (std::size_t r = 0; r < lists.size(); ++r) {
      if (next[r] < lists[r].size()) key = std::min(key, cooc_key(lists[r][next[r]]));
    }
    if (key == std::numeric_limits<std::uint64_t>::max()) break;
    CoocEntry sum{static_cast<std::uint32_t>(key >> 32), static_cast<std::uint32_t>(key), 0.0f};
    for (std::size_t r = 0; r < lists.size(); ++r) {
      if (next[r] < lists[r].size() && cooc_key(lists[r][next[r]]) == key) sum.count += lists[r][next[r]++].count;
    }
    emit(sum);
    ++merged;
  }
  stats.merging_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - exchange_start).count();
  return merged;
}

}  // namespace embed
