#include "ermak/io/chain_names.h"

namespace ermak {

std::string file_chain_name(const gemmi::Chain& chain, const gemmi::Residue& residue) {
  if (!chain.name.empty()) return chain.name;
  if (!residue.segment.empty()) return residue.segment;
  return "A";
}

const ChainNames::Part& ChainNames::part_of(const gemmi::Chain& chain, const gemmi::Residue& residue,
                                            std::vector<std::string>& warnings) {
  const auto key = std::pair{&chain, chain.name.empty() ? residue.segment : std::string()};
  if (const auto it = parts_.find(key); it != parts_.end()) return it->second;
  const std::string file_name = file_chain_name(chain, residue);
  std::string name = file_name;
  for (int k = 2; used_.count(name); ++k) name = file_name + "-" + std::to_string(k);
  if (name != file_name)
    warnings.push_back("chain " + file_name + " appears again after other chains: its second part is named " + name +
                       " (select its beads as \"" + name + ":…\"), so that it is not joined to the first; give each "
                       "chain its own id in the file to keep the file's names");
  used_.insert(name);
  return parts_.emplace(key, Part{name, static_cast<int>(parts_.size())}).first->second;
}

}  // namespace ermak
