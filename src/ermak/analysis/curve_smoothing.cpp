#include "ermak/analysis/curve_smoothing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <vector>

#include "ermak/analysis/smoothing_defaults.h"
#include "ermak/core/error.h"

namespace ermak::analysis {
namespace {

// The automatic peak criterion: max(10 pN, 8 σ_s), σ_s the noise of the smoothed force.
// A drop of 8 σ_s after a rise of 8 σ_s is a pair of > 5.6 σ excursions of a difference
// of two smoothed values: practically never noise, even over 10⁴ windows.
constexpr double kMinAutomaticDrop_pN = 10.0;
constexpr double kAutomaticDropNoiseFactor = 8.0;

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

}  // namespace

std::vector<double> Smoother::operator()(std::span<const double> y) const {
  return by_points ? running_average_points(y, points) : running_average_window(s, y, window);
}

// The most rows a running average over rows takes by default (a driver that does not move).
constexpr std::size_t kMostStillRows = 101;

Smoother make_smoother(std::span<const double> driver, const CurveSettings& settings, const std::string& source,
                       const std::string& driver_name) {
  Smoother sm;
  sm.s = path_length(driver);
  const bool moves = !sm.s.empty() && sm.s.back() > 0.0;
  if (settings.window_nm && !(*settings.window_nm >= 0.0))
    throw Error(source, 0, "--smooth-window-nm", "must be ≥ 0");
  if (settings.points || !moves) {
    sm.by_points = true;
    // 1 % of the rows, at most 101: a long clamp run's window would otherwise grow with the run
    // (2·10⁵ rows: 2000) and smear its start extension and half-way time.
    sm.points = settings.points ? std::max<std::size_t>(*settings.points, 1)
                                : std::clamp<std::size_t>(driver.size() / 100, 1, kMostStillRows);
    if (sm.points % 2 == 0) ++sm.points;
    sm.info.rows_per_window = double(std::min(sm.points, std::max<std::size_t>(driver.size(), 1)));
    sm.info.description = "running average over " + std::to_string(sm.points) + " rows";
    if (!moves && !settings.points)
      sm.info.description += " (1 % of the rows, at most " + std::to_string(kMostStillRows) + ": the " + driver_name +
                             " does not move)";
  } else {
    sm.window = settings.window_nm.value_or(kDefaultSmoothWindow_nm);
    sm.info.rows_per_window = mean_rows_per_window(sm.s, sm.window);
    sm.info.description = "running average over " + format("%g", sm.window) + " nm of " + driver_name +
                          " travel (" + format("%.3g", sm.info.rows_per_window) + " rows on average)";
    if (sm.window > sm.s.back())
      sm.info.description += " — wider than the whole travel (" + format("%.3g", sm.s.back()) +
                             " nm): the smoothed curve is little more than one average, give a narrower "
                             "--smooth-window-nm";
  }
  return sm;
}

void set_peak_criterion(SmoothingInfo& info, std::span<const double> raw_force,
                        std::span<const double> smoothed_force, const CurveSettings& settings) {
  // A row's noise: its robust spread about the smoothed curve (a rupture's few rows do not
  // count). Second differences (noise_sd) see only the part faster than a row — at the default
  // output interval the rows are correlated, and they gave 1.9 pN "raw" beside 3.1 pN
  // "smoothed" for 3.7 pN of scatter (an audit). A window of one row smooths nothing to
  // measure against: second differences then.
  if (info.rows_per_window >= 2.0 && smoothed_force.size() == raw_force.size()) {
    std::vector<double> residual(raw_force.size());
    for (std::size_t i = 0; i < raw_force.size(); ++i) residual[i] = raw_force[i] - smoothed_force[i];
    info.noise_raw = robust_sd(residual);
  } else {
    info.noise_raw = noise_sd(raw_force);
  }
  info.windows_in_record = double(raw_force.size()) / std::max(info.rows_per_window, 1.0);
  double lowest = std::numeric_limits<double>::infinity(), highest = -lowest;
  for (double f : smoothed_force)
    if (std::isfinite(f)) {
      lowest = std::min(lowest, f);
      highest = std::max(highest, f);
    }
  info.smoothed_force_range_pN = highest >= lowest ? highest - lowest : 0.0;
  info.noise_smoothed =
      block_mean_noise_sd(raw_force, std::size_t(std::llround(std::max(info.rows_per_window, 1.0))));
  if (settings.min_peak_drop_pN) {
    info.min_peak_drop = *settings.min_peak_drop_pN;
    info.min_peak_drop_automatic = false;
  } else {
    info.min_peak_drop = std::max(kMinAutomaticDrop_pN, kAutomaticDropNoiseFactor * info.noise_smoothed);
    info.min_peak_drop_automatic = true;
  }
}

std::vector<TimedPeak> find_timed_peaks(std::span<const double> position, std::span<const double> smoothed_force,
                                        std::span<const double> step, std::span<const double> time_ns,
                                        const SmoothingInfo& info, const CurveSettings& settings) {
  PeakCriteria criteria;
  criteria.min_drop = info.min_peak_drop;
  criteria.min_separation = settings.min_peak_separation_nm;
  std::vector<TimedPeak> out;
  for (const ForcePeak& fp : find_force_peaks(position, smoothed_force, criteria)) {
    TimedPeak p;
    p.peak = fp;
    p.step = std::int64_t(std::llround(step[fp.index]));
    p.time_ns = time_ns[fp.index];
    out.push_back(p);
  }
  return out;
}

std::vector<TimedPeak> keep_loaded_peaks(std::vector<TimedPeak> peaks, std::span<const double> smoothed_force,
                                         double criterion_pN,
                                         const std::function<double(std::size_t, std::size_t)>& loadable_pN,
                                         std::vector<UnloadedMaximum>* unloaded) {
  std::vector<TimedPeak> kept;
  std::optional<std::size_t> carried_trough;
  for (TimedPeak tp : peaks) {
    if (carried_trough && smoothed_force[*carried_trough] < smoothed_force[tp.peak.trough_before])
      tp.peak.trough_before = *carried_trough;
    const std::size_t from = tp.peak.trough_before, at = tp.peak.index;
    const double rise = smoothed_force[at] - smoothed_force[from];
    const double loadable = loadable_pN(from, at);
    if (rise > loadable + criterion_pN) {
      if (unloaded) unloaded->push_back({at, tp.step, smoothed_force[at], rise, loadable});
      carried_trough = from;
      continue;
    }
    carried_trough.reset();
    kept.push_back(tp);
  }
  return kept;
}

}  // namespace ermak::analysis
