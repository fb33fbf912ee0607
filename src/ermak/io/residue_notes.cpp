#include "ermak/io/residue_notes.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace ermak {

void ConformerNotes::add(const gemmi::Residue& residue, const gemmi::Atom& chosen_ca, const std::string& label) {
  const bool alternate = std::any_of(residue.atoms.begin(), residue.atoms.end(),
                                     [](const gemmi::Atom& a) { return a.altloc != '\0'; });
  if (alternate && alternates_++ == 0)
    first_alternate_ = chosen_ca.altloc == '\0'
                           ? label + " (its side chain's highest-occupancy conformer)"
                           : fmt::format("{} (C-alpha altloc {}, occupancy {:.2f})", label, chosen_ca.altloc,
                                         chosen_ca.occ);
  if (chosen_ca.occ == 0.0f && zero_occupancy_++ == 0) first_zero_ = label;
}

void ConformerNotes::report(std::vector<std::string>& warnings) const {
  if (alternates_ > 0)
    warnings.push_back(fmt::format("{} residue{} alternate locations: each bead takes its residue's highest-occupancy "
                                   "conformer (the first on ties), e.g. {}",
                                   alternates_, alternates_ == 1 ? " has" : "s have", first_alternate_));
  if (zero_occupancy_ > 0)
    warnings.push_back(fmt::format("{} C-alpha atom{} occupancy 0 (not observed: modelled by the depositors?), used "
                                   "as given, e.g. {}",
                                   zero_occupancy_, zero_occupancy_ == 1 ? " has" : "s have", first_zero_));
}

void ReusedResidueNumbers::add(const std::string& chain, const gemmi::SeqId& seqid, const std::string& label) {
  auto& numbers = chains_[chain];
  if (numbers.empty()) order_.push_back(chain);
  numbers[seqid.str()].push_back(label);
}

void ReusedResidueNumbers::report(std::vector<std::string>& warnings) const {
  constexpr std::size_t kNamedOneByOne = 3;
  for (const std::string& chain : order_) {
    const std::string consequence = "each is a bead; a selection by number takes all of them (\"" + chain +
                                    ":first\" and \"" + chain +
                                    ":last\" take the chain's ends) — renumber the file to tell them apart";
    std::vector<const std::vector<std::string>*> reused;
    std::size_t with_their_names = 0;  // numbers whose residues also share a name
    for (const auto& [number, labels] : chains_.at(chain))
      if (labels.size() > 1) {
        reused.push_back(&labels);
        with_their_names += std::set<std::string>(labels.begin(), labels.end()).size() < labels.size();
      }
    if (reused.empty()) continue;
    if (reused.size() <= kNamedOneByOne) {
      for (const std::vector<std::string>* labels : reused) {
        const bool one_name = std::set<std::string>(labels->begin(), labels->end()).size() == 1;
        std::string names;
        for (const std::string& label : *labels) names += (names.empty() ? "" : ", ") + label;
        warnings.push_back(one_name ? "residue " + labels->front() + " appears again after other residues (" +
                                          std::to_string(labels->size()) + " residues of that name and number, "
                                          "not one after the other): " + consequence
                                    : "residues " + names + " share one number without alternate-location labels: " +
                                          consequence);
      }
      continue;
    }
    // Every reused number back with its name: the chain written twice, not renumbered.
    if (with_their_names == reused.size()) {
      warnings.push_back("chain " + chain + ": " + std::to_string(reused.size()) +
                         " residues appear again under their number and name after other residues (e.g. " +
                         reused.front()->at(0) + "; a chain given twice under one name without TER between the "
                         "copies?): each is a bead, and the copies are one chain, bonded where their ends meet — "
                         "give each copy its own chain id, or end each with TER");
      continue;
    }
    warnings.push_back("chain " + chain + ": " + std::to_string(reused.size()) +
                       " residue numbers are each used by more than one residue (e.g. " + reused.front()->at(0) +
                       " and " + reused.front()->at(1) + "; a chain numbered domain by domain?): " + consequence);
  }
}

std::string repeated_residue_warning(const gemmi::Residue& residue, const std::string& label) {
  int unlabelled = 0;
  for (const gemmi::Atom& a : residue.atoms) unlabelled += a.name == "CA" && a.altloc == '\0';
  if (unlabelled < 2) return "";
  return "residue " + label + " has " + std::to_string(unlabelled) +
         " C-alpha atoms without alternate-location labels (its records are repeated?); the first is used";
}

void RepeatedResidues::check(const gemmi::Residue& residue, const std::string& chain, const std::string& label) {
  std::string warning = repeated_residue_warning(residue, label);
  if (warning.empty()) return;
  auto& list = found_[chain];
  if (list.empty()) chains_.push_back(chain);
  list.emplace_back(label, std::move(warning));
}

void RepeatedResidues::report(std::vector<std::string>& warnings) const {
  constexpr std::size_t kNamedOneByOne = 3;
  for (const std::string& chain : chains_) {
    const auto& list = found_.at(chain);
    if (list.size() <= kNamedOneByOne) {
      for (const auto& [label, warning] : list) warnings.push_back(warning);
      continue;
    }
    warnings.push_back("chain " + chain + ": " + std::to_string(list.size()) +
                       " residues have two C-alpha atoms without alternate-location labels (" + list.front().first +
                       " to " + list.back().first +
                       "): each residue's records are given twice, one copy right after the other (two copies of "
                       "the chain merged residue by residue?); the first C-alpha of each is used — give each copy its "
                       "own chain id");
  }
}

}  // namespace ermak
