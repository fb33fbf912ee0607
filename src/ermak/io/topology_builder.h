#pragma once
// StructureModel → SOP topology: beads, covalent links, native contacts
// (the definitions, with a worked example: docs/topology.md).
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "ermak/core/vec3.h"
#include "ermak/io/structure_model.h"
#include "ermak/model/topology.h"
#include "ermak/model/force_field.h"

namespace ermak {

enum class ModelType { CAlpha, CAlphaCBeta };         // --model-type ca | cacb
enum class SidechainBead { Centroid, CBeta };         // --sidechain-bead centroid | cb
enum class DisulfideSource { Auto, Records, Geometry, None };

struct TopologyOptions {
  ModelType model_type = ModelType::CAlpha;
  SidechainBead sidechain_bead = SidechainBead::Centroid;
  double r_limit_A = kNativeCutoff_A;       // bead (C-alpha) distance cutoff of native contacts
  double sc_limit_A = 5.2;      // side-chain heavy-atom distance cutoff; 0 disables
  EpsilonSource eh_source = EpsilonSource::Constant;
  double eh_kcal_per_mol = 1.5; // with EpsilonSource::Constant
  double break_distance_A = 4.5;// consecutive C-alphas farther apart: chain break, no bond
  DisulfideSource disulfides = DisulfideSource::Auto;
  double disulfide_sg_distance_A = 2.5;  // SG–SG cutoff of the geometric detection
  std::filesystem::path extra_bonds_file;  // empty: none (docs/topology.md#extra-bonds-file)
};

enum class BondKind : std::uint8_t { Backbone, CaCb, Disulfide, Extra };
const char* bond_kind_name(BondKind kind);

// Why a pair is native: within r_limit (bead distance), or only through side-chain atoms.
enum class ContactReason : std::uint8_t { BeadDistance, SidechainAtoms };

struct ChainSummary {
  std::string id;
  int residues = 0;
  int first_number = 0, last_number = 0;
  std::int32_t first_bead = 0, beads = 0;
};

struct BuiltTopology {
  Topology topology;                       // bonds and contacts sorted by (i, j)
  std::vector<BondKind> bond_kinds;        // parallel to topology.bonds
  std::vector<ContactReason> contact_reasons;  // parallel to topology.native_contacts
  std::vector<std::int32_t> residue_of_bead;   // index into the StructureModel's residues
  std::vector<std::uint8_t> sidechain_bead;    // 1 for a side-chain (CB) bead
  std::vector<ChainSummary> chains;
  std::vector<std::string> warnings;       // without the file name
  int residues = 0;
  int chain_breaks = 0;
  int residues_without_sidechain_bead = 0; // non-glycine residues (cacb model)
  std::int64_t close_bead_pairs = 0;       // beads closer than 1 Å (overlapping copies?)
  std::int64_t repulsive_pairs = 0;        // N(N−1)/2 − bonds − native contacts
};

// The chains of a built model in order of first appearance: residue r of `model` belongs
// to chain chain_of_residue[r] and owns the beads [first_bead[r], first_bead[r + 1]).
std::vector<ChainSummary> summarize_chains(const StructureModel& model, const std::vector<std::int32_t>& chain_of_residue,
                                           const std::vector<std::int32_t>& first_bead);

// N(N−1)/2 − bonds − native contacts: the pairs that repel.
std::int64_t repulsive_pair_count(const Topology& topology);

// Builds the model; throws ermak::Error naming the extra-bonds file (with its line) for a
// bad line there, or model.source for a B-factor/occupancy product < 0 with eh B/O.
BuiltTopology build_topology(const StructureModel& model, const TopologyOptions& options);

// Every pair i < j that is neither bonded nor native (SOP-GPU's [ pairs ]), in (i, j)
// order. O(N²): meant for small systems.
std::vector<std::pair<int, int>> list_repulsive_pairs(const Topology& topology);

// Distance as SOP-GPU's sop-top computes it: coordinate differences in double rounded to
// float, then squares, sum and square root in float (no fused multiply-add). This is what
// makes r0 agree with SOP-GPU's to the last printed (5th) decimal.
float sopgpu_distance(const Vec3d& a, const Vec3d& b);

}  // namespace ermak
