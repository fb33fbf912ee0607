#include "ermak/analysis/force_spectrum.h"

#include <cmath>
#include <string>
#include <vector>

#include "ermak/analysis/report_common.h"
#include "ermak/analysis/spectrum_fits.h"
#include "ermak/analysis/spectrum_levels.h"
#include "ermak/analysis/spectrum_plot.h"
#include "ermak/analysis/spectrum_runs.h"
#include "ermak/analysis/spectrum_summary.h"
#include "ermak/analysis/spectrum_tables.h"
#include "ermak/analysis/wlc.h"

// The stages of the spectrum (docs/analysis.md#dynamic-force-spectrum): the runs read
// (spectrum_runs.h), pooled into levels (spectrum_levels.h), fitted (spectrum_fits.h), and
// written as tables (spectrum_tables.h), a plot (spectrum_plot.h) and a summary
// (spectrum_summary.h).
namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;

// The options that need no run to be refused.
void check_spectrum_options(const SpectrumOptions& options) {
  const auto bad = refuse_spectrum_option;
  if (options.run_dirs.size() < 2) bad("RUN_DIR", "a dynamic force spectrum needs two or more runs");
  if (options.out_dir.empty())
    bad("-o,--output", "with several run directories, name the directory for the spectrum");
  check_curve_settings(options.settings);
  if (options.censor_without_peak && options.rate_at_peak)
    bad("--no-peak", "censored needs the runs' nominal κv: a replica without a peak has no rate of its own "
                     "(leave out --loading-rate peak)");
  if (options.temperature_K && !(*options.temperature_K > 0.0 && std::isfinite(*options.temperature_K)))
    bad("--temperature-K", "must be > 0 and finite");
  if (options.unfolded_extension_nm &&
      !(*options.unfolded_extension_nm > 0.0 && std::isfinite(*options.unfolded_extension_nm)))
    bad("--unfolded-extension-nm", "must be > 0 and finite");
}

}  // namespace

AnalyzeResult analyze_force_spectrum(const SpectrumOptions& options) {
  check_spectrum_options(options);

  AnalyzeResult result;
  result.out_dir = options.out_dir;

  // --- the files; none may exist unless overwrite --------------------------------------------
  // Checked before the runs are read (which takes minutes for 10⁴ replicas): every kind of
  // analysis's files, so that --force leaves no earlier analysis's file beside this one's.
  // Written into a staging directory and moved into OUT once all has succeeded: a refused
  // or failed spectrum (a run of another kind, a table that cannot be read) leaves an earlier
  // one as it was.
  std::vector<fs::path> planned;
  add_every_analysis_file(result.out_dir, planned);
  StagedOutput staged(result.out_dir, planned, options.overwrite);
  const fs::path& out = staged.dir();

  // --- every run, analysed as `ermak analyze` does ------------------------------------------
  const std::vector<RunSpectrum> runs = read_spectrum_runs(options, result.warnings);
  const bool clamp = runs.front().clamp;
  const double temperature_K = runs.front().temperature_K;
  const double kT = kT_pN_nm(temperature_K);

  // --- the levels: runs at one κv (clamp force) pooled ------------------------------------------
  // The spectrum's levels are its runs' loading rates (κv, even where each force has its own
  // rate at its peak) or clamp forces: a fit needs two of them (DHS on clamps three).
  const std::vector<Level> levels = pool_levels(runs, options.rate_at_peak);

  // --- the fit over all replicas ----------------------------------------------------------------
  const SpectrumItems items = spectrum_items(levels, kT, options.rate_at_peak);
  const SpectrumFits fits = fit_spectrum(runs, levels, items.sample, options);

  // --- the outputs, in the summary's order ---------------------------------------------------------
  std::string summary = spectrum_head_text(runs, levels, options, kT);
  const LevelTable table = write_level_table(out / "spectrum.tsv", levels, fits, kT, options);
  summary += table.text;
  result.files.push_back(out / "spectrum.tsv");
  const fs::path item_table = out / (clamp ? "lifetimes.tsv" : "rupture_forces.tsv");
  write_item_table(item_table, runs, levels, options.rate_at_peak, options.overwrite);
  result.files.push_back(item_table);
  const BellText bell = bell_fit_text(fits.bell, runs, levels, kT, options.rate_at_peak);
  summary += bell.text;
  summary += dhs_fits_text(fits.dhs, fits.bell, kT, temperature_K);
  if (fits.bootstrap) {
    summary += bootstrap_text(*fits.bootstrap, options.bootstrap_resamples, levels, items.sample.level);
    const fs::path path = out / "bootstrap.tsv";
    write_bootstrap_table(path, *fits.bootstrap, options.bootstrap_resamples, options.overwrite);
    result.files.push_back(path);
  }
  summary += "\nNotes:\n" + table.off_model_notes + table.few_spread_notes +
             spectrum_notes_text(runs, options, items.censored);
  const fs::path plot = out / (clamp ? "lifetime_force.svg" : "force_loading_rate.svg");
  write_spectrum_plot(plot, table.points, fits, clamp, kT, options);
  result.files.push_back(plot);

  if (!result.warnings.empty()) {
    summary += "\nWarnings\n";
    for (const std::string& w : result.warnings) summary += "  " + w + "\n";
  }
  summary += "\nFiles:\n";
  result.files.push_back(out / "summary.txt");
  for (const fs::path& p : result.files) summary += "  " + p.filename().string() + "\n";
  write_text_file(out / "summary.txt", summary, options.overwrite);
  staged.commit(result.files);

  result.brief = spectrum_brief(runs, levels, bell.headline);
  return result;
}

}  // namespace ermak::analysis
