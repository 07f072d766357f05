// The rules between embed-train's options, which the option parser cannot state: what
// applies to which model, device and optimizer, and what a checkpoint or a counts file
// overrides. The model's defaults come from its registry entry.
#include "train/run/option_rules.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cluster/cluster.h"
#include "core/error.h"
#include "train/run/model_registry.h"
#include "train/run/train_command.h"
#include "train/run/training_model.h"

namespace embed {
namespace {

// The options a checkpoint fixes that every model takes; the models' own settings
// (model_settings) are fixed too.
constexpr std::string_view kSharedSettings[] = {"--model",     "--dim",    "--window", "--min-count",
                                                "--max-vocab", "--epochs", "--lr",     "--optimizer",
                                                "--threads",   "--seed",   "--dtype",  "--save-context",
                                                "--pq"};

}  // namespace

void resolve_train_command(TrainCommand& command, const std::set<std::string>& given) {
  auto has = [&](std::string_view option) { return given.count(std::string(option)) > 0; };
  TrainSettings& s = command.settings;
  check_gpu_options(command.gpu.device, given, {"--table", "--gpu-memory", "--host-transfer", "--gpu"});
  if (has("--host-transfer") && command.gpu_options.table == TablePlacement::device) {
    fail_usage("--host-transfer applies to --table host or auto only");
  }
  if (command.restart && !command.resume.empty()) {
    fail_usage("--restart starts the run afresh; --resume goes on with one: give one of them");
  }
  if (!command.init.file.empty() && !command.resume.empty()) {
    fail_usage("--init starts a run; --resume goes on with one (and with what its --init gave it)");
  }
  for (std::string_view option : {"--init-keep", "--lock-init"}) {
    if (has(option) && command.init.file.empty()) fail_usage("{} applies to --init only", option);
  }
  command.init.dim_given = has("--dim");
  command.lr_given = has("--lr");
  command.epochs_given = has("--epochs");
  command.init.minn_given = has("--minn");
  command.init.maxn_given = has("--maxn");
  command.init.buckets_given = has("--buckets");
  command.sync_words_given = has("--sync-words");
  // A warning, not a refusal: a Makefile may pass them always, and run the same command
  // with and without mpirun.
  if (this_job().size() == 1) {
    for (std::string_view option : {"--sync-interval", "--sync-rows", "--sync-words"}) {
      // --shard-tables in one process: the rounds and hot rows are there, with one rank.
      const bool shards_use_it = command.shard_tables && option != "--sync-interval";
      if (has(option) && !shards_use_it) spdlog::warn("{} has no effect outside mpirun: this run has one process", option);
    }
  }
  if (!command.resume.empty()) {
    auto warn_ignored = [&](std::string_view option) {
      if (has(option)) spdlog::warn("{} is ignored with --resume: the checkpoint's settings are used", option);
    };
    for (std::string_view option : kSharedSettings) warn_ignored(option);
    warn_ignored("--fasttext-bin");
    warn_ignored("--shard-tables");
    for (std::string_view option : model_settings()) warn_ignored(option);
    for (const OptimizerParamSpec& param : optimizer_param_specs()) warn_ignored(param.option);
    return;
  }

  const TrainingModel& model = training_model(s.model);
  for (std::string_view option : model_options()) {
    if (has(option) && !model.takes_option(option)) {
      fail_usage("{} applies to --model {} only", option, models_taking(option));
    }
  }
  if (command.input.corpus.empty() && command.input.cooc.empty()) {
    if (model.takes_option("--cooc")) fail_usage("--corpus or --cooc is required (or --resume a checkpoint)");
    fail_usage("--corpus is required (or --resume a checkpoint)");
  }
  if (command.output.output.empty() && command.input.save_cooc.empty()) fail_usage("--output is required");
  if (!command.output.fasttext_bin.empty() && command.output.fasttext_bin == command.output.output) {
    fail_usage("--fasttext-bin {} is --output too: give the fastText model a name of its own (fastText's end in .bin)",
               command.output.fasttext_bin);
  }
  if (!command.input.cooc.empty()) {
    for (std::string_view option : {"--window", "--min-count", "--max-vocab", "--asymmetric"}) {
      if (has(option)) spdlog::warn("{} is ignored with --cooc: the counts were made with their own", option);
    }
  }

  for (std::string_view option : {"--minn", "--maxn", "--buckets"}) {
    if (has(option) && !s.subwords) fail_usage("{} applies with --subwords only", option);
  }
  if (s.subwords && command.init.lock) {
    fail_usage(
        "--lock-init does not apply with --subwords: a word's vector moves with its n-grams' rows, which other words "
        "share");
  }
  // fastText's skip-gram draws negatives for every (centre, context) pair: with the centre
  // as the input, a window's shared negatives would all be scored against one vector
  // (bench/RESULTS.md, issue 41: 2 points of analogy accuracy below fastText's).
  if (s.subwords && s.model == Model::skipgram) s.pair_negatives = true;
  if (s.subwords && s.minn > s.maxn)
    fail_usage("--minn {} is longer than --maxn {}: n-grams run from --minn to --maxn", s.minn, s.maxn);

  const TrainingModel::Defaults defaults = model.defaults();
  if (!has("--optimizer")) s.optimizer = defaults.optimizer;
  // GloVe's old spelling: --adagrad element | row names adagrad or rowadagrad.
  if (command.adagrad) {
    if (s.optimizer != Optimizer::adagrad && s.optimizer != Optimizer::rowadagrad) {
      fail_usage("--adagrad applies to --optimizer adagrad only");
    }
    s.optimizer = *command.adagrad == AdagradMode::row ? Optimizer::rowadagrad : Optimizer::adagrad;
  }
  if (!model.supports(s.optimizer)) {
    fail_usage("--optimizer {} does not apply to --model {}: it trains with {}", optimizer_name(s.optimizer), model.name(),
               optimizer_name(defaults.optimizer));
  }
  const OptimizerSpec& optimizer = optimizer_spec(s.optimizer);
  for (const OptimizerParamSpec& param : optimizer_param_specs()) {
    if (has(param.option) && !optimizer.takes(param)) {
      fail_usage("{} applies to --optimizer {} only", param.option, optimizers_taking(param));
    }
  }
  s.hyper = resolve_params(s.optimizer, s.hyper);
  if (!has("--window")) s.window = defaults.window;
  if (!has("--epochs")) s.epochs = defaults.epochs;
  // An optimizer other than the model's own starts from its own learning rate.
  if (!has("--lr")) s.lr = model.starting_lr(s.optimizer);
}

}  // namespace embed
