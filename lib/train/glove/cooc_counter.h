// Counting co-occurrences within a memory budget, as Stanford GloVe's `cooccur` does.
//
// With the vocabulary sorted by frequency (row 0 the most frequent word), the pairs of
// frequent words, (a+1)(b+1) <= P, are counted in a dense table of doubles: that
// hyperbola holds most of the pair occurrences in a few megabytes. Every other pair is
// appended to a buffer; a full buffer is radix-sorted and its repeated pairs summed,
// and if that does not free half of it, it is spilled to a temporary file as a sorted
// run. At the end the dense table, the buffer and the runs are merged into one sorted
// stream (k-way, in several passes when there are many runs), which the caller stores
// as it likes: training records in memory, a counts file on disk.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "train/glove/cooc.h"
#include "train/glove/cooc_runs.h"

namespace embed {

struct Corpus;

struct CoocOptions {
  std::size_t window = 10;                  // context words on each side (or on the left only)
  bool symmetric = true;                    // false: only the words to the left of a word are its context
  std::uint64_t memory_bytes = 1ull << 30;  // for the counting tables, buffers, merge readers and what the caller keeps
  std::string temporary_directory;          // for spilled runs; empty: $TMPDIR or /tmp
  std::size_t bytes_per_merged_entry = 0;   // what the caller keeps of each merged count (in the budget)
  std::size_t buffer_entries = 0;           // the pair buffer's size; 0: from memory_bytes (tests set a
                                            // tiny one to force spills and multi-pass merges)
  std::size_t words_per_piece = 1 << 20;    // the corpus is counted in pieces of a line at most this long
                                            // (tests set a tiny one to cut lines into many pieces)
  // The bytes of the corpus files to count, [first_byte, end_byte) on token boundaries
  // (a rank's share under mpirun); end_byte 0: all of them.
  std::uint64_t first_byte = 0, end_byte = 0;
};

// What counting did, for the log and the benchmarks.
struct CoocStats {
  std::uint64_t pairs = 0;         // (word, context) occurrences counted
  std::uint64_t dense_cells = 0;   // size of the dense table
  std::uint64_t dense_pairs = 0;   // occurrences that landed in it
  std::uint64_t spilled_runs = 0;  // sorted runs written to disk
  std::uint64_t merge_passes = 0;  // extra passes over the disk (many runs)
  double counting_seconds = 0;
  double merging_seconds = 0;
};

// The smallest budget counting works in, for `vocab_size` words.
std::uint64_t min_cooc_memory(std::size_t vocab_size);

class CoocCounter {
 public:
  // `corpus_words` (the ids to come, 0 if unknown) sizes the dense table: no larger
  // than the pairs could fill. Throws embed::Error when options.memory_bytes is below
  // min_cooc_memory.
  CoocCounter(std::size_t vocab_size, std::uint64_t corpus_words, const CoocOptions& options);

  // Counts the pairs whose word is line[first, last), with the context words before
  // it in `line` (word ids, rows of the vocabulary): the window does not cross line
  // ends, as Stanford's cooccur resets it at a newline. A line may come in pieces.
  void add_words(std::span<const std::uint32_t> line, std::size_t first, std::size_t last);

  // Ends the counting: merges the counts and hands them to `emit` sorted by (row,
  // column), each pair once, after telling `begin` how many there are at most. Returns
  // how many there were. Nothing of the merged list is held here.
  std::uint64_t finish(const std::function<void(std::uint64_t at_most)>& begin,
                       const std::function<void(const CoocEntry&)>& emit);

  const CoocStats& stats() const { return stats_; }

 private:
  void add(std::uint32_t a, std::uint32_t b, float weight);
  void buffer_full();
  void spill(std::span<const CoocEntry> sorted);
  std::uint64_t dense_nonzeros() const;
  std::unique_ptr<SortedEntries> dense_source() const;
  void release_tables();
  std::uint64_t merge(std::vector<std::unique_ptr<SortedEntries>> sources, std::uint64_t at_most,
                      const std::function<void(std::uint64_t)>& begin, const std::function<void(const CoocEntry&)>& emit);
  std::span<CoocEntry> buffered() { return {buffer_.get(), buffered_}; }
  std::vector<std::unique_ptr<SortedEntries>> runs_to_merge(std::uint64_t& at_most);

  std::size_t vocab_size_;
  CoocOptions options_;
  std::vector<float> weights_;                                             // 1/distance, by distance
  std::vector<std::uint64_t> dense_row_;                                   // where row a's cells start in dense_
  std::vector<std::uint32_t> dense_cols_;                                  // how many columns row a has in dense_
  std::unique_ptr<double[], void (*)(void*)> dense_{nullptr, &std::free};  // calloc'd: untouched pages cost nothing
  // malloc'd, so that only the part used is ever touched (resident).
  std::unique_ptr<CoocEntry[], void (*)(void*)> buffer_{nullptr, &std::free}, scratch_{nullptr, &std::free};
  std::size_t capacity_ = 0;
  std::size_t buffered_ = 0;
  std::vector<SpillRun> runs_;
  CoocStats stats_;
};

// Counts the co-occurrences of a whole corpus, showing progress on a terminal, and
// hands them to `emit` as CoocCounter::finish does. Returns how many there were.
std::uint64_t count_cooccurrences(const Corpus& corpus, const CoocOptions& options, CoocStats& stats,
                                  const std::function<void(std::uint64_t at_most)>& begin,
                                  const std::function<void(const CoocEntry&)>& emit);
// The same, collected in a vector (for tests and small corpora).
std::vector<CoocEntry> count_cooccurrences(const Corpus& corpus, const CoocOptions& options, CoocStats& stats);

}  // namespace embed
