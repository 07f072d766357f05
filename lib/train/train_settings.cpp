#include "train/train_settings.h"

#include <fmt/format.h>

#include "core/enum_names.h"

namespace embed {

std::string_view model_name(Model model) {
  switch (model) {
    case Model::skipgram: return "skipgram";
    case Model::cbow: return "cbow";
    case Model::glove: return "glove";
  }
  return "?";
}

std::optional<Model> parse_model_name(std::string_view name) {
  return parse_by_name(name, {Model::skipgram, Model::cbow, Model::glove}, model_name);
}

std::string_view glove_vectors_name(GloveVectors vectors) {
  return vectors == GloveVectors::word ? "w" : "w+c";
}

std::optional<GloveVectors> parse_glove_vectors(std::string_view name) {
  return parse_by_name(name, {GloveVectors::word, GloveVectors::word_plus_context}, glove_vectors_name);
}

bool optimizer_supported(Model model, Optimizer optimizer) {
  return model == Model::glove || optimizer == Optimizer::sgd;
}

Optimizer default_optimizer(Model model) { return model == Model::glove ? Optimizer::adagrad : Optimizer::sgd; }

std::map<std::string, std::string> settings_metadata(const TrainSettings& s) {
  std::map<std::string, std::string> metadata = {{"model", std::string(model_name(s.model))},
                                                  {"window", std::to_string(s.window)},
                                                  {"epochs", std::to_string(s.epochs)},
                                                  {"lr", fmt::format("{}", s.lr)},
                                                  {"seed", std::to_string(s.seed)},
                                                  {"optimizer", std::string(optimizer_name(s.optimizer))}};
  if (s.model == Model::glove) {
    metadata["x_max"] = fmt::format("{}", s.x_max);
    metadata["alpha"] = fmt::format("{}", s.alpha);
    metadata["symmetric"] = std::to_string(s.symmetric ? 1 : 0);
    metadata["adagrad"] = std::string(adagrad_mode_name(s.adagrad));
    metadata["vectors"] = std::string(glove_vectors_name(s.vectors));
  } else {
    metadata["negative"] = std::to_string(s.negative);
    metadata["sample"] = fmt::format("{}", s.sample);
  }
  return metadata;
}

}  // namespace embed
