#include "plot/word_map.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "plot/label_layout.h"
#include "plot/svg_writer.h"

namespace embed {
namespace {

constexpr double kMapWidth = 800;
constexpr double kMapHeight = 600;
constexpr double kTitleHeight = 36;
constexpr double kFontSize = 13;
constexpr double kRadius = 3.5;
// Room kept around the points for their labels, which may sit on any side.
constexpr double kMarginX = 90;
constexpr double kMarginY = 28;

// The interval [low, high] of one coordinate over all points.
std::pair<double, double> extent(const Projection& projection, std::size_t n, std::size_t axis) {
  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (std::size_t i = 0; i < n; ++i) {
    low = std::min(low, projection.coords[i * 2 + axis]);
    high = std::max(high, projection.coords[i * 2 + axis]);
  }
  return {low, high};
}

// Maps [low, high] onto [from, to]; a single value goes to the middle.
double scale(double value, std::pair<double, double> range, double from, double to) {
  const double span = range.second - range.first;
  if (!(span > 1e-12 * std::max(1.0, std::fabs(range.first)))) return (from + to) / 2;
  return from + (value - range.first) / span * (to - from);
}

}  // namespace

std::string word_map_svg(const std::vector<MapWord>& words, const Projection& projection, const std::string& name) {
  const std::size_t n = words.size();
  const std::string title = fmt::format("{} \u2014 PCA, 2 components explain {:.1f}% of the variance", name,
                                        100 * (projection.explained[0] + projection.explained[1]));
  SvgWriter svg(kMapWidth, kMapHeight, title);
  svg.text(kMapWidth / 2, 24, title, "text-anchor=\"middle\" font-size=\"15\" fill=\"#222222\"");

  // Each axis is scaled to fill the picture (the map has no axes to read a scale from),
  // the first component across, the second upwards.
  const auto xs = extent(projection, n, 0), ys = extent(projection, n, 1);
  std::vector<LabelRequest> requests(n);
  for (std::size_t i = 0; i < n; ++i) {
    requests[i].x = scale(projection.coords[i * 2], xs, kMarginX, kMapWidth - kMarginX);
    requests[i].y = scale(projection.coords[i * 2 + 1], ys, kMapHeight - kMarginY, kTitleHeight + kMarginY);
    requests[i].width = estimate_text_width(words[i].word, kFontSize);
    requests[i].height = kFontSize;
  }
  // The words asked for choose their spots first.
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(), [&](std::size_t i) { return !words[i].neighbour; });
  std::vector<LabelRequest> ordered(n);
  for (std::size_t i = 0; i < n; ++i) ordered[i] = requests[order[i]];
  const std::vector<Box> boxes = place_labels(ordered, kRadius, {0, kTitleHeight, kMapWidth, kMapHeight - kTitleHeight});

  // Neighbours first, so the words asked for are drawn on top.
  for (const bool neighbours : {true, false}) {
    for (std::size_t k = n; k-- > 0;) {
      const std::size_t i = order[k];
      if (words[i].neighbour != neighbours) continue;
      const Box& box = boxes[k];
      svg.circle(requests[i].x, requests[i].y, kRadius,
                 neighbours ? "fill=\"#9ab8d8\"" : "fill=\"#1f5f9f\"");
      // The baseline sits about a fifth of the font size above the box's bottom.
      svg.text(box.x, box.y + box.height * 0.8, words[i].word,
               neighbours ? "font-size=\"13\" fill=\"#8a96a3\"" : "font-size=\"13\" fill=\"#1a1a1a\"");
    }
  }
  return svg.finish();
}

}  // namespace embed
