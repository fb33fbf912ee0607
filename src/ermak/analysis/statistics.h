#pragma once
// Sample statistics, histograms and straight-line fits for the analysis (docs/analysis.md).
#include <cstddef>
#include <span>
#include <vector>

namespace ermak::analysis {

struct SampleStatistics {
  std::size_t n = 0;
  double mean = 0.0;
  double sd = 0.0;      // sample standard deviation (n − 1 in the denominator); NaN for n < 2
  double sem = 0.0;     // sd / √n; NaN for n < 2
  double min = 0.0, max = 0.0, median = 0.0;
};
// Non-finite values are left out. All fields NaN (n = 0) for an empty sample.
SampleStatistics describe(std::span<const double> values);

// The central `level` interval of the values that are not NaN (linear interpolation between
// order statistics; an end may be ±∞), and how many there were: a bootstrap's percentile
// interval (analysis/spectrum_bootstrap.h, the melting curve's replica bootstrap).
struct PercentileInterval {
  double lo = 0.0, hi = 0.0;
  std::size_t finite = 0;  // values that are not NaN
};
PercentileInterval percentile_interval(std::span<const double> values, double level = 0.95);

struct Histogram {
  std::vector<double> edges;         // bins + 1 edges, increasing
  std::vector<std::size_t> counts;   // per bin
};
// `bins` equal bins over [lo, hi]; bin k holds lo + k·w ≤ v < lo + (k+1)·w, the last bin
// also v = hi; values outside [lo, hi] and non-finite ones are not counted.
Histogram histogram(std::span<const double> values, std::size_t bins, double lo, double hi);
// Counts of `values` in the bins of an existing histogram's edges.
std::vector<std::size_t> count_in_bins(std::span<const double> values, std::span<const double> edges);
// Default number of bins for n values: ⌈√n⌉, at least 5, at most 50.
std::size_t default_bin_count(std::size_t n);
// The range [lo, hi] a histogram of these values uses: min and max, widened to ±5 (or
// 5 % of |value|) around a single value.
std::pair<double, double> histogram_range(std::span<const double> values);

// Ordinary least squares y = slope·x + intercept.
struct LinearFit {
  bool ok = false;  // at least 3 points with distinct x
  std::size_t n = 0;
  double slope = 0.0, intercept = 0.0;
  double slope_se = 0.0;   // standard error of the slope (independent residuals assumed)
  double r_squared = 0.0;
  double rms_residual = 0.0;
};
LinearFit fit_line(std::span<const double> x, std::span<const double> y);

}  // namespace ermak::analysis
