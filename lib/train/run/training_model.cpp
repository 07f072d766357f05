#include "train/run/training_model.h"

#include "core/error.h"
#include "train/run/model_registry.h"

namespace embed {

void TrainingModel::count_only(const TrainingInput&, TrainingRun&, AtomicOutput&) const {
  fail("--save-cooc applies to a model that counts co-occurrences, not to --model {}", name());
}

RowReader TrainingModel::vector_rows(const TrainingRun& run) const { return table_rows(run.input, run.settings.dim); }

const TrainingModel& training_model(Model model) {
  for (const TrainingModel* m : training_models()) {
    if (m->id() == model) return *m;
  }
  EMBED_ASSERT(false && "a Model without a registry entry in model_registry.cpp");
}

const TrainingModel* find_training_model(std::string_view name) {
  for (const TrainingModel* m : training_models()) {
    if (m->name() == name) return m;
  }
  return nullptr;
}

std::string models_taking(std::string_view option) {
  std::vector<std::string_view> names;
  for (const TrainingModel* m : training_models()) {
    if (m->takes_option(option)) names.push_back(m->name());
  }
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += i == 0 ? "" : i + 1 == names.size() ? " and " : ", ";
    text += names[i];
  }
  return text;
}

}  // namespace embed
