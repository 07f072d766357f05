// Skip-gram's and CBOW's two tables split across the ranks of an mpirun job
// (--shard-tables), so that a vocabulary no one machine holds still trains: each rank
// keeps the rows it owns (RowShards: a row's owner follows from its number), every rank a
// copy of the `hot_rows` most frequent ones, and, during a round, the rows its batches
// touch that others own. Design and figures: ../shared/design/sharded-tables.md.
//
// A rank's tables, in local rows of the same width as one process's (vector, padding,
// optimizer state), so that the CPU backend trains them unchanged:
//   [0, hot)                 the hot rows, replicated; their vectors summed over the ranks
//                            every round (as the data-parallel rounds do), their state per rank
//   [hot, hot + share)       the rows this rank owns, in slot order (RowShards::slot)
//   [hot + share, ...)       the round's rows owned elsewhere: fetched before it trains,
//                            their changes (vector and state) added to the owners' after
//
// A round (fetch, train, push) is collective: every rank calls fetch() and push() in the
// same order, from the thread that runs MPI, with no worker training meanwhile. What a
// row owned elsewhere learns in a round reaches its owner at the round's end: staleness
// is one round. A row several ranks touch in one round takes the sum of their vectors'
// changes (Hogwild between ranks, as between the threads of one) and the mean of their
// optimizer states' changes, unless the state is a sum of steps (AdaGrad's): other states
// are not (Adam's beta powers multiply, its moments are running means), and summing the
// ranks' changes to them diverged.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "cluster/cluster.h"
#include "cluster/row_shards.h"
#include "train/ranks/rank_averaging.h"
#include "train/engine/row_matrix.h"
#include "train/word2vec/window_batch.h"
#include "train/word2vec/word2vec_layout.h"

namespace embed {

// What a sharded run has moved, for the log and the traffic model (scripts/bench/shard_model.py).
struct ShardTraffic {
  std::uint64_t rounds = 0;
  std::uint64_t rows_touched = 0;  // distinct rows past the hot ones a round touched, both tables, over the rounds
  std::uint64_t rows_fetched = 0;  // of those, the rows owned elsewhere
  std::uint64_t bytes_sent = 0;    // by this rank: ids, rows, changes and the hot rows' sums
  std::uint64_t hot_bytes = 0;     // of those, the hot rows' sums (what the all-reduce is handed)
  // Seconds a round spent inside MPI's collectives (waiting for the other ranks, and the
  // copies between them), the rest of its exchange being this rank's own work: what an
  // exchange overlapped with training could hide at most.
  double collective_seconds = 0;
};

class ShardedTables {
 public:
  // `rows` vocabulary rows in both tables, laid out as `layout` says; the first `hot_rows`
  // (at most `rows`) on every rank. Allocates this rank's share; the rows start zero.
  ShardedTables(Cluster& job, std::uint64_t rows, const Word2vecLayout& layout, std::size_t hot_rows);

  // A fresh run's rows, equal to one process's: the input vectors drawn by their row's
  // number (init_uniform_row), the output vectors zero, the state as the optimizer starts it.
  void init_fresh(std::uint64_t seed);

  std::uint64_t rows() const { return rows_; }
  std::size_t hot_rows() const { return hot_; }
  std::uint64_t share() const { return share_; }  // rows this rank owns past the hot ones
  const Word2vecLayout& layout() const { return layout_; }
  Cluster& job() const { return job_; }
  // The local tables the backend trains (see above).
  RowMatrix& input() { return tables_[0]; }
  RowMatrix& output() { return tables_[1]; }
  std::size_t row_bytes() const { return tables_[0].row_bytes(); }
  // Bytes of this rank's hot and owned rows, both tables (the round's rows come on top).
  std::uint64_t held_bytes() const;

  // The hot rows also live in `home` (a GPU backend's device rows: train/gpu), which keeps
  // them between rounds: each round's sum reads them from it and writes them back.
  void set_home(RowHome* home) { home_ = home; }

  // The round's first half: fetches the rows `batches` touch that other ranks own, and
  // rewrites every row of the batches into a local row (the input table's for inputs, the
  // output table's for targets and negatives). Collective.
  void fetch(std::span<WindowBatch* const> batches);
  // The second half, once the batches are trained: the fetched rows' changes go to their
  // owners, who add them, and the hot rows' vector changes are summed over the ranks. Collective.
  void push();

  // The vectors written when the run ends, without a rank holding the table. On rank 0:
  // a reader of `dim` values from `column` of every row (either table) in the whole
  // table's numbering, which asks the ranks for rows a block at a time; rank 0 calls
  // end_reading() when done. On the others: serve() answers its requests until then. Any
  // order of rows is allowed (a pipe's writer reads them twice).
  using RowReader = std::function<void(std::size_t row, float* out)>;
  RowReader root_reader(bool input_table, std::size_t column, std::size_t dim);
  void end_reading();
  void serve();

  // A checkpoint's shard: this rank's hot and owned rows of both tables, tagged with the
  // checkpoint's `id` (the manifest names it); load_shard refuses a shard of another
  // checkpoint, rank, job size or shape.
  void save_shard(const std::string& path, const std::string& id) const;
  void load_shard(const std::string& path, const std::string& id);

  const ShardTraffic& traffic() const { return traffic_; }

 private:
  static constexpr std::uint32_t kNone = 0, kPending = UINT32_MAX;
  std::uint64_t tail_rows() const { return rows_ - hot_; }
  // Where global row g of table t sits among this rank's local rows this round (g touched).
  std::uint32_t local_row(int t, std::uint32_t g) const { return g < hot_ ? g : local_of_[t][g] - 1; }
  void note_touched(int t, std::uint32_t g);
  void share_hot_rows();  // the tables' hot rows now are the sums' base
  void sum_hot_rows();
  void load_block(int t, std::uint64_t first);
  // A round's collective call (returning a value or not), its time added to
  // traffic_.collective_seconds.
  template <typename Call>
  decltype(auto) timed(Call call) {
    struct Clock {
      double& total;
      std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
      ~Clock() { total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
    } clock{traffic_.collective_seconds};
    return call();
  }

  Cluster& job_;
  std::uint64_t rows_;
  Word2vecLayout layout_;
  std::size_t width_;  // floats a row
  std::size_t hot_;
  std::optional<RowShards> shards_;  // of the rows past the hot ones; none when every row is hot
  std::uint64_t share_ = 0;
  RowMatrix tables_[2];     // input, output: hot, owned, round rows
  // The hot rows' vectors summed over the ranks every round, from their values as last
  // summed (equal on every rank): made once the tables hold their first values.
  std::optional<RankAveraging> hot_sums_;
  // Per table, per global row: 1 + its local row while a round touches it, else kNone;
  // the touched rows past the hot ones, to clear it.
  std::vector<std::uint32_t> local_of_[2];
  std::vector<std::uint32_t> touched_[2];
  // The round's rows owned elsewhere, per table and owner, in the order they sit in the round's rows.
  std::vector<std::vector<std::uint32_t>> wanted_[2];
  // The round's rows as each owner sent them (input rows, then output rows, in wanted_'s
  // order), kept for their changes.
  std::vector<std::vector<char>> fetched_;
  // What each rank asked this one for this round: (input ids, output ids).
  std::vector<std::vector<std::uint32_t>> asked_[2];
  // With optimizer state: per table, the rows asked for, each once (its index here), their
  // state as sent, and the sum and number of the changes to it returned.
  std::unordered_map<std::uint32_t, std::uint32_t> asked_at_[2];
  std::vector<float> sent_state_[2], state_changes_[2];
  std::vector<std::uint32_t> changed_by_[2];
  // Rank 0's block of rows being written (root_reader).
  int block_table_ = -1;
  std::uint64_t block_first_ = 0;
  std::vector<float> block_;
  ShardTraffic traffic_;
  RowHome* home_ = nullptr;
};

}  // namespace embed
