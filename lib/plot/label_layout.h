// Where each point's label goes so that labels do not cover each other or the points:
// a greedy placement, in the order given (the words asked for first), that tries the
// right, left, above and below of its point, then the diagonals, then the same spots
// pushed further out, and takes the first that overlaps nothing placed so far and
// stays inside the picture; when none does, the spot that overlaps least.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace embed {

struct Box {
  double x = 0, y = 0, width = 0, height = 0;  // top-left corner and size
  bool overlaps(const Box& other) const;
  double overlap_area(const Box& other) const;
};

struct LabelRequest {
  double x = 0, y = 0;   // the point, which the label must not cover (radius point_radius)
  double width = 0;      // the label's estimated size
  double height = 0;
};

// Each label's box, in the order of `labels`, inside `bounds` where it fits.
std::vector<Box> place_labels(std::span<const LabelRequest> labels, double point_radius, const Box& bounds);

// A label's width in a sans-serif font of `font_size`, estimated without font metrics:
// wide (East Asian) characters count about one em, others about 0.6 em.
double estimate_text_width(std::string_view text, double font_size);

}  // namespace embed
