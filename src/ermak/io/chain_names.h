#pragma once
// The chains of a structure file as the models name them (docs/formats.md#pdb-and-mmcif).
// A file may give one name to two molecules — chain A, then others, then chain A again
// after TER, or CHARMM segments under a blank chain column — which must stay two chains:
// bonds, the native-contact rule (|Δresnum| within a chain) and bead selections ("A:1")
// would otherwise join them.
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <cstdint>  // before gemmi: Debian 12's gemmi uses std::uint8_t without it (gcc 13 fails)
#include <gemmi/model.hpp>

namespace ermak {

// The name of residues with neither a chain id nor a segment id: A, or where the model has a
// chain A of its own, the first one-character name it does not use (B, C, …), so that the
// file's chain A keeps its name and selections ("A:2") mean it.
std::string blank_chain_name(const gemmi::Model& model);

// A residue's chain as the file names it: the chain column, or for a blank one the
// residue's segment id, or `blank_name` (blank_chain_name of its model).
std::string file_chain_name(const gemmi::Chain& chain, const gemmi::Residue& residue, const std::string& blank_name);

// A chain selection (`ermak topology --chains`, [input] chains; docs/topology.md#options): the
// chains a model keeps, by their names in the file (file_chain_name). Empty: every chain.
bool chain_selected(const std::vector<std::string>& chains, const gemmi::Chain& chain, const gemmi::Residue& residue,
                    const std::string& blank_name);

// Throws ermak::Error naming `source` and `field` when a name of `chains` is no chain of
// `model`, listing the chains it has (so that a typo is not a silently smaller model).
void check_chain_selection(const gemmi::Model& model, const std::vector<std::string>& chains,
                           const std::string& source, const std::string& field);

// Names and numbers the parts of a model that hold beads: one part per gemmi chain and,
// for a blank chain column, per segment, and in mmCIF per molecule (label_asym_id: two
// molecules under one auth_asym_id). The first part of a name keeps it; later parts get
// NAME-2, NAME-3, … (the first unused), with a warning — also a chain's part after a TER
// record, which the PDB reader makes a chain of its own. Ask only for residues that
// become beads, so that a chain's waters and ligands after TER make no part of their own.
class ChainNames {
 public:
  explicit ChainNames(std::string blank_name) : blank_name_(std::move(blank_name)) {}
  struct Part {
    std::string name;
    int index = 0;  // 0, 1, … in the order the parts are first asked for
  };
  const Part& part_of(const gemmi::Chain& chain, const gemmi::Residue& residue, std::vector<std::string>& warnings);

 private:
  std::string blank_name_;  // blank_chain_name of the model
  std::set<std::string> used_;
  std::string previous_file_name_;  // the file's name of the last part made
  const gemmi::Chain* previous_chain_ = nullptr;  // … its gemmi chain
  std::string previous_subchain_;                 // … its mmCIF molecule (label_asym_id)
  std::map<std::tuple<const gemmi::Chain*, std::string, std::string>, Part> parts_;  // chain, segment, molecule
};

// The warning for two parts of one chain of the file (ChainNames: a TER record between them,
// or in mmCIF another label_asym_id) whose facing ends, `end_label` and `start_label`, have
// C-alphas `distance_A` apart, within the builder's bond distance `bond_limit_A`: the parts are
// not bonded, and the pair may become a native contact, where the file may have meant one
// chain.
std::string parts_within_bond_distance_note(const std::string& file_chain, const std::string& end_label,
                                            const std::string& start_label, double distance_A, double bond_limit_A);

}  // namespace ermak
