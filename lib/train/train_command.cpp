#include "train/train_command.h"

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/atomic_output.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/stop_signal.h"
#include "format/dtype.h"
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

// Reads the corpus of a fresh run into `run`.
void read_training_corpus(const TrainCommand& command, TrainingRun& run) {
  CorpusOptions options;
  options.min_count = command.output.min_count;
  options.max_vocab = command.output.max_vocab;
  run.corpus = read_corpus(command.corpus, options);
  const Corpus& c = run.corpus;
  spdlog::info("{}: {} words, {} distinct; vocabulary {} words (min-count {}{}), {:.1f}% of the text", c.name, c.tokens,
               c.distinct_words, c.vocab.size(), options.min_count,
               options.max_vocab > 0 ? fmt::format(", max-vocab {}", options.max_vocab) : "",
               100.0 * static_cast<double>(c.ids.size()) / static_cast<double>(c.tokens));
  if (c.truncated_tokens > 0) spdlog::info("{}: {} tokens longer than 100 bytes were cut", c.name, c.truncated_tokens);
  if (c.invalid_utf8_words > 0) spdlog::warn("{}: left out {} words that are not valid UTF-8", c.name, c.invalid_utf8_words);
  if (c.ids.size() < 2) fail("{}: too few words to train on ({} in the vocabulary)", c.name, c.ids.size());
  run.input = RowMatrix(c.vocab.size(), run.settings.dim);
  run.output_table = RowMatrix(c.vocab.size(), run.settings.dim);
  init_uniform(run.input, run.settings.seed, run.settings.threads);
  run.state = TrainState::start(run.settings, c.ids.size());
}

TrainingRun resumed_run(const TrainCommand& command) {
  TrainingRun run = load_checkpoint(command.resume);
  if (!command.output.output.empty()) run.output.output = command.output.output;
  const double done = static_cast<double>(run.state.words_done) /
                      (static_cast<double>(run.corpus.ids.size()) * run.settings.epochs);
  spdlog::info("{}: resuming {} training at epoch {} of {} ({:.1f}% done); corpus {}, vocabulary {} words",
               command.resume, model_name(run.settings.model), std::min(run.state.epoch + 1, run.settings.epochs),
               run.settings.epochs, 100 * done, run.corpus.name, run.corpus.vocab.size());
  return run;
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
  TrainingRun run = command.resume.empty() ? TrainingRun{command.settings, command.output, {}, {}, {}, {}}
                                            : resumed_run(command);
  const TrainSettings& settings = run.settings;
  if (run.output.output.empty()) fail("no output: give --output");
  if (run.output.output == "-") fail("--output: embed-train writes files, not standard output");
  const std::optional<DType> dtype = parse_vector_dtype(run.output.dtype);
  if (!dtype) fail("--dtype: expected f32, f16 or bf16, not \"{}\"", run.output.dtype);
  const std::string default_checkpoint = run.output.output + ".ckpt";
  const std::string checkpoint_path = command.checkpoint.empty() ? default_checkpoint : command.checkpoint;

  // Every output is created before the corpus is read, so that a directory we cannot
  // write fails before the reading and training it would waste.
  AtomicOutput vectors_out(run.output.output);
  std::optional<AtomicOutput> context_out;
  if (run.output.save_context) context_out.emplace(context_output_path(run.output.output));
  { AtomicOutput probe(checkpoint_path); }

  // Until training starts there is nothing to save: Ctrl-C just ends the process (and
  // removes the temporaries). From here on it asks for a checkpoint.
  if (command.resume.empty()) read_training_corpus(command, run);
  install_stop_handlers();

  auto backend = make_cpu_backend(settings.model, run.input, run.output_table, settings.threads, 2 * settings.window);
  if (command.device == "auto") spdlog::debug("--device auto: training on the CPU (this build has no GPU trainer)");
  spdlog::info("training {} on {}: dim {}, window {}, negative {}, sample {}, {} epochs, lr {}, {} threads, seed {}",
               model_name(settings.model), backend->name(), settings.dim, settings.window, settings.negative,
               settings.sample, settings.epochs, settings.lr, settings.threads, settings.seed);

  Trainer trainer(settings, run.corpus, *backend);
  const std::uint64_t words_total = run.corpus.ids.size() * settings.epochs;
  Progress progress("training", words_total - run.state.words_done, "words");
  double epoch_started = 0;
  std::uint64_t epoch_words_start = run.state.words_done;
  const bool keep_epoch_checkpoints = !command.checkpoint.empty();
  auto on_progress = [&](const TrainProgress& p) {
    const double per_second = p.seconds > 0 ? static_cast<double>(p.words_this_run) / p.seconds : 0;
    progress.update(p.words_this_run, fmt::format("epoch {}/{}, {}/s per thread, lr {:.3g}, loss {:.4f}", p.epoch + 1,
                                                  settings.epochs, human_count(per_second / settings.threads),
                                                  p.learning_rate, p.loss));
  };
  auto on_epoch = [&](const TrainProgress& p) {
    const double seconds = p.seconds - epoch_started;
    const std::uint64_t words = p.words_done - epoch_words_start;
    const double per_second = seconds > 0 ? static_cast<double>(words) / seconds : 0;
    progress.erase();
    spdlog::info("epoch {}/{}: loss {:.4f}, lr {:.3g}, {} words in {:.1f} s, {} words/s ({}/s per thread)", p.epoch + 1,
                 settings.epochs, p.loss, p.learning_rate, words, seconds, human_count(per_second),
                 human_count(per_second / settings.threads));
    epoch_started = p.seconds;
    epoch_words_start = p.words_done;
    if (keep_epoch_checkpoints) {
      save_checkpoint(checkpoint_path, run);
    }
  };
  const bool finished = trainer.run(run.state, stop_requested(), on_epoch, on_progress);
  progress.finish();

  if (!finished) {
    save_checkpoint(checkpoint_path, run);
    const double done = static_cast<double>(run.state.words_done) / static_cast<double>(words_total);
    spdlog::warn("interrupted by {} at epoch {} of {} ({:.1f}% done); checkpoint written to {}; resume with: "
                 "embed-train --resume {}",
                 stop_signal() == SIGTERM ? "SIGTERM" : "SIGINT", run.state.epoch + 1, settings.epochs, 100 * done,
                 checkpoint_path, checkpoint_path);
    return kExitInterrupted;
  }

  const auto metadata = vectors_metadata(run);
  write_trained_vectors(vectors_out, run.corpus.vocab, run.input, *dtype, run.corpus.name, metadata, settings.threads);
  if (context_out) {
    write_trained_vectors(*context_out, run.corpus.vocab, run.output_table, *dtype, run.corpus.name, metadata,
                          settings.threads);
  }
  spdlog::info("wrote {} ({} words x {} dims, {}){}", run.output.output, run.corpus.vocab.size(), settings.dim,
               run.output.dtype, context_out ? " and " + context_out->path() : "");
  // The automatic checkpoint of an interrupted run is superseded by the vectors.
  if (command.checkpoint.empty() && ::access(default_checkpoint.c_str(), F_OK) == 0) ::unlink(default_checkpoint.c_str());
  return 0;
}

}  // namespace embed
