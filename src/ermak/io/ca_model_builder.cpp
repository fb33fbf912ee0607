#include "ermak/io/ca_model_builder.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include <fmt/format.h>
#include <cstdint>  // before gemmi: Debian 12's gemmi uses std::uint8_t without it (gcc 13 fails)
#include <gemmi/model.hpp>
#include <gemmi/resinfo.hpp>

#include "ermak/core/error.h"
#include "ermak/io/chain_names.h"
#include "ermak/io/pair_search.h"
#include "ermak/io/residue_notes.h"
#include "ermak/io/structure_model.h"
#include "ermak/io/topology_builder.h"
#include "ermak/model/coordinate_range.h"

namespace ermak {
namespace {

std::string residue_label(const std::string& chain, const gemmi::Residue& r) {
  return chain + ":" + r.name + " " + r.seqid.str();
}

struct CaBead {
  BeadInfo info;
  Vec3d position_A;
  std::int32_t chain = 0;   // the part (ChainNames)
  std::string file_chain;   // the chain's name in the file
};

std::vector<CaBead> collect_ca_beads(const gemmi::Model& model, std::vector<std::string>& notes,
                                     const std::vector<std::string>& chains, int& skipped_without_ca) {
  std::vector<CaBead> beads;
  std::map<std::string, int> hetero_names;  // amino acids of HETATM records that became beads
  const std::string blank_name = blank_chain_name(model);
  ChainNames chain_names(blank_name);
  ResidueNotes residue_notes;
  int skipped_ligands = 0;
  std::map<std::string, int> skipped_names;
  std::vector<std::string> untabulated;  // residue names taken as amino acids by backbone
  for (const gemmi::Chain& chain : model.chains) {
    const auto& residues = chain.residues;
    // Alternative residues at one position (microheterogeneity): keep one.
    for (std::size_t first = 0; first < residues.size();) {
      if (!chain_selected(chains, chain, residues[first], blank_name)) {
        ++first;
        continue;
      }
      std::size_t last = first;
      while (last + 1 < residues.size() && alternative_residues(residues[last], residues[last + 1])) ++last;
      const gemmi::Residue* chosen = nullptr;
      const gemmi::Atom* chosen_ca = nullptr;
      bool any_amino_acid = false, all_water = true;
      for (std::size_t k = first; k <= last; ++k) {
        const gemmi::Residue& r = residues[k];
        all_water = all_water && r.is_water();
        if (!is_amino_acid_residue(r)) continue;
        any_amino_acid = true;
        if (!amino_acid_info(r.name).found() &&
            std::find(untabulated.begin(), untabulated.end(), r.name) == untabulated.end())
          untabulated.push_back(r.name);
        const gemmi::Atom* ca = best_ca(r);
        if (ca && (!chosen_ca || ca->occ > chosen_ca->occ)) {
          chosen = &r;
          chosen_ca = ca;
        }
      }
      if (!any_amino_acid && !all_water) {
        ++skipped_ligands;
        ++skipped_names[residues[first].name];
      }
      if (any_amino_acid && !chosen_ca) {
        ++skipped_without_ca;
        notes.push_back("residue " + residue_label(file_chain_name(chain, residues[first], blank_name), residues[first]) +
                        " has no C-alpha atom; skipped");
      }
      first = last + 1;
      if (!chosen_ca) continue;
      const ChainNames::Part& part = chain_names.part_of(chain, *chosen, notes);
      const std::string& chain_id = part.name;
      residue_notes.add(*chosen, *chosen_ca, chain_id, residue_label(chain_id, *chosen));
      CaBead bead;
      bead.info.chain_id = chain_id;
      bead.info.residue_number = chosen->seqid.num.has_value() ? *chosen->seqid.num : 0;
      bead.info.insertion_code = chosen->seqid.icode;
      bead.info.residue_name = chosen->name;
      bead.info.atom_name = "CA";
      bead.info.occupancy = chosen_ca->occ;
      bead.info.b_factor = chosen_ca->b_iso;
      bead.info.mass_amu = free_amino_acid_weight_amu(chosen->name);
      bead.position_A = {chosen_ca->pos.x, chosen_ca->pos.y, chosen_ca->pos.z};
      bead.chain = part.index;
      bead.file_chain = file_chain_name(chain, *chosen, blank_name);
      beads.push_back(std::move(bead));
      if (chosen->het_flag == 'H') ++hetero_names[chosen->name];
    }
  }
  residue_notes.report(notes);
  // `ermak topology` leaves these out unless --keep-hetero: say that this model has them
  // (docs/config.md#input--the-model).
  if (!hetero_names.empty()) {
    int count = 0;
    for (const auto& [name, n] : hetero_names) count += n;
    notes.push_back(std::to_string(count) + " amino-acid residue(s) in HETATM records became beads: " +
                    counted_names(hetero_names) + " (`ermak topology` includes them with --keep-hetero)");
  }
  if (!untabulated.empty()) {
    std::string names;
    for (const std::string& n : untabulated) names += (names.empty() ? "" : ", ") + n;
    notes.push_back("residue name(s) " + names +
                    " not in gemmi's table; taken as amino acids (they have N, CA and C atoms)");
  }
  if (skipped_ligands > 0)
    notes.push_back("skipped " + std::to_string(skipped_ligands) + " non-protein residue(s) (ligands, nucleotides, ions): " +
                    counted_names(skipped_names));
  return beads;
}

}  // namespace

std::vector<NativeContact> find_native_contacts(const std::vector<Vec3d>& positions_A,
                                                const std::vector<ChainResidue>& residues, double cutoff_A,
                                                double eh_kcal_per_mol, CaDistances distances) {
  std::vector<NativeContact> contacts;
  const std::size_t n = positions_A.size();
  if (residues.size() != n) throw Error("", 0, "residues", "needs one residue per position");
  if (n < 2 || !(cutoff_A > 0.0)) return contacts;
  const std::vector<std::int64_t> along_chain = chain_positions(residues);
  const bool sopgpu = distances == CaDistances::sopgpu_float;
  // Decided on SOP-GPU's float distance as `ermak topology` decides it (io/topology_builder.cpp),
  // so the search radius has a little slack.
  const float cutoff_float_A = static_cast<float>(cutoff_A);
  const double search_A = sopgpu ? cutoff_A + 1e-3 : cutoff_A;
  for_each_close_pair(positions_A, search_A, [&](std::int32_t i, std::int32_t j, double d2) {
    if (within_two_along_chain(residues, along_chain, std::size_t(i), std::size_t(j))) return;
    if (!sopgpu) {
      contacts.push_back({i, j, static_cast<float>(std::sqrt(d2)), static_cast<float>(eh_kcal_per_mol)});
      return;
    }
    const float r0_A = sopgpu_distance(positions_A[i], positions_A[j]);
    if (r0_A < cutoff_float_A) contacts.push_back({i, j, r0_A, static_cast<float>(eh_kcal_per_mol)});
  });
  std::sort(contacts.begin(), contacts.end(), [](const NativeContact& a, const NativeContact& b) {
    return a.i != b.i ? a.i < b.i : a.j < b.j;
  });
  return contacts;
}

Topology build_ca_model(const std::filesystem::path& structure_file, const ModelBuildSpec& spec,
                        std::vector<std::string>* warnings, CaDistances distances,
                        const std::vector<std::string>& chains) {
  const std::string name = structure_file.string();
  ParsedStructure parsed = read_structure_file(structure_file);
  std::vector<std::string> notes = std::move(parsed.notes);
  const gemmi::Structure& st = parsed.structure;

  std::vector<CaBead> beads;
  int skipped_without_ca = 0;  // amino acids without a C-alpha: in the file, not in the model
  if (st.models.size() > 1)  // an NMR ensemble: as ermak topology says (--model chooses there)
    notes.push_back("the file has " + std::to_string(st.models.size()) + " models; model " + st.models[0].name +
                    " (the first) is used");
  if (!st.models.empty()) {
    if (std::string note = cut_short_note(parsed, st.models[0]); !note.empty()) notes.push_back(std::move(note));
    check_chain_selection(st.models[0], chains, name, "input.chains");
    beads = collect_ca_beads(st.models[0], notes, chains, skipped_without_ca);
  }
  // A virus capsid or other particle deposited as its asymmetric unit: this builder takes
  // the chains as the file has them; ermak topology expands them (docs/topology.md).
  const auto to_generate =
      std::count_if(st.ncs.begin(), st.ncs.end(), [](const gemmi::NcsOp& op) { return !op.given; });
  if (std::string note = ncs_copies_note(std::size_t(to_generate)); !note.empty()) notes.push_back(std::move(note));
  if (beads.empty() && !chains.empty())
    throw Error(name, 0, "input.chains", "the chains chosen hold no amino-acid residue with a C-alpha atom");
  if (beads.empty())
    throw Error(name, 0, "structure",
                "no C-alpha atoms of amino-acid residues found (is it a protein structure?)");

  Topology topology;
  topology.name = structure_file.stem().string();
  std::vector<ChainResidue> residues;
  for (const CaBead& bead : beads) {
    if (!coordinates_fit(bead.position_A))  // model/coordinate_range.h, as check_structure_coordinates
      throw Error(name, 0, "structure",
                  fmt::format("the C-alpha of residue {}:{} {} {} — a damaged record", bead.info.chain_id,
                              bead.info.residue_name, bead.info.residue_number, out_of_range_position(bead.position_A)));
    topology.beads.push_back(bead.info);
    topology.native_positions_A.push_back(bead.position_A);
    residues.push_back({bead.chain, bead.info.residue_number, false});
  }
  const auto label = [](const BeadInfo& info) {
    return info.chain_id + ":" + info.residue_name + " " + std::to_string(info.residue_number) +
           (info.insertion_code == ' ' || info.insertion_code == '\0' ? "" : std::string(1, info.insertion_code));
  };
  for (std::size_t b = 0; b + 1 < beads.size(); ++b) {
    const double distance_A = norm(beads[b + 1].position_A - beads[b].position_A);
    if (beads[b].chain != beads[b + 1].chain) {
      // Two parts of one chain of the file (after TER) whose ends could have been bonded.
      if (beads[b].file_chain == beads[b + 1].file_chain && distance_A <= spec.chain_break_A)
        notes.push_back(parts_within_bond_distance_note(beads[b].file_chain, label(beads[b].info),
                                                        label(beads[b + 1].info), distance_A, spec.chain_break_A));
      continue;
    }
    if (distance_A > spec.chain_break_A) {
      char distances[96];
      std::snprintf(distances, sizeof distances, "C-alpha distance %.2f A > chain_break_A %g A",
                    distance_A, spec.chain_break_A);
      // Residues as the structure numbers them, insertion code included ("VAL 100B").
      auto number = [](const BeadInfo& info) {
        return std::to_string(info.residue_number) +
               (info.insertion_code == ' ' || info.insertion_code == '\0' ? "" : std::string(1, info.insertion_code));
      };
      notes.push_back("chain break between " + beads[b].info.chain_id + ":" + beads[b].info.residue_name + " " +
                      number(beads[b].info) + " and " + beads[b + 1].info.residue_name + " " +
                      number(beads[b + 1].info) + " (" + distances + "): no bond" +
                      residues_missing_between(beads[b].info.residue_number, beads[b + 1].info.residue_number, false,
                                               beads[b + 1].info.insertion_code, beads[b].info.insertion_code,
                                               skipped_without_ca > 0));
      continue;
    }
    topology.bonds.push_back({static_cast<std::int32_t>(b), static_cast<std::int32_t>(b + 1),
                              distances == CaDistances::sopgpu_float
                                  ? sopgpu_distance(beads[b].position_A, beads[b + 1].position_A)
                                  : static_cast<float>(distance_A)});
    residues[b + 1].bonded_to_previous = true;
  }
  topology.native_contacts = find_native_contacts(topology.native_positions_A, residues,
                                                  spec.native_cutoff_A,
                                                  spec.native_energy_kcal_per_mol, distances);
  if (warnings)
    for (std::string& note : notes) warnings->push_back(name + ": " + note);
  validate_topology(topology, name);
  return topology;
}

}  // namespace ermak
