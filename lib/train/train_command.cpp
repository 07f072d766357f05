#include "train/train_command.h"

#include <unistd.h>

#include <csignal>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/atomic_output.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/stop_signal.h"
#include "format/dtype.h"
#include "train/glove_trainer.h"
#include "train/run_setup.h"
#include "train/vectors_output.h"

namespace embed {
namespace {

// The .emb's metadata: the settings that shaped the vectors and what they were trained on.
std::map<std::string, std::string> vectors_metadata(const TrainingRun& run) {
  std::map<std::string, std::string> metadata = settings_metadata(run.settings);
  metadata["min_count"] = std::to_string(run.output.min_count);
  metadata["corpus_tokens"] = std::to_string(run.corpus.tokens);
  return metadata;
}

// What an epoch walks: corpus words, or GloVe's co-occurrence records.
std::uint64_t items_per_epoch(const TrainingRun& run) {
  return run.settings.model == Model::glove ? run.records.size() : run.corpus.ids.size();
}
const char* item_name(const TrainingRun& run) { return run.settings.model == Model::glove ? "records" : "words"; }

TrainingRun resumed_run(const TrainCommand& command) {
  TrainingRun run = load_checkpoint(command.resume);
  if (!command.output.output.empty()) run.output.output = command.output.output;
  const double done = static_cast<double>(run.state.words_done) /
                      (static_cast<double>(items_per_epoch(run)) * run.settings.epochs);
  spdlog::info("{}: resuming {} training at epoch {} of {} ({:.1f}% done); corpus {}, vocabulary {} words",
               command.resume, model_name(run.settings.model), std::min(run.state.epoch + 1, run.settings.epochs),
               run.settings.epochs, 100 * done, run.corpus.name, run.corpus.vocab.size());
  return run;
}

// The usable GPU for --device cuda or auto, or nullopt (with one log line for auto).
// --device cuda without one, or with a model the GPU does not train, is an error.
std::optional<GpuDevice> find_gpu(const TrainCommand& command, const TrainSettings& settings) {
  if (command.device == "cpu") return std::nullopt;
  const bool required = command.device == "cuda";
  if (settings.model == Model::glove && !supports_glove_on_gpu(settings.optimizer)) {
    if (required) fail("--device cuda: glove trains with adagrad or sgd on the GPU; --optimizer adam trains on the CPU");
    spdlog::info("--device auto: glove with --optimizer adam trains on the CPU");
    return std::nullopt;
  }
  std::string why_not = "this build has no CUDA backend (nvcc was not found when it was built)";
  std::optional<GpuDevice> device;
  if (command.gpu_trainer.built()) device = command.gpu_trainer.find_device(why_not);
  if (!device && required) fail("--device cuda: no usable GPU: {}", why_not);
  if (!device) spdlog::info("--device auto: no usable GPU ({}); training on the CPU", why_not);
  return device;
}

// The device memory a GPU backend may plan for: --gpu-memory, or most of what is free.
std::uint64_t gpu_budget(const TrainCommand& command, const GpuDevice& device) {
  return command.gpu.gpu_memory ? command.gpu.gpu_memory : default_gpu_budget(device.free_memory);
}

// One line when --table auto left the tables in host memory, which is much slower.
void explain_placement(const TrainCommand& command, const GpuMemoryPlan& plan, std::uint64_t table_bytes,
                       std::uint64_t budget) {
  if (plan.placement != TablePlacement::host || command.gpu.table != TablePlacement::automatic) return;
  spdlog::info("--table auto: the tables ({}) do not fit in the {} of GPU memory allowed; they stay in host memory",
               human_bytes(static_cast<double>(table_bytes)), human_bytes(static_cast<double>(budget)));
}

// The GPU backend for `run` on `device`, within --gpu-memory.
std::unique_ptr<TrainBackend> gpu_backend(const TrainCommand& command, TrainingRun& run, const GpuDevice& device) {
  const TrainSettings& s = run.settings;
  const std::optional<DType> storage = parse_vector_dtype(run.output.dtype);
  EMBED_ASSERT(storage.has_value());
  GpuTrainShape shape;
  shape.rows = run.input.rows();
  shape.dim = s.dim;
  shape.stride = run.input.stride();
  shape.storage = *storage;
  shape.max_inputs_per_window = 2 * s.window;
  shape.negatives = s.negative;
  shape.workers = s.threads;
  const std::uint64_t budget = gpu_budget(command, device);
  GpuBackendRequest request{s.model, &run.input, &run.output_table, shape, plan_gpu_memory(shape, command.gpu, budget),
                            device};
  explain_placement(command, request.plan, 2 * shape.rows * shape.stride * dtype_size(shape.storage), budget);
  return command.gpu_trainer.make_backend(request);
}

// The GPU backend for GloVe's `run` on `device`, within --gpu-memory.
std::unique_ptr<GloveBackend> glove_gpu_backend(const TrainCommand& command, TrainingRun& run, const GpuDevice& device) {
  const TrainSettings& s = run.settings;
  const GloveLayout layout(s.dim, s.optimizer, s.adagrad);
  const GloveGpuShape shape{run.input.rows(), layout.width, s.threads};
  const std::uint64_t budget = gpu_budget(command, device);
  GloveGpuRequest request{&run.input, &run.output_table, layout, s.optimizer, s.adagrad,
                          plan_glove_gpu_memory(shape, command.gpu, budget), device};
  explain_placement(command, request.plan, 2 * shape.rows * shape.width * sizeof(float), budget);
  return command.gpu_trainer.make_glove_backend(request);
}

// Trains `run` until it ends (true) or a stop signal stops it (false).
// `gpu` is find_gpu's answer: train there, or on the CPU when it is nullopt.
bool train(TrainingRun& run, const TrainCommand& command, const std::optional<GpuDevice>& gpu,
           const std::function<void(const TrainProgress&)>& on_epoch,
           const std::function<void(const TrainProgress&)>& on_progress) {
  const TrainSettings& s = run.settings;
  if (s.model == Model::glove) {
    const std::string optimizer = s.optimizer == Optimizer::adagrad
                                      ? fmt::format("adagrad per {}", adagrad_mode_name(s.adagrad))
                                      : std::string(optimizer_name(s.optimizer));
    const GloveLayout layout(s.dim, s.optimizer, s.adagrad);
    // The GPU trains an epoch faster than the CPU reshuffles the records one by one,
    // so it reshuffles whole blocks of them between epochs.
    std::unique_ptr<GloveBackend> backend =
        gpu ? glove_gpu_backend(command, run, *gpu)
            : make_cpu_glove_backend(run.input, run.output_table, layout, s.optimizer, s.adagrad);
    spdlog::info("training glove on {}: dim {}, x-max {}, alpha {}, {}, {} epochs, lr {}, {} threads, seed {}; {} "
                 "co-occurrence records{}",
                 backend->name(), s.dim, s.x_max, s.alpha, optimizer, s.epochs, s.lr, s.threads, s.seed,
                 run.records.size(), gpu ? ", reshuffled in blocks between epochs" : "");
    GloveTrainer trainer(s, run.records, *backend, gpu ? RecordShuffle::blocks : RecordShuffle::full);
    return trainer.run(run.state, stop_requested(), on_epoch, on_progress);
  }
  std::unique_ptr<TrainBackend> backend =
      gpu ? gpu_backend(command, run, *gpu) : make_cpu_backend(s.model, run.input, run.output_table, s.threads, 2 * s.window);
  spdlog::info("training {} on {}: dim {}, window {}, negative {}, sample {}, {} epochs, lr {}, {} threads, seed {}",
               model_name(s.model), backend->name(), s.dim, s.window, s.negative, s.sample, s.epochs, s.lr, s.threads,
               s.seed);
  Trainer trainer(s, run.corpus, *backend);
  return trainer.run(run.state, stop_requested(), on_epoch, on_progress);
}

// Row r of the vectors to write from `table`: the vector itself, or for GloVe's W + W̃
// the sum of the word's two vectors.
RowReader vector_rows(const TrainingRun& run, const RowMatrix& table, bool add_contexts) {
  const std::size_t dim = run.settings.dim;
  if (!add_contexts) return [&table, dim](std::size_t r, float* out) { std::copy_n(table.row(r), dim, out); };
  return [&run, dim](std::size_t r, float* out) {
    const float* w = run.input.row(r);
    const float* c = run.output_table.row(r);
    for (std::size_t k = 0; k < dim; ++k) out[k] = w[k] + c[k];
  };
}

}  // namespace

std::string context_output_path(const std::string& output) {
  const std::string ext = ".emb";
  if (output.size() > ext.size() && output.compare(output.size() - ext.size(), ext.size(), ext) == 0) {
    return output.substr(0, output.size() - ext.size()) + ".context.emb";
  }
  return output + ".context.emb";
}

int run_train_command(TrainCommand command) {
  TrainingRun run = command.resume.empty() ? TrainingRun{command.settings, command.output, {}, {}, {}, {}, {}}
                                            : resumed_run(command);
  const TrainSettings& settings = run.settings;
  const bool count_only = run.output.output.empty() && !command.save_cooc.empty() && command.resume.empty();
  if (run.output.output.empty() && !count_only) fail("no output: give --output");
  if (run.output.output == "-") fail("--output: embed-train writes files, not standard output");
  const std::optional<DType> dtype = parse_vector_dtype(run.output.dtype);
  if (!dtype) fail("--dtype: expected f32, f16 or bf16, not \"{}\"", run.output.dtype);

  // The GPU is looked for once, before the corpus is read, so that --device cuda without
  // one fails first. A count-only run trains nothing and only needs the --device cuda check.
  std::optional<GpuDevice> gpu;
  if (!count_only || command.device == "cuda") gpu = find_gpu(command, settings);

  // Every output is created before the corpus is read, so that a directory we cannot
  // write fails before the reading and training it would waste.
  std::optional<AtomicOutput> cooc_out;
  if (!command.save_cooc.empty()) cooc_out.emplace(command.save_cooc);
  if (count_only) {
    glove_cooccurrences(command, run, &*cooc_out, false);
    return 0;
  }
  const std::string default_checkpoint = run.output.output + ".ckpt";
  const std::string checkpoint_path = command.checkpoint.empty() ? default_checkpoint : command.checkpoint;
  AtomicOutput vectors_out(run.output.output);
  std::optional<AtomicOutput> context_out;
  if (run.output.save_context) context_out.emplace(context_output_path(run.output.output));
  { AtomicOutput probe(checkpoint_path); }

  // Until training starts there is nothing to save: Ctrl-C just ends the process (and
  // removes the temporaries). From here on it asks for a checkpoint.
  if (command.resume.empty()) {
    if (settings.model == Model::glove) {
      glove_cooccurrences(command, run, cooc_out ? &*cooc_out : nullptr, true);
      start_glove_run(command, run);
    } else {
      start_word2vec_run(command, run);
    }
  }
  install_stop_handlers();

  const std::uint64_t items_total = items_per_epoch(run) * settings.epochs;
  const char* items = item_name(run);
  const char* loss_name = settings.model == Model::glove ? "cost" : "loss";
  Progress progress("training", items_total - run.state.words_done, items);
  double epoch_started = 0;
  std::uint64_t epoch_items_start = run.state.words_done;
  const bool keep_epoch_checkpoints = !command.checkpoint.empty();
  auto on_progress = [&](const TrainProgress& p) {
    const double per_second = p.seconds > 0 ? static_cast<double>(p.words_this_run) / p.seconds : 0;
    progress.update(p.words_this_run, fmt::format("epoch {}/{}, {}/s per thread, lr {:.3g}, {} {:.4f}", p.epoch + 1,
                                                  settings.epochs, human_count(per_second / settings.threads),
                                                  p.learning_rate, loss_name, p.loss));
  };
  auto on_epoch = [&](const TrainProgress& p) {
    const double seconds = p.seconds - epoch_started;
    const std::uint64_t done = p.words_done - epoch_items_start;
    const double per_second = seconds > 0 ? static_cast<double>(done) / seconds : 0;
    progress.erase();
    spdlog::info("epoch {}/{}: {} {:.4f}, lr {:.3g}, {} {} in {:.1f} s, {} {}/s ({}/s per thread)", p.epoch + 1,
                 settings.epochs, loss_name, p.loss, p.learning_rate, done, items, seconds, human_count(per_second), items,
                 human_count(per_second / settings.threads));
    epoch_started = p.seconds;
    epoch_items_start = p.words_done;
    if (keep_epoch_checkpoints) save_checkpoint(checkpoint_path, run);
  };
  const bool finished = train(run, command, gpu, on_epoch, on_progress);
  progress.finish();

  if (!finished) {
    save_checkpoint(checkpoint_path, run);
    const double done = static_cast<double>(run.state.words_done) / static_cast<double>(items_total);
    spdlog::warn("interrupted by {} at epoch {} of {} ({:.1f}% done); checkpoint written to {}; resume with: "
                 "embed-train --resume {}",
                 stop_signal() == SIGTERM ? "SIGTERM" : "SIGINT", run.state.epoch + 1, settings.epochs, 100 * done,
                 checkpoint_path, checkpoint_path);
    return kExitInterrupted;
  }

  const auto metadata = vectors_metadata(run);
  const bool glove_sum = settings.model == Model::glove && settings.vectors == GloveVectors::word_plus_context;
  write_trained_vectors(vectors_out, run.corpus.vocab, settings.dim, vector_rows(run, run.input, glove_sum), *dtype,
                        run.corpus.name, metadata, settings.threads);
  if (context_out) {
    write_trained_vectors(*context_out, run.corpus.vocab, settings.dim, vector_rows(run, run.output_table, false), *dtype,
                          run.corpus.name, metadata, settings.threads);
  }
  spdlog::info("wrote {} ({} words x {} dims, {}{}){}", run.output.output, run.corpus.vocab.size(), settings.dim,
               run.output.dtype, glove_sum ? ", W + W̃" : "", context_out ? " and " + context_out->path() : "");
  // The automatic checkpoint of an interrupted run is superseded by the vectors.
  if (command.checkpoint.empty() && ::access(default_checkpoint.c_str(), F_OK) == 0) ::unlink(default_checkpoint.c_str());
  return 0;
}

}  // namespace embed
