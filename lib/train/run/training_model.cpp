#include "train/run/training_model.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "core/word_list.h"
#include "train/run/model_registry.h"
#include "train/shards/sharded_tables.h"

namespace embed {

void TrainingModel::count_only(const TrainingInput&, TrainingRun&, AtomicOutput&) const {
  fail("--save-cooc applies to a model that counts co-occurrences, not to --model {}", name());
}

std::size_t TrainingModel::written_column(const TrainSettings& s) const {
  return optimizer_spec(s.optimizer).averages ? state_column(s) : 0;
}

RowReader TrainingModel::vector_rows(const TrainingRun& run) const {
  if (run.sharded) return run.sharded->root_reader(true, written_column(run.settings), run.settings.dim);
  return table_rows(run.input, run.settings.dim, written_column(run.settings));
}

RowReader TrainingModel::context_rows(const TrainingRun& run) const {
  if (run.sharded) return run.sharded->root_reader(false, written_column(run.settings), run.settings.dim);
  return table_rows(run.output_table, run.settings.dim, written_column(run.settings));
}

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

float TrainingModel::starting_lr(Optimizer optimizer) const {
  const Defaults own = defaults();
  const OptimizerSpec& spec = optimizer_spec(optimizer);
  return optimizer == own.optimizer || spec.lr <= 0 ? own.lr : spec.lr;
}

namespace {

// "; lr 0.01 for skipgram and cbow, 0.003 for glove": where a model starts `spec` at a
// rate other than its own default; nothing where each starts it at its own.
std::string starting_rates(const OptimizerSpec& spec) {
  std::vector<std::pair<float, std::vector<std::string_view>>> groups;
  bool own_rates_only = true;
  for (const TrainingModel* m : training_models()) {
    if (!m->supports(spec.optimizer)) continue;
    const float lr = m->starting_lr(spec.optimizer);
    own_rates_only = own_rates_only && lr == m->defaults().lr;
    auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == lr; });
    if (group == groups.end()) group = groups.insert(groups.end(), {lr, {}});
    group->second.push_back(m->name());
  }
  if (own_rates_only || groups.empty()) return "";
  if (groups.size() == 1) return fmt::format("; lr {}", groups[0].first);
  std::string rates;
  for (const auto& [lr, names] : groups)
    rates += fmt::format("{}{} for {}", rates.empty() ? "" : ", ", lr, word_list(names, "and"));
  return "; lr " + rates;
}

}  // namespace

std::string optimizer_help() {
  std::string text;
  for (const OptimizerSpec& spec : optimizers()) {
    std::vector<std::string_view> takers, defaults;
    for (const TrainingModel* m : training_models()) {
      if (m->supports(spec.optimizer)) takers.push_back(m->name());
      if (m->defaults().optimizer == spec.optimizer) defaults.push_back(m->name());
    }
    if (takers.empty()) continue;
    text += fmt::format("{}{} ({}{}{}{}): {}", text.empty() ? "" : "; ", spec.name, word_list(takers, "and"),
                        defaults.empty() ? "" : "; default for ", word_list(defaults, "and"), starting_rates(spec), spec.help);
  }
  return text;
}

}  // namespace embed
