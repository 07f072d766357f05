#include "train/run/train_settings.h"

#include <fmt/format.h>

#include "core/enum_names.h"
#include "train/run/model_registry.h"
#include "train/run/training_model.h"

namespace embed {

std::string_view model_name(Model model) { return training_model(model).name(); }

std::optional<Model> parse_model_name(std::string_view name) {
  const TrainingModel* model = find_training_model(name);
  return model ? std::optional<Model>(model->id()) : std::nullopt;
}

namespace {
constexpr EnumName<GloveVectors> kVectorsNames[] = {{GloveVectors::word, "w"}, {GloveVectors::word_plus_context, "w+c"}};
}  // namespace

std::string_view glove_vectors_name(GloveVectors vectors) { return name_in(kVectorsNames, vectors); }
std::optional<GloveVectors> parse_glove_vectors(std::string_view name) { return parse_in(kVectorsNames, name); }
std::vector<std::string> glove_vectors_names() { return names_in(kVectorsNames); }

std::string settings_out_of_range(const TrainSettings& s) {
  // The value as the file gave it (an integer stays an integer in the message).
  auto outside = [](std::string_view name, auto value, SettingRange range) -> std::string {
    const auto v = static_cast<double>(value);
    if (v >= range.low && v <= range.high) return {};  // false for NaN too
    return fmt::format("{} {} is out of range {}..{}", name, value, range.low, range.high);
  };
  // A model's own settings are checked for the models that take them (own_options).
  const TrainingModel& model = training_model(s.model);
  auto own = [&](std::string_view option, std::string_view name, auto value, SettingRange range) -> std::string {
    return model.takes_option(option) ? outside(name, value, range) : "";
  };
  const OptimizerSpec& optimizer = optimizer_spec(s.optimizer);
  for (const OptimizerParamSpec& param : optimizer_param_specs()) {
    if (!optimizer.takes(param)) continue;
    if (std::string problem = outside(param.key, s.hyper.*param.field, {param.low, param.high}); !problem.empty()) {
      return problem;
    }
  }
  for (std::string problem :
       {outside("dim", s.dim, kDimRange), outside("window", s.window, kWindowRange), outside("epochs", s.epochs, kEpochsRange),
        outside("lr", s.lr, kLearningRateRange), outside("threads", s.threads, kThreadsRange),
        own("--negative", "negative", s.negative, kNegativeRange), own("--sample", "sample", s.sample, kSampleRange),
        own("--x-max", "x_max", s.x_max, kXMaxRange), own("--alpha", "alpha", s.alpha, kAlphaRange)}) {
    if (!problem.empty()) return problem;
  }
  return {};
}

std::map<std::string, std::string> settings_metadata(const TrainSettings& s) {
  std::map<std::string, std::string> metadata = {{"model", std::string(model_name(s.model))},
                                                 {"window", std::to_string(s.window)},
                                                 {"epochs", std::to_string(s.epochs)},
                                                 {"lr", fmt::format("{}", s.lr)},
                                                 {"seed", std::to_string(s.seed)},
                                                 {"optimizer", std::string(optimizer_name(s.optimizer))}};
  const OptimizerSpec& optimizer = optimizer_spec(s.optimizer);
  for (const OptimizerParamSpec& param : optimizer_param_specs()) {
    if (optimizer.takes(param)) metadata[std::string(param.key)] = fmt::format("{}", s.hyper.*param.field);
  }
  training_model(s.model).write_settings(s, metadata);
  return metadata;
}

}  // namespace embed
