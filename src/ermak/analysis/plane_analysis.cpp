#include "ermak/analysis/plane_analysis.h"

#include <algorithm>
#include <cmath>

#include "ermak/analysis/curve_smoothing.h"
#include "ermak/core/error.h"
#include "ermak/core/units.h"

namespace ermak::analysis {
namespace {

std::vector<double> copy(std::span<const double> v) { return {v.begin(), v.end()}; }

// Plane groups in the table: the force_plane{g}[pN] columns, g = 0, 1, … without gaps.
int count_groups(const TsvTable& table) {
  int g = 0;
  while (table.has(plane_force_column(g))) ++g;
  return g;
}

}  // namespace

double pN_nm_per_kcal_per_mol() { return units::pN_per_kcal_per_mol_A / 10.0; }  // pN·Å → pN·nm

std::string plane_force_column(int group) { return "force_plane" + std::to_string(group) + "[pN]"; }

std::string missing_plane_group_message(int group, int groups) {
  const std::string have = groups == 0   ? "the table has no force_plane{g}[pN] column"
                           : groups == 1 ? "the table has group 0 only (force_plane0[pN])"
                                         : "the table has groups 0 to " + std::to_string(groups - 1);
  return "no plane group " + std::to_string(group) + " (column " + plane_force_column(group) + "): " + have;
}

double trapezoid(std::span<const double> x, std::span<const double> y, std::size_t last) {
  double sum = 0.0;
  for (std::size_t i = 1; i <= last && i < x.size(); ++i) sum += 0.5 * (y[i] + y[i - 1]) * (x[i] - x[i - 1]);
  return sum;
}

PlaneAnalysis analyze_plane(const TsvTable& table, int group, const CurveSettings& settings,
                            const std::optional<PlaneLoading>& loading) {
  PlaneAnalysis a;
  a.group = group;
  a.force_column = plane_force_column(group);
  a.groups = count_groups(table);
  if (group < 0 || !table.has(a.force_column))
    throw Error(table.source(), 0, "--plane-group", missing_plane_group_message(group, a.groups));
  const auto step = table.column("step");
  const auto time = table.column("time[ns]");
  const auto plane = table.column("plane[nm]");
  const auto force = table.column(a.force_column);
  a.rows = table.rows();
  a.step = copy(step);
  a.time_ns = copy(time);
  a.plane_nm = copy(plane);
  a.force_raw_pN = copy(force);
  a.loading_known = loading.has_value();
  if (loading) a.travel_scale = loading->travel_scale;
  if (a.rows == 0) return a;

  const Smoother smooth = make_smoother(plane, settings, table.source(), "plane");
  a.smoothing = smooth.info;
  a.plane_moves = smooth.s.back() > 0.0;
  a.force_pN = smooth(force);
  set_peak_criterion(a.smoothing, force, a.force_pN, settings);

  const auto largest = std::max_element(a.force_pN.begin(), a.force_pN.end(),
                                        [](double x, double y) { return std::abs(x) < std::abs(y); });
  a.orientation = *largest < 0.0 ? -1.0 : 1.0;
  std::vector<double> oriented(a.force_pN);
  for (double& f : oriented) f *= a.orientation;
  const auto top = std::max_element(oriented.begin(), oriented.end());
  const std::size_t imax = std::size_t(top - oriented.begin());
  a.max_force_pN = a.force_pN[imax];
  a.max_force_plane_nm = a.plane_nm[imax];
  a.max_force_step = std::int64_t(std::llround(a.step[imax]));
  a.end_force_pN = a.force_pN.back();
  a.detach_threshold_pN = settings.detach_force_pN.value_or(a.smoothing.min_peak_drop);

  // Without a moving plane the travel is 0 throughout: no events along it, no work.
  if (!a.plane_moves) return a;

  std::vector<TimedPeak> events = find_timed_peaks(a.plane_nm, oriented, a.step, a.time_ns, a.smoothing, settings);
  if (loading && loading->loading_pN_per_nm > 0.0)
    events = keep_loaded_peaks(
        std::move(events), oriented, a.smoothing.min_peak_drop,
        [&](std::size_t from, std::size_t at) {
          return loading->loading_pN_per_nm * std::abs(a.plane_nm[at] - a.plane_nm[from]);
        },
        &a.unloaded);
  for (TimedPeak& tp : events) {
    tp.peak.force = a.force_pN[tp.peak.index];  // the table's sign
    a.events.push_back({tp.peak, tp.step, tp.time_ns});
  }
  a.detached = !a.events.empty() && std::abs(a.end_force_pN) <= a.detach_threshold_pN;

  // W = ∫F dp_G over the group's own travel (a static plane does no work).
  std::vector<double> travel(a.plane_nm);
  for (double& p : travel) p *= a.travel_scale;
  const double per_kcal = pN_nm_per_kcal_per_mol();
  a.work_pN_nm = trapezoid(travel, force, a.rows - 1);
  a.work_kcal_per_mol = a.work_pN_nm / per_kcal;
  if (!a.events.empty()) {
    a.work_to_last_event_pN_nm = trapezoid(travel, force, a.events.back().peak.trough_after);
    a.work_to_last_event_kcal_per_mol = a.work_to_last_event_pN_nm / per_kcal;
  }
  return a;
}

}  // namespace ermak::analysis
