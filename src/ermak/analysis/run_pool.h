#pragma once
// Several run directories of one condition analysed as one run
// (docs/analysis.md#pooling-runs-of-one-condition): a pulling experiment at one speed and
// spring run in batches (two jobs, two nodes, more trajectories later with another seed), or
// force clamps at one force. Whether the runs given are such batches — else `ermak analyze`
// gives their dynamic force spectrum (force_spectrum.h) — and their replicas numbered on
// from one run to the next, as one run's.
#include <filesystem>
#include <string>
#include <vector>

#include "ermak/analysis/run_directory.h"

namespace ermak::analysis {

// Runs at one level of a spectrum: κv, or the clamp force their run.logs state, equal within
// this relative difference. κv as run.log prints it (6 significant digits) is equal text for
// equal settings; the margin only absorbs a spring or speed given in other units. The
// spectrum pools such runs into one level (spectrum_levels.h); `ermak analyze` pools runs
// of one condition at one level into one analysis.
inline constexpr double kSameLevelRelative = 1e-6;
// Runs at one temperature: their temperatures differ by at most this, K.
inline constexpr double kSameTemperature_K = 0.05;

struct PoolVerdict {
  bool pooled = false;
  // Where not pooled: why the runs are no batches of one condition, e.g. "their loading
  // rates κv differ (…)" — they go to the spectrum, whose own checks take it from there.
  std::string why_not;
  // Where pooled: runs of one seed and noise generator, whose replicas of one number are the
  // same trajectories (docs/config.md: run.seed), which the statistics would count twice.
  std::vector<std::string> warnings;
};

// Whether `ermak analyze R1 R2 …` pools the runs into one analysis. Pooled when every run.log
// echoes its resolved configuration, every run is a constant-velocity pulling run (or every
// one a force-clamp run) without another protocol or [heating], and all are at one loading
// rate κv (or one clamp force, or one force schedule). Runs at one level must then be of one
// condition — the same model, temperature, time step, friction, fixed beads and protocol
// settings but for output_every (docs/analysis.md#pooling-runs-of-one-condition) — or this
// throws ermak::Error naming the differing field, the two run directories and their values.
// A directory given twice is not pooled (its replicas would count twice; the spectrum refuses it).
PoolVerdict judge_runs_for_pooling(const std::vector<std::filesystem::path>& run_dirs);

// The replicas of the runs, in the order the runs are given and within each run by its own
// number, numbered 0, 1, … on across the runs: `index` and `name` (replica_NNN, at least 3
// digits, as `ermak run` names them) are the pooled number, `run` and `run_replica` where each
// comes from. `without_table` receives "RUN/replica_NNN" of each lost table (a replica
// directory without the table the run's others have). Throws ermak::Error for a directory
// without tables, or whose path holds a tab or line break (replicas.tsv could not hold it).
std::vector<Replica> pool_replicas(const std::vector<std::filesystem::path>& run_dirs,
                                   std::vector<std::string>* without_table = nullptr);

// The text of replicas.tsv: "# replica\trun\trun_replica", then one row per replica — its
// pooled number, its run directory as given, and its number in that run.
std::string pooled_replica_table(const std::vector<Replica>& replicas,
                                 const std::vector<std::filesystem::path>& run_dirs);

// "replicas 0 to 2" (or "replica 3") of each run, for the summary: one line per run,
// "  replicas 0 to 2: RUN (its 0 to 2)\n"; a run whose replicas all failed to be found has none.
std::string pooled_runs_text(const std::vector<Replica>& replicas, const std::vector<std::filesystem::path>& run_dirs);

}  // namespace ermak::analysis
