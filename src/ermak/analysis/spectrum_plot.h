#pragma once
// The plot of a dynamic force spectrum (docs/analysis.md#dynamic-force-spectrum): ramps'
// rupture forces against log10 of the loading rate, or clamps' log10 lifetimes against the
// force, with Bell's and the Dudko–Hummer–Szabo (ν = 2/3) model curves.
#include <filesystem>

#include "ermak/analysis/force_spectrum.h"
#include "ermak/analysis/spectrum_fits.h"
#include "ermak/analysis/spectrum_tables.h"

namespace ermak::analysis {

// Writes the plot of the levels' `points` (write_level_table) and the fits' curves at `path`.
void write_spectrum_plot(const std::filesystem::path& path, const SpectrumPoints& points, const SpectrumFits& fits,
                         bool clamp, double kT_pN_nm, const SpectrumOptions& options);

}  // namespace ermak::analysis
