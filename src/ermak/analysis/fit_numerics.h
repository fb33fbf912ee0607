#pragma once
// Small numerical pieces the rate fits share (analysis/bell_evans, analysis/dudko_hummer_szabo).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <set>
#include <span>
#include <vector>

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

// The largest value of f on [lo, hi]: a grid of `grid` intervals, each of its local maxima
// refined by a golden-section search between its two neighbours, the best kept. Refining only
// the best grid point lands on a lower local maximum where the highest one is a narrow peak
// between two grid points (a DHS profile in x‡ at fixed ΔG‡: one maximum at the critical-force
// bound, a higher one well inside it). `grid_index` (the grid point the best maximum was refined
// from) tells a caller whether the best point is an end of the range (0 or grid), where the
// maximum may lie beyond it.
struct GridMaximum {
  double at = 0.0;
  double value = -std::numeric_limits<double>::infinity();
  int grid_index = 0;
};

template <class F>
GridMaximum grid_golden_maximum(F&& f, double lo, double hi, int grid, double tolerance = 1e-13) {
  const auto node = [&](int k) { return lo + (hi - lo) * k / grid; };
  std::vector<double> values(std::size_t(grid) + 1);
  for (int k = 0; k <= grid; ++k) {
    const double v = f(node(k));
    values[std::size_t(k)] = std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;
  }
  GridMaximum best;
  for (int k = 0; k <= grid; ++k)
    if (values[std::size_t(k)] > best.value) best.value = values[std::size_t(k)], best.grid_index = k;
  best.at = node(best.grid_index);
  if (!std::isfinite(best.value)) return best;
  const double phi = 0.5 * (std::sqrt(5.0) - 1.0);
  auto refine = [&](int k) {
    double a = node(std::max(0, k - 1)), b = node(std::min(grid, k + 1));
    double c = b - phi * (b - a), d = a + phi * (b - a);
    double fc = f(c), fd = f(d);
    for (int it = 0; it < 200 && b - a > tolerance; ++it) {
      if (fc > fd) {
        b = d, d = c, fd = fc;
        c = b - phi * (b - a), fc = f(c);
      } else {
        a = c, c = d, fc = fd;
        d = a + phi * (b - a), fd = f(d);
      }
    }
    const double refined = 0.5 * (a + b), value = f(refined);
    if (value > best.value) best.at = refined, best.value = value, best.grid_index = k;
  };
  // A local maximum of the grid: finite, above the point before it and not below the one after
  // it (the first point of a plateau); the ends count against their one neighbour.
  for (int k = 0; k <= grid; ++k) {
    const double v = values[std::size_t(k)];
    if (!std::isfinite(v)) continue;
    if ((k == 0 || v > values[std::size_t(k - 1)]) && (k == grid || v >= values[std::size_t(k + 1)])) refine(k);
  }
  return best;
}

// Half of the 95 % quantile of χ² with one degree of freedom: a 95 % profile-likelihood
// interval holds the values whose profile log-likelihood lies within this of its maximum.
inline constexpr double kProfileDrop95 = 3.841458820694124 / 2.0;

// Where a parameter's profile log-likelihood lies within `drop` of its value at the maximum
// `at` (docs/analysis.md#confidence-intervals). Unlike ± 1.96 standard errors it follows the
// likelihood's own shape: asymmetric near a bound, open where the data do not limit it. Each
// end is searched outward from `at` in steps doubling from `step`, then pinned by regula falsi;
// an end that does not fall by `drop` before its bound is open (the interval reaches past it).
struct ProfileInterval {
  bool ok = false;  // false: the profile is not finite at `at`
  double lo = 0.0, hi = 0.0;
  bool lo_open = false, hi_open = false;
  // An end found where a parameter maximised in the profile sat on its own search bound: the
  // true end lies beyond it (the caller sets these; written "< lo", "> hi").
  bool lo_beyond = false, hi_beyond = false;
};

template <class F>
ProfileInterval profile_interval(F&& profile, double at, double step, double lo_bound, double hi_bound,
                                 double drop = kProfileDrop95) {
  ProfileInterval out;
  const double top = profile(at);
  if (!std::isfinite(top) || !(step > 0.0)) return out;
  const double level = top - drop;
  // Above zero inside the interval; a non-finite profile is outside.
  auto height = [&](double p) {
    const double v = profile(p);
    return std::isfinite(v) ? v - level : -drop;
  };
  auto end = [&](double direction, double bound, double& found, bool& open) {
    double in = at, h_in = drop, out_p = 0.0, h_out = 0.0, s = step;
    for (;;) {
      const double p = direction * (at + direction * s - bound) >= 0.0 ? bound : at + direction * s;
      const double h = height(p);
      if (h < 0.0) {
        out_p = p, h_out = h;
        break;
      }
      if (p == bound) {
        found = bound, open = true;
        return;
      }
      in = p, h_in = h, s *= 2.0;
    }
    // The crossing lies between `in` and `out_p`: regula falsi with the Illinois halving (the
    // profile is smooth there), to 10⁻⁴ of the first step.
    int kept_side = 0;
    found = 0.5 * (in + out_p);
    for (int it = 0; it < 100 && std::abs(out_p - in) > 1e-4 * step; ++it) {
      const double p = in + (out_p - in) * h_in / (h_in - h_out);
      const double h = height(p);
      found = p;
      if (h >= 0.0) {
        in = p, h_in = h;
        if (kept_side == 1) h_out *= 0.5;
        kept_side = 1;
      } else {
        out_p = p, h_out = h;
        if (kept_side == -1) h_in *= 0.5;
        kept_side = -1;
      }
      if (std::abs(h) < 1e-7) break;
    }
  };
  end(-1.0, lo_bound, out.lo, out.lo_open);
  end(+1.0, hi_bound, out.hi, out.hi_open);
  out.ok = true;
  return out;
}

}  // namespace ermak::analysis
