#include "train/gpu/gpu_backend.h"

#include <cstdlib>
#include <string_view>
#include <vector>

#include <spdlog/spdlog.h>

#include "core/progress.h"
#include "core/word_list.h"

namespace embed {

bool supports_on_gpu(Model model, Optimizer optimizer) {
  // EMBED_GPU_RULES=all lets the benchmarks measure the rules not (yet) trained on the GPU
  // (GloVe's Adam family); docs/GPU.md.
  static const bool every_rule = [] {
    const char* rules = std::getenv("EMBED_GPU_RULES");
    return rules != nullptr && std::string_view(rules) == "all";
  }();
  if (every_rule || optimizer_spec(optimizer).concurrent) return true;
  // Skip-gram and CBOW take the others in summed steps (summed_steps.h); GloVe's kernel
  // writes their state in place, which trains all but Adam's family (docs/embed-train.md).
  if (model != Model::glove) return true;
  return optimizer == Optimizer::rmsprop || optimizer == Optimizer::adadelta || optimizer == Optimizer::rprop ||
         optimizer == Optimizer::asgd;
}

std::string gpu_optimizer_names(Model model) {
  std::vector<std::string_view> names;
  for (const OptimizerSpec& spec : optimizers()) {
    if (supports_on_gpu(model, spec.optimizer)) names.push_back(spec.name);
  }
  return word_list(names, "or");
}

void explain_placement(const GpuOptions& options, const GpuMemoryPlan& plan, std::uint64_t table_bytes, std::uint64_t budget) {
  if (plan.placement != TablePlacement::host || options.table != TablePlacement::automatic) return;
  spdlog::info("--table auto: the tables ({}) do not fit in the {} of GPU memory allowed; they stay in host memory",
               human_bytes(static_cast<double>(table_bytes)), human_bytes(static_cast<double>(budget)));
}

}  // namespace embed
