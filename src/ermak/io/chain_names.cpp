#include "ermak/io/chain_names.h"

#include <algorithm>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "ermak/core/error.h"

namespace ermak {

std::string blank_chain_name(const gemmi::Model& model) {
  std::set<std::string> used;
  for (const gemmi::Chain& chain : model.chains) {
    if (!chain.name.empty()) used.insert(chain.name);
    else
      for (const gemmi::Residue& residue : chain.residues)
        if (!residue.segment.empty()) used.insert(residue.segment);
  }
  static constexpr std::string_view kLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  for (const char letter : kLetters)
    if (!used.count(std::string(1, letter))) return std::string(1, letter);
  return "A";  // every one-character name taken: ChainNames still keeps the parts apart
}

std::string file_chain_name(const gemmi::Chain& chain, const gemmi::Residue& residue, const std::string& blank_name) {
  if (!chain.name.empty()) return chain.name;
  if (!residue.segment.empty()) return residue.segment;
  return blank_name;
}

const ChainNames::Part& ChainNames::part_of(const gemmi::Chain& chain, const gemmi::Residue& residue,
                                            std::vector<std::string>& warnings) {
  // mmCIF: the molecule (label_asym_id) too; gemmi's PDB reader leaves it empty.
  const auto key = std::tuple{&chain, chain.name.empty() ? residue.segment : std::string(), residue.subchain};
  if (const auto it = parts_.find(key); it != parts_.end()) return it->second;
  const std::string file_name = file_chain_name(chain, residue, blank_name_);
  std::string name = file_name;
  for (int k = 2; used_.count(name); ++k) name = file_name + "-" + std::to_string(k);
  // One mmCIF chain (auth_asym_id) that goes on with another molecule (label_asym_id).
  const bool another_molecule = &chain == previous_chain_ && residue.subchain != previous_subchain_;
  if (name != file_name && another_molecule)
    warnings.push_back("chain " + file_name + " (auth_asym_id) holds another molecule after molecule " +
                       previous_subchain_ + " (label_asym_id " + residue.subchain + ", from residue " + residue.name +
                       " " + residue.seqid.str() + "): its part is named " + name + " (select its beads as \"" + name +
                       ":…\"), and the molecules are not bonded to each other; give each molecule its own "
                       "auth_asym_id in the file to keep the file's names");
  // The part right before has the same name: a TER record split them (the PDB reader starts
  // a new chain at TER), as between the molecules of an MD snapshot.
  else if (name != file_name && file_name == previous_file_name_)
    warnings.push_back("chain " + file_name + " continues after a TER record: the part after it is named " + name +
                       " (select its beads as \"" + name + ":…\"); TER ends a chain, so the parts are not bonded "
                       "to each other; give each molecule its own chain id in the file to keep the file's names");
  else if (name != file_name)
    warnings.push_back("chain " + file_name + " appears again after other chains: its second part is named " + name +
                       " (select its beads as \"" + name + ":…\"), so that it is not joined to the first; give each "
                       "chain its own id in the file to keep the file's names");
  used_.insert(name);
  previous_file_name_ = file_name;
  previous_chain_ = &chain;
  previous_subchain_ = residue.subchain;
  return parts_.emplace(key, Part{name, static_cast<int>(parts_.size())}).first->second;
}

bool chain_selected(const std::vector<std::string>& chains, const gemmi::Chain& chain, const gemmi::Residue& residue,
                    const std::string& blank_name) {
  return chains.empty() ||
         std::find(chains.begin(), chains.end(), file_chain_name(chain, residue, blank_name)) != chains.end();
}

void check_chain_selection(const gemmi::Model& model, const std::vector<std::string>& chains,
                           const std::string& source, const std::string& field) {
  std::vector<std::string> present;
  const std::string blank_name = blank_chain_name(model);
  for (const gemmi::Chain& chain : model.chains)
    for (const gemmi::Residue& residue : chain.residues) {
      const std::string name = file_chain_name(chain, residue, blank_name);
      if (std::find(present.begin(), present.end(), name) == present.end()) present.push_back(name);
    }
  for (const std::string& wanted : chains)
    if (std::find(present.begin(), present.end(), wanted) == present.end()) {
      std::string list;
      for (const std::string& name : present) list += (list.empty() ? "" : ", ") + name;
      throw Error(source, 0, field,
                  "no chain '" + wanted + "' in the file's model (its chains: " + list +
                      "; chain names are case-sensitive)");
    }
}

std::string parts_within_bond_distance_note(const std::string& file_chain, const std::string& end_label,
                                            const std::string& start_label, double distance_A, double bond_limit_A) {
  return fmt::format("{} and {}, the facing ends of two parts of chain {} (a TER record between them, or in mmCIF "
                     "another label_asym_id), are {:.2f} A apart, within bond distance (<= {:g} A), but not bonded: "
                     "the parts are two chains, and the pair may be a native contact — if the file means one chain, "
                     "remove the TER record between them",
                     end_label, start_label, file_chain, distance_A, bond_limit_A);
}

}  // namespace ermak
