#include "ermak/io/cg_model_builder.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "ermak/core/error.h"
#include "ermak/io/pair_search.h"
#include "ermak/io/text_fields.h"

namespace ermak {
namespace {

constexpr int kListedWarnings = 20;  // of one kind; the rest are counted

std::uint64_t pair_key(std::int32_t i, std::int32_t j) {
  if (i > j) std::swap(i, j);
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(i)) << 32) | static_cast<std::uint32_t>(j);
}
std::int32_t key_i(std::uint64_t k) { return static_cast<std::int32_t>(k >> 32); }
std::int32_t key_j(std::uint64_t k) { return static_cast<std::int32_t>(k & 0xffffffffu); }

std::string fmt(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

// Residue names of CHARMM-style descriptions vs PDB files: histidine is HSD/HSE/HSP in
// CHARMM (HSD, neutral δ-protonated, is CHARMM's default) and HIS in the PDB.
std::vector<std::string> residue_aliases(const std::string& name) {
  if (name == "HIS") return {"HSD", "HSE", "HSP"};
  if (name == "HSD" || name == "HSE" || name == "HSP" || name == "HSC") return {"HIS"};
  return {};
}

// Heavy-atom names that differ between CHARMM topologies and the PDB: isoleucine's CD
// (PDB CD1) and the C-terminal oxygens OT1/OT2 (PDB O/OXT). Hydrogens are not read.
std::vector<std::string> atom_aliases(const std::string& residue, const std::string& atom) {
  if (residue == "ILE" && atom == "CD") return {"CD1"};
  if (residue == "ILE" && atom == "CD1") return {"CD"};
  if (atom == "OT1") return {"O"};
  if (atom == "OT2") return {"OXT"};
  return {};
}

const StructureAtom* find_atom(const StructureResidue& res, const std::string& name) {
  if (const StructureAtom* a = res.find(name)) return a;
  for (const std::string& alias : atom_aliases(res.name, name))
    if (const StructureAtom* a = res.find(alias)) return a;
  return nullptr;
}

struct Builder {
  const StructureModel& model;
  const CgDescription& description;
  const CgModelOptions& options;
  BuiltTopology out;
  std::map<std::string, int> warning_count;

  std::vector<std::int32_t> chain_of_residue;
  std::vector<std::int32_t> first_bead;  // per residue, plus one past the end
  std::vector<const CgResidue*> type_of_residue;
  std::vector<Vec3d> bead_position;
  std::vector<double> bead_b, bead_occupancy;       // means over the represented atoms
  std::vector<std::vector<Vec3d>> represented;      // per bead: its represented atoms found
  std::vector<std::uint8_t> continues_chain;        // residue r is bonded to r-1's chain part
  std::unordered_set<std::uint64_t> bonded;
  std::vector<std::pair<std::uint64_t, BondKind>> bonds;

  Builder(const StructureModel& m, const CgDescription& d, const CgModelOptions& o)
      : model(m), description(d), options(o) {}

  void warn(const std::string& kind, const std::string& message) {
    if (++warning_count[kind] <= kListedWarnings) out.warnings.push_back(message);
  }

  const CgResidue& residue_type(const StructureResidue& res, std::map<std::string, std::string>& used_alias) {
    for (const std::string& name : {res.name, res.file_name})
      if (const CgResidue* t = description.find(name)) return *t;
    for (const std::string& alias : residue_aliases(res.name))
      if (const CgResidue* t = description.find(alias)) {
        used_alias.emplace(res.name, alias);
        return *t;
      }
    throw Error(model.source, 0, "structure",
                "residue " + res.label() + ": " + description.source + " describes no residue " + res.name +
                    " (add a RESI " + res.name + " record)");
  }

  void make_beads() {
    std::map<std::string, std::int32_t> chain_index;
    std::map<std::string, std::string> used_alias;
    std::vector<std::string> massless;  // "RESI/BEAD" of the types used, once each
    Topology& top = out.topology;
    for (std::size_t r = 0; r < model.residues.size(); ++r) {
      const StructureResidue& res = model.residues[r];
      chain_of_residue.push_back(
          chain_index.emplace(res.chain_id, static_cast<std::int32_t>(chain_index.size())).first->second);
      const CgResidue& type = residue_type(res, used_alias);
      type_of_residue.push_back(&type);
      first_bead.push_back(top.bead_count());
      for (const CgBead& bead : type.beads) {
        Vec3d sum{};
        int found = 0;
        std::string missing;
        for (const std::string& name : bead.coordinate_atoms) {
          if (const StructureAtom* a = find_atom(res, name)) {
            sum += a->position_A;
            ++found;
          } else {
            missing += (missing.empty() ? "" : " ") + name;
          }
        }
        if (found == 0)
          throw Error(model.source, 0, "structure",
                      "residue " + res.label() + " has none of the atoms " + missing + " that place bead " +
                          bead.name + " (" + description.source + ":" + std::to_string(bead.coor_line) +
                          ": COOR; hydrogens are not read)");
        if (!missing.empty())
          warn("beads placed without some COOR atoms",
               "residue " + res.label() + " bead " + bead.name + ": COOR atom(s) " + missing +
                   " missing; placed at the mean of the " + std::to_string(found) + " found");
        // One atom: its position itself (dividing by 1 is exact).
        bead_position.push_back((1.0 / found) * sum);

        std::vector<Vec3d> atoms;
        double b = 0, occupancy = 0;
        std::unordered_set<const StructureAtom*> seen;
        for (const std::string& name : bead.represented)
          if (const StructureAtom* a = find_atom(res, name); a && seen.insert(a).second) {
            atoms.push_back(a->position_A);
            b += a->b_factor;
            occupancy += a->occupancy;
          }
        if (atoms.empty()) {  // no represented heavy atom: the COOR atoms stand in
          for (const std::string& name : bead.coordinate_atoms)
            if (const StructureAtom* a = find_atom(res, name); a && seen.insert(a).second) {
              atoms.push_back(a->position_A);
              b += a->b_factor;
              occupancy += a->occupancy;
            }
        }
        bead_b.push_back(b / static_cast<double>(atoms.size()));
        bead_occupancy.push_back(occupancy / static_cast<double>(atoms.size()));
        represented.push_back(std::move(atoms));

        BeadInfo info;
        info.chain_id = res.chain_id;
        info.residue_number = res.number;
        info.insertion_code = res.icode;
        info.residue_name = res.name;
        info.atom_name = bead.name;
        // sop-top2's columns: occupancy = charge, B-factor = mass.
        info.occupancy = static_cast<float>(bead.charge);
        info.b_factor = static_cast<float>(bead.mass_amu);
        info.mass_amu = static_cast<float>(bead.mass_amu);
        if (!(bead.mass_amu > 0.0)) {
          const std::string label = type.name + "/" + bead.name;
          if (std::find(massless.begin(), massless.end(), label) == massless.end()) massless.push_back(label);
        }
        top.beads.push_back(info);
        out.residue_of_bead.push_back(static_cast<std::int32_t>(r));
        out.sidechain_bead.push_back(bead.name == "CA" ? 0 : 1);
      }
    }
    first_bead.push_back(top.bead_count());
    top.native_positions_A = bead_position;
    out.residues = static_cast<int>(model.residues.size());
    for (const auto& [from, to] : used_alias)
      out.warnings.push_back("residues " + from + " are coarse-grained as " + to + " (" + description.source +
                             " has no RESI " + from + ")");
    if (!massless.empty()) out.warnings.push_back(massless_beads_warning(massless));
  }

  // The dynamics does not use masses, but the PDB's B-factor column and the PSF carry
  // them (sop-top2's convention); a description without MASS records would give every
  // bead 0 there without a word.
  std::string massless_beads_warning(const std::vector<std::string>& massless) const {
    const std::size_t listed_count = std::min(massless.size(), static_cast<std::size_t>(kListedWarnings));
    std::string listed;
    for (std::size_t k = 0; k < listed_count; ++k) listed += (k ? ", " : "") + massless[k];
    if (massless.size() > listed_count) listed += " and " + std::to_string(massless.size() - listed_count) + " more";
    const std::string why = description.masses.empty()
                                ? description.source + " has no MASS records"
                                : "no MASS record of " + description.source +
                                      " matches the first letter of their REPR atoms";
    return "bead(s) " + listed + " have mass 0: " + why +
           " (masses are informational: the PDB's B-factor column gets 0, the PSF 1.0 amu)";
  }

  std::int32_t bead_of(std::size_t r, const std::string& name) const {
    const CgResidue& type = *type_of_residue[r];
    for (std::size_t k = 0; k < type.beads.size(); ++k)
      if (type.beads[k].name == name) return first_bead[r] + static_cast<std::int32_t>(k);
    return -1;
  }

  bool add_bond(std::int32_t i, std::int32_t j, BondKind kind) {
    const std::uint64_t key = pair_key(i, j);
    if (!bonded.insert(key).second) return false;
    bonds.emplace_back(key, kind);
    return true;
  }

  // Residue r follows r-1 in one chain without a break (C-alpha distance ≤ break_distance).
  void find_chain_breaks() {
    continues_chain.assign(model.residues.size(), 0);
    for (std::size_t r = 1; r < model.residues.size(); ++r) {
      if (chain_of_residue[r] != chain_of_residue[r - 1]) continue;
      const StructureAtom* a = model.residues[r - 1].find("CA");
      const StructureAtom* b = model.residues[r].find("CA");
      const double d = (a && b) ? norm(b->position_A - a->position_A) : 0.0;
      if (d > options.break_distance_A) {
        ++out.chain_breaks;
        warn("chain breaks", "chain break between " + model.residues[r - 1].label() + " and " +
                                 model.residues[r].label() + " (C-alpha distance " + fmt("%.2f", d) + " A > " +
                                 fmt("%g", options.break_distance_A) + " A): no bond" +
                                     residues_missing_between(model.residues[r - 1].number, model.residues[r].number, false, model.residues[r].icode, model.residues[r - 1].icode, model.skipped_no_ca > 0));
        continue;
      }
      continues_chain[r] = 1;
    }
  }

  void connection_bonds() {
    find_chain_breaks();
    for (std::size_t r = 0; r < model.residues.size(); ++r) {
      const CgResidue& type = *type_of_residue[r];
      for (std::size_t k = 0; k < type.beads.size(); ++k) {
        const std::int32_t i = first_bead[r] + static_cast<std::int32_t>(k);
        for (const CgConnection& c : type.beads[k].connections) {
          if (c.residue_offset == 0) {
            add_bond(i, bead_of(r, c.bead), BondKind::CaCb);
            continue;
          }
          // The neighbour in the chain: none at a chain end or across a break.
          const bool next = c.residue_offset > 0;
          if (next ? (r + 1 >= model.residues.size() || !continues_chain[r + 1]) : (r == 0 || !continues_chain[r]))
            continue;
          const std::size_t other = next ? r + 1 : r - 1;
          const std::int32_t j = bead_of(other, c.bead);
          if (j < 0) {
            warn("connections to missing beads",
                 "residue " + model.residues[r].label() + " bead " + type.beads[k].name + " connects to " +
                     (next ? "+" : "-") + c.bead + ", but " + model.residues[other].label() + " (" +
                     type_of_residue[other]->name + ") has no bead " + c.bead + " (" + description.source + ":" +
                     std::to_string(c.line) + "): no bond");
            continue;
          }
          add_bond(i, j, BondKind::Backbone);
        }
      }
    }
  }

  // sop-top2's additional_bonds: "CONN SEGMENT RESID BEAD SEGMENT RESID BEAD" lines.
  void additional_bonds() {
    if (options.additional_bonds_file.empty()) return;
    const std::string file = options.additional_bonds_file.string();
    std::ifstream in(options.additional_bonds_file);
    if (!in) throw Error(file, 0, "additional_bonds", "file not found or not readable");
    std::unordered_map<std::string, std::size_t> residue_by_key;
    for (std::size_t r = 0; r < model.residues.size(); ++r)
      residue_by_key.emplace(model.residues[r].chain_id + ':' + std::to_string(model.residues[r].number), r);
    std::string raw;
    int line = 0;
    while (std::getline(in, raw)) {
      ++line;
      std::string_view text(raw);
      if (auto c = text.find_first_of("#!"); c != std::string_view::npos) text = text.substr(0, c);
      const auto cols = text::split_columns(text);
      if (cols.empty()) continue;
      if (cols[0] != "CONN" || cols.size() != 7)
        throw Error(file, line, "additional_bonds",
                    "expected 'CONN CHAIN RESID BEAD CHAIN RESID BEAD', found '" + std::string(text::trim(text)) + "'");
      std::int32_t bead[2];
      for (int side = 0; side < 2; ++side) {
        const std::string chain(cols[1 + 3 * side]), name(cols[3 + 3 * side]);
        const auto number = text::parse_number<int>(cols[2 + 3 * side]);
        const std::string field = side == 0 ? "first partner" : "second partner";
        if (!number) throw Error(file, line, field, "'" + std::string(cols[2 + 3 * side]) + "' is not a residue number");
        auto it = residue_by_key.find(chain + ':' + std::to_string(*number));
        if (it == residue_by_key.end())
          throw Error(file, line, field, "no residue " + chain + ":" + std::to_string(*number) + " in the model");
        bead[side] = bead_of(it->second, name);
        if (bead[side] < 0)
          throw Error(file, line, field,
                      "residue " + model.residues[it->second].label() + " has no bead " + name);
      }
      if (bead[0] == bead[1]) throw Error(file, line, "additional_bonds", "both partners are the same bead");
      add_bond(bead[0], bead[1], BondKind::Extra);  // an existing bond stays one bond, as in sop-top2
    }
  }

  void native_contacts() {
    const std::int32_t n = out.topology.bead_count();
    // Excluded: bonded pairs and pairs with a common bonded neighbour (1-3), as sop-top2.
    std::vector<std::vector<std::int32_t>> neighbours(n);
    for (const auto& [key, kind] : bonds) {
      neighbours[key_i(key)].push_back(key_j(key));
      neighbours[key_j(key)].push_back(key_i(key));
    }
    std::unordered_set<std::uint64_t> excluded = bonded;
    for (std::int32_t c = 0; c < n; ++c)
      for (std::size_t a = 0; a < neighbours[c].size(); ++a)
        for (std::size_t b = a + 1; b < neighbours[c].size(); ++b)
          excluded.insert(pair_key(neighbours[c][a], neighbours[c][b]));

    std::vector<std::pair<std::uint64_t, ContactReason>> candidates;
    if (options.r_limit_A > 0.0) {
      const float r_limit = static_cast<float>(options.r_limit_A);
      for_each_close_pair(bead_position, options.r_limit_A + 1e-3, [&](std::int32_t i, std::int32_t j, double) {
        if (!(sopgpu_distance(bead_position[i], bead_position[j]) < r_limit)) return;
        const std::uint64_t key = pair_key(i, j);
        if (!excluded.count(key)) candidates.emplace_back(key, ContactReason::BeadDistance);
      });
    }
    if (options.sc_limit_A > 0.0) {
      const float sc_limit = static_cast<float>(options.sc_limit_A);
      std::vector<Vec3d> atoms;
      std::vector<std::int32_t> owner;
      for (std::int32_t b = 0; b < n; ++b)
        for (const Vec3d& p : represented[b]) {
          atoms.push_back(p);
          owner.push_back(b);
        }
      for_each_close_pair(atoms, options.sc_limit_A + 1e-3, [&](std::int32_t a, std::int32_t b, double) {
        if (owner[a] == owner[b]) return;
        if (!(sopgpu_distance(atoms[a], atoms[b]) < sc_limit)) return;
        const std::uint64_t key = pair_key(owner[a], owner[b]);
        if (!excluded.count(key)) candidates.emplace_back(key, ContactReason::SidechainAtoms);
      });
    }
    // BeadDistance sorts first, so it wins when both criteria hold.
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end(),
                                 [](const auto& a, const auto& b) { return a.first == b.first; }),
                     candidates.end());

    Topology& top = out.topology;
    int zero_eh = 0;
    for (const auto& [key, reason] : candidates) {
      NativeContact c;
      c.i = key_i(key);
      c.j = key_j(key);
      c.r0_A = sopgpu_distance(bead_position[c.i], bead_position[c.j]);
      if (!(c.r0_A > 0.0f)) fail_coincident(c.i, c.j);
      if (options.eh_source == EpsilonSource::Constant) {
        c.eh_kcal_per_mol = static_cast<float>(options.eh_kcal_per_mol);
      } else {
        const bool b = options.eh_source == EpsilonSource::BFactor;
        const double vi = b ? bead_b[c.i] : bead_occupancy[c.i], vj = b ? bead_b[c.j] : bead_occupancy[c.j];
        if (vi * vj < 0.0)
          throw Error(model.source, 0, b ? "B-factor" : "occupancy",
                      std::string("eh ") + (b ? "B" : "O") + ": beads " + label(c.i) + " (" + fmt("%g", vi) +
                          ") and " + label(c.j) + " (" + fmt("%g", vj) +
                          ") have a negative product; eh is their geometric mean");
        c.eh_kcal_per_mol = static_cast<float>(std::sqrt(vi * vj));
        zero_eh += c.eh_kcal_per_mol == 0.0f ? 1 : 0;
      }
      top.native_contacts.push_back(c);
      out.contact_reasons.push_back(reason);
    }
    if (zero_eh > 0)
      out.warnings.push_back(std::to_string(zero_eh) + " native contact(s) have eh = 0 (a zero " +
                             (options.eh_source == EpsilonSource::BFactor ? "B-factor" : "occupancy") +
                             " column value)");
  }

  std::string label(std::int32_t bead) const {
    return model.residues[out.residue_of_bead[bead]].label() + " " + out.topology.beads[bead].atom_name;
  }

  [[noreturn]] void fail_coincident(std::int32_t i, std::int32_t j) const {
    throw Error(model.source, 0, "structure",
                "beads " + label(i) + " and " + label(j) + " are at the same position (duplicated atoms, or two "
                "beads with the same COOR atoms?)");
  }

  void finish() {
    Topology& top = out.topology;
    std::sort(bonds.begin(), bonds.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [key, kind] : bonds) {
      const std::int32_t i = key_i(key), j = key_j(key);
      top.bonds.push_back({i, j, sopgpu_distance(bead_position[i], bead_position[j])});
      if (!(top.bonds.back().r0_A > 0.0f)) fail_coincident(i, j);
      out.bond_kinds.push_back(kind);
    }
    out.chains = summarize_chains(model, chain_of_residue, first_bead);
    out.repulsive_pairs = repulsive_pair_count(top);
    for (const auto& [kind, count] : warning_count)
      if (count > kListedWarnings)
        out.warnings.push_back("... and " + std::to_string(count - kListedWarnings) + " more " + kind);
  }
};

}  // namespace

BuiltTopology build_cg_topology(const StructureModel& model, const CgDescription& description,
                                const CgModelOptions& options) {
  check_structure_coordinates(model);
  Builder b(model, description, options);
  b.out.topology.name = "model";
  b.make_beads();
  b.connection_bonds();
  b.additional_bonds();
  b.native_contacts();
  b.finish();
  return std::move(b.out);
}

}  // namespace ermak
