#pragma once
// Dynamic force spectroscopy with one barrier (docs/analysis.md#dynamic-force-spectrum):
// Bell's force-dependent rate k(F) = k0·exp(F·x_β/kT) fitted by maximum likelihood to the
// rupture forces of force ramps at several loading rates (the Bell–Evans distribution) or
// to the lifetimes of force clamps at several forces (exponential, with censoring).
//
// Ramp at loading rate r (F = r·t): the survival S(F) = exp(−a·(e^{F·x_β/kT} − 1)) with
// a = k0·kT/(x_β·r), and the rupture-force density p(F) = k(F)/r · S(F). Clamp at force F:
// the lifetime is exponential with rate k(F); a trajectory that has not unfolded by the
// end of its run (censored) contributes its survival exp(−k(F)·t).
//
// In both the log-likelihood is maximised over ln k0 in closed form, then over x_β by a
// bracketed search of the profile (x_β in [1e-3, 20] nm); standard errors come from the
// observed information (the analytic Hessian of the log-likelihood at the maximum), 95 %
// intervals from the profile likelihood.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "ermak/analysis/fit_numerics.h"

namespace ermak::analysis {

struct BellFit {
  bool ok = false;
  std::string why_not;          // when !ok: what the data lack
  // When !ok: too few events or levels to fit (why_not states Bell's own requirement, which
  // a fit of more parameters restates as its own), rather than data that pin no barrier.
  bool too_little_data = false;
  std::size_t n = 0;            // forces (ramps) or trajectories (clamps) used
  std::size_t events = 0;       // ramps: the ruptured ones (n less the censored); clamps: the unfolded ones
  double x_nm = 0.0;            // x_β, the distance to the barrier along the force
  double x_se_nm = 0.0;         // its standard error
  double k0_per_s = 0.0;        // the rate at zero force
  double ln_k0_se = 0.0;        // standard error of ln k0 (k0 is known to a factor e^{±se})
  double correlation = 0.0;     // between the estimates of x_β and ln k0
  double log_likelihood = 0.0;  // at the maximum, without the terms that do not depend on the fit
  // 95 % profile-likelihood intervals (docs/analysis.md#confidence-intervals), of x_β (nm) and
  // of ln k0: where the standard errors assume a parabolic likelihood, these follow its shape.
  ProfileInterval x_interval_nm, ln_k0_interval;
};

// Rupture forces of ramps: force i (pN, > 0) at loading rate i (pN/s, > 0). Needs at least
// two distinct loading rates and 3 ruptures; kT in pN·nm. `ruptured` (empty: all) marks the
// ruptures; an item with 0 is censored — it had not ruptured up to force i — and contributes
// its survival S(F_i).
// `with_intervals` false leaves the profile intervals out (the bootstrap's refits: they cost
// more than the fit).
BellFit fit_bell_evans_ramps(std::span<const double> forces_pN, std::span<const double> rates_pN_per_s,
                             double kT_pN_nm, std::span<const std::uint8_t> ruptured = {},
                             bool with_intervals = true);

// Lifetimes under a constant force: trajectory i held at forces_pN[i] for times_s[i],
// unfolded[i] != 0 when it unfolded then (else it was still folded at the end of its run).
// Needs at least two distinct forces and 3 unfolding events.
BellFit fit_bell_lifetimes(std::span<const double> forces_pN, std::span<const double> times_s,
                           std::span<const std::uint8_t> unfolded, double kT_pN_nm, bool with_intervals = true);

// The Bell–Evans distribution at loading rate r: its most probable force
// F* = (kT/x_β)·ln(r·x_β/(k0·kT)) (0 where that is negative: the mode is at F = 0), its mean
// ∫S(F)dF, and the survival S(F).
double bell_evans_mode_pN(const BellFit& fit, double rate_pN_per_s, double kT_pN_nm);
double bell_evans_mean_pN(const BellFit& fit, double rate_pN_per_s, double kT_pN_nm);
double bell_evans_survival(const BellFit& fit, double force_pN, double rate_pN_per_s, double kT_pN_nm);
// The mean of the ruptures below `limit_pN` — what a record that ends at that force can show
// when its replicas without a rupture are censored there (--no-peak censored):
// E[F | F < c] = (∫₀^c S dF − c·S(c)) / (1 − S(c)). The untruncated mean for c = ∞.
double bell_evans_mean_below_pN(const BellFit& fit, double rate_pN_per_s, double kT_pN_nm, double limit_pN);
// The force F with survival S(F) = u, u in (0, 1] (inverse-CDF sampling, tests).
double bell_evans_force_at_survival(const BellFit& fit, double u, double rate_pN_per_s, double kT_pN_nm);

}  // namespace ermak::analysis
