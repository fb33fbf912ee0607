#pragma once
// Dynamic force spectroscopy beyond Bell (docs/analysis.md#dynamic-force-spectrum): the
// Dudko–Hummer–Szabo rate (Phys. Rev. Lett. 96, 108101 (2006)), in which the barrier shrinks
// and moves under force,
//   k(F) = k0·c^{1/ν−1}·exp(ΔG‡/kT·(1 − c^{1/ν})),   c = 1 − ν·F·x‡/ΔG‡ (F below ΔG‡/(ν·x‡)),
// ν = 1/2 for a cusp-shaped barrier, 2/3 for a linear-cubic one (ν = 1 is Bell's law). Its
// rupture-force survival at loading rate r is S(F) = exp(−k0·kT/(x‡·r)·(e^{ΔG‡/kT·(1 − c^{1/ν})} − 1)),
// and a clamp's lifetime 1/k(F). Fitted by maximum likelihood as analysis/bell_evans.h fits
// Bell's law: ln k0 in closed form, (x‡, ΔG‡) by a simplex search of the profile, standard
// errors from a finite-difference Hessian of the log-likelihood, 95 % intervals of x‡ and ΔG‡
// from the profile likelihood.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "ermak/analysis/fit_numerics.h"

namespace ermak::analysis {

struct DhsFit {
  bool ok = false;
  std::string why_not;
  bool bell_limit = false;  // !ok because the likelihood is largest as ΔG‡ → ∞ (Bell's rate)
  bool too_little_data = false;  // !ok for too few events or forces (why_not: this fit's requirement)
  double nu = 2.0 / 3.0;
  std::size_t n = 0, events = 0;
  double x_nm = 0.0, x_se_nm = 0.0;              // x‡
  double k0_per_s = 0.0, ln_k0_se = 0.0;         // k0 and the standard error of ln k0
  double barrier_kT = 0.0, barrier_se_kT = 0.0;  // ΔG‡ / kT
  double log_likelihood = 0.0;                   // comparable with BellFit's (same omitted terms)
  double largest_force_pN = 0.0;                 // of the data; compare with critical_force_pN()
  // 95 % profile-likelihood intervals (docs/analysis.md#confidence-intervals) of x‡ (nm, searched
  // within 10⁻³–20) and ΔG‡ (kT, within e^{±10} of the estimate; an open upper end: the data
  // allow Bell's limit ΔG‡ → ∞).
  ProfileInterval x_interval_nm, barrier_interval_kT;
  // F_c = ΔG‡·kT/(ν·x‡), where the barrier vanishes. A fit whose F_c sits at the largest
  // force measured is held by that bound, and its standard errors understate the spread.
  double critical_force_pN(double kT_pN_nm) const { return barrier_kT * kT_pN_nm / (nu * x_nm); }
};

// `ruptured` as for fit_bell_evans_ramps (empty: all ruptured).
// `with_intervals` as for fit_bell_evans_ramps.
DhsFit fit_dhs_ramps(std::span<const double> forces_pN, std::span<const double> rates_pN_per_s, double kT_pN_nm,
                     double nu, std::span<const std::uint8_t> ruptured = {}, bool with_intervals = true);
DhsFit fit_dhs_lifetimes(std::span<const double> forces_pN, std::span<const double> times_s,
                         std::span<const std::uint8_t> unfolded, double kT_pN_nm, double nu,
                         bool with_intervals = true);

// The rate k(F) below the critical force F_c (for ν < 1 the formula falls to 0 just at F_c, an
// artefact of the model there; beyond F_c the barrier is gone and the rate is returned as
// infinite); the ramp's survival, its mean force ∫S dF, and the force of a given survival u in
// (0, 1] (inverse-CDF sampling, tests).
double dhs_rate_per_s(const DhsFit& fit, double force_pN, double kT_pN_nm);
double dhs_survival(const DhsFit& fit, double force_pN, double rate_pN_per_s, double kT_pN_nm);
double dhs_mean_force_pN(const DhsFit& fit, double rate_pN_per_s, double kT_pN_nm);
double dhs_force_at_survival(const DhsFit& fit, double u, double rate_pN_per_s, double kT_pN_nm);

}  // namespace ermak::analysis
