#pragma once
// The smoothing and peak search shared by the per-replica analyses of force_spectroscopy
// (pulling, indentation) and plane_analysis (docs/analysis.md#smoothing,
// docs/analysis.md#unfolding-events-force-peaks): one definition of the running average
// over the driving coordinate, of the automatic peak criterion, and of the peaks with
// the step and time of their rows.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "ermak/analysis/force_spectroscopy.h"

namespace ermak::analysis {

// The smoothing of one table: applied to each series, with its description.
struct Smoother {
  bool by_points = false;
  double window = 0.0;
  std::size_t points = 1;
  std::vector<double> s;  // path length of the driving coordinate
  SmoothingInfo info;

  std::vector<double> operator()(std::span<const double> y) const;
};

// Running average over settings.window_nm (default 0.2 nm) of the path length of
// `driver` (the cantilever base, the moving plane), or over settings.points rows; when
// the driver does not move, over 1 % of the rows. `driver_name` words the description
// ("cantilever-base", "plane"); `source` names the table in errors.
Smoother make_smoother(std::span<const double> driver, const CurveSettings& settings, const std::string& source,
                       const std::string& driver_name);

// Sets info's noise estimates of `raw_force` (a row's: about `smoothed_force`, its smoothed
// curve row by row) and the peak criterion: the given --min-peak-drop-pN, or max(10 pN, 8 σ_s)
// with σ_s the noise of the smoothed force.
void set_peak_criterion(SmoothingInfo& info, std::span<const double> raw_force,
                        std::span<const double> smoothed_force, const CurveSettings& settings);

struct TimedPeak {
  ForcePeak peak;
  std::int64_t step = 0;
  double time_ns = 0.0;
};

// find_force_peaks on a smoothed curve with the criterion of `info` and the separation
// of `settings`; each peak with the step and time of its row.
std::vector<TimedPeak> find_timed_peaks(std::span<const double> position, std::span<const double> smoothed_force,
                                        std::span<const double> step, std::span<const double> time_ns,
                                        const SmoothingInfo& info, const CurveSettings& settings);

// Leaves out of `peaks` the maxima whose rise from their trough on `smoothed_force` exceeds
// loadable_pN(trough row, peak row) + criterion_pN, recording them in *unloaded; after one,
// the next peak's rising edge starts at the lowest trough since the last peak kept.
std::vector<TimedPeak> keep_loaded_peaks(std::vector<TimedPeak> peaks, std::span<const double> smoothed_force,
                                         double criterion_pN,
                                         const std::function<double(std::size_t, std::size_t)>& loadable_pN,
                                         std::vector<UnloadedMaximum>* unloaded);

}  // namespace ermak::analysis
