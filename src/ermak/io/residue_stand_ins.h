#pragma once
// Residue names that gemmi must not read as written (docs/formats.md#pdb-and-mmcif). gemmi
// 0.5.7 reads a PDB residue name from columns 18-20 only — GROMACS, VMD and AMBER write
// 4-letter names (HISD) in columns 18-21 — and it joins the records of one chain that share
// a residue's number and name wherever they stand in the file. Before gemmi reads a file,
// such records get a stand-in name that keeps them apart; after it, every residue gets its
// own name back (restore).
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gemmi/model.hpp>

namespace ermak {

class ResidueStandIns {
 public:
  // The stand-in for `name` in its `occurrence`-th residue of a chain (1, 2, …): three bytes,
  // a control character and two bytes above ASCII, which no residue name of a text file
  // holds (is_stand_in). The same for the same arguments. Throws ermak::Error naming `file`
  // past 16384 distinct (name, occurrence) pairs.
  std::string stand_in(const std::string& name, int occurrence, const std::string& file);
  // Every residue of `structure` whose name is a stand-in gets its name back.
  void restore(gemmi::Structure& structure) const;
  bool empty() const { return names_.empty(); }

 private:
  std::map<std::pair<std::string, int>, std::string> stand_ins_;
  std::vector<std::string> names_;  // by stand-in index
};

// Whether `name` starts like a stand-in (a residue name that begins with the control
// character 0x01: never one a structure file holds; read_structure_file refuses one).
bool is_stand_in(std::string_view name);

}  // namespace ermak
