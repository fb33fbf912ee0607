#pragma once
// The runs of a dynamic force spectrum (docs/analysis.md#dynamic-force-spectrum): each run
// directory's replicas analysed as `ermak analyze RUN_DIR` analyses them and reduced to their
// rupture forces (ramps) or lifetimes (clamps), and the runs checked against each other (one
// kind, one temperature, one protein) and against the options of the other kind of run.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ermak/analysis/force_spectrum.h"

namespace ermak::analysis {

// One run: its replicas' rupture forces (ramps) or lifetimes (clamps).
struct RunSpectrum {
  std::filesystem::path dir;
  double temperature_K = 300.0;
  std::string temperature_source;
  std::optional<std::string> model_size;  // run.log's "34 beads, 33 bonds, 75 native contacts"
  bool clamp = false;
  std::size_t replicas = 0;  // analysed
  // ramps
  double rate_pN_per_s = std::numeric_limits<double>::quiet_NaN();
  std::vector<int> replica;      // per force or trajectory
  std::vector<double> force_pN;  // the chosen peak's force; a clamp's mean force
  std::vector<int> peak;         // ramps: which peak of its replica (0 = first)
  std::vector<double> peak_rate_pN_per_s;  // ramps: dF/dt before that peak (NaN: too few rows)
  // Clamps: the run's force, the mean over its replicas (force_pN holds each replica's own
  // mean until runs are pooled into levels, then the level's force).
  double clamp_force_pN = std::numeric_limits<double>::quiet_NaN();
  std::optional<double> nominal_clamp_force_pN;  // clamps: the force run.log states
  std::string cut_note;  // the run ended with an error or stopped before its steps (run.log)
  // A level's rate in the tables (set when runs are pooled): κv, or with --loading-rate peak
  // the median of its forces' own rates.
  double table_rate_pN_per_s = std::numeric_limits<double>::quiet_NaN();
  std::size_t without_peak = 0;
  std::vector<int> censored_replica;       // --no-peak censored: the replicas without a peak,
  std::vector<double> censored_force_pN;   // and the largest smoothed force each reached
  std::size_t without_rate = 0;  // --loading-rate peak: a chosen peak whose rise gives no rate
  // clamps
  std::vector<double> time_s;           // to unfolding, or the run's length when censored
  std::vector<std::uint8_t> unfolded;
  std::size_t starts_unfolded = 0;      // left out: already past the threshold at the first row
  double extension_max_nm = -std::numeric_limits<double>::infinity();  // the largest recorded
  // The chain's contour length between the ends the extension is measured from (model.etop
  // and run.log's "ends i j"), where the run directory tells it.
  std::optional<double> contour_nm;
  std::pair<int, int> ends{0, 0};
};

// Throws ermak::Error("OPTION: WHAT"), the refusal of an option the spectrum cannot take.
[[noreturn]] void refuse_spectrum_option(const std::string& option, const std::string& what);

// Every run of options.run_dirs read, in the order given, under one progress count over all
// their replicas (analysis_progress.h). Throws ermak::Error for a directory given twice, runs
// of different kinds or temperatures, options of the other kind of run, a clamp run without
// --unfolded-extension-nm, and what a run's own reading refuses (a heating run, a force
// schedule, a pulling run whose run.log states no loading rate). Warnings — replicas left out,
// runs cut short, runs of another model — are appended to `warnings`.
std::vector<RunSpectrum> read_spectrum_runs(const SpectrumOptions& options, std::vector<std::string>& warnings);

}  // namespace ermak::analysis
