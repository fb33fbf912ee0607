#pragma once
// The bootstrap of a dynamic force spectrum (docs/analysis.md#confidence-intervals): each
// level's replicas — those of every run at one loading rate or clamp force, pooled —
// resampled with replacement (the levels' sizes and rates or forces kept), Bell's and
// the Dudko–Hummer–Szabo rates refitted to each resample, and the spread of the refits'
// parameters read as percentile intervals. Unlike the standard errors and the profile
// intervals it does not assume the likelihood is regular: where a DHS fit is held by its
// critical-force bound, which the largest force sets, the resamples move that force too.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ermak/analysis/statistics.h"  // percentile_interval, for the refits

namespace ermak::analysis {

// What the fits of analysis/bell_evans.h and dudko_hummer_szabo.h take, item by item (a
// rupture force or a clamp trajectory), with the level each belongs to.
struct SpectrumSample {
  bool clamp = false;
  double kT_pN_nm = 0.0;
  std::vector<double> force_pN;
  std::vector<double> rate_pN_per_s;  // ramps
  std::vector<double> time_s;         // clamps
  std::vector<std::uint8_t> event;    // ramps: ruptured (0: censored); clamps: unfolded
  std::vector<std::size_t> level;     // the group it is resampled within: its loading rate or force
};

// A level with fewer items than this makes the bootstrap's intervals too narrow (the summary
// says so): resampling five values shows their spread only roughly, one not at all.
inline constexpr std::size_t kBootstrapFewestItems = 5;

// The DHS shapes refitted: ν = 2/3, then 1/2 (as the summary lists them).
inline constexpr std::array<double, 2> kBootstrapNu = {2.0 / 3.0, 0.5};

// One value per resample, NaN where that fit failed; a DHS fit that runs off to Bell's limit
// counts as ΔG‡ = ∞ with x‡ = that resample's x_β.
struct BootstrapFits {
  std::vector<double> bell_x_nm, bell_ln_k0;
  std::array<std::vector<double>, 2> dhs_x_nm, dhs_barrier_kT;  // by kBootstrapNu
};

// `resamples` resamples; resample b draws from its own generator seeded by seed + b, so the
// result does not depend on the number of threads (OpenMP) that run them. `with_dhs` false
// refits Bell's rate only.
BootstrapFits bootstrap_spectrum(const SpectrumSample& sample, std::size_t resamples, std::uint64_t seed,
                                 bool with_dhs = true);

}  // namespace ermak::analysis
