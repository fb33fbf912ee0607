#include "ermak/run/bonded_piece_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace ermak {
namespace {

std::string bead_name(const Topology& topology, std::int32_t b) {
  const BeadInfo& bead = topology.beads[std::size_t(b)];
  return fmt::format("{} ({}:{}{}{})", b, bead.chain_id, bead.residue_name, bead.residue_number,
                     bead.insertion_code == ' ' ? std::string() : std::string(1, bead.insertion_code));
}

}  // namespace

std::string pulled_apart_warning(const RunSpec& spec, const Topology& topology,
                                 const std::vector<std::int32_t>& pieces) {
  const std::vector<std::int32_t>& pulled =
      spec.pulling.enabled ? spec.pulling.pulled_beads : spec.force_clamp.enabled ? spec.force_clamp.pulled_beads
                                                                                 : std::vector<std::int32_t>{};
  if (pulled.empty() || spec.fixed_beads.empty()) return "";
  const auto n = std::int32_t(pieces.size());
  std::set<std::int32_t> anchored;
  std::set<std::string> fixed_chains;
  for (std::int32_t b : spec.fixed_beads)
    if (b >= 0 && b < n) {
      anchored.insert(pieces[std::size_t(b)]);
      fixed_chains.insert(topology.beads[std::size_t(b)].chain_id);
    }
  // A pulled bead of another chain than every fixed bead pulls a complex apart, as meant;
  // one of a fixed bead's own chain but of another piece pulls across a break.
  std::string loose;
  for (std::int32_t b : pulled)
    if (b >= 0 && b < n && !anchored.count(pieces[std::size_t(b)]) &&
        fixed_chains.count(topology.beads[std::size_t(b)].chain_id))
      loose += (loose.empty() ? "" : ", ") + bead_name(topology, b);
  if (loose.empty()) return "";
  return fmt::format(
      "warning: pulled bead{} {} and the fixed beads lie in different bonded pieces of the model (a chain break: "
      "a missing or skipped residue; the topology summary names the breaks): the {} pulls the pieces apart against "
      "their native contacts only, and the force–extension curve is their separation, not the chain's unfolding. "
      "Pull and fix beads of one piece, or rebuild the model with the missing residues (docs/topology.md)",
      loose.find(',') == std::string::npos ? "" : "s", loose, spec.pulling.enabled ? "cantilever" : "clamp");
}

}  // namespace ermak
