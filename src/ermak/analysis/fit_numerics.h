#pragma once
// Small numerical pieces the rate fits share (analysis/bell_evans, analysis/dudko_hummer_szabo).
#include <cmath>
#include <cstddef>
#include <set>
#include <span>

namespace ermak::analysis {

// ln(e^y − 1) for y > 0, without overflow for large y.
inline double log_expm1(double y) { return y < 30.0 ? std::log(std::expm1(y)) : y + std::log1p(-std::exp(-y)); }

// How many different values `v` holds.
inline std::size_t distinct_count(std::span<const double> v) { return std::set<double>(v.begin(), v.end()).size(); }

// ∫_a^b f by Simpson's rule over `intervals` (even) intervals.
template <class F>
double simpson(F&& f, double a, double b, int intervals = 4000) {
  const double h = (b - a) / intervals;
  double sum = 0.0;
  for (int k = 0; k <= intervals; ++k) sum += (k == 0 || k == intervals ? 1.0 : k % 2 ? 4.0 : 2.0) * f(a + k * h);
  return sum * h / 3.0;
}

}  // namespace ermak::analysis
