#include "ermak/analysis/spectrum_fits.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "ermak/analysis/report_common.h"

namespace ermak::analysis {
namespace {

// Why a fit that needs runs at `needed` levels has too few. Levels whose replicas gave nothing
// to fit (no peak at any of them) do not count.
std::string too_few_levels(const std::vector<Level>& levels, std::size_t needed, bool clamp) {
  const std::size_t with_items = levels_with_items(levels);
  return with_items == levels.size()
             ? fmt::format("needs runs at {} or more {} (these runs have {})", needed,
                           clamp ? "forces" : "loading rates κv", levels.size())
         : with_items == 0
             ? fmt::format("needs runs at {} or more {} with {} ({})", needed, clamp ? "forces" : "loading rates κv",
                           clamp ? "trajectories" : "a rupture force",
                           clamp ? "these runs have no trajectory" : "no replica of these runs shows an unfolding peak")
             : fmt::format("needs runs at {} or more {} with {} (these runs have {} {}{}, {} with {}: {} at the "
                           "other{})",
                           needed, clamp ? "forces" : "loading rates κv", clamp ? "trajectories" : "a rupture force",
                           levels.size(), clamp ? "force" : "loading rate", levels.size() == 1 ? "" : "s",
                           with_items, clamp ? "trajectories" : "one",
                           clamp ? "no trajectory" : "no replica shows an unfolding peak",
                           levels.size() - with_items == 1 ? "" : "s");
}

// Clamps: a threshold beyond every extension recorded unfolds nothing, whatever the forces;
// one beyond the chain's contour length is reached by no force or run length. Said with the
// fits that lack events for it (docs/analysis.md#dynamic-force-spectrum).
void say_why_no_trajectory_unfolded(const std::vector<RunSpectrum>& runs, double x_unfolded, SpectrumFits& fits) {
  double reached_nm = -std::numeric_limits<double>::infinity();
  std::optional<double> contour_nm;
  std::pair<int, int> ends;
  for (const RunSpectrum& r : runs) {
    reached_nm = std::max(reached_nm, r.extension_max_nm);
    if (r.contour_nm && !contour_nm) contour_nm = r.contour_nm, ends = r.ends;
  }
  if (std::isfinite(reached_nm) && x_unfolded > reached_nm) {
    const std::string unreached =
        contour_nm && x_unfolded >= *contour_nm
            ? fmt::format("; no trajectory reached --unfolded-extension-nm {} nm (the largest extension recorded: {} "
                          "nm), and it lies beyond the chain's contour length between beads {} and {} ({} nm, its "
                          "native bond lengths summed, model.etop), which the chain passes only by stretching its "
                          "bonds: larger forces or longer runs will not measure it; give the extension of the "
                          "unfolded state, below both",
                          g(x_unfolded), g(reached_nm, 4), ends.first, ends.second, g(*contour_nm, 3))
            : fmt::format("; no trajectory reached --unfolded-extension-nm {} nm (the largest extension recorded: {} "
                          "nm): larger forces or longer runs, or the extension of the unfolded state the "
                          "trajectories do reach",
                          g(x_unfolded), g(reached_nm, 4));
    if (!fits.bell.ok && fits.bell.too_little_data) fits.bell.why_not += unreached;
    for (DhsFit& d : fits.dhs)
      if (!d.ok && d.too_little_data) d.why_not += unreached;
  }
}

}  // namespace

SpectrumFits fit_spectrum(const std::vector<RunSpectrum>& runs, const std::vector<Level>& levels,
                          const SpectrumSample& sample, const SpectrumOptions& options) {
  const bool clamp = sample.clamp;
  const double kT = sample.kT_pN_nm;
  // Bell's rate needs 2 levels; DHS on clamps 3 (each force pins one rate), and each fit says its own.
  const bool enough_levels = levels_with_items(levels) >= 2;
  SpectrumFits fits;
  if (enough_levels) {
    fits.bell = clamp ? fit_bell_lifetimes(sample.force_pN, sample.time_s, sample.event, kT)
                      : fit_bell_evans_ramps(sample.force_pN, sample.rate_pN_per_s, kT, sample.event);
  } else {
    fits.bell.why_not = too_few_levels(levels, 2, clamp);
    fits.bell.too_little_data = true;
  }
  // Dudko–Hummer–Szabo for a linear-cubic (ν = 2/3) and a cusp (ν = 1/2) barrier; the table
  // and the plot show the linear-cubic one.
  for (double nu : {2.0 / 3.0, 0.5}) {
    if (!enough_levels) {
      DhsFit none;
      none.nu = nu;
      none.why_not = too_few_levels(levels, clamp ? 3 : 2, clamp);
      none.too_little_data = true;
      fits.dhs.push_back(none);
      continue;
    }
    fits.dhs.push_back(clamp ? fit_dhs_lifetimes(sample.force_pN, sample.time_s, sample.event, kT, nu)
                             : fit_dhs_ramps(sample.force_pN, sample.rate_pN_per_s, kT, nu, sample.event));
  }
  if (clamp) say_why_no_trajectory_unfolded(runs, *options.unfolded_extension_nm, fits);
  // The bootstrap: each level's items resampled (docs/analysis.md#confidence-intervals).
  if (options.bootstrap_resamples > 0 && enough_levels)
    fits.bootstrap = bootstrap_spectrum(sample, options.bootstrap_resamples, kBootstrapSeed);
  return fits;
}

}  // namespace ermak::analysis
