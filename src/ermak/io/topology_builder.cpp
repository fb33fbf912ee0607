#include "ermak/io/topology_builder.h"

#include <fmt/format.h>

#include <cerrno>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "ermak/core/error.h"
#include "ermak/io/chain_names.h"
#include "ermak/io/input_file.h"
#include "ermak/io/pair_search.h"
#include "ermak/io/text_fields.h"
#include "ermak/model/chain_positions.h"

namespace ermak {
namespace {

constexpr std::int32_t kNone = -1;
constexpr std::size_t kListedWarnings = 20;  // of one kind; the rest are counted

std::uint64_t pair_key(std::int32_t i, std::int32_t j) {
  if (i > j) std::swap(i, j);
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(i)) << 32) | static_cast<std::uint32_t>(j);
}
std::int32_t key_i(std::uint64_t k) { return static_cast<std::int32_t>(k >> 32); }
std::int32_t key_j(std::uint64_t k) { return static_cast<std::int32_t>(k & 0xffffffffu); }

bool is_backbone_atom(const std::string& name) {
  return name == "N" || name == "CA" || name == "C" || name == "O";
}

std::string fmt(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string residue_key(const std::string& chain, int number, char icode, int copy = 0) {
  return chain + '\x1f' + std::to_string(number) + (icode == '\0' ? ' ' : icode) + '\x1f' +
         std::to_string(copy);
}

// Keeps the first kListedWarnings messages of a kind and counts the rest.
class WarningList {
 public:
  explicit WarningList(std::vector<std::string>& out) : out_(out) {}
  void add(const std::string& kind, const std::string& message) {
    if (++count_[kind] <= static_cast<int>(kListedWarnings)) out_.push_back(message);
  }
  void finish() {
    for (const auto& [kind, count] : count_)
      if (count > static_cast<int>(kListedWarnings))
        out_.push_back("... and " + std::to_string(count - kListedWarnings) + " more " + kind);
  }

 private:
  std::vector<std::string>& out_;
  std::map<std::string, int> count_;
};

struct Builder {
  const StructureModel& model;
  const TopologyOptions& options;
  BuiltTopology out;
  WarningList warn{out.warnings};

  std::vector<std::int32_t> chain_of_residue;
  std::vector<std::int32_t> ca_bead, sc_bead;  // per residue; sc_bead kNone when absent
  std::vector<Vec3d> bead_position;
  std::unordered_set<std::uint64_t> bonded;
  std::vector<std::pair<std::uint64_t, BondKind>> bonds;

  Builder(const StructureModel& m, const TopologyOptions& o) : model(m), options(o) {}

  [[noreturn]] void fail_coincident(std::int32_t i, std::int32_t j) const {
    const auto& beads = out.topology.beads;
    throw Error(model.source, 0, "structure",
                "beads " + model.residues[out.residue_of_bead[i]].label() + " " + beads[i].atom_name + " and " +
                    model.residues[out.residue_of_bead[j]].label() + " " + beads[j].atom_name +
                    " are at the same position (duplicated atoms or overlapping copies?)");
  }

  // Residues along each chain (model/chain_positions.h), set by backbone_bonds.
  std::vector<ChainResidue> chain_residues;
  std::vector<std::int64_t> along_chain;

  bool near_in_sequence(std::int32_t ra, std::int32_t rb) const {
    return within_two_along_chain(chain_residues, along_chain, std::size_t(ra), std::size_t(rb));
  }

  bool add_bond(std::int32_t i, std::int32_t j, BondKind kind) {
    const std::uint64_t key = pair_key(i, j);
    if (!bonded.insert(key).second) return false;
    bonds.emplace_back(key, kind);
    return true;
  }

  void make_beads() {
    std::map<std::string, std::int32_t> chain_index;
    const bool cacb = options.model_type == ModelType::CAlphaCBeta;
    Topology& top = out.topology;
    for (std::size_t r = 0; r < model.residues.size(); ++r) {
      const StructureResidue& res = model.residues[r];
      chain_of_residue.push_back(
          chain_index.emplace(res.chain_id, static_cast<std::int32_t>(chain_index.size())).first->second);
      const StructureAtom* ca = res.find("CA");  // present: extract_structure_model checks
      BeadInfo bead;
      bead.chain_id = res.chain_id;
      bead.residue_number = res.number;
      bead.insertion_code = res.icode;
      bead.residue_name = res.name;
      bead.atom_name = "CA";
      bead.occupancy = ca->occupancy;
      bead.b_factor = ca->b_factor;
      bead.mass_amu = res.weight_amu;

      // Side-chain bead: centroid of the side-chain heavy atoms (not OXT), or CB.
      auto add_bead = [&](const BeadInfo& info, const Vec3d& position, bool side) {
        top.beads.push_back(info);
        bead_position.push_back(position);
        out.residue_of_bead.push_back(static_cast<std::int32_t>(r));
        out.sidechain_bead.push_back(side ? 1 : 0);
        return static_cast<std::int32_t>(top.beads.size() - 1);
      };
      if (cacb && res.name != "GLY") {
        // The bead represents the side chain's heavy atoms whatever places it (their centroid,
        // or with --sidechain-bead cb the CB atom): its occupancy and B-factor, which --eh O/B
        // turn into contact energies, are their means either way (docs/topology.md).
        Vec3d sum{};
        double occupancy = 0, b = 0, side_mass = 0;
        int count = 0, represented = 0;
        for (const StructureAtom& a : res.atoms) {
          if (is_backbone_atom(a.name) || a.name == "OXT") continue;
          side_mass += a.mass_amu;
          occupancy += a.occupancy;
          b += a.b_factor;
          ++represented;
          if (options.sidechain_bead == SidechainBead::CBeta && a.name != "CB") continue;
          sum += a.position_A;
          ++count;
        }
        if (count > 0) {
          BeadInfo side = bead;
          side.atom_name = "CB";
          side.occupancy = static_cast<float>(occupancy / represented);
          side.b_factor = static_cast<float>(b / represented);
          // Informational: the side chain's heavy atoms; the backbone bead keeps the rest.
          side.mass_amu = static_cast<float>(side_mass);
          if (bead.mass_amu > side.mass_amu) bead.mass_amu -= side.mass_amu;
          ca_bead.push_back(add_bead(bead, ca->position_A, false));
          sc_bead.push_back(add_bead(side, (1.0 / count) * sum, true));
          continue;
        }
        ++out.residues_without_sidechain_bead;
        warn.add("residues without side-chain bead",
                 "residue " + res.label() + " has no " +
                     (options.sidechain_bead == SidechainBead::CBeta ? "CB atom" : "side-chain heavy atom") +
                     "; no side-chain bead");
      }
      ca_bead.push_back(add_bead(bead, ca->position_A, false));
      sc_bead.push_back(kNone);
    }
    top.native_positions_A = bead_position;
    out.residues = static_cast<int>(model.residues.size());
  }

  // Residue r starts a part of the chain of residue r - 1 (after TER): say where their
  // C-alphas are close enough to have been bonded.
  void note_parts_within_bond_distance(std::size_t r) {
    const StructureResidue& end = model.residues[r - 1];
    const StructureResidue& start = model.residues[r];
    if (end.source_chain != start.source_chain || end.copy != start.copy) return;
    const double d = norm(bead_position[ca_bead[r]] - bead_position[ca_bead[r - 1]]);
    if (d > options.break_distance_A) return;
    warn.add("chain parts within bond distance",
             parts_within_bond_distance_note(end.source_chain, end.label(), start.label(), d, options.break_distance_A));
  }

  void backbone_bonds() {
    chain_residues.resize(model.residues.size());
    for (std::size_t r = 0; r < model.residues.size(); ++r)
      chain_residues[r] = {chain_of_residue[r], model.residues[r].number, false};
    for (std::size_t r = 1; r < model.residues.size(); ++r) {
      if (chain_of_residue[r] != chain_of_residue[r - 1]) {
        note_parts_within_bond_distance(r);
        continue;
      }
      const std::int32_t a = ca_bead[r - 1], b = ca_bead[r];
      const double d = norm(bead_position[b] - bead_position[a]);
      if (d > options.break_distance_A) {
        ++out.chain_breaks;
        warn.add("chain breaks", "chain break between " + model.residues[r - 1].label() + " and " +
                                     model.residues[r].label() + " (C-alpha distance " + fmt("%.2f", d) +
                                     " A > " + fmt("%g", options.break_distance_A) + " A): no bond" +
                                     residues_missing_between(model.residues[r - 1].number, model.residues[r].number, model.skipped_hetero_amino_acids > 0, model.residues[r].icode, model.residues[r - 1].icode, model.skipped_no_ca > 0));
        continue;
      }
      add_bond(a, b, BondKind::Backbone);
      chain_residues[r].bonded_to_previous = true;
    }
    along_chain = chain_positions(chain_residues);
    if (options.model_type == ModelType::CAlphaCBeta)
      for (std::size_t r = 0; r < model.residues.size(); ++r)
        if (sc_bead[r] != kNone) add_bond(ca_bead[r], sc_bead[r], BondKind::CaCb);
  }

  std::int32_t disulfide_bead(std::int32_t r) const { return sc_bead[r] != kNone ? sc_bead[r] : ca_bead[r]; }

  void disulfide_bonds() {
    const DisulfideSource source = options.disulfides;
    if (source == DisulfideSource::None) return;
    const bool use_records = source == DisulfideSource::Records ||
                             (source == DisulfideSource::Auto && !model.disulfides.empty());
    if (use_records) {
      std::unordered_map<std::string, std::int32_t> by_source;
      int copies = 0;
      for (std::size_t r = 0; r < model.residues.size(); ++r) {
        const StructureResidue& res = model.residues[r];
        by_source.emplace(residue_key(res.source_chain, res.number, res.icode, res.copy),
                          static_cast<std::int32_t>(r));
        copies = std::max(copies, res.copy + 1);
      }
      for (const DisulfideRecord& d : model.disulfides) {
        const std::string label = d.chain1 + ":" + std::to_string(d.number1) +
                                  (d.icode1 != ' ' ? std::string(1, d.icode1) : "") + "-" + d.chain2 + ":" +
                                  std::to_string(d.number2) + (d.icode2 != ' ' ? std::string(1, d.icode2) : "");
        if (d.chain1 == d.chain2 && d.number1 == d.number2 && d.icode1 == d.icode2) {
          // A bond of a bead to itself would stop the build as "two beads at one position".
          warn.add("disulfide records skipped", "disulfide record " + label + " joins a cysteine to itself; ignored");
          continue;
        }
        int found = 0;
        bool cysteines = true;
        for (int copy = 0; copy < copies && cysteines; ++copy) {
          auto a = by_source.find(residue_key(d.chain1, d.number1, d.icode1, copy));
          auto b = by_source.find(residue_key(d.chain2, d.number2, d.icode2, copy));
          if (a == by_source.end() || b == by_source.end()) continue;
          ++found;
          cysteines = model.residues[a->second].name == "CYS" && model.residues[b->second].name == "CYS";
          if (!cysteines) continue;
          add_bond(disulfide_bead(a->second), disulfide_bead(b->second), BondKind::Disulfide);
          // The file's word is kept, but a record whose sulfurs are far apart is likely a
          // wrong residue number, and would pull the two residues together.
          const StructureAtom* sg_a = model.residues[a->second].find("SG");
          const StructureAtom* sg_b = model.residues[b->second].find("SG");
          if (sg_a && sg_b) {
            const double distance_A = norm(sg_a->position_A - sg_b->position_A);
            if (distance_A > options.disulfide_sg_distance_A)
              warn.add("disulfide records far apart",
                       fmt::format("disulfide record {}: its SG atoms are {:.2f} Å apart (a disulfide's are ~2.05 Å; "
                                   "the geometric rule takes < {} Å), bonded as the file says",
                                   label, distance_A, options.disulfide_sg_distance_A));
          }
        }
        if (!cysteines)
          warn.add("disulfide records skipped", "disulfide record " + label + " does not join two cysteines; ignored");
        else if (found == 0)
          warn.add("disulfide records skipped", "disulfide record " + label +
                                                    ": a partner is not in the model; no bond");
      }
      return;
    }
    // Geometry: SG atoms of cysteines closer than the cutoff.
    std::vector<Vec3d> sg;
    std::vector<std::int32_t> owner;
    for (std::size_t r = 0; r < model.residues.size(); ++r)
      if (model.residues[r].name == "CYS")
        if (const StructureAtom* a = model.residues[r].find("SG")) {
          sg.push_back(a->position_A);
          owner.push_back(static_cast<std::int32_t>(r));
        }
    // A cysteine makes one disulfide: the closest pairs first, and a cysteine already bonded
    // takes no other (a large --ss-distance bonded each of 8 cysteines to all 7 others).
    struct Candidate {
      double distance_A;
      std::int32_t a, b;
    };
    std::vector<Candidate> candidates;
    for_each_close_pair(sg, options.disulfide_sg_distance_A, [&](std::int32_t i, std::int32_t j, double d2) {
      candidates.push_back({std::sqrt(d2), std::min(owner[i], owner[j]), std::max(owner[i], owner[j])});
    });
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& x, const Candidate& y) {
      return x.distance_A != y.distance_A ? x.distance_A < y.distance_A : std::pair{x.a, x.b} < std::pair{y.a, y.b};
    });
    std::set<std::int32_t> bonded_cysteines;
    std::vector<std::pair<std::int32_t, std::int32_t>> found;
    for (const Candidate& c : candidates) {
      if (bonded_cysteines.count(c.a) || bonded_cysteines.count(c.b)) {
        warn.add("disulfide candidates left out",
                 fmt::format("cysteines {} and {} are within --ss-distance ({:.2f} Å < {} Å), but one of them is "
                             "already bonded to a closer cysteine: a cysteine makes one disulfide; no bond",
                             model.residues[std::size_t(c.a)].label(), model.residues[std::size_t(c.b)].label(),
                             c.distance_A, options.disulfide_sg_distance_A));
        continue;
      }
      bonded_cysteines.insert(c.a);
      bonded_cysteines.insert(c.b);
      found.emplace_back(c.a, c.b);
    }
    std::sort(found.begin(), found.end());
    for (const auto& [a, b] : found) add_bond(disulfide_bead(a), disulfide_bead(b), BondKind::Disulfide);
  }

  // "52", "52A", "-3": residue number and insertion code.
  static bool parse_residue(std::string_view field, int& number, char& icode) {
    icode = ' ';
    if (!field.empty() && std::isalpha(static_cast<unsigned char>(field.back()))) {
      icode = field.back();
      field.remove_suffix(1);
    }
    const auto value = text::parse_number<int>(field);
    if (!value) return false;
    number = *value;
    return true;
  }

  void extra_bonds() {
    if (options.extra_bonds_file.empty()) return;
    const std::string file = options.extra_bonds_file.string();
    std::error_code ec;
    if (!std::filesystem::exists(options.extra_bonds_file, ec)) throw Error(file, 0, "extra bonds", "file not found");
    std::ifstream in(options.extra_bonds_file);
    if (!in) {
      const int open_errno = errno;
      throw Error(file, 0, "extra bonds", cannot_open_input(file, open_errno));
    }
    std::unordered_map<std::string, std::int32_t> by_name;
    for (std::size_t r = 0; r < model.residues.size(); ++r) {
      const StructureResidue& res = model.residues[r];
      by_name.emplace(residue_key(res.chain_id, res.number, res.icode), static_cast<std::int32_t>(r));
    }
    std::string raw;
    int line = 0;
    while (std::getline(in, raw)) {
      ++line;
      std::string_view text(raw);
      if (auto hash = text.find('#'); hash != std::string_view::npos) text = text.substr(0, hash);
      const auto c = text::split_columns(text);
      if (c.empty()) continue;
      if (c.size() != 4 && c.size() != 6)
        throw Error(file, line, "extra bonds",
                    "expected 'CHAIN RESIDUE BEAD CHAIN RESIDUE BEAD' (6 columns) or 'CHAIN RESIDUE CHAIN "
                    "RESIDUE' (4), found " + std::to_string(c.size()) + " column(s)");
      const bool with_beads = c.size() == 6;
      std::int32_t bead[2];
      for (int side = 0; side < 2; ++side) {
        const std::string chain(c[with_beads ? 3 * side : 2 * side]);
        const std::string_view residue_field = c[with_beads ? 3 * side + 1 : 2 * side + 1];
        const std::string bead_name = with_beads ? std::string(c[3 * side + 2]) : "CA";
        const std::string field = side == 0 ? "first partner" : "second partner";
        int number = 0;
        char icode = ' ';
        if (!parse_residue(residue_field, number, icode))
          throw Error(file, line, field,
                      "'" + std::string(residue_field) + "' is not a residue number (integer with an optional "
                      "insertion code, e.g. 52 or 52A)");
        auto it = by_name.find(residue_key(chain, number, icode));
        if (it == by_name.end())
          throw Error(file, line, field,
                      "no residue " + chain + ":" + std::string(residue_field) + " in the model (chain names "
                      "after any assembly/symmetry expansion)");
        if (bead_name == "CA") {
          bead[side] = ca_bead[it->second];
        } else if (bead_name == "CB") {
          if (options.model_type != ModelType::CAlphaCBeta)
            throw Error(file, line, field, "bead CB needs --model-type cacb (the ca model has CA beads only)");
          if (sc_bead[it->second] == kNone)
            throw Error(file, line, field, "residue " + model.residues[it->second].label() + " has no side-chain bead");
          bead[side] = sc_bead[it->second];
        } else {
          throw Error(file, line, field, "bead '" + bead_name + "' is neither CA nor CB");
        }
      }
      if (bead[0] == bead[1]) throw Error(file, line, "extra bonds", "both partners are the same bead");
      if (!add_bond(bead[0], bead[1], BondKind::Extra)) {
        const auto kind = std::find_if(bonds.begin(), bonds.end(),
                                       [&](const auto& b) { return b.first == pair_key(bead[0], bead[1]); });
        throw Error(file, line, "extra bonds",
                    std::string("the two beads are already bonded (") + bond_kind_name(kind->second) + " bond)");
      }
    }
  }

  void native_contacts() {
    const float r_limit = static_cast<float>(options.r_limit_A);
    const float sc_limit = static_cast<float>(options.sc_limit_A);
    // (pair, reason): BeadDistance sorts first, so it wins when both criteria hold.
    std::vector<std::pair<std::uint64_t, ContactReason>> candidates;
    const std::vector<std::int32_t>& res_of = out.residue_of_bead;
    std::string close_examples;

    // 1. Bead distance (C-alpha distance in the ca model). Decided on SOP-GPU's float
    // distance, so the search radius has a little slack.
    const double search = std::max(options.r_limit_A, 1.0) + 1e-3;
    for_each_close_pair(bead_position, search, [&](std::int32_t i, std::int32_t j, double d2) {
      if (d2 < 1.0 && out.close_bead_pairs++ < 3)
        close_examples += std::string(close_examples.empty() ? "" : ", ") +
                          model.residues[res_of[i]].label() + " " + out.topology.beads[i].atom_name + " - " +
                          model.residues[res_of[j]].label() + " " + out.topology.beads[j].atom_name + " (" +
                          fmt("%.2f", std::sqrt(d2)) + " A)";
      if (!(options.r_limit_A > 0.0)) return;
      if (near_in_sequence(res_of[i], res_of[j])) return;
      if (!(sopgpu_distance(bead_position[i], bead_position[j]) < r_limit)) return;
      const std::uint64_t key = pair_key(i, j);
      if (bonded.count(key)) return;
      candidates.emplace_back(key, ContactReason::BeadDistance);
    });

    // 2. Side-chain heavy atoms (not N, CA, C, O) of two residues closer than sc_limit.
    if (options.sc_limit_A > 0.0) {
      std::vector<Vec3d> atoms;
      std::vector<std::int32_t> owner;
      for (std::size_t r = 0; r < model.residues.size(); ++r)
        for (const StructureAtom& a : model.residues[r].atoms)
          if (!is_backbone_atom(a.name)) {
            atoms.push_back(a.position_A);
            owner.push_back(static_cast<std::int32_t>(r));
          }
      if (atoms.empty())
        warn.add("no side-chain atoms",
                 "the structure has no side-chain atoms (a C-alpha trace?): the side-chain criterion "
                 "(--sc-limit) finds no contact, and only the C-alpha distance rule applies");
      const bool cacb = options.model_type == ModelType::CAlphaCBeta;
      std::vector<std::uint64_t> residue_pairs;
      for_each_close_pair(atoms, options.sc_limit_A + 1e-3, [&](std::int32_t a, std::int32_t b, double) {
        const std::int32_t ra = owner[a], rb = owner[b];
        if (ra == rb || near_in_sequence(ra, rb)) return;
        if (!(sopgpu_distance(atoms[a], atoms[b]) < sc_limit)) return;
        residue_pairs.push_back(pair_key(ra, rb));
      });
      std::sort(residue_pairs.begin(), residue_pairs.end());
      residue_pairs.erase(std::unique(residue_pairs.begin(), residue_pairs.end()), residue_pairs.end());
      for (std::uint64_t rp : residue_pairs) {
        const std::int32_t ra = key_i(rp), rb = key_j(rp);
        const std::int32_t i = cacb ? sc_bead[ra] : ca_bead[ra];
        const std::int32_t j = cacb ? sc_bead[rb] : ca_bead[rb];
        if (i == kNone || j == kNone) continue;
        const std::uint64_t key = pair_key(i, j);
        if (bonded.count(key)) continue;
        candidates.emplace_back(key, ContactReason::SidechainAtoms);
      }
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end(),
                                 [](const auto& a, const auto& b) { return a.first == b.first; }),
                     candidates.end());

    Topology& top = out.topology;
    top.native_contacts.reserve(candidates.size());
    out.contact_reasons.reserve(candidates.size());
    int zero_eh = 0;
    for (const auto& [key, reason] : candidates) {
      const std::int32_t i = key_i(key), j = key_j(key);
      NativeContact c;
      c.i = i;
      c.j = j;
      c.r0_A = sopgpu_distance(bead_position[i], bead_position[j]);
      if (!(c.r0_A > 0.0f)) fail_coincident(i, j);
      switch (options.eh_source) {
        case EpsilonSource::Constant:
          c.eh_kcal_per_mol = static_cast<float>(options.eh_kcal_per_mol);
          break;
        case EpsilonSource::BFactor:
        case EpsilonSource::Occupancy: {
          const bool b = options.eh_source == EpsilonSource::BFactor;
          const float vi = b ? top.beads[i].b_factor : top.beads[i].occupancy;
          const float vj = b ? top.beads[j].b_factor : top.beads[j].occupancy;
          // ε_h = sqrt(vi·vj) is a well depth only for values ≥ 0: two negative ones would
          // give a positive product from meaningless inputs.
          for (const auto& [value, bead] : {std::pair{vi, i}, std::pair{vj, j}})
            if (!(value >= 0.0f))
              throw Error(model.source, 0, b ? "B-factor" : "occupancy",
                          std::string("eh ") + (b ? "B" : "O") + ": " + model.residues[res_of[bead]].label() +
                              " has " + (b ? "B-factor " : "occupancy ") + fmt("%g", value) +
                              "; eh, the geometric mean of two beads' values, needs values >= 0");
          const float product = vi * vj;
          if (product < 0.0f)
            throw Error(model.source, 0, b ? "B-factor" : "occupancy",
                        std::string("eh ") + (b ? "B" : "O") + ": the values of " +
                            model.residues[res_of[i]].label() + " (" + fmt("%g", vi) + ") and " +
                            model.residues[res_of[j]].label() + " (" + fmt("%g", vj) +
                            ") have a negative product; eh is their geometric mean");
          c.eh_kcal_per_mol = std::sqrt(product);
          zero_eh += c.eh_kcal_per_mol == 0.0f ? 1 : 0;
          break;
        }
      }
      top.native_contacts.push_back(c);
      out.contact_reasons.push_back(reason);
    }
    if (zero_eh > 0)
      out.warnings.push_back(std::to_string(zero_eh) + " native contact(s) have eh = 0 (a zero " +
                             (options.eh_source == EpsilonSource::BFactor ? "B-factor" : "occupancy") +
                             " column value)");
    if (out.close_bead_pairs > 0)
      out.warnings.push_back(std::to_string(out.close_bead_pairs) +
                             " bead pair(s) are closer than 1 A (overlapping copies or duplicated atoms?), e.g. " +
                             close_examples);
  }

  void finish() {
    Topology& top = out.topology;
    std::sort(bonds.begin(), bonds.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    top.bonds.reserve(bonds.size());
    for (const auto& [key, kind] : bonds) {
      const std::int32_t i = key_i(key), j = key_j(key);
      top.bonds.push_back({i, j, sopgpu_distance(bead_position[i], bead_position[j])});
      if (!(top.bonds.back().r0_A > 0.0f)) fail_coincident(i, j);
      out.bond_kinds.push_back(kind);
    }
    // Residue r's beads are its C-alpha and, when present, its side-chain bead right after.
    std::vector<std::int32_t> first_bead(ca_bead.begin(), ca_bead.end());
    first_bead.push_back(top.bead_count());
    out.chains = summarize_chains(model, chain_of_residue, first_bead);
    out.repulsive_pairs = repulsive_pair_count(top);
    warn.finish();
  }
};

}  // namespace

const char* bond_kind_name(BondKind kind) {
  switch (kind) {
    case BondKind::Backbone: return "backbone";
    case BondKind::CaCb: return "CA-CB";
    case BondKind::Disulfide: return "disulfide";
    case BondKind::Extra: return "extra";
  }
  return "?";
}

float sopgpu_distance(const Vec3d& a, const Vec3d& b) {
  // volatile keeps every product and sum rounded to float, as SOP-GPU's host code
  // computes them (a fused multiply-add would change the last printed decimal).
  volatile float x = static_cast<float>(a.x - b.x);
  volatile float y = static_cast<float>(a.y - b.y);
  volatile float z = static_cast<float>(a.z - b.z);
  volatile float xx = x * x;
  volatile float yy = y * y;
  volatile float zz = z * z;
  volatile float sum = xx + yy;
  sum = sum + zz;
  return std::sqrt(static_cast<float>(sum));
}

std::vector<ChainSummary> summarize_chains(const StructureModel& model, const std::vector<std::int32_t>& chain_of_residue,
                                           const std::vector<std::int32_t>& first_bead) {
  std::vector<ChainSummary> chains;
  std::map<std::int32_t, std::size_t> slot;
  for (std::size_t r = 0; r < model.residues.size(); ++r) {
    auto [it, fresh] = slot.emplace(chain_of_residue[r], chains.size());
    if (fresh) {
      ChainSummary s;
      s.id = model.residues[r].chain_id;
      s.first_number = model.residues[r].number;
      s.first_bead = first_bead[r];
      chains.push_back(s);
    }
    ChainSummary& s = chains[it->second];
    ++s.residues;
    s.last_number = model.residues[r].number;
    s.beads += first_bead[r + 1] - first_bead[r];
  }
  return chains;
}

std::int64_t repulsive_pair_count(const Topology& topology) {
  const std::int64_t n = topology.bead_count();
  return n * (n - 1) / 2 - static_cast<std::int64_t>(topology.bonds.size()) -
         static_cast<std::int64_t>(topology.native_contacts.size());
}

BuiltTopology build_topology(const StructureModel& model, const TopologyOptions& options) {
  check_structure_coordinates(model);
  Builder b(model, options);
  b.out.topology.name = "model";
  b.make_beads();
  b.backbone_bonds();
  b.disulfide_bonds();
  b.extra_bonds();
  b.native_contacts();
  b.finish();
  return std::move(b.out);
}

std::vector<std::pair<int, int>> list_repulsive_pairs(const Topology& topology) {
  const ExclusionList exclusions = build_exclusions(topology);
  std::vector<std::pair<int, int>> pairs;
  const int n = topology.bead_count();
  for (int i = 0; i < n; ++i) {
    auto it = exclusions.partners.begin() + exclusions.offsets[i];
    const auto end = exclusions.partners.begin() + exclusions.offsets[i + 1];
    for (int j = i + 1; j < n; ++j) {
      while (it != end && *it < j) ++it;
      if (it != end && *it == j) continue;
      pairs.emplace_back(i, j);
    }
  }
  return pairs;
}

}  // namespace ermak
