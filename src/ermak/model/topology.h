#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ermak/core/vec3.h"

namespace ermak {

// What a bead stands for, for output files (PDB/PSF) and for users' messages.
struct BeadInfo {
  std::string chain_id = "A";     // PDB chain / segment name (may be longer than one char)
  int residue_number = 0;         // author residue number
  char insertion_code = ' ';
  std::string residue_name = "GLY";
  std::string atom_name = "CA";   // "CA" backbone bead, "CB" side-chain bead
  float occupancy = 1.0f;
  float b_factor = 0.0f;
  float mass_amu = 0.0f;          // informational only (overdamped dynamics is massless)
};

// FENE bond i–j with native length r0 (docs/model.md#fene).
struct Bond {
  std::int32_t i = 0, j = 0;
  float r0_A = 3.8f;
};

// Native contact i–j: ε_h[(r0/r)^12 − 2(r0/r)^6] (docs/model.md#native-contacts).
struct NativeContact {
  std::int32_t i = 0, j = 0;
  float r0_A = 0.0f;
  float eh_kcal_per_mol = 1.5f;
};

// The immutable description of one molecule (system), shared by all replicas.
// Repulsive pairs are implicit: every pair that is neither bonded nor native
// (docs/model.md#repulsion), found through the neighbour list.
struct Topology {
  std::string name = "system";
  std::vector<BeadInfo> beads;
  std::vector<Bond> bonds;
  std::vector<NativeContact> native_contacts;
  // Native (reference) coordinates, Å, one per bead; empty when unknown.
  std::vector<Vec3d> native_positions_A;

  std::int32_t bead_count() const { return static_cast<std::int32_t>(beads.size()); }
};

// The beads between which the energy tables' end-to-end distance is measured
// (docs/outputs.md#tsv-time-series): the first and the last backbone (C-alpha) bead — the
// chain's termini also in a C-alpha–C-beta model, whose last bead may be a side chain — or
// the first and the last bead of a model without C-alpha names.
struct ChainEnds {
  std::int32_t first = 0, last = 0;
};
ChainEnds chain_ends(const Topology& topology);

// Beads that no bond holds (a chain of one residue, a topology cut short): the model is
// expected to have none, and the builders warn when it does.
std::int32_t count_unbonded_beads(const Topology& topology);

// Per native contact (the topology's order): 1 when it joins two chains — a complex's
// interface — a chain being a run of consecutive beads with one chain id (as the PDB writer
// puts TER between them: a SOP-GPU .top's chains named A, B, A, B, … count apart).
std::vector<char> contacts_between_chains(const Topology& topology);
// How many there are: the model summaries' count (`ermak topology`, the run log's model
// line), the same as `ermak analyze --contacts` counts.
std::size_t count_contacts_between_chains(const Topology& topology);

// The range of the native contacts' depths ε_h (kcal/mol), for summaries of models whose
// depths come from a column (B-factors, occupancies); {0, 0} without contacts.
std::pair<float, float> native_energy_range(const Topology& topology);

// The bonded piece of each bead: beads joined by a chain of bonds share a number, pieces
// numbered 0, 1, … in order of their first bead. A chain break (docs/topology.md) splits a
// chain into two pieces, which only native contacts and repulsion then hold together.
std::vector<std::int32_t> bonded_pieces(const Topology& topology);

// Checks indices, duplicates and parameter ranges; throws ermak::Error naming `source`.
void validate_topology(const Topology& topology, const std::string& source);

// Per-bead sorted lists of partners excluded from repulsion (bonded or native), CSR.
struct ExclusionList {
  std::vector<std::int32_t> offsets;   // size N+1
  std::vector<std::int32_t> partners;  // sorted within each bead's range

  bool excluded(std::int32_t i, std::int32_t j) const;
};
ExclusionList build_exclusions(const Topology& topology);

}  // namespace ermak
