#include "device/gpu_device.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/enum_names.h"
#include "core/error.h"

namespace embed {

namespace {
constexpr EnumName<DeviceChoice> kDeviceNames[] = {
    {DeviceChoice::cpu, "cpu"}, {DeviceChoice::cuda, "cuda"}, {DeviceChoice::automatic, "auto"}};
}  // namespace

std::string_view device_choice_name(DeviceChoice device) { return name_in(kDeviceNames, device); }
std::optional<DeviceChoice> parse_device_choice(std::string_view name) { return parse_in(kDeviceNames, name); }
std::vector<std::string> device_choice_names() { return names_in(kDeviceNames); }

void check_gpu_options(DeviceChoice device, const std::set<std::string>& given,
                       std::initializer_list<std::string_view> gpu_options) {
  if (device != DeviceChoice::cpu) return;
  for (std::string_view option : gpu_options) {
    if (given.count(std::string(option))) fail_usage("{} applies to --device cuda or auto only", option);
  }
}

int gpu_for_rank(int requested, unsigned local_rank, const std::vector<int>& usable) {
  const auto first = std::find(usable.begin(), usable.end(), requested);
  if (first == usable.end()) return requested;
  const auto index = static_cast<std::size_t>(first - usable.begin()) + local_rank;
  return usable[index % usable.size()];
}

std::string GpuDevice::description() const {
  return fmt::format("{} ({:.1f} GiB, sm_{}{})", name, static_cast<double>(total_memory) / (1u << 30), compute_major,
                     compute_minor);
}

}  // namespace embed
