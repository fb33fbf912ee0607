#pragma once
// What the structure readers tell about residues beside building the beads
// (docs/formats.md#pdb-and-mmcif): numbers that more than one residue uses, the
// conformers chosen among alternate locations, residues found twice — each gathered over a
// model and reported as a few warnings, not one per residue.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <cstdint>  // before gemmi: Debian 12's gemmi uses std::uint8_t without it (gcc 13 fails)
#include <gemmi/model.hpp>

namespace ermak {

// Residue numbers (with insertion codes) that more than one bead's residue of a chain
// uses — a number reused side by side, a chain numbered domain by domain, a residue back
// under its number and name after other residues — gathered per chain: up to three named
// one by one, more as one warning for the chain (which, when every such number comes back
// with its name, says the chain seems given twice without TER).
class ReusedResidueNumbers {
 public:
  void add(const std::string& chain, const gemmi::SeqId& seqid, const std::string& label);
  void report(std::vector<std::string>& warnings) const;

 private:
  std::vector<std::string> order_;  // chains in the order met
  std::map<std::string, std::map<std::string, std::vector<std::string>>> chains_;  // chain → number → labels
};

// Residues with alternate locations and C-alphas of zero occupancy among the beads, for one
// note each: which conformer a bead took, and that unobserved (modelled) atoms were used.
class ConformerNotes {
 public:
  void add(const gemmi::Residue& residue, const gemmi::Atom& chosen_ca, const std::string& label);
  void report(std::vector<std::string>& warnings) const;

 private:
  int alternates_ = 0, zero_occupancy_ = 0;
  std::string first_alternate_, first_zero_;  // "A:SER 2 (altloc B, occupancy 0.60)", "A:GLY 7"
};

// A warning when `residue` has more than one C-alpha without an alternate-location label —
// its records are in the file twice, one copy right after the other, not a conformer, and
// the builders keep the first; "" otherwise. `label` names it ("A:SER 43").
std::string repeated_residue_warning(const gemmi::Residue& residue, const std::string& label);

// Residues found twice (repeated_residue_warning), gathered per chain: up to three are
// named one by one; more in one chain become one warning, since that is a whole chain
// given twice with each residue's two copies one after the other (a merge of two copies).
// (Records of a residue that come back after other residues are another residue:
// io/residue_stand_ins.h, ReusedResidueNumbers.)
class RepeatedResidues {
 public:
  void check(const gemmi::Residue& residue, const std::string& chain, const std::string& label);
  void report(std::vector<std::string>& warnings) const;

 private:
  std::vector<std::string> chains_;  // in the order met
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> found_;  // chain → (label, warning)
};

// The three, as each builder uses them: every residue that becomes a bead added once, the
// warnings reported at the end (residues found twice, numbers used twice, conformers).
class ResidueNotes {
 public:
  void add(const gemmi::Residue& residue, const gemmi::Atom& chosen_ca, const std::string& chain,
           const std::string& label) {
    repeated_.check(residue, chain, label);
    reused_.add(chain, residue.seqid, label);
    conformers_.add(residue, chosen_ca, label);
  }
  void report(std::vector<std::string>& warnings) const {
    repeated_.report(warnings);
    reused_.report(warnings);
    conformers_.report(warnings);
  }

 private:
  RepeatedResidues repeated_;
  ReusedResidueNumbers reused_;
  ConformerNotes conformers_;
};

}  // namespace ermak
