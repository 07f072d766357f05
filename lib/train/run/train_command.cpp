#include "train/run/train_command.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <exception>
#include <optional>
#include <random>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cluster/cluster.h"
#include "core/atomic_output.h"
#include "core/error.h"
#include "core/output_target.h"
#include "core/progress.h"
#include "core/stop_signal.h"
#include "text/foreign_extension.h"
#include "text/format_detect.h"
#include "train/files/checkpoint.h"
#include "train/files/fasttext_output.h"
#include "train/files/vectors_output.h"
#include "train/gpu/gpu_plan.h"
#include "train/ranks/rank_state.h"
#include "train/shards/sharded_tables.h"
#include "train/report/epoch_reporter.h"
#include "train/report/metrics_log.h"
#include "train/report/plot_recorder.h"
#include "train/run/model_registry.h"
#include "train/run/training_model.h"
#include "vectors/vector_formats.h"

namespace embed {
namespace {

// The .emb's metadata: the settings that shaped the vectors and what they were trained on.
std::map<std::string, std::string> vectors_metadata(const TrainingRun& run) {
  std::map<std::string, std::string> metadata = settings_metadata(run.settings);
  metadata["min_count"] = std::to_string(run.output.min_count);
  metadata["corpus_tokens"] = std::to_string(run.corpus.tokens);
  add_init_metadata(run.init, metadata);
  return metadata;
}

// A sharded run's checkpoint, first half: every rank writes its shard, named by an id rank
// 0 draws, and the manifest (the checkpoint file, write_checkpoint) will name that id.
// Returns the shard's path.
std::string write_shard(const std::string& path, TrainingRun& run, Cluster& job) {
  std::uint64_t drawn[1] = {job.is_root() ? std::random_device()() * 0x100000000ull + std::random_device()() : 0};
  job.sum(drawn);
  const std::string id = fmt::format("{:016x}", drawn[0]);
  const std::string shard = shard_file_path(path, job.rank(), job.size(), id);
  run.sharded->save_shard(shard, id);
  std::uint64_t written[1] = {1};
  job.sum(written);  // every shard is whole before the manifest names them
  run.shards = {job.size(), id, run.sharded->hot_rows()};
  return shard;
}

// Second half, once the manifest names `shard`: each rank removes its other shards of this
// checkpoint. Until the manifest is replaced, the previous one and its shards stay whole: a
// rank killed while writing leaves the last checkpoint usable (and a shard no manifest
// names, which goes at the next checkpoint or resume).
void replace_shard_file(const std::string& path, TrainingRun& run, Cluster& job, const std::string& shard) {
  std::uint64_t written[1] = {1};
  job.sum(written);  // rank 0 has written the manifest
  remove_stray_shards(path, job.rank(), job.size(), run.shards.id);
  run.shard_file = shard;
}

// Saves the run's checkpoint; the files it names (spooled corpus, GloVe's records, a sharded
// run's shards) then outlive this process. Under mpirun every rank calls it (the ranks'
// states are gathered) and rank 0 writes the job's: the tables are equal on every rank by
// then, or (sharded) each rank's are in its shard.
void write_checkpoint(const std::string& path, TrainingRun& run, Cluster& job) {
  if (job.size() < 2 && !run.sharded) {
    save_checkpoint(path, run);
    run.keep_temporaries();
    return;
  }
  const std::string shard = run.sharded ? write_shard(path, run, job) : std::string();
  training_model(run.settings.model).gather_for_checkpoint(run, job);
  TrainState mine = gather_rank_states(job, run.state);
  std::swap(mine, run.state);
  run.ranks = job.size();
  if (job.is_root()) save_checkpoint(path, run);
  std::swap(mine, run.state);
  run.ranks = 1;
  if (run.sharded) replace_shard_file(path, run, job, shard);
  run.keep_temporaries();  // each rank's own (GloVe's records file)
}

// "embed-train --resume X", with mpirun's part when the job had several ranks, and the
// run's --device and --gpu: a checkpoint keeps the training settings, not where they ran,
// and a run on the GPU resumed without them would go on on the CPU (--device's default).
std::string resume_command(const std::string& checkpoint, unsigned ranks, const GpuRequest& gpu) {
  std::string device;
  if (gpu.device != DeviceChoice::cpu) {
    device = fmt::format(" --device {}", device_choice_name(gpu.device));
    if (gpu.ordinal != 0) device += fmt::format(" --gpu {}", gpu.ordinal);
  }
  return fmt::format("{}embed-train --resume {}{}", ranks > 1 ? fmt::format("mpirun -np {} ", ranks) : "", checkpoint, device);
}

TrainingRun resumed_run(const TrainCommand& command, Cluster& job) {
  TrainingRun run = load_checkpoint(command.resume);
  // Each rank goes on with its own workers: the job must have as many ranks as the one
  // that wrote the checkpoint, whose workers' shards and random streams it holds.
  if (run.ranks != job.size()) {
    const auto job_of = [](unsigned n) { return n > 1 ? fmt::format("a job of {} ranks", n) : std::string("one process"); };
    fail("{}: the checkpoint was written by {} and cannot go on in {}; resume it with: {}", command.resume, job_of(run.ranks),
         job_of(job.size()), resume_command(command.resume, run.ranks, command.gpu));
  }
  if (run.ranks > 1) {
    run.state = rank_share(run.state, job.rank(), run.ranks);
    run.ranks = 1;
  }
  if (run.shards.ranks > 0) {
    // Each rank reads its own shard, which the manifest names.
    run.shard_file = shard_file_path(command.resume, job.rank(), job.size(), run.shards.id);
    run.sharded = std::make_shared<ShardedTables>(job, run.corpus.vocab.size(), Word2vecLayout(run.settings), run.shards.hot_rows);
    // The ranks agree that every shard was read before rank 0 creates the outputs: a rank
    // that fails alone would end the job with rank 0's temporary files behind.
    std::vector<std::uint64_t> failed(job.size(), 0);
    std::exception_ptr error;
    try {
      run.sharded->load_shard(run.shard_file, run.shards.id);
    } catch (const Error&) {
      error = std::current_exception();
      failed[job.rank()] = 1;
    }
    job.sum(failed);
    if (error) std::rethrow_exception(error);
    for (unsigned r = 0; r < job.size(); ++r) {
      if (failed[r]) fail("{}: rank {} could not read its shard of the checkpoint", shard_file_path(command.resume, r, job.size(), run.shards.id), r);
    }
    remove_stray_shards(command.resume, job.rank(), job.size(), run.shards.id);
  }
  if (!command.output.output.empty()) run.output.output = command.output.output;
  const TrainingModel& model = training_model(run.settings.model);
  const double done =
      static_cast<double>(run.state.items_done) / (static_cast<double>(model.items_per_epoch(run)) * run.settings.epochs);
  spdlog::info("{}: resuming {} training at epoch {} of {} ({:.1f}% done); corpus {}, vocabulary {} words", command.resume,
               model.name(), std::min(run.state.epoch + 1, run.settings.epochs), run.settings.epochs, 100 * done, run.corpus.name,
               run.corpus.vocab.size());
  return run;
}

// embed-train writes .emb files: under a name whose extension promises text, word2vec
// binary or a Python format, the next tool (glove-convert among them) would misread it.
void refuse_misnamed_output(const std::string& output) {
  const std::optional<VectorFormat> named = format_from_extension(output);
  std::string_view extension = foreign_vector_extension(output);
  if (named && *named != VectorFormat::emb && *named != VectorFormat::projector) {
    extension = std::string_view(output).substr(output.rfind('.'));
  }
  if (extension.empty()) return;
  const std::string stem = output.substr(0, output.size() - extension.size());
  fail("{}: embed-train writes .emb files (safetensors), not {}: name it {}.emb{}", output, extension, stem,
       named ? fmt::format(" and convert it with: glove-convert {}.emb -o {}", stem, output) : std::string());
}

// A fresh run whose checkpoint path holds an unfinished run's checkpoint: a Makefile
// that runs an interrupted command again would otherwise start from scratch and, at its
// next interruption, replace a checkpoint 53% done with one 18% done. Continuing it
// instead would have to prove that the command and its corpus are the checkpoint's
// (a corpus from a pipe cannot be compared without reading it whole), and vectors
// from two runs' settings would be worse than an error: so it is refused, naming the
// command that continues it, unless --restart discards it. A finished run's
// checkpoint (--checkpoint keeps it) is no run to lose.
void refuse_to_lose_checkpoint(const std::string& path, bool restart, const GpuRequest& gpu) {
  const std::optional<CheckpointProgress> progress = checkpoint_progress(path);
  if (!progress || progress->epoch >= progress->epochs) return;
  if (restart) {
    spdlog::info("--restart: discarding {} (an interrupted run, {} of {} epochs done)", path, progress->epoch, progress->epochs);
    return;  // replaced by this run's first checkpoint, or removed when it ends
  }
  fail(
      "{} holds an interrupted run of this output ({} of {} epochs done): continue it with: {}; or start afresh "
      "with --restart, which discards it",
      path, progress->epoch, progress->epochs, resume_command(path, this_job().size(), gpu));
}

// The usable GPU for --device cuda or auto, or nullopt (with one log line for auto).
// --device cuda without one, or with settings the GPU does not train, is an error.
std::optional<GpuDevice> find_gpu(const TrainCommand& command, const TrainSettings& settings, bool locked_rows) {
  if (command.gpu.device == DeviceChoice::cpu) return std::nullopt;
  const bool required = command.gpu.device == DeviceChoice::cuda;
  std::string refusal = training_model(settings.model).gpu_refusal(settings);
  // The GPU kernels update every row a batch touches.
  if (locked_rows) refusal = "--lock-init trains on the CPU: the GPU backends do not hold rows fixed";
  if (!refusal.empty()) {
    if (required) fail("--device cuda: {}", refusal);
    spdlog::info("--device auto: {}", refusal);
    return std::nullopt;
  }
  std::string why_not(kNoCudaBackend);
  std::optional<GpuDevice> device;
  // Under mpirun each rank on a machine takes its own GPU: --gpu plus its local rank,
  // wrapping around the usable ones (gpu_for_rank).
  const Cluster& job = this_job();
  const GpuTrainer& trainer = command.gpu_trainer;
  const bool ranks = trainer.built() && job.size() > 1;
  const std::vector<int> usable = ranks ? trainer.usable_ordinals() : std::vector<int>{};
  const int ordinal = ranks ? gpu_for_rank(command.gpu.ordinal, job.local_rank(), usable) : command.gpu.ordinal;
  if (trainer.built()) device = trainer.find_device(ordinal, why_not);
  if (device && ranks) {
    // Without --gpu-memory a rank plans for its share of what was free: each would
    // otherwise count on all of it and the second one's tables would not fit. This rank
    // is among those counted, so there is at least one.
    unsigned sharing = 0;  // ranks of this machine on this GPU
    for (unsigned r = 0; r < job.local_size(); ++r) sharing += gpu_for_rank(command.gpu.ordinal, r, usable) == ordinal;
    device->free_memory /= sharing;
    spdlog::info(
        "each rank trains on the GPU of its number among its machine's ranks past --gpu, wrapping around the {} "
        "usable: rank 0 on GPU {} ({}){}",
        usable.size(), device->ordinal, device->name,
        sharing > 1 ? fmt::format(", shared by {} ranks, each planning for 1/{} of its free memory", sharing, sharing) : "");
  }
  if (!device && required) fail("--device cuda: no usable GPU: {}", why_not);
  if (!device) spdlog::info("--device auto: no usable GPU ({}); training on the CPU", why_not);
  return device;
}

// What a data-parallel run (mpirun) does not do yet, refused before anything is read.
void check_data_parallel(const TrainCommand& command, const Cluster& job) {
  if (command.shard_tables) {
    auto refuse = [](const std::string& what) { fail("--shard-tables: {}", what); };
    if (command.settings.model != Model::skipgram && command.settings.model != Model::cbow) {
      refuse("GloVe is trained data-parallel under mpirun, each rank owning its rows' records already; --shard-tables is for skip-gram and CBOW");
    }
    if (command.settings.subwords) refuse("--subwords is not sharded yet: its bucket rows are shared data-parallel under mpirun");
    if (!command.init.file.empty()) refuse("--init is not sharded yet: start from scratch, or train data-parallel");
    if (command.gpu_options.table == TablePlacement::device) {
      refuse("a rank's tables stay in its host memory (as --table host keeps them): --table device does not apply");
    }
    if (command.gpu_options.transfer == HostTransfer::mapped) {
      refuse("the GPU gathers each batch's rows (--host-transfer gather): mapped transfers would pin every row of a round");
    }
    if (command.output.storage != RowStorage::dense) {
      refuse("the vectors are written dense (f32, f16 or bf16); compress them afterwards with glove-convert --dtype int8 or --pq M");
    }
  }
  if (job.size() < 2) return;
  auto refuse = [&](const std::string& what) {
    fail("under mpirun ({} ranks): {} is not data-parallel yet; run it as one process", job.size(), what);
  };
  // Each rank holds only its rows' counts.
  if (!command.input.save_cooc.empty()) refuse("--save-cooc");
}

// Under mpirun, Ctrl-C reaches the ranks as mpirun's SIGTERM, followed by its SIGKILL
// (Cluster::stop_grace_seconds): says so when the checkpoint may not fit in between
// (a last round and the tables written at a pessimistic 200 MB/s).
void warn_if_no_time_to_checkpoint(const TrainingRun& run, const Cluster& job) {
  const double bytes =
      run.sharded ? static_cast<double>(run.sharded->held_bytes()) : 2.0 * static_cast<double>(run.input.bytes().size());
  const double needed = 0.5 + bytes / 200e6;
  const double grace = job.stop_grace_seconds();
  if (grace >= needed) return;
  spdlog::warn(
      "mpirun kills the ranks {:g} s after passing on Ctrl-C or SIGTERM (odls_base_sigkill_timeout), and this "
      "run's checkpoint ({}) may need {:.0f} s: for an interrupted run to leave one, "
      "export OMPI_MCA_odls_base_sigkill_timeout={:.0f} before mpirun",
      grace, human_bytes(bytes), std::ceil(needed), std::ceil(2 * needed));
}

int train_on_this_rank(TrainCommand command, Cluster& job);

}  // namespace

std::string context_output_path(const std::string& output) {
  const std::string ext = ".emb";
  if (output.size() > ext.size() && output.compare(output.size() - ext.size(), ext.size(), ext) == 0) {
    return output.substr(0, output.size() - ext.size()) + ".context.emb";
  }
  return output + ".context.emb";
}

int run_train_command(TrainCommand command) {
  Cluster& job = this_job();
  if (job.size() < 2) return train_on_this_rank(std::move(command), job);
  // Logs and progress come from rank 0; the others speak only to warn or fail.
  if (!job.is_root()) spdlog::set_level(spdlog::level::warn);
  try {
    return train_on_this_rank(std::move(command), job);
  } catch (const std::exception& e) {
    spdlog::error("rank {} of {}: {}", job.rank(), job.size(), e.what());
    spdlog::default_logger()->flush();
    job.abort(1);  // every rank ends (status 1, a failed run); mpirun exits non-zero
    throw;
  }
}

namespace {

// The files a run writes. They are created before the corpus is read, so that a directory
// it cannot write fails before the reading and training it would waste; only rank 0
// writes them.
struct RunOutputs {
  std::string default_checkpoint;  // OUTPUT.ckpt: a stopped run's, superseded by the vectors
  std::string checkpoint;          // where this run's checkpoints go: --checkpoint, else the default
  std::optional<AtomicOutput> vectors, context, fasttext;
  std::optional<MetricsLog> metrics;
  std::optional<PlotRecorder> plot;
};

void open_run_outputs(const TrainCommand& command, const TrainingRun& run, const TrainingModel& model, bool root,
                      RunOutputs& out) {
  out.default_checkpoint = run.output.output + ".ckpt";
  out.checkpoint = command.checkpoint.empty() ? out.default_checkpoint : command.checkpoint;
  // The vectors may go to a stream (a FIFO, a device, >(...)), and the checkpoint is named
  // after them: beside a FIFO of the user's that is a file like any other, but
  // /dev/fd/63.ckpt names nothing, and /dev/stdout.ckpt would be a file in /dev.
  if (command.checkpoint.empty() && (resolve_output_target(run.output.output).kind == OutputTarget::Kind::descriptor ||
                                     run.output.output.starts_with("/dev/") || run.output.output.starts_with("/proc/"))) {
    fail("{}: a Ctrl-C's checkpoint is named after the output, and {} is no place for one: give --checkpoint FILE",
         run.output.output, out.default_checkpoint);
  }
  if (command.resume.empty()) refuse_to_lose_checkpoint(out.checkpoint, command.restart, command.gpu);
  if (run.output.storage == RowStorage::pq && run.settings.dim % run.output.pq_m != 0) {
    fail_usage("--pq {}: the number of sub-quantizers must divide --dim {}", run.output.pq_m, run.settings.dim);
  }
  if (!root) return;
  out.vectors.emplace(run.output.output, Streaming::allowed);
  if (run.output.save_context) out.context.emplace(context_output_path(run.output.output), Streaming::allowed);
  if (!run.output.fasttext_bin.empty()) out.fasttext.emplace(run.output.fasttext_bin, Streaming::allowed);
  { AtomicOutput probe(out.checkpoint); }
  if (!command.metrics.empty()) out.metrics.emplace(command.metrics, run.settings.epochs, model.item_name());
  if (!command.plot.empty()) out.plot.emplace(command.plot, model.item_name());
}

// What the model's training needs besides the run: the GPU and its options, the stop
// flag, the ranks' sharing, and the reporter's callbacks.
TrainContext train_context(const TrainCommand& command, const std::optional<GpuDevice>& gpu, TableTraffic& gpu_traffic,
                           EpochReporter& reporter) {
  TrainContext context;
  context.gpu_trainer = &command.gpu_trainer;
  context.gpu = gpu;
  context.gpu_required = command.gpu.device == DeviceChoice::cuda;
  context.gpu_options = command.gpu_options;
  if (gpu) {
    context.gpu_options.batch_share = host_batch_share(context.gpu_options.batch_share);
    context.gpu_budget = gpu_budget(command.gpu, *gpu);
    context.gpu_traffic = &gpu_traffic;
  }
  context.stop = &stop_requested();
  context.sync_seconds = command.sync_seconds;
  context.sync_rows = command.sync_rows;
  if (command.sync_words_given) context.sync_words = command.sync_words;
  context.on_progress = [&reporter](const TrainProgress& p) { reporter.progress(p); };
  context.on_epoch = [&reporter](const TrainProgress& p) { reporter.epoch(p); };
  return context;
}

// Trains; returns whether every epoch ran (false: stopped by a signal). A corpus that
// became unreadable mid-run (or a failing GPU) still leaves a checkpoint of the work so
// far: the state says where each worker was before the chunk that failed. Under mpirun
// the failing rank ends the job (run_train_command) with no round to gather in. A failure
// before any work (a GPU memory plan refused, say) keeps nothing: a checkpoint of no
// progress would only make the same command, run again, refuse to overwrite it.
bool train_keeping_work(const TrainingModel& model, TrainingRun& run, TrainContext& context, EpochReporter& reporter,
                        const std::string& checkpoint, Cluster& job, const GpuRequest& gpu) {
  const std::uint64_t items_before = run.state.items_done;
  try {
    const bool finished = model.train(run, context);
    reporter.finish();
    return finished;
  } catch (const Error&) {
    reporter.erase();
    if (job.size() > 1 || run.state.items_done == items_before) throw;
    try {
      write_checkpoint(checkpoint, run, job);
      spdlog::warn("training failed (below); checkpoint written to {}; once the cause is mended, resume with: {}", checkpoint,
                   resume_command(checkpoint, job.size(), gpu));
    } catch (const std::exception& also) {
      spdlog::warn("no checkpoint: {}", also.what());
    }
    throw;
  }
}

// A run stopped by SIGINT or SIGTERM: its checkpoint (under mpirun the ranks stopped
// together, and their last round shared every row), its plot so far, and how to resume.
int keep_stopped_run(TrainingRun& run, Cluster& job, RunOutputs& out, const std::string& plot_title, std::uint64_t items_total,
                     const GpuRequest& gpu) {
  write_checkpoint(out.checkpoint, run, job);
  if (out.plot) out.plot->write(plot_title);
  const double done = static_cast<double>(run.state.items_done) / static_cast<double>(items_total);
  const int signal = stop_signal();  // 0 on a rank whose stop came from another rank
  if (job.is_root()) {
    spdlog::warn("interrupted by {} at epoch {} of {} ({:.1f}% done); checkpoint written to {}; resume with: {}",
                 signal == SIGTERM  ? "SIGTERM"
                 : signal == SIGINT ? "SIGINT"
                                    : "another rank's stop",
                 run.state.epoch + 1, run.settings.epochs, 100 * done, out.checkpoint,
                 resume_command(out.checkpoint, job.size(), gpu));
  }
  return kExitInterrupted;
}

// A finished run's files (rank 0): the vectors, the context vectors, the plot; then the
// automatic checkpoint of an earlier stop, and the files it named (spooled corpus, GloVe's
// records), which the vectors supersede.
void write_finished_run(const TrainCommand& command, TrainingRun& run, const TrainingModel& model, RunOutputs& out,
                        const std::string& plot_title) {
  const TrainSettings& settings = run.settings;
  const auto metadata = vectors_metadata(run);
  // --init-keep's words follow the trained rows.
  Vocabulary with_kept;
  if (!run.init.kept_words.empty()) with_kept = with_kept_words(run.corpus.vocab, run.init);
  const Vocabulary& vocab = run.init.kept_words.empty() ? run.corpus.vocab : with_kept;
  const RowReader vectors = with_kept_rows(model.vector_rows(run), run, run.init.kept_vectors);
  const std::optional<SubwordTable> subwords = model.subword_table(run);  // after vector_rows, once
  QuantizeSpec quantize;  // --dtype int8, --pq M: k-means seeded with the run's seed
  quantize.storage = run.output.storage;
  quantize.pq.m = run.output.pq_m;
  quantize.pq.seed = settings.seed;
  const bool compressed = run.output.storage != RowStorage::dense;
  // A compressed file's n-gram buckets stay vectors, at half the bytes.
  const DType subword_dtype = compressed ? DType::f16 : run.output.dtype;
  write_trained_vectors(*out.vectors, vocab, settings.dim, vectors, run.output.dtype, run.corpus.name, metadata, settings.threads,
                        [&](EmbWriteOptions& options) -> std::shared_ptr<const void> {
                          return subwords ? subwords->add_to_emb(subword_dtype, options) : nullptr;
                        },
                        &quantize);
  const RowReader context = with_kept_rows(model.context_rows(run), run, run.init.kept_context);
  if (out.context) {
    write_trained_vectors(*out.context, vocab, settings.dim, context, run.output.dtype, run.corpus.name, metadata,
                          settings.threads, {}, &quantize);
  }
  if (out.fasttext) {
    FastTextWriteArgs args;
    args.cbow = settings.model == Model::cbow;
    args.ws = static_cast<std::int32_t>(settings.window);
    args.epoch = static_cast<std::int32_t>(settings.epochs);
    args.min_count = static_cast<std::int32_t>(std::min<std::uint64_t>(run.output.min_count, 1u << 30));
    args.neg = static_cast<std::int32_t>(settings.negative);
    args.t = settings.sample;
    write_fasttext_output(*out.fasttext, vocab, settings.dim, vectors, context, subwords ? &*subwords : nullptr, args);
  }
  if (out.plot) out.plot->write(plot_title);
  if (run.sharded) run.sharded->end_reading();  // the other ranks stop serving rows
  spdlog::info("wrote {} ({} words x {} dims, {}{}){}{}", run.output.output, vocab.size(), settings.dim,
               run.output.storage == RowStorage::int8 ? "int8"
               : run.output.storage == RowStorage::pq ? fmt::format("pq, {} bytes a row", run.output.pq_m)
                                                      : std::string(vector_dtype_name(run.output.dtype)),
               model.output_note(run), out.context ? " and " + out.context->path() : "",
               out.fasttext ? " and the fastText model " + out.fasttext->path() : "");
  if (command.checkpoint.empty() && ::access(out.default_checkpoint.c_str(), F_OK) == 0) {
    ::unlink(out.default_checkpoint.c_str());
  }
  run.release_temporaries();
}

// A finished sharded run: its shards go with the default checkpoint that named them
// (write_finished_run removes it); those of a --checkpoint, or of a checkpoint resumed
// from elsewhere, stay with it.
void release_shard_file(const TrainCommand& command, TrainingRun& run, Cluster& job, const std::string& default_checkpoint) {
  if (!run.sharded) return;
  std::uint64_t written[1] = {1};
  job.sum(written);  // rank 0 has written the vectors and removed the manifest
  if (command.checkpoint.empty() && run.shard_file.starts_with(default_checkpoint + ".shard-")) ::unlink(run.shard_file.c_str());
}

int train_on_this_rank(TrainCommand command, Cluster& job) {
  check_data_parallel(command, job);  // before anything is read
  TrainingRun run;
  if (command.resume.empty()) {
    run.settings = command.settings;
    run.output = command.output;
  } else {
    run = resumed_run(command, job);
  }
  const TrainSettings& settings = run.settings;
  const TrainingModel& model = training_model(settings.model);
  const bool root = job.is_root();  // writes the outputs
  const bool count_only = run.output.output.empty() && !command.input.save_cooc.empty() && command.resume.empty();
  if (run.output.output.empty() && !count_only) fail("no output: give --output");
  if (run.output.output == "-") fail("--output: embed-train writes files, not standard output");
  refuse_misnamed_output(run.output.output);

  // The GPU is looked for once, before the corpus is read, so that --device cuda without
  // one fails first. A count-only run trains nothing and only needs the --device cuda check.
  std::optional<GpuDevice> gpu;
  if (!count_only || command.gpu.device == DeviceChoice::cuda) {
    gpu = find_gpu(command, settings, command.init.lock || run.init.lock());
  }
  // Every output is created before the corpus is read.
  std::optional<AtomicOutput> counts_out;
  if (!command.input.save_cooc.empty()) counts_out.emplace(command.input.save_cooc);
  if (count_only) {
    model.count_only(command.input, run, *counts_out);
    return 0;
  }
  RunOutputs out;
  open_run_outputs(command, run, model, root, out);

  // --init's file is read before the corpus, so that a file we cannot use fails first.
  std::optional<InitSource> init;
  if (!command.init.file.empty()) {
    init = read_init_source(command.init.file, settings.threads, settings.subwords);
    settle_init_settings(*init, command.init, run.settings);
  }

  const GpuOptions& placement = command.gpu_options;
  if (gpu && placement.table == TablePlacement::host && run.output.dtype == DType::f16 && job.size() == 1) {
    command.input.host_tables = DType::f16;
  }
  command.input.shard_tables = command.shard_tables;
  command.input.hot_rows = command.sync_rows;
  // Until training starts there is nothing to save: Ctrl-C just ends the process (and
  // removes the temporaries). From here on it asks for a checkpoint.
  if (command.resume.empty()) model.start(command.input, run, counts_out ? &*counts_out : nullptr);
  if (init) {
    apply_init(*init, command.init, model, run);
    init.reset();  // its rows are in the tables now
  }
  // Without --epochs, a small corpus trains more of them (word2vec's models), known once it is
  // counted (a whole job's under mpirun).
  if (command.resume.empty() && !command.epochs_given) {
    const unsigned epochs = model.epochs_for_corpus(settings, run.corpus.words);
    if (epochs != settings.epochs) {
      spdlog::info("{} epochs, not {}, for a corpus of {} words: a small corpus wants more passes; --epochs sets them",
                   epochs, settings.epochs, human_count(static_cast<double>(run.corpus.words)));
      run.settings.epochs = epochs;
      if (out.metrics) out.metrics->set_epochs(epochs);
    }
  }
  // Without --lr, the rate a run starts from may depend on where it trains (the GPU's summed
  // steps take rates of their own) and on what it trains (SGD's words per distinct word,
  // CBOW's Adam's words), known once the corpus is counted (a whole job's under mpirun); a
  // checkpoint and the output's metadata keep the rate it ran at.
  const std::uint64_t items_total = model.items_per_epoch(run) * settings.epochs;
  if (command.resume.empty() && !command.lr_given) {
    // --init's vectors are counted as trained as long as this run: continuing text8-head's 5
    // epochs for 5 more scored best at about the rate of the 10 epochs' whole (bench/RESULTS.md,
    // issue 68), not at a fresh run's.
    const bool continues = !command.init.file.empty();
    const RunLength length{continues ? 2 * items_total : items_total, run.corpus.distinct_words};
    const float lr = model.run_starting_lr(settings, length, gpu.has_value());
    const float cpu_lr = gpu ? model.run_starting_lr(settings, length, false) : lr;
    run.settings.lr = lr;
    const std::string words = fmt::format("{} {}", human_count(static_cast<double>(items_total)), model.item_name());
    if (gpu && lr != cpu_lr) {
      spdlog::info(
          "--optimizer {} starts at lr {} on the GPU, which sums a run of windows' gradients per row (the CPU's: {}, for "
          "a run of {}); --lr sets it",
          optimizer_name(settings.optimizer), lr, cpu_lr, words);
    } else {
      // Corpus words per distinct word: what word2vec's SGD rate follows (GloVe's records are no words).
      const std::string per_distinct_word =
          model.item_name() == "words" ? fmt::format(", {:.0f} per distinct word", length.per_distinct_word()) : std::string();
      spdlog::info("lr {} for a run of {}{}{}; --lr sets it", lr, words, per_distinct_word,
                   continues ? " (--init's vectors counted as trained as long again)" : "");
    }
  }
  install_stop_handlers();
  if (root && job.size() > 1) warn_if_no_time_to_checkpoint(run, job);

  EpochReporter::Run shown;
  shown.epochs = settings.epochs;
  shown.items_left = items_total - run.state.items_done;
  shown.items_done = run.state.items_done;
  shown.items = model.item_name();
  shown.loss_name = model.loss_name();
  shown.threads = static_cast<double>(settings.threads) * job.size();
  shown.ranks = job.size();
  TableTraffic gpu_traffic;
  EpochReporter reporter(shown, out.metrics ? &*out.metrics : nullptr, out.plot ? &*out.plot : nullptr,
                         gpu ? &gpu_traffic : nullptr);
  TrainContext context = train_context(command, gpu, gpu_traffic, reporter);
  if (!command.checkpoint.empty()) {  // --checkpoint: one after every epoch too
    context.on_epoch = [&](const TrainProgress& p) {
      reporter.epoch(p);
      write_checkpoint(out.checkpoint, run, job);
    };
  }
  const bool finished = train_keeping_work(model, run, context, reporter, out.checkpoint, job, command.gpu);
  const std::string plot_title = fmt::format("{} \u2014 {} {}: {} and learning rate", run.output.output, model.name(),
                                             finished ? "training" : "training (interrupted)", model.loss_name());
  if (!finished) return keep_stopped_run(run, job, out, plot_title, items_total, command.gpu);
  if (!root) {
    if (run.sharded) run.sharded->serve();  // rank 0 writes the vectors, asking this rank for its rows
    release_shard_file(command, run, job, out.default_checkpoint);
    run.release_temporaries();  // this rank's own (GloVe's records file), which a checkpoint may have kept
    return 0;                   // the ranks hold equal tables after the last epoch's averaging: rank 0 writes them
  }
  write_finished_run(command, run, model, out, plot_title);
  release_shard_file(command, run, job, out.default_checkpoint);
  return 0;
}

}  // namespace
}  // namespace embed
