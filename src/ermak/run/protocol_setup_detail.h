#pragma once
// Helpers shared by the files of ProtocolSetup and the protocol checks (protocol_setup.cpp,
// protocol_log_lines.cpp, protocol_checks.cpp); internal to run/, not an interface.
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/core/vec3.h"

namespace ermak::protocol_setup_detail {

inline Vec3d unit(Vec3d v) { return (1.0 / norm(v)) * v; }

inline std::string vec_text(Vec3d v, int digits = 4) {
  return fmt::format("({:.{}g}, {:.{}g}, {:.{}g})", v.x, digits, v.y, digits, v.z, digits);
}

// The two beads that define the end-to-end vector: given, or the first fixed bead (bead 0
// without fixed beads) and the first pulled bead. (Both bead 0 when bead 0 is pulled and none
// is fixed: travel_warnings says so; another default would change the reference beads that
// earlier runs' checkpoints hold, and in a multi-chain or C-alpha–C-beta model no other bead
// is the obvious end.)
inline void default_ends(const RunSpec& spec, const std::vector<std::int32_t>& given,
                         const std::vector<std::int32_t>& pulled, std::int32_t ends[2]) {
  if (given.size() == 2) {
    ends[0] = given[0];
    ends[1] = given[1];
    return;
  }
  ends[0] = spec.fixed_beads.empty() ? 0 : spec.fixed_beads.front();
  ends[1] = pulled.front();
}

}  // namespace ermak::protocol_setup_detail
