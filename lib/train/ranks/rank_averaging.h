// Sharing the tables between the ranks of a data-parallel run (mpirun), after Intel's
// pWord2Vec (Ji et al. 2016, "Parallelizing Word2Vec in Shared and Distributed Memory"):
// every rank trains Hogwild on its share of the corpus, and between the ranks the rows
// are synchronised by frequency rank, the most frequent ones often, rarer ones
// exponentially less often, and all of them when an epoch ends. Rows are numbered most
// frequent first, so a frequency rank is a row index.
//
// A round sums the ranks' updates since the last round rather than averaging the rows:
// an average divides every rank's progress by the number of ranks, so that N ranks on
// 1/N of the corpus each would learn as one process on 1/N of it.
//
// Round i (from 1) averages rows [0, hot_rows) and each band [hot_rows * 2^(j-1),
// hot_rows * 2^j) whose period 2^j divides i: rarer rows move less between rounds, and
// every row is reached within as many rounds as the vocabulary is times hot_rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "train/engine/epoch_loop.h"
#include "train/engine/row_matrix.h"

namespace embed {

// What rows a round averages: [first, end) ranges, most frequent first.
struct RowSpan {
  std::size_t first = 0, end = 0;
  bool operator==(const RowSpan&) const = default;
};
std::vector<RowSpan> rows_of_round(std::uint64_t round, std::size_t rows, std::size_t hot_rows);

class RankAveraging;

// Where a shared table's rows live besides the host table while the workers run: a GPU
// backend's device-resident rows (all of them, or host placement's hot rows). A round
// brings its rows into the host tables before it reads them and hands its changes back;
// rows a backend does not hold elsewhere are left alone.
class RowHome {
 public:
  virtual ~RowHome() = default;
  // Copies its copy of `table`'s rows [first, end) into `table`.
  virtual void rows_to_host(RowMatrix& table, std::size_t first, std::size_t end) = 0;
  // Adds `added` ((end - first) rows of table.stride() floats) to its copy of those rows,
  // on top of what the workers write meanwhile.
  virtual void add_to_rows(const RowMatrix& table, std::size_t first, std::size_t end, std::span<const float> added) = 0;
  // Sets its copy of those rows to `table`'s (no worker running).
  virtual void rows_from_host(const RowMatrix& table, std::size_t first, std::size_t end) = 0;
  // The rounds will also add to the host tables' rows that it does not hold, while its
  // workers write theirs (called before they start).
  virtual void host_rows_shared() {}
};

// The ranks' agreement at a round: their reports summed (Cluster::sum_round, so that a rank
// whose workers are done waits asleep). Collective.
RankAgreement agree(Cluster& job, const RankReport& report);

// The EpochTask::sync_ranks of a run whose tables `averaging` shares: the ranks sum their
// reports (workers done, stop, items), then average a round's rows, or every row once all
// workers are done.
std::function<RankAgreement(const RankReport&)> rank_sync(Cluster& job, RankAveraging& averaging);

class RankAveraging {
 public:
  // `tables` (all of the same dim; rows counted from the most frequent word's, a table
  // may have more than another: --subwords' bucket rows, shared as its rarest) are
  // averaged together; they must start equal on every rank. The tables from `first_settled_only` on are shared by all() alone: a
  // table whose every row changes on one rank only and is read there only (GloVe's W,
  // whose rows belong to the ranks) need not move while the workers run.
  // `shared_floats` (0: the whole row) are the floats at the start of a row that the ranks
  // sum: the vector (and bias), and the optimizer's state where it is a sum of steps
  // (AdaGrad's); a state that is not (a running mean, a power, a step size) stays each
  // rank's, since summing the ranks' changes to it diverges (RMSprop, AdamW, Adadelta and
  // Rprop learnt 0 of 50 planted-topic neighbours on 2 ranks so; issue 70).
  // Only the first `shared_rows` rows of each table are shared (--shard-tables' hot rows:
  // the rows past them are each rank's own), and only they are kept as bases.
  RankAveraging(Cluster& job, std::vector<RowMatrix*> tables, std::size_t hot_rows, std::size_t first_settled_only = SIZE_MAX,
                std::size_t shared_floats = 0, std::size_t shared_rows = SIZE_MAX);

  // The tables' rows also live in `home` (a GPU backend's), which every round reads and
  // writes through.
  void set_home(RowHome* home) {
    home_ = home;
    if (home_) home_->host_rows_shared();
  }

  // The next round's rows (rows_of_round), averaged over the ranks.
  void round();
  // Every row, with no worker running: the ranks leave with equal tables.
  void all();

  std::uint64_t rounds() const { return round_; }
  // For the -v log and the benchmark: "N rounds between the ranks (S s of sharing), X sent by
  // this rank (B bytes)".
  std::string summary() const;

 private:
  // Shares rows [first, end) of every table: each rank sends what it learned since they
  // were last shared (row - base), and every rank adds all ranks' sums to the base, so
  // that no rank's updates are lost or divided (as Hogwild threads within one process
  // add theirs). While workers run (not `settled`), this rank's updates made during the
  // exchange stay on top; settled, the rows become the new base, equal on every rank.
  void average(std::size_t first, std::size_t end, bool settled);
  std::size_t most_rows() const;  // of any table

  Cluster& job_;
  std::vector<RowMatrix*> tables_;
  std::size_t hot_rows_;
  std::size_t first_settled_only_;
  std::size_t shared_floats_;  // of each row, from its start
  std::size_t shared_rows_;    // of each table, from its start
  std::uint64_t round_ = 0;
  double seconds_ = 0;            // spent sharing, on the training loop's thread
  std::vector<RowMatrix> bases_;  // per table: the rows as last shared (equal on every rank)
  std::vector<float> sent_, summed_;
  RowHome* home_ = nullptr;
  std::vector<float> added_;  // for home_: one table's rows, at its stride
};

}  // namespace embed
