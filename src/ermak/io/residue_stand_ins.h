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
#include <unordered_map>
#include <utility>
#include <vector>

#include <cstdint>  // before gemmi: Debian 12's gemmi uses std::uint8_t without it (gcc 13 fails)
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

// Which residue of its chain a run of atom records (consecutive records of one residue
// number, insertion code and name) belongs to, for the rule that only records that follow
// one another are one residue: a run whose residue comes back after records of other
// residues, with a C-alpha of its own, is the `occurrence`-th residue of that number and
// name — a chain numbered domain by domain, a number reused — not the earlier one. A run
// without a C-alpha (atoms of a residue listed after others: hydrogens appended) stays part
// of the latest residue of its number and name. Runs of alternative residues at one position
// (microheterogeneity) may alternate: they stay at the position. Feed the runs in file order.
class ResidueOccurrences {
 public:
  // `position`: the run's chain, residue number and insertion code (and segment id); `name`:
  // its residue name. 1 for the first residue of that position and name, 2, …
  int of(const std::string& position, const std::string& name, bool has_ca);
  // A TER record: the chain ends, gemmi starts another.
  void end_chain() { position_started_ = false; }
  // A new model.
  void clear();

 private:
  struct Seen {
    int occurrence;
    long position_run;  // the run of records at one position where last seen
  };
  std::unordered_map<std::string, Seen> seen_;  // position + name
  std::string position_;
  bool position_started_ = false;
  long position_run_ = 0;
};

// Consecutive atom records (PDB lines, mmCIF rows: `items`) of one residue, gathered for
// ResidueOccurrences.
struct ResidueRun {
  std::string position, name;
  bool has_ca = false;
  std::vector<std::size_t> items;

  bool continues(const std::string& record_position, const std::string& record_name) const {
    return !items.empty() && record_position == position && record_name == name;
  }
};

// Whether `name` starts like a stand-in (a residue name that begins with the control
// character 0x01: never one a structure file holds; read_structure_file refuses one).
bool is_stand_in(std::string_view name);

}  // namespace ermak
