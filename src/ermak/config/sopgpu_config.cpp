#include "ermak/config/sopgpu_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "ermak/config/toml_config.h"
#include "ermak/config/toml_values.h"
#include "ermak/core/closest_name.h"
#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/io/checkpoint.h"
#include "ermak/io/input_file.h"
#include "ermak/io/text_fields.h"

namespace ermak {
namespace {

namespace fs = std::filesystem;
using K = SopKeyKind;
using T = SopValueType;

constexpr std::string_view kOverrideSource = "--set";

}  // namespace

// ---------------------------------------------------------------------------------------
// The key table. Keys and meanings: SOP-GPU's docs/source/general_sop.rst and the names
// its source reads (src/Potentials/*.h, src/param_initializer.cpp). The `ermak` column
// is what docs/migrating-from-sop-gpu.md shows.

namespace {
constexpr const char* kSopPullingPlane =
    "SOP-GPU's pulling plane, a plane that a cantilever spring and its beads' forces move (ermak's "
    "[plane_pulling] moves its planes at a set speed: docs/protocols.md#plane-pulling)";
}  // namespace

const std::vector<SopKeyInfo>& sopgpu_run_keys() {
  static const std::vector<SopKeyInfo> keys = {
      // Device and GPU limits
      {"device", K::kMapped, T::kInteger, "CUDA device index (backend cuda)"},
      {"block_size", K::kNoEffect, T::kInteger, "ermak sizes its GPU blocks itself"},
      {"block_size_covalent", K::kNoEffect, T::kInteger, "ermak sizes its GPU blocks itself"},
      {"block_size_native", K::kNoEffect, T::kInteger, "ermak sizes its GPU blocks itself"},
      {"block_size_pairs", K::kNoEffect, T::kInteger, "ermak sizes its GPU blocks itself"},
      {"block_size_pairlist", K::kNoEffect, T::kInteger, "ermak sizes its GPU blocks itself"},
      {"block_size_possiblepairs", K::kNoEffect, T::kInteger, "ermak sizes its GPU blocks itself"},
      {"max_covalent", K::kNoEffect, T::kInteger, "ermak's lists grow as needed"},
      {"max_native", K::kNoEffect, T::kInteger, "ermak's lists grow as needed"},
      {"max_pairs", K::kNoEffect, T::kInteger, "ermak's lists grow as needed"},
      {"max_possiblePairs", K::kNoEffect, T::kInteger, "ermak's lists grow as needed"},
      // Structure
      {"name", K::kMapped, T::kWord, "macro <name> in file names"},
      {"topology", K::kMapped, T::kWord, "input.topology"},
      {"coordinates", K::kMapped, T::kWord, "input.coordinates (with <run>: input.replica_coordinates)"},
      // Simulation
      {"numsteps", K::kMapped, T::kInteger, "run.steps"},
      {"timestep", K::kMapped, T::kReal, "run.timestep_tau"},
      {"seed", K::kMapped, T::kInteger, "run.seed (= seed + firstrun + run, as SOP-GPU)"},
      {"run", K::kMapped, T::kWord, "single-run mode: run.replicas = 1, <run> in file names"},
      {"firstrun", K::kMapped, T::kInteger, "many-runs mode: run number of replica 0"},
      {"runnum", K::kMapped, T::kInteger, "many-runs mode: run.replicas"},
      {"stage", K::kMapped, T::kWord, "pull/indent/heat switch the protocol on; also a macro"},
      {"author", K::kMapped, T::kWord, "a macro; in the default file names (`energy.<name>_<author><run>.dat`, …)"},
      {"mode", K::kNoEffect, T::kWord, "capsid mode only skipped Rg; ermak always writes it"},
      {"nav", K::kMapped, T::kInteger, "steps per base move: pullFreq default, indentation speed"},
      // Force field
      {"temperature", K::kMapped, T::kReal, "run.temperature_kcal_per_mol"},
      {"zeta", K::kMapped, T::kReal, "run.friction"},
      {"kspring_cov", K::kMapped, T::kReal, "model.fene_spring_kcal_per_mol_A2"},
      {"R_limit", K::kMapped, T::kReal, "model.fene_max_stretch_A"},
      {"a", K::kMapped, T::kReal, "model.repulsion_sigma_A"},
      {"el", K::kMapped, T::kReal, "model.repulsion_energy_kcal_per_mol"},
      {"R_sigma", K::kNoEffect, T::kReal, "read but unused by SOP-GPU"},
      // Pair lists
      {"pairs_cutoff", K::kMapped, T::kReal, "model.pair_cutoff_A"},
      {"pairlist_cutoff", K::kNoEffect, T::kReal, "list radius = pair_cutoff_A + neighbor.skin_A"},
      {"pairs_threshold", K::kNoEffect, T::kReal, "no possible-pairs list: cell lists"},
      {"pairs_freq", K::kNoEffect, T::kInteger, "list rebuilt when a bead moved > skin/2"},
      {"possiblepairs_freq", K::kNoEffect, T::kInteger, "no possible-pairs list: cell lists"},
      // Hydrodynamics
      // Hydrodynamics (docs/model.md#hydrodynamic-interactions)
      {"hi_on", K::kMapped, T::kYesNo, "[hydrodynamics] (TEA unless hi_exact)"},
      {"hi_exact", K::kMapped, T::kYesNo, "hydrodynamics.method = \"cholesky\" (yes) or \"tea\" (no)"},
      {"hi_a", K::kMapped, T::kReal, "hydrodynamics.radius_A"},
      {"hi_epsilon_freq", K::kNoEffect, T::kInteger, "TEA's ε is recomputed at every step"},
      {"hi_capricious", K::kNoEffect, T::kYesNo, "TEA's ε is held at 1 at most; the run does not stop for it"},
      {"hi_unlisted", K::kNoEffect, T::kYesNo, "every pair of mobile beads is coupled (SOP-GPU's hi_unlisted yes)"},
      {"hi_epsmax", K::kNoEffect, T::kReal, "the run does not stop for TEA's ε"},
      // SOP-GPU's pulling plane: a plane that a cantilever spring drags against its beads'
      // forces through a friction of its own; ermak's [plane_pulling] moves each plane at a
      // set speed (docs/protocols.md#plane-pulling): not the same experiment. Both generations
      // of its keys: the older src/Potentials/pulling_plane.cu (pullingPlaneMass,
      // pullingPlaneFreq, plane_fixed_beads with plane_fixed1, plane_fixed2, …) and the newer
      // (pullingPlaneKsCant, pullingPlaneZeta, the update and output intervals, plane_fixed and
      // plane_pulled as lists).
      {"pullingPlane", K::kRejected, T::kYesNo, kSopPullingPlane},
      {"pullingPlaneDeltax", K::kRejected, T::kReal, kSopPullingPlane},
      {"pullingPlaneKs", K::kRejected, T::kReal, kSopPullingPlane},
      {"pullingPlaneKsCant", K::kRejected, T::kReal, kSopPullingPlane},
      {"pullingPlaneZeta", K::kRejected, T::kReal, kSopPullingPlane},
      {"pullingPlaneMass", K::kRejected, T::kReal, kSopPullingPlane},
      {"pullingPlaneDir", K::kRejected, T::kVector, kSopPullingPlane},
      {"pullingPlanePos", K::kRejected, T::kVector, kSopPullingPlane},
      {"pullingPlaneFreq", K::kRejected, T::kInteger, kSopPullingPlane},
      {"pullingPlaneUpdateFreq", K::kRejected, T::kInteger, kSopPullingPlane},
      {"pullingPlaneOutputFreq", K::kRejected, T::kInteger, kSopPullingPlane},
      {"pullingPlaneOutput", K::kRejected, T::kWord, kSopPullingPlane},
      {"plane_fixed", K::kRejected, T::kIntegerList, kSopPullingPlane},
      {"plane_pulled", K::kRejected, T::kIntegerList, kSopPullingPlane},
      {"plane_fixed_beads", K::kRejected, T::kInteger, kSopPullingPlane},
      {"plane_fixed<N>", K::kRejected, T::kInteger, kSopPullingPlane},
      {"plane_pulled_beads", K::kRejected, T::kInteger, kSopPullingPlane},
      {"plane_pulled<N>", K::kRejected, T::kInteger, kSopPullingPlane},
      // Pulling
      {"pulling", K::kMapped, T::kYesNo, "[pulling] (deltax) or [force_clamp] (fconst)"},
      {"k_trans", K::kMapped, T::kReal, "pulling.spring_kcal_per_mol_A2"},
      {"fconst", K::kMapped, T::kReal, "force_clamp.force_kcal_per_mol_A (when deltax = 0)"},
      {"deltax", K::kMapped, T::kReal, "pulling.speed_A_per_tau = deltax/(pullFreq·timestep)"},
      {"pullFreq", K::kMapped, T::kInteger, "speed denominator; rows of pullOutput"},
      {"pullDirection", K::kMapped, T::kWord, "pulling.direction (\"end_to_end\" or a vector)"},
      {"pullVector", K::kMapped, T::kVector, "pulling.direction = [x, y, z]"},
      {"fixedEnd", K::kMapped, T::kInteger, "pulling.ends[0]"},
      {"pulledEnd", K::kMapped, T::kInteger, "pulling.ends[1]"},
      {"fixed", K::kMapped, T::kIntegerList, "fixed.beads"},
      {"pulled", K::kMapped, T::kIntegerList, "pulling.pulled_beads"},
      {"pullOutput", K::kMapped, T::kWord, "SOP-GPU pulling file"},
      // Indentation
      {"indentation", K::kMapped, T::kYesNo, "[indentation]"},
      {"indentationChip", K::kMapped, T::kVector, "indentation.base_position_A"},
      {"indentationTip", K::kMapped, T::kVector, "indentation.tip_position_A"},
      {"indentationDirection", K::kMapped, T::kVector, "indentation.direction"},
      {"indentationTipR", K::kMapped, T::kReal, "indentation.tip_radius_A"},
      {"indentationKs", K::kMapped, T::kReal, "indentation.spring_kcal_per_mol_A2"},
      {"indentationTipKs", K::kMapped, T::kReal, "indentation.spring_kcal_per_mol_A2"},
      {"indentationDeltaX", K::kMapped, T::kReal, "indentation.speed_A_per_tau = deltaX/(nav·timestep)"},
      {"indentationFreq", K::kNoEffect, T::kInteger, "SOP-GPU's code moves the base every nav steps"},
      {"indentationSigma", K::kMapped, T::kReal, "default of indentationTipSigma, indentationSurfSigma"},
      {"indentationEl", K::kMapped, T::kReal, "default of indentationTipEl, indentationSurfEl"},
      {"indentationTipSigma", K::kMapped, T::kReal, "indentation.tip_sigma_A"},
      {"indentationTipEl", K::kMapped, T::kReal, "indentation.tip_epsilon_kcal_per_mol"},
      {"indentationTipA", K::kMapped, T::kReal, "indentation.tip_A"},
      {"indentationTipB", K::kMapped, T::kReal, "indentation.tip_B"},
      {"indentationTipZeta", K::kMapped, T::kReal, "indentation.tip_friction"},
      {"indentationFixTrans", K::kMapped, T::kYesNo, "indentation.tip_along_direction_only"},
      {"indentationMoveSurface", K::kMapped, T::kYesNo, "indentation.move_surface"},
      {"indentationRetractionStep", K::kMapped, T::kInteger, "indentation.retract_at_step"},
      {"indentationOutput", K::kMapped, T::kWord, "SOP-GPU indentation file"},
      {"indentationOutputFreq", K::kMapped, T::kInteger, "rows of indentationOutput"},
      {"indentationSurfaceR0", K::kMapped, T::kVector, "indentation.surface.point_A"},
      {"indentationSurfaceN", K::kMapped, T::kVector, "indentation.surface.normal"},
      {"indentationDiscreteSurf", K::kMapped, T::kYesNo, "indentation.surface.type = \"beads\" (else \"plane\")"},
      {"indentationSurfA", K::kMapped, T::kReal, "indentation.surface.A"},
      {"indentationSurfB", K::kMapped, T::kReal, "indentation.surface.B"},
      {"indentationSurfSigma", K::kMapped, T::kReal, "indentation.surface.sigma_A"},
      {"indentationSurfEl", K::kMapped, T::kReal, "indentation.surface.epsilon_kcal_per_mol"},
      {"indentationSurfaceSize", K::kMapped, T::kInteger, "indentation.surface.grid_size"},
      {"indentationSurfaceStep", K::kMapped, T::kReal, "indentation.surface.spacing_A"},
      {"indentationSurfaceSizeX", K::kRejected, T::kInteger, "rectangular surfaces (use indentationSurfaceSize)"},
      {"indentationSurfaceSizeY", K::kRejected, T::kInteger, "rectangular surfaces (use indentationSurfaceSize)"},
      {"indentationPairsCutoff", K::kNoEffect, T::kReal, "surface beads beyond 4σ are ignored"},
      {"indentationShowTipSurf", K::kNoEffect, T::kYesNo, "the DCD holds the molecule only"},
      {"indentationSurfConnectFile", K::kNoEffect, T::kWord, "no VMD script is written"},
      {"indentationCantLength", K::kNoEffect, T::kReal, "only drew the cantilever in the DCD"},
      // Heating
      {"heating", K::kMapped, T::kYesNo, "[heating]"},
      {"initialT", K::kMapped, T::kReal, "heating.start_kcal_per_mol"},
      {"deltaT", K::kMapped, T::kReal, "heating.increment_kcal_per_mol"},
      {"tempFreq", K::kMapped, T::kInteger, "heating.every_steps"},
      // Output
      {"reffilename", K::kMapped, T::kWord, "reference PDB (replica 0 at the start)"},
      {"outputtiming", K::kMapped, T::kInteger, "rows of outputname"},
      {"outputname", K::kMapped, T::kWord, "SOP-GPU energy file"},
      {"outputcolwidth", K::kNoEffect, T::kInteger, "columns are SOP-GPU's printf widths"},
      {"printruns", K::kNoEffect, T::kInteger, "the console shows a progress line"},
      {"computeRg", K::kNoEffect, T::kYesNo, "Rg is always written"},
      // The key as SOP-GPU's source spells it (OUTPUT_COMPUTE_RG_STRING); its files may hold it.
      {"coputeRg", K::kNoEffect, T::kYesNo, "Rg is always written (SOP-GPU's source's spelling of computeRg)"},
      {"R_limit_bond", K::kMapped, T::kReal, "cutoff of the Native# column"},
      {"dcdfreq", K::kMapped, T::kInteger, "frames of DCDfile"},
      {"DCDfile", K::kMapped, T::kWord, "DCD trajectory"},
      {"restartfreq", K::kMapped, T::kInteger, "restart PDB and ermak checkpoint interval"},
      {"restartname", K::kMapped, T::kWord, "restart PDB (+ ermak checkpoint and log)"},
      {"finalcoord", K::kMapped, T::kWord, "final coordinates PDB"},
  };
  return keys;
}

namespace {

// SOP-GPU's numbered keys (plane_fixed1, plane_fixed2, …: it reads 1 … count, written
// "%s%d") are one row of the table each, named with <N>; the row's own name is no key.
std::string_view numbered_key_row(std::string_view key) {
  for (std::string_view stem : {"plane_fixed", "plane_pulled"}) {
    if (key.size() <= stem.size() || key.substr(0, stem.size()) != stem) continue;
    const std::string_view number = key.substr(stem.size());
    if (number[0] != '0' && std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return stem == "plane_fixed" ? "plane_fixed<N>" : "plane_pulled<N>";
  }
  return key.find('<') == std::string_view::npos ? key : std::string_view{};
}

const SopKeyInfo* find_key(std::string_view key) {
  key = numbered_key_row(key);
  for (const SopKeyInfo& k : sopgpu_run_keys())
    if (k.key == key) return &k;
  return nullptr;
}

// The blanks of tokens() below (std::isspace): a value of form feeds or vertical tabs alone is
// empty here too, not a value without words.
constexpr const char* kBlanks = " \t\r\n\f\v";

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return {};
  return std::string(s.substr(first, s.find_last_not_of(kBlanks) - first + 1));
}

std::vector<std::string> tokens(std::string_view s) {
  std::vector<std::string> out;
  std::istringstream in{std::string(s)};
  std::string t;
  while (in >> t) out.push_back(t);
  return out;
}

// SOP-GPU replaces <key> by the first word of key's value (configreader.cpp applyMask),
// for every key of the file; <run> is left for the per-run expansion.
std::string expand_macros(const std::string& value, const std::map<std::string, std::string>& first_words,
                          const SopEntry& where) {
  std::string out;
  std::size_t pos = 0;
  while (pos < value.size()) {
    const auto open = value.find('<', pos);
    if (open == std::string::npos) break;
    const auto close = value.find('>', open);
    if (close == std::string::npos) break;
    const std::string name = value.substr(open + 1, close - open - 1);
    out.append(value, pos, open - pos);
    if (name == "run") {
      out += "<run>";
    } else if (const auto it = first_words.find(name); it != first_words.end()) {
      out += it->second;
    } else {
      throw Error(where.file, where.line, where.key,
                  fmt::format("macro <{}> names no key of the configuration (define it with a line '{} VALUE')",
                              name, name));
    }
    pos = close + 1;
  }
  out.append(value, pos);
  return out;
}

}  // namespace

std::vector<SopEntry> read_sop_entries(std::string_view text, const std::string& file,
                                       const std::vector<std::string>& overrides, std::vector<std::string>* notes) {
  std::vector<SopEntry> entries;
  std::map<std::string, std::size_t> index;
  std::istringstream in{std::string(text)};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const auto hash = line.find('#');
    const std::string content = trim(std::string_view(line).substr(0, hash));
    if (content.empty()) continue;
    // SOP-GPU's reader skips a line that starts with a blank (as `ermak topology` does for
    // its configurations): the run must not set what SOP-GPU would not.
    if (line.front() == ' ' || line.front() == '\t') {
      if (notes)
        notes->push_back(fmt::format("{}:{}: line starts with a blank: ignored, as SOP-GPU ignores such lines",
                                     file, number));
      continue;
    }
    const auto split = content.find_first_of(kBlanks);
    SopEntry e;
    e.key = content.substr(0, split);
    e.file = file;
    e.line = number;
    if (split == std::string::npos)
      throw Error(file, number, e.key, "a key without a value (expected 'key value')");
    e.raw_value = trim(std::string_view(content).substr(split));
    if (const auto it = index.find(e.key); it != index.end())
      throw Error(file, number, e.key,
                  fmt::format("given twice (also on line {}); SOP-GPU would silently use the first", entries[it->second].line));
    index[e.key] = entries.size();
    entries.push_back(std::move(e));
  }
  for (const std::string& text_override : overrides) {
    const auto eq = text_override.find('=');
    const std::string key = trim(std::string_view(text_override).substr(0, eq));
    if (eq == std::string::npos || key.empty())
      throw Error(std::string(kOverrideSource), 0, text_override, "expected key=value (a .sop key)");
    SopEntry e;
    e.key = key;
    e.raw_value = trim(std::string_view(text_override).substr(eq + 1));
    e.file = std::string(kOverrideSource);
    if (e.raw_value.empty()) throw Error(e.file, 0, key, "missing value after '='");
    if (const auto it = index.find(key); it != index.end()) {
      entries[it->second] = std::move(e);
    } else {
      index[key] = entries.size();
      entries.push_back(std::move(e));
    }
  }
  std::map<std::string, std::string> first_words;
  for (const SopEntry& e : entries) first_words[e.key] = tokens(e.raw_value).front();
  for (SopEntry& e : entries) e.value = expand_macros(e.raw_value, first_words, e);
  return entries;
}

bool is_sopgpu_config(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".sop";
}

// ---------------------------------------------------------------------------------------
// Typed access to the entries.

namespace {

class SopValues {
 public:
  explicit SopValues(const std::vector<SopEntry>& entries) {
    for (const SopEntry& e : entries) by_key_[e.key] = &e;
  }

  const SopEntry* find(std::string_view key) const {
    const auto it = by_key_.find(std::string(key));
    return it == by_key_.end() ? nullptr : it->second;
  }
  bool has(std::string_view key) const { return find(key) != nullptr; }
  const SopEntry& at(std::string_view key) const { return *find(key); }

  Error error(std::string_view key, const std::string& what) const {
    const SopEntry& e = at(key);
    return Error(e.file, e.line, e.key, what);
  }
  Error missing(std::string_view key, const std::string& why) const {
    return Error(file_name(), 0, std::string(key), fmt::format("missing: {}", why));
  }
  void set_file_name(std::string name) { file_ = std::move(name); }
  const std::string& file_name() const { return file_; }

  std::optional<std::int64_t> integer(std::string_view key) const {
    const SopEntry* e = find(key);
    if (!e) return std::nullopt;
    return parse_integer(*e, single_word(*e), "an integer");
  }
  std::optional<double> real(std::string_view key) const {
    const SopEntry* e = find(key);
    if (!e) return std::nullopt;
    return parse_real(*e, single_word(*e));
  }
  std::optional<bool> yes_no(std::string_view key) const {
    const SopEntry* e = find(key);
    if (!e) return std::nullopt;
    const std::string w = single_word(*e);
    // The spellings SOP-GPU's getYesNoParameter accepts; anything else it reads as "no",
    // which hides typos, so ermak names the accepted words instead.
    for (const char* yes : {"YES", "Yes", "yes", "Y", "y", "ON", "On", "on", "TRUE", "True", "true"})
      if (w == yes) return true;
    for (const char* no : {"NO", "No", "no", "N", "n", "OFF", "Off", "off", "FALSE", "False", "false"})
      if (w == no) return false;
    throw Error(e->file, e->line, e->key, fmt::format("expected yes/no (or on/off, true/false), got '{}'", w));
  }
  std::optional<Vec3d> vector(std::string_view key) const {
    const SopEntry* e = find(key);
    if (!e) return std::nullopt;
    const auto words = tokens(e->value);
    if (words.size() != 3)
      throw Error(e->file, e->line, e->key,
                  fmt::format("expected three numbers 'x y z', got {} value(s) '{}'", words.size(), e->value));
    return Vec3d{parse_real(*e, words[0]), parse_real(*e, words[1]), parse_real(*e, words[2])};
  }
  // Space-separated integers; "a to b" adds a+1 … b (SOP-GPU's getIntegerArrayParameter).
  std::optional<std::vector<std::int64_t>> integer_list(std::string_view key) const {
    const SopEntry* e = find(key);
    if (!e) return std::nullopt;
    const auto words = tokens(e->value);
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < words.size(); ++i) {
      std::string lower = words[i];
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
      if (lower == "to") {
        if (out.empty() || i + 1 >= words.size())
          throw Error(e->file, e->line, e->key, "'to' needs a number on each side ('first to last')");
        const std::int64_t to = parse_integer(*e, words[++i], "an integer");
        if (to <= out.back())
          throw Error(e->file, e->line, e->key, fmt::format("range '{} to {}' is empty", out.back(), to));
        // Bead indices are 32-bit, and no model has 10⁸ beads: a larger range is a typo that
        // would fill the memory before the beads are checked against the model.
        if (out.back() < 0)  // (and to − out.back() stays within 64 bits below)
          throw Error(e->file, e->line, e->key,
                      fmt::format("range '{} to {}' starts below 0: bead indices are 0-based", out.back(), to));
        if (to > std::numeric_limits<std::int32_t>::max() || to - out.back() > 100'000'000)
          throw Error(e->file, e->line, e->key,
                      fmt::format("range '{} to {}' is longer than any model (at most 10^8 beads, indices up to {})",
                                  out.back(), to, std::numeric_limits<std::int32_t>::max()));
        for (std::int64_t k = out.back() + 1; k <= to; ++k) out.push_back(k);
      } else {
        out.push_back(parse_integer(*e, words[i], "an integer"));
      }
    }
    return out;
  }
  std::optional<std::string> word(std::string_view key) const {
    const SopEntry* e = find(key);
    if (!e) return std::nullopt;
    return single_word(*e);
  }

 private:
  static std::string single_word(const SopEntry& e) {
    const auto words = tokens(e.value);
    if (words.size() != 1)
      throw Error(e.file, e.line, e.key,
                  fmt::format("expected one value, got {} ('{}')", words.size(), text::shortened(e.value)));
    return words.front();
  }
  static std::int64_t parse_integer(const SopEntry& e, const std::string& w, const char* what) {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (ec != std::errc() || end != w.data() + w.size())
      throw Error(e.file, e.line, e.key, fmt::format("expected {}, got '{}'", what, text::shortened(w)));
    return v;
  }
  static double parse_real(const SopEntry& e, const std::string& w) {
    double v = 0;
    const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (ec != std::errc() || end != w.data() + w.size() || !std::isfinite(v))
      throw Error(e.file, e.line, e.key, fmt::format("expected a number, got '{}'", text::shortened(w)));
    return v;
  }

  std::map<std::string, const SopEntry*> by_key_;
  std::string file_;
};

// Every key must be in the table; values must have the table's type (checked here once,
// so that a malformed value of a key without effect is still reported).
void check_keys(const std::vector<SopEntry>& entries, const SopValues& v, const fs::path& config_file) {
  for (const SopEntry& e : entries) {
    const SopKeyInfo* info = find_key(e.key);
    // A key of the user's own that another value uses as a macro (<proj>): a definition, as
    // in SOP-GPU (docs/migrating-from-sop-gpu.md).
    const std::string as_macro = "<" + e.key + ">";
    if (!info && std::any_of(entries.begin(), entries.end(), [&](const SopEntry& other) {
          return other.raw_value.find(as_macro) != std::string::npos;
        }))
      continue;
    if (!info) {
      std::string hint;
      // Hints name keys as written: a numbered row as its first key (plane_fixed1).
      std::vector<std::string> names;
      for (const SopKeyInfo& k : sopgpu_run_keys()) {
        std::string name(k.key);
        if (const auto at = name.find("<N>"); at != std::string::npos) name.replace(at, 3, "1");
        names.push_back(std::move(name));
      }
      const std::vector<std::string_view> known(names.begin(), names.end());
      if (const auto close = closest_name(e.key, known); close && name_edit_distance(*close, e.key) == 0)
        hint = fmt::format(" (keys are case-sensitive: did you mean '{}'?)", *close);
      else
        hint = did_you_mean(e.key, known);
      // A topology-creation configuration given to `ermak run`.
      for (const char* topology_key : {"structure", "cgconfig", "R_limit_bond", "SC_limit_bond"})
        if (e.key == topology_key)
          hint = " (a key of SOP-GPU's topology-creation configurations: build the model with `ermak topology " +
                 config_file.filename().string() + "`, then run the run configuration)";
      throw Error(e.file, e.line, text::shortened(e.key),
                  fmt::format("unknown key{}; the keys ermak reads are listed in docs/migrating-from-sop-gpu.md",
                              hint));
    }
    switch (info->type) {
      case T::kInteger: v.integer(e.key); break;
      case T::kReal: v.real(e.key); break;
      case T::kYesNo: v.yes_no(e.key); break;
      case T::kVector: v.vector(e.key); break;
      case T::kIntegerList: v.integer_list(e.key); break;
      case T::kWord: v.word(e.key); break;
    }
  }
}

// The TOML reader's own forms: a number that reads back exactly, as a float; an escaped string.
std::string number(double x) { return config::shortest(x); }
std::string toml_quoted(const std::string& s) { return config::toml_string(s); }

std::string vec_toml(Vec3d v) { return fmt::format("[{}, {}, {}]", number(v.x), number(v.y), number(v.z)); }

template <typename Ints>
std::string int_list(const Ints& xs) {
  return fmt::format("[{}]", fmt::join(xs, ", "));
}

// The TOML document that the .sop file means, built line by line, remembering for every
// TOML key the .sop entry it came from so that errors found by the TOML reader's
// validation are reported at the .sop file's line (the TOML reader — config/toml_section.cpp
// and its section readers — checks ranges, combinations and bead lists once for both formats).
class TomlBuilder {
 public:
  void table(const std::string& name) {
    table_ = name;
    out_ << "\n[" << name << "]\n";
  }
  void value(const std::string& key, const std::string& text, const SopEntry* from) {
    out_ << key << " = " << text << '\n';
    if (from) origin_[table_.empty() ? key : table_ + "." + key] = from;
  }
  std::string str() const { return out_.str(); }
  const std::map<std::string, const SopEntry*>& origin() const { return origin_; }

 private:
  std::ostringstream out_;
  std::string table_;
  std::map<std::string, const SopEntry*> origin_;
};

fs::path resolve(const std::string& text) { return fs::absolute(fs::path(text)).lexically_normal(); }

std::string replace_all(std::string s, std::string_view what, std::string_view with) {
  for (auto pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + with.size()))
    s.replace(pos, what.size(), with);
  return s;
}

}  // namespace

SopRun parse_sopgpu_run(std::string_view text, const fs::path& file, const SopLoadOptions& options) {
  text = ermak::text::without_bom(text);  // a byte-order mark some editors write
  std::vector<std::string> skipped_lines;
  const std::vector<SopEntry> entries = read_sop_entries(text, file.string(), options.overrides, &skipped_lines);
  SopValues v(entries);
  v.set_file_name(file.string());
  check_keys(entries, v, file);

  SopRun result;
  result.notes = std::move(skipped_lines);
  auto note = [&](std::string line) { result.notes.push_back(std::move(line)); };
  auto at = [&](std::string_view key) { return v.find(key); };

  // --- keys ermak rejects or ignores ---
  // The keys of a feature switched off are read by nothing, in SOP-GPU as here.
  const bool hi_off = !v.has("hi_on") || !*v.yes_no("hi_on");
  const bool plane_off = !v.has("pullingPlane") || !*v.yes_no("pullingPlane");
  for (const SopEntry& e : entries) {
    const SopKeyInfo* known = find_key(e.key);
    if (!known) continue;  // a macro of the user's own (check_keys)
    const SopKeyInfo& info = *known;
    if (e.key.rfind("hi_", 0) == 0 && e.key != "hi_on" && hi_off) {
      note(fmt::format("{}: no effect: hi_on is {}", e.key, v.has("hi_on") ? "off" : "not on"));
      continue;
    }
    if (info.kind == K::kRejected) {
      if (info.ermak == std::string_view(kSopPullingPlane) && plane_off) {
        note(fmt::format("{}: no effect: pullingPlane is {}", e.key, v.has("pullingPlane") ? "off" : "not on"));
        continue;
      }
      throw Error(e.file, e.line, e.key, fmt::format("not supported yet: {}", info.ermak));
    }
    if (info.kind == K::kNoEffect) note(fmt::format("{} {}: no effect in ermak: {}", e.key, e.value, info.ermak));
  }

  // --- runs: single-run (run) or many-runs (firstrun, runnum) mode ---
  std::vector<std::string> run_names;
  std::int64_t first_run = 0, seed_run = -1;
  if (v.has("run")) {
    if (v.has("firstrun") || v.has("runnum"))
      throw v.error("run", "give either run (one trajectory) or firstrun and runnum (many), not both");
    const std::string run = *v.word("run");
    // The file names keep the run as written ("01"); the seed uses its value.
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(run.data(), run.data() + run.size(), value);
    if (ec != std::errc() || end != run.data() + run.size())
      throw v.error("run", fmt::format("expected an integer run number, got '{}'", run));
    if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max())
      throw v.error("run", fmt::format("out of range: SOP-GPU's run numbers are ints (−2147483648 … 2147483647), "
                                       "got {}", value));
    run_names = {run};
    first_run = value;
    seed_run = value;
  } else {
    if (!v.has("firstrun") || !v.has("runnum"))
      throw v.missing(v.has("firstrun") ? "runnum" : "firstrun",
                      "give run N (one trajectory) or firstrun and runnum (many trajectories)");
    first_run = *v.integer("firstrun");
    const std::int64_t count = *v.integer("runnum");
    if (count < 1 || count > 1000000)
      throw v.error("runnum", fmt::format("out of range: must be 1 … 1000000, got {}", count));
    // SOP-GPU's run numbers are ints; so are the last run's, firstrun + runnum − 1.
    if (first_run < std::numeric_limits<std::int32_t>::min() ||
        first_run > std::numeric_limits<std::int32_t>::max() - (count - 1))
      throw v.error("firstrun", fmt::format("out of range: the runs {} … firstrun + runnum − 1 must be SOP-GPU's ints "
                                            "(−2147483648 … 2147483647)", first_run));
    for (std::int64_t k = 0; k < count; ++k) run_names.push_back(std::to_string(first_run + k));
  }
  const std::size_t replicas = run_names.size();
  auto per_run = [&](const std::string& mask, std::size_t r) { return replace_all(mask, "<run>", run_names[r]); };
  // A file of one run: with several runs it must name the run.
  auto run_file = [&](std::string_view key, const std::string& fallback) -> std::string {
    const SopEntry* e = at(key);
    const std::string mask = e ? *v.word(key) : fallback;
    if (replicas > 1 && mask.find("<run>") == std::string::npos) {
      if (e)
        throw v.error(key, fmt::format("'{}' has no <run> macro: with runnum = {} every run would write the same "
                                       "file; put <run> in the name",
                                       mask, replicas));
    }
    return mask;
  };

  TomlBuilder toml;
  const std::string name = v.word("name").value_or("unnamed");
  const std::string stage = v.word("stage").value_or("");
  const std::string name_author = name + "_" + v.word("author").value_or("");
  if (stage == "minim")
    throw v.error("stage", "not supported yet: SOP-GPU's minimisation stage (ermak's [minimize] is steepest "
                           "descent; write a TOML configuration for it)");
  // SOP-GPU compares the stage exactly, so "Pull" would silently run without the protocol the
  // user meant — unless its own key (pulling on) switches it on; any other word stays a macro
  // for file names.
  for (const auto& [known, switch_key] : {std::pair<std::string_view, std::string_view>{"pull", "pulling"},
                                          {"indent", "indentation"},
                                          {"heat", "heating"}}) {
    const bool same_letters = std::equal(stage.begin(), stage.end(), known.begin(), known.end(), [](char a, char b) {
      return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    });
    if (same_letters && stage != known && !v.yes_no(switch_key).value_or(false))
      throw v.error("stage", fmt::format("'{}' is not a stage: stages are compared exactly (pull, indent, heat), so "
                                         "'{}' would switch no protocol on; write '{}'",
                                         stage, stage, known));
  }

  // --- input ---
  toml.table("input");
  if (!v.has("topology")) throw v.missing("topology", "the SOP-GPU .top file of the model (ermak topology makes one)");
  if (!v.has("coordinates")) throw v.missing("coordinates", "the PDB with the initial coordinates");
  toml.value("topology", toml_quoted(resolve(*v.word("topology")).string()), at("topology"));
  const std::string coordinates = *v.word("coordinates");
  result.coordinates_source = {at("coordinates")->file, at("coordinates")->line, ""};
  toml.value("coordinates", toml_quoted(resolve(per_run(coordinates, 0)).string()), at("coordinates"));
  if (coordinates.find("<run>") != std::string::npos && replicas > 1) {
    std::vector<std::string> files;
    for (std::size_t r = 0; r < replicas; ++r) files.push_back(toml_quoted(resolve(per_run(coordinates, r)).string()));
    toml.value("replica_coordinates", fmt::format("[{}]", fmt::join(files, ", ")), at("coordinates"));
  }

  // --- model ---
  toml.table("model");
  auto real_key = [&](std::string_view sop, const std::string& toml_key) {
    if (const auto x = v.real(sop)) toml.value(toml_key, number(*x), at(sop));
  };
  real_key("kspring_cov", "fene_spring_kcal_per_mol_A2");
  real_key("R_limit", "fene_max_stretch_A");
  real_key("el", "repulsion_energy_kcal_per_mol");
  real_key("a", "repulsion_sigma_A");
  real_key("pairs_cutoff", "pair_cutoff_A");

  // --- run ---
  if (!v.has("numsteps")) throw v.missing("numsteps", "the number of steps");
  if (!v.has("timestep")) throw v.missing("timestep", "the time step in tau_H (e.g. 0.08)");
  const std::int64_t numsteps = *v.integer("numsteps");
  const double timestep = *v.real("timestep");
  if (!(timestep > 0)) throw v.error("timestep", fmt::format("out of range: must be > 0 tau_H, got {}", timestep));
  toml.table("run");
  toml.value("steps", std::to_string(numsteps), at("numsteps"));
  toml.value("replicas", std::to_string(replicas), at(v.has("runnum") ? "runnum" : "run"));
  // SOP-GPU seeds with seed + firstrun + run (run = −1 in many-runs mode); ermak's noise
  // is a pure function of (that seed, replica, bead, step) (docs/rng.md).
  std::int64_t seed = 0;
  const bool seed_from_checkpoint = !v.has("seed") && options.resume;
  if (const auto s = v.integer("seed")) {
    // ermak's seed is a non-negative 64-bit integer; SOP-GPU's sum can fall below 0 (seed 0,
    // firstrun 0, run −1) or beyond the range: say which sum, not just "seed".
    std::int64_t offset = 0;  // firstrun + run first: seed + firstrun − 1 may fit where seed + firstrun does not
    if (__builtin_add_overflow(first_run, seed_run, &offset) || __builtin_add_overflow(*s, offset, &seed) || seed < 0)
      throw v.error("seed", fmt::format("the run's seed is seed + firstrun + run = {} + {} + ({}) (SOP-GPU's rule; run "
                                        "is −1 with runnum), which must lie in 0 … 9223372036854775807: give another "
                                        "seed",
                                        *s, first_run, seed_run));
  } else if (!seed_from_checkpoint) {
    // SOP-GPU takes the clock in seconds, so jobs of an array started in one second ran the
    // same trajectories; microseconds mixed with the system's entropy keep them apart (the
    // replicas' streams differ by replica, so firstrun + run need not be added).
    const auto microseconds =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    std::random_device entropy;
    const std::uint64_t mixed = (std::uint64_t(microseconds) * 0x9E3779B97F4A7C15ull) ^
                                (std::uint64_t(entropy()) << 32 | std::uint64_t(entropy()));
    seed = std::int64_t(mixed >> 1);
    // A given seed gets firstrun + run added (SOP-GPU's rule), so the one that repeats this
    // run is the seed less that sum.
    // Run numbers are ints (above), so the sum fits; the difference may not (a seed near
    // 2⁶³ less a negative sum) or may fall below 0: then no given seed repeats this one.
    const std::int64_t offset = first_run + seed_run;
    std::int64_t repeat = 0;
    const bool repeatable = !__builtin_sub_overflow(seed, offset, &repeat) && repeat >= 0;
    note(fmt::format("seed not given: using the clock and the system's entropy, seed = {} ({}: SOP-GPU's rule adds "
                     "firstrun + run = {} to a given seed; SOP-GPU's clock in seconds gave runs started in one "
                     "second the same trajectories)",
                     seed,
                     repeatable ? fmt::format("`seed {}` repeats the run", repeat)
                                : std::string("no seed key repeats the run with these run numbers"),
                     offset));
  }
  if (!seed_from_checkpoint) toml.value("seed", std::to_string(seed), at("seed"));
  toml.value("timestep_tau", number(timestep), at("timestep"));
  const bool heating = v.yes_no("heating").value_or(false) || stage == "heat";
  if (!heating) toml.value("temperature_kcal_per_mol", number(v.real("temperature").value_or(0.6)), at("temperature"));
  if (const auto zeta = v.real("zeta")) toml.value("friction", number(*zeta), at("zeta"));
  // "auto": the GPU when one answers; the run log says which backend ran and why.
  toml.value("backend", toml_quoted(options.backend.empty() ? std::string("auto") : options.backend), nullptr);
  if (options.backend == "cpu" && v.has("device"))
    note(fmt::format("device {}: no effect with --backend cpu", v.find("device")->raw_value));
  toml.value("threads", std::to_string(options.threads), nullptr);

  // --- heating: T = initialT + deltaT·floor(step/tempFreq), no upper bound in SOP-GPU;
  // ermak's schedule stops at the temperature the last step reaches.
  if (heating) {
    for (const char* key : {"initialT", "deltaT", "tempFreq"})
      if (!v.has(key)) throw v.missing(key, "heating on needs initialT, deltaT and tempFreq");
    const double start = *v.real("initialT"), delta = *v.real("deltaT");
    const std::int64_t every = *v.integer("tempFreq");
    if (every < 1) throw v.error("tempFreq", fmt::format("out of range: must be >= 1, got {}", every));
    const std::int64_t increments = numsteps / every;
    if (v.has("temperature")) note("temperature: no effect with heating on (initialT is the start, as in SOP-GPU)");
    if (delta == 0.0 || increments == 0) {
      toml.value("temperature_kcal_per_mol", number(start), at("initialT"));
      note("heating: the temperature never changes in this run (deltaT = 0 or numsteps < tempFreq)");
    } else {
      toml.table("heating");
      toml.value("start_kcal_per_mol", number(start), at("initialT"));
      toml.value("stop_kcal_per_mol", number(start + delta * double(increments)), at("deltaT"));
      toml.value("increment_kcal_per_mol", number(delta), at("deltaT"));
      toml.value("every_steps", std::to_string(every), at("tempFreq"));
    }
  }

  // --- hydrodynamic interactions: hi_exact picks the exact square root, else TEA
  if (!hi_off) {
    toml.table("hydrodynamics");
    const bool exact = v.yes_no("hi_exact").value_or(false);
    toml.value("method", toml_quoted(exact ? "cholesky" : "tea"), at(v.has("hi_exact") ? "hi_exact" : "hi_on"));
    if (const auto a = v.real("hi_a")) toml.value("radius_A", number(*a), at("hi_a"));
    else note(fmt::format("hi_a not given: the hydrodynamic radius is ermak's default, {:g} Å",
                          HydrodynamicParameters{}.radius_A));
  }

  // --- outputs ---
  SopOutputs& out = result.outputs;
  const std::int64_t nav = v.integer("nav").value_or(1000);
  if (nav < 1) throw v.error("nav", fmt::format("out of range: must be >= 1, got {}", nav));
  auto positive = [&](std::string_view key, std::int64_t fallback) {
    const std::int64_t x = v.integer(key).value_or(fallback);
    if (x < 1) throw v.error(key, fmt::format("out of range: must be >= 1 (steps), got {}", x));
    return x;
  };
  out.energy_every = positive("outputtiming", 10000);
  out.trajectory_every = positive("dcdfreq", 10000);
  out.restart_every = positive("restartfreq", 100000);
  out.native_count_cutoff_A = v.real("R_limit_bond").value_or(kNativeCutoff_A);
  out.native_count_tolerance_A = v.real("R_limit").value_or(2.0);
  out.reference_pdb = resolve(per_run(v.word("reffilename").value_or(name + ".ref.pdb"), 0));
  // SOP-GPU's default names: <name>_<author><run>… (its manual; an `author` the file does
  // not give is left out), the final structure's also with _<stage> (its code).
  const std::string energy_mask = run_file("outputname", "energy." + name_author + "<run>.dat");
  const std::string dcd_mask = run_file("DCDfile", name_author + "<run>.dcd");
  const std::string restart_mask = run_file("restartname", name_author + "<run>_restart");
  const std::string final_mask =
      run_file("finalcoord", name_author + "<run>" + (stage.empty() ? "" : "_" + stage) + "_final.pdb");
  // ermak's checkpoint holds all runs: named after the restart files with the run range.
  const std::string runs_text = replicas == 1 ? run_names.front() : run_names.front() + "-" + run_names.back();
  // The configuration's name tells stages apart: SOP-GPU's WW equilibration and pulling
  // share one restartname.
  const std::string checkpoint_stem =
      replace_all(restart_mask, "<run>", runs_text) + "." + file.stem().string();
  out.checkpoint = resolve(checkpoint_stem + ".ermak.ckpt");
  out.log = resolve(checkpoint_stem + ".ermak.log");

  // --- pulling (SOP-GPU's `pulling on` also carries the fixed beads) ---
  const bool pulling = v.yes_no("pulling").value_or(false) || stage == "pull";
  const bool indentation = v.yes_no("indentation").value_or(false) || stage == "indent";
  std::string pulling_mask, indentation_mask;
  if (pulling) {
    const double deltax = v.real("deltax").value_or(0.0);
    const double fconst = v.real("fconst").value_or(0.0);
    if (deltax == 0.0 && fconst == 0.0)
      throw v.has("deltax") || v.has("fconst")
          ? v.error(v.has("deltax") ? "deltax" : "fconst",
                    "pulling on needs deltax ≠ 0 (constant-velocity pulling) or fconst ≠ 0 (force clamp), as in "
                    "SOP-GPU")
          : v.missing("deltax", "pulling on needs deltax (constant-velocity pulling) or fconst (force clamp), as in "
                                "SOP-GPU");
    if (!v.has("pulled")) throw v.missing("pulled", "pulling on needs the pulled beads");
    const std::string direction = v.word("pullDirection").value_or("endToEnd");
    const bool vector_direction = direction == "vector";
    if (!vector_direction && direction != "endToEnd")
      throw v.error("pullDirection", fmt::format("must be endToEnd or vector, got '{}'", direction));
    // SOP-GPU's defaults: fixedEnd 1 and pulledEnd 2 with a vector, required end to end.
    if (!vector_direction)
      for (const char* key : {"fixedEnd", "pulledEnd"})
        if (!v.has(key)) throw v.missing(key, "pullDirection endToEnd needs fixedEnd and pulledEnd");
    const std::int64_t fixed_end = v.integer("fixedEnd").value_or(1), pulled_end = v.integer("pulledEnd").value_or(2);
    // SOP-GPU does not normalise pullVector: the base moves deltax·|v| per step of pullFreq
    // and the clamp force is fconst·|v|. ermak normalises, so the length goes into them.
    double length = 1.0;
    std::string direction_toml = "\"end_to_end\"";
    if (vector_direction) {
      if (!v.has("pullVector")) throw v.missing("pullVector", "pullDirection vector needs pullVector x y z");
      const Vec3d pv = *v.vector("pullVector");
      length = norm(pv);
      if (!(length > 0)) throw v.error("pullVector", "the pulling vector is zero");
      if (std::abs(length - 1.0) > 1e-6)
        note(fmt::format("pullVector has length {:.6g}: SOP-GPU does not normalise it, so speed and force are "
                         "scaled by it; the pulling file projects on the unit vector",
                         length));
      direction_toml = vec_toml(pv);
    }
    const auto pulled = *v.integer_list("pulled");
    // A force clamp (deltax = 0) puts fconst on every pulled bead in both programs.
    if (deltax != 0.0 && (pulled.size() != 1 || pulled.front() != pulled_end))
      note("pulled differs from pulledEnd: SOP-GPU attaches one spring at pulledEnd and applies its force to every "
           "pulled bead; ermak attaches one spring per pulled bead");
    const SopEntry* direction_entry = at(vector_direction ? "pullVector" : "pullDirection");
    if (deltax != 0.0) {
      const std::int64_t pull_every = v.integer("pullFreq").value_or(nav);
      if (pull_every < 1) throw v.error("pullFreq", fmt::format("out of range: must be >= 1, got {}", pull_every));
      // SOP-GPU moves the base by deltax every pullFreq steps (pulling.cu); ermak moves
      // it continuously at the same mean speed.
      const double speed = deltax * length / (double(pull_every) * timestep);
      toml.table("pulling");
      toml.value("pulled_beads", int_list(pulled), at("pulled"));
      toml.value("speed_A_per_tau", number(speed), at("deltax"));
      toml.value("spring_kcal_per_mol_A2", number(v.real("k_trans").value_or(0.05)), at("k_trans"));
      toml.value("direction", direction_toml, direction_entry);
      toml.value("ends", fmt::format("[{}, {}]", fixed_end, pulled_end), at("pulledEnd"));
      toml.value("output_every", std::to_string(pull_every), at("pullFreq"));
      out.pulling_every = pull_every;
      out.pulling_spring = v.real("k_trans").value_or(0.05);
      pulling_mask = run_file("pullOutput", "pull." + name_author + "<run>.dat");
      // With deltax ≠ 0 SOP-GPU's cantilever update replaces the fconst force it started the
      // pulled beads with (pulling.cu) before the first step: the spring sets the force.
      if (v.has("fconst") && fconst != 0.0)
        note(fmt::format("fconst {}: no effect with deltax ≠ 0: the cantilever's spring sets the force, as in "
                         "SOP-GPU (a force clamp needs deltax 0)",
                         v.find("fconst")->raw_value));
    } else {
      if (v.has("pullOutput")) note("pullOutput: not written with fconst (deltax = 0), as in SOP-GPU");
      // Its rows and the base's moves are all it sets; the checkpoint's record of the outputs
      // keeps "pullFreq 0" (no pulling file) so that such runs still resume.
      if (v.has("pullFreq")) note("pullFreq: no effect with fconst (deltax = 0): no base moves and no pulling file");
      note(fmt::format("pulling with deltax = 0: a constant force fconst = {} kcal/mol/Å ({:.4g} pN) on beads {}, "
                       "as in SOP-GPU",
                       fconst * length, fconst * length * units::pN_per_kcal_per_mol_A, int_list(pulled)));
      // PF8's indentation configuration pulls with fconst while indenting: [force_clamp]
      // and [indentation] combine (docs/protocols.md).
      toml.table("force_clamp");
      toml.value("pulled_beads", int_list(pulled), at("pulled"));
      toml.value("force_kcal_per_mol_A", number(fconst * length), at("fconst"));
      toml.value("direction", direction_toml, direction_entry);
      toml.value("ends", fmt::format("[{}, {}]", fixed_end, pulled_end), at("pulledEnd"));
    }
    if (const auto fixed = v.integer_list("fixed"); fixed && !fixed->empty()) {
      toml.table("fixed");
      toml.value("beads", int_list(*fixed), at("fixed"));
    }
  } else {
    for (const char* key : {"fixed", "pulled", "deltax", "fconst", "k_trans", "pullDirection", "pullVector",
                            "fixedEnd", "pulledEnd", "pullFreq", "pullOutput"})
      if (v.has(key)) note(fmt::format("{}: no effect without pulling on (as in SOP-GPU)", key));
  }

  // --- indentation ---
  if (indentation) {
    for (const char* key : {"indentationChip", "indentationDirection", "indentationTipR", "indentationDeltaX",
                            "indentationSurfaceR0", "indentationSurfaceN"})
      if (!v.has(key)) throw v.missing(key, "indentation on needs it (SOP-GPU requires it too)");
    if (!v.has("indentationKs") && !v.has("indentationTipKs"))
      throw v.missing("indentationKs", "indentation on needs the cantilever spring (indentationKs)");
    if (v.has("indentationKs") && v.has("indentationTipKs"))
      throw v.error("indentationTipKs", "give indentationKs or indentationTipKs (the same spring), not both");
    const char* spring_key = v.has("indentationKs") ? "indentationKs" : "indentationTipKs";
    const double sigma = v.real("indentationSigma").value_or(1.0), el = v.real("indentationEl").value_or(1.0);
    toml.table("indentation");
    toml.value("tip_radius_A", number(*v.real("indentationTipR")), at("indentationTipR"));
    toml.value("tip_friction", number(v.real("indentationTipZeta").value_or(5000.0)), at("indentationTipZeta"));
    const Vec3d chip = *v.vector("indentationChip");
    toml.value("tip_position_A", vec_toml(v.vector("indentationTip").value_or(chip)),
               at(v.has("indentationTip") ? "indentationTip" : "indentationChip"));
    toml.value("base_position_A", vec_toml(chip), at("indentationChip"));
    // SOP-GPU moves a moving surface along +indentationDirection (indentation.cu: micaR0 +
    // direction·dx), so its inputs point the direction from the surface to the tip; ermak's
    // direction points from the tip to the surface, and its moving surface moves against it
    // (docs/protocols.md#indentation): reversed, the surface moves as in SOP-GPU.
    const bool moving_surface = v.yes_no("indentationMoveSurface").value_or(false);
    const Vec3d direction = *v.vector("indentationDirection");
    const Vec3d ermak_direction = moving_surface ? Vec3d{0.0 - direction.x, 0.0 - direction.y, 0.0 - direction.z}
                                                 : direction;
    toml.value("direction", vec_toml(ermak_direction), at("indentationDirection"));
    if (moving_surface)
      note(fmt::format("indentationMoveSurface yes: SOP-GPU moves the surface along indentationDirection; ermak's "
                       "indentation.direction points from the tip to the surface, so it is the reverse, {} (the "
                       "surface moves as in SOP-GPU; the tip's line is the same)",
                       vec_toml(ermak_direction)));
    toml.value("spring_kcal_per_mol_A2", number(*v.real(spring_key)), at(spring_key));
    // SOP-GPU moves the base by indentationDeltaX every nav steps (indentation.cu).
    toml.value("speed_A_per_tau", number(*v.real("indentationDeltaX") / (double(nav) * timestep)),
               at("indentationDeltaX"));
    toml.value("tip_A", number(v.real("indentationTipA").value_or(0.0)), at("indentationTipA"));
    toml.value("tip_B", number(v.real("indentationTipB").value_or(1.0)), at("indentationTipB"));
    toml.value("tip_sigma_A", number(v.real("indentationTipSigma").value_or(sigma)), at("indentationTipSigma"));
    toml.value("tip_epsilon_kcal_per_mol", number(v.real("indentationTipEl").value_or(el)), at("indentationTipEl"));
    // SOP-GPU's default is "no" (free tip); ermak's TOML default is true.
    toml.value("tip_along_direction_only", v.yes_no("indentationFixTrans").value_or(false) ? "true" : "false",
               at("indentationFixTrans"));
    toml.value("move_surface", moving_surface ? "true" : "false", at("indentationMoveSurface"));
    if (const auto step = v.integer("indentationRetractionStep"); step && *step >= 0)
      toml.value("retract_at_step", std::to_string(*step), at("indentationRetractionStep"));
    out.indentation_every = positive("indentationOutputFreq", 1000);
    toml.value("output_every", std::to_string(out.indentation_every), at("indentationOutputFreq"));
    toml.table("indentation.surface");
    const bool discrete = v.yes_no("indentationDiscreteSurf").value_or(false);
    toml.value("type", discrete ? "\"beads\"" : "\"plane\"", at("indentationDiscreteSurf"));
    toml.value("point_A", vec_toml(*v.vector("indentationSurfaceR0")), at("indentationSurfaceR0"));
    toml.value("normal", vec_toml(*v.vector("indentationSurfaceN")), at("indentationSurfaceN"));
    // The TOML reader's note that the tip moves away from the surface, in this file's terms
    // (its notes are replaced by these below). SOP-GPU's normal points from the surface to
    // the molecule, as ermak's does.
    if (dot(ermak_direction, *v.vector("indentationSurfaceN")) >= 0.0)
      note(moving_surface
               ? "indentationMoveSurface yes with indentationDirection · indentationSurfaceN <= 0: the surface "
                 "moves away from the tip, and no indentation presses the molecule onto it"
               : "indentationDirection does not point towards the surface (indentationDirection · "
                 "indentationSurfaceN >= 0): the tip moves away from it, and no indentation presses the molecule "
                 "onto the surface");
    toml.value("A", number(v.real("indentationSurfA").value_or(0.0)), at("indentationSurfA"));
    toml.value("B", number(v.real("indentationSurfB").value_or(1.0)), at("indentationSurfB"));
    toml.value("sigma_A", number(v.real("indentationSurfSigma").value_or(sigma)), at("indentationSurfSigma"));
    toml.value("epsilon_kcal_per_mol", number(v.real("indentationSurfEl").value_or(el)), at("indentationSurfEl"));
    // SOP-GPU's tip does not feel the substrate (docs/protocols.md#tip-surface).
    toml.value("tip_interaction", "false", nullptr);
    if (discrete) {
      toml.value("spacing_A", number(v.real("indentationSurfaceStep").value_or(10.0)), at("indentationSurfaceStep"));
      toml.value("grid_size", std::to_string(v.integer("indentationSurfaceSize").value_or(51)),
                 at("indentationSurfaceSize"));
    }
    indentation_mask = run_file("indentationOutput", "indentation." + name_author + "<run>.dat");
    if (replicas > 1) note("indentation with several runs: SOP-GPU refuses it, ermak runs every replica");
  }

  // --- ermak's own outputs, when asked ---
  toml.table("output");
  if (options.ermak_output_directory) {
    result.ermak_outputs = true;
    toml.value("directory", toml_quoted(resolve(options.ermak_output_directory->string()).string()), nullptr);
  }
  toml.value("energy_every", std::to_string(out.energy_every), at("outputtiming"));
  toml.value("trajectory_every", std::to_string(out.trajectory_every), at("dcdfreq"));
  toml.value("checkpoint_every", std::to_string(out.restart_every), at("restartfreq"));

  // --- per-run file names ---
  // Each run's names as the file gives them (relative to the working directory, as SOP-GPU
  // opens them) and resolved: a resumed run must write the same names, wherever the
  // project directory has moved.
  std::vector<SopRunFiles> runs_as_written;
  for (std::size_t r = 0; r < replicas; ++r) {
    SopRunFiles f;
    f.run = run_names[r];
    f.energy = per_run(energy_mask, r);
    f.trajectory = per_run(dcd_mask, r);
    f.restart_pdb = per_run(restart_mask, r) + ".pdb";
    f.final_pdb = per_run(final_mask, r);
    if (!pulling_mask.empty()) f.pulling = per_run(pulling_mask, r);
    if (!indentation_mask.empty()) f.indentation = per_run(indentation_mask, r);
    runs_as_written.push_back(f);
    for (fs::path* p : {&f.energy, &f.trajectory, &f.restart_pdb, &f.final_pdb, &f.pulling, &f.indentation})
      if (!p->empty()) *p = resolve(p->string());
    out.runs.push_back(std::move(f));
  }

  // --- validation and resolution by the TOML reader, errors mapped back to .sop lines ---
  const std::string document = toml.str();
  RunSpec spec;
  try {
    spec = parse_run_spec(document, file);
  } catch (const Error& e) {
    const auto& origin = toml.origin();
    std::string field = e.field();
    // "pulling.pulled_beads[2]" → "pulling.pulled_beads"
    auto it = origin.find(field);
    if (it == origin.end()) it = origin.find(field.substr(0, field.find('[')));
    if (it != origin.end()) throw Error(it->second->file, it->second->line, it->second->key, e.description());
    throw Error(file.string(), 0, field, e.description());
  }
  spec.config_path = file;
  if (seed_from_checkpoint) {
    // --resume without a seed in the file: the run's seed is the checkpoint's.
    if (!fs::exists(out.checkpoint))
      throw Error(out.checkpoint.string(), 0, "", "no checkpoint to resume from (it also holds the clock seed)");
    spec.seed = read_checkpoint(out.checkpoint).seed;
  }
  if (const auto device = v.integer("device")) {
    if (*device < 0 || *device > std::numeric_limits<std::int32_t>::max())
      throw v.error("device", fmt::format("out of range: a GPU index 0 … 2147483647, got {}", *device));
    spec.device = int(*device);
  }
  if (!result.ermak_outputs) spec.output.write_directory = false;
  spec.output.checkpoint_file = out.checkpoint;
  spec.output.log_file = out.log;
  // Bead lists are checked against the model later; point those messages at the .sop lines.
  for (const auto& [field, entry] : toml.origin()) {
    if (spec.key_sources.count(field)) spec.key_sources[field] = {entry->file, entry->line, entry->key};
    spec.file_key_names[field] = entry->key;
  }
  // The two ends come from two keys: a check of one end names its own (check_beads looks
  // for "table.ends[k]" first).
  for (const char* table : {"pulling", "force_clamp"})
    for (const auto& [k, key] : {std::pair<int, const char*>{0, "fixedEnd"}, {1, "pulledEnd"}})
      if (const SopEntry* entry = v.find(key))
        spec.key_sources[fmt::format("{}.ends[{}]", table, k)] = {entry->file, entry->line, entry->key};
  spec.resolved_toml = resolved_toml(spec);
  // SOP-GPU output settings are part of what a resumed run must share (the step count
  // excepted): they go into the fingerprinted text as comments, the file names as written
  // (checkpoints before 2026-11-29 have them resolved: the earlier form).
  auto outputs_text = [&](const std::vector<SopRunFiles>& runs) {
    std::string extra = "\n# SOP-GPU outputs (ermak run FILE.sop)\n";
    extra += fmt::format("# outputtiming {} dcdfreq {} restartfreq {} pullFreq {} indentationOutputFreq {}\n",
                         out.energy_every, out.trajectory_every, out.restart_every, out.pulling_every,
                         out.indentation_every);
    for (const SopRunFiles& f : runs)
      extra += fmt::format("# run {}: {} {} {} {} {} {}\n", f.run, f.energy.string(), f.trajectory.string(),
                           f.restart_pdb.string(), f.final_pdb.string(), f.pulling.string(), f.indentation.string());
    return extra;
  };
  spec.earlier_resolved_toml.push_back(spec.resolved_toml + outputs_text(out.runs));
  spec.resolved_toml += outputs_text(runs_as_written);
  note(fmt::format("SOP-GPU runs numsteps + one output interval (its loop includes the last interval); ermak runs "
                   "exactly numsteps = {}",
                   numsteps));
  // The translation's notes, in this file's terms, replace the TOML reader's (which name TOML
  // keys; each has its .sop form above).
  spec.notes = result.notes;
  spec.set_overrides = options.overrides;
  result.spec = std::move(spec);
  return result;
}

SopRun load_sopgpu_run(const fs::path& file, const SopLoadOptions& options) {
  check_text_input_file(file, "");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file.string(), 0, "", "cannot open the configuration file");
  std::ostringstream text;
  text << in.rdbuf();
  SopRun run = parse_sopgpu_run(text.str(), file, options);
  // Per-run initial coordinates (e.g. the final structures of an equilibration) must all
  // exist; name the run whose file is missing.
  const auto& input = run.spec.input;
  for (std::size_t r = 0; r < input.replica_coordinates.size(); ++r)
    if (!fs::exists(input.replica_coordinates[r]))
      throw Error(run.coordinates_source.file, run.coordinates_source.line, "coordinates",
                  fmt::format("the initial coordinates of run {} do not exist: {}{}", run.outputs.runs[r].run,
                              input.replica_coordinates[r].string(),
                              options.resume ? " (--resume needs the --set overrides the run started with, such as "
                                               "its runnum or firstrun)"
                                             : ""));
  return run;
}

}  // namespace ermak
