// Where every rank of a data-parallel run (mpirun) stands, as one state: a checkpoint of
// an N-rank job holds N x threads workers, rank r's threads being workers r*threads ..,
// so that rank 0 can save the whole job and each rank of a resumed job take its own.
#pragma once

#include "cluster/cluster.h"
#include "train/engine/epoch_loop.h"

namespace embed {

// Every rank's workers (shards, positions, random streams) in rank order, and the
// epoch's loss summed over the ranks. Collective: every rank calls it, and gets the
// same state. The tables must already be equal (the ranks' last round shared every row).
TrainState gather_rank_states(Cluster& job, const TrainState& mine);

// Rank `rank`'s part of a state gather_rank_states made for `ranks` ranks: its workers,
// and (rank 0 only, so that the ranks' sum stays the job's) the epoch's loss so far.
TrainState rank_share(const TrainState& job_state, unsigned rank, unsigned ranks);

}  // namespace embed
