// How a GPU run spends device memory, decided before anything is allocated so that a
// run that cannot fit fails with the sizes and what to change, never with a CUDA
// error code. Plain C++, unit-tested without a GPU.
//
// Device placement keeps both tables on the GPU; host placement keeps them in pinned
// host memory and gives each batch in flight a slot holding a copy of the rows it
// touches. Each worker has up to two slots (double buffering: it plans and gathers the
// next batch while the GPU trains the last); when memory is short the batches shrink
// (to kMinBatchWords) before the slots drop to one, and only then do the tables
// leave the device.
//
// Host placement gives the batches at most half the budget when they fit in it, and
// the rest to the hot rows: the first rows of both tables (the count-sorted
// vocabulary's most frequent words), kept in GPU memory for the whole run and trained
// there in place by every batch. Only the other rows are copied per batch. Copies
// taken by batches in flight at once do not see each other's changes (their deltas
// all land, but each was computed from the same old row), which a frequent word's row
// cannot afford: measured on an H100, skip-gram with every row copied climbed to a
// loss of 17.8 where the CPU reached 2.6; rare words' rows rarely meet in flight.
//
// With --subwords a vocabulary's words list only some of the n-gram buckets (text8-head's
// 15,440 words, 93,089 of 2M), so every row the batches can touch may fit as a hot row
// where the tables do not: then all of them are hot (hot_rows.h), nothing is
// copied, and the slots hold only a window's rows, so that the batches keep their length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/dtype.h"

namespace embed {

enum class TablePlacement { automatic, host, device };
// How host-resident rows reach the GPU: CPU threads gather them into pinned staging
// buffers that are copied (gather), or kernels read and write the pinned table through
// its mapped device address (mapped).
enum class HostTransfer { gather, mapped };

std::string_view table_placement_name(TablePlacement placement);  // "auto", "host", "device"
std::optional<TablePlacement> parse_table_placement(std::string_view name);
std::string_view host_transfer_name(HostTransfer transfer);  // "gather", "mapped"
std::optional<HostTransfer> parse_host_transfer(std::string_view name);
std::vector<std::string> table_placement_names();
std::vector<std::string> host_transfer_names();

struct GpuOptions {
  TablePlacement table = TablePlacement::automatic;
  HostTransfer transfer = HostTransfer::gather;
  // Host placement: at most this many hot rows (the tests use it to try every mix of
  // hot and copied rows).
  std::size_t max_hot_rows = SIZE_MAX;
  // Host placement: the share of the budget the batches' slots may take when they fit in
  // it; the hot rows get the rest. For measuring the split (EMBED_HOST_BATCH_SHARE).
  double batch_share = 0.5;
};

// Host placement's share of the GPU budget for the batches (GpuOptions::batch_share):
// EMBED_HOST_BATCH_SHARE, a fraction in (0, 1), for measuring the split between batches
// and hot rows (scripts/bench/big_table.sh's f16s runs; logged), else `plain`. Throws
// embed::Error for anything else.
double host_batch_share(double plain);

// What the run trains: the tables and the batch shape.
struct GpuTrainShape {
  std::size_t rows = 0;  // vocabulary size (rows of each table)
  std::size_t dim = 0;
  std::size_t stride = 0;  // floats per row: the vector padded (RowMatrix::stride_for), then the state
  std::size_t state = 0;   // of which the optimizer's state (Word2vecLayout; f32 storage only)
  DType storage = DType::f32;
  // Host placement with f16 host tables (row_matrix.h): the hot rows travel between host
  // and GPU as stored, with no f32 conversion buffer on the GPU (DeviceTables' put/get).
  bool half_host_tables = false;
  std::size_t max_inputs_per_window = 0;  // 2 × window
  std::size_t negatives = 0;
  unsigned workers = 1;
  std::string smaller_state = {};  // as GloveGpuShape's
  // --subwords: the input table's n-gram bucket rows after the vocabulary's, the row ids
  // the words list (SubwordRows::listed), which device placement keeps on the GPU with
  // their offsets and gains (host placement ships a batch's words' lists with it), the
  // longest word's list, and skip-gram's negatives, drawn per (centre, context) pair.
  std::size_t bucket_rows = 0;
  std::size_t subword_ids = 0;
  // --subwords: the input table's rows the words list (their own and their buckets',
  // each once), or 0 if not known. Host placement may keep all of them hot, with the
  // output table's, where the tables do not fit (gpu_plan.cpp's choose_plan).
  std::size_t listed_input_rows = 0;
  std::size_t longest_word_rows = 0;
  bool negatives_per_input = false;
  // Summed steps (train/word2vec/summed_steps.h): windows per step, or 0. The GPU then
  // keeps a sum of the padded vector's floats per row id its kernels see, and two
  // uint32 to list it (kernels/train/summed_kernels.h).
  std::size_t summed_windows = 0;
  // Under mpirun (data parallel): the rounds add the ranks' summed changes to the rows on
  // the GPU through an f32 buffer of up to kTransferBufferBytes, made before training.
  bool rank_rounds = false;
};

// GloVe's tables: f32 rows of vector, bias and optimizer state (GloveLayout::width).
struct GloveGpuShape {
  std::size_t rows = 0;
  std::size_t width = 0;  // floats per row
  unsigned workers = 1;
  // Said after a refusal, when the optimizer's state could be smaller: "; --optimizer
  // rowadagrad keeps 16 floats of state per row where adagrad keeps 304".
  std::string smaller_state = {};
  // Summed steps (train/glove/glove_summed_steps.h): records per step, or 0; then a sum
  // of `params` floats (GloveLayout::params) and two uint32 per row id the kernels see.
  std::size_t summed_records = 0;
  std::size_t params = 0;
  bool rank_rounds = false;  // as GpuTrainShape's
};

struct GpuMemoryPlan {
  TablePlacement placement = TablePlacement::device;  // host or device, never automatic
  HostTransfer transfer = HostTransfer::gather;       // host placement only
  std::size_t batch_items = 0;                        // per batch at most: corpus words (GloVe: records)
  unsigned slots_per_worker = 0;                      // batches in flight per worker
  std::size_t max_input_rows = 0;                     // per slot: unique rows a batch can touch (GloVe: of W)
  std::size_t max_output_rows = 0;                    // (GloVe: of W̃)
  std::size_t max_words = 0;                          // --subwords, host placement: per slot, words whose lists it holds
  std::size_t max_listed = 0;                         // and the rows those lists hold (a row once per listing)
  std::size_t ids_words = 0;                          // per slot: packed batch (GloVe: records), uint32 words
  std::size_t hot_rows = 0;                           // host placement: rows of each table kept in GPU memory
  std::size_t table_rows = 0;                         // rows of each table
  // Host placement: hot_rows at most. table_rows, but with --subwords (whose input table
  // has the buckets' rows too) half the rows the words touch of the two tables (the
  // vocabulary's, and GpuTrainShape::listed_input_rows): most_touched_rows shares the
  // 2 x hot_rows rows out between the tables (hot_rows.h).
  std::size_t hot_row_limit = 0;
  std::uint64_t table_bytes = 0;  // both tables (host placement: their hot rows)
  std::uint64_t slot_bytes = 0;   // device memory per slot
  std::uint64_t fixed_bytes = 0;  // lookup tables and the upload buffer
  std::uint64_t sum_bytes = 0;    // summed steps' per-row sums, for every slot at once
  unsigned workers = 1;

  std::uint64_t total_bytes() const { return fixed_bytes + table_bytes + sum_bytes + slot_bytes * slots_per_worker * workers; }
};

// Word2vec's batches on a GPU: 20,000 corpus words, twice the CPU's, so that after
// subsampling (text8 keeps about half) a batch still fills the kernels' 512 runs of
// 11 windows (word2vec_kernels.h); tight memory shrinks them down to kMinBatchWords.
inline constexpr std::size_t kGpuBatchWords = 20000;
inline constexpr std::size_t kMinBatchWords = 500;
// Host placement: the copied output rows a slot holds per word of its batch. A batch of
// words touches 1 + negatives output rows per window, but copies far fewer: on batches
// shaped as big_table's (bench-host-rows, 790,150 ids, 2.7% to 12.5% of the rows hot)
// 2.4 to 3.0 rows per word of both tables together. Planned at 3 rather than 6 (window
// 5, negative 5), a slot holds a batch 1.75 times as long in the same memory.
inline constexpr std::size_t kCopiedOutputRowsPerWord = 3;
// --subwords, host placement: the copied input rows (words' own and their n-gram
// buckets') a slot holds per word of its batch. A batch lists each of its distinct words'
// rows (24 a word on text8-head), but its words share rows and the frequent ones are hot:
// bench-host-rows --subwords 2000000 --hot 5000 copied 1.4 to 3.3 rows a word on
// text8-head (batches of 20,000 to 500 words, the batch that copied most 6.2), 1.9 to 4.0
// with every word of it in the vocabulary (most 10.2), and 6.6 to 10.2 on made-up words
// that share no n-grams (most 11.9). Planned at 8 rather than at every listing, a slot
// holds a batch 2 to 3 times as long in the same memory, and fewer rows are copied per
// word; the rare batch that copies more trains in parts.
inline constexpr std::size_t kCopiedSubwordRowsPerWord = 8;
// Bytes of the buffer that converts tables on their way to and from the device.
inline constexpr std::uint64_t kTransferBufferBytes = 64ull << 20;

// GloVe's blocks of records: 16 MB, a few milliseconds of GPU work each; host
// placement shrinks them (down to kMinGloveBatchRecords) to fit the rows they touch.
inline constexpr std::size_t kGloveBatchRecords = 1 << 20;
inline constexpr std::size_t kMinGloveBatchRecords = 1 << 12;

// "tables in pinned host memory, the 120000 most frequent rows (6.0%) in GPU memory,
// gather transfers": for the backends' names.
std::string host_placement_description(const GpuMemoryPlan& plan);
// With each table's own hot rows (hot_rows.h): "tables in pinned host memory, the most
// touched rows in GPU memory: 120000 of the input table's (80000 of them n-gram buckets)
// and 40000 of the output table's, gather transfers".
std::string host_placement_description(const GpuMemoryPlan& plan, std::size_t hot_inputs, std::size_t hot_buckets,
                                       std::size_t hot_outputs);

// Throws embed::Error when the run does not fit in `budget` bytes: naming the sizes
// and suggesting --table host, a larger --gpu-memory or fewer --threads.
GpuMemoryPlan plan_gpu_memory(const GpuTrainShape& shape, const GpuOptions& options, std::uint64_t budget);
// The same for GloVe (tables always f32: AdaGrad's accumulators need the precision).
GpuMemoryPlan plan_glove_gpu_memory(const GloveGpuShape& shape, const GpuOptions& options, std::uint64_t budget);

}  // namespace embed
