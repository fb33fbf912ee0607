#pragma once
// The text of a dynamic force spectrum (docs/analysis.md#dynamic-force-spectrum): the
// sections of summary.txt — the runs and their levels, Bell's fit, the Dudko–Hummer–Szabo
// fits, the bootstrap's intervals, the notes — and the terminal's line.
#include <cstddef>
#include <string>
#include <vector>

#include "ermak/analysis/bell_evans.h"
#include "ermak/analysis/dudko_hummer_szabo.h"
#include "ermak/analysis/force_spectrum.h"
#include "ermak/analysis/spectrum_bootstrap.h"
#include "ermak/analysis/spectrum_levels.h"
#include "ermak/analysis/spectrum_runs.h"

namespace ermak::analysis {

// The summary's head: the runs, their kind and temperature, what a replica's rupture force
// (lifetime) is, and which runs were pooled into one level.
std::string spectrum_head_text(const std::vector<RunSpectrum>& runs, const std::vector<Level>& levels,
                               const SpectrumOptions& options, double kT_pN_nm);

struct BellText {
  std::string text;      // the summary's section
  std::string headline;  // "x_β = … nm, k0 = … /s", or why it was not fitted: for the terminal's line
};
// Bell's fit: its parameters with their errors and profile intervals, and for ramps the slope
// of the levels' mean forces against ln κv; or why it was not fitted.
BellText bell_fit_text(const BellFit& fit, const std::vector<RunSpectrum>& runs, const std::vector<Level>& levels,
                       double kT_pN_nm, bool rate_at_peak);

// The Dudko–Hummer–Szabo fits (ν = 2/3, 1/2), each beside Bell's by Akaike's criterion.
std::string dhs_fits_text(const std::vector<DhsFit>& dhs, const BellFit& fit, double kT_pN_nm, double temperature_K);

// The bootstrap's percentile intervals of `resamples` resamples, and a note where levels of
// few items (`item_levels`: the level of each item) make them too narrow.
std::string bootstrap_text(const BootstrapFits& boot, std::size_t resamples, const std::vector<Level>& levels,
                           const std::vector<std::size_t>& item_levels);

// The notes on the replicas left out or censored, the loading rate, the lifetime estimate,
// and the runs cut short; `censored`: the replicas censored at their largest force.
std::string spectrum_notes_text(const std::vector<RunSpectrum>& runs, const SpectrumOptions& options,
                                std::size_t censored);

// The terminal's line: "dynamic force spectrum of N pulling runs at T K: " and `fit_headline`.
std::string spectrum_brief(const std::vector<RunSpectrum>& runs, const std::vector<Level>& levels,
                           const std::string& fit_headline);

}  // namespace ermak::analysis
