#include "train/report/plot_recorder.h"

#include <cmath>

#include <spdlog/spdlog.h>

namespace embed {

PlotRecorder::PlotRecorder(const std::string& path, std::string_view unit) : out_(path, Streaming::allowed) {
  curve_.unit = unit;
}

void PlotRecorder::progress(const TrainProgress& p) {
  // As often as --metrics writes a tick: at most one a second.
  if (last_tick_ >= 0 && p.seconds - last_tick_ < 1.0) return;
  last_tick_ = p.seconds;
  add(p, false);
}

void PlotRecorder::epoch(const TrainProgress& p) { add(p, true); }

void PlotRecorder::write(const std::string& title) {
  if (curve_.points.empty()) return;
  out_.write(loss_plot_svg(curve_, title));
  out_.commit();
  spdlog::info("wrote {}", out_.path());
}

void PlotRecorder::add(const TrainProgress& p, bool epoch_end) {
  const double loss = std::isfinite(p.loss) ? p.loss : std::nan("");
  curve_.points.push_back({static_cast<double>(p.items_this_run), p.learning_rate, loss, epoch_end, p.epoch + 1});
}

}  // namespace embed
