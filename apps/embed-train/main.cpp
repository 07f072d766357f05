// embed-train: word2vec skip-gram and CBOW with negative sampling. Parses options and
// hands over to lib/train.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "backend/registry.h"
#include "core/log.h"
#include "core/parallel.h"
#include "core/report_errors.h"
#include "train/train_command.h"

namespace {
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "embed-train: word vectors by word2vec's skip-gram or CBOW with negative sampling, on all CPU cores.\n"
      "The corpus is whitespace-separated UTF-8 text (any line length; gzip is detected; - reads stdin once).\n"
      "Ctrl-C or SIGTERM stops at a safe point and writes a checkpoint (exit status 130) that --resume continues.\n"
      "Exit status: 0 vectors written, 1 bad input or failure, 2 bad usage, 130 interrupted (checkpoint written).",
      "embed-train"};
  embed::TrainCommand command;
  embed::TrainSettings& s = command.settings;
  s.threads = embed::default_thread_count();
  std::string model = "skipgram";
  int verbose = 0;
  bool quiet = false;

  auto* corpus = app.add_option("--corpus", command.corpus, "training text: one or more files, - for stdin");
  app.add_option("-o,--output", command.output.output, "the vectors to write (.emb)");
  std::vector<CLI::Option*> training_options;
  training_options.push_back(app.add_option("--model", model, "skipgram or cbow")
                                 ->check(CLI::IsMember({"skipgram", "cbow"}))
                                 ->capture_default_str());
  training_options.push_back(
      app.add_option("--dim", s.dim, "vector dimensions")->check(CLI::Range(1, 10000))->capture_default_str());
  training_options.push_back(app.add_option("--window", s.window, "context words on each side, at most")
                                 ->check(CLI::Range(1, 100))
                                 ->capture_default_str());
  training_options.push_back(app.add_option("--negative", s.negative, "negative samples per window")
                                 ->check(CLI::Range(1, 60))
                                 ->capture_default_str());
  training_options.push_back(app.add_option("--min-count", command.output.min_count, "drop words rarer than this")
                                 ->check(CLI::Range(1ull, 1ull << 62))
                                 ->capture_default_str());
  training_options.push_back(
      app.add_option("--max-vocab", command.output.max_vocab, "keep only the N most frequent words (0: all)")
          ->capture_default_str());
  training_options.push_back(
      app.add_option("--sample", s.sample, "subsampling threshold for frequent words (0: off)")
          ->check(CLI::Range(0.0, 1.0))
          ->capture_default_str());
  training_options.push_back(
      app.add_option("--epochs", s.epochs, "passes over the corpus")->check(CLI::Range(1, 100000))->capture_default_str());
  auto* lr = app.add_option("--lr", s.lr, "starting learning rate (default 0.025 for skipgram, 0.05 for cbow)")
                 ->check(CLI::Range(1e-9, 10.0));
  training_options.push_back(lr);
  training_options.push_back(app.add_option("--threads", s.threads, "worker threads (default: all cores)")
                                 ->check(CLI::Range(1, 1024)));
  training_options.push_back(
      app.add_option("--seed", s.seed, "random seed; with --threads 1 the output is bit-for-bit reproducible")
          ->capture_default_str());
  training_options.push_back(
      app.add_option("--dtype", command.output.dtype, "storage type of the vectors (training is f32): f32, f16, bf16")
          ->check(CLI::IsMember({"f32", "f16", "bf16"}))
          ->capture_default_str());
  training_options.push_back(
      app.add_flag("--save-context", command.output.save_context,
                   "also write the output (context) vectors, to OUT.context.emb"));
  app.add_option("--device", command.device, "where to train: cpu, or auto (the best backend built; CPU here)")
      ->check(CLI::IsMember({"cpu", "auto"}))
      ->capture_default_str();
  app.add_option("--checkpoint", command.checkpoint,
                 "write a checkpoint here after every epoch and on interruption (default: OUT.ckpt, on interruption "
                 "only, removed once the vectors are written)");
  auto* resume = app.add_option("--resume", command.resume,
                                "continue the run a checkpoint saved, with its settings and corpus")
                     ->check(CLI::ExistingFile);
  app.add_flag("-v,--verbose", verbose, "more messages (repeat for more)");
  app.add_flag("-q,--quiet", quiet, "errors only");
  app.set_version_flag("--version", std::function<std::string()>([] {
    return std::string("embed-train " EMBED_VERSION "\nbackends: ") + embed::backend_summary();
  }));
  corpus->excludes(resume);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  embed::init_logging("embed-train", quiet ? -1 : verbose);
  if (command.resume.empty()) {
    if (command.corpus.empty()) {
      spdlog::error("--corpus is required (or --resume a checkpoint); see --help");
      return kExitUsage;
    }
    if (command.output.output.empty()) {
      spdlog::error("--output is required; see --help");
      return kExitUsage;
    }
  } else {
    for (const auto* option : training_options) {
      if (option->count() > 0) {
        spdlog::warn("{} is ignored with --resume: the checkpoint's settings are used", option->get_name());
      }
    }
  }
  s.model = *embed::parse_model_name(model);  // CLI11 has checked the spelling
  if (lr->count() == 0 && s.model == embed::Model::cbow) s.lr = 0.05f;
  return embed::report_errors(kExitFailure, [&] { return embed::run_train_command(std::move(command)); });
}
