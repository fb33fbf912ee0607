#pragma once
// StructureModel + coarse-graining description (sop-top2's aa_to_cg.inp) → SOP topology:
// one bead per BEAD of the residue's description, bonds from CONN, native contacts by
// sop-top2's rules (docs/topology.md#models-from-a-coarse-graining-description).
#include <filesystem>

#include "ermak/io/cg_description.h"
#include "ermak/io/structure_model.h"
#include "ermak/io/topology_builder.h"
#include "ermak/model/force_field.h"

namespace ermak {

struct CgModelOptions {
  double r_limit_A = kNativeCutoff_A;   // bead distance cutoff of native contacts (R_limit_bond); 0 disables
  double sc_limit_A = 5.0;  // represented-atom distance cutoff (SC_limit_bond); 0 disables
  EpsilonSource eh_source = EpsilonSource::Constant;
  double eh_kcal_per_mol = 1.5;
  double break_distance_A = 4.5;  // C-alphas of consecutive residues farther apart: no +/- bonds
  std::filesystem::path additional_bonds_file;  // sop-top2's additional_bonds; empty: none
};

// Builds the model. Beads: residue by residue (file order), the residue's beads in the
// description's order, each at the mean position of its COOR atoms; BeadInfo.atom_name is
// the bead name, and, as sop-top2 writes them, occupancy = the bead's CHAR and b_factor =
// mass_amu = its mass from the MASS records. Bonds: CONN within the residue (BondKind::CaCb)
// and to the previous/next residue of the chain (BondKind::Backbone; none across a chain
// break), plus additional_bonds (BondKind::Extra). Native contacts: pairs neither bonded
// nor sharing a bonded neighbour, with bead distance < r_limit or two represented atoms
// closer than sc_limit; r0 = bead distance; eh constant or sqrt of the two beads' mean
// B-factor/occupancy over their represented atoms. sidechain_bead marks beads not named CA.
// Throws ermak::Error for a residue type the description lacks (naming both files), a bead
// none of whose COOR atoms the residue has, coincident beads, and bad additional_bonds lines.
BuiltTopology build_cg_topology(const StructureModel& model, const CgDescription& description,
                                const CgModelOptions& options);

}  // namespace ermak
