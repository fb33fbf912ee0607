// analysis/spectrum_bootstrap: resampling each level's items (those of a loading rate or a
// force) with replacement and refitting.
// On rupture forces drawn from the Bell–Evans distribution the bootstrap's spread of x_β and
// ln k0 is the one the standard errors give; the resamples are the same whatever the thread
// count; percentile intervals are read right, infinite ends included; a DHS refit that runs
// off to Bell's limit counts as ΔG‡ = ∞ at that resample's x_β.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "ermak/analysis/bell_evans.h"
#include "ermak/analysis/spectrum_bootstrap.h"
#include "ermak/analysis/wlc.h"

namespace ermak::analysis {
namespace {

const double kT = kT_pN_nm(300.0);

// 4 loading rates × `per_rate` forces drawn from Bell–Evans (x_β = 0.6 nm, k0 = 10⁻³ /s).
SpectrumSample bell_sample(int per_rate, std::uint64_t seed) {
  BellFit truth;
  truth.ok = true;
  truth.x_nm = 0.6;
  truth.k0_per_s = 1e-3;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  SpectrumSample s;
  s.kT_pN_nm = kT;
  const double rates[] = {8.7e4, 8.7e5, 8.7e6, 8.7e7};
  for (std::size_t r = 0; r < 4; ++r)
    for (int k = 0; k < per_rate; ++k) {
      s.force_pN.push_back(bell_evans_force_at_survival(truth, 1.0 - uniform(rng), rates[r], kT));
      s.rate_pN_per_s.push_back(rates[r]);
      s.event.push_back(1);
      s.level.push_back(r);
    }
  return s;
}

TEST(SpectrumBootstrap, BellsSpreadIsTheStandardErrorsAndTheThreadCountChangesNothing) {
  const SpectrumSample s = bell_sample(100, 3);
  const BellFit fit = fit_bell_evans_ramps(s.force_pN, s.rate_pN_per_s, kT);
  ASSERT_TRUE(fit.ok);
  const BootstrapFits boot = bootstrap_spectrum(s, 300, 1, false);
  ASSERT_EQ(boot.bell_x_nm.size(), 300u);
  EXPECT_TRUE(boot.dhs_x_nm[0].empty());
  const PercentileInterval x = percentile_interval(boot.bell_x_nm), k = percentile_interval(boot.bell_ln_k0);
  EXPECT_EQ(x.finite, 300u);
  EXPECT_LT(x.lo, fit.x_nm);
  EXPECT_GT(x.hi, fit.x_nm);
  // 300 resamples pin a 95 % width to ~±8 %: the observed information's ± 1.96 se within 25 %.
  EXPECT_NEAR(0.5 * (x.hi - x.lo), 1.96 * fit.x_se_nm, 0.25 * 1.96 * fit.x_se_nm);
  EXPECT_NEAR(0.5 * (k.hi - k.lo), 1.96 * fit.ln_k0_se, 0.25 * 1.96 * fit.ln_k0_se);
  // Resample b uses its own seed: one thread or several give the same refits.
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const BootstrapFits one = bootstrap_spectrum(s, 40, 1, false);
  omp_set_num_threads(std::max(2, threads));
  const BootstrapFits several = bootstrap_spectrum(s, 40, 1, false);
  omp_set_num_threads(threads);
  EXPECT_EQ(one.bell_x_nm, several.bell_x_nm);
  for (std::size_t b = 0; b < 40; ++b) EXPECT_EQ(one.bell_x_nm[b], boot.bell_x_nm[b]) << b;
}

TEST(SpectrumBootstrap, PercentileIntervalsOfOrderStatistics) {
  std::vector<double> v;
  for (int k = 1; k <= 101; ++k) v.push_back(k);
  v.push_back(std::numeric_limits<double>::quiet_NaN());  // left out
  PercentileInterval p = percentile_interval(v);
  EXPECT_EQ(p.finite, 101u);
  EXPECT_NEAR(p.lo, 3.5, 1e-9);  // 0.025 · 100 = 2.5: between the 3rd and 4th
  EXPECT_NEAR(p.hi, 98.5, 1e-9);
  // ΔG‡ = ∞ in the top 20 %: the interval is open above.
  for (int k = 81; k <= 101; ++k) v[k - 1] = std::numeric_limits<double>::infinity();
  p = percentile_interval(v);
  EXPECT_NEAR(p.lo, 3.5, 1e-9);
  EXPECT_TRUE(std::isinf(p.hi));
  EXPECT_EQ(percentile_interval(std::vector<double>{}).finite, 0u);
}

// On Bell's own forces some resamples put DHS in Bell's limit: they count as ΔG‡ = ∞ at their
// x_β, so that the interval of ΔG‡ keeps its top.
TEST(SpectrumBootstrap, ADhsRefitInBellsLimitCountsAsAnInfiniteBarrier) {
  const SpectrumSample s = bell_sample(60, 7);  // whose whole-sample DHS fits are in Bell's limit
  const BootstrapFits boot = bootstrap_spectrum(s, 8, 1);
  ASSERT_EQ(boot.dhs_barrier_kT[0].size(), 8u);
  int infinite = 0;
  for (std::size_t k = 0; k < kBootstrapNu.size(); ++k)
    for (std::size_t b = 0; b < 8; ++b) {
      const double barrier = boot.dhs_barrier_kT[k][b];
      EXPECT_FALSE(std::isnan(barrier)) << "every refit either fits or runs off to Bell's limit";
      if (std::isinf(barrier)) {
        ++infinite;
        EXPECT_EQ(boot.dhs_x_nm[k][b], boot.bell_x_nm[b]);
      }
    }
  EXPECT_GT(infinite, 0);
}

}  // namespace
}  // namespace ermak::analysis
