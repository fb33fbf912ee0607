#include "ermak/analysis/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ermak::analysis {

PercentileInterval percentile_interval(std::span<const double> values, double level) {
  std::vector<double> finite;  // and infinite: all but NaN
  for (double v : values)
    if (!std::isnan(v)) finite.push_back(v);
  PercentileInterval out;
  out.finite = finite.size();
  if (finite.empty()) {
    out.lo = out.hi = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  std::sort(finite.begin(), finite.end());
  auto quantile = [&](double q) {
    const double at = q * double(finite.size() - 1);
    const std::size_t below = std::size_t(std::floor(at));
    const std::size_t above = std::min(below + 1, finite.size() - 1);
    if (at == double(below) || finite[above] == finite[below]) return finite[below];  // also ∞
    return finite[below] + (at - double(below)) * (finite[above] - finite[below]);
  };
  out.lo = quantile(0.5 * (1.0 - level));
  out.hi = quantile(0.5 * (1.0 + level));
  return out;
}

SampleStatistics describe(std::span<const double> values) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v;
  for (double x : values)
    if (std::isfinite(x)) v.push_back(x);
  SampleStatistics s;
  s.n = v.size();
  if (v.empty()) {
    s.mean = s.sd = s.sem = s.min = s.max = s.median = nan;
    return s;
  }
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  const std::size_t m = v.size() / 2;
  s.median = v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
  double sum = 0.0;
  for (double x : v) sum += x;
  s.mean = sum / double(v.size());
  if (v.size() < 2) {
    s.sd = s.sem = nan;
    return s;
  }
  double ss = 0.0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.sd = std::sqrt(ss / double(v.size() - 1));
  s.sem = s.sd / std::sqrt(double(v.size()));
  return s;
}

std::vector<std::size_t> count_in_bins(std::span<const double> values, std::span<const double> edges) {
  std::vector<std::size_t> counts(edges.size() > 1 ? edges.size() - 1 : 0, 0);
  if (counts.empty()) return counts;
  for (double v : values) {
    if (!std::isfinite(v) || v < edges.front() || v > edges.back()) continue;
    // Last edge ≤ v among edges[0..bins-1] (upper_bound − 1), the last bin closed.
    std::size_t k = std::size_t(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin());
    k = k == 0 ? 0 : k - 1;
    if (k >= counts.size()) k = counts.size() - 1;
    ++counts[k];
  }
  return counts;
}

Histogram histogram(std::span<const double> values, std::size_t bins, double lo, double hi) {
  Histogram h;
  bins = std::max<std::size_t>(bins, 1);
  h.edges.resize(bins + 1);
  for (std::size_t k = 0; k <= bins; ++k) h.edges[k] = lo + (hi - lo) * double(k) / double(bins);
  h.edges.back() = hi;
  h.counts = count_in_bins(values, h.edges);
  return h;
}

std::size_t default_bin_count(std::size_t n) {
  const auto b = std::size_t(std::ceil(std::sqrt(double(n))));
  return std::clamp<std::size_t>(b, 5, 50);
}

std::pair<double, double> histogram_range(std::span<const double> values) {
  const SampleStatistics s = describe(values);
  if (s.n == 0) return {0.0, 1.0};
  if (s.max > s.min) return {s.min, s.max};
  const double half = std::max(5.0, 0.05 * std::abs(s.min));
  return {s.min - half, s.max + half};
}

LinearFit fit_line(std::span<const double> x, std::span<const double> y) {
  LinearFit fit;
  double sx = 0, sy = 0;
  std::size_t n = 0;
  const std::size_t m = std::min(x.size(), y.size());
  for (std::size_t i = 0; i < m; ++i)
    if (std::isfinite(x[i]) && std::isfinite(y[i])) {
      sx += x[i];
      sy += y[i];
      ++n;
    }
  fit.n = n;
  if (n < 3) return fit;
  const double mx = sx / double(n), my = sy / double(n);
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < m; ++i)
    if (std::isfinite(x[i]) && std::isfinite(y[i])) {
      sxx += (x[i] - mx) * (x[i] - mx);
      sxy += (x[i] - mx) * (y[i] - my);
      syy += (y[i] - my) * (y[i] - my);
    }
  if (!(sxx > 0.0)) return fit;
  fit.slope = sxy / sxx;
  fit.intercept = my - fit.slope * mx;
  const double rss = std::max(0.0, syy - fit.slope * sxy);
  fit.rms_residual = std::sqrt(rss / double(n));
  fit.slope_se = std::sqrt(rss / double(n - 2) / sxx);
  fit.r_squared = syy > 0.0 ? 1.0 - rss / syy : 1.0;
  fit.ok = true;
  return fit;
}

}  // namespace ermak::analysis
