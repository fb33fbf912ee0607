#include "ermak/app/topology_from_sop.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/io/cg_description.h"
#include "ermak/io/cg_model_builder.h"
#include "ermak/io/pair_search.h"
#include "ermak/io/pdb_coordinates.h"
#include "ermak/io/psf_writer.h"
#include "ermak/io/same_file.h"
#include "ermak/io/sopgpu_top.h"
#include "ermak/io/sopgpu_topology_config.h"
#include "ermak/io/structure_model.h"
#include "ermak/io/topology_builder.h"

namespace ermak::app {
namespace {

namespace fs = std::filesystem;

constexpr double kSopTopPairsThreshold_A = 1000.0;  // sop-top's default pairs_threshold
constexpr std::size_t kMaxPairs = 50'000'000;       // a larger [ pairs ] is surely a mistake

std::string num(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

// sop-top's [ pairs ]: every pair that is neither bonded nor native and whose native
// distance (SOP-GPU's float arithmetic) is below the threshold, in (i, j) order.
std::vector<std::pair<int, int>> pairs_within(const Topology& t, double threshold_A, const std::string& config) {
  const ExclusionList exclusions = build_exclusions(t);
  const float limit = static_cast<float>(threshold_A);
  std::vector<std::pair<int, int>> pairs;
  for_each_close_pair(t.native_positions_A, threshold_A + 1e-3, [&](std::int32_t i, std::int32_t j, double) {
    if (exclusions.excluded(i, j)) return;
    if (!(sopgpu_distance(t.native_positions_A[i], t.native_positions_A[j]) < limit)) return;
    pairs.emplace_back(std::min(i, j), std::max(i, j));
    if (pairs.size() > kMaxPairs)
      throw Error(config, 0, "pairs_threshold",
                  "more than " + std::to_string(kMaxPairs) + " repulsive pairs within " + num(threshold_A) +
                      " A for [ pairs ]; give a smaller pairs_threshold (ermak's runs find repulsive pairs "
                      "themselves; pairs_threshold 0 writes none)");
  });
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// `t` without its FENE bonds: written with its native contacts as bonds, sop-top2's
// topology_natpsf (whose header then says so, rather than counting the contacts as FENE bonds).
Topology without_bonds(const Topology& t) {
  Topology out = t;
  out.bonds.clear();
  return out;
}

void line(std::string& out, const std::string& key, const std::string& value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%-17s", key.c_str());
  out += buffer + value + "\n";
}

}  // namespace

int run_topology_from_sop(const fs::path& config_file, bool force, bool quiet) {
  const std::string config_name = config_file.string();
  const SopTopologyConfig cfg = read_sopgpu_topology_config(config_file);
  const bool cg = cfg.style == SopTopologyStyle::SopTop2;

  // Input files that are not there, named at the configuration's line (paths are relative
  // to the working directory, as in SOP-GPU).
  for (const auto& [key, path] : {std::pair<const char*, const fs::path*>{"structure", &cfg.structure},
                                  {"cgconfig", &cfg.cgconfig}, {"additional_bonds", &cfg.additional_bonds}}) {
    std::error_code ec;
    if (!path->empty() && !fs::is_regular_file(*path, ec)) {
      const auto line = cfg.key_lines.find(key);
      throw Error(config_name, line == cfg.key_lines.end() ? 0 : line->second, key,
                  "file not found: " + fs::absolute(*path).lexically_normal().string() +
                      " (a relative path is relative to the working directory, as in SOP-GPU)");
    }
  }
  // Outputs: decided and checked before anything is read or written.
  std::vector<std::pair<std::string, fs::path>> outputs = {{"topology", cfg.topology},
                                                           {"coordinates", cfg.coordinates}};
  if (!cfg.topology_psf.empty()) outputs.emplace_back("topology_psf", cfg.topology_psf);
  if (!cfg.topology_natpsf.empty()) outputs.emplace_back("topology_natpsf", cfg.topology_natpsf);
  for (std::size_t a = 0; a < outputs.size(); ++a) {
    const auto& [key, path] = outputs[a];
    for (std::size_t b = 0; b < a; ++b)
      if (fs::path(path).lexically_normal() == fs::path(outputs[b].second).lexically_normal())
        throw Error(config_name, 0, key, "'" + path.string() + "' is also the " + outputs[b].first + " output");
    for (const fs::path& input : {config_file, cfg.structure, cfg.cgconfig, cfg.additional_bonds})
      if (!input.empty() && same_file(path, input))
        throw Error(config_name, 0, key, "'" + path.string() + "' would overwrite an input file");
    std::error_code ec;
    // /dev/null takes an unwanted output (a SOP-GPU habit); a FIFO would block the writer and a
    // directory fail it after the other files are written.
    if (fs::is_fifo(path, ec) || fs::is_directory(path, ec) || fs::is_socket(path, ec))
      throw Error(path.string(), 0, key, "exists and is a directory, FIFO or socket, not a file to write");
    if (!force && fs::exists(path, ec))
      throw Error(path.string(), 0, key, "already exists; use --force to overwrite");
  }

  const ParsedStructure parsed = read_structure_file(cfg.structure, cfg.eh_source);
  StructureModel model = extract_structure_model(parsed, cfg.structure.string(), {});
  // SOP-GPU's topology tools build the file's chains only: say so when its NCS operators
  // would build more, as `ermak topology` does (ermak topology FILE --assembly ncs builds them).
  if (std::string note = ncs_copies_note(model.ncs_operators.size()); !note.empty())
    model.warnings.push_back(std::move(note));

  BuiltTopology built;
  std::string model_text;
  if (cg) {
    const CgDescription description = read_cg_description(cfg.cgconfig);
    CgModelOptions o;
    o.r_limit_A = cfg.r_limit_A;
    o.sc_limit_A = cfg.sc_limit_A;
    o.eh_source = cfg.eh_source;
    o.eh_kcal_per_mol = cfg.eh_kcal_per_mol;
    if (cfg.break_distance_A) o.break_distance_A = *cfg.break_distance_A;
    o.additional_bonds_file = cfg.additional_bonds;
    built = build_cg_topology(model, description, o);
    model_text = "sop-top2 style: beads from " + cfg.cgconfig.string() + " (" +
                 std::to_string(description.residues.size()) + " residue types)";
  } else {
    TopologyOptions o;
    o.model_type = ModelType::CAlpha;
    o.r_limit_A = cfg.r_limit_A;
    o.sc_limit_A = cfg.sc_limit_A;
    o.eh_source = cfg.eh_source;
    o.eh_kcal_per_mol = cfg.eh_kcal_per_mol;
    if (cfg.break_distance_A) o.break_distance_A = *cfg.break_distance_A;
    built = build_topology(model, o);
    model_text = "sop-top style: one bead per residue at CA";
  }
  Topology& t = built.topology;
  t.name = fs::path(cfg.topology).stem().string();
  validate_topology(t, cfg.structure.string());

  const std::optional<double> threshold =
      cfg.pairs_threshold_A ? cfg.pairs_threshold_A
                            : (cg ? std::nullopt : std::optional<double>(kSopTopPairsThreshold_A));
  std::vector<std::pair<int, int>> pairs;
  // 0 when none is written: a plain double keeps gcc from a -Wmaybe-uninitialized false
  // positive on the optional in the summary below.
  const double pairs_threshold_A = threshold.value_or(0.0);
  const bool write_pairs = pairs_threshold_A > 0.0;
  if (write_pairs) pairs = pairs_within(t, pairs_threshold_A, config_name);

  for (const auto& [key, path] : outputs) {
    std::error_code ec;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
    if (ec) throw Error(path.string(), 0, key, "cannot create the directory: " + ec.message());
  }
  write_sopgpu_top(t, cfg.topology, write_pairs ? &pairs : nullptr);
  std::vector<float> x, y, z;
  for (const Vec3d& p : t.native_positions_A) {
    x.push_back(static_cast<float>(p.x));
    y.push_back(static_cast<float>(p.y));
    z.push_back(static_cast<float>(p.z));
  }
  write_pdb(cfg.coordinates, t, x.data(), y.data(), z.data(),
            "ermak topology " + config_file.filename().string() + " from " + cfg.structure.filename().string());
  if (!cfg.topology_psf.empty()) write_psf(cfg.topology_psf, t, false, /*overwrite=*/true);
  if (!cfg.topology_natpsf.empty())
    write_psf(cfg.topology_natpsf, without_bonds(t), /*native_contacts_as_bonds=*/true, /*overwrite=*/true);

  if (quiet) return 0;
  std::map<BondKind, int> bonds;
  for (BondKind k : built.bond_kinds) ++bonds[k];
  int by_distance = 0;
  for (ContactReason r : built.contact_reasons) by_distance += r == ContactReason::BeadDistance ? 1 : 0;
  int sidechain = 0;
  for (std::uint8_t s : built.sidechain_bead) sidechain += s;
  std::string out = "# ermak topology " + config_name + "\n";
  line(out, "structure", cfg.structure.string() + " (" + std::to_string(model.residues.size()) + " residues)");
  line(out, "model", model_text);
  line(out, "native rule",
       std::string(cg ? "not bonded and no common bonded neighbour" : "more than 2 residues apart along a chain, "
                                                                       "not bonded") +
           "; bead distance < " + num(cfg.r_limit_A) + " A" +
           (cfg.sc_limit_A > 0 ? " or " + std::string(cg ? "represented" : "side-chain heavy") + "-atom distance < " +
                                     num(cfg.sc_limit_A) + " A"
                               : ""));
  const bool from_column = cfg.eh_text == "B" || cfg.eh_text == "b" || cfg.eh_text == "O" || cfg.eh_text == "o";
  // Depths from a column: their range, which raw B-factors can make deep.
  std::string eh_range;
  if (from_column && !t.native_contacts.empty()) {
    const auto [lo, hi] = native_energy_range(t);
    eh_range = "; " + num(lo) + " to " + num(hi) + " kcal/mol over the contacts";
  }
  line(out, "epsilon_h", (cfg.eh_text == "B" || cfg.eh_text == "b"   ? "sqrt of the two beads' B-factor means"
                          : cfg.eh_text == "O" || cfg.eh_text == "o" ? "sqrt of the two beads' occupancy means"
                                                                     : cfg.eh_text + " kcal/mol") +
                             eh_range);
  line(out, "beads", std::to_string(t.bead_count()) + " (" + std::to_string(t.bead_count() - sidechain) + " CA, " +
                         std::to_string(sidechain) + " other)");
  line(out, "bonds", std::to_string(t.bonds.size()) + " (between residues " + std::to_string(bonds[BondKind::Backbone]) +
                         ", within residues " + std::to_string(bonds[BondKind::CaCb]) + ", disulfide " +
                         std::to_string(bonds[BondKind::Disulfide]) + ", extra " + std::to_string(bonds[BondKind::Extra]) +
                         ")");
  line(out, "native contacts", std::to_string(t.native_contacts.size()) + " (bead distance " +
                                   std::to_string(by_distance) + ", atoms only " +
                                   std::to_string(t.native_contacts.size() - by_distance) + ")");
  line(out, "repulsive pairs", std::to_string(built.repulsive_pairs) + " (all other pairs); [ pairs ] in the .top: " +
                                   (write_pairs ? std::to_string(pairs.size()) + " within " +
                                                      num(pairs_threshold_A) + " A"
                                                : std::string("none")));
  for (const std::string& n : cfg.notes) out += "note: " + n + "\n";
  // What reading the structure found (chains after TER, NCS operators, skipped residues), then
  // what building the model did.
  for (const std::string& w : model.warnings) out += "warning: " + w + "\n";
  for (const std::string& w : built.warnings) out += "warning: " + w + "\n";
  for (const auto& [key, path] : outputs) line(out, key, path.string());
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace ermak::app
