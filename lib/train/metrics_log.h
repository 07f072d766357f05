// --metrics FILE: the numbers of a training run as JSON lines, so that benchmarks and
// plots read them rather than the log's wording. One object per progress tick (at most
// one a second) and one per epoch:
//   {"event":"epoch","time":6.4,"epoch":1,"epochs":5,"unit":"words","done":2400000,
//    "per_second":375000,"lr":0.0201,"loss":2.1}
// time: seconds since training (or its resumption) started; epoch: 1-based; done: items
// done in this run; per_second: since the start for a tick, over the epoch for an epoch.
// Each line is flushed as it is written, so the file can be followed while the run goes.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "train/epoch_loop.h"

namespace embed {

class MetricsLog {
 public:
  // Creates (truncates) `path` for a run of `epochs` epochs over `unit` ("words",
  // "records"); throws embed::Error when it cannot.
  MetricsLog(const std::string& path, unsigned epochs, std::string_view unit);
  ~MetricsLog();
  MetricsLog(const MetricsLog&) = delete;
  MetricsLog& operator=(const MetricsLog&) = delete;

  void progress(const TrainProgress& p, double per_second);
  void epoch(const TrainProgress& p, double per_second);

 private:
  void write(std::string_view event, const TrainProgress& p, double per_second);

  std::string path_;
  unsigned epochs_;
  std::string unit_;
  std::FILE* file_ = nullptr;
  double last_tick_ = -1;  // seconds of the last progress line
};

}  // namespace embed
