#include "train/train_settings.h"

#include <fmt/format.h>

#include "core/enum_names.h"
#include "train/training_model.h"

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

std::map<std::string, std::string> settings_metadata(const TrainSettings& s) {
  std::map<std::string, std::string> metadata = {{"model", std::string(model_name(s.model))},
                                                  {"window", std::to_string(s.window)},
                                                  {"epochs", std::to_string(s.epochs)},
                                                  {"lr", fmt::format("{}", s.lr)},
                                                  {"seed", std::to_string(s.seed)},
                                                  {"optimizer", std::string(optimizer_name(s.optimizer))}};
  training_model(s.model).write_settings(s, metadata);
  return metadata;
}

}  // namespace embed
