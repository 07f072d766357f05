// Which rank owns each row of a sharded table (issue 70: tables split across mpirun ranks),
// and where the row sits in its owner's share, computed rather than looked up: every rank
// agrees without a directory, and no rank holds anything the size of the whole vocabulary.
//
// Rows are numbered by frequency (row 0 the most frequent word), so contiguous ranges would
// pile the hot rows on rank 0. Rows are first permuted by p(r) = (a·r + b) mod rows, a
// bijection when a is coprime with rows; then owner = p(r) mod ranks and slot = p(r) / ranks.
// With a large odd multiplier the frequency ranks spread evenly, so each rank's share is a
// near-uniform sample of the vocabulary, heads and tails alike (../shared/design/sharded-tables.md).
// The shares' sizes differ by at most one row.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace embed {

class RowShards {
 public:
  // `rows` rows (1 to 2^32 - 1, as the word index holds) over `ranks` ranks; this process is rank `rank`.
  RowShards(std::uint64_t rows, unsigned ranks, unsigned rank);

  std::uint64_t rows() const { return rows_; }
  unsigned ranks() const { return ranks_; }
  unsigned rank() const { return rank_; }

  unsigned owner(std::uint64_t row) const { return static_cast<unsigned>(permuted(row) % ranks_); }
  bool owned(std::uint64_t row) const { return owner(row) == rank_; }
  // Where an owned row sits in its owner's share: 0 .. share(owner) - 1.
  std::uint64_t slot(std::uint64_t row) const { return permuted(row) / ranks_; }
  // How many rows rank `r` owns.
  std::uint64_t share(unsigned r) const { return (rows_ - r + ranks_ - 1) / ranks_; }
  // The row at `slot` of rank `r`'s share (the inverse of owner and slot).
  std::uint64_t row_at(unsigned r, std::uint64_t slot) const;

  // The rows among `touched` that this rank does not own, each once, grouped by owner (in
  // rank order, ascending within an owner); counts[r] of them belong to rank r. What a round
  // fetches before training and pushes deltas for after.
  struct Remote {
    std::vector<std::uint64_t> rows;
    std::vector<std::uint64_t> counts;  // per rank; 0 for this one
  };
  Remote remote_rows(std::span<const std::uint64_t> touched) const;

 private:
  std::uint64_t permuted(std::uint64_t row) const;

  std::uint64_t rows_;
  unsigned ranks_, rank_;
  std::uint64_t multiplier_, offset_, inverse_;  // p(r) = (multiplier·r + offset) mod rows; inverse: multiplier⁻¹
};

}  // namespace embed
