// What the GPU training tests share: the device they run on, the table placements
// they try, and a Catch2 runner that exits 77 (skipped) where no device is usable.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "backend/registry.h"
#include "catch_session.h"

namespace embed::test {

inline GpuDevice the_device;

struct Placement {
  TablePlacement table;
  HostTransfer transfer;
  const char* name;
  double hot_fraction = 1;  // host placement: at most this share of the rows hot (gpu_plan.h)

  GpuOptions options(std::size_t rows) const {
    GpuOptions o;
    o.table = table;
    o.transfer = transfer;
    if (hot_fraction < 1) o.max_hot_rows = static_cast<std::size_t>(hot_fraction * static_cast<double>(rows));
    return o;
  }
};
// For one batch against the CPU's arithmetic: host placement with no hot rows (every
// row copied per batch) and with half of them.
inline const Placement kPlacements[] = {{TablePlacement::device, HostTransfer::gather, "device"},
                                        {TablePlacement::host, HostTransfer::gather, "host, gather", 0},
                                        {TablePlacement::host, HostTransfer::mapped, "host, mapped", 0},
                                        {TablePlacement::host, HostTransfer::gather, "host, gather, half hot", 0.5},
                                        {TablePlacement::host, HostTransfer::mapped, "host, mapped, half hot", 0.5}};
// For whole runs against the CPU's quality: the fixtures' small, flat vocabularies make
// every row as busy as a frequent word's, whose copies in flight at once would each
// miss the others' steps (gpu_plan.h): host placement keeps all of them hot, as it
// does whenever they fit. The 2M-row test trains the mix of hot and copied rows.
inline const Placement kQualityPlacements[] = {{TablePlacement::device, HostTransfer::gather, "device"},
                                               {TablePlacement::host, HostTransfer::gather, "host, gather, all hot"},
                                               {TablePlacement::host, HostTransfer::mapped, "host, mapped, all hot"}};
inline constexpr int kQualityCount = static_cast<int>(std::size(kQualityPlacements));

// Skip-gram's kernels with SGD (EMBED_GPU_SKIPGRAM_KERNEL: cuda_word2vec_backend.cpp),
// and what the backend's name() says of each.
struct SkipgramKernelCase {
  const char* env;
  const char* named;
};
inline const SkipgramKernelCase kSkipgramKernels[] = {
    {"warp", "a warp each"}, {"block", "a block each"}, {"rows", "a block each, a warp per output row"}};

// The kernels the [skipgram-kernel] tests try: those EMBED_TEST_SKIPGRAM_KERNELS names
// (spaces or commas between), else all. run.sh tests each kernel in a step of its own,
// so that an experiment's kernel that fails, or hangs, costs only its own step and its
// own benchmark rows, not the default kernel's verdict. A name that is no kernel fails.
inline std::vector<SkipgramKernelCase> chosen_skipgram_kernels() {
  const char* names = std::getenv("EMBED_TEST_SKIPGRAM_KERNELS");
  if (!names || !*names) return {std::begin(kSkipgramKernels), std::end(kSkipgramKernels)};
  std::vector<SkipgramKernelCase> chosen;
  std::string list = names;
  for (char& c : list) c = c == ',' ? ' ' : c;
  std::istringstream words(list);
  for (std::string name; words >> name;) {
    const auto* kernel = std::find_if(std::begin(kSkipgramKernels), std::end(kSkipgramKernels),
                                      [&](const SkipgramKernelCase& k) { return name == k.env; });
    INFO("EMBED_TEST_SKIPGRAM_KERNELS names " << name << ": not one of warp, block, rows");
    REQUIRE(kernel != std::end(kSkipgramKernels));
    chosen.push_back(*kernel);
  }
  REQUIRE(!chosen.empty());
  return chosen;
}

// Sets an environment variable the backends read (EMBED_GPU_KERNEL_LANES, ...) for those
// made while it lives, then puts back what the environment held.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (const char* was = std::getenv(name)) was_ = was;
    setenv(name, value, 1);
  }
  ~ScopedEnvironment() { was_ ? setenv(name_, was_->c_str(), 1) : unsetenv(name_); }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* name_;
  std::optional<std::string> was_;
};

// Chooses skip-gram's kernel for the backends made while it lives, then puts back what the
// environment held: the later tests take the kernel they were given (run.sh may have
// chosen one for the whole run).
class SkipgramKernelChoice {
 public:
  void use(const SkipgramKernelCase& kernel) {
    chosen_.reset();  // what the environment held, before the next choice
    chosen_ = std::make_unique<ScopedEnvironment>("EMBED_GPU_SKIPGRAM_KERNEL", kernel.env);
  }

 private:
  std::unique_ptr<ScopedEnvironment> chosen_;
};

// The body of main(): finds the device, or returns 77 without one.
inline int run_gpu_tests(int argc, char** argv) {
  std::string why;
  const GpuTrainer trainer = gpu_trainer();
  const std::optional<GpuDevice> device = trainer.built() ? trainer.find_device(0, why) : std::nullopt;
  if (!device) {
    std::printf("skipped: no usable CUDA device (%s)\n", why.c_str());
    return 77;
  }
  the_device = *device;
  std::printf("device: %s, %.1f GiB free\n", device->description().c_str(),
              static_cast<double>(device->free_memory) / (1u << 30));
  return run_catch_session(argc, argv);
}

}  // namespace embed::test
