#include "ermak/analysis/wlc.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ermak::analysis {

double marko_siggia_force(double x, double contour_length, double persistence_length, double kT) {
  const double z = x / contour_length;
  if (!(z < 1.0)) return std::numeric_limits<double>::infinity();
  const double u = 1.0 - z;
  return (kT / persistence_length) * (0.25 / (u * u) - 0.25 + z);
}

double marko_siggia_extension(double force, double contour_length, double persistence_length,
                              double kT) {
  // Solve g(z) = 1/(4(1−z)²) − 1/4 + z = φ for z < 1; g is increasing. For φ ≥ 0 the root
  // lies in [0, 1); for φ < 0, z − 1/4 ≤ g(z) ≤ z puts it in [φ, φ + 1/4].
  const double phi = force * persistence_length / kT;
  auto g = [](double z) {
    const double u = 1.0 - z;
    return 0.25 / (u * u) - 0.25 + z;
  };
  double lo = phi >= 0.0 ? 0.0 : phi;
  double hi = phi >= 0.0 ? 1.0 : std::min(phi + 0.25, 0.0);
  for (int it = 0; it < 200 && hi - lo > 1e-16 * std::max(1.0, std::abs(lo)); ++it) {
    const double mid = 0.5 * (lo + hi);
    if (mid >= 1.0) break;
    (g(mid) < phi ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi) * contour_length;
}

double minimise_scan_golden(const std::function<double(double)>& objective, double a, double b,
                            int grid, bool log_scale, double tolerance, bool* at_bound) {
  grid = std::max(grid, 3);
  auto to = [&](double t) { return log_scale ? std::log(t) : t; };
  auto from = [&](double u) { return log_scale ? std::exp(u) : u; };
  const double ua = to(a), ub = to(b);
  std::vector<double> u(grid), value(grid);
  int best = -1;
  for (int k = 0; k < grid; ++k) {
    u[k] = ua + (ub - ua) * double(k) / double(grid - 1);
    value[k] = objective(from(u[k]));
    if (!std::isnan(value[k]) && (best < 0 || value[k] < value[best])) best = k;
  }
  if (best < 0) best = 0;
  if (at_bound) *at_bound = best == 0 || best == grid - 1;
  double lo = u[std::max(best - 1, 0)], hi = u[std::min(best + 1, grid - 1)];
  // Golden section on [lo, hi] in the scan variable.
  const double r = 0.5 * (std::sqrt(5.0) - 1.0);
  double c = hi - r * (hi - lo), d = lo + r * (hi - lo);
  double fc = objective(from(c)), fd = objective(from(d));
  const double scale = std::max({std::abs(lo), std::abs(hi), 1e-300});
  for (int it = 0; it < 200 && (hi - lo) > tolerance * scale; ++it) {
    if (fc < fd) {
      hi = d;
      d = c;
      fd = fc;
      c = hi - r * (hi - lo);
      fc = objective(from(c));
    } else {
      lo = c;
      c = d;
      fc = fd;
      d = lo + r * (hi - lo);
      fd = objective(from(d));
    }
  }
  double u_best = 0.5 * (lo + hi);
  // The refinement never does worse than the grid point it started from.
  if (!(objective(from(u_best)) <= value[best])) u_best = u[best];
  return from(u_best);
}

namespace {

struct Points {
  std::vector<double> x, f;
};

// Finite points, averaged down in consecutive groups to at most max_points.
Points prepare(std::span<const double> x, std::span<const double> f, std::size_t max_points) {
  Points all;
  const std::size_t n = std::min(x.size(), f.size());
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(x[i]) && std::isfinite(f[i])) {
      all.x.push_back(x[i]);
      all.f.push_back(f[i]);
    }
  if (max_points < 3 || all.x.size() <= max_points) return all;
  Points out;
  const std::size_t m = all.x.size();
  for (std::size_t g = 0; g < max_points; ++g) {
    const std::size_t a = g * m / max_points, b = (g + 1) * m / max_points;
    double sx = 0, sf = 0;
    for (std::size_t i = a; i < b; ++i) {
      sx += all.x[i];
      sf += all.f[i];
    }
    out.x.push_back(sx / double(b - a));
    out.f.push_back(sf / double(b - a));
  }
  return out;
}

double sum_squares(const Points& p, double lc, double persistence, double kT) {
  double s = 0.0;
  for (std::size_t i = 0; i < p.x.size(); ++i) {
    const double r = p.f[i] - marko_siggia_force(p.x[i], lc, persistence, kT);
    s += r * r;
  }
  return s;
}

// Best Lc for a given P: Lc = x_max + d, d scanned over [1e-5, 1e2]·x_max.
double best_contour_length(const Points& p, double x_max, double persistence, double kT,
                           bool* at_bound) {
  auto objective = [&](double d) { return sum_squares(p, x_max + d, persistence, kT); };
  const double d = minimise_scan_golden(objective, 1e-5 * x_max, 1e2 * x_max, 71, true, 1e-10, at_bound);
  return x_max + d;
}

}  // namespace

WlcFit fit_wlc(std::span<const double> x, std::span<const double> f, const WlcFitOptions& options) {
  WlcFit fit;
  fit.persistence_length = options.persistence_length;
  const Points p = prepare(x, f, options.max_points);
  fit.points = p.x.size();
  const std::size_t needed = options.fit_persistence ? 5 : 3;
  if (p.x.size() < needed) {
    fit.note = "too few points (" + std::to_string(p.x.size()) + ", need " + std::to_string(needed) + ")";
    return fit;
  }
  const double x_max = *std::max_element(p.x.begin(), p.x.end());
  if (!(x_max > 0.0)) {
    fit.note = "no point at positive extension";
    return fit;
  }
  if (*std::max_element(p.f.begin(), p.f.end()) <= 0.0) {
    fit.note = "no point at positive force";
    return fit;
  }
  bool lc_bound = false, p_bound = false;
  double persistence = options.persistence_length;
  if (options.fit_persistence) {
    auto objective = [&](double P) {
      bool ignored = false;
      const double lc = best_contour_length(p, x_max, P, options.kT, &ignored);
      return sum_squares(p, lc, P, options.kT);
    };
    persistence = minimise_scan_golden(objective, options.p_min, options.p_max, 36, true, 1e-8, &p_bound);
  }
  const double lc = best_contour_length(p, x_max, persistence, options.kT, &lc_bound);
  fit.contour_length = lc;
  fit.persistence_length = persistence;
  fit.rms_residual = std::sqrt(sum_squares(p, lc, persistence, options.kT) / double(p.x.size()));
  fit.ok = !lc_bound && !p_bound;
  if (lc_bound) fit.note = "Lc at the bound of its search range (the edge does not look like a WLC)";
  if (p_bound) fit.note = "P at the bound of its search range [" + std::to_string(options.p_min) +
                          ", " + std::to_string(options.p_max) + "] nm";
  return fit;
}

}  // namespace ermak::analysis
