#pragma once
// LCG, the "quick and dirty" generator of Numerical Recipes (2nd ed., §7.1):
//   x ← 1664525·x + 1013904223  (mod 2³²).
// Period 2³² (full: c odd, a − 1 divisible by 4). State: one uint32. Bit k of x has
// period 2^(k+1), so only the high bits are usable; every stream of every thread is a
// shifted copy of the same 2³² cycle (docs/rng.md#lcg). Kept as the weak reference.
#include <cstdint>

#include "ermak/core/hd.h"
#include "ermak/rng/splitmix64.h"

namespace ermak::rng {

inline constexpr std::uint32_t kLcgMultiplier = 1664525u;
inline constexpr std::uint32_t kLcgIncrement = 1013904223u;

struct LcgState {
  std::uint32_t x;
};

ERMAK_HD std::uint32_t lcg_step(std::uint32_t x) { return kLcgMultiplier * x + kLcgIncrement; }

ERMAK_HD std::uint32_t lcg_next(LcgState& s) {
  s.x = lcg_step(s.x);
  return s.x;
}

ERMAK_HD LcgState lcg_seed(SplitMix64& seeder) { return LcgState{splitmix64_next32(seeder)}; }

}  // namespace ermak::rng
