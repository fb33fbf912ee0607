#include "ermak/run/config_fingerprint.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "ermak/core/fnv1a.h"

namespace ermak {
namespace {

// The fingerprint's FNV-1a basis: a digit short of FNV's own (kFnv1a64Basis), kept so that
// every checkpoint written so far still matches.
constexpr std::uint64_t kFingerprintBasis = 1469598103934665603ull;

std::string fnv1a_hex(std::uint64_t hash) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", (unsigned long long)hash);
  return buffer;
}

// The key of a `key = value` line of the resolved TOML, or "" for any other line.
std::string_view resolved_key(std::string_view line) {
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos || line[first] == '#' || line[first] == '[') return {};
  const auto end = line.find_first_of(" =", first);
  if (end == std::string_view::npos || line.find('=', end) == std::string_view::npos) return {};
  return line.substr(first, end - first);
}

// Settings that say where and how fast a run is computed, not what it computes: a run
// may continue on another backend, GPU, thread count or kernel family, and from its
// output directory under another path (docs/outputs.md#resuming-elsewhere).
bool placement_key(std::string_view section, std::string_view key) {
  if (section == "run")
    return key == "backend" || key == "device" || key == "threads" || key == "cuda_kernels";
  return section == "output" && key == "directory";
}

// The input files, compared by the content of the model they give (model_fingerprint).
bool input_path_key(std::string_view section, std::string_view key) {
  return section == "input" &&
         (key == "structure" || key == "topology" || key == "coordinates" || key == "replica_coordinates");
}

// Which lines the fingerprint covered when: since commits db9cf06 and b0f3c79 (2026-11-29)
// neither the input files' paths, nor [minimize] (a resume starts from the checkpoint's
// positions and never minimises), nor a .sop run's heating stop (derived from numsteps, which
// may grow on resume: within the steps already run the staircase never reached it); from
// 2026-11-28 to those commits the [minimize] lines and the stop; before that the paths too.
struct FingerprintForm {
  bool input_paths = false;
  bool minimize = false;
  bool sop_heating_stop = false;
};

bool ends_with_sop(std::string_view name) {
  if (name.size() < 4) return false;
  std::string tail(name.substr(name.size() - 4));
  for (char& c : tail) c = char(std::tolower(static_cast<unsigned char>(c)));
  return tail == ".sop";
}

// The lines of a resolved configuration that its fingerprint covers, each with its table
// ("run", "plane_pulling.plane"; "" before the first): everything but the step count, the
// noise generator (checked on its own), where the run is computed, the source's name, and
// what `form` leaves out.
// `of_sop`: the text is of a .sop run even without its source line (a checkpoint's settings
// text written before the marker).
std::vector<std::pair<std::string, std::string>> fingerprinted_lines(const std::string& resolved,
                                                                     FingerprintForm form = {},
                                                                     bool of_sop = false) {
  std::vector<std::pair<std::string, std::string>> counted;
  std::istringstream lines(resolved);
  std::string line, section;
  bool from_sop = of_sop;  // "# source: NAME.sop"
  while (std::getline(lines, line)) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (section.empty() && line.rfind("# source: ", first) == first)
      from_sop = of_sop || ends_with_sop(std::string_view(line).substr(first + 10));
    if (line[first] == '#') {
      // Comments count (a .sop run's output settings are comments), except the source
      // file's name and a placement key left at its default ("# device: …").
      const auto colon = line.find(':', first);
      const auto start = line.find_first_not_of("# ", first);
      const std::string_view name = colon == std::string::npos || start == std::string::npos || start > colon
                                        ? std::string_view{}
                                        : std::string_view(line).substr(start, colon - start);
      if ((section.empty() && name == "source") || placement_key(section, name)) continue;
      // The default ends' note (since 2026-11-29) says what the fixed and pulled beads,
      // which count, already fix: checkpoints written without it still resume.
      if (name == "ends" && (section == "pulling" || section == "force_clamp")) continue;
    }
    if (line[first] == '[') {
      const auto close = line.find(']', first);
      section = line.substr(first + 1, close == std::string::npos ? std::string::npos : close - first - 1);
      while (!section.empty() && section.front() == '[') section.erase(0, 1);
    }
    if (!form.minimize && section == "minimize") continue;
    const std::string_view key = resolved_key(line);
    if (key == "steps") continue;  // the run length may change on resume
    // The generator is checked against the checkpoint's own rng section (a clearer message).
    if (key == "rng" || key == "rng_layout") continue;
    if (placement_key(section, key)) continue;
    if (!form.input_paths && input_path_key(section, key)) continue;
    if (!form.sop_heating_stop && from_sop && section == "heating" && key.rfind("stop_", 0) == 0) continue;
    counted.emplace_back(section, line);
  }
  return counted;
}

}  // namespace

namespace {
std::string fingerprint_of(const std::string& resolved, FingerprintForm form) {
  std::uint64_t hash = kFingerprintBasis;
  for (const auto& [section, line] : fingerprinted_lines(resolved, form)) hash = fnv1a64("\n", fnv1a64(line, hash));
  return fnv1a_hex(hash);
}
}  // namespace

std::string config_fingerprint(const std::string& resolved) { return fingerprint_of(resolved, {}); }

std::string config_fingerprint_with_minimize(const std::string& resolved) {
  return fingerprint_of(resolved, {.input_paths = false, .minimize = true, .sop_heating_stop = true});
}

std::string config_fingerprint_with_input_paths(const std::string& resolved) {
  return fingerprint_of(resolved, {.input_paths = true, .minimize = true, .sop_heating_stop = true});
}

std::string fingerprinted_text(const std::string& resolved) {
  std::string text;
  // The source's name does not count (nor its path: runs in two directories keep the same
  // text), but whether it is a .sop file does (its heating stop does not count): a marker.
  std::istringstream lines(resolved);
  for (std::string line; std::getline(lines, line) && (line.empty() || line[0] == '#');)
    if (line.rfind("# source: ", 0) == 0 && ends_with_sop(line)) text += "# source: .sop\n";
  for (const auto& [section, line] : fingerprinted_lines(resolved)) text += line + "\n";
  return text;
}

std::vector<std::string> fingerprint_differences(const std::string& before, const std::string& now,
                                                 std::size_t at_most,
                                                 const std::function<std::string(const std::string&)>& shown_name) {
  auto shown = [&](const std::string& name) { return shown_name ? shown_name(name) : name; };
  // Each counted setting by name ("run.seed"; a comment by its text), in order; table
  // headers only give the names their table.
  // A .sop run's settings compare as such on both sides (an older checkpoint's text lacks the
  // marker of a .sop source).
  auto of_sop = [](const std::string& resolved) {
    std::istringstream lines(resolved);
    for (std::string line; std::getline(lines, line) && (line.empty() || line[0] == '#');)
      if (line.rfind("# source: ", 0) == 0) return ends_with_sop(std::string_view(line).substr(10));
    return false;
  };
  const bool sop = of_sop(before) || of_sop(now);
  auto settings = [sop](const std::string& resolved) {
    std::vector<std::pair<std::string, std::string>> out;  // name, the line's value part
    for (const auto& [section, line] : fingerprinted_lines(resolved, {}, sop)) {
      const std::string_view key = resolved_key(line);
      if (key.empty()) {
        if (line[line.find_first_not_of(" \t")] == '[') continue;  // a table header (never blank here)
        // A .sop run's output intervals, one comment line of SOP-GPU's names and values
        // (config/sopgpu_config.cpp): each compared, and named, as a setting of its own.
        if (line.rfind("# outputtiming ", 0) == 0) {
          std::istringstream words(line.substr(2));
          for (std::string name, value; words >> name >> value;) out.emplace_back(name, value);
          continue;
        }
        out.emplace_back((section.empty() ? "" : section + ": ") + line, "");
        continue;
      }
      std::string value = line.substr(line.find('=') + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      out.emplace_back(section.empty() ? std::string(key) : section + "." + std::string(key), value);
    }
    return out;
  };
  const auto old_settings = settings(before), new_settings = settings(now);
  std::vector<std::string> differences;
  auto add = [&](std::string text) {
    if (differences.size() < at_most) differences.push_back(std::move(text));
  };
  // Each earlier setting against the first not yet matched setting of its name now.
  std::vector<bool> matched(new_settings.size(), false);
  for (const auto& [name, value] : old_settings) {
    std::size_t k = 0;
    while (k < new_settings.size() && (matched[k] || new_settings[k].first != name)) ++k;
    if (k == new_settings.size()) {
      add(value.empty() ? "\"" + name + "\" is gone" : name + " = " + value + " is gone");
      continue;
    }
    matched[k] = true;
    if (new_settings[k].second != value)
      add(value.empty() ? name + " (changed)" : shown(name) + " = " + new_settings[k].second + ", was " + value);
  }
  for (std::size_t k = 0; k < new_settings.size(); ++k)
    if (!matched[k])
      add(new_settings[k].second.empty() ? "\"" + new_settings[k].first + "\" is new"
                                         : new_settings[k].first + " = " + new_settings[k].second + " is new");
  return differences;
}

std::string legacy_config_fingerprint(const std::string& resolved) {
  std::uint64_t hash = kFingerprintBasis;
  std::istringstream lines(resolved);
  std::string line;
  while (std::getline(lines, line)) {
    const std::string_view key = resolved_key(line);
    if (key == "steps" || key == "rng" || key == "rng_layout") continue;
    hash = fnv1a64("\n", fnv1a64(line, hash));
  }
  return fnv1a_hex(hash);
}

std::string model_fingerprint(const Topology& topology) {
  std::uint64_t hash = kFnv1a64Basis;
  auto add = [&hash](const auto& value) {
    hash = fnv1a64(std::string_view(reinterpret_cast<const char*>(&value), sizeof value), hash);
  };
  auto add_text = [&hash](const std::string& text) { hash = fnv1a64(std::string_view(text.c_str(), text.size() + 1), hash); };
  add(topology.bead_count());
  for (const BeadInfo& b : topology.beads) {
    add_text(b.chain_id);
    add(b.residue_number);
    add(b.insertion_code);
    add_text(b.residue_name);
    add_text(b.atom_name);
  }
  add(topology.bonds.size());
  for (const Bond& b : topology.bonds) {
    add(b.i);
    add(b.j);
    add(b.r0_A);
  }
  add(topology.native_contacts.size());
  for (const NativeContact& c : topology.native_contacts) {
    add(c.i);
    add(c.j);
    add(c.r0_A);
    add(c.eh_kcal_per_mol);
  }
  return fnv1a_hex(hash);
}

std::string model_summary(const Topology& topology) {
  return std::to_string(topology.bead_count()) + " beads, " + std::to_string(topology.bonds.size()) + " bonds, " +
         std::to_string(topology.native_contacts.size()) + " native contacts";
}

}  // namespace ermak
