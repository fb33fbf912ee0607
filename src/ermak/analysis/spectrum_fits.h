#pragma once
// The fits of a dynamic force spectrum (docs/analysis.md#dynamic-force-spectrum): Bell's rate
// (analysis/bell_evans.h) and the Dudko–Hummer–Szabo rate for two barrier shapes
// (analysis/dudko_hummer_szabo.h), maximum likelihood over every item of every level, and
// with --bootstrap their refits to resamples of each level (analysis/spectrum_bootstrap.h).
#include <cstdint>
#include <optional>
#include <vector>

#include "ermak/analysis/bell_evans.h"
#include "ermak/analysis/dudko_hummer_szabo.h"
#include "ermak/analysis/force_spectrum.h"
#include "ermak/analysis/spectrum_bootstrap.h"
#include "ermak/analysis/spectrum_levels.h"
#include "ermak/analysis/spectrum_runs.h"

namespace ermak::analysis {

// The bootstrap's resample b draws from a generator seeded by kBootstrapSeed + b: the same
// intervals on every run of the analysis (docs/analysis.md#confidence-intervals).
inline constexpr std::uint64_t kBootstrapSeed = 1;

struct SpectrumFits {
  BellFit bell;
  // ν = 2/3 (linear-cubic barrier), then ν = 1/2 (cusp); the table and the plot show the first.
  std::vector<DhsFit> dhs;
  std::optional<BootstrapFits> bootstrap;  // with --bootstrap N and a fit to resample
};

// The fits to `sample` (spectrum_items of `levels`); a fit without enough levels carries the
// reason instead, and for clamps whose threshold no trajectory of `runs` reached, why.
SpectrumFits fit_spectrum(const std::vector<RunSpectrum>& runs, const std::vector<Level>& levels,
                          const SpectrumSample& sample, const SpectrumOptions& options);

}  // namespace ermak::analysis
