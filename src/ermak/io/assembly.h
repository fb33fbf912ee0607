#pragma once
// Biological assemblies and user symmetry operators: copies of the residues of a
// StructureModel moved by rigid operators (docs/topology.md#assemblies-and-symmetry).
#include <filesystem>
#include <string>
#include <vector>

#include "ermak/io/structure_model.h"

namespace ermak {

// What an expansion did, for the summary.
struct ExpansionReport {
  std::string what;       // "assembly 1", "NCS", "symmetry file ops.txt"
  int operators = 0;      // operators applied (one copy each)
  int chains_before = 0;  // protein chains before and after
  int chains_after = 0;
  std::size_t residues_before = 0, residues_after = 0;
};

// The frame the file's NCS operators are written in (docs/topology.md#ncs-operators-and-origx).
enum class NcsFrame {
  Entry,  // the coordinates as they stand in the file (what the PDB format says)
  Origx,  // the submitted frame that ORIGX maps them to: copy = O⁻¹(M(O x + o) + t − o)
};

// The operator that does `m` in the frame `frame_map` maps to (x ↦ F⁻¹ m F x): the NCS
// operator m of a file whose ORIGX is `frame_map`, applied to the entry's coordinates.
// Throws ermak::Error when the 3x3 part of frame_map is singular.
SymmetryOperator conjugate_by_frame(const SymmetryOperator& m, const SymmetryOperator& frame_map);

// Replaces the residues of `model` by the biological assembly `id`:
//   - an assembly listed in the file (mmCIF _pdbx_struct_assembly_gen, PDB REMARK 350):
//     each generator's operators applied to the chains/subchains it names;
//   - "ncs": the identity plus every strict NCS operator of the file that is marked
//     "generate" (PDB MTRIX with blank iGiven, mmCIF _struct_ncs_oper code generate).
// Copies are named by expansion_chain_name (unique names, see there). `ncs_frame` Origx
// applies the NCS operators in the ORIGX frame (conjugate_by_frame). Throws ermak::Error
// naming model.source when the id is unknown (the message lists the ones available), when
// the assembly selects no residue, and for NcsFrame::Origx with an id other than "ncs" or a
// file without a non-identity ORIGX.
ExpansionReport expand_assembly(StructureModel& model, const std::string& id,
                                NcsFrame ncs_frame = NcsFrame::Entry);

// Replaces the residues of `model` by one copy per operator (operator k moves copy k; the
// original is kept only if an operator is the identity). `what` names the source in
// messages and the summary.
ExpansionReport replicate_by_operators(StructureModel& model,
                                       const std::vector<SymmetryOperator>& operators,
                                       const std::string& what);

// Reads a symmetry-operator file (docs/topology.md#symmetry-file): blocks of three lines
// "R_k1 R_k2 R_k3 t_k" (x' = R x + t, t in Å), '#' comments and blank lines ignored.
// Throws ermak::Error "file:line: field: what" for a line that is not four numbers, an
// incomplete last operator, an R that is not a proper rotation (|R·Rᵀ − I| > 1e-3 or
// det R < 0), a translation of 10⁶ Å or more, an operator equal to an earlier one, or a
// file without operators.
std::vector<SymmetryOperator> read_symmetry_file(const std::filesystem::path& file);

// Name of the copy of chain `base` made by operator `suffix`: base + suffix ("A" + "12" →
// "A12"), with a '-' between when base ends in a digit ("A1" + "2" → "A1-2").
std::string expansion_chain_name(const std::string& base, const std::string& suffix);

}  // namespace ermak
