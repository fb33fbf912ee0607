#include "ermak/analysis/dudko_hummer_szabo.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <vector>

#include "ermak/analysis/bell_evans.h"
#include "ermak/analysis/fit_numerics.h"

namespace ermak::analysis {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// 1 − c^{1/ν} for c = 1 − ε, without the cancellation of 1 − pow(1 − ε, 1/ν) at small ε
// (large barriers).
double one_minus_c_power(double epsilon, double nu) { return -std::expm1(std::log1p(-epsilon) / nu); }

// The data of either fit: item i at force F_i with weight w_i — ramps: kT/r_i, so that
// ∫k dF/r = k0·(w_i/x‡)·(e^{ΔG‡/kT·(1 − c^{1/ν})} − 1); clamps: the time t_i, so that the
// integrated rate is k0·t_i·h_i — and whether it is an event (a rupture, an unfolding).
struct Data {
  bool ramp = true;
  double nu = 2.0 / 3.0, kT = 1.0;
  std::vector<double> force, ln_weight;
  std::vector<std::uint8_t> event;
  double events = 0.0, f_max = 0.0;
};

struct Terms {
  bool valid = false;
  double sum_ln_h = 0.0;  // over the events
  double ln_G = 0.0;      // ln Σ g_i
};

// Σ ln h over the events and ln Σ g at (x‡, v = ΔG‡/kT). ln Σ g is summed as it goes, rescaled
// to its largest term so far.
Terms terms(const Data& d, double x, double v) {
  Terms t;
  if (!(x > 0.0 && v > 0.0)) return t;
  const double ln_x = std::log(x);
  double top = -kInf, sum = 0.0;
  for (std::size_t i = 0; i < d.force.size(); ++i) {
    const double epsilon = d.nu * d.force[i] * x / (v * d.kT);
    if (!(epsilon < 1.0)) return t;
    const double ln_c = std::log1p(-epsilon);
    const double exponent = -v * std::expm1(ln_c / d.nu);  // ΔG‡/kT·(1 − c^{1/ν})
    const double ln_h = (1.0 / d.nu - 1.0) * ln_c + exponent;
    if (d.event[i]) t.sum_ln_h += ln_h;
    const double ln_g = d.ramp ? d.ln_weight[i] - ln_x + (exponent > 0.0 ? log_expm1(exponent) : -kInf)
                               : d.ln_weight[i] + ln_h;
    if (ln_g == -kInf) continue;  // adds nothing to Σ g
    if (ln_g > top) {
      sum = sum * std::exp(top - ln_g) + 1.0;
      top = ln_g;
    } else {
      sum += std::exp(ln_g - top);
    }
  }
  t.ln_G = top + std::log(sum);
  t.valid = std::isfinite(t.ln_G) && std::isfinite(t.sum_ln_h);
  return t;
}

// The log-likelihood at (ln k0, x‡, v), without the terms free of the parameters.
double log_likelihood(const Data& d, double ln_k0, double x, double v) {
  const Terms t = terms(d, x, v);
  if (!t.valid) return -kInf;
  return d.events * ln_k0 + t.sum_ln_h - std::exp(ln_k0 + t.ln_G);
}

// Minimises f over R² by the Nelder–Mead simplex.
std::array<double, 2> nelder_mead(const std::function<double(const std::array<double, 2>&)>& f,
                                  std::array<double, 2> start, double step) {
  std::array<std::array<double, 2>, 3> p = {start, start, start};
  p[1][0] += step;
  p[2][1] += step;
  std::array<double, 3> fv = {f(p[0]), f(p[1]), f(p[2])};
  for (int it = 0; it < 4000; ++it) {
    std::array<int, 3> order = {0, 1, 2};
    std::sort(order.begin(), order.end(), [&](int a, int b) { return fv[a] < fv[b]; });
    const int best = order[0], mid = order[1], worst = order[2];
    if (std::abs(fv[worst] - fv[best]) < 1e-12 * (1.0 + std::abs(fv[best])) &&
        std::hypot(p[worst][0] - p[best][0], p[worst][1] - p[best][1]) < 1e-9)
      break;
    const std::array<double, 2> centre = {0.5 * (p[best][0] + p[mid][0]), 0.5 * (p[best][1] + p[mid][1])};
    auto along = [&](double t) {
      return std::array<double, 2>{centre[0] + t * (p[worst][0] - centre[0]), centre[1] + t * (p[worst][1] - centre[1])};
    };
    const auto reflected = along(-1.0);
    const double fr = f(reflected);
    if (fr < fv[best]) {
      const auto expanded = along(-2.0);
      const double fe = f(expanded);
      if (fe < fr) p[worst] = expanded, fv[worst] = fe;
      else p[worst] = reflected, fv[worst] = fr;
    } else if (fr < fv[mid]) {
      p[worst] = reflected, fv[worst] = fr;
    } else {
      const auto contracted = along(fr < fv[worst] ? -0.5 : 0.5);
      const double fc = f(contracted);
      if (fc < std::min(fr, fv[worst])) {
        p[worst] = contracted, fv[worst] = fc;
      } else {  // shrink towards the best
        for (int k : {mid, worst}) {
          p[k] = {0.5 * (p[k][0] + p[best][0]), 0.5 * (p[k][1] + p[best][1])};
          fv[k] = f(p[k]);
        }
      }
    }
  }
  return p[std::min_element(fv.begin(), fv.end()) - fv.begin()];
}

// Inverse of a symmetric 3×3 matrix; false when it is not positive definite.
bool invert_positive(const std::array<std::array<double, 3>, 3>& m, std::array<std::array<double, 3>, 3>& inv) {
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  if (!(m[0][0] > 0.0 && m[0][0] * m[1][1] - m[0][1] * m[1][0] > 0.0 && det > 0.0)) return false;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
      inv[i][j] = (m[i1][j1] * m[i2][j2] - m[i1][j2] * m[i2][j1]) / det;
    }
  return true;
}

DhsFit fit(const Data& d, double bell_x_nm, bool with_intervals) {
  DhsFit out;
  out.nu = d.nu;
  // x‡ = e^y and ΔG‡/kT = v = (ν·F_max·x‡/kT)·(1 + e^w): every force below the critical one.
  auto v_of = [&](double x, double w) { return d.nu * d.f_max * x / d.kT * (1.0 + std::exp(w)); };
  auto minus_profile = [&](const std::array<double, 2>& p) {
    const double x = std::exp(p[0]), v = v_of(x, p[1]);
    const Terms t = terms(d, x, v);
    if (!t.valid) return kInf;
    return -(t.sum_ln_h - d.events * t.ln_G);
  };
  std::array<double, 2> best = {std::log(bell_x_nm), 2.0};
  double best_value = minus_profile(best);
  for (double y0 : {std::log(bell_x_nm), std::log(bell_x_nm) + 0.7, std::log(bell_x_nm) - 0.7})
    for (double w0 : {-2.0, 0.0, 2.0, 4.0}) {
      const auto p = nelder_mead(minus_profile, {y0, w0}, 0.3);
      const double value = minus_profile(p);
      if (value < best_value) best = p, best_value = value;
    }
  if (!std::isfinite(best_value)) {
    out.why_not = "no parameters give the data a finite likelihood";
    return out;
  }
  if (best[1] > 12.0) {
    out.bell_limit = true;
    out.why_not = "the likelihood is largest as ΔG‡ → ∞, where the rate becomes Bell's (which says nothing on "
                  "whether Bell's law itself fits)";
    return out;
  }
  if (best[1] < -12.0) {
    out.why_not = "ΔG‡ at its lower limit: the largest force sits at the critical force ΔG‡/(ν·x‡)";
    return out;
  }
  const double x = std::exp(best[0]), v = v_of(x, best[1]);
  const Terms t = terms(d, x, v);
  const double ln_k0 = std::log(d.events) - t.ln_G;
  // Observed information: minus the Hessian of the log-likelihood in (ln k0, x‡, v), by
  // central differences.
  const std::array<double, 3> at = {ln_k0, x, v}, h = {1e-4, 1e-4 * x, 1e-4 * v};
  auto L = [&](std::array<double, 3> p) { return log_likelihood(d, p[0], p[1], p[2]); };
  std::array<std::array<double, 3>, 3> info{};
  const double centre = L(at);
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j) {
      auto shifted = [&](double si, double sj) {
        std::array<double, 3> p = at;
        p[i] += si * h[i];
        p[j] += sj * h[j];
        return L(p);
      };
      const double second = i == j ? (shifted(0.5, 0.5) - 2.0 * centre + shifted(-0.5, -0.5)) / (h[i] * h[i])
                                   : (shifted(1, 1) - shifted(1, -1) - shifted(-1, 1) + shifted(-1, -1)) /
                                         (4.0 * h[i] * h[j]);
      info[i][j] = info[j][i] = -second;
    }
  bool finite_info = true;
  for (const auto& row : info)
    for (double v : row) finite_info = finite_info && std::isfinite(v);
  if (!finite_info) {
    // A step of 10⁻⁴ in x‡ or ΔG‡ crossed the critical-force bound: the fit sits on it.
    out.why_not = "the critical force ΔG‡/(ν·x‡) sits at the largest force measured: the fit is held by that bound";
    return out;
  }
  std::array<std::array<double, 3>, 3> cov{};
  if (!invert_positive(info, cov)) {
    out.why_not = "the likelihood has no curvature at its maximum (the data do not determine x‡ and ΔG‡ together)";
    return out;
  }
  out.ok = true;
  out.x_nm = x;
  out.barrier_kT = v;
  out.k0_per_s = std::exp(ln_k0);
  out.ln_k0_se = std::sqrt(cov[0][0]);
  out.x_se_nm = std::sqrt(cov[1][1]);
  out.barrier_se_kT = std::sqrt(cov[2][2]);
  out.log_likelihood = centre;
  out.largest_force_pN = d.f_max;
  if (!with_intervals) return out;
  // 95 % profile-likelihood intervals (docs/analysis.md#confidence-intervals), ln k0 profiled
  // out in closed form throughout: x‡'s with ΔG‡ maximised at each x‡, ΔG‡'s with x‡ maximised
  // at each ΔG‡ below the bound x‡ < ΔG‡/(ν·F_max) (written x‡ = that bound/(1 + e^w)). Near
  // the critical-force bound these are the honest ones; ΔG‡'s upper end is open where the data
  // allow Bell's limit.
  auto profile_xv = [&](double x_nm, double v_kT) {
    const Terms at_t = terms(d, x_nm, v_kT);
    return at_t.valid ? at_t.sum_ln_h - d.events * at_t.ln_G : -kInf;
  };
  // The inner maximisation scans w in steps of 0.5 and refines every local maximum of the scan:
  // at fixed ΔG‡ the profile in x‡ can have two, one at the critical-force bound and a higher one
  // well inside it (WW ramps at three speeds: ΔG‡'s upper end came out 20.8 kT from the lower
  // one, where the higher gives 61.6 kT).
  constexpr int kInnerGrid = 56;
  auto profile_x = [&](double ln_x) {
    return grid_golden_maximum([&](double w) { return -minus_profile({ln_x, w}); }, -14.0, 14.0, kInnerGrid, 1e-5)
        .value;
  };
  auto profile_v = [&](double ln_v) {
    const double v_kT = std::exp(ln_v), x_bound = v_kT * d.kT / (d.nu * d.f_max);
    return grid_golden_maximum([&](double w) { return profile_xv(x_bound / (1.0 + std::exp(w)), v_kT); }, -14.0,
                               14.0, kInnerGrid, 1e-5)
        .value;
  };
  const ProfileInterval ln_x = profile_interval(profile_x, std::log(x), std::max(1e-3, out.x_se_nm / x),
                                                std::log(1e-3), std::log(20.0));
  out.x_interval_nm = ln_x;
  out.x_interval_nm.lo = std::exp(ln_x.lo);
  out.x_interval_nm.hi = std::exp(ln_x.hi);
  const ProfileInterval ln_v = profile_interval(profile_v, std::log(v), std::max(1e-3, out.barrier_se_kT / v),
                                                std::log(v) - 10.0, std::log(v) + 10.0);
  out.barrier_interval_kT = ln_v;
  out.barrier_interval_kT.lo = std::exp(ln_v.lo);
  out.barrier_interval_kT.hi = std::exp(ln_v.hi);
  return out;
}


Data make_data(bool ramp, double nu, double kT, std::span<const double> forces, std::vector<double> weight,
               std::vector<std::uint8_t> event) {
  Data d;
  d.ramp = ramp;
  d.nu = nu;
  d.kT = kT;
  d.force.assign(forces.begin(), forces.end());
  for (double w : weight) d.ln_weight.push_back(std::log(w));
  d.event = std::move(event);
  for (std::uint8_t e : d.event) d.events += e ? 1.0 : 0.0;
  d.f_max = std::max(0.0, *std::max_element(forces.begin(), forces.end()));
  return d;
}

}  // namespace

namespace {
// Both DHS fits start from Bell's (its x_β seeds the search, its refusals are theirs) and
// need one more event and, for clamps, one more force than Bell's two parameters do: where
// Bell's lacks data, the DHS fit states its own, larger requirement, not Bell's.
DhsFit fit_after_bell(const BellFit& bell, double nu, std::size_t n, bool enough, const char* too_little,
                      bool with_intervals, const std::function<Data()>& data) {
  DhsFit out;
  out.nu = nu;
  out.n = n;
  out.events = bell.events;
  if (!bell.ok && !bell.too_little_data) {
    out.why_not = bell.why_not;
    return out;
  }
  if (!bell.ok || bell.events < 4 || !enough) {
    out.why_not = too_little;
    out.too_little_data = true;
    return out;
  }
  DhsFit f = fit(data(), bell.x_nm, with_intervals);
  f.n = out.n;
  f.events = out.events;
  return f;
}
}  // namespace

DhsFit fit_dhs_ramps(std::span<const double> forces_pN, std::span<const double> rates_pN_per_s, double kT,
                     double nu, std::span<const std::uint8_t> ruptured, bool with_intervals) {
  const BellFit bell = fit_bell_evans_ramps(forces_pN, rates_pN_per_s, kT, ruptured, false);
  return fit_after_bell(bell, nu, forces_pN.size(), distinct_count(rates_pN_per_s) >= 2,
                        "needs at least 4 rupture forces at 2 or more loading rates", with_intervals, [&] {
                          std::vector<double> weight;
                          for (double r : rates_pN_per_s) weight.push_back(kT / r);
                          std::vector<std::uint8_t> events(ruptured.begin(), ruptured.end());
                          if (events.empty()) events.assign(forces_pN.size(), 1);
                          return make_data(true, nu, kT, forces_pN, std::move(weight), std::move(events));
                        });
}

DhsFit fit_dhs_lifetimes(std::span<const double> forces_pN, std::span<const double> times_s,
                         std::span<const std::uint8_t> unfolded, double kT, double nu, bool with_intervals) {
  const BellFit bell = fit_bell_lifetimes(forces_pN, times_s, unfolded, kT, false);
  // Each force pins one rate: three parameters need three forces.
  return fit_after_bell(bell, nu, forces_pN.size(), distinct_count(forces_pN) >= 3,
                        "needs at least 4 unfolding events at 3 or more forces", with_intervals, [&] {
                          return make_data(false, nu, kT, forces_pN, {times_s.begin(), times_s.end()},
                                           {unfolded.begin(), unfolded.end()});
                        });
}

namespace {
double critical_force(const DhsFit& f, double kT) { return f.critical_force_pN(kT); }
// The exponent ΔG‡/kT·(1 − c^{1/ν}) at force F (F below the critical force).
double exponent_at(const DhsFit& f, double force, double kT) {
  return f.barrier_kT * one_minus_c_power(std::min(1.0, force / critical_force(f, kT)), f.nu);
}
}  // namespace

double dhs_rate_per_s(const DhsFit& f, double force, double kT) {
  const double c = 1.0 - force / critical_force(f, kT);
  if (!(c > 0.0)) return kInf;
  return f.k0_per_s * std::pow(c, 1.0 / f.nu - 1.0) * std::exp(exponent_at(f, force, kT));
}

double dhs_survival(const DhsFit& f, double force, double rate, double kT) {
  if (force >= critical_force(f, kT)) return 0.0;
  return std::exp(-f.k0_per_s * kT / (f.x_nm * rate) * std::expm1(exponent_at(f, force, kT)));
}

double dhs_force_at_survival(const DhsFit& f, double u, double rate, double kT) {
  const double a = f.k0_per_s * kT / (f.x_nm * rate);
  const double q = std::log1p(-std::log(u) / a) / f.barrier_kT;  // 1 − c^{1/ν}
  if (q >= 1.0) return critical_force(f, kT);
  return (1.0 - std::pow(1.0 - q, f.nu)) * critical_force(f, kT);
}

double dhs_mean_force_pN(const DhsFit& f, double rate, double kT) {
  // ∫₀ S dF up to where S < e^{-60} (or the critical force), by Simpson's rule.
  const double top = dhs_force_at_survival(f, std::exp(-60.0), rate, kT);
  return simpson([&](double force) { return dhs_survival(f, force, rate, kT); }, 0.0, top);
}

}  // namespace ermak::analysis
