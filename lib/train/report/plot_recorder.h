// --plot: the points --metrics writes (a progress tick at most once a second and one per
// epoch), kept in memory as the run goes and drawn (plot/loss_plot.h) when it ends or is
// interrupted.
#pragma once

#include <string>
#include <string_view>

#include "core/atomic_output.h"
#include "plot/loss_plot.h"
#include "train/engine/epoch_loop.h"

namespace embed {

class PlotRecorder {
 public:
  // Creates the output now, so that an unwritable path fails before the training.
  PlotRecorder(const std::string& path, std::string_view unit);

  void progress(const TrainProgress& p);
  void epoch(const TrainProgress& p);

  // Writes the plot when there is a point to draw (a run stopped before its first tick
  // has none, and then leaves no file).
  void write(const std::string& title);

 private:
  void add(const TrainProgress& p, bool epoch_end);

  AtomicOutput out_;
  LossCurve curve_;
  double last_tick_ = -1;
};

}  // namespace embed
