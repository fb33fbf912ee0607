#pragma once
// Native contact, docs/model.md#native-contacts:
//   U(r) = ε_h [(r0/r)¹² − 2 (r0/r)⁶], minimum −ε_h at r = r0.
#include "ermak/core/hd.h"
#include "ermak/physics/fene.h"

namespace ermak::physics {

template <bool kEnergy>
ERMAK_HD PairForce native_contact(float r2, float r0, float eh) {
  const float s2 = (r0 * r0) / r2;
  const float s6 = s2 * s2 * s2;
  const float s12 = s6 * s6;
  // −dU/dr / r = 12 ε_h (s¹² − s⁶) / r²
  PairForce out{12.0f * eh * (s12 - s6) / r2, 0.0f};
  if constexpr (kEnergy) out.energy = eh * (s12 - 2.0f * s6);
  return out;
}

}  // namespace ermak::physics
