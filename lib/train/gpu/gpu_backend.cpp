#include "train/gpu/gpu_backend.h"

#include <cstdlib>
#include <string_view>
#include <vector>

#include <spdlog/spdlog.h>

#include "core/progress.h"
#include "core/word_list.h"

namespace embed {

bool supports_on_gpu(Model, Optimizer) {
  // Every rule has its kernels: atomic adds for a state that is a sum, summed steps for
  // Adam's family (every model) and word2vec's other rules, GloVe's other rules' state
  // written in place (gpu_backend.h).
  return true;
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
