#pragma once
// Which native contacts of one replica break, and when, read from its trajectory
// (docs/analysis.md#which-contacts-break---contacts). A contact is formed in a frame when
// r < ratio · r0 — the rule of Q in energies.tsv (model/structure_observables.h contact_formed, the
// same function). Its rupture frame is the first frame from which it stays broken to the
// end of the trajectory: a contact that breaks and forms again has not ruptured then, only
// at its last break. One formed in the last frame has no rupture (censored at the end).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "ermak/model/topology.h"

namespace ermak::analysis {

struct ContactRuptures {
  std::vector<std::int64_t> frame_step;  // the step of each frame
  std::vector<double> native_fraction;   // Q of each frame, for cross-checks with energies.tsv
  // Q of each frame over the contacts within one chain and over those between two chains (a
  // complex's interface): NaN where the model has none of that kind. A chain is a run of
  // consecutive beads with one chain id in model.etop.
  std::vector<double> within_chains_fraction, between_chains_fraction;
  std::int64_t between_chains_contacts = 0;  // the model's native contacts joining two chains
  // Per native contact (the topology's order): its rupture frame, unset when it is formed in
  // the last frame. A contact broken in every frame ruptures at frame 0.
  std::vector<std::optional<std::int64_t>> rupture_frame;
  double timestep_ps = 0.0;            // the DCD's time step (0 where it gives none)
  std::uint64_t trailing_bytes = 0;    // bytes after the last whole frame (a file cut mid-frame)

  std::int64_t frames() const { return std::int64_t(frame_step.size()); }
  // The step of contact k's rupture frame, unset when it has none.
  std::optional<std::int64_t> rupture_step(std::size_t contact) const {
    if (!rupture_frame[contact]) return std::nullopt;
    return frame_step[std::size_t(*rupture_frame[contact])];
  }
};

// Reads `dcd` one frame at a time (memory of one frame and one number per contact). Throws
// ermak::Error naming the file when it cannot be read, when its atom count is not the
// topology's bead count, or when it holds no whole frame.
ContactRuptures find_contact_ruptures(const Topology& topology, const std::filesystem::path& dcd,
                                      double formed_ratio);

}  // namespace ermak::analysis
