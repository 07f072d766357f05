// A training run as every model has it: its settings, what it trains on, its two
// tables and where the schedule stands. Exactly what a checkpoint holds.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/dtype.h"
#include "format/emb_file.h"
#include "train/corpus/corpus.h"
#include "train/engine/epoch_loop.h"
#include "train/engine/row_matrix.h"
#include "train/glove/glove_records.h"
#include "train/run/train_settings.h"

namespace embed {

class ShardedTables;

// A sharded run's checkpoint (--shard-tables): the manifest (the checkpoint file itself,
// which holds no table rows) names its shards, one file a rank beside it, by an id.
struct ShardManifest {
  unsigned ranks = 0;         // 0: the checkpoint holds the tables (no sharding)
  std::string id;             // the checkpoint's, in its shards too
  std::size_t hot_rows = 0;   // rows every rank holds
};

// Where rank `rank` of `ranks` keeps its shard of checkpoint `id` written at `checkpoint`.
std::string shard_file_path(const std::string& checkpoint, unsigned rank, unsigned ranks, const std::string& id);
// Removes that rank's shards at `checkpoint` of every other id: its previous checkpoint's,
// and those of one a killed job wrote but never named in a manifest.
void remove_stray_shards(const std::string& checkpoint, unsigned rank, unsigned ranks, const std::string& id);

// Output options a resumed run must honour as the original would have.
struct OutputSettings {
  std::string output;         // the .emb to write
  DType dtype = DType::f32;   // storage type of the vectors (and of a GPU's tables)
  // --dtype int8 or --pq M: the vectors (and context vectors) written compressed; dense: as dtype.
  RowStorage storage = RowStorage::dense;
  std::size_t pq_m = 0;
  bool save_context = false;  // also write the output vectors
  std::string fasttext_bin;   // also write the model as fastText's .bin here (skip-gram, CBOW), or empty
  std::uint64_t min_count = 5;
  std::uint64_t max_vocab = 0;
};

// What a run started with --init keeps to its end (init_vectors.h), in checkpoints too.
struct InitVectors {
  std::string file;                  // as given; empty: the run did not start from a file
  std::string checksum;              // "crc32:xxxxxxxx" of its bytes
  std::uint64_t rows_from_file = 0;  // vocabulary rows that started from the file
  // --lock-init: per vocabulary row, 1 where the row came from the file and is never
  // updated; empty without --lock-init.
  std::vector<std::uint8_t> locked;
  // --init-keep: the file's words that the vocabulary lacks, written after the trained
  // rows as the file gave them (kept_vectors) and, with --save-context, kept_context.
  bool keep = false;
  std::vector<std::string> kept_words;
  std::vector<float> kept_vectors, kept_context;  // kept_words × dim

  bool active() const { return !file.empty(); }
  bool lock() const { return !locked.empty(); }
};

// A training run: what it trains on, its two tables and where the schedule stands.
// Exactly what a checkpoint holds. GloVe keeps only the corpus's vocabulary (the text
// is spent once counted) and trains on `records`; its tables are W and W̃.
struct TrainingRun {
  TrainSettings settings;
  OutputSettings output;
  Corpus corpus;
  RowMatrix input, output_table;
  TrainState state;
  GloveRecords records;
  // The ranks of the job (mpirun -np) whose state this is: a checkpoint's holds every
  // rank's workers, ranks x settings.threads of them (rank_state.h).
  unsigned ranks = 1;
  InitVectors init{};
  // --shard-tables: the tables split across the ranks (input and output_table then stay
  // empty), the checkpoint's manifest fields, and this rank's last shard file.
  std::shared_ptr<ShardedTables> sharded{};
  ShardManifest shards{};
  std::string shard_file{};

  // The files a checkpoint names (spooled corpus, GloVe's records) outlive this process;
  // or, once the run has completed, they go with it.
  void keep_temporaries() const;
  void release_temporaries() const;
};

// Where a fresh run's training data comes from, and within what memory.
struct TrainingInput {
  std::vector<std::string> corpus;    // text files, "-" for standard input
  std::string cooc;                   // glove: counts --save-cooc wrote, instead of the corpus
  std::string save_cooc;              // glove: also write the counts here (without --output: only count)
  std::uint64_t memory = 4ull << 30;  // glove: bytes for counting and training
  // f16 where a GPU will train the tables from host memory in f16, gathering each batch's
  // rows, in one process (--table host --dtype f16): the model may then keep its host
  // tables in f16 (row_matrix.h).
  DType host_tables = DType::f32;
  // --shard-tables (skip-gram, CBOW): the tables split across the ranks, the `hot_rows`
  // most frequent on every rank (--sync-rows).
  bool shard_tables = false;
  std::size_t hot_rows = 1024;
};

}  // namespace embed
