#pragma once
// Worm-like chain (WLC) in the Marko–Siggia interpolation and its least-squares fit to
// the rising edge of a force–extension curve (docs/analysis.md#worm-like-chain-fits-lc-and-δlc).
//
//   F(x) = (kT/P) · [ 1/(4(1 − x/Lc)²) − 1/4 + x/Lc ],   x < Lc
//
// Lc = contour length, P = persistence length, kT in pN·nm (F in pN, lengths in nm).
#include <cstddef>
#include <functional>
#include <span>
#include <string>

namespace ermak::analysis {

// k_B·T in pN·nm (k_B = 1.380649e-23 J/K exactly; 300 K → 4.1419 pN·nm).
inline constexpr double boltzmann_pN_nm_per_K = 0.01380649;
inline constexpr double kT_pN_nm(double temperature_K) { return boltzmann_pN_nm_per_K * temperature_K; }

// F(x); +infinity for x ≥ Lc.
double marko_siggia_force(double x, double contour_length, double persistence_length, double kT);
// The inverse: the x < Lc at which F(x) = force (any real force; negative forces give
// x < 0, the interpolation continued smoothly).
double marko_siggia_extension(double force, double contour_length, double persistence_length,
                              double kT);

struct WlcFitOptions {
  double kT = kT_pN_nm(300.0);
  double persistence_length = 0.4;  // nm: the fixed P, or where a fitted P is reported if the fit fails
  bool fit_persistence = false;     // fit P as well (searched in [p_min, p_max])
  double p_min = 0.02, p_max = 50.0;
  std::size_t max_points = 1000;    // longer edges are averaged down to this many points
};

struct WlcFit {
  bool ok = false;                // false: too few points, or the optimum lies on a search bound
  double contour_length = 0.0;    // nm
  double persistence_length = 0.0;
  double rms_residual = 0.0;      // pN, root-mean-square of F_i − F(x_i)
  std::size_t points = 0;         // points used (after averaging down)
  std::string note;               // why not ok
};

// Least squares in force: minimises Σ (F_i − F(x_i; Lc, P))² over Lc > max x_i (the
// interpolation diverges at x = Lc) — a log-spaced scan of Lc − max x_i over six decades
// followed by golden-section refinement around the best grid point; with
// fit_persistence the same one-dimensional search over ln P wraps the Lc search (for
// each P the best Lc). Needs 3 points (5 to fit P).
WlcFit fit_wlc(std::span<const double> x, std::span<const double> f, const WlcFitOptions& options);

// One-dimensional minimisation on [a, b]: scan `grid` points (log-spaced when log_scale,
// a > 0), then golden-section refinement between the neighbours of the best one to a
// relative width of tolerance. Returns the argument of the minimum; *at_bound is set
// when the best grid point is an end of the interval.
double minimise_scan_golden(const std::function<double(double)>& objective, double a, double b,
                            int grid, bool log_scale, double tolerance, bool* at_bound);

}  // namespace ermak::analysis
