// The picture of a training run: its loss (top panel) and learning rate (bottom panel)
// over the words (GloVe: records) processed, with a dashed vertical line where each
// epoch ended, as a self-contained SVG. The points are those embed-train --metrics
// writes: a progress tick about once a second and one point per epoch.
#pragma once

#include <string>
#include <vector>

namespace embed {

struct LossPoint {
  double done = 0;         // items processed by this process (--metrics' "done")
  double lr = 0;
  double loss = 0;         // NaN when the loss was not finite (--metrics' null)
  bool epoch_end = false;  // the point an epoch ended with
  unsigned epoch = 0;      // 1-based: the epoch under way, or for epoch_end the one that ended
};

struct LossCurve {
  std::string unit = "words";  // what `done` counts: words or records
  std::vector<LossPoint> points;  // in the order they came
};

// The plot of `curve` (at least one point), titled `title`. The same curve gives the same
// bytes.
std::string loss_plot_svg(const LossCurve& curve, const std::string& title);

}  // namespace embed
