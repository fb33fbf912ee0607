#pragma once
// SOP-GPU topology files (.top), read and written for compatibility with SOP-GPU runs
// (docs/formats.md#sop-gpu-top).
#include <filesystem>
#include <utility>
#include <vector>

#include "ermak/model/topology.h"

namespace ermak {

// Reads sections [ atoms ], [ bonds ], [ native ] and [ pairs ]; bead indices are 0-based
// as in the file. Column mapping (SOP-GPU's own, topio.cpp): atoms' cgnr → chain_id,
// charge → occupancy, mass → b_factor (SOP-GPU stores the PDB B-factor there; mass_amu
// stays 0). bonds' c0 → r0_A; native's c0 → r0_A, c1 → eh_kcal_per_mol. The explicit
// repulsive [ pairs ] are not part of Topology (ermak finds repulsive pairs itself);
// read them with read_sopgpu_top_pairs. native_positions_A is left empty (a .top has no
// coordinates). Throws ermak::Error "file:line: field: what" for malformed lines; adds to
// `warnings`, if given, a last line without its newline (a file cut short?).
Topology read_sopgpu_top(const std::filesystem::path& file, std::vector<std::string>* warnings = nullptr);

// The [ pairs ] section (empty when the file has none), as written, 0-based.
std::vector<std::pair<int, int>> read_sopgpu_top_pairs(const std::filesystem::path& file);

// Writes the SOP-GPU column layout; [ pairs ] only when `repulsive_pairs` is given.
// Bond and native lengths are written with 5 decimals (SOP-GPU's precision), so a round
// trip is exact to 1e-5 Å, not bit for bit: use the .etop format for exact storage.
void write_sopgpu_top(const Topology& topology, const std::filesystem::path& file,
                      const std::vector<std::pair<int, int>>* repulsive_pairs = nullptr);

}  // namespace ermak
