#pragma once
// `ermak analyze RUN_DIR RUN_DIR …`: the dynamic force spectrum of several runs of one
// protein (docs/analysis.md#dynamic-force-spectrum) — constant-velocity pulling at several
// loading rates (rupture force against κv) or force clamps at several forces (lifetime
// against force) — with Bell's rate fitted to all replicas at once (analysis/bell_evans.h).
#include <filesystem>
#include <optional>
#include <vector>

#include "ermak/analysis/analyze_run.h"
#include "ermak/analysis/force_spectroscopy.h"

namespace ermak::analysis {

enum class SpectrumPeak { first, largest };

struct SpectrumOptions {
  std::vector<std::filesystem::path> run_dirs;  // two or more
  std::filesystem::path out_dir;                // required
  CurveSettings settings;                       // the same for every run
  std::optional<double> temperature_K;          // --temperature-K; unset: each run's from its run.log
  SpectrumPeak peak = SpectrumPeak::largest;    // ramps: which peak of a replica is its rupture force
  bool peak_given = false;                      // --spectrum-peak was given (an error for clamp runs)
  // Ramps: the loading rate of each force — the run's nominal κv, or the slope of the force
  // against time just before its peak (PullingPeak::loading_rate_pN_per_s).
  bool rate_at_peak = false;
  // Ramps: a replica without an unfolding peak enters the fits as censored at the largest
  // (smoothed) force it reached — it had not ruptured by then — instead of being left out.
  bool censor_without_peak = false;
  std::optional<double> unfolded_extension_nm;  // clamps: unfolded when the recorded extension first reaches this
  // --bootstrap N: N resamples of each level's replicas (the runs at one κv or clamp force
  // pooled), refitted (analysis/spectrum_bootstrap.h); 0: none.
  std::size_t bootstrap_resamples = 0;
  bool overwrite = false;
};

// Analyses every replica of every run as `ermak analyze` does (the same smoothing and peak
// criterion), pools the runs at one loading rate κv (clamps: at one force) into one level —
// one row, one point, one group of the bootstrap — fits Bell's rate and writes OUT_DIR/summary.txt, spectrum.tsv,
// rupture_forces.tsv or lifetimes.tsv, and force_loading_rate.svg or lifetime_force.svg.
// Throws ermak::Error for bad options, runs of different kinds or temperatures, a ramp run
// whose run.log states no loading rate, and existing outputs without overwrite.
AnalyzeResult analyze_force_spectrum(const SpectrumOptions& options);

}  // namespace ermak::analysis
