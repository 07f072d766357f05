#include "train/glove/glove_training_model.h"

#include <algorithm>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cluster/cluster.h"
#include "core/error.h"
#include "core/progress.h"
#include "train/glove/glove_cpu_backend.h"
#include "train/glove/glove_setup.h"
#include "train/glove/glove_summed_steps.h"
#include "train/glove/glove_trainer.h"
#include "train/glove/record_file.h"
#include "train/glove/record_source.h"
#include "train/ranks/rank_averaging.h"

namespace embed {
namespace {

// The metadata keys of rank `rank`'s records file in a checkpoint.
std::string records_key(unsigned rank) {
  return rank == 0 ? std::string("glove_records.") : fmt::format("glove_records.rank-{}.", rank);
}

// Adam's per-row step counts are a product that concurrent GPU updates of a row cannot
// share without losing steps, so GloVe trains with Adam on the CPU only.
class GloveModel final : public TrainingModel {
 public:
  Model id() const override { return Model::glove; }
  std::string_view name() const override { return "glove"; }
  Defaults defaults() const override { return {10, 25, 0.05f, Optimizer::adagrad}; }
  bool supports(Optimizer) const override { return true; }
  std::span<const Option> own_options() const override {
    static constexpr Option kOptions[] = {{"--x-max", true},   {"--alpha", true},   {"--asymmetric", true}, {"--adagrad", true},
                                          {"--vectors", true}, {"--memory", false}, {"--save-cooc", false}, {"--cooc", false}};
    return kOptions;
  }
  // Summed steps (glove_summed_steps.h) of Adam and AdamW take three times the CPU's rate:
  // their best on the CPU with EMBED_SUMMED_RECORDS=32768 (the GPU's runs), text8-head, dim
  // 50, 10 epochs (bench/RESULTS.md, issue 40); Adamax's best stays the CPU's.
  float run_starting_lr(const TrainSettings& s, const RunLength&, bool on_gpu) const override {
    const bool summed = on_gpu && summed_records_on_gpu(s.optimizer) > 0;
    return summed && (s.optimizer == Optimizer::adam || s.optimizer == Optimizer::adamw) ? 0.009f : starting_lr(s.optimizer);
  }
  std::string_view item_name() const override { return "records"; }
  std::string_view loss_name() const override { return "cost"; }

  void write_settings(const TrainSettings& s, std::map<std::string, std::string>& metadata) const override {
    metadata["x_max"] = fmt::format("{}", s.x_max);
    metadata["alpha"] = fmt::format("{}", s.alpha);
    metadata["symmetric"] = std::to_string(s.symmetric ? 1 : 0);
    metadata["vectors"] = std::string(glove_vectors_name(s.vectors));
  }
  bool read_settings(const TensorFileReader& r, TrainSettings& s) const override {
    s.x_max = r.meta_double("x_max");
    s.alpha = r.meta_double("alpha");
    s.symmetric = r.meta("symmetric") == "1";
    const std::optional<GloveVectors> vectors = parse_glove_vectors(r.meta("vectors"));
    if (vectors) s.vectors = *vectors;
    // Files before rowadagrad was an optimizer of its own wrote "optimizer: adagrad" and
    // "adagrad: row" for it.
    if (s.optimizer == Optimizer::adagrad && r.has_meta("adagrad") && r.meta("adagrad") == "row")
      s.optimizer = Optimizer::rowadagrad;
    return vectors.has_value();  // x_max and alpha: settings_out_of_range
  }

  void start(const TrainingInput& input, TrainingRun& run, AtomicOutput* counts_out) const override {
    glove_cooccurrences(input, run, counts_out, true);
    start_glove_run(run);
  }
  void count_only(const TrainingInput& input, TrainingRun& run, AtomicOutput& counts_out) const override {
    glove_cooccurrences(input, run, &counts_out, false);
  }

  // Under mpirun, the job's records: every rank's.
  std::uint64_t items_per_epoch(const TrainingRun& run) const override { return run.records.job_size(); }
  // Each rank's records file is its own: a job's checkpoint names them all.
  void gather_for_checkpoint(TrainingRun& run, Cluster& job) const override {
    const GloveRecords& records = run.records;
    // path, size, mtime, count, in memory, order: NUL-separated (a path holds no NUL).
    const std::string mine = fmt::format("{}{}{}{}{}{}{}{}{}{}{}", records.file.path, '\0', records.file.size, '\0',
                                         records.file.mtime_ns, '\0', records.file.records, '\0', records.in_memory ? 1 : 0, '\0',
                                         record_shuffle_name(records.shuffle.value_or(RecordShuffle::full)));
    run.records.of_ranks.clear();
    for (const std::vector<char>& part : job.all_gather(mine)) {
      std::vector<std::string> fields(1);
      for (const char c : part) {
        if (c == '\0') {
          fields.emplace_back();
        } else {
          fields.back() += c;
        }
      }
      EMBED_ASSERT(fields.size() == 6);
      GloveRecords::OfRank of_rank;
      of_rank.file = {fields[0], std::stoull(fields[1]), std::stoll(fields[2]), std::stoull(fields[3])};
      of_rank.in_memory = fields[4] == "1";
      of_rank.shuffle = parse_record_shuffle(fields[5]).value_or(RecordShuffle::full);
      run.records.of_ranks.push_back(std::move(of_rank));
    }
  }
  std::size_t table_width(const TrainSettings& s) const override { return GloveLayout(s.dim, s.optimizer, s.hyper).width; }
  std::size_t state_column(const TrainSettings& s) const override { return GloveLayout(s.dim, s.optimizer, s.hyper).state(); }
  std::optional<std::size_t> bias_column(const TrainSettings& s) const override {
    return GloveLayout(s.dim, s.optimizer, s.hyper).bias();
  }
  // The records file (not the records: it stays beside the checkpoint), whether they
  // train from memory, and how the epochs order them.
  void save_items(const TrainingRun& run, std::vector<TensorBlob>&, std::map<std::string, std::string>& metadata) const override {
    const GloveRecords& records = run.records;
    // A job's (run.ranks > 1): rank 0's records under the plain keys, rank R's under
    // "glove_records.rank-R.", and the job's count.
    std::vector<GloveRecords::OfRank> files = records.of_ranks;
    if (run.ranks < 2) files = {{records.file, records.in_memory, records.shuffle.value_or(RecordShuffle::full)}};
    EMBED_ASSERT(files.size() == run.ranks);
    for (unsigned rank = 0; rank < run.ranks; ++rank) {
      const std::string key = records_key(rank);
      const GloveRecords::OfRank& of_rank = files[rank];
      metadata[key + "path"] = of_rank.file.path;
      metadata[key + "size"] = std::to_string(of_rank.file.size);
      metadata[key + "mtime_ns"] = std::to_string(of_rank.file.mtime_ns);
      metadata[key + "count"] = std::to_string(of_rank.file.records);
      metadata[key + "in_memory"] = std::to_string(of_rank.in_memory ? 1 : 0);
      metadata[key + "shuffle"] = std::string(record_shuffle_name(of_rank.shuffle));
    }
    if (run.ranks > 1) metadata["glove_records.job_count"] = std::to_string(records.job_size());
  }
  std::uint64_t load_items(const TensorFileReader& r, TrainingRun& run) const override {
    GloveRecords& records = run.records;
    // A job's checkpoint: this rank's records (rank 0's when the job does not match, which
    // resuming refuses once the checkpoint is read).
    const Cluster& job = this_job();
    const unsigned rank = run.ranks > 1 && job.size() == run.ranks ? job.rank() : 0;
    const std::string key = records_key(rank);
    records.file.path = r.meta(key + "path");
    records.file.size = r.meta_uint(key + "size");
    records.file.mtime_ns = static_cast<std::int64_t>(r.meta_uint(key + "mtime_ns"));
    records.file.records = r.meta_uint(key + "count");
    records.in_memory = r.meta(key + "in_memory") == "1";
    records.shuffle = parse_record_shuffle(r.meta(key + "shuffle"));
    if (!records.shuffle) fail("{}: the checkpoint's record order \"{}\" is invalid", r.path(), r.meta(key + "shuffle"));
    if (run.ranks > 1) records.job_records = r.meta_uint("glove_records.job_count");
    // Refuses a missing, changed or foreign records file now, not when training starts.
    RecordFileReader(records.file, run.corpus.vocab.size());
    // The file stays until the run completes (train_command releases it then).
    records.spool = std::make_shared<SpoolFile>(records.file.path);
    records.spool->keep();
    // Every rank's workers are checked against the largest rank's records; train() checks
    // this rank's own against its file.
    std::uint64_t bound = records.size();
    for (unsigned other = 0; other < run.ranks; ++other) bound = std::max(bound, r.meta_uint(records_key(other) + "count"));
    return bound;
  }

  bool train(TrainingRun& run, const TrainContext& context) const override {
    const TrainSettings& s = run.settings;
    const std::string optimizer(optimizer_name(s.optimizer));
    const GloveLayout layout(s.dim, s.optimizer, s.hyper);
    std::unique_ptr<GloveBackend> backend =
        context.gpu ? gpu_backend(run, context)
                    : make_cpu_glove_backend(run.input, run.output_table, layout, run.init.locked, summed_records_override());
    // The GPU trains an epoch faster than the CPU reshuffles the records one by one, and
    // records on disk are read a block at a time: both reorder whole blocks between epochs.
    GloveRecords& records = run.records;
    if (!records.shuffle) records.shuffle = context.gpu || !records.in_memory ? RecordShuffle::blocks : RecordShuffle::full;
    for (const PositionRange& shard : run.state.shards) {
      if (shard.end > records.size()) {
        fail("{}: the checkpoint's workers go past the {} records of {}", run.corpus.name, records.size(), records.file.path);
      }
    }
    const RecordFileReader file(records.file, run.corpus.vocab.size());
    const std::unique_ptr<RecordSource> source =
        records.in_memory
            ? memory_records(records.memory, *records.shuffle, s.seed, &file)
            : streamed_records(file, s.seed, s.threads, std::min(backend->max_block_records(), kStreamedReadRecords));
    spdlog::info(
        "training glove on {}: dim {}, x-max {}, alpha {}, {}, {} epochs, lr {}, {} threads, seed {}; {} "
        "co-occurrence records {}{}",
        backend->name(), s.dim, s.x_max, s.alpha, optimizer, s.epochs, s.lr, s.threads, s.seed, records.size(),
        records.in_memory ? std::string("in memory") : fmt::format("streamed from {}", records.file.path),
        *records.shuffle == RecordShuffle::blocks ? ", reordered in blocks between epochs" : "");
    GloveTrainer trainer(s, *source, *backend);
    Cluster& job = this_job();
    std::optional<RankAveraging> averaging;
    if (job.size() > 1) {
      if (context.sync_words) spdlog::warn("--sync-words applies to skip-gram and CBOW: GloVe's rounds go by --sync-interval");
      // Each rank trains the records of its rows: its rows of W (and their biases and
      // AdaGrad sums) change and are read on it alone, so W is shared only when an epoch
      // ends; W̃'s rows change on every rank, and the rounds add up every rank's changes,
      // the most frequent rows most often.
      averaging.emplace(job, std::vector<RowMatrix*>{&run.output_table, &run.input}, context.sync_rows, 1);
      averaging->set_home(backend->row_home());  // a GPU's rows take part too
      trainer.share_with_ranks(rank_sync(job, *averaging), context.sync_seconds, records.job_size());
      spdlog::info(
          "data parallel over {} ranks: each trains the co-occurrences of its rows ({} of {} records here); the "
          "{} most frequent rows of W̃ are shared every {} s, rarer rows exponentially less often, all rows "
          "of W and W̃ at each epoch's end",
          job.size(), records.size(), records.job_size(), std::min(context.sync_rows, run.input.rows()), context.sync_seconds);
    }
    const bool finished = trainer.run(run.state, *context.stop, context.on_epoch, context.on_progress);
    if (averaging) {
      spdlog::debug("{}", averaging->summary());
    }
    return finished;
  }

  // W + W̃ (Stanford GloVe's -model 2): the sum of each word's two vectors.
  RowReader vector_rows(const TrainingRun& run) const override {
    if (run.settings.vectors != GloveVectors::word_plus_context) return TrainingModel::vector_rows(run);
    const std::size_t dim = run.settings.dim, column = written_column(run.settings);
    return [&run, dim, column](std::size_t r, float* out) {
      const float* w = run.input.row(r) + column;
      const float* c = run.output_table.row(r) + column;
      for (std::size_t k = 0; k < dim; ++k) out[k] = w[k] + c[k];
    };
  }
  std::string output_note(const TrainingRun& run) const override {
    return run.settings.vectors == GloveVectors::word_plus_context ? ", W + W̃" : "";
  }

 private:
  // The GPU backend for `run` on context.gpu, within the budget.
  static std::unique_ptr<GloveBackend> gpu_backend(TrainingRun& run, const TrainContext& context) {
    const TrainSettings& s = run.settings;
    const GloveLayout layout(s.dim, s.optimizer, s.hyper);
    GloveGpuShape shape{run.input.rows(), layout.width, s.threads};
    shape.summed_records = summed_records_on_gpu(s.optimizer);
    shape.params = layout.params;
    shape.rank_rounds = this_job().size() > 1;
    // Row-wise AdaGrad is the way to a smaller table: say so where a plan is refused.
    const std::size_t state = layout.width - layout.params;
    const std::size_t row_state = optimizer_spec(Optimizer::rowadagrad).state_floats(layout.params);
    if (state > row_state) {
      shape.smaller_state = fmt::format("; --optimizer rowadagrad keeps {} floats of state per row where {} keeps {}", row_state,
                                        optimizer_name(s.optimizer), state);
    }
    GloveGpuRequest request{&run.input,
                            &run.output_table,
                            layout,
                            plan_glove_gpu_memory(shape, context.gpu_options, context.gpu_budget),
                            shape.summed_records,
                            *context.gpu,
                            context.gpu_traffic};
    explain_placement(context.gpu_options, request.plan, 2 * shape.rows * shape.width * sizeof(float), context.gpu_budget);
    return context.gpu_trainer->make_glove_backend(request);
  }
};

}  // namespace

const TrainingModel& glove_model() {
  static const GloveModel model;
  return model;
}

}  // namespace embed
