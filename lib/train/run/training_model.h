// What the shared run (train_command.cpp, checkpoint.cpp) needs of a model, so that it
// never branches on which model it runs. One object per model, listed in model_registry.cpp;
// each model's folder (word2vec/, glove/) implements it. docs/ARCHITECTURE.md shows how
// a new model is added.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster.h"
#include "core/atomic_output.h"
#include "device/gpu_device.h"
#include "format/emb_writer.h"
#include "format/tensor_file.h"
#include "text/subword_table.h"
#include "train/engine/epoch_loop.h"
#include "train/files/vectors_output.h"
#include "train/gpu/gpu_backend.h"
#include "train/run/train_settings.h"
#include "train/run/training_run.h"

namespace embed {

// What a model's train() runs with: where (a GPU, or the CPU when `gpu` is empty), the
// stop flag, and whom to tell about progress.
struct TrainContext {
  const GpuTrainer* gpu_trainer = nullptr;  // this build's (backend/registry.h)
  std::optional<GpuDevice> gpu;
  bool gpu_required = false;            // --device cuda (else auto: the CPU when the GPU cannot take the run)
  GpuOptions gpu_options;               // --table, --host-transfer
  std::uint64_t gpu_budget = 0;         // bytes of device memory the run may plan for
  TableTraffic* gpu_traffic = nullptr;  // what the GPU backend moves (the epoch log reports it)
  const std::atomic<bool>* stop = nullptr;
  // A data-parallel run (this_job() has several ranks): how often, and how many of the
  // most frequent rows, the ranks share (rank_averaging.h).
  double sync_seconds = 0.1;
  std::size_t sync_rows = 1024;
  // Skip-gram and CBOW: the most corpus words a rank trains between two rounds (0: no
  // limit); unset: rank_round_words (train/ranks/round_length.h).
  std::optional<std::uint64_t> sync_words;
  std::function<void(const TrainProgress&)> on_epoch;
  std::function<void(const TrainProgress&)> on_progress;
};

// What a run will train, known once the corpus is counted (a whole mpirun job's): the
// starting rates that follow it (run_starting_lr).
struct RunLength {
  std::uint64_t items = 0;           // an epoch's items (corpus words, co-occurrence records) times the epochs
  std::uint64_t distinct_words = 0;  // the corpus's distinct words, before min-count

  // Items per distinct word: what word2vec's SGD rate follows.
  double per_distinct_word() const {
    return static_cast<double>(items) / static_cast<double>(distinct_words > 0 ? distinct_words : 1);
  }
};

class TrainingModel {
 public:
  virtual ~TrainingModel() = default;

  // --model's spelling, and the .emb's and the checkpoint's "model" metadata.
  virtual Model id() const = 0;
  virtual std::string_view name() const = 0;

  // What the settings are when the options leave them out.
  struct Defaults {
    std::size_t window = 5;
    unsigned epochs = 5;
    float lr = 0.025f;
    Optimizer optimizer = Optimizer::sgd;
  };
  virtual Defaults defaults() const = 0;
  virtual bool supports(Optimizer optimizer) const = 0;
  // The learning rate `optimizer` starts from when --lr is not given: the model's own for
  // its default optimizer and for one the registry gives no rate, else the registry's
  // (optimizer.cpp), unless the model has its own (word2vec's, from its sweep).
  virtual float starting_lr(Optimizer optimizer) const;
  // The epochs a run of a corpus of `corpus_words` (vocabulary words in the text, a whole
  // job's) trains when --epochs is not given: the model's default, unless the model says
  // otherwise (word2vec's: more for a small corpus).
  virtual unsigned epochs_for_corpus(const TrainSettings& s, std::uint64_t corpus_words) const {
    (void)corpus_words;
    return s.epochs;
  }
  // The rate a run starts from when --lr is not given, on a GPU or on the CPU, once the
  // corpus is counted: starting_lr, unless the model says otherwise (word2vec's: SGD's
  // rate follows the words trained per distinct word, the GPU's summed steps take larger
  // rates, and CBOW's Adam and RMSprop smaller ones the longer the run).
  virtual float run_starting_lr(const TrainSettings& s, const RunLength& run, bool on_gpu) const {
    (void)run;
    (void)on_gpu;
    return starting_lr(s.optimizer);
  }

  // The options this model takes that not every model does: the one place they are
  // listed. The shared run refuses them for the other models ("--x-max applies to
  // --model glove only"), ignores the settings among them on --resume, and the app's
  // --help says which models take each (model_registry.h: model_options, models_taking).
  struct Option {
    std::string_view name;  // "--negative"
    bool setting;           // a TrainSettings field, which a checkpoint fixes
  };
  virtual std::span<const Option> own_options() const = 0;
  bool takes_option(std::string_view option) const;

  // What an epoch walks ("words", or GloVe's "records"), and what its loss is called.
  virtual std::string_view item_name() const = 0;
  virtual std::string_view loss_name() const { return "loss"; }

  // The model's own settings as metadata strings, and back from a checkpoint (false
  // when they are invalid).
  virtual void write_settings(const TrainSettings& settings, std::map<std::string, std::string>& metadata) const = 0;
  virtual bool read_settings(const TensorFileReader& reader, TrainSettings& settings) const = 0;

  // Where a row of either table keeps its bias (GloVe: after the vector), or nullopt for
  // a model without biases; --init sets it from a checkpoint's.
  virtual std::optional<std::size_t> bias_column(const TrainSettings& /*settings*/) const { return std::nullopt; }

  // Why a GPU cannot train these settings (every model trains every optimizer there, in
  // summed steps where its state is not a sum: train/word2vec/summed_steps.h), or empty
  // when it can.
  virtual std::string gpu_refusal(const TrainSettings& /*settings*/) const { return {}; }

  // A fresh run: reads what `input` names into `run` and makes its tables and state.
  // `counts_out` (glove's --save-cooc) was created by the caller, so that an unwritable
  // path fails before the reading.
  virtual void start(const TrainingInput& input, TrainingRun& run, AtomicOutput* counts_out) const = 0;
  // With --save-cooc and no --output: only writes the counts.
  virtual void count_only(const TrainingInput& input, TrainingRun& run, AtomicOutput& counts_out) const;

  // Items per epoch, the width of a table's rows in a checkpoint, and what the
  // checkpoint keeps beyond the tables and the corpus (GloVe: which records file, and
  // how its epochs order it).
  virtual std::uint64_t items_per_epoch(const TrainingRun& run) const = 0;
  virtual std::size_t table_width(const TrainSettings& settings) const = 0;
  // Rows of the input table for a vocabulary of `vocab_rows` (--subwords: the n-gram
  // buckets' rows follow); the output table has the vocabulary's.
  virtual std::size_t input_rows(const TrainSettings& /*settings*/, std::size_t vocab_rows) const { return vocab_rows; }
  virtual void save_items(const TrainingRun& /*run*/, std::vector<TensorBlob>& /*blobs*/,
                          std::map<std::string, std::string>& /*metadata*/) const {}
  // Reads them back and returns the bound of the workers' positions (word2vec: the
  // corpus's bytes, once it has checked that the files are still those it counted).
  virtual std::uint64_t load_items(const TensorFileReader& reader, TrainingRun& run) const = 0;

  // A data-parallel run (mpirun) about to be saved: gathers into `run` what rank 0's
  // checkpoint must name of every rank beyond its workers (GloVe: each rank's records
  // file). Collective.
  virtual void gather_for_checkpoint(TrainingRun& /*run*/, Cluster& /*job*/) const {}

  // Trains from run.state until the last epoch ends (true) or context.stop (false).
  virtual bool train(TrainingRun& run, const TrainContext& context) const = 0;

  // Where a row's optimizer state starts (after the vector, its bias and padding).
  virtual std::size_t state_column(const TrainSettings& settings) const = 0;
  // Where a row's values to write start: 0, or where an averaging optimizer (asgd) keeps
  // the average of the row's values (the state's start).
  std::size_t written_column(const TrainSettings& settings) const;

  // Row r of the vectors to write (by default the input table's), and a note for the
  // "wrote" line (GloVe: ", W + W̃").
  virtual RowReader vector_rows(const TrainingRun& run) const;
  // Row r of the context vectors (--save-context: the output table's).
  RowReader context_rows(const TrainingRun& run) const;
  virtual std::string output_note(const TrainingRun& /*run*/) const { return {}; }
  // The n-gram bucket rows (--subwords), which the vectors' .emb and a fastText model hold
  // beside the vectors; nullopt without. Called once, when the run is over and after
  // vector_rows: the table may view the run's tables, rearranged to hold it.
  virtual std::optional<SubwordTable> subword_table(TrainingRun& /*run*/) const { return std::nullopt; }
};

}  // namespace embed
