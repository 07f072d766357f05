// embed-train: word2vec skip-gram and CBOW with negative sampling, and GloVe. Declares
// the options and hands over to lib/train, which checks them against each other.
#include <CLI/CLI.hpp>

#include "backend/registry.h"
#include "cluster/cluster.h"
#include "common/option_checks.h"
#include "common/tool_cli.h"
#include "core/parallel.h"
#include "plot/metrics_file.h"
#include "train/run/model_registry.h"
#include "train/run/option_rules.h"
#include "train/run/train_command.h"
#include "train/run/training_model.h"

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
  embed::cli::LogFlags log;
  std::vector<std::string> model_names;
  for (const embed::TrainingModel* model : embed::training_models()) model_names.emplace_back(model->name());
  // The ranges the checkpoint and counts-file loaders hold their settings to as well.
  auto range = [](embed::SettingRange r) { return embed::cli::between(r.low, r.high); };
  auto whole_range = [](embed::SettingRange r) {
    return embed::cli::between(static_cast<std::int64_t>(r.low), static_cast<std::int64_t>(r.high));
  };

  app.add_option("--corpus", command.input.corpus, "training text: one or more files, - for stdin");
  app.add_option("-o,--output", command.output.output, "the vectors to write (.emb)");
  app.add_option_function<std::string>(
         "--model", [&s](const std::string& name) { s.model = *embed::parse_model_name(name); },
         "what to train (default: " + std::string(embed::model_name(s.model)) + ")")
      ->check(CLI::IsMember(model_names));
  app.add_option("--dim", s.dim, "vector dimensions")->check(whole_range(embed::kDimRange))->capture_default_str();
  app.add_option("--window", s.window, "context words on each side, at most (default 5; glove 10)")
      ->check(whole_range(embed::kWindowRange));
  app.add_option("--min-count", command.output.min_count, "drop words rarer than this")
      ->check(embed::cli::at_least(std::uint64_t{1}))
      ->capture_default_str();
  app.add_option("--max-vocab", command.output.max_vocab, "keep only the N most frequent words (0: all)")->capture_default_str();
  app.add_option("--epochs", s.epochs,
                 "passes over the corpus (default 5, more for a corpus under 4M words: enough to train 20M words, at "
                 "most 20; glove 25)")
      ->check(whole_range(embed::kEpochsRange));
  app.add_option("--lr", s.lr,
                 "starting learning rate (default: sgd's falls with the words the run trains per distinct word, from "
                 "0.05 to 0.025 for skipgram, 0.07 to 0.025 with --subwords, 0.1 to 0.05 for cbow; glove's 0.05; an "
                 "optimizer other than the model's own starts from its own, as --optimizer says, on a GPU one that trains "
                 "in summed steps from the GPU's, and cbow's adam, adamw and rmsprop lower for runs of over 5.5M words; "
                 "the log says which)")
      ->check(range(embed::kLearningRateRange));
  app.add_option_function<std::string>(
         "--optimizer", [&s](const std::string& name) { s.optimizer = *embed::parse_optimizer(name); }, embed::optimizer_help())
      ->check(CLI::IsMember(embed::optimizer_names()));
  // The optimizers' hyper-parameters, each with the optimizers that take it (optimizer.cpp).
  for (const embed::OptimizerParamSpec& param : embed::optimizer_param_specs()) {
    app.add_option_function<float>(
           std::string(param.option), [&s, field = param.field](float value) { s.hyper.*field = value; },
           embed::optimizer_param_help(param))
        ->check(embed::cli::between(param.low, param.high));
  }
  app.add_option("--threads", s.threads, "worker threads (default: all cores)")->check(whole_range(embed::kThreadsRange));
  app.add_option("--seed", s.seed,
                 "random seed; on the CPU with --threads 1 the output is bit-for-bit reproducible (a GPU draws the "
                 "same samples, but its float atomics add in varying order)")
      ->capture_default_str();
  embed::cli::RowStorageChoice storage;
  embed::cli::add_row_storage_options(
      app, storage,
      "storage type of the vectors written and of the skipgram/cbow tables a GPU trains (math is f32; the CPU and GloVe "
      "train f32 tables; with --table host, f16 host tables too): f32, f16, bf16, or int8 (the vectors written only, "
      "compressed: a quarter of f32's bytes; docs/glove-convert.md) (default: f32)",
      "write the vectors product-quantized: M bytes a row (M must divide --dim; k-means seeded with --seed; "
      "docs/glove-convert.md); training is unchanged");
  app.add_flag("--save-context", command.output.save_context, "also write the output (context) vectors, to OUT.context.emb");
  app.add_option("--fasttext-bin", command.output.fasttext_bin,
                 embed::models_taking("--fasttext-bin") +
                     ": also write the model as fastText's .bin here (format 12: fasttext and gensim's "
                     "load_facebook_model load it; --init FILE --subwords continues it, n-gram rows and output "
                     "matrix included)");
  auto* init = app.add_option("--init", command.init.file,
                              "start from these vectors (any format glove-convert reads, or a checkpoint): the "
                              "vocabulary's words found there start from them, their context rows from FILE's context "
                              "vectors (a checkpoint's, or FILE.context.emb beside it) or zeros; --dim defaults to FILE's")
                   ->check(embed::cli::input_file());
  app.add_flag("--init-keep", command.init.keep,
               "also write --init's words that the corpus vocabulary lacks, unchanged, after the trained rows (count 0)");
  app.add_flag("--lock-init", command.init.lock,
               "do not update the rows that came from --init (gensim's lockf=0): only new words and context rows "
               "train (CPU)");

  // The options only some models take: their help names those models, as each model's
  // own_options lists them (lib/train/run/training_model.h).
  const auto for_models = [](std::string_view option, std::string help) { return embed::models_taking(option) + ": " + help; };
  app.add_option("--negative", s.negative,
                 for_models("--negative",
                            "negative samples per window (skipgram: shared by the window's context words, "
                            "or per context word with --pair-negatives)"))
      ->check(whole_range(embed::kNegativeRange))
      ->capture_default_str();
  app.add_option("--sample", s.sample, for_models("--sample", "subsampling threshold for frequent words (0: off)"))
      ->check(range(embed::kSampleRange))
      ->capture_default_str();
  app.add_flag("--pair-negatives", s.pair_negatives,
               for_models("--pair-negatives",
                          "draw --negative negatives for every (context, centre word) pair, as word2vec and gensim do, "
                          "instead of sharing a window's among its context words: 0.04-0.22 points more analogy accuracy in "
                          "bench/RESULTS.md, 1.6x the time (CPU)"));
  app.add_flag("--subwords", s.subwords,
               for_models("--subwords",
                          "fastText's model: a word's input vector is the average of its row and its character n-grams' "
                          "rows (hashed into --buckets rows), so words outside the vocabulary get vectors; the .emb keeps "
                          "the n-gram rows (on a GPU with --optimizer sgd)"));
  app.add_option("--minn", s.minn, for_models("--minn", "with --subwords: the shortest n-gram, in characters (fastText's -minn)"))
      ->check(whole_range(embed::kNgramLengthRange))
      ->capture_default_str();
  app.add_option("--maxn", s.maxn, for_models("--maxn", "with --subwords: the longest n-gram, in characters (fastText's -maxn)"))
      ->check(whole_range(embed::kNgramLengthRange))
      ->capture_default_str();
  app.add_option("--buckets", s.buckets,
                 for_models("--buckets", "with --subwords: rows the n-grams are hashed into (fastText's -bucket)"))
      ->check(whole_range(embed::kBucketsRange))
      ->capture_default_str();
  app.add_option("--x-max", s.x_max, for_models("--x-max", "counts above this weigh fully in the loss"))
      ->check(range(embed::kXMaxRange))
      ->capture_default_str();
  app.add_option("--alpha", s.alpha, for_models("--alpha", "exponent of the weighting (x/x-max)^alpha"))
      ->check(range(embed::kAlphaRange))
      ->capture_default_str();
  app.add_flag_function(
      "--asymmetric", [&s](std::int64_t) { s.symmetric = false; },
      for_models("--asymmetric", "count only the words to the left of a word as its context"));
  app.add_option_function<std::string>(
         "--adagrad", [&command](const std::string& name) { command.adagrad = embed::parse_adagrad_mode(name); },
         for_models("--adagrad", "the old spelling of --optimizer adagrad (element) or rowadagrad (row)"))
      ->check(CLI::IsMember(embed::adagrad_mode_names()));
  app.add_option_function<std::string>(
         "--vectors", [&s](const std::string& name) { s.vectors = *embed::parse_glove_vectors(name); },
         for_models("--vectors", "write W + W̃ (w+c, as GloVe's -model 2) or W (w) (default: w+c)"))
      ->check(CLI::IsMember(embed::glove_vectors_names()));
  app.add_option("--memory", command.input.memory,
                 for_models("--memory",
                            "memory for counting and training, e.g. 4G; counting spills sorted runs to "
                            "$TMPDIR beyond it (default 4G)"))
      ->transform(CLI::AsSizeValue(false));
  auto* save_cooc =
      app.add_option("--save-cooc", command.input.save_cooc,
                     for_models("--save-cooc", "also write the co-occurrence counts here; without --output, only count"));
  auto* cooc = app.add_option("--cooc", command.input.cooc,
                              for_models("--cooc", "train on counts that --save-cooc wrote, instead of --corpus"))
                   ->check(embed::cli::input_file());

  embed::cli::add_device_options(
      app, command.gpu,
      "where to train: cpu, cuda (the GPU: every model and optimizer, --subwords with sgd), or auto (cuda when a GPU is "
      "usable)",
      "GPU: device memory the trainer may allocate, e.g. 256M (default: 90% of the free memory)");
  app.add_option_function<std::string>(
         "--table", [&command](const std::string& name) { command.gpu_options.table = *embed::parse_table_placement(name); },
         "GPU: where the tables live: device (GPU memory), host (pinned host memory; only the rows a batch touches go "
         "to the GPU), or auto (device when they fit) (default: auto)")
      ->check(CLI::IsMember(embed::table_placement_names()));
  app.add_option_function<std::string>(
         "--host-transfer",
         [&command](const std::string& name) { command.gpu_options.transfer = *embed::parse_host_transfer(name); },
         "GPU, --table host: gather (CPU threads copy rows through pinned buffers) or mapped (kernels read and write "
         "the pinned tables directly) (default: gather)")
      ->check(CLI::IsMember(embed::host_transfer_names()));
  app.add_option("--checkpoint", command.checkpoint,
                 "write a checkpoint here after every epoch and on interruption (default: OUT.ckpt, on interruption "
                 "only, removed once the vectors are written)");
  auto* resume = app.add_option("--resume", command.resume, "continue the run a checkpoint saved, with its settings and corpus")
                     ->check(embed::cli::input_file());
  app.add_flag("--restart", command.restart,
               "discard the checkpoint of an interrupted run of this output and start afresh (without it, running "
               "the same command again refuses and says how to resume, so that a Makefile never loses a checkpoint)");
  app.add_option("--metrics", command.metrics,
                 "write the run's progress here as JSON lines (time, epoch, words or records done, per second, lr, "
                 "loss), one a second and one per epoch");
  app.add_option("--plot", command.plot,
                 "draw the loss and the learning rate over the words (glove: records) processed, with the epochs "
                 "marked, as an SVG file, written when the run ends or is interrupted");
  embed::cli::add_log_flags(app, log);
  app.add_option("--sync-interval", command.sync_seconds,
                 "under mpirun: seconds between the ranks' rounds (each sums their updates to the most frequent rows; "
                 "every row at each epoch's end)")
      ->check(embed::cli::between(0.001, 3600.0))
      ->capture_default_str();
  app.add_option("--sync-rows", command.sync_rows,
                 "under mpirun: the most frequent rows shared every round; the next 2x every 2nd "
                 "round, the next 4x every 4th, and so on")
      ->check(embed::cli::between(std::size_t{1}, std::size_t{1} << 32))
      ->capture_default_str();
  app.add_option("--sync-words", command.sync_words,
                 "under mpirun, skip-gram and CBOW: a round also once a rank has trained this many corpus words since "
                 "the last, its workers waiting for it (a GPU trains far more words than a CPU between two rounds "
                 "by time); 0: by time alone [default: a 32nd of a rank's share of an epoch, at most 65536 / (N-1)^3 on N "
                 "ranks]")
      ->check(embed::cli::at_least(std::uint64_t{0}));
  app.add_flag("--shard-tables", command.shard_tables,
               "skip-gram and CBOW, under mpirun: split both tables and the optimizer's state across the ranks, each "
               "holding about 1/N of the rows plus the --sync-rows most frequent, for a vocabulary one machine "
               "cannot hold; a round every --sync-words words a rank fetches the rows it touches and returns their "
               "changes [default: rounds of a 32nd of a rank's share of an epoch, at most 65,536 / (N-1)^3 words, and fewer "
               "where a round's rows would take over 4% of the rank's share of the tables]");
  embed::cli::add_version_flag(app, "embed-train", [] { return embed::mpi_description(); });
  app.get_option("--corpus")->excludes(resume);
  init->excludes(resume);
  cooc->excludes(app.get_option("--corpus"));
  cooc->excludes(resume);
  save_cooc->excludes(resume);

  std::string plot_metrics, plot_output;
  CLI::App* plot = app.add_subcommand(
      "plot", "Draw the loss and learning rate of a run from its --metrics file, as --plot does, as an SVG file.");
  plot->add_option("METRICS", plot_metrics, "the JSON lines embed-train --metrics wrote")->required();
  plot->add_option("-o,--output", plot_output, "the SVG file to write; - for standard output")->required();
  embed::cli::add_log_flags(*plot, log);

  if (const auto exit_status = embed::cli::parse(app, argc, argv)) return *exit_status;
  if (plot->parsed()) {
    return embed::cli::run("embed-train", log, [&] { return embed::run_plot_command(plot_metrics, plot_output); });
  }
  if (storage.dtype) command.output.dtype = *storage.dtype;
  command.output.storage = storage.storage;
  command.output.pq_m = storage.pq_m;
  command.gpu_trainer = embed::gpu_trainer();
  return embed::cli::run("embed-train", log, [&] {
    embed::resolve_train_command(command, embed::cli::given_options(app));
    return embed::run_train_command(std::move(command));
  });
}
