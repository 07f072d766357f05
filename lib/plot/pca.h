// The two leading principal components of a small set of points (the rows a word map
// shows), by power iteration with deflation in double precision. Deterministic: a
// fixed starting vector, and each component's sign chosen so that its largest
// coordinate (in absolute value; the first such on a tie) is positive.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace embed {

struct Projection {
  std::vector<double> coords;  // n x 2, row-major: each point on the two components
  std::vector<double> axes;    // 2 x dim, row-major: the unit components
  double explained[2] = {0, 0};  // each component's share of the total variance, in [0, 1]
};

// `points`: n x dim, row-major (n >= 1), centred here. Points that all coincide give
// zero coordinates and zero explained variance.
Projection pca_2d(std::span<const double> points, std::size_t n, std::size_t dim);

}  // namespace embed
