// The model registry and the rules between embed-train's options that lib applies:
// each model's defaults, the options and optimizers it takes, and the messages that
// name the models an option applies to.

#include <algorithm>

#include "core/error.h"
#include "test_util.h"
#include "train/run/model_registry.h"
#include "train/run/option_rules.h"
#include "train/run/train_command.h"
#include "train/run/training_model.h"

using namespace embed;

TEST_CASE("the registry names every model once, and its names parse back", "[train][registry]") {
  REQUIRE(training_models().size() == 3);
  for (const TrainingModel* model : training_models()) {
    CHECK(find_training_model(model->name()) == model);
    CHECK(&training_model(model->id()) == model);
    CHECK(parse_model_name(model_name(model->id())) == model->id());
  }
  CHECK(find_training_model("word2vec") == nullptr);
  CHECK_FALSE(parse_model_name("fasttext").has_value());
}

TEST_CASE("each model's defaults are its reference tool's", "[train][registry]") {
  const auto skipgram = training_model(Model::skipgram).defaults();
  CHECK(skipgram.window == 5);
  CHECK(skipgram.epochs == 5);
  CHECK(skipgram.lr == 0.025f);
  CHECK(training_model(Model::cbow).defaults().lr == 0.05f);   // word2vec's -cbow 1 default
  const auto glove = training_model(Model::glove).defaults();  // Stanford GloVe's demo.sh
  CHECK(glove.window == 10);
  CHECK(glove.epochs == 25);
  CHECK(glove.lr == 0.05f);
  CHECK(glove.optimizer == Optimizer::adagrad);
}

TEST_CASE("options and optimizers apply to the models that take them", "[train][registry]") {
  CHECK(models_taking("--negative") == "skipgram and cbow");
  CHECK(models_taking("--x-max") == "glove");
  CHECK(models_taking("--cooc") == "glove");
  // Every model takes every optimizer on the CPU and on the GPU (in summed steps where the
  // state is not a sum and the kernels cannot write it in place: summed_steps.h).
  for (const Model model : {Model::skipgram, Model::cbow, Model::glove}) {
    TrainSettings any;
    any.model = model;
    for (const OptimizerSpec& spec : optimizers()) {
      CHECK(training_model(model).supports(spec.optimizer));
      any.optimizer = spec.optimizer;
      CHECK(training_model(model).gpu_refusal(any).empty());
    }
  }
  TrainSettings adam;
  adam.model = Model::glove;
  adam.optimizer = Optimizer::adam;
  CHECK(training_model(Model::glove).gpu_refusal(adam).empty());
  adam.model = Model::cbow;
  CHECK(training_model(Model::cbow).gpu_refusal(adam).empty());
  adam.optimizer = Optimizer::rowadagrad;
  CHECK(training_model(Model::cbow).gpu_refusal(adam).empty());
  TrainSettings subwords;
  subwords.subwords = true;
  CHECK(training_model(Model::skipgram).gpu_refusal(subwords).empty());
  CHECK(training_model(Model::cbow).gpu_refusal(subwords).empty());
  subwords.optimizer = Optimizer::adagrad;
  CHECK(training_model(Model::skipgram).gpu_refusal(subwords) ==
        "--subwords trains with --optimizer sgd on the GPU; --optimizer adagrad trains on the CPU");
  CHECK(training_model(Model::skipgram).gpu_refusal(TrainSettings{}).empty());
}

TEST_CASE("an averaging optimizer's rows are written from its average, the others' from their values", "[train][registry]") {
  TrainSettings s;
  s.dim = 100;
  for (const Model model : {Model::skipgram, Model::cbow, Model::glove}) {
    s.model = model;
    s.optimizer = Optimizer::asgd;
    const TrainingModel& m = training_model(model);
    CHECK(m.written_column(s) == 112);  // the state's start: 100 floats (GloVe's with its bias) padded to 112
    s.optimizer = Optimizer::adam;
    CHECK(m.written_column(s) == 0);
  }
}

TEST_CASE("each model starts an optimizer at its own rate, or the registry's", "[train][registry]") {
  const TrainingModel& skipgram = training_model(Model::skipgram);
  const TrainingModel& cbow = training_model(Model::cbow);
  const TrainingModel& glove = training_model(Model::glove);
  CHECK(skipgram.starting_lr(Optimizer::sgd) == 0.025f);  // the models' own
  CHECK(cbow.starting_lr(Optimizer::sgd) == 0.05f);
  CHECK(glove.starting_lr(Optimizer::adagrad) == 0.05f);
  CHECK(glove.starting_lr(Optimizer::adam) == optimizer_spec(Optimizer::adam).lr);  // the registry's
  CHECK(skipgram.starting_lr(Optimizer::adam) == 0.01f);                            // word2vec's sweep
  CHECK(skipgram.starting_lr(Optimizer::adamax) != cbow.starting_lr(Optimizer::adamax));
  // --optimizer's help says each model's rate where it is not the model's own.
  const std::string help = optimizer_help();
  CHECK_THAT(help,
             Catch::Matchers::Contains("adam (skipgram, cbow and glove; lr 0.01 for skipgram and cbow, 0.003 for glove): "));
  // The optimizers every model trains on the GPU say nothing of devices.
  CHECK_THAT(help, Catch::Matchers::Contains("rowadagrad (skipgram, cbow and glove; lr 0.25 for skipgram, 0.15 for cbow, 0.05 "
                                             "for glove): one accumulator"));
}

namespace {
// A run of `items` words over text8-head's 57,993 distinct words.
RunLength words(std::uint64_t items) { return {items, 57'993}; }
}  // namespace

TEST_CASE("CBOW's adam and rmsprop start lower the longer the run, on the CPU and the GPU", "[train][registry]") {
  const TrainingModel& skipgram = training_model(Model::skipgram);
  const TrainingModel& cbow = training_model(Model::cbow);
  const TrainingModel& glove = training_model(Model::glove);
  constexpr bool kGpu = true, kCpu = false;
  TrainSettings s;
  s.model = Model::cbow;
  s.optimizer = Optimizer::adam;
  // Up to text8-head's 5 epochs (5.5M words), the rates chosen there (the GPU's summed
  // steps' 0.015, the CPU's 0.01); never more for less.
  CHECK(cbow.run_starting_lr(s, words(1'000), kGpu) == 0.015f);
  CHECK(cbow.run_starting_lr(s, words(5'500'000), kGpu) == 0.015f);
  CHECK(cbow.run_starting_lr(s, words(5'500'000), kCpu) == 0.01f);
  CHECK(cbow.run_starting_lr(s, words(5'500'000), kCpu) == cbow.starting_lr(Optimizer::adam));
  // Four times the words: half the rate. text8-head x 8, 3 epochs: 0.0068 on the GPU (best
  // measured 0.005-0.01), 0.0046 on the CPU; x 32: 0.0034 (best 0.0025-0.0035) and 0.0023.
  // Two significant digits.
  CHECK(cbow.run_starting_lr(s, words(22'000'000), kGpu) == 0.0075f);
  CHECK(cbow.run_starting_lr(s, words(22'000'000), kCpu) == 0.005f);
  CHECK(cbow.run_starting_lr(s, words(26'502'216), kGpu) == 0.0068f);
  CHECK(cbow.run_starting_lr(s, words(26'502'216), kCpu) == 0.0046f);
  CHECK(cbow.run_starting_lr(s, words(106'008'864), kGpu) == 0.0034f);
  s.optimizer = Optimizer::adamw;
  CHECK(cbow.run_starting_lr(s, words(22'000'000), kGpu) == 0.0075f);
  s.optimizer = Optimizer::rmsprop;
  CHECK(cbow.run_starting_lr(s, words(5'000'000), kGpu) == 0.01f);
  CHECK(cbow.run_starting_lr(s, words(106'008'864), kGpu) == 0.0023f);
  CHECK(cbow.run_starting_lr(s, words(106'008'864), kCpu) == 0.0023f);
  // A billion words: still a positive rate --lr would take.
  CHECK(cbow.run_starting_lr(s, words(1'000'000'000), kGpu) == 0.00074f);
  // Adamax, skip-gram and fastText's model keep one rate at any length; GloVe too.
  s.optimizer = Optimizer::adamax;
  CHECK(cbow.run_starting_lr(s, words(106'008'864), kGpu) == 0.03f);
  CHECK(cbow.run_starting_lr(s, words(106'008'864), kCpu) == cbow.starting_lr(Optimizer::adamax));
  s.model = Model::skipgram;
  s.optimizer = Optimizer::adam;
  CHECK(skipgram.run_starting_lr(s, words(106'008'864), kGpu) == 0.1f);
  CHECK(skipgram.run_starting_lr(s, words(106'008'864), kCpu) == 0.01f);
  s.optimizer = Optimizer::adagrad;
  CHECK(skipgram.run_starting_lr(s, words(106'008'864), kGpu) == skipgram.starting_lr(Optimizer::adagrad));
  s.model = Model::cbow;
  s.optimizer = Optimizer::adam;
  s.subwords = true;
  CHECK(cbow.run_starting_lr(s, words(106'008'864), kCpu) == cbow.starting_lr(Optimizer::adam));
  CHECK(cbow.run_starting_lr(s, words(106'008'864), kGpu) == cbow.starting_lr(Optimizer::adam));
  s.model = Model::glove;
  s.subwords = false;
  CHECK(glove.run_starting_lr(s, words(106'008'864), kGpu) == 0.009f);  // its summed steps'
  CHECK(glove.run_starting_lr(s, words(106'008'864), kCpu) == glove.starting_lr(Optimizer::adam));
}

TEST_CASE("SGD starts lower the more words a run trains per distinct word, down to its old fixed rate",
          "[train][registry]") {
  const TrainingModel& skipgram = training_model(Model::skipgram);
  const TrainingModel& cbow = training_model(Model::cbow);
  const TrainingModel& glove = training_model(Model::glove);
  TrainSettings s;  // sgd
  // rate(model, subwords, run): the starting rate on the CPU, and the same on the GPU (whose
  // SGD steps each window as the CPU does).
  const auto rate = [&](Model model, bool subwords, RunLength run) {
    s.model = model;
    s.subwords = subwords;
    const TrainingModel& m = model == Model::cbow ? cbow : skipgram;
    const float on_cpu = m.run_starting_lr(s, run, false);
    CHECK(m.run_starting_lr(s, run, true) == on_cpu);
    return on_cpu;
  };
  // Up to text8-head's 5 epochs (5.5M words over 57,993 distinct, 95 a word): the best there.
  CHECK(rate(Model::skipgram, false, words(1'000)) == 0.05f);
  CHECK(rate(Model::skipgram, false, words(5'521'295)) == 0.05f);
  CHECK(rate(Model::skipgram, true, words(5'521'295)) == 0.07f);
  CHECK(rate(Model::cbow, false, words(5'521'295)) == 0.1f);
  // 10 epochs (190 a word): x (190 / 100)^-0.7, two significant digits.
  CHECK(rate(Model::skipgram, false, words(11'042'590)) == 0.032f);
  CHECK(rate(Model::skipgram, true, words(11'042'590)) == 0.045f);
  CHECK(rate(Model::cbow, false, words(11'042'590)) == 0.064f);
  // README's demo: 20 epochs of 177,600 words over 19,127 distinct.
  CHECK(rate(Model::skipgram, false, {3'552'000, 19'127}) == 0.032f);
  // 19 epochs (362 a word): skip-gram at its least, word2vec's 0.025; the subword model not yet.
  CHECK(rate(Model::skipgram, false, words(20'980'921)) == 0.025f);
  CHECK(rate(Model::skipgram, true, words(20'980'921)) == 0.028f);
  // text8-head x 8, and a billion words: each at its old fixed rate.
  for (const RunLength run : {words(46'877'840), RunLength{1'000'000'000, 1'000}}) {
    CHECK(rate(Model::skipgram, false, run) == 0.025f);
    CHECK(rate(Model::skipgram, true, run) == 0.025f);
    CHECK(rate(Model::cbow, false, run) == 0.05f);
    CHECK(rate(Model::cbow, true, run) == 0.05f);
  }
  // GloVe's SGD keeps its one rate.
  s.model = Model::glove;
  s.subwords = false;
  CHECK(glove.run_starting_lr(s, words(1'000), false) == glove.starting_lr(Optimizer::sgd));
}

TEST_CASE("a small corpus trains more epochs, enough for 20M words, at most 20", "[train][registry]") {
  TrainSettings s;  // 5 epochs: the default
  CHECK(training_model(Model::skipgram).epochs_for_corpus(s, 177'600) == 20);    // README's demo
  CHECK(training_model(Model::skipgram).epochs_for_corpus(s, 1'104'259) == 19);  // text8-head
  CHECK(training_model(Model::cbow).epochs_for_corpus(s, 2'000'000) == 10);
  CHECK(training_model(Model::cbow).epochs_for_corpus(s, 4'000'000) == 5);
  CHECK(training_model(Model::skipgram).epochs_for_corpus(s, 9'375'568) == 5);  // text8-head x 8
  s.epochs = 25;  // GloVe's
  CHECK(training_model(Model::glove).epochs_for_corpus(s, 177'600) == 25);
}

TEST_CASE("resolve_train_command fills in the model's defaults and keeps what was given", "[train][options]") {
  TrainCommand command;
  command.input.corpus = {"corpus.txt"};
  command.output.output = "out.emb";
  command.settings.model = Model::glove;
  command.settings.epochs = 7;
  resolve_train_command(command, {"--model", "--epochs"});
  CHECK(command.settings.window == 10);
  CHECK(command.settings.epochs == 7);
  CHECK(command.settings.lr == 0.05f);
  CHECK(command.settings.optimizer == Optimizer::adagrad);
  // skip-gram with adam and no --lr: word2vec's rate for adam, and adam's hyper-parameters.
  TrainCommand adam;
  adam.input.corpus = {"corpus.txt"};
  adam.output.output = "out.emb";
  adam.settings.optimizer = Optimizer::adam;
  resolve_train_command(adam, {"--optimizer"});
  CHECK(adam.settings.lr == 0.01f);
  CHECK(adam.settings.hyper.beta1 == 0.9f);
}

TEST_CASE("resolve_train_command refuses options that do not go together", "[train][options]") {
  TrainCommand command;
  command.input.corpus = {"corpus.txt"};
  command.output.output = "out.emb";
  REQUIRE_ERROR_CONTAINS(resolve_train_command(command, {"--x-max"}), "--x-max applies to --model glove only");
  REQUIRE_ERROR_CONTAINS(resolve_train_command(command, {"--gpu"}), "--gpu applies to --device cuda or auto only");
  command.settings.optimizer = Optimizer::sgd;
  REQUIRE_ERROR_CONTAINS(resolve_train_command(command, {"--optimizer", "--beta1"}),
                         "--beta1 applies to --optimizer adam, adamw or adamax only");
  command.input.corpus.clear();
  REQUIRE_ERROR_CONTAINS(resolve_train_command(command, {}), "--corpus is required");
  REQUIRE_THROWS_AS(resolve_train_command(command, {}), UsageError);
}

TEST_CASE("each model lists the options it alone takes, and the registry gathers them", "[train][options]") {
  CHECK(training_model(Model::glove).takes_option("--x-max"));
  CHECK_FALSE(training_model(Model::skipgram).takes_option("--x-max"));
  CHECK(training_model(Model::skipgram).takes_option("--pair-negatives"));
  CHECK_FALSE(training_model(Model::cbow).takes_option("--pair-negatives"));
  CHECK(models_taking("--negative") == "skipgram and cbow");
  const std::vector<std::string_view> options = model_options(), settings = model_settings();
  for (std::string_view option : {"--negative", "--sample", "--pair-negatives", "--x-max", "--cooc", "--memory"}) {
    CHECK(std::find(options.begin(), options.end(), option) != options.end());
  }
  CHECK(std::count(options.begin(), options.end(), "--negative") == 1);  // skip-gram's and CBOW's, listed once
  // A checkpoint fixes the settings, not where the counts come from or how much memory counting takes.
  CHECK(std::find(settings.begin(), settings.end(), "--x-max") != settings.end());
  CHECK(std::find(settings.begin(), settings.end(), "--memory") == settings.end());
  CHECK(std::find(settings.begin(), settings.end(), "--cooc") == settings.end());
}
