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

// What the run says of the analysed group's springs (run.log's plane lines): how its plane
// travels against plane[nm], and how fast its springs can load its force.
struct PlaneLoading {
  // The group's plane travel is travel_scale × plane[nm] (v_G / v of the first moving plane;
  // 0 for a static plane).
  double travel_scale = 1.0;
  // N κ of the springs that load the force per nm of plane[nm]: the group's own, N_G κ_G
  // |travel_scale|, or for a static (anchor) plane the first moving plane's N κ.
  double loading_pN_per_nm = 0.0;
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
  // The sign of the group's load: of the smoothed force where |F| is largest. Events are
  // searched on orientation × F, so that a plane moving against its normal (or an anchor,
  // whose springs hold back) gives ruptures, not its loading, as drops; event and largest
  // forces keep the table's sign, drops are magnitudes.
  double orientation = 1.0;
  // Maxima left out because they rose faster than the springs load (PlaneLoading).
  std::vector<UnloadedMaximum> unloaded;
  // The run's plane facts were known: the work is the group's own, ∫F dp_G.
  bool loading_known = false;
  double travel_scale = 1.0;
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
// ermak::Error naming the table and --plane-group when the table has no such group. With
// `loading` (from run.log), maxima that rose faster than the springs load are left out and
// the work is taken over the group's own plane travel; without, over plane[nm].
PlaneAnalysis analyze_plane(const TsvTable& table, int group, const CurveSettings& settings,
                            const std::optional<PlaneLoading>& loading = std::nullopt);

// Trapezoidal ∫ y dx over the rows [0, last] (last < x.size()).
double trapezoid(std::span<const double> x, std::span<const double> y, std::size_t last);

}  // namespace ermak::analysis
