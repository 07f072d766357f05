// --metrics FILE: the numbers of a training run as JSON lines, so that benchmarks and
// plots read them rather than the log's wording. One object per progress tick (at most
// one a second) and one per epoch:
//   {"event":"epoch","time":6.4,"epoch":1,"epochs":5,"unit":"words","done":2400000,
//    "per_second":375000,"lr":0.0201,"loss":2.1,"examples":1500000}
// time: seconds since training (or its resumption) started; epoch: 1-based; done: items
// done in this run; per_second: since the start for a tick, over the epoch for an epoch;
// examples: the loss's terms in the epoch so far (skip-gram: context rows, CBOW: windows,
// GloVe: records), from which scripts/bench/roofline.sh counts the work per word.
// An epoch's object also has "peak_rss" (bytes) and, on a GPU, the epoch's traffic
// (table_traffic.h): "resident_share", "to_gpu_per_item", "from_gpu_per_item" (bytes),
// "gpu_memory" (bytes).
// Each line is flushed as it is written, so the file can be followed while the run goes.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "train/engine/epoch_loop.h"
#include "train/gpu/table_traffic.h"

namespace embed {

class MetricsLog {
 public:
  // Creates (truncates) `path` for a run of `epochs` epochs over `unit` ("words",
  // "records"); throws embed::Error when it cannot.
  MetricsLog(const std::string& path, unsigned epochs, std::string_view unit);
  // The run's epochs once the corpus is counted (a default chosen from its size).
  void set_epochs(unsigned epochs) { epochs_ = epochs; }
  ~MetricsLog();
  MetricsLog(const MetricsLog&) = delete;
  MetricsLog& operator=(const MetricsLog&) = delete;

  void progress(const TrainProgress& p, double per_second);
  // `gpu`: the epoch's traffic on a GPU, or null on the CPU.
  void epoch(const TrainProgress& p, double per_second, std::uint64_t peak_rss, const EpochTraffic* gpu);

 private:
  void write(std::string_view event, const TrainProgress& p, double per_second, std::string_view more = {});

  std::string path_;
  unsigned epochs_;
  std::string unit_;
  std::FILE* file_ = nullptr;
  double last_tick_ = -1;  // seconds of the last progress line
};

}  // namespace embed
