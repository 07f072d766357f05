// Correlation coefficients for word-similarity benchmarks, as scipy.stats computes them.
#pragma once

#include <span>
#include <vector>

namespace embed {

// Pearson's r; NaN when either side is constant, as scipy.
double pearson(std::span<const double> x, std::span<const double> y);
// Ranks from 1, tied values sharing the average of their ranks (scipy's rankdata "average").
std::vector<double> average_ranks(std::span<const double> values);
// Spearman's rho: Pearson's r of the average ranks.
double spearman(std::span<const double> x, std::span<const double> y);

}  // namespace embed
