// Reading back the JSON lines embed-train --metrics writes (train/report/metrics_log.h), for
// `embed-train plot`. Only that shape is read: one flat object per line whose values
// are numbers, strings or null.
#pragma once

#include <string>

#include "plot/loss_plot.h"

namespace embed {

// The run's points. Throws embed::Error "PATH:LINE: ..." for a line that is not such an
// object or lacks a field the plot needs, and "PATH: ..." for a file without points.
LossCurve read_metrics_file(const std::string& path);

// `embed-train plot`: the plot of the metrics file `path` written to `output` ("-":
// standard output), whole or not at all. Returns 0.
int run_plot_command(const std::string& path, const std::string& output);

}  // namespace embed
