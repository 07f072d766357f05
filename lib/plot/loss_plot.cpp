#include "plot/loss_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.h"
#include "plot/svg_writer.h"

namespace embed {
namespace {

constexpr double kWidth = 800;
constexpr double kHeight = 560;
constexpr double kLeft = 80;    // room for the y tick labels
constexpr double kRight = 770;
constexpr const char* kAxisStyle = "stroke=\"#444444\" stroke-width=\"1\"";
constexpr const char* kGridStyle = "stroke=\"#e4e4e4\" stroke-width=\"1\"";
constexpr const char* kTickText = "font-size=\"11\" fill=\"#444444\"";

struct Range {
  double low = 0, high = 1;
  double at(double value, double from, double to) const { return from + (value - low) / (high - low) * (to - from); }
};

// The finite values' range, widened when it is a single value (a constant learning rate).
Range value_range(const LossCurve& curve, double LossPoint::*member) {
  Range r{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  for (const LossPoint& p : curve.points) {
    const double v = p.*member;
    if (!std::isfinite(v)) continue;
    r.low = std::min(r.low, v);
    r.high = std::max(r.high, v);
  }
  if (!std::isfinite(r.low)) return {0, 1};  // nothing finite: an empty panel
  const double pad = r.high > r.low ? (r.high - r.low) * 0.05 : std::max(std::fabs(r.low) * 0.1, 1e-9);
  return {r.low - pad, r.high + pad};
}

// A round step (1, 2 or 5 times a power of ten) giving about four intervals.
double tick_step(const Range& r) {
  const double raw = (r.high - r.low) / 4;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

// The ticks within the range, and labels written with as many decimals as the step needs.
std::vector<std::pair<double, std::string>> ticks(const Range& r) {
  const double step = tick_step(r);
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  std::vector<std::pair<double, std::string>> out;
  for (double k = std::ceil(r.low / step); k * step <= r.high + step * 1e-9; k += 1) {
    const double value = k * step;
    std::string label = fmt::format("{:.{}f}", value, decimals);
    if (label.starts_with("-") && label.find_first_not_of("-0.") == std::string::npos) label = label.substr(1);
    out.emplace_back(value, label);
  }
  return out;
}

// A count as people read it on an axis: 0, 500, 1.5k, 2M, 1.25G.
std::string count_label(double value) {
  const char* suffix = "";
  for (const char* s : {"k", "M", "G", "T"}) {
    if (std::fabs(value) < 1000) break;
    value /= 1000;
    suffix = s;
  }
  std::string number = fmt::format("{:.2f}", value);
  while (number.find('.') != std::string::npos && (number.back() == '0' || number.back() == '.')) number.pop_back();
  return number + suffix;
}

// One panel: its frame, horizontal grid lines with tick labels, its name, and the
// series of `member` over x.
void draw_panel(SvgWriter& svg, const LossCurve& curve, const Range& x, double LossPoint::*member, double top,
                double bottom, const std::string& name, const char* colour) {
  const Range y = value_range(curve, member);
  for (const auto& [value, label] : ticks(y)) {
    const double py = y.at(value, bottom, top);
    svg.line(kLeft, py, kRight, py, kGridStyle);
    svg.text(kLeft - 6, py + 4, label, fmt::format("text-anchor=\"end\" {}", kTickText));
  }
  svg.rect(kLeft, top, kRight - kLeft, bottom - top, fmt::format("fill=\"none\" {}", kAxisStyle));
  // The panel's name runs up its left side, where no point of the series can be.
  const double name_x = 22, name_y = (top + bottom) / 2;
  svg.text(name_x, name_y, name,
           fmt::format("text-anchor=\"middle\" font-size=\"13\" fill=\"{}\" transform=\"rotate(-90 {} {})\"", colour,
                       svg_number(name_x), svg_number(name_y)));

  // A line through the finite points (a non-finite loss breaks it), and each epoch's
  // point, or a lone point, as a dot.
  std::string points;
  std::size_t in_line = 0;
  const auto flush = [&] {
    if (in_line > 1) svg.polyline(points, fmt::format("stroke=\"{}\" stroke-width=\"1.5\"", colour));
    points.clear();
    in_line = 0;
  };
  for (const LossPoint& p : curve.points) {
    const double v = p.*member;
    if (!std::isfinite(v)) {
      flush();
      continue;
    }
    add_point(points, x.at(p.done, kLeft, kRight), y.at(v, bottom, top));
    ++in_line;
  }
  flush();
  for (const LossPoint& p : curve.points) {
    const double v = p.*member;
    if (std::isfinite(v) && (p.epoch_end || curve.points.size() == 1)) {
      svg.circle(x.at(p.done, kLeft, kRight), y.at(v, bottom, top), 2.5, fmt::format("fill=\"{}\"", colour));
    }
  }
}

}  // namespace

std::string loss_plot_svg(const LossCurve& curve, const std::string& title) {
  EMBED_ASSERT(!curve.points.empty());
  SvgWriter svg(kWidth, kHeight, title);
  svg.text(kWidth / 2, 24, title, "text-anchor=\"middle\" font-size=\"15\" fill=\"#222222\"");

  double last = 0;
  for (const LossPoint& p : curve.points) last = std::max(last, p.done);
  const Range x{0, last > 0 ? last : 1};
  constexpr double kLossTop = 60, kLossBottom = 320, kRateTop = 345, kRateBottom = 490;

  // Epoch boundaries first, beneath the series, labelled where there is room.
  double last_label = -1e9;
  for (const LossPoint& p : curve.points) {
    if (!p.epoch_end) continue;
    const double px = x.at(p.done, kLeft, kRight);
    svg.line(px, kLossTop, px, kRateBottom, "stroke=\"#b0b0b0\" stroke-width=\"1\" stroke-dasharray=\"4 3\"");
    if (px - last_label >= 28) {
      svg.text(px, kLossTop - 6, fmt::format("{}", p.epoch), fmt::format("text-anchor=\"middle\" {}", kTickText));
      last_label = px;
    }
  }
  svg.text(kLeft - 6, kLossTop - 6, "epoch", fmt::format("text-anchor=\"end\" {}", kTickText));

  draw_panel(svg, curve, x, &LossPoint::loss, kLossTop, kLossBottom, "loss", "#c0392b");
  draw_panel(svg, curve, x, &LossPoint::lr, kRateTop, kRateBottom, "learning rate", "#1f5f9f");

  for (const auto& [value, label] : ticks(x)) {
    if (value < 0) continue;
    const double px = x.at(value, kLeft, kRight);
    svg.line(px, kRateBottom, px, kRateBottom + 5, kAxisStyle);
    svg.text(px, kRateBottom + 18, count_label(value), fmt::format("text-anchor=\"middle\" {}", kTickText));
  }
  svg.text((kLeft + kRight) / 2, kRateBottom + 42, fmt::format("{} processed", curve.unit),
           "text-anchor=\"middle\" font-size=\"13\" fill=\"#222222\"");
  return svg.finish();
}

}  // namespace embed
