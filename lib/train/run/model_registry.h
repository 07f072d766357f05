// The registry of training models (model_registry.cpp): every model, found by its Model
// or its name. The shared run asks it which TrainingModel (training_model.h) runs, and
// never branches on the model itself.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "train/run/train_settings.h"
#include "train/run/training_model.h"

namespace embed {

// Every model, in --help's order.
std::span<const TrainingModel* const> training_models();
const TrainingModel& training_model(Model model);
const TrainingModel* find_training_model(std::string_view name);
// Every option some model takes and others do not (each model's own_options), in the
// registry's order; and those of them that are training settings (a checkpoint fixes them).
std::vector<std::string_view> model_options();
std::vector<std::string_view> model_settings();
// "skipgram and cbow": the models that take `option`, for "applies to" messages.
std::string models_taking(std::string_view option);
// --optimizer's help, from the optimizer registry and the models that take each:
// "sgd (skipgram, cbow and glove; default for skipgram and cbow): ...; adagrad (...): ...".
std::string optimizer_help();

}  // namespace embed
