#pragma once
// The tables of a dynamic force spectrum (docs/analysis.md#dynamic-force-spectrum):
// spectrum.tsv, one row per level, with the summary's table of the same rows;
// rupture_forces.tsv or lifetimes.tsv, one row per force or trajectory; and bootstrap.tsv,
// one row per resample.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "ermak/analysis/force_spectrum.h"
#include "ermak/analysis/report_common.h"
#include "ermak/analysis/spectrum_bootstrap.h"
#include "ermak/analysis/spectrum_fits.h"
#include "ermak/analysis/spectrum_levels.h"
#include "ermak/analysis/spectrum_runs.h"

namespace ermak::analysis {

// What the plot draws of the levels (ramps: against log10 of the rate; clamps: log10 of the
// lifetime against the force).
struct SpectrumPoints {
  Line spread_lines;  // each level's mean ± sd (clamps: lifetime ± se), as segments
  Line observed_x;    // each level's mean force (clamps: lifetime)
  Line points_x;      // every rupture force (clamps: every unfolding time)
};

struct LevelTable {
  std::string text;  // the summary's table: a header line, then a line per level
  // Notes of the summary: levels far from Bell's model, and clamp levels whose unfolding times
  // vary far less than exponential lifetimes do.
  std::string off_model_notes, few_spread_notes;
  SpectrumPoints points;
};

// Writes spectrum.tsv at `path`: per level its rate (force), replicas, the statistics of its
// forces (lifetimes) and the models' values there; returns the same rows for the summary.
LevelTable write_level_table(const std::filesystem::path& path, const std::vector<Level>& levels,
                             const SpectrumFits& fits, double kT_pN_nm, const SpectrumOptions& options);

// Writes rupture_forces.tsv (ramps) or lifetimes.tsv (clamps) at `path`: every force or
// trajectory, row by row in the order of the runs given, each at its level's rate or force; a
// ramp's force also with the rate the fits take it at (`fit_rate`: its level's κv, or with
// `rate_at_peak` the slope before its peak).
void write_item_table(const std::filesystem::path& path, const std::vector<RunSpectrum>& runs,
                      const std::vector<Level>& levels, bool rate_at_peak, bool overwrite);

// Writes bootstrap.tsv at `path`: the refitted parameters of each of the `resamples` resamples.
void write_bootstrap_table(const std::filesystem::path& path, const BootstrapFits& boot, std::size_t resamples,
                           bool overwrite);

}  // namespace ermak::analysis
