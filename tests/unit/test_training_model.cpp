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
  CHECK_FALSE(training_model(Model::skipgram).supports(Optimizer::adam));
  CHECK(training_model(Model::glove).supports(Optimizer::adam));
  TrainSettings adam;
  adam.model = Model::glove;
  adam.optimizer = Optimizer::adam;
  CHECK_FALSE(training_model(Model::glove).gpu_refusal(adam).empty());
  CHECK(training_model(Model::skipgram).gpu_refusal(TrainSettings{}).empty());
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
}

TEST_CASE("resolve_train_command refuses options that do not go together", "[train][options]") {
  TrainCommand command;
  command.input.corpus = {"corpus.txt"};
  command.output.output = "out.emb";
  REQUIRE_ERROR_CONTAINS(resolve_train_command(command, {"--x-max"}), "--x-max applies to --model glove only");
  REQUIRE_ERROR_CONTAINS(resolve_train_command(command, {"--gpu"}), "--gpu applies to --device cuda or auto only");
  command.settings.optimizer = Optimizer::adam;
  REQUIRE_ERROR_CONTAINS(resolve_train_command(command, {"--optimizer"}),
                         "--optimizer adam does not apply to --model skipgram: it trains with sgd");
  command.settings.optimizer = Optimizer::sgd;
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
