#pragma once
// Ran2 (Numerical Recipes in C, 2nd ed., §7.1): L'Ecuyer's combination of two
// multiplicative LCGs,
//   x ← 40014·x mod 2147483563,   y ← 40692·y mod 2147483399,
// with a Bays–Durham shuffle of x through a 32-entry table: j = iy / NDIV picks a table
// entry, the output is iy = iv[j] − y (mod 2147483562, in [1, 2147483562]) and x takes
// the entry's place. Period > 2·10¹⁸. State: x, y, iy and iv[32] = 35 int32 = 140 bytes.
// Written from the published algorithm; the products are formed in 64 bits instead of
// Schrage's factorisation (same values).
//
// Outputs are 31-bit integers. For the Gaussian transform (gaussian.h) the 32-bit word
// is (iy − 1) << 1, whose top 24 bits are the top 24 bits of iy − 1; for a raw 32-bit
// stream (ermak rng dump) ran2_word32 concatenates the high 16 bits of two outputs.
#include <cstdint>

#include "ermak/core/hd.h"
#include "ermak/rng/splitmix64.h"

namespace ermak::rng {

inline constexpr std::int32_t kRan2M1 = 2147483563;
inline constexpr std::int32_t kRan2M2 = 2147483399;
inline constexpr std::int32_t kRan2A1 = 40014;
inline constexpr std::int32_t kRan2A2 = 40692;
inline constexpr std::int32_t kRan2Table = 32;
inline constexpr std::int32_t kRan2Div = 1 + (kRan2M1 - 1) / kRan2Table;

struct Ran2State {
  std::int32_t x;   // first LCG ("idum" in NR)
  std::int32_t y;   // second LCG ("idum2")
  std::int32_t iy;  // last output
  std::int32_t iv[kRan2Table];
};

ERMAK_HD std::int32_t ran2_lcg1(std::int32_t x) { return std::int32_t(std::int64_t(x) * kRan2A1 % kRan2M1); }
ERMAK_HD std::int32_t ran2_lcg2(std::int32_t y) { return std::int32_t(std::int64_t(y) * kRan2A2 % kRan2M2); }

// NR's initialisation from x0 ∈ [1, M1 − 1]: 8 warm-up steps of the first LCG, then 32
// steps fill the table from the end, iy = iv[0]. NR sets y = x0; ermak's seeding draws y0
// independently (ran2_seed) so that states of different threads cannot coincide.
ERMAK_HD void ran2_init(Ran2State& s, std::int32_t x0, std::int32_t y0) {
  s.x = x0;
  for (int j = kRan2Table + 7; j >= 0; --j) {
    s.x = ran2_lcg1(s.x);
    if (j < kRan2Table) s.iv[j] = s.x;
  }
  s.iy = s.iv[0];
  s.y = y0;
}

// Exactly NR's ran2(&idum) with idum = −seed on the first call (seed ≥ 1).
ERMAK_HD void ran2_init_nr(Ran2State& s, std::int32_t seed) { ran2_init(s, seed, seed); }

// The next output, in [1, M1 − 1] (NR returns it × 1/M1 as a float).
ERMAK_HD std::int32_t ran2_next(Ran2State& s) {
  s.x = ran2_lcg1(s.x);
  s.y = ran2_lcg2(s.y);
  const std::int32_t j = s.iy / kRan2Div;
  s.iy = s.iv[j] - s.y;
  s.iv[j] = s.x;
  if (s.iy < 1) s.iy += kRan2M1 - 1;
  return s.iy;
}

ERMAK_HD std::uint32_t ran2_word(Ran2State& s) { return std::uint32_t(ran2_next(s) - 1) << 1; }

ERMAK_HD std::uint32_t ran2_word32(Ran2State& s) {
  const std::uint32_t hi = std::uint32_t(ran2_next(s) - 1) >> 15;
  const std::uint32_t lo = std::uint32_t(ran2_next(s) - 1) >> 15;
  return (hi << 16) | lo;
}

ERMAK_HD Ran2State ran2_seed(SplitMix64& seeder) {
  const std::uint64_t w = splitmix64_next(seeder);
  Ran2State s;
  ran2_init(s, std::int32_t(std::uint32_t(w) % std::uint32_t(kRan2M1 - 1)) + 1,
            std::int32_t(std::uint32_t(w >> 32) % std::uint32_t(kRan2M2 - 1)) + 1);
  return s;
}

}  // namespace ermak::rng
