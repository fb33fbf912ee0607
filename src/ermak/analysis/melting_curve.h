#pragma once
// `ermak analyze` of a heating (or cooling) run (docs/analysis.md#melting-curve): the
// replicas' energies.tsv grouped by the schedule's temperature stairs — the fraction of
// native contacts Q, Rg and the potential energy averaged over the second half of each stair
// and over replicas — the configurational heat capacity var(U)/(k_B·T²) of each stair, and
// the melting temperature where Q falls through 1/2 and where the heat capacity peaks.
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ermak/analysis/analyze_run.h"
#include "ermak/analysis/statistics.h"
#include "ermak/analysis/tsv_table.h"

namespace ermak::analysis {

// Resamples of the replicas behind half_q_interval_K; resample b draws from a generator
// seeded by 1 + b (the same interval on every analysis of the run).
inline constexpr std::size_t kMeltingBootstrapResamples = 1000;

struct MeltingStair {
  double temperature_K = 0.0;
  std::size_t replicas = 0;     // replicas with rows at this temperature
  std::size_t rows = 0;         // rows used (the second half of each replica's stair), all replicas
  double q_mean = 0.0, q_sem = 0.0;
  double rg_mean_A = 0.0, rg_sem_A = 0.0;
  double energy_mean_kcal_per_mol = 0.0;
  // var(U_total)/(k_B·T²) within each replica's rows, averaged over replicas, kcal/mol/K
  // (NaN with fewer than 2 rows per replica).
  double heat_capacity_kcal_per_mol_K = 0.0;
  double heat_capacity_sem = 0.0;  // over replicas
  // var(U_total) of all replicas' rows pooled, /(k_B·T²): it also holds the differences
  // between replicas, which near the transition (replicas folded and unfolded for a whole
  // stair) the within-replica estimate misses.
  double heat_capacity_pooled = 0.0;
  // d⟨U⟩/dT from the stairs' mean energies (central difference over the neighbouring stairs by
  // temperature, one-sided at the ends; NaN with one stair): at equilibrium the same
  // configurational heat capacity as var(U)/(k_B·T²), so a within-replica C well below it says
  // a stair was too short for U to sample its fluctuations.
  double energy_slope_kcal_per_mol_K = std::numeric_limits<double>::quiet_NaN();
};

// What run.log says of the schedule (analysis/run_directory.h), for telling a stair the run
// stopped in from a whole one.
struct MeltingSchedule {
  std::optional<std::int64_t> every_steps;
  std::optional<double> stop_K;
  // The error the run ended with, if it did: its cut-short stair is not one a resume completes.
  std::optional<std::string> run_error;
  // The lock holder's note ("pid 4242 on node7, started …") of a run still running
  // (AnalyzeOptions::run_in_progress): its last stair is the one it is in, not one it stopped in.
  std::optional<std::string> running;
};

struct MeltingAnalysis {
  std::vector<MeltingStair> stairs;  // in the order the schedule visits them
  bool cooling = false;              // the schedule runs downwards
  // Temperatures left out: a stair the run stopped in (shorter than every_steps, not the
  // hold at the stop temperature), or one whose second half holds fewer than 2 rows per
  // replica (energies written too rarely); the step-0 row (the input structure) is never used.
  std::vector<double> cut_short_K, too_few_rows_K;
  // Where the stairs' mean Q first falls through 1/2 on heating (rises through it on
  // cooling), by linear interpolation between stairs; unset when it never does.
  std::optional<double> half_q_temperature_K;
  // Its spread over the replicas (docs/analysis.md#melting-curve): the crossing of the mean Q
  // of kMeltingBootstrapResamples resamples of the replicas (drawn with replacement), as a 95 %
  // percentile interval; an end is ±∞ where resamples do not cross within the stairs. Unset
  // with fewer than 2 replicas or no crossing.
  std::optional<PercentileInterval> half_q_interval_K;
  // Replicas (by index) that lack stairs others hold: their tables end early. With at least two
  // replicas holding every stair, the crossing and its interval use only those (half_q_replicas
  // of them); otherwise half_q_replicas is 0 and every replica's stairs count.
  std::vector<std::size_t> replicas_missing_stairs;
  std::size_t half_q_replicas = 0;
  // The baselines' midpoint: the level (Q_first + Q_last)/2 of the first and last stairs' mean
  // Q (as visited; the replicas of the crossing above), and where Q first passes through it
  // as above — a two-state T_m where those stairs lie on the native and unfolded baselines,
  // which 1/2 is only when Q_N + Q_U = 1 (docs/analysis.md#melting-curve). Unset with fewer
  // than 2 stairs or no crossing.
  std::optional<double> first_stair_q, last_stair_q;  // the crossing's mean Q there
  std::optional<double> midpoint_temperature_K;
  std::optional<double> midpoint_q() const {
    if (!first_stair_q || !last_stair_q) return std::nullopt;
    return 0.5 * (*first_stair_q + *last_stair_q);
  }
  // The stair of the largest heat capacity, when it is not the first or the last and lies more
  // than 3 sem above both (a peak, not the noise of a few rows per stair).
  std::optional<double> heat_capacity_peak_K;
  // Stairs (not the first or last by temperature) whose within-replica C is under half of
  // d⟨U⟩/dT: fluctuations not sampled within a stair.
  std::vector<double> undersampled_K;
};

// One replica's energies table (columns step, T[K], U_total[kcal/mol], Q, Rg[A]) reduced to
// what the analysis keeps of it — per stair, the second half's means of Q and Rg and the
// count, mean and sd of U — so that a run of thousands of replicas is read a table at a time
// (a table of 10⁴ rows holds ~1 MB; its stairs, a few hundred bytes).
struct MeltingReplicaStair {
  double temperature_K = 0.0;
  std::size_t rows = 0;  // the second half of the stair
  double q = 0.0, rg_A = 0.0;
  std::size_t energies = 0;  // finite U_total among those rows
  double energy_mean_kcal_per_mol = 0.0, energy_sd_kcal_per_mol = 0.0;  // sd NaN below 2
};
struct MeltingReplica {
  std::vector<MeltingReplicaStair> stairs;  // in the order visited
  std::vector<double> cut_short_K, too_few_rows_K;
};
MeltingReplica reduce_melting_replica(const TsvTable& table, const MeltingSchedule& schedule = {});

MeltingAnalysis analyze_melting(std::span<const MeltingReplica> replicas);
// The same from the tables themselves.
MeltingAnalysis analyze_melting(std::span<const TsvTable> replicas, const MeltingSchedule& schedule = {});

// Writes OUT/melting.tsv, melting_curve.svg, heat_capacity.svg and summary.txt for the run
// directory's replica_NNN/energies.tsv (docs/analysis.md#melting-curve); `schedule` is what
// its run.log says of the heating (analysis/run_directory.h).
AnalyzeResult analyze_melting_run(const AnalyzeOptions& options, const std::vector<std::filesystem::path>& tables,
                                  const MeltingSchedule& schedule);

}  // namespace ermak::analysis
