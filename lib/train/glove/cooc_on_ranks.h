// GloVe's co-occurrence counting over the ranks of a data-parallel job (mpirun): each
// rank counts its token-aligned share of the corpus bytes, sends each count to the rank
// that owns its row (row mod ranks: rows are numbered most frequent first, so every rank
// gets frequent and rare rows alike), and merges what it receives. No rank holds all the
// counts: each ends with its partition of the job's, which it trains on.
//
// A window does not reach across the boundary between two ranks' shares (at most
// window x window pairs per boundary are left out, next to the tens of millions counted),
// as it does not across a line end.
#pragma once

#include <cstdint>
#include <functional>

#include "cluster/cluster.h"
#include "train/glove/cooc_counter.h"

namespace embed {

// The rank that trains the counts of `row`.
inline unsigned cooc_row_owner(std::uint32_t row, unsigned ranks) { return row % ranks; }

// As count_cooccurrences (cooc_counter.h) for this rank's partition of the job's counts:
// `emit` gets the counts whose row this rank owns, summed over every rank's share of the
// corpus (in rank order), sorted by (row, column), each pair once. `stats` are this
// rank's counting's. Collective: every rank of `job` calls it. The counts a rank sends
// and receives are held in memory while they are exchanged (12 bytes each).
std::uint64_t count_cooccurrences_on_ranks(const Corpus& corpus, CoocOptions options, CoocStats& stats, Cluster& job,
                                           const std::function<void(std::uint64_t at_most)>& begin,
                                           const std::function<void(const CoocEntry&)>& emit);

}  // namespace embed
