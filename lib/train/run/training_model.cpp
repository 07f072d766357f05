#include "train/run/training_model.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "core/word_list.h"
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

bool TrainingModel::takes_option(std::string_view option) const {
  for (const Option& own : own_options()) {
    if (own.name == option) return true;
  }
  return false;
}

namespace {

// The models' own options, each once, in the registry's order: all, or only the settings.
std::vector<std::string_view> own_options_of_models(bool settings_only) {
  std::vector<std::string_view> options;
  for (const TrainingModel* m : training_models()) {
    for (const TrainingModel::Option& own : m->own_options()) {
      if ((own.setting || !settings_only) && std::find(options.begin(), options.end(), own.name) == options.end()) {
        options.push_back(own.name);
      }
    }
  }
  return options;
}

}  // namespace

std::vector<std::string_view> model_options() { return own_options_of_models(false); }
std::vector<std::string_view> model_settings() { return own_options_of_models(true); }

std::string models_taking(std::string_view option) {
  std::vector<std::string_view> names;
  for (const TrainingModel* m : training_models()) {
    if (m->takes_option(option)) names.push_back(m->name());
  }
  return word_list(names, "and");
}

std::string optimizer_help() {
  std::string text;
  for (const OptimizerSpec& spec : optimizers()) {
    std::vector<std::string_view> takers, defaults;
    for (const TrainingModel* m : training_models()) {
      if (m->supports(spec.optimizer)) takers.push_back(m->name());
      if (m->defaults().optimizer == spec.optimizer) defaults.push_back(m->name());
    }
    if (takers.empty()) continue;
    text += fmt::format("{}{} ({}{}{}{}{}): {}", text.empty() ? "" : "; ", spec.name, word_list(takers, "and"),
                        defaults.empty() ? "" : "; default for ", word_list(defaults, "and"),
                        spec.lr > 0 ? fmt::format("; lr {}", spec.lr) : "", spec.concurrent ? "" : "; CPU", spec.help);
  }
  return text;
}

}  // namespace embed
