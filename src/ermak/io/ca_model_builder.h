#pragma once
// All-atom structure (PDB or mmCIF) → C-alpha SOP model (docs/formats.md#pdb-and-mmcif).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/core/vec3.h"
#include "ermak/model/chain_positions.h"
#include "ermak/model/topology.h"

namespace ermak {

// How the C-alpha distances behind the bonds' and contacts' r0 and the contact cutoff are
// computed (docs/config.md#input--the-model). New models use SOP-GPU's float arithmetic
// (io/topology_builder.h: sopgpu_distance), as `ermak topology` does, so that both routes
// give one model bit for bit. Runs started by an ermak before commit dd1af8e (2026-11-29) built theirs from double
// distances; they resume with that model (run/simulation.cpp).
enum class CaDistances { sopgpu_float, double_precision };

// Reads `structure_file` with gemmi (PDB by extension .pdb/.ent, mmCIF by .cif/.mmcif,
// otherwise by content) and builds one bead per amino-acid residue of the first model,
// at its C-alpha: chains and residues in file order; waters and ligands skipped; of
// alternative conformers the highest-occupancy C-alpha is kept. FENE bonds join
// consecutive beads of a chain unless their C-alpha distance exceeds spec.chain_break_A;
// native contacts are the pairs closer than spec.native_cutoff_A that are in different
// chains or more than two beads apart in one chain.
// Non-fatal findings (residues without C-alpha, chain breaks, skipped ligands) are
// appended to `warnings` when given. Throws ermak::Error naming the file.
// `chains` ([input] chains): only these chains of the file, by name (io/chain_names.h); empty:
// every chain.
Topology build_ca_model(const std::filesystem::path& structure_file, const ModelBuildSpec& spec,
                        std::vector<std::string>* warnings = nullptr,
                        CaDistances distances = CaDistances::sopgpu_float,
                        const std::vector<std::string>& chains = {});

// Native contacts of beads at `positions_A`, one bead per residue of `residues` (the same
// order; the beads of each chain contiguous): every pair with distance < cutoff_A that lies
// in different chains, or in one chain more than two apart along it
// (model/chain_positions.h: bonded neighbours are one apart, a chain break counts the
// residue numbers' difference). Uses a cell list, O(N) for a compact structure. Sorted by
// (i, j), i < j.
std::vector<NativeContact> find_native_contacts(const std::vector<Vec3d>& positions_A,
                                                const std::vector<ChainResidue>& residues, double cutoff_A,
                                                double eh_kcal_per_mol,
                                                CaDistances distances = CaDistances::sopgpu_float);

}  // namespace ermak
