// The registry of training models (model_registry.cpp): every model, found by its Model
// or its name. The shared run asks it which TrainingModel (training_model.h) runs, and
// never branches on the model itself.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "train/run/train_settings.h"
#include "train/run/training_model.h"

namespace embed {

// Every model, in --help's order.
std::span<const TrainingModel* const> training_models();
const TrainingModel& training_model(Model model);
const TrainingModel* find_training_model(std::string_view name);
// "skipgram and cbow": the models that take `option`, for "applies to" messages.
std::string models_taking(std::string_view option);

}  // namespace embed
