// How many corpus words a rank of a sharded run (--shard-tables) plans between two rounds
// when --sync-words does not say: the choice between fewer, cheaper exchanges, the ranks'
// summed changes overshooting, and the memory a round's fetched rows take.
#pragma once

#include <cstdint>

#include "train/corpus/corpus.h"
#include "train/run/train_settings.h"
#include "train/shards/sharded_tables.h"

namespace embed {

// A 32nd of a rank's share of an epoch, at most 65,536 / (N - 1)^3 words, halved until the
// round's rows owned elsewhere are expected to fit 4% of the rank's share of the tables (at
// least 64 MB); never below 1,024. The measurements behind each bound are in round_words.cpp.
std::uint64_t shard_round_words(const TrainSettings& s, const ShardedTables& tables, const Corpus& corpus);

}  // namespace embed
