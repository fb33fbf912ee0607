#pragma once
// Analysis of one replica's plane-pulling table `plane.tsv` (docs/protocols.md#plane-pulling,
// docs/analysis.md#plane-pulling): the smoothed force of one plane group against the
// travel of the moving plane, its rupture events, the largest force and the force at the
// end (has the layer detached?), and the work done by the plane, W = ∫ F dp.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ermak/analysis/force_curve.h"
#include "ermak/analysis/force_spectroscopy.h"
#include "ermak/analysis/tsv_table.h"

namespace ermak::analysis {

// 1 kcal/mol in pN·nm (core/units.h: 1 kcal/mol/Å = 69.47695 pN).
double pN_nm_per_kcal_per_mol();

// The force column of plane group g: "force_plane{g}[pN]".
std::string plane_force_column(int group);
// "no plane group 3 (column force_plane3[pN]): it has groups 0 to 1", for a table with
// `groups` force_plane columns.
std::string missing_plane_group_message(int group, int groups);

struct PlaneEvent {
  ForcePeak peak;  // rows of the smoothed curve; position = plane travel, nm
  std::int64_t step = 0;
  double time_ns = 0.0;
};

struct PlaneAnalysis {
  int group = 0;
  std::string force_column;  // force_plane{group}[pN]
  int groups = 0;            // force_plane columns in the table
  std::size_t rows = 0;
  bool plane_moves = false;  // plane[nm] changes (no moving plane: no events, W = 0)
  std::vector<double> step, time_ns, plane_nm, force_raw_pN;
  std::vector<double> force_pN;  // smoothed
  SmoothingInfo smoothing;
  std::vector<PlaneEvent> events;
  // The largest smoothed force, where it is; the smoothed force at the last row.
  double max_force_pN = std::numeric_limits<double>::quiet_NaN();
  double max_force_plane_nm = std::numeric_limits<double>::quiet_NaN();
  std::int64_t max_force_step = 0;
  double end_force_pN = std::numeric_limits<double>::quiet_NaN();
  // Detached: at least one event, and the end force has come back to |F_end| ≤ the
  // threshold (settings.detach_force_pN, default the peak criterion of this replica).
  double detach_threshold_pN = 0.0;
  bool detached = false;
  // Work of the plane on its group's springs, W = ∫ F dp over the whole travel
  // (trapezoidal rule on the raw rows), and up to the end of the last event's drop.
  double work_pN_nm = 0.0;
  double work_kcal_per_mol = 0.0;
  double work_to_last_event_pN_nm = std::numeric_limits<double>::quiet_NaN();
  double work_to_last_event_kcal_per_mol = std::numeric_limits<double>::quiet_NaN();
};

// Reads columns step, time[ns], plane[nm] and force_plane{group}[pN] by name. Throws
// ermak::Error naming the table and --plane-group when the table has no such group.
PlaneAnalysis analyze_plane(const TsvTable& table, int group, const CurveSettings& settings);

// Trapezoidal ∫ y dx over the rows [0, last] (last < x.size()).
double trapezoid(std::span<const double> x, std::span<const double> y, std::size_t last);

}  // namespace ermak::analysis
