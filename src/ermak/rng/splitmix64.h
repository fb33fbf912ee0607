#pragma once
// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014; constants of Vigna's splitmix64.c): the independent generator that seeds
// every stateful generator of ermak (docs/rng.md#seeding). It is itself counter-like:
// output k of a stream is mix64(start + (k + 1)·γ), so seeding is order-free and can run
// on the GPU, one thread per state.
#include <cstdint>

#include "ermak/core/hd.h"

namespace ermak::rng {

struct SplitMix64 {
  std::uint64_t state;
};

// The finaliser of SplitMix64 (a bijection of 64-bit words).
ERMAK_HD std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

ERMAK_HD std::uint64_t splitmix64_next(SplitMix64& s) {
  s.state += 0x9e3779b97f4a7c15ULL;
  return mix64(s.state);
}

ERMAK_HD std::uint32_t splitmix64_next32(SplitMix64& s) { return std::uint32_t(splitmix64_next(s) >> 32); }

// Tags that keep the seeding of different generators apart (a user seed used with two
// generators gives unrelated states).
enum class GeneratorTag : std::uint32_t {
  kLcg = 1,
  kRan2 = 2,
  kHybridTaus = 3,
  kLaggedFibonacci = 4,
  kMt19937 = 5,
};

// The seeding stream of the state of thread (replica, bead) of a per-thread layout, and
// (with bead = 0) of the one state of a replica in the shared layout:
//   start = mix64(seed ^ tag·0xD1B54A32D192ED03) ^ mix64(replica·2³² + bead).
// mix64 is a bijection, so distinct (replica, bead) start at distinct points; two
// streams overlap only if their starts differ by a small multiple of γ (probability
// ~ words·threads²/2⁶⁴).
ERMAK_HD SplitMix64 seeding_stream(std::uint64_t seed, GeneratorTag tag, std::uint32_t replica,
                                   std::uint32_t bead) {
  const std::uint64_t base = mix64(seed ^ (std::uint64_t(tag) * 0xD1B54A32D192ED03ULL));
  return SplitMix64{base ^ mix64((std::uint64_t(replica) << 32) | bead)};
}

}  // namespace ermak::rng
