#pragma once
// A cheap screen in front of the run's stability checks (run/stability_checks.h), which
// an engine evaluates where its positions live (Engine::may_be_unstable): the CUDA engine
// on the GPU, so that a stop for protocol rows or energies copies no positions back
// (docs/gpu.md#what-overlaps-the-steps). The screen may flag more than the checks find,
// never less: a bond is flagged when its squared length lies outside bounds widened by
// 10⁻⁴ around [r0 − R0, r0 + R0] (docs/model.md#fene), a coordinate when it is not finite.
#include <cstdint>
#include <cstring>
#include <vector>

#include "ermak/core/hd.h"
#include "ermak/model/topology.h"

namespace ermak {

struct BondScreen {
  std::int32_t i = 0, j = 0;
  float near2_A2 = -1.0f;  // flagged when |r_j − r_i|² ≤ near2 (−1: no bond is too short)
  float far2_A2 = 0.0f;    // or ≥ far2
};

// One entry per FENE bond, in topology order.
std::vector<BondScreen> make_bond_screen(const std::vector<Bond>& bonds, float max_stretch_A);

ERMAK_HD bool outside_bond_screen(const BondScreen& b, float dx, float dy, float dz) {
  const float d2 = dx * dx + dy * dy + dz * dz;
  return d2 >= b.far2_A2 || d2 <= b.near2_A2;  // NaN: neither (the coordinate test finds it)
}

// An IEEE float is infinite or NaN exactly when its exponent bits are all set: an integer
// test that vectorises (std::isfinite with an early exit does not).
ERMAK_HD bool non_finite(float v) {
  constexpr std::uint32_t kExponent = 0x7f800000u;
#ifdef __CUDA_ARCH__
  const std::uint32_t bits = __float_as_uint(v);
#else
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
#endif
  return (bits & kExponent) == kExponent;
}

}  // namespace ermak
