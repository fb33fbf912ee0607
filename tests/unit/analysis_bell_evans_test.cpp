// analysis/bell_evans: Bell's rate fitted by maximum likelihood to rupture forces of ramps
// and to lifetimes of clamps, against samples drawn from the exact distributions with known
// x_β and k0 (seeded): the estimates recover the truth within their standard errors, the
// standard errors are calibrated (z-scores over independent samples have sd ≈ 1), and the
// distribution's mean and mode are those of the samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "ermak/analysis/bell_evans.h"
#include "ermak/analysis/dudko_hummer_szabo.h"
#include "ermak/analysis/statistics.h"
#include "ermak/analysis/wlc.h"

namespace ermak::analysis {
namespace {

const double kT = kT_pN_nm(300.0);

BellFit truth(double x_nm, double k0_per_s) {
  BellFit t;
  t.ok = true;
  t.x_nm = x_nm;
  t.k0_per_s = k0_per_s;
  return t;
}

struct RampSample {
  std::vector<double> forces, rates;
};

// Rupture forces by inverse-CDF sampling of the Bell–Evans survival at each rate.
RampSample sample_ramps(const BellFit& t, const std::vector<double>& rates, int per_rate, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  RampSample s;
  for (double r : rates)
    for (int k = 0; k < per_rate; ++k) {
      const double u = 1.0 - uniform(rng);  // (0, 1]
      s.forces.push_back(bell_evans_force_at_survival(t, u, r, kT));
      s.rates.push_back(r);
    }
  return s;
}

// A WW-like barrier: x_β = 0.6 nm, k0 = 10⁻³ /s; loading rates of 2.5 to 2500 µm/s on a
// 35 pN/nm spring (rupture forces ~100–200 pN).
const BellFit kRampTruth = truth(0.6, 1e-3);
const std::vector<double> kRates = {8.7e4, 8.7e5, 8.7e6, 8.7e7};

TEST(BellEvans, RampFitRecoversXAndK0) {
  std::mt19937_64 rng(20261129);
  const RampSample s = sample_ramps(kRampTruth, kRates, 500, rng);
  const BellFit fit = fit_bell_evans_ramps(s.forces, s.rates, kT);
  ASSERT_TRUE(fit.ok) << fit.why_not;
  EXPECT_EQ(fit.n, 2000u);
  EXPECT_NEAR(fit.x_nm, kRampTruth.x_nm, 4.0 * fit.x_se_nm);
  EXPECT_NEAR(std::log(fit.k0_per_s), std::log(kRampTruth.k0_per_s), 4.0 * fit.ln_k0_se);
  // 2000 forces pin x_β to a few per cent.
  EXPECT_LT(fit.x_se_nm, 0.05 * kRampTruth.x_nm);
  EXPECT_GT(fit.x_se_nm, 0.0);
  // x_β and ln k0 are strongly anticorrelated (both move the forces up).
  EXPECT_LT(fit.correlation, -0.5);
  // The 95 % profile-likelihood intervals hold the truth and, with this many forces (a nearly
  // parabolic likelihood), match ± 1.96 standard errors to 10 %.
  const ProfileInterval& x = fit.x_interval_nm;
  ASSERT_TRUE(x.ok);
  EXPECT_FALSE(x.lo_open || x.hi_open);
  EXPECT_LT(x.lo, kRampTruth.x_nm);
  EXPECT_GT(x.hi, kRampTruth.x_nm);
  EXPECT_NEAR(0.5 * (x.hi - x.lo), 1.96 * fit.x_se_nm, 0.1 * 1.96 * fit.x_se_nm);
  const ProfileInterval& k = fit.ln_k0_interval;
  ASSERT_TRUE(k.ok);
  EXPECT_LT(k.lo, std::log(kRampTruth.k0_per_s));
  EXPECT_GT(k.hi, std::log(kRampTruth.k0_per_s));
  EXPECT_NEAR(0.5 * (k.hi - k.lo), 1.96 * fit.ln_k0_se, 0.1 * 1.96 * fit.ln_k0_se);
}

// Ramps that end before every replica ruptured: those still folded at the end enter as
// censored at the largest force they reached (their survival), and the fit recovers the
// truth; leaving them out instead drops the strongest and biases the forces low.
TEST(BellEvans, CensoredRampsEnterThroughTheirSurvival) {
  std::mt19937_64 rng(77);
  const RampSample s = sample_ramps(kRampTruth, kRates, 500, rng);
  std::vector<double> forces = s.forces;
  std::vector<std::uint8_t> ruptured(forces.size(), 1);
  // Each rate's ramp ends at the force its 70th percentile reaches (the rest censored there).
  std::vector<double> kept_f, kept_r;
  for (std::size_t r = 0; r < kRates.size(); ++r) {
    std::vector<double> at(forces.begin() + 500 * r, forces.begin() + 500 * (r + 1));
    std::sort(at.begin(), at.end());
    const double end_force = at[350];
    for (std::size_t i = 500 * r; i < 500 * (r + 1); ++i)
      if (forces[i] > end_force) {
        forces[i] = end_force;
        ruptured[i] = 0;
      } else {
        kept_f.push_back(forces[i]);
        kept_r.push_back(kRates[r]);
      }
  }
  const BellFit fit = fit_bell_evans_ramps(forces, s.rates, kT, ruptured);
  ASSERT_TRUE(fit.ok) << fit.why_not;
  EXPECT_EQ(fit.n, 2000u);
  EXPECT_EQ(fit.events, kept_f.size());
  EXPECT_NEAR(fit.x_nm, kRampTruth.x_nm, 4.0 * fit.x_se_nm);
  EXPECT_NEAR(std::log(fit.k0_per_s), std::log(kRampTruth.k0_per_s), 4.0 * fit.ln_k0_se);
  // The truncated sample alone (the censored left out) is biased low.
  const BellFit dropped = fit_bell_evans_ramps(kept_f, kept_r, kT);
  ASSERT_TRUE(dropped.ok);
  // Its distribution's mean force at 8.7·10⁵ pN/s is ~4 pN low; the censored fit's is not.
  const double truth_mean = bell_evans_mean_pN(kRampTruth, 8.7e5, kT);
  EXPECT_LT(bell_evans_mean_pN(dropped, 8.7e5, kT), truth_mean - 3.0);
  EXPECT_NEAR(bell_evans_mean_pN(fit, 8.7e5, kT), truth_mean, 1.5);
  // DHS takes the same censoring.
  const DhsFit dhs = fit_dhs_ramps(forces, s.rates, kT, 2.0 / 3.0, ruptured);
  EXPECT_EQ(dhs.events, kept_f.size());
}

TEST(BellEvans, RampStandardErrorsAreCalibrated) {
  std::mt19937_64 rng(7);
  std::vector<double> zx, zk;
  int x_covered = 0, k_covered = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const RampSample s = sample_ramps(kRampTruth, kRates, 60, rng);
    const BellFit fit = fit_bell_evans_ramps(s.forces, s.rates, kT);
    ASSERT_TRUE(fit.ok) << fit.why_not;
    zx.push_back((fit.x_nm - kRampTruth.x_nm) / fit.x_se_nm);
    zk.push_back((std::log(fit.k0_per_s) - std::log(kRampTruth.k0_per_s)) / fit.ln_k0_se);
    x_covered += fit.x_interval_nm.lo <= kRampTruth.x_nm && kRampTruth.x_nm <= fit.x_interval_nm.hi;
    k_covered += fit.ln_k0_interval.lo <= std::log(kRampTruth.k0_per_s) &&
                 std::log(kRampTruth.k0_per_s) <= fit.ln_k0_interval.hi;
  }
  // The 95 % profile intervals hold the truth in about 57 of 60 samples: fewer than 51 has a
  // binomial probability of ~0.1 %.
  EXPECT_GE(x_covered, 51);
  EXPECT_GE(k_covered, 51);
  // Over 60 samples of 240 forces: mean z within ±0.5 (se of a mean of 60 unit z: 0.13,
  // plus the estimator's small-sample bias), sd within 0.7–1.35 (its se ≈ 0.09).
  const SampleStatistics x = describe(zx), k = describe(zk);
  EXPECT_LT(std::abs(x.mean), 0.5);
  EXPECT_LT(std::abs(k.mean), 0.5);
  EXPECT_GT(x.sd, 0.7);
  EXPECT_LT(x.sd, 1.35);
  EXPECT_GT(k.sd, 0.7);
  EXPECT_LT(k.sd, 1.35);
}

TEST(BellEvans, MeanAndModeAreThoseOfTheDistribution) {
  std::mt19937_64 rng(11);
  for (double r : kRates) {
    const RampSample s = sample_ramps(kRampTruth, {r}, 20000, rng);
    const SampleStatistics d = describe(s.forces);
    EXPECT_NEAR(bell_evans_mean_pN(kRampTruth, r, kT), d.mean, 4.0 * d.sem) << "rate " << r;
    // The mode: the density p(F) = −dS/dF is largest there (finite differences on a grid).
    const double mode = bell_evans_mode_pN(kRampTruth, r, kT);
    auto density = [&](double f) {
      const double h = 1e-3;
      return (bell_evans_survival(kRampTruth, f - h, r, kT) - bell_evans_survival(kRampTruth, f + h, r, kT)) /
             (2 * h);
    };
    EXPECT_GT(mode, 50.0);
    EXPECT_GT(density(mode), density(mode - 0.5));
    EXPECT_GT(density(mode), density(mode + 0.5));
    // Survival 1 at zero force, and the inverse is consistent.
    EXPECT_DOUBLE_EQ(bell_evans_survival(kRampTruth, 0.0, r, kT), 1.0);
    EXPECT_NEAR(bell_evans_survival(kRampTruth, bell_evans_force_at_survival(kRampTruth, 0.3, r, kT), r, kT), 0.3,
                1e-12);
  }
  // A loading rate so low that the barrier goes by thermal activation alone: the mode is 0.
  EXPECT_EQ(bell_evans_mode_pN(kRampTruth, 1e-6, kT), 0.0);
}

// The mean of the ruptures below a record's end force (what a level with censored replicas
// shows): the sample mean of 20 000 draws below the distribution's median, within 4 sem; the
// untruncated mean at an infinite limit; nothing below a limit of 0.
TEST(BellEvans, TheMeanBelowALimitIsThatOfTheTruncatedDistribution) {
  std::mt19937_64 rng(12);
  for (double r : kRates) {
    const double limit = bell_evans_force_at_survival(kRampTruth, 0.5, r, kT);
    const RampSample s = sample_ramps(kRampTruth, {r}, 40000, rng);
    std::vector<double> below;
    for (double f : s.forces)
      if (f < limit) below.push_back(f);
    const SampleStatistics d = describe(below);
    ASSERT_GT(d.n, 19000u);
    const double truncated = bell_evans_mean_below_pN(kRampTruth, r, kT, limit);
    EXPECT_NEAR(truncated, d.mean, 4.0 * d.sem) << "rate " << r;
    // Below the untruncated mean by several pN: the comparison that misled.
    EXPECT_LT(truncated, bell_evans_mean_pN(kRampTruth, r, kT) - 2.0) << "rate " << r;
  }
  EXPECT_DOUBLE_EQ(bell_evans_mean_below_pN(kRampTruth, 1e5, kT, std::numeric_limits<double>::infinity()),
                   bell_evans_mean_pN(kRampTruth, 1e5, kT));
  EXPECT_TRUE(std::isnan(bell_evans_mean_below_pN(kRampTruth, 1e5, kT, 0.0)));
}

// Lifetimes under three clamp forces, exponential with Bell's rate, censored at the end
// of each run (a trajectory still folded then contributes its run time).
struct ClampSample {
  std::vector<double> forces, times;
  std::vector<std::uint8_t> unfolded;
};

ClampSample sample_clamps(const BellFit& t, const std::vector<double>& forces, int per_force, double run_s,
                          std::mt19937_64& rng) {
  ClampSample s;
  for (double f : forces) {
    std::exponential_distribution<double> lifetime(t.k0_per_s * std::exp(f * t.x_nm / kT));
    for (int k = 0; k < per_force; ++k) {
      const double tau = lifetime(rng);
      s.forces.push_back(f);
      s.times.push_back(std::min(tau, run_s));
      s.unfolded.push_back(tau < run_s ? 1 : 0);
    }
  }
  return s;
}

TEST(BellEvans, LifetimeFitRecoversXAndK0WithCensoring) {
  // x_β = 0.58 nm, τ(125 pN) ≈ 50 µs as the WW clamp runs of docs/validation.md.
  const BellFit t = truth(0.58, 1.0 / (50e-6 * std::exp(125.0 * 0.58 / kT)));
  std::mt19937_64 rng(3);
  const ClampSample s = sample_clamps(t, {105.0, 115.0, 125.0}, 400, 1.5e-3, rng);
  std::size_t censored = 0;
  for (auto u : s.unfolded) censored += u ? 0 : 1;
  EXPECT_GT(censored, 30u);  // ~16 % of the 105 pN runs (τ ≈ 0.8 ms) end before they unfold
  const BellFit fit = fit_bell_lifetimes(s.forces, s.times, s.unfolded, kT);
  ASSERT_TRUE(fit.ok) << fit.why_not;
  EXPECT_EQ(fit.n, 1200u);
  EXPECT_EQ(fit.events, 1200u - censored);
  EXPECT_NEAR(fit.x_nm, t.x_nm, 4.0 * fit.x_se_nm);
  EXPECT_NEAR(std::log(fit.k0_per_s), std::log(t.k0_per_s), 4.0 * fit.ln_k0_se);
  EXPECT_LT(fit.x_se_nm, 0.1 * t.x_nm);

  // Calibration over independent samples.
  std::vector<double> zx;
  for (int trial = 0; trial < 60; ++trial) {
    const ClampSample c = sample_clamps(t, {105.0, 115.0, 125.0}, 80, 1.5e-3, rng);
    const BellFit f = fit_bell_lifetimes(c.forces, c.times, c.unfolded, kT);
    ASSERT_TRUE(f.ok) << f.why_not;
    zx.push_back((f.x_nm - t.x_nm) / f.x_se_nm);
  }
  const SampleStatistics z = describe(zx);
  EXPECT_LT(std::abs(z.mean), 0.5);
  EXPECT_GT(z.sd, 0.7);
  EXPECT_LT(z.sd, 1.35);
}

// 24 lifetimes at three close forces pin no barrier: x_β's interval is open below (its search
// stops at 10⁻³ nm), and ln k0's upper end, found where x_β sat on that bound, is marked as
// lying beyond; a well-determined fit marks neither.
TEST(BellEvans, IntervalEndsSetBySearchBoundsAreMarked) {
  std::mt19937_64 rng(1);
  std::vector<double> forces, times;
  std::vector<std::uint8_t> unfolded;
  for (double f : {135.0, 145.0, 155.0}) {
    std::exponential_distribution<double> lifetime(1e3 * std::exp(f * 0.12 / kT));
    for (int k = 0; k < 8; ++k) {
      forces.push_back(f);
      times.push_back(lifetime(rng));
      unfolded.push_back(1);
    }
  }
  const BellFit weak = fit_bell_lifetimes(forces, times, unfolded, kT);
  ASSERT_TRUE(weak.ok) << weak.why_not;
  EXPECT_TRUE(weak.x_interval_nm.lo_open);
  EXPECT_TRUE(weak.ln_k0_interval.hi_beyond);
  EXPECT_FALSE(weak.ln_k0_interval.hi_open);
  std::mt19937_64 rng2(20261129);
  const RampSample s = sample_ramps(kRampTruth, kRates, 500, rng2);
  const BellFit strong = fit_bell_evans_ramps(s.forces, s.rates, kT);
  ASSERT_TRUE(strong.ok);
  EXPECT_FALSE(strong.ln_k0_interval.lo_beyond || strong.ln_k0_interval.hi_beyond);
}

TEST(BellEvans, TooLittleDataIsSaidNotFitted) {
  const std::vector<double> f = {100, 110, 120}, one_rate = {1e5, 1e5, 1e5};
  BellFit fit = fit_bell_evans_ramps(f, one_rate, kT);
  EXPECT_FALSE(fit.ok);
  EXPECT_NE(fit.why_not.find("2 or more loading rates"), std::string::npos) << fit.why_not;
  const std::vector<double> two = {100, 110};
  EXPECT_FALSE(fit_bell_evans_ramps(two, std::vector<double>{1e4, 1e5}, kT).ok);
  const std::vector<double> bad = {100, -5, 120}, rates = {1e4, 1e5, 1e6};
  EXPECT_NE(fit_bell_evans_ramps(bad, rates, kT).why_not.find("> 0"), std::string::npos);
  const std::vector<std::uint8_t> none = {0, 0, 1};
  const std::vector<double> times = {1e-3, 1e-3, 1e-4};
  fit = fit_bell_lifetimes(f, times, none, kT);
  EXPECT_FALSE(fit.ok);
  EXPECT_NE(fit.why_not.find("3 unfolding events"), std::string::npos) << fit.why_not;
}

// Dudko–Hummer–Szabo: forces drawn from its survival (ν = 2/3, x‡ = 0.5 nm, ΔG‡ = 25 kT,
// k0 = 10⁻³ /s: a critical force of 310 pN) are fitted back — x‡, ΔG‡ and ln k0 within 4
// standard errors — and with ν = 1 the rate is Bell's.
DhsFit dhs_truth(double nu, double x, double barrier_kT, double k0) {
  DhsFit t;
  t.ok = true;
  t.nu = nu;
  t.x_nm = x;
  t.barrier_kT = barrier_kT;
  t.k0_per_s = k0;
  return t;
}

TEST(DudkoHummerSzabo, RampFitRecoversTheBarrier) {
  const DhsFit t = dhs_truth(2.0 / 3.0, 0.5, 25.0, 1e-3);
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<double> forces, rates;
  for (double r : {1e3, 1e4, 1e5, 1e6, 1e7})
    for (int k = 0; k < 800; ++k) {
      forces.push_back(dhs_force_at_survival(t, 1.0 - uniform(rng), r, kT));
      rates.push_back(r);
    }
  const DhsFit fit = fit_dhs_ramps(forces, rates, kT, 2.0 / 3.0);
  ASSERT_TRUE(fit.ok) << fit.why_not;
  EXPECT_NEAR(fit.x_nm, t.x_nm, 4.0 * fit.x_se_nm);
  EXPECT_NEAR(fit.barrier_kT, t.barrier_kT, 4.0 * fit.barrier_se_kT);
  EXPECT_NEAR(std::log(fit.k0_per_s), std::log(t.k0_per_s), 4.0 * fit.ln_k0_se);
  EXPECT_LT(fit.x_se_nm, 0.15 * t.x_nm);
  // The 95 % profile intervals are closed and hold the truth.
  for (const auto& [interval, value] : {std::pair{fit.x_interval_nm, t.x_nm}, {fit.barrier_interval_kT, t.barrier_kT}}) {
    ASSERT_TRUE(interval.ok);
    EXPECT_FALSE(interval.lo_open || interval.hi_open);
    EXPECT_LT(interval.lo, value);
    EXPECT_GT(interval.hi, value);
  }
  // The three-parameter model fits these forces better than Bell's law (the curvature of
  // the spectrum), by far more than its extra parameter.
  const BellFit bell = fit_bell_evans_ramps(forces, rates, kT);
  ASSERT_TRUE(bell.ok);
  EXPECT_GT(fit.log_likelihood - bell.log_likelihood, 10.0);
  // The model's mean is the sample's.
  std::vector<double> at_1e5(forces.begin() + 1600, forces.begin() + 2400);
  const SampleStatistics d = describe(at_1e5);
  EXPECT_NEAR(dhs_mean_force_pN(t, 1e5, kT), d.mean, 4.0 * d.sem);
}

// The 95 % profile intervals of x‡ and ΔG‡ hold the truth in about 95 % of samples drawn from
// the DHS distribution itself (ν = 2/3; rates at which no replica reaches the critical force,
// where the model's distribution is proper).
TEST(DudkoHummerSzabo, ProfileIntervalsCoverTheTruth) {
  const DhsFit t = dhs_truth(2.0 / 3.0, 0.8, 20.0, 1e-2);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  int fitted = 0, x_covered = 0, barrier_covered = 0;
  for (int trial = 0; trial < 30; ++trial) {
    std::vector<double> forces, rates;
    for (double r : {1e3, 1e4, 1e5})
      for (int k = 0; k < 150; ++k) {
        forces.push_back(dhs_force_at_survival(t, 1.0 - uniform(rng), r, kT));
        rates.push_back(r);
      }
    const DhsFit fit = fit_dhs_ramps(forces, rates, kT, 2.0 / 3.0);
    if (!fit.ok) continue;
    ++fitted;
    x_covered += fit.x_interval_nm.lo <= t.x_nm && t.x_nm <= fit.x_interval_nm.hi;
    barrier_covered += fit.barrier_interval_kT.lo <= t.barrier_kT && t.barrier_kT <= fit.barrier_interval_kT.hi;
  }
  // Expected 28.5 of 30; fewer than 25 has a binomial probability below 1 %.
  EXPECT_EQ(fitted, 30);
  EXPECT_GE(x_covered, 25);
  EXPECT_GE(barrier_covered, 25);
}

// Forces drawn from Bell's law: DHS either finds its barrier running off to infinity (where its
// rate becomes Bell's) or gains little over Bell's fit, never enough to be preferred by far.
TEST(DudkoHummerSzabo, OnBellsForcesItGainsLittle) {
  std::mt19937_64 rng(31);
  for (int trial = 0; trial < 5; ++trial) {
    const RampSample s = sample_ramps(kRampTruth, kRates, 300, rng);
    const BellFit bell = fit_bell_evans_ramps(s.forces, s.rates, kT);
    ASSERT_TRUE(bell.ok);
    const DhsFit dhs = fit_dhs_ramps(s.forces, s.rates, kT, 2.0 / 3.0);
    if (!dhs.ok) {
      EXPECT_FALSE(dhs.why_not.empty());
      continue;
    }
    EXPECT_GE(dhs.log_likelihood, bell.log_likelihood - 1e-6) << "trial " << trial;  // nests Bell as ΔG‡ → ∞
    EXPECT_LT(dhs.log_likelihood - bell.log_likelihood, 5.0) << "trial " << trial;
    // As ΔG‡ → ∞ the profile rises to Bell's maximum: ΔG‡'s 95 % interval is open above
    // exactly when Bell's law lies within the interval's drop of the DHS maximum.
    const double gain = dhs.log_likelihood - bell.log_likelihood;
    ASSERT_TRUE(dhs.barrier_interval_kT.ok);
    if (gain < kProfileDrop95 - 0.05) EXPECT_TRUE(dhs.barrier_interval_kT.hi_open) << "trial " << trial;
    if (gain > kProfileDrop95 + 0.05) EXPECT_FALSE(dhs.barrier_interval_kT.hi_open) << "trial " << trial;
  }
}

TEST(DudkoHummerSzabo, LifetimeFitRecoversTheBarrierAndNuOneIsBell) {
  const DhsFit t = dhs_truth(0.5, 0.6, 20.0, 1e-2);
  std::mt19937_64 rng(23);
  std::vector<double> forces, times;
  std::vector<std::uint8_t> unfolded;
  for (double f : {60.0, 80.0, 100.0, 120.0}) {
    std::exponential_distribution<double> lifetime(dhs_rate_per_s(t, f, kT));
    for (int k = 0; k < 600; ++k) {
      const double tau = lifetime(rng);
      forces.push_back(f);
      times.push_back(std::min(tau, 30.0));
      unfolded.push_back(tau < 30.0);
    }
  }
  const DhsFit fit = fit_dhs_lifetimes(forces, times, unfolded, kT, 0.5);
  ASSERT_TRUE(fit.ok) << fit.why_not;
  EXPECT_NEAR(fit.x_nm, t.x_nm, 4.0 * fit.x_se_nm);
  EXPECT_NEAR(fit.barrier_kT, t.barrier_kT, 4.0 * fit.barrier_se_kT);
  EXPECT_NEAR(std::log(fit.k0_per_s), std::log(t.k0_per_s), 4.0 * fit.ln_k0_se);
  // Two forces pin two rates: three parameters are not determined (Bell's two are).
  std::vector<double> two_f, two_t;
  std::vector<std::uint8_t> two_u;
  for (std::size_t i = 0; i < forces.size(); ++i)
    if (forces[i] == 60.0 || forces[i] == 120.0) {
      two_f.push_back(forces[i]);
      two_t.push_back(times[i]);
      two_u.push_back(unfolded[i]);
    }
  const DhsFit two = fit_dhs_lifetimes(two_f, two_t, two_u, kT, 0.5);
  EXPECT_FALSE(two.ok);
  EXPECT_NE(two.why_not.find("3 or more forces"), std::string::npos) << two.why_not;
  EXPECT_TRUE(fit_bell_lifetimes(two_f, two_t, two_u, kT).ok);
  // The critical force of the fit lies above every force it was fitted to.
  EXPECT_GT(fit.critical_force_pN(kT), fit.largest_force_pN);
  EXPECT_EQ(fit.largest_force_pN, 120.0);
  // ν = 1: the rate and survival are Bell's whatever ΔG‡.
  const DhsFit one = dhs_truth(1.0, 0.6, 40.0, 1e-2);
  BellFit bell;
  bell.x_nm = 0.6;
  bell.k0_per_s = 1e-2;
  EXPECT_NEAR(dhs_rate_per_s(one, 90.0, kT), 1e-2 * std::exp(90.0 * 0.6 / kT), 1e-9 * dhs_rate_per_s(one, 90.0, kT));
  EXPECT_NEAR(dhs_survival(one, 90.0, 1e5, kT), bell_evans_survival(bell, 90.0, 1e5, kT), 1e-12);
}

// The grid search of the profile likelihoods refines every local maximum of its grid, not only
// the best grid point: a narrow peak between two grid points that both lie below a broad lower
// maximum elsewhere is found.
TEST(FitNumerics, GridMaximumRefinesEveryLocalMaximum) {
  auto f = [](double w) {
    return 1.0 * std::exp(-0.5 * std::pow((w + 5.0) / 1.5, 2)) + 2.0 * std::exp(-0.5 * std::pow((w - 0.37) / 0.15, 2));
  };
  // On the grid of step 1 the narrow peak shows as w = 0's 0.10 (a local maximum of the grid,
  // above w = −1's 0.03 and w = 1's 0.00), far below w = −5's 1.0, the best grid point.
  const GridMaximum m = grid_golden_maximum(f, -14.0, 14.0, 28, 1e-10);
  EXPECT_NEAR(m.at, 0.37, 1e-3);
  EXPECT_NEAR(m.value, 2.0, 0.01);
  EXPECT_EQ(m.grid_index, 14);  // refined from w = 0
  // One maximum: the best grid point's refinement, as before.
  const GridMaximum one = grid_golden_maximum([](double w) { return -(w - 2.3) * (w - 2.3); }, -14.0, 14.0, 28, 1e-10);
  EXPECT_NEAR(one.at, 2.3, 1e-6);
  EXPECT_EQ(one.grid_index, 16);
}

// The 19 largest peaks of the WW domain pulled at 250, 500 and 1000 µm/s (an audit's runs of
// examples/ww_pulling.toml, kT = 0.6 kcal/mol): at ΔG‡ ≈ 21 kT the ν = 2/3 profile in x‡ has
// two local maxima, one at the critical-force bound (x‡ ≈ 0.53 nm, 1.91 below the maximum) and
// a higher one inside it (x‡ ≈ 0.22 nm, 1.59 below). The upper end of ΔG‡'s 95 % interval is
// where the higher one falls 1.92 below the maximum, ~61.6 kT, not ~20.8 kT where the lower one
// does. Every end is checked against the exact profile, maximised here by a dense scan.
TEST(DudkoHummerSzabo, BarrierProfileTakesTheHigherOfTwoMaximaInX) {
  const std::vector<double> forces = {164.56408, 177.2034,  162.90157, 160.69324, 153.75907, 148.13592, 150.87311,
                                      162.51216, 171.82323, 176.42638, 169.76994, 182.57847, 173.96281, 197.22739,
                                      169.53634, 211.19599, 241.64128, 131.68498, 214.40457};
  std::vector<double> rates(8, 8.675e6);
  rates.resize(16, 1.735e7);
  rates.resize(19, 3.47e7);
  const double ww_kT = 0.6 * 6.947695;  // pN·nm at 301.93 K
  const double nu = 2.0 / 3.0;
  const DhsFit fit = fit_dhs_ramps(forces, rates, ww_kT, nu);
  ASSERT_TRUE(fit.ok) << fit.why_not;
  EXPECT_NEAR(fit.x_nm, 0.3908, 0.001);
  EXPECT_NEAR(fit.barrier_kT, 15.68, 0.02);

  // ℓ(x‡, ΔG‡) with ln k0 at its best, ln(E/G), in the fit's convention (without −Σ ln r).
  const double f_max = *std::max_element(forces.begin(), forces.end());
  const double events = double(forces.size());
  auto loglik = [&](double x, double v) {
    double sum_ln_h = 0.0, G = 0.0;
    for (std::size_t i = 0; i < forces.size(); ++i) {
      const double c = 1.0 - nu * forces[i] * x / (v * ww_kT);
      if (!(c > 0.0)) return -std::numeric_limits<double>::infinity();
      const double exponent = v * (1.0 - std::pow(c, 1.0 / nu));
      sum_ln_h += (1.0 / nu - 1.0) * std::log(c) + exponent;
      G += ww_kT / (x * rates[i]) * std::expm1(exponent);
    }
    return events * std::log(events / G) + sum_ln_h - events;
  };
  EXPECT_NEAR(loglik(fit.x_nm, fit.barrier_kT), fit.log_likelihood, 1e-6);
  // The best of a dense scan, refined by golden sections around its best point.
  auto dense_max = [](auto&& f, double lo, double hi) {
    const int n = 20000;
    int best = 0;
    double best_value = -std::numeric_limits<double>::infinity();
    for (int k = 0; k <= n; ++k)
      if (const double v = f(lo + (hi - lo) * k / n); v > best_value) best_value = v, best = k;
    double a = lo + (hi - lo) * std::max(0, best - 1) / n, b = lo + (hi - lo) * std::min(n, best + 1) / n;
    for (int it = 0; it < 100; ++it) {
      const double c = a + 0.382 * (b - a), d = a + 0.618 * (b - a);
      (f(c) > f(d) ? b : a) = f(c) > f(d) ? d : c;
    }
    return std::max(best_value, f(0.5 * (a + b)));
  };
  // x‡ = x_bound·s for s in (0, 1) at fixed ΔG‡; ΔG‡ = v_bound·(1 + e^w) at fixed x‡.
  auto shortfall_at_barrier = [&](double v) {
    const double x_bound = v * ww_kT / (nu * f_max);
    return fit.log_likelihood - dense_max([&](double ln_s) { return loglik(x_bound * std::exp(ln_s), v); },
                                          std::log(1e-6), -1e-12);
  };
  auto shortfall_at_x = [&](double x) {
    const double v_bound = nu * f_max * x / ww_kT;
    return fit.log_likelihood -
           dense_max([&](double w) { return loglik(x, v_bound * (1.0 + std::exp(w))); }, -25.0, 25.0);
  };

  // The fit (x‡ 0.3908 nm, ΔG‡ 15.68 kT above) is the global maximum of this likelihood: at its
  // ΔG‡ no x‡ does better, and at no ΔG‡ of a scan over 3–100 kT (steps of 7 %) does any x‡.
  EXPECT_NEAR(shortfall_at_barrier(fit.barrier_kT), 0.0, 1e-6);
  for (double v = 3.0; v <= 100.0; v *= 1.07) EXPECT_GE(shortfall_at_barrier(v), -1e-6) << "ΔG‡ = " << v << " kT";

  // The premise: two local maxima in x‡ at ΔG‡ = 20.8 kT, the lower at the bound.
  {
    const double v = 20.8, x_bound = v * ww_kT / (nu * f_max);
    std::vector<double> ls;
    for (int k = 0; k <= 4000; ++k) ls.push_back(loglik(x_bound * std::exp(std::log(1e-4) * (1.0 - k / 4000.0)) * (1.0 - 1e-12), v));
    int maxima = 0;
    for (std::size_t k = 1; k + 1 < ls.size(); ++k) maxima += ls[k] > ls[k - 1] && ls[k] >= ls[k + 1];
    maxima += ls.back() > ls[ls.size() - 2];
    EXPECT_EQ(maxima, 2);
    EXPECT_NEAR(shortfall_at_barrier(v), 1.594, 0.01);
  }

  const ProfileInterval& b = fit.barrier_interval_kT;
  ASSERT_TRUE(b.ok);
  EXPECT_FALSE(b.lo_open || b.hi_open);
  EXPECT_NEAR(b.hi, 61.6, 0.5);
  EXPECT_NEAR(shortfall_at_barrier(b.hi), kProfileDrop95, 0.005);
  EXPECT_NEAR(shortfall_at_barrier(b.lo), kProfileDrop95, 0.005);
  EXPECT_NEAR(b.lo, 11.1, 0.1);
  const ProfileInterval& x = fit.x_interval_nm;
  ASSERT_TRUE(x.ok);
  EXPECT_FALSE(x.lo_open || x.hi_open);
  EXPECT_NEAR(shortfall_at_x(x.lo), kProfileDrop95, 0.005);
  EXPECT_NEAR(shortfall_at_x(x.hi), kProfileDrop95, 0.005);
}

}  // namespace
}  // namespace ermak::analysis
