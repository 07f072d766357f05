// Host-resident tables on a GPU: a batch trains on a compact copy of just the rows it
// touches, apart from the hot rows (the tables' first rows, kept in GPU memory:
// gpu_plan.h; with --subwords, as many of each table as most_touched_rows says, the input
// table's n-gram buckets among them: hot_rows.h). RowRemapper lists the other
// rows, each once (in first-use order), and rewrites the batch to index them: a hot row
// becomes its place among its table's hot rows (a first row keeps its id), the k-th
// listed row becomes the table's hot rows + k (the kernels' SplitTable reads ids so);
// gather_rows fills the copy and scatter_deltas adds what training changed back into the
// host table. The write-back adds deltas rather than storing values, so batches in
// flight at once (whose copies were taken before each other's write-back) lose no
// updates: the adds commute, as Hogwild's do. A row no other batch wrote since the
// gather (row_versions.h counts the writes) is stored whole, which is the same sum.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "format/dtype.h"
#include "train/engine/row_matrix.h"
#include "train/glove/glove_layout.h"
#include "train/gpu/hot_rows.h"
#include "train/gpu/row_locks.h"
#include "train/gpu/row_versions.h"
#include "train/word2vec/subword_rows.h"
#include "train/word2vec/window_batch.h"

namespace embed {

// --subwords: the words of a batch whose rows are averaged, numbered in first-use order,
// each with its input rows as local ids: word k's are rows[offsets[k], offsets[k + 1]),
// and gains[k] its SubwordRows::gain.
struct LocalWordRows {
  std::vector<std::uint32_t> offsets{0};
  std::vector<std::uint32_t> rows;
  std::vector<float> gains;

  std::size_t words() const { return gains.size(); }
  void clear() {
    offsets.assign(1, 0);
    rows.clear();
    gains.clear();
  }
};

// A batch over local rows: id hot_rows + k is input_rows[k] of the table, a smaller
// id the hot row itself.
struct LocalBatch {
  WindowBatch batch;                       // the same windows, ids local
  std::vector<std::uint32_t> input_rows;   // unique rows of the input table
  std::vector<std::uint32_t> output_rows;  // unique rows of the output table (targets, negatives)
  LocalWordRows words;                     // --subwords (remap_subwords), else empty
};

// GloVe's block of records over local rows: record k's row indexes word_rows, its
// column context_rows.
struct LocalGloveBlock {
  std::vector<GloveRecord> records;
  std::vector<std::uint32_t> word_rows;     // unique rows of W
  std::vector<std::uint32_t> context_rows;  // unique rows of W̃
};

class RowRemapper {
 public:
  // Both tables' hot rows are their first `hot_rows`.
  RowRemapper(std::size_t table_rows, std::size_t hot_rows);
  // --subwords: the input table's hot rows are its first hot.input_words rows, then
  // hot.input_buckets; the output table's its first hot.output_rows.
  RowRemapper(std::size_t table_rows, const HotRows& hot);
  // Each returns how many of the batch's row touches were of hot rows (table_traffic.h).
  std::uint64_t remap(const WindowBatch& batch, LocalBatch& local) { return remap(batch, 0, batch.windows(), local); }
  // Windows [first, end) of `batch` only, as a batch of their own.
  std::uint64_t remap(const WindowBatch& batch, std::size_t first, std::size_t end, LocalBatch& local);
  // Where the run of windows from `first` (at least one) must end for its copied rows to
  // fit a slot of `max_input_rows` and `max_output_rows`: the batch's end when they do.
  // A slot is planned for the rows batches usually copy, not for every touch being a
  // copied row of its own, and the rare batch that lists more trains in parts.
  std::size_t windows_within(const WindowBatch& batch, std::size_t first, std::size_t max_input_rows,
                             std::size_t max_output_rows);
  // The input table is GloVe's W, the output table W̃.
  std::uint64_t remap(std::span<const GloveRecord> records, LocalGloveBlock& local);

  // --subwords: windows [first, end) of `batch` as a batch of their own, the words whose
  // input rows are averaged (skip-gram's targets, the centres; CBOW's inputs, the bag)
  // rewritten as local word numbers into local.words, whose lists hold their rows as
  // local input rows; the other ids (skip-gram's inputs and negatives, CBOW's targets and
  // negatives) are output rows. Returns how many of the rows listed and the output ids
  // were hot (table_traffic.h).
  std::uint64_t remap_subwords(const WindowBatch& batch, std::size_t first, std::size_t end, const SubwordRows& subwords,
                               bool skipgram, LocalBatch& local);
  // Where the run of windows from `first` (at least one) must end for its copied rows, and
  // its words and their listed rows, to fit a slot (max_input_rows, max_output_rows,
  // max_words, max_listed); the batch's end when they do.
  std::size_t subword_windows_within(const WindowBatch& batch, std::size_t first, const SubwordRows& subwords, bool skipgram,
                                     std::size_t max_input_rows, std::size_t max_output_rows, std::size_t max_words,
                                     std::size_t max_listed);

 private:
  // Local slot of each table row in the batch being remapped; kUnused elsewhere
  // (reset after each batch by walking the rows used, not the whole table).
  static constexpr std::uint32_t kUnused = ~std::uint32_t{0};
  static constexpr std::uint32_t kCounted = kUnused - 1;  // the windows_within functions' marks
  // A hot bucket's slot holds its hot place for good (below hot_inputs_, where a copied
  // row's local id is hot_inputs_ or more).
  std::vector<std::uint32_t> input_slot_;
  std::vector<std::uint32_t> output_slot_;
  std::uint32_t hot_inputs_ = 0, hot_outputs_ = 0;               // each table's hot rows
  std::uint32_t hot_first_inputs_ = 0;                           // of the input table's, its first rows' (the output's are all)
  std::vector<std::uint32_t> counted_inputs_, counted_outputs_;  // windows_within's marks, to clear
  // --subwords: each vocabulary word's local number in the batch being remapped, or kUnused
  // (sized on first use), and the words numbered or counted, to clear.
  std::vector<std::uint32_t> word_slot_;
  std::vector<std::uint32_t> words_used_;

  // The windows_within functions' count: `row`, unless hot or already counted, marked in
  // `slot` and listed in `counted`; and window w's negatives so, as output rows.
  void count(std::uint32_t row, std::vector<std::uint32_t>& slot, std::vector<std::uint32_t>& counted) const;
  void count_negatives(const WindowBatch& batch, std::size_t w);

  // Windows [first, end)'s offsets, targets, inputs and negatives copied into local.batch
  // as they are (remap rewrites them), and local's row lists cleared.
  void copy_windows(const WindowBatch& batch, std::size_t first, std::size_t end, LocalBatch& local) const;

  // The hot rows of the table whose slots `slot` are, and of them its first rows'.
  std::uint32_t hot_rows(const std::vector<std::uint32_t>& slot) const {
    return &slot == &input_slot_ ? hot_inputs_ : hot_outputs_;
  }
  std::uint32_t hot_first_rows(const std::vector<std::uint32_t>& slot) const {
    return &slot == &input_slot_ ? hot_first_inputs_ : hot_outputs_;
  }
  // `row`'s local id (counting it in `hot` when it is a hot row's).
  std::uint32_t local_row(std::uint32_t row, std::vector<std::uint32_t>& slot, std::vector<std::uint32_t>& rows,
                          std::uint64_t& hot) const;
};

// Copies table rows `rows` (stride floats each) into `out`, converted to `storage`
// (f32, f16 or bf16), at the table's stride. An f16 table (row_matrix.h) is staged in f16.
// With `versions`, records in seen[k] the count each row had when it was copied
// (row_versions.h), for scatter_deltas.
void gather_rows(const RowMatrix& table, std::span<const std::uint32_t> rows, DType storage, void* out,
                 const RowVersions* versions = nullptr, std::uint16_t* seen = nullptr);

// table[rows[k]] += updated[k] - original[k], both in `storage` at the table's stride
// (an f16 table's: f16, each element's sum in f32 rounded to nearest once).
// With `locks`, each row's adds hold its stripe, so threads that scatter into the same
// rows at once lose nothing (row_locks.h); without, the caller must be the only writer.
// With `versions` (and `locks`) and the counts `seen` that gather_rows recorded, a row
// that no scatter wrote since its gather becomes updated[k] instead (widened into an f32
// table): the same row, read from one copy instead of three. Every other writer of the
// table's rows meanwhile must count its writes there too. Returns how many rows were
// set so.
std::size_t scatter_deltas(RowMatrix& table, std::span<const std::uint32_t> rows, DType storage, const void* updated,
                           const void* original, RowLocks* locks = nullptr, RowVersions* versions = nullptr,
                           const std::uint16_t* seen = nullptr);

// scatter_deltas' adds for the rows at the indexes `at` lists only (rows[at[j]], whose
// copies lie at index at[j] of `updated` and `original`), each under its stripe lock: the
// rows whose change a mapped write-back leaves to the CPU (host_tables.h).
void add_deltas_at(RowMatrix& table, std::span<const std::uint32_t> rows, std::span<const std::uint32_t> at, DType storage,
                   const void* updated, const void* original, RowLocks& locks);

}  // namespace embed
