#include "ermak/analysis/bell_evans.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <vector>

#include "ermak/analysis/fit_numerics.h"

namespace ermak::analysis {
namespace {

// The range of x_β searched (docs/analysis.md#dynamic-force-spectrum).
constexpr double kSmallestX_nm = 1e-3, kLargestX_nm = 20.0;

// Both likelihoods have the form  L(ℓ, x) = events·ℓ + x·S/kT − e^ℓ·Σ g_i(x) (+ terms free of
// the fit), ℓ = ln k0: ramps g_i = kT/(x·r_i)·(e^{F_i x/kT} − 1) over the forces, clamps
// g_i = t_i·e^{F_i x/kT} over all trajectories with S over the unfolded ones. Given
// ln g_i(x) and its first two derivatives, maximise it.
struct Terms {
  std::function<double(std::size_t, double)> ln_g, d_ln_g, d2_ln_g;
  std::size_t count = 0;     // i = 0 … count − 1
  double events = 0.0;       // the coefficient of ℓ
  double force_sum_pN = 0.0; // S
};

// The events' count and force sum, the coefficients of ln k0 and x·/kT in the likelihood.
template <class IsEvent>
void add_events(Terms& t, std::span<const double> forces_pN, IsEvent is_event) {
  for (std::size_t i = 0; i < forces_pN.size(); ++i)
    if (is_event(i)) {
      t.events += 1.0;
      t.force_sum_pN += forces_pN[i];
    }
}

BellFit maximise(const Terms& t, double kT, bool with_intervals) {
  BellFit fit;
  auto ln_G = [&](double x) {
    double top = -std::numeric_limits<double>::infinity();
    std::vector<double> lg(t.count);
    for (std::size_t i = 0; i < t.count; ++i) top = std::max(top, lg[i] = t.ln_g(i, x));
    double sum = 0.0;
    for (double v : lg) sum += std::exp(v - top);
    return top + std::log(sum);
  };
  // The profile log-likelihood (ℓ at its optimum ln(events/G)), up to a constant.
  auto profile = [&](double ln_x) {
    const double x = std::exp(ln_x);
    return x * t.force_sum_pN / kT - t.events * ln_G(x);
  };
  const double lo = std::log(kSmallestX_nm), hi = std::log(kLargestX_nm);
  const int grid = 240;
  const GridMaximum best = grid_golden_maximum(profile, lo, hi, grid);
  if (best.grid_index == 0) {
    fit.why_not = "the forces do not depend on the loading rate or force as Bell's law needs (x_β → 0)";
    return fit;
  }
  if (best.grid_index == grid) {
    fit.why_not = "x_β beyond 20 nm: the data pin no barrier";
    return fit;
  }
  const double x = std::exp(best.at);
  const double lnG = ln_G(x);
  // Observed information in (ℓ, x): [[E, E·m1], [E·m1, E·m2]], with w_i = g_i/G,
  // m1 = Σ w (ln g)', m2 = Σ w ((ln g)'² + (ln g)'').
  double m1 = 0.0, m2 = 0.0;
  for (std::size_t i = 0; i < t.count; ++i) {
    const double w = std::exp(t.ln_g(i, x) - lnG);
    const double d1 = t.d_ln_g(i, x);
    m1 += w * d1;
    m2 += w * (d1 * d1 + t.d2_ln_g(i, x));
  }
  const double spread = m2 - m1 * m1;
  if (!(spread > 0.0) || !std::isfinite(spread)) {
    fit.why_not = "the likelihood has no curvature at its maximum (the data do not determine x_β)";
    return fit;
  }
  fit.ok = true;
  fit.x_nm = x;
  fit.k0_per_s = std::exp(std::log(t.events) - lnG);
  fit.x_se_nm = std::sqrt(1.0 / (t.events * spread));
  fit.ln_k0_se = std::sqrt(m2 / (t.events * spread));
  fit.correlation = -m1 / std::sqrt(m2);
  fit.log_likelihood = t.events * std::log(fit.k0_per_s) + x * t.force_sum_pN / kT - t.events;
  if (!with_intervals) return fit;
  // 95 % profile-likelihood intervals (docs/analysis.md#confidence-intervals): x_β's from the
  // profile above (in ln x_β), ln k0's from the likelihood maximised over x_β at each ln k0.
  const ProfileInterval ln_x = profile_interval(profile, best.at, std::max(1e-3, fit.x_se_nm / x), lo, hi);
  fit.x_interval_nm = ln_x;
  fit.x_interval_nm.lo = std::exp(ln_x.lo);
  fit.x_interval_nm.hi = std::exp(ln_x.hi);
  auto inner_at = [&](double ln_k0) {
    auto at_x = [&](double ln_x) {
      const double x_nm = std::exp(ln_x);
      return t.events * ln_k0 + x_nm * t.force_sum_pN / kT - std::exp(ln_k0 + ln_G(x_nm));
    };
    return grid_golden_maximum(at_x, lo, hi, 40, 1e-6);
  };
  auto profile_ln_k0 = [&](double ln_k0) { return inner_at(ln_k0).value; };
  const double ln_k0 = std::log(fit.k0_per_s);
  fit.ln_k0_interval = profile_interval(profile_ln_k0, ln_k0, std::max(1e-3, fit.ln_k0_se), ln_k0 - 200.0, ln_k0 + 200.0);
  // An end where x_β sat on its search bound (1e-3 or 20 nm) would lie further out without it.
  if (fit.ln_k0_interval.ok) {
    auto on_bound = [&](double ln_k0_end) {
      const GridMaximum m = inner_at(ln_k0_end);
      return std::abs(m.at - lo) < 1e-6 || std::abs(m.at - hi) < 1e-6;
    };
    fit.ln_k0_interval.lo_beyond = !fit.ln_k0_interval.lo_open && on_bound(fit.ln_k0_interval.lo);
    fit.ln_k0_interval.hi_beyond = !fit.ln_k0_interval.hi_open && on_bound(fit.ln_k0_interval.hi);
  }
  return fit;
}


}  // namespace

BellFit fit_bell_evans_ramps(std::span<const double> forces_pN, std::span<const double> rates_pN_per_s,
                             double kT, std::span<const std::uint8_t> ruptured, bool with_intervals) {
  BellFit fit;
  fit.n = fit.events = forces_pN.size();
  if (forces_pN.size() != rates_pN_per_s.size() || (!ruptured.empty() && ruptured.size() != forces_pN.size())) {
    fit.why_not = "as many loading rates (and outcomes) as forces are needed";
    return fit;
  }
  auto event = [&](std::size_t i) { return ruptured.empty() || ruptured[i] != 0; };
  for (std::size_t i = 0; i < forces_pN.size(); ++i)
    if (!(forces_pN[i] > 0.0 && std::isfinite(forces_pN[i]) && rates_pN_per_s[i] > 0.0 &&
          std::isfinite(rates_pN_per_s[i]))) {
      fit.why_not = "forces and loading rates must be > 0 and finite";
      return fit;
    }
  Terms t;
  t.count = forces_pN.size();
  // A censored ramp (no rupture up to F) enters through its survival alone: its g, not its
  // rate (docs/analysis.md#dynamic-force-spectrum).
  add_events(t, forces_pN, event);
  fit.events = std::size_t(t.events);
  if (fit.events < 3 || distinct_count(rates_pN_per_s) < 2) {
    fit.why_not = "needs at least 3 rupture forces at 2 or more loading rates";
    fit.too_little_data = true;
    return fit;
  }
  // ln g = ln(kT/r) + ln(e^{bx} − 1) − ln x, b = F/kT.
  t.ln_g = [&](std::size_t i, double x) {
    return std::log(kT / rates_pN_per_s[i]) + log_expm1(forces_pN[i] / kT * x) - std::log(x);
  };
  t.d_ln_g = [&](std::size_t i, double x) {
    const double b = forces_pN[i] / kT;
    return b / -std::expm1(-b * x) - 1.0 / x;
  };
  t.d2_ln_g = [&](std::size_t i, double x) {
    const double b = forces_pN[i] / kT, q = -std::expm1(-b * x);
    return -b * b * std::exp(-b * x) / (q * q) + 1.0 / (x * x);
  };
  BellFit out = maximise(t, kT, with_intervals);
  out.n = fit.n;
  out.events = fit.events;
  return out;
}

BellFit fit_bell_lifetimes(std::span<const double> forces_pN, std::span<const double> times_s,
                           std::span<const std::uint8_t> unfolded, double kT, bool with_intervals) {
  BellFit fit;
  fit.n = forces_pN.size();
  if (forces_pN.size() != times_s.size() || forces_pN.size() != unfolded.size()) {
    fit.why_not = "as many times and outcomes as forces are needed";
    return fit;
  }
  Terms t;
  t.count = forces_pN.size();
  for (std::size_t i = 0; i < t.count; ++i) {
    if (!(std::isfinite(forces_pN[i]) && times_s[i] > 0.0 && std::isfinite(times_s[i]))) {
      fit.why_not = "forces must be finite and times > 0";
      return fit;
    }
  }
  add_events(t, forces_pN, [&](std::size_t i) { return unfolded[i] != 0; });
  fit.events = std::size_t(t.events);
  if (fit.events < 3 || distinct_count(forces_pN) < 2) {
    fit.why_not = "needs at least 3 unfolding events at 2 or more forces";
    fit.too_little_data = true;
    return fit;
  }
  t.ln_g = [&](std::size_t i, double x) { return std::log(times_s[i]) + forces_pN[i] / kT * x; };
  t.d_ln_g = [&](std::size_t i, double) { return forces_pN[i] / kT; };
  t.d2_ln_g = [](std::size_t, double) { return 0.0; };
  BellFit out = maximise(t, kT, with_intervals);
  out.n = fit.n;
  out.events = fit.events;
  return out;
}

namespace {
// a = k0·kT/(x_β·r): the Bell–Evans distribution in u = F·x_β/kT is S(u) = exp(−a(e^u − 1)).
double scale_a(const BellFit& fit, double rate, double kT) { return fit.k0_per_s * kT / (fit.x_nm * rate); }
}  // namespace

double bell_evans_mode_pN(const BellFit& fit, double rate, double kT) {
  const double a = scale_a(fit, rate, kT);
  return a >= 1.0 ? 0.0 : kT / fit.x_nm * -std::log(a);
}

double bell_evans_mean_pN(const BellFit& fit, double rate, double kT) {
  // ∫₀^∞ S dF = (kT/x_β) ∫₀^∞ exp(−a(e^u − 1)) du, by Simpson's rule up to where the
  // exponent reaches −60.
  const double a = scale_a(fit, rate, kT);
  const double u_max = std::log1p(60.0 / a);
  return kT / fit.x_nm * simpson([a](double u) { return std::exp(-a * std::expm1(u)); }, 0.0, u_max);
}

double bell_evans_mean_below_pN(const BellFit& fit, double rate, double kT, double limit_pN) {
  if (!(limit_pN < std::numeric_limits<double>::infinity())) return bell_evans_mean_pN(fit, rate, kT);
  if (!(limit_pN > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  const double a = scale_a(fit, rate, kT);
  const double u_limit = std::min(limit_pN * fit.x_nm / kT, std::log1p(60.0 / a));
  const double below = kT / fit.x_nm * simpson([a](double u) { return std::exp(-a * std::expm1(u)); }, 0.0, u_limit);
  const double survival = bell_evans_survival(fit, limit_pN, rate, kT);
  return (below - limit_pN * survival) / (1.0 - survival);
}

double bell_evans_survival(const BellFit& fit, double force_pN, double rate, double kT) {
  return std::exp(-scale_a(fit, rate, kT) * std::expm1(force_pN * fit.x_nm / kT));
}

double bell_evans_force_at_survival(const BellFit& fit, double u, double rate, double kT) {
  return kT / fit.x_nm * std::log1p(-std::log(u) / scale_a(fit, rate, kT));
}

}  // namespace ermak::analysis
