#include "ermak/analysis/run_pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <system_error>

#include "ermak/analysis/report_common.h"
#include "ermak/core/error.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;

struct Run {
  fs::path dir;
  RunLogFacts log;
};

bool within(double a, double b, double relative) {
  return std::abs(a - b) <= relative * std::max(std::abs(a), std::abs(b));  // false for NaN
}

// The keys of a resolved table's `key = value` lines, in order (a comment line, such as a
// default that follows from other keys, "# ends: …", has none).
std::vector<std::string> table_keys(const RunLogFacts& log, const std::string& table) {
  std::vector<std::string> keys;
  const auto found = log.resolved_tables.find(table);
  if (found == log.resolved_tables.end()) return keys;
  for (const std::string& line : found->second) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto end = line.find_first_of(" =", first);
    if (end != std::string::npos && line.find('=', end) != std::string::npos)
      keys.push_back(line.substr(first, end - first));
  }
  return keys;
}

// The protocol table a run pools by, "[pulling]" or "[force_clamp]"; "" with the reason in
// `why_not` for a run that pools with none: its run.log echoes no resolved configuration, or
// the run heats, or has another protocol (beside or instead).
std::string poolable_protocol(const Run& run, std::string& why_not) {
  const auto& tables = run.log.resolved_tables;
  const std::string dir = run.dir.string();
  if (tables.empty()) {
    why_not = dir + "'s run.log echoes no resolved configuration, which tells the runs' conditions";
    return "";
  }
  if (run.log.heating || tables.count("[heating]")) {
    why_not = dir + " is a heating run ([heating] in its run.log)";
    return "";
  }
  for (const char* other : {"[indentation]", "[plane_pulling]", "[[plane_pulling.plane]]"})
    if (tables.count(other)) {
      why_not = fmt::format("{} has {} in its run.log", dir, other);
      return "";
    }
  const bool pulling = tables.count("[pulling]") > 0, clamp = tables.count("[force_clamp]") > 0;
  if (pulling == clamp) {
    why_not = dir + "'s run.log names neither [pulling] nor [force_clamp]";
    return "";
  }
  return pulling ? "[pulling]" : "[force_clamp]";
}

// A run's level as the spectrum would place it: κv (the springs' summed rate), the clamp
// force its run.log states, or its force schedule; unset where run.log states none.
struct Level {
  std::optional<double> value;          // pN/s, or pN
  std::optional<std::string> schedule;  // a clamp's [force_clamp] schedule, as resolved
  std::string text(bool clamp) const {
    if (value) return g(*value, 6) + (clamp ? " pN" : " pN/s");
    return schedule ? "the schedule " + *schedule : std::string("none stated");
  }
};

Level level_of(const Run& run, bool clamp) {
  Level level;
  if (!clamp) {
    level.value = run.log.summed_loading_rate_pN_per_s();
  } else {
    level.value = run.log.clamp_force_pN;
    if (!level.value) level.schedule = run.log.resolved_value("[force_clamp]", "schedule");
  }
  return level;
}

bool same_level(const Level& a, const Level& b) {
  if (a.value && b.value) return within(*a.value, *b.value, kSameLevelRelative);
  return !a.value && !b.value && a.schedule && b.schedule && *a.schedule == *b.schedule;
}

struct Difference {
  std::string field, a, b;  // the setting, and its value in the first run and in the other
};

// The settings of the condition in which run b differs from run a, in the order of the
// resolved configuration; compared is what both run.logs state (an older ermak's log may lack
// a line or a key).
std::vector<Difference> differences(const Run& a, const Run& b, const std::string& protocol) {
  std::vector<Difference> found;
  auto both = [](const auto& x, const auto& y) { return x && y; };
  // Every key of a resolved table but those excluded (the level, the reporting interval, and
  // what the log line states resolved).
  auto table_differences = [&](const std::string& table, const std::vector<std::string>& excluded) {
    for (const std::string& key : table_keys(a.log, table)) {
      if (std::find(excluded.begin(), excluded.end(), key) != excluded.end()) continue;
      const auto va = a.log.resolved_value(table, key), vb = b.log.resolved_value(table, key);
      if (both(va, vb) && *va != *vb) found.push_back({table + " " + key, *va, *vb});
    }
  };
  // The model: the size its log line states, then its [model] parameters.
  if (both(a.log.model_size, b.log.model_size) && *a.log.model_size != *b.log.model_size)
    found.push_back({"model", *a.log.model_size, *b.log.model_size});
  table_differences("[model]", {});
  // Two models of one size and the same [model] keys (a mutant, another topology file) differ
  // in their content, which the fingerprint line states.
  if (found.empty() && both(a.log.model_fingerprint, b.log.model_fingerprint) &&
      *a.log.model_fingerprint != *b.log.model_fingerprint)
    found.push_back({"model (its beads, bonds or native contacts: another model of the same size)",
                     "fingerprint " + *a.log.model_fingerprint, "fingerprint " + *b.log.model_fingerprint});
  if (both(a.log.temperature_K, b.log.temperature_K) &&
      std::abs(*a.log.temperature_K - *b.log.temperature_K) > kSameTemperature_K)
    found.push_back({"[run] temperature", g(*a.log.temperature_K, 6) + " K", g(*b.log.temperature_K, 6) + " K"});
  // Of [run] only what shapes a trajectory: not steps, replicas, seed, the noise generator
  // (another generator draws the same statistics) or where it ran.
  for (const char* key : {"timestep_ps", "friction"}) {
    const auto va = a.log.resolved_value("[run]", key), vb = b.log.resolved_value("[run]", key);
    if (both(va, vb) && *va != *vb) found.push_back({std::string("[run] ") + key, *va, *vb});
  }
  // The start: minimised or not (and how far) is another start structure.
  table_differences("[minimize]", {});
  table_differences("[fixed]", {});
  // The pulled beads and the ends of the extension as the log's protocol line resolves them
  // (a selection "A:39" and its index 33 are one bead).
  if (both(a.log.pulled_bead_list, b.log.pulled_bead_list) && *a.log.pulled_bead_list != *b.log.pulled_bead_list)
    found.push_back({protocol + " pulled_beads", *a.log.pulled_bead_list, *b.log.pulled_bead_list});
  if (both(a.log.extension_ends, b.log.extension_ends) && *a.log.extension_ends != *b.log.extension_ends) {
    auto ends = [](const std::pair<int, int>& e) { return fmt::format("[{}, {}]", e.first, e.second); };
    found.push_back({protocol + " ends", ends(*a.log.extension_ends), ends(*b.log.extension_ends)});
  }
  table_differences(protocol, {"output_every", "pulled_beads", "ends", "force_pN", "force_kcal_per_mol_A", "schedule",
                               "schedule_kcal_per_mol_A"});
  return found;
}

// "replica_007": as `ermak run` names its replica directories (run/replica_files.cpp), at
// least 3 digits and as many as the largest number needs.
std::string pooled_name(int index, std::size_t count) {
  int digits = 3;
  for (std::size_t largest = count > 0 ? count - 1 : 0, power = 1000; largest >= power && digits < 10; power *= 10)
    ++digits;
  return fmt::format("replica_{:0{}d}", index, digits);
}

}  // namespace

PoolVerdict judge_runs_for_pooling(const std::vector<fs::path>& run_dirs) {
  PoolVerdict verdict;
  if (run_dirs.size() < 2) {
    verdict.why_not = "one run directory";
    return verdict;
  }
  std::vector<fs::path> seen;
  for (std::size_t k = 0; k < run_dirs.size(); ++k) {
    std::error_code ec;
    const fs::path same = fs::weakly_canonical(run_dirs[k], ec);
    for (std::size_t j = 0; j < seen.size(); ++j)
      if (!ec && same == seen[j]) {
        verdict.why_not = run_dirs[k].string() + " is given twice (also as " + run_dirs[j].string() +
                          "): each run's replicas may enter once";
        return verdict;
      }
    seen.push_back(same);
  }
  std::vector<Run> runs;
  for (const fs::path& dir : run_dirs) runs.push_back({dir, read_run_log(dir)});
  std::string protocol;
  for (const Run& run : runs) {
    const std::string p = poolable_protocol(run, verdict.why_not);
    if (p.empty()) return verdict;
    if (!protocol.empty() && p != protocol) {
      verdict.why_not = fmt::format("{} is a {} run, {} a {} run", runs.front().dir.string(), protocol,
                                    run.dir.string(), p);
      return verdict;
    }
    protocol = p;
  }
  const bool clamp = protocol == "[force_clamp]";
  const char* level_name = clamp ? "clamp force" : "loading rate κv";
  const char* level_names = clamp ? "clamp forces" : "loading rates κv";
  const Level first = level_of(runs.front(), clamp);
  for (const Run& run : runs) {
    const Level level = level_of(run, clamp);
    if (!level.value && !level.schedule) {
      verdict.why_not = fmt::format("{}'s run.log states no {}", run.dir.string(), level_name);
      return verdict;
    }
    if (!same_level(first, level)) {
      verdict.why_not = fmt::format("their {} differ ({}: {}, {}: {})", level_names, runs.front().dir.string(),
                                    first.text(clamp), run.dir.string(), level.text(clamp));
      return verdict;
    }
  }
  // One level: batches of one condition, or a mistake — runs that only share a κv (another
  // spring at another speed) or a force are no sample of one experiment.
  for (std::size_t k = 1; k < runs.size(); ++k) {
    const std::vector<Difference> d = differences(runs.front(), runs[k], protocol);
    if (d.empty()) continue;
    std::string also;
    for (std::size_t i = 1; i < d.size(); ++i)
      also += fmt::format("; {}: {} here, {} there", d[i].field, d[i].b, d[i].a);
    throw Error(runs[k].dir.string(), 0, d.front().field,
                fmt::format("{} here, {} in {} (run.log){}: these runs are at one {} ({}), but not of one condition, "
                            "so they are neither pooled into one analysis (runs of one model, temperature, time step, "
                            "friction, minimisation, fixed beads and {} settings but for output_every: "
                            "docs/analysis.md#pooling-runs-of-one-condition) nor the points of a spectrum (runs at "
                            "several {}); analyse them one by one",
                            d.front().b, d.front().a, runs.front().dir.string(), also, level_name, first.text(clamp),
                            protocol, level_names));
  }
  // Replica r's noise depends only on the seed and r (and the generator): two batches of one
  // seed hold the same trajectories, whatever their directories.
  auto noise = [](const Run& run) {
    std::string key;
    for (const char* k : {"seed", "rng", "rng_layout"}) key += run.log.resolved_value("[run]", k).value_or("?") + " ";
    return key;
  };
  for (std::size_t k = 1; k < runs.size(); ++k)
    for (std::size_t j = 0; j < k; ++j)
      if (const auto seed = runs[k].log.resolved_value("[run]", "seed"); seed && noise(runs[k]) == noise(runs[j])) {
        verdict.warnings.push_back(fmt::format(
            "{}: run with the seed of {} ({}, and its noise generator): their replicas of one number are the same "
            "trajectories, which this analysis counts twice; give each batch its own run.seed",
            runs[k].dir.string(), runs[j].dir.string(), *seed));
        break;
      }
  verdict.pooled = true;
  return verdict;
}

std::vector<Replica> pool_replicas(const std::vector<fs::path>& run_dirs, std::vector<std::string>* without_table) {
  std::vector<Replica> pooled;
  for (std::size_t k = 0; k < run_dirs.size(); ++k) {
    const std::string dir = run_dirs[k].string();
    if (dir.find_first_of("\t\n\r") != std::string::npos)
      throw Error(dir, 0, "", "the path holds a tab or a line break, which the run column of replicas.tsv cannot "
                              "hold: give the directory by another name (a symbolic link)");
    std::vector<std::string> lost;
    std::vector<Replica> replicas = discover_replicas(run_dirs[k], &lost);
    if (without_table)
      for (const std::string& name : lost) without_table->push_back((run_dirs[k] / name).string());
    for (Replica& r : replicas) {
      r.run = k;
      pooled.push_back(std::move(r));
    }
  }
  for (std::size_t i = 0; i < pooled.size(); ++i) {
    pooled[i].index = int(i);
    pooled[i].name = pooled_name(int(i), pooled.size());
  }
  return pooled;
}

std::string pooled_replica_table(const std::vector<Replica>& replicas, const std::vector<fs::path>& run_dirs) {
  std::string text = "# replica\trun\trun_replica\n";
  for (const Replica& r : replicas)
    text += fmt::format("{}\t{}\t{}\n", r.index, run_dirs.at(r.run).string(), r.run_replica);
  return text;
}

std::string pooled_runs_text(const std::vector<Replica>& replicas, const std::vector<fs::path>& run_dirs) {
  std::string text;
  for (std::size_t k = 0; k < run_dirs.size(); ++k) {
    const Replica *first = nullptr, *last = nullptr;
    for (const Replica& r : replicas)
      if (r.run == k) {
        if (!first) first = &r;
        last = &r;
      }
    if (!first) continue;
    text += first == last ? fmt::format("  replica {}: {} (its {})\n", first->index, run_dirs[k].string(),
                                        first->run_replica)
                          : fmt::format("  replicas {} to {}: {} (its {} to {})\n", first->index, last->index,
                                        run_dirs[k].string(), first->run_replica, last->run_replica);
  }
  return text;
}

}  // namespace ermak::analysis
