// embed-train: word2vec skip-gram and CBOW with negative sampling, and GloVe. Parses
// options and hands over to lib/train.
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

// Options given on the command line, among `options`.
std::vector<const CLI::Option*> given(const std::vector<CLI::Option*>& options) {
  std::vector<const CLI::Option*> out;
  for (const auto* option : options) {
    if (option->count() > 0) out.push_back(option);
  }
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "embed-train: word vectors by word2vec's skip-gram or CBOW with negative sampling, or by GloVe, on all CPU cores\n"
      "or on a GPU (--device cuda).\n"
      "The corpus is whitespace-separated UTF-8 text (any line length; gzip is detected; - reads stdin once).\n"
      "Ctrl-C or SIGTERM stops at a safe point and writes a checkpoint (exit status 130) that --resume continues.\n"
      "Exit status: 0 vectors written, 1 bad input or failure, 2 bad usage, 130 interrupted (checkpoint written).",
      "embed-train"};
  embed::TrainCommand command;
  embed::TrainSettings& s = command.settings;
  s.threads = embed::default_thread_count();
  std::string model = "skipgram", optimizer, adagrad = "element", vectors = "w+c";
  bool asymmetric = false;
  int verbose = 0;
  bool quiet = false;

  auto* corpus = app.add_option("--corpus", command.corpus, "training text: one or more files, - for stdin");
  app.add_option("-o,--output", command.output.output, "the vectors to write (.emb)");
  std::vector<CLI::Option*> training_options;  // fixed by a checkpoint
  auto add = [&](CLI::Option* option) {
    training_options.push_back(option);
    return option;
  };
  add(app.add_option("--model", model, "skipgram, cbow or glove")
          ->check(CLI::IsMember({"skipgram", "cbow", "glove"}))
          ->capture_default_str());
  add(app.add_option("--dim", s.dim, "vector dimensions")->check(CLI::Range(1, 10000))->capture_default_str());
  auto* window = add(app.add_option("--window", s.window, "context words on each side, at most (default 5; glove 10)")
                         ->check(CLI::Range(1, 100)));
  auto* min_count = add(app.add_option("--min-count", command.output.min_count, "drop words rarer than this")
                            ->check(CLI::Range(1ull, 1ull << 62))
                            ->capture_default_str());
  auto* max_vocab = add(app.add_option("--max-vocab", command.output.max_vocab, "keep only the N most frequent words (0: all)")
                            ->capture_default_str());
  auto* epochs = add(app.add_option("--epochs", s.epochs, "passes over the corpus (default 5; glove 25)")
                         ->check(CLI::Range(1, 100000)));
  auto* lr = add(app.add_option("--lr", s.lr, "starting learning rate (default 0.025 for skipgram, 0.05 for cbow and glove)")
                     ->check(CLI::Range(1e-9, 10.0)));
  add(app.add_option("--optimizer", optimizer,
                         "sgd (skipgram, cbow: the only one; glove: linear decay), adagrad (glove's default), adam (glove)")
              ->check(CLI::IsMember({"sgd", "adagrad", "adam"})));
  add(app.add_option("--threads", s.threads, "worker threads (default: all cores)")->check(CLI::Range(1, 1024)));
  add(app.add_option("--seed", s.seed,
                     "random seed; on the CPU with --threads 1 the output is bit-for-bit reproducible (a GPU draws the "
                     "same samples, but its float atomics add in varying order)")
          ->capture_default_str());
  add(app.add_option("--dtype", command.output.dtype,
                     "storage type of the vectors written and of the skipgram/cbow tables a GPU trains (math is f32; "
                     "the CPU and GloVe train f32 tables): f32, f16, bf16")
          ->check(CLI::IsMember({"f32", "f16", "bf16"}))
          ->capture_default_str());
  add(app.add_flag("--save-context", command.output.save_context,
                   "also write the output (context) vectors, to OUT.context.emb"));

  // skip-gram and CBOW only
  std::vector<CLI::Option*> word2vec_options;
  word2vec_options.push_back(add(app.add_option("--negative", s.negative, "skipgram, cbow: negative samples per window")
                                     ->check(CLI::Range(1, 60))
                                     ->capture_default_str()));
  word2vec_options.push_back(
      add(app.add_option("--sample", s.sample, "skipgram, cbow: subsampling threshold for frequent words (0: off)")
              ->check(CLI::Range(0.0, 1.0))
              ->capture_default_str()));

  // GloVe only
  std::vector<CLI::Option*> glove_options;
  glove_options.push_back(add(app.add_option("--x-max", s.x_max, "glove: counts above this weigh fully in the loss")
                                  ->check(CLI::Range(1e-6, 1e12))
                                  ->capture_default_str()));
  glove_options.push_back(add(app.add_option("--alpha", s.alpha, "glove: exponent of the weighting (x/x-max)^alpha")
                                  ->check(CLI::Range(0.0, 10.0))
                                  ->capture_default_str()));
  auto* asymmetric_option = add(app.add_flag("--asymmetric", asymmetric,
                                             "glove: count only the words to the left of a word as its context"));
  glove_options.push_back(asymmetric_option);
  auto* adagrad_option = add(app.add_option("--adagrad", adagrad, "glove: AdaGrad state per element or per row (less memory)")
                                 ->check(CLI::IsMember({"element", "row"}))
                                 ->capture_default_str());
  glove_options.push_back(adagrad_option);
  glove_options.push_back(add(app.add_option("--vectors", vectors, "glove: write W + W̃ (w+c, as GloVe's -model 2) or W (w)")
                                  ->check(CLI::IsMember({"w", "w+c"}))
                                  ->capture_default_str()));
  auto* memory = app.add_option("--memory", command.memory,
                                "glove: memory for counting and training, e.g. 4G; counting spills sorted runs to $TMPDIR "
                                "beyond it (default 4G)")
                     ->transform(CLI::AsSizeValue(false));
  glove_options.push_back(memory);
  auto* save_cooc = app.add_option("--save-cooc", command.save_cooc,
                                   "glove: also write the co-occurrence counts here; without --output, only count");
  glove_options.push_back(save_cooc);
  auto* cooc = app.add_option("--cooc", command.cooc, "glove: train on counts that --save-cooc wrote, instead of --corpus")
                   ->check(CLI::ExistingFile);
  glove_options.push_back(cooc);

  app.add_option("--device", command.device,
                 "where to train: cpu, cuda (the GPU; glove with adagrad or sgd), or auto (cuda when a GPU is usable)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}))
      ->capture_default_str();
  std::string table = "auto", host_transfer = "gather";
  std::vector<CLI::Option*> gpu_options;
  gpu_options.push_back(app.add_option("--table", table,
                                       "GPU: where the tables live: device (GPU memory), host (pinned host memory; only "
                                       "the rows a batch touches go to the GPU), or auto (device when they fit)")
                            ->check(CLI::IsMember({"auto", "host", "device"}))
                            ->capture_default_str());
  gpu_options.push_back(app.add_option("--gpu-memory", command.gpu.gpu_memory,
                                       "GPU: device memory the trainer may allocate, e.g. 256M (default: 90% of the "
                                       "free memory)")
                            ->transform(CLI::AsSizeValue(false)));
  auto* host_transfer_option = app.add_option("--host-transfer", host_transfer,
                                              "GPU, --table host: gather (CPU threads copy rows through pinned buffers) "
                                              "or mapped (kernels read and write the pinned tables directly)")
                                   ->check(CLI::IsMember({"gather", "mapped"}))
                                   ->capture_default_str();
  gpu_options.push_back(host_transfer_option);
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
  cooc->excludes(corpus);
  cooc->excludes(resume);
  save_cooc->excludes(resume);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  embed::init_logging("embed-train", quiet ? -1 : verbose);
  command.gpu_trainer = embed::gpu_trainer();
  command.gpu.table = *embed::parse_table_placement(table);
  command.gpu.transfer = *embed::parse_host_transfer(host_transfer);
  auto usage_error = [](const std::string& message) {
    spdlog::error("{}; see --help", message);
    return kExitUsage;
  };
  if (const auto misplaced = given(gpu_options); !misplaced.empty() && command.device == "cpu") {
    return usage_error(fmt::format("{} applies to --device cuda or auto only", misplaced.front()->get_name()));
  }
  if (host_transfer_option->count() > 0 && command.gpu.table == embed::TablePlacement::device) {
    return usage_error("--host-transfer applies to --table host or auto only");
  }
  if (!command.resume.empty()) {
    for (const auto* option : given(training_options)) {
      spdlog::warn("{} is ignored with --resume: the checkpoint's settings are used", option->get_name());
    }
    return embed::report_errors(kExitFailure, [&] { return embed::run_train_command(std::move(command)); });
  }

  s.model = *embed::parse_model_name(model);  // CLI11 has checked the spellings
  const bool glove = s.model == embed::Model::glove;
  if (const auto misplaced = given(glove ? word2vec_options : glove_options); !misplaced.empty()) {
    return usage_error(
        fmt::format("{} applies to --model {} only", misplaced.front()->get_name(), glove ? "skipgram and cbow" : "glove"));
  }
  if (command.corpus.empty() && command.cooc.empty()) {
    return usage_error(glove ? "--corpus or --cooc is required (or --resume a checkpoint)"
                             : "--corpus is required (or --resume a checkpoint)");
  }
  if (command.output.output.empty() && command.save_cooc.empty()) return usage_error("--output is required");
  if (!command.cooc.empty()) {
    for (const auto* option : given({window, min_count, max_vocab, asymmetric_option})) {
      spdlog::warn("{} is ignored with --cooc: the counts were made with their own", option->get_name());
    }
  }

  s.optimizer = optimizer.empty() ? embed::default_optimizer(s.model) : *embed::parse_optimizer(optimizer);
  if (!embed::optimizer_supported(s.model, s.optimizer)) {
    return usage_error(fmt::format("--optimizer {} does not apply to --model {}: it trains with sgd", optimizer, model));
  }
  if (s.optimizer != embed::Optimizer::adagrad && adagrad_option->count() > 0) {
    return usage_error("--adagrad applies to --optimizer adagrad only");
  }
  s.adagrad = *embed::parse_adagrad_mode(adagrad);
  s.vectors = *embed::parse_glove_vectors(vectors);
  s.symmetric = !asymmetric;
  if (window->count() == 0 && glove) s.window = 10;
  if (epochs->count() == 0 && glove) s.epochs = 25;
  if (lr->count() == 0 && s.model != embed::Model::skipgram) s.lr = 0.05f;
  return embed::report_errors(kExitFailure, [&] { return embed::run_train_command(std::move(command)); });
}
