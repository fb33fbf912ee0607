#pragma once
// The contour length of a run's chain between the beads whose end-to-end vector pulling.tsv
// projects (docs/analysis.md#force-clamp): the native lengths of the bonds along the chain
// between them, summed, from the model.etop that `ermak run` writes into its output
// directory. A whole chain's extension stays below it except by stretching its bonds, so an
// --unfolded-extension-nm beyond it is reached by no force or run length.
#include <filesystem>
#include <optional>

namespace ermak::analysis {

// Σ r0 of the bonds on the shortest bonded path from bead `from` to bead `to`
// (model/bonded_paths.h), nm. Unset where model.etop is missing or unreadable, a bead is out of range, or no
// chain of bonds joins the two (a chain break, two chains).
std::optional<double> contour_length_between_nm(const std::filesystem::path& run_dir, int from, int to);

// Both from one reading of model.etop: the contour length as above, and whether the model
// is readable and no chain of bonds joins beads `from` and `to` (two chains of a complex
// pulled apart, or a chain break between them; false where one does or the model cannot tell).
struct ChainBetween {
  std::optional<double> contour_nm;
  bool joined_by_no_chain = false;
};
ChainBetween chain_between(const std::filesystem::path& run_dir, int from, int to);

}  // namespace ermak::analysis
