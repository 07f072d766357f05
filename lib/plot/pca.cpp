#include "plot/pca.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace embed {
namespace {

double dot(std::span<const double> a, std::span<const double> b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// Removes from v its part along the unit vector u.
void remove_along(std::vector<double>& v, std::span<const double> u) {
  const double along = dot(v, u);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] -= along * u[i];
}

// Scales v to unit length; false when it has (next to) none.
bool normalise(std::vector<double>& v) {
  const double norm = std::sqrt(dot(v, v));
  if (!(norm > 1e-300)) return false;
  for (double& x : v) x /= norm;
  return true;
}

// The largest coordinate in absolute value is made positive.
void fix_sign(std::vector<double>& v) {
  std::size_t largest = 0;
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (std::fabs(v[i]) > std::fabs(v[largest])) largest = i;
  }
  if (v[largest] < 0) {
    for (double& x : v) x = -x;
  }
}

// The covariance times v, as Xᵀ(Xv)/n: two passes over the n x dim points, never the
// dim x dim matrix (a map has tens of points, vectors hundreds of dimensions).
std::vector<double> covariance_times(const std::vector<double>& x, std::size_t n, std::size_t dim,
                                     const std::vector<double>& v) {
  std::vector<double> out(dim, 0.0);
  for (std::size_t r = 0; r < n; ++r) {
    const std::span<const double> row(x.data() + r * dim, dim);
    const double along = dot(row, v);
    for (std::size_t i = 0; i < dim; ++i) out[i] += along * row[i];
  }
  for (double& value : out) value /= static_cast<double>(n);
  return out;
}

// The leading eigenvector of the covariance orthogonal to `previous` (unit vectors), and
// its eigenvalue (`total`, the covariance's trace, sets the scale of what counts as none).
// A fixed, irregular start keeps it deterministic and unlikely to be orthogonal to the
// answer; iteration stops once the direction settles.
std::vector<double> leading_component(const std::vector<double>& x, std::size_t n, std::size_t dim,
                                      const std::vector<std::vector<double>>& previous, double total,
                                      double& eigenvalue) {
  std::vector<double> v(dim);
  for (std::size_t i = 0; i < dim; ++i) v[i] = 1.0 + 0.618034 * static_cast<double>((i * 7919) % 1009) / 1009.0;
  for (const auto& p : previous) remove_along(v, p);
  eigenvalue = 0;
  if (!normalise(v)) return v;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    std::vector<double> next = covariance_times(x, n, dim, v);
    for (const auto& p : previous) remove_along(next, p);
    eigenvalue = std::sqrt(dot(next, next));
    // Nothing left orthogonal to the previous components (points on a line): what
    // remains is rounding, whose direction means nothing and is not even orthogonal
    // once scaled up, so the current (orthogonal) direction stands, explaining 0.
    if (!(eigenvalue > 1e-12 * total) || !normalise(next)) {
      eigenvalue = 0;
      return v;
    }
    for (const auto& p : previous) remove_along(next, p);  // again: orthogonal to rounding
    normalise(next);
    double change = 0;
    for (std::size_t i = 0; i < dim; ++i) change += (next[i] - v[i]) * (next[i] - v[i]);
    v = std::move(next);
    if (change < 1e-24) break;
  }
  return v;
}

}  // namespace

Projection pca_2d(std::span<const double> points, std::size_t n, std::size_t dim) {
  EMBED_ASSERT(n >= 1 && dim >= 1 && points.size() == n * dim);
  std::vector<double> x(points.begin(), points.end());
  std::vector<double> mean(dim, 0.0);
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t i = 0; i < dim; ++i) mean[i] += x[r * dim + i];
  }
  for (double& m : mean) m /= static_cast<double>(n);
  double total = 0;  // the covariance's trace
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t i = 0; i < dim; ++i) {
      x[r * dim + i] -= mean[i];
      total += x[r * dim + i] * x[r * dim + i];
    }
  }
  total /= static_cast<double>(n);

  Projection projection;
  std::vector<std::vector<double>> components;
  for (int c = 0; c < 2; ++c) {
    double eigenvalue = 0;
    std::vector<double> v = leading_component(x, n, dim, components, total, eigenvalue);
    fix_sign(v);
    projection.explained[c] = total > 0 ? std::min(1.0, eigenvalue / total) : 0.0;
    components.push_back(std::move(v));
  }
  projection.coords.resize(n * 2);
  for (std::size_t r = 0; r < n; ++r) {
    const std::span<const double> row(x.data() + r * dim, dim);
    for (std::size_t c = 0; c < 2; ++c) projection.coords[r * 2 + c] = dot(row, components[c]);
  }
  projection.axes = components[0];
  projection.axes.insert(projection.axes.end(), components[1].begin(), components[1].end());
  return projection;
}

}  // namespace embed
