#pragma once
// Hybrid Taus (Howes & Thomas, GPU Gems 3, ch. 37; after L'Ecuyer's combined Tausworthe
// generators): three Tausworthe steps and the LCG of lcg.h, xor-combined.
//   Tausworthe step (s1, s2, s3, M):  b = ((z << s1) ^ z) >> s2;  z = ((z & M) << s3) ^ b
//   with (13, 19, 12, 4294967294), (2, 25, 4, 4294967288), (3, 11, 17, 4294967280);
//   output z1 ^ z2 ^ z3 ^ z4, as a float in [0, 1): output × 2.3283064365387e-10.
// Period ≈ 2¹²¹ (lcm of 2³¹−1, 2²⁹−1, 2²⁸−1 and 2³²). State: 4 uint32 = 16 bytes.
// The Tausworthe components need z1 ≥ 2, z2 ≥ 8, z3 ≥ 16 (the bits the masks drop
// must not be all of the state); hybrid_taus_seed draws until they are.
#include <cstdint>

#include "ermak/core/hd.h"
#include "ermak/rng/lcg.h"
#include "ermak/rng/splitmix64.h"

namespace ermak::rng {

struct HybridTausState {
  std::uint32_t z1, z2, z3, z4;
};

ERMAK_HD std::uint32_t tausworthe_step(std::uint32_t& z, int s1, int s2, int s3, std::uint32_t mask) {
  const std::uint32_t b = ((z << s1) ^ z) >> s2;
  z = ((z & mask) << s3) ^ b;
  return z;
}

ERMAK_HD std::uint32_t hybrid_taus_next(HybridTausState& s) {
  s.z4 = lcg_step(s.z4);
  return tausworthe_step(s.z1, 13, 19, 12, 4294967294u) ^ tausworthe_step(s.z2, 2, 25, 4, 4294967288u) ^
         tausworthe_step(s.z3, 3, 11, 17, 4294967280u) ^ s.z4;
}

// The generator's own float output, as published (in [0, 1)). The Gaussian transform of
// ermak uses the 32-bit word instead (gaussian.h), like every other generator.
ERMAK_HD float hybrid_taus_uniform(HybridTausState& s) { return 2.3283064365387e-10f * float(hybrid_taus_next(s)); }

ERMAK_HD HybridTausState hybrid_taus_seed(SplitMix64& seeder) {
  HybridTausState s;
  do s.z1 = splitmix64_next32(seeder); while (s.z1 < 2u);
  do s.z2 = splitmix64_next32(seeder); while (s.z2 < 8u);
  do s.z3 = splitmix64_next32(seeder); while (s.z3 < 16u);
  s.z4 = splitmix64_next32(seeder);
  return s;
}

}  // namespace ermak::rng
