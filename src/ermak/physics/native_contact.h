#pragma once
// Native contact, docs/model.md#native-contacts:
//   U(r) = ε_h [(r0/r)¹² − 2 (r0/r)⁶], minimum −ε_h at r = r0.
#include "ermak/core/hd.h"
#include "ermak/physics/fene.h"

namespace ermak::physics {

// The same term from r0² and 12 ε_h given: the CUDA block family keeps them precomputed
// per contact (the same products, so the same bits as native_contact below).
template <bool kEnergy, class Real>
ERMAK_HD PairForceT<Real> native_contact_from_products(Real r2, Real r0_squared, Real twelve_eh, Real eh) {
  const Real inv_r2 = Real(1) / r2;
  const Real s2 = r0_squared * inv_r2;
  const Real s6 = s2 * s2 * s2;
  const Real s12 = s6 * s6;
  // −dU/dr / r = 12 ε_h (s¹² − s⁶) / r²
  PairForceT<Real> out{twelve_eh * (s12 - s6) * inv_r2, Real(0)};
  if constexpr (kEnergy) out.energy = eh * (s12 - Real(2) * s6);
  return out;
}

template <bool kEnergy, class Real>
ERMAK_HD PairForceT<Real> native_contact(Real r2, Real r0, Real eh) {
  return native_contact_from_products<kEnergy>(r2, r0 * r0, Real(12) * eh, eh);
}

}  // namespace ermak::physics
