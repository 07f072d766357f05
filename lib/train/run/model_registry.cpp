// The registry of training models: a new model adds its folder and one line here
// (and its enumerator to Model in train_settings.h). Listed in --help's order.
#include "train/run/model_registry.h"

#include "train/glove/glove_training_model.h"
#include "train/run/training_model.h"
#include "train/word2vec/word2vec_training_model.h"

namespace embed {

std::span<const TrainingModel* const> training_models() {
  static const TrainingModel* const models[] = {
      &word2vec_model(Model::skipgram),
      &word2vec_model(Model::cbow),
      &glove_model(),
  };
  return models;
}

}  // namespace embed
