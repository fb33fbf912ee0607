#pragma once
// A run's output directory as the analysis reads it: its replicas' tables
// (replica_NNN/pulling.tsv, indentation.tsv, plane.tsv) and what its run.log states that the
// analysis uses (docs/analysis.md#input).
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ermak/core/error.h"

namespace ermak::analysis {

struct Replica {
  int index = 0;
  std::string name;  // replica_NNN
  std::filesystem::path dir;
  bool pulling = false, indentation = false, plane = false;
  // Where it comes from: which of the run directories given (0 for one run) and its number
  // there. Equal to `index` in one run's analysis; in runs pooled into one (run_pool.h)
  // `index` and `name` are its pooled number instead.
  std::size_t run = 0;
  int run_replica = 0;
};

// The replicas of a run directory, by index; RUN_DIR itself as replica 0 when it holds the
// tables directly. Throws ermak::Error for a directory without any table. `without_table`
// receives the replica_NNN directories that hold none while others do (a lost table).
std::vector<Replica> discover_replicas(const std::filesystem::path& run_dir,
                                       std::vector<std::string>* without_table = nullptr);

// The replicas' replica_NNN/energies.tsv, by index, when no replica holds a protocol table
// (a plain, heating or cooling run); empty otherwise. `without_table` receives the
// replica_NNN directories without energies.tsv while others have one (a lost table).
std::vector<std::filesystem::path> energy_tables_of_a_run_without_protocol(
    const std::filesystem::path& run_dir, std::vector<std::string>* without_table = nullptr);

// What the run's own log says that the analysis uses: the loading rate of a pulling run
// ("loading rate κv = … pN/s", run/protocol_log_lines.cpp), the force of a force clamp
// ("force clamp: beads […], each pulled with … pN") and the temperature of the
// resolved configuration it echoes: [run] temperature_K or temperature_kcal_per_mol, or
// for a heating run (whose [run] table has none) [heating] start_K or start_kcal_per_mol.
// Unset where the log is absent or says nothing of them.
struct RunLogFacts {
  std::optional<double> loading_rate_pN_per_s;  // κv of one spring
  std::optional<int> pulled_beads;              // springs whose forces pulling.tsv sums
  // The rate at which pulling.tsv's force (the sum over the m pulled beads' springs) is
  // loaded: m·κv.
  std::optional<double> summed_loading_rate_pN_per_s() const {
    if (!loading_rate_pN_per_s) return std::nullopt;
    return *loading_rate_pN_per_s * pulled_beads.value_or(1);
  }
  // A force clamp at one force: the force on each pulled bead times their number, the
  // force_along[pN] that pulling.tsv records (the nominal one: the table's rows round it).
  // Unset for a force schedule, and where the log states no clamp.
  std::optional<double> clamp_force_pN;
  // The model's size as the log's "model: 34 beads, 33 bonds, 75 native contacts, …" line
  // states it ("34 beads, 33 bonds, 75 native contacts"): runs of a spectrum should agree.
  std::optional<std::string> model_size;
  // "model fingerprint: 1a2b…" (since 2026-11-30): the model by content (run/config_fingerprint.h),
  // so that runs of two models of one size are told apart.
  std::optional<std::string> model_fingerprint;
  // The planes of a plane-pulling run, by group ("plane k: N beads, normal …, speed v µm/s,
  // κ = K pN/nm per bead"); empty where the log does not state them.
  struct Plane {
    int beads = 0;
    double speed_um_per_s = 0.0;
    double spring_pN_per_nm = 0.0;
  };
  std::vector<Plane> planes;
  // [run] steps of the last resolved configuration the log echoes (an extended run's new end).
  std::optional<std::int64_t> run_steps;
  // The beads of the pulling or force-clamp line as the run resolved them ("[33]", "[3, 7]"),
  // whatever selections its configuration named them by.
  std::optional<std::string> pulled_bead_list;
  // The first resolved configuration the log echoes (the TOML after "resolved configuration:"),
  // by table ("[run]", "[pulling]", "[[plane_pulling.plane]]"): its lines as written, comments
  // included. Empty where the log echoes none (a log of another program, or cut).
  std::map<std::string, std::vector<std::string>> resolved_tables;
  // The value of `key` in the resolved `table` ("[run]", "timestep_ps" → "19.84"), its
  // trailing comment left off; unset where the table or the key is not there (a key left at a
  // default that depends on others is a comment there, "# ends: …", and unset here).
  std::optional<std::string> resolved_value(const std::string& table, const std::string& key) const;
  // [output] contact_formed_ratio and trajectory_every of the resolved configuration: the rule
  // of Q (a contact is formed when r < ratio · r0) and the steps between DCD frames, for
  // `ermak analyze --contacts`. Unset where the log echoes no configuration.
  std::optional<double> contact_formed_ratio;
  std::optional<std::int64_t> trajectory_every_steps;
  std::optional<double> temperature_K;
  // A temperature line no run writes (negative, zero, nan, no number): the error, at its line,
  // for whoever would take the run's temperature from it (--temperature-K stands in for it).
  std::optional<Error> temperature_error;
  bool heating = false;  // temperature_K is the start of a heating schedule
  // The force protocol's table its resolved configuration names first ("[pulling]",
  // "[force_clamp]", "[indentation]", "[plane_pulling]"), or "".
  std::string protocol_table;
  // The heating schedule's stair length and stop temperature ([heating] every_steps, stop_K
  // or stop_kcal_per_mol), where the log gives them.
  std::optional<std::int64_t> heating_every_steps;
  std::optional<double> heating_stop_K;
  // Whether the run's temperature changes as it runs: a [heating] schedule whose stop differs
  // from its start (one whose log gives no stop is taken to change). A lifetime or a rupture
  // force over it belongs to no one temperature (docs/analysis.md#dynamic-force-spectrum).
  bool temperature_changes() const {
    return heating && !(heating_stop_K && temperature_K && std::abs(*heating_stop_K - *temperature_K) <= 0.05);
  }
  // "300 K to 500 K": the heating schedule's start and stop, for messages ("300 K onwards"
  // where the log gives no stop).
  std::string heating_text() const;
  // The beads whose end-to-end vector pulling.tsv's extension projects ("…; ends 0 33; …" of
  // the pulling or force-clamp line), where the log states them.
  std::optional<std::pair<int, int>> extension_ends;
  // The error the run's last start (or resume) ended with ("a FENE bond broke between …"),
  // where run.log holds one after it.
  std::optional<std::string> run_error;
};

RunLogFacts read_run_log(const std::filesystem::path& run_dir);

}  // namespace ermak::analysis
