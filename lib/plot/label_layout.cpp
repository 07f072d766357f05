#include "plot/label_layout.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace embed {

bool Box::overlaps(const Box& other) const { return overlap_area(other) > 0; }

double Box::overlap_area(const Box& other) const {
  const double w = std::min(x + width, other.x + other.width) - std::max(x, other.x);
  const double h = std::min(y + height, other.y + other.height) - std::max(y, other.y);
  return w > 0 && h > 0 ? w * h : 0;
}

namespace {

// How far `box` sticks out of `bounds`, as an area, so that leaving the picture is
// weighed against covering another label. Exactly 0 inside: the area less the overlap
// would leave rounding crumbs that make every spot look taken.
double outside_area(const Box& box, const Box& bounds) {
  if (box.x >= bounds.x && box.y >= bounds.y && box.x + box.width <= bounds.x + bounds.width &&
      box.y + box.height <= bounds.y + bounds.height) {
    return 0;
  }
  return box.width * box.height - box.overlap_area(bounds);
}

// The candidate spots around a point, nearest first: right, left, above, below, the four
// diagonals, then the same pushed out by `step` at a time.
std::vector<Box> candidates(const LabelRequest& label, double radius) {
  std::vector<Box> boxes;
  const double gap = radius + 2;
  const double w = label.width, h = label.height;
  for (int ring = 0; ring < 6; ++ring) {
    const double d = gap + ring * h * 0.75;
    boxes.push_back({label.x + d, label.y - h / 2, w, h});           // right
    boxes.push_back({label.x - d - w, label.y - h / 2, w, h});       // left
    boxes.push_back({label.x - w / 2, label.y - d - h, w, h});       // above
    boxes.push_back({label.x - w / 2, label.y + d, w, h});           // below
    boxes.push_back({label.x + d * 0.7, label.y - d * 0.7 - h, w, h});      // above right
    boxes.push_back({label.x - d * 0.7 - w, label.y - d * 0.7 - h, w, h});  // above left
    boxes.push_back({label.x + d * 0.7, label.y + d * 0.7, w, h});          // below right
    boxes.push_back({label.x - d * 0.7 - w, label.y + d * 0.7, w, h});      // below left
  }
  return boxes;
}

}  // namespace

std::vector<Box> place_labels(std::span<const LabelRequest> labels, double point_radius, const Box& bounds) {
  std::vector<Box> obstacles;  // the points, then each label as it is placed
  obstacles.reserve(labels.size() * 2);
  for (const LabelRequest& label : labels) {
    obstacles.push_back({label.x - point_radius, label.y - point_radius, 2 * point_radius, 2 * point_radius});
  }
  std::vector<Box> placed;
  placed.reserve(labels.size());
  for (const LabelRequest& label : labels) {
    Box best;
    double best_cost = std::numeric_limits<double>::infinity();
    for (const Box& box : candidates(label, point_radius)) {
      double cost = outside_area(box, bounds) * 4;  // cut off is worse than covered
      for (const Box& obstacle : obstacles) cost += box.overlap_area(obstacle);
      if (cost < best_cost) {
        best = box;
        best_cost = cost;
        if (cost == 0) break;  // the nearest spot that is free
      }
    }
    placed.push_back(best);
    obstacles.push_back(best);
  }
  return placed;
}

double estimate_text_width(std::string_view text, double font_size) {
  double ems = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    std::uint32_t code = lead;
    if (length == 3 && i + 2 < text.size()) {
      code = ((lead & 0x0Fu) << 12) | ((static_cast<unsigned char>(text[i + 1]) & 0x3Fu) << 6) |
             (static_cast<unsigned char>(text[i + 2]) & 0x3Fu);
    }
    // CJK, Hangul, kana and full-width forms (most are 3-byte), and 4-byte characters (emoji).
    const bool wide = (length == 3 && code >= 0x1100 && ((code >= 0x2E80 && code <= 0xA4CF) ||
                                                         (code >= 0xAC00 && code <= 0xD7A3) ||
                                                         (code >= 0xF900 && code <= 0xFAFF) ||
                                                         (code >= 0xFF00 && code <= 0xFF60))) ||
                      length == 4;
    ems += wide ? 1.0 : 0.6;
    i += length;
  }
  return ems * font_size;
}

}  // namespace embed
