#pragma once
// The levels of a dynamic force spectrum (docs/analysis.md#dynamic-force-spectrum): runs at
// one level — one loading rate κv, or one clamp force — are one point of the spectrum: a
// batch of replicas split over several directories (several GPUs, or a batch resumed with
// another seed) is one sample. Pooling the runs into levels, and the levels' items as the
// fits and the bootstrap take them.
#include <cstddef>
#include <string>
#include <vector>

#include "ermak/analysis/spectrum_bootstrap.h"
#include "ermak/analysis/spectrum_runs.h"

namespace ermak::analysis {

struct Level {
  std::vector<std::size_t> runs;  // indices of the runs, in the order given
  // Their replicas together: the forces (or trajectories) of the first run, then of the next…,
  // so that the pooled items are in the order one directory holding them all would give.
  RunSpectrum pooled;
  std::string directories;        // "v125a, v125b"
  bool by_nominal_force = false;  // clamps: pooled by the force their run.logs state
};

// Equal to a relative kSameLevelRelative (run_pool.h), as runs pooled into one analysis are.
// Clamps whose run.log states no force (a log without the clamp's line: an older ermak, a
// table converted from elsewhere) are compared by their measured forces, the means of
// force_along over their replicas. ermak's own rows hold the clamp's force to their 8
// digits, but a table whose force is measured (a spring's, a feedback clamp's) scatters
// about it: 1 % holds such runs of one setting together and still parts the forces of a
// spectrum, which differ by several %. Forces closer than that are pooled: give run.logs.
inline constexpr double kSameMeasuredClampForceRelative = 1e-2;

// The runs grouped into levels, in the order of each level's first run. A level's rate is its
// first run's κv; a clamp level's force is the mean force over all its replicas, which every
// trajectory of the level is fitted at (their own means differ only by the rows' float
// rounding), so that the fits count forces, not trajectories.
std::vector<Level> pool_levels(const std::vector<RunSpectrum>& runs, bool rate_at_peak);

// The levels with something to fit (a rupture force, a trajectory): a fit needs two of them
// (DHS on clamps three); a level whose replicas show no peak does not count.
std::size_t levels_with_items(const std::vector<Level>& levels);

// Every item of every level, level by level, as the fits take them: a ramp's force at its
// level's κv (with --loading-rate peak at its own rate), ruptured; then the level's replicas
// without a peak (--no-peak censored) that reached a positive force, censored there at the
// level's κv; a clamp's trajectory at its level's force. `censored` counts the latter.
struct SpectrumItems {
  SpectrumSample sample;
  std::size_t censored = 0;
};
SpectrumItems spectrum_items(const std::vector<Level>& levels, double kT_pN_nm, bool rate_at_peak);

}  // namespace ermak::analysis
