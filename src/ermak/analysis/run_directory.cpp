#include "ermak/analysis/run_directory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <system_error>

#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/io/input_file.h"
#include "ermak/io/text_fields.h"

namespace ermak::analysis {

namespace fs = std::filesystem;

namespace {
// The replica_NNN subdirectories of a run directory, with their numbers, by number. A number
// too long for an int is not a replica's (ermak writes 3 to 6 digits).
std::vector<std::pair<int, fs::path>> replica_directories(const fs::path& run_dir) {
  std::vector<std::pair<int, fs::path>> out;
  const std::regex pattern("replica_([0-9]{1,9})");
  for (const auto& entry : fs::directory_iterator(run_dir)) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && std::regex_match(name, m, pattern)) out.emplace_back(std::stoi(m[1].str()), entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

std::vector<Replica> discover_replicas(const fs::path& run_dir, std::vector<std::string>* without_table) {
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec))
    throw Error(run_dir.string(), 0, "", "not a directory (give the output directory of a run)");
  std::vector<Replica> out;
  for (const auto& [index, dir] : replica_directories(run_dir)) {
    Replica r;
    r.index = r.run_replica = index;
    r.name = dir.filename().string();
    r.dir = dir;
    r.pulling = fs::exists(r.dir / "pulling.tsv");
    r.indentation = fs::exists(r.dir / "indentation.tsv");
    r.plane = fs::exists(r.dir / "plane.tsv");
    if (r.pulling || r.indentation || r.plane) out.push_back(r);
    else if (without_table) without_table->push_back(r.name);
  }
  if (out.empty() && without_table) without_table->clear();  // no protocol run at all
  if (out.empty() && (fs::exists(run_dir / "pulling.tsv") || fs::exists(run_dir / "indentation.tsv") ||
                      fs::exists(run_dir / "plane.tsv"))) {
    Replica r;  // RUN_DIR is one replica's directory
    r.name = "replica_000";
    r.dir = run_dir;
    r.pulling = fs::exists(run_dir / "pulling.tsv");
    r.indentation = fs::exists(run_dir / "indentation.tsv");
    r.plane = fs::exists(run_dir / "plane.tsv");
    out.push_back(r);
  }
  if (out.empty()) {
    // Say what the directory is instead: a run at one temperature, or one replica's directory.
    std::string what = "not the output directory of a pulling, force-clamp, indentation or plane-pulling run";
    // The run log's echo of the configuration names the run's protocol, if it had one.
    const std::string protocol = read_run_log(run_dir).protocol_table;
    if (!protocol.empty())
      what = "its run.log names " + protocol + ", but no replica directory holds that protocol's table (moved or "
             "deleted? the run writes them from its first step)";
    else if (!energy_tables_of_a_run_without_protocol(run_dir).empty() && read_run_log(run_dir).heating)
      what = "a heating run without a force protocol ([heating] in its run.log): no force curve; its melting curve "
             "is analysed on its own: ermak analyze " + run_dir.string();
    else if (!energy_tables_of_a_run_without_protocol(run_dir).empty())
      what = "a run without a force protocol at one temperature (no [heating] in its run.log): no force curve and "
             "no melting curve to analyse; its replica_NNN/energies.tsv hold Q, Rg and the energies";
    else if (fs::exists(run_dir / "energies.tsv"))
      what = "one replica's directory without a protocol table: give the run's output directory (the one with "
             "run.log and replica_NNN/), whose run.log says whether it heated";
    throw Error(run_dir.string(), 0, "", "no replica_NNN/pulling.tsv, indentation.tsv or plane.tsv here: " + what);
  }
  std::sort(out.begin(), out.end(), [](const Replica& a, const Replica& b) { return a.index < b.index; });
  return out;
}

RunLogFacts read_run_log(const fs::path& run_dir) {
  // The number right after `at` in `line`, if one is there.
  auto number_at = [](const std::string& line, std::size_t at) -> std::optional<double> {
    const char* start = line.c_str() + at;
    char* end = nullptr;
    const double value = std::strtod(start, &end);
    if (end == start || !std::isfinite(value)) return std::nullopt;
    return value;
  };
  const std::string rate_marker = "loading rate κv = ";
  struct TemperatureKey {
    std::string section, key;
    double to_K;
  };
  const double per_kcal = 1.0 / units::kBoltzmann_kcal_per_mol_K;
  const TemperatureKey temperature_keys[] = {{"[run]", "temperature_K = ", 1.0},
                                             {"[run]", "temperature_kcal_per_mol = ", per_kcal},
                                             {"[heating]", "start_K = ", 1.0},
                                             {"[heating]", "start_kcal_per_mol = ", per_kcal}};
  RunLogFacts facts;
  // A run.log of CR-only lines would read as one line, its facts silently defaults.
  check_text_input_file(run_dir / "run.log", "");
  std::ifstream log(run_dir / "run.log");
  std::string section;
  // Each start or resume ("[time] ermak 0.1.0 starting|resuming …") is an attempt; one that
  // never reached its steps (a refused --resume, a start that failed its checks) leaves the
  // files as they were, so its [run] steps and its error do not describe them.
  struct Attempt {
    std::optional<std::int64_t> run_steps;
    std::optional<std::string> error;
    bool ran = false;  // "running steps …"
  } attempt;
  bool attempts_marked = false;
  // The first resolved configuration's echo: before it, inside it (its tables' lines), after it.
  enum class Echo { before, inside, after } echo = Echo::before;
  std::string echoed_table;
  // "[pulling]", "[[plane_pulling.plane]]": a table's header, not a line of the log ("[time] …").
  const std::regex table_header(R"(\[\[?[A-Za-z0-9_.]+\]\]?\s*)");
  auto close_attempt = [&](bool at_end) {
    if (attempt.ran || (at_end && !attempts_marked)) {
      if (attempt.run_steps) facts.run_steps = attempt.run_steps;
      facts.run_error = attempt.error;
    }
    attempt = Attempt{};
  };
  int line_number = 0;
  for (std::string line; std::getline(log, line);) {
    ++line_number;
    if (echo == Echo::inside) {
      if (line.rfind("[", 0) == 0 && std::regex_match(line, table_header)) {
        echoed_table = line.substr(0, line.find_last_of(']') + 1);
        facts.resolved_tables[echoed_table];
      } else if (line.rfind("[", 0) == 0) {
        echo = Echo::after;  // the log goes on
      } else if (!echoed_table.empty() && line.find_first_not_of(" \t") != std::string::npos) {
        facts.resolved_tables[echoed_table].push_back(line);
      }
    }
    if (const auto at = line.find("] resolved configuration:"); echo == Echo::before && at != std::string::npos &&
                                                                at < 24)
      echo = Echo::inside;
    if (const auto at = line.find(rate_marker); at != std::string::npos) {
      if (const auto rate = number_at(line, at + rate_marker.size())) facts.loading_rate_pN_per_s = rate;
      // "pulling: beads [3, 7] on springs …": one spring per pulled bead.
      const std::string beads_marker = "pulling: beads [";
      if (const auto b = line.find(beads_marker); b != std::string::npos && b < at) {
        const auto close = line.find(']', b);
        if (close != std::string::npos) {
          const std::string list = line.substr(b + beads_marker.size(), close - b - beads_marker.size());
          facts.pulled_beads = int(std::count(list.begin(), list.end(), ',')) + 1;
          facts.pulled_bead_list = "[" + list + "]";
        }
      }
    }
    // "[time] model fingerprint: 1a2b… (…)" (run/run_start_log.cpp).
    if (const auto at = line.find("] model fingerprint: "); at != std::string::npos) {
      const std::string rest = line.substr(at + 21);
      facts.model_fingerprint = rest.substr(0, rest.find(' '));
    }
    // "[time] model: 34 beads, 33 bonds, 75 native contacts, 2 replicas (…)" (run/simulation.cpp).
    if (const auto at = line.find("] model: "); at != std::string::npos) {
      const std::string rest = line.substr(at + 9);
      if (const auto contacts = rest.find(" native contacts"); contacts != std::string::npos)
        facts.model_size = rest.substr(0, contacts + 16);
    }
    // "…; ends 0 33; …" of the pulling and force-clamp lines (run/protocol_log_lines.cpp).
    const std::string ends_marker = "; ends ";
    if (const auto at = line.find(ends_marker); at != std::string::npos &&
                                                (line.find("pulling: beads [") != std::string::npos ||
                                                 line.find("force clamp: beads [") != std::string::npos)) {
      const auto first = number_at(line, at + ends_marker.size());
      const auto space = line.find(' ', at + ends_marker.size());
      const auto second = space == std::string::npos ? std::nullopt : number_at(line, space + 1);
      if (first && second && *first >= 0.0 && *second >= 0.0) facts.extension_ends = {int(*first), int(*second)};
    }
    // "force clamp: beads [3, 7], each pulled with 100 pN, along …": a schedule's line reads
    // "each pulled with schedule (step 0: …)", which has no force of its own.
    const std::string clamp_marker = "force clamp: beads [", each_marker = "], each pulled with ";
    if (const auto b = line.find(clamp_marker); b != std::string::npos) {
      const auto close = line.find(each_marker, b);
      if (close != std::string::npos) {
        const std::string list = line.substr(b + clamp_marker.size(), close - b - clamp_marker.size());
        facts.pulled_bead_list = "[" + list + "]";
        const std::size_t force_at = close + each_marker.size();
        const auto force = number_at(line, force_at);
        const auto unit_at = line.find(' ', force_at);
        if (force && unit_at != std::string::npos && line.compare(unit_at, 4, " pN,") == 0)
          facts.clamp_force_pN = *force * double(std::count(list.begin(), list.end(), ',') + 1);
      }
    }
    // "plane 1: 5 beads, normal (0, 0, 1), speed 0 µm/s, κ = 50 pN/nm per bead; …", once per plane
    // (a resumed run's log states them again).
    if (const auto at = line.find("] plane "); at != std::string::npos) {
      const std::size_t k_at = at + 8;
      const auto k = number_at(line, k_at);
      const auto beads_at = line.find(": ", k_at), speed_at = line.find(", speed ", k_at),
                 kappa_at = line.find(", κ = ", k_at);
      if (k && *k == double(facts.planes.size()) && beads_at != std::string::npos && speed_at != std::string::npos &&
          kappa_at != std::string::npos) {
        const auto beads = number_at(line, beads_at + 2);
        const auto speed = number_at(line, speed_at + 8);
        const auto kappa = number_at(line, kappa_at + std::string(", κ = ").size());
        if (beads && speed && kappa) facts.planes.push_back({int(*beads), *speed, *kappa});
      }
    }
    if (const auto at = line.find("] ermak "); at != std::string::npos && at < 24 &&
                                               (line.find(" starting ") != std::string::npos ||
                                                line.find(" resuming ") != std::string::npos)) {
      close_attempt(false);
      attempts_marked = true;
    }
    if (const auto at = line.find("] running steps "); at != std::string::npos && at < 24) attempt.ran = true;
    if (const auto at = line.find("] error: "); at != std::string::npos && at < 24) attempt.error = line.substr(at + 9);
    if (line.rfind("[", 0) == 0) {
      section = line.substr(0, line.find(']') + 1);
      if (facts.protocol_table.empty() && (section == "[pulling]" || section == "[force_clamp]" ||
                                           section == "[indentation]" || section == "[plane_pulling]"))
        facts.protocol_table = section;
    }
    if (section == "[run]" && line.rfind("steps = ", 0) == 0)
      if (const auto v = number_at(line, 8); v && *v >= 0.0) attempt.run_steps = std::int64_t(*v);
    if (section == "[heating]" && !facts.heating_every_steps && line.rfind("every_steps = ", 0) == 0)
      if (const auto v = number_at(line, 14); v && *v >= 1.0) facts.heating_every_steps = std::int64_t(*v);
    if (section == "[heating]" && !facts.heating_stop_K) {
      if (line.rfind("stop_K = ", 0) == 0) facts.heating_stop_K = number_at(line, 9);
      if (line.rfind("stop_kcal_per_mol = ", 0) == 0)
        if (const auto v = number_at(line, 20)) facts.heating_stop_K = *v * per_kcal;
    }
    if (facts.temperature_K) continue;  // the first resolved configuration's (a resume echoes it again)
    for (const auto& t : temperature_keys)
      if (section == t.section && line.rfind(t.key, 0) == 0) {
        const auto value = number_at(line, t.key.size());
        // Every run writes a positive temperature here: another value is a damaged log, which
        // would otherwise leave the analysis at a default 300 K without a word (an audit's).
        if (!value || !(*value > 0.0) || !std::isfinite(*value)) {
          if (!facts.temperature_error)
            facts.temperature_error =
                Error((run_dir / "run.log").string(), line_number,
                      t.section.substr(1, t.section.size() - 2) + "." + t.key.substr(0, t.key.size() - 3),
                      "'" + text::shortened(line.substr(t.key.size()), 40) +
                          "' is no temperature a run writes (a damaged run.log); --temperature-K gives the analysis "
                          "one");
          continue;
        }
        facts.temperature_K = *value * t.to_K;
        facts.heating = t.section == "[heating]";
      }
  }
  close_attempt(true);
  if (const auto v = facts.resolved_value("[output]", "contact_formed_ratio"))
    if (const auto ratio = number_at(*v, 0); ratio && *ratio > 1.0) facts.contact_formed_ratio = *ratio;
  if (const auto v = facts.resolved_value("[output]", "trajectory_every"))
    if (const auto every = number_at(*v, 0); every && *every >= 0.0) facts.trajectory_every_steps = std::int64_t(*every);
  return facts;
}

std::optional<std::string> RunLogFacts::resolved_value(const std::string& table, const std::string& key) const {
  const auto found = resolved_tables.find(table);
  if (found == resolved_tables.end()) return std::nullopt;
  for (const std::string& line : found->second) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line.compare(first, key.size(), key) != 0) continue;
    const auto equals = line.find_first_not_of(' ', first + key.size());
    if (equals == std::string::npos || line[equals] != '=') continue;
    // The value up to its comment ("19.84  # = 0.08 tau_H"); a '#' inside a string is the value's.
    std::string value;
    bool quoted = false;
    for (std::size_t i = equals + 1; i < line.size(); ++i) {
      if (line[i] == '"' && (i == 0 || line[i - 1] != '\\')) quoted = !quoted;
      if (line[i] == '#' && !quoted) break;
      value += line[i];
    }
    const auto from = value.find_first_not_of(" \t"), to = value.find_last_not_of(" \t");
    return from == std::string::npos ? std::string() : value.substr(from, to - from + 1);
  }
  return std::nullopt;
}

std::string RunLogFacts::heating_text() const {
  const std::string start = temperature_K ? fmt::format("{:.6g} K", *temperature_K) : std::string("its start");
  return heating_stop_K ? fmt::format("{} to {:.6g} K", start, *heating_stop_K) : start + " onwards";
}

std::vector<fs::path> energy_tables_of_a_run_without_protocol(const fs::path& run_dir,
                                                               std::vector<std::string>* without_table) {
  std::error_code ec;
  if (!fs::is_directory(run_dir, ec)) return {};
  std::vector<fs::path> out;
  std::vector<std::string> lacking;
  for (const auto& [index, dir] : replica_directories(run_dir)) {
    for (const char* table : {"pulling.tsv", "indentation.tsv", "plane.tsv"})
      if (fs::exists(dir / table)) return {};
    if (fs::exists(dir / "energies.tsv")) out.push_back(dir / "energies.tsv");
    else lacking.push_back(dir.filename().string());
  }
  if (without_table && !out.empty()) *without_table = lacking;
  return out;
}

}  // namespace ermak::analysis
