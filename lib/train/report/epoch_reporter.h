// What a user sees of a running training: the progress line on a terminal (words/s per
// thread, learning rate, loss), one log line per epoch (with its GPU traffic on a GPU),
// and the --metrics and --plot records of both. train_command.cpp hands progress() and
// epoch() to the model as TrainContext's callbacks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/progress.h"
#include "train/engine/epoch_loop.h"
#include "train/gpu/table_traffic.h"
#include "train/report/metrics_log.h"
#include "train/report/plot_recorder.h"

namespace embed {

class EpochReporter {
 public:
  struct Run {
    unsigned epochs = 0;
    std::uint64_t items_left = 0;  // of the whole run, from where it starts (or resumes)
    std::uint64_t items_done = 0;  // before this process started (a resumed run's)
    std::string items;             // "words", "records"
    std::string_view loss_name;    // "loss", "cost"
    double threads = 1;            // the whole job's: threads per rank x ranks
    unsigned ranks = 1;
  };
  // `metrics`, `plot` and `gpu_traffic` may be null (not asked for; no GPU); they must
  // outlive the reporter.
  EpochReporter(const Run& run, MetricsLog* metrics, PlotRecorder* plot, const TableTraffic* gpu_traffic);

  // A chunk of work done: the terminal's progress line, --metrics and --plot points.
  void progress(const TrainProgress& p);
  // An epoch done: its log line, with its words/s and (on a GPU) its traffic.
  void epoch(const TrainProgress& p);
  // Training ended: the progress line is finished (or erased, before an error's lines).
  void finish() { progress_.finish(); }
  void erase() { progress_.erase(); }

 private:
  Run run_;
  Progress progress_;
  MetricsLog* metrics_;
  PlotRecorder* plot_;
  const TableTraffic* gpu_traffic_;
  TableTraffic::Counts traffic_at_epoch_start_;
  double epoch_started_ = 0;  // seconds into this process's training
  std::uint64_t epoch_items_start_ = 0;
};

}  // namespace embed
