#include "ermak/run/bonded_piece_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "ermak/core/units.h"

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

std::string nothing_holds_warning(const RunSpec& spec) {
  if (!spec.pulling.enabled && !spec.force_clamp.enabled) return "";
  if (!spec.fixed_beads.empty()) return "";
  if (spec.indentation.enabled && spec.indentation.surface.enabled) return "";
  if (spec.plane_pulling.enabled)
    for (const PlaneSpec& plane : spec.plane_pulling.planes)
      if (plane.speed_A_per_tau == 0.0 && !plane.beads.empty()) return "";
  const std::vector<std::int32_t>& pulled =
      spec.pulling.enabled ? spec.pulling.pulled_beads : spec.force_clamp.pulled_beads;
  std::string beads;
  for (std::size_t k = 0; k < pulled.size() && k < 4; ++k) beads += (k ? ", " : "") + std::to_string(pulled[k]);
  if (pulled.size() > 4) beads += ", …";
  const std::string what =
      spec.pulling.enabled
          ? fmt::format("[pulling]: the cantilever pulls bead{} {} at {:.6g} µm/s", pulled.size() == 1 ? "" : "s", beads,
                        units::A_per_tau_to_um_per_s(spec.pulling.speed_A_per_tau))
          : fmt::format("[force_clamp]: the clamp force pulls bead{} {}", pulled.size() == 1 ? "" : "s", beads);
  return fmt::format(
      "warning: {} but nothing holds the molecule (no [fixed] beads, no static plane of [plane_pulling], no "
      "indentation surface): the whole molecule is dragged through the solvent, and the force measured is mostly "
      "that drag, not the protein's unfolding. Fix a bead at the other end ([fixed] beads = [0], the usual AFM "
      "set-up) or tether beads to a static plane ([[plane_pulling.plane]] with speed 0); leave it so only if a free "
      "molecule is meant (docs/protocols.md#checks-before-the-run)",
      what);
}

}  // namespace ermak
