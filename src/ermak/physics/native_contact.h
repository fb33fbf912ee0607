#pragma once
// Native contact, docs/model.md#native-contacts:
//   U(r) = ε_h [(r0/r)¹² − 2 (r0/r)⁶], minimum −ε_h at r = r0.
#include "ermak/core/hd.h"
#include "ermak/physics/fene.h"

namespace ermak::physics {

// r0² and 12 ε_h, the products the term is evaluated from: the CUDA kernels compute them
// once per contact entry (at its load, or into a table) with this function, and
// native_contact below with it too, so every caller gets the same bits.
template <class Real>
struct NativeContactProductsT {
  Real r0_squared;  // Å²
  Real twelve_eh;   // kcal/mol
};

template <class Real>
ERMAK_HD NativeContactProductsT<Real> native_contact_products(Real r0, Real eh) {
  return {r0 * r0, Real(12) * eh};
}

// The term from its products (native_contact_products).
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
  const NativeContactProductsT<Real> c = native_contact_products(r0, eh);
  return native_contact_from_products<kEnergy>(r2, c.r0_squared, c.twelve_eh, eh);
}

}  // namespace ermak::physics
