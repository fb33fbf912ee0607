#pragma once
// Counter-based Gaussian noise (DESIGN.md §3): the Gaussian triple for
// (seed, stream, replica, bead, step) is a pure function, so results do not depend on
// threads, backends or restarts. One Philox4x32-10 call gives four uint32; Box–Muller
// turns them into four N(0,1) floats, of which a bead uses three (docs/model.md#noise).
#include <Random123/philox.h>

#include <cmath>
#include <cstdint>

#include "ermak/core/hd.h"
#include "ermak/core/sincos_turns.h"
#include "ermak/core/vec3.h"

namespace ermak::rng {

// Registry of independent streams: a new consumer of randomness takes a new id here.
enum class Stream : std::uint32_t {
  kBeadLangevin = 1,  // thermal noise of beads
  kTipLangevin = 2,   // thermal noise of an indentation tip
};

// High and low words of a·b. On the GPU two 32-bit instructions (IMAD.HI, IMAD); the
// 64-bit product of Random123's portable mulhilo made the compiler carry every round's
// words in 64-bit registers (docs/benchmarks.md, block family).
ERMAK_HD void mulhilo32(std::uint32_t a, std::uint32_t b, std::uint32_t& hi, std::uint32_t& lo) {
#if defined(__CUDA_ARCH__)
  hi = __umulhi(a, b);
  lo = a * b;
#else
  const std::uint64_t product = std::uint64_t(a) * b;
  hi = std::uint32_t(product >> 32);
  lo = std::uint32_t(product);
#endif
}

// One round of Philox4x32 with round key (k0, k1) (Salmon et al. 2011; the round
// function and multipliers of Random123's Philox4x32, which the tests compare against
// word for word).
ERMAK_HD void philox_round(r123::Philox4x32::ctr_type& c, std::uint32_t k0, std::uint32_t k1) {
  std::uint32_t hi0, lo0, hi1, lo1;
  mulhilo32(0xD2511F53u, c[0], hi0, lo0);
  mulhilo32(0xCD9E8D57u, c[2], hi1, lo1);
  c = {{hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0}};
}

// The ten round keys of one seed (Random123's key schedule: the key grows by
// (0x9E3779B9, 0xBB67AE85) before every round but the first), computed once per run. The
// CUDA kernels read them from their launch parameters, where each is an operand of the
// round's XOR: no key additions per round and bead (docs/benchmarks.md#philox-round-keys).
struct PhiloxKeys {
  std::uint32_t k0[10], k1[10];
};

ERMAK_HD PhiloxKeys philox_keys(std::uint64_t seed) {
  PhiloxKeys keys{};
  std::uint32_t k0 = std::uint32_t(seed), k1 = std::uint32_t(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    keys.k0[round] = k0;
    keys.k1[round] = k1;
  }
  return keys;
}

// Philox4x32-10.
ERMAK_HD r123::Philox4x32::ctr_type philox4x32_10(r123::Philox4x32::ctr_type c, const PhiloxKeys& keys) {
  for (int round = 0; round < 10; ++round) philox_round(c, keys.k0[round], keys.k1[round]);
  return c;
}

// Philox4x32-10 with key (k0, k1) (the schedule is folded into the rounds where inlined).
ERMAK_HD r123::Philox4x32::ctr_type philox4x32_10(r123::Philox4x32::ctr_type c, std::uint32_t k0, std::uint32_t k1) {
  return philox4x32_10(c, philox_keys(std::uint64_t(k0) | (std::uint64_t(k1) << 32)));
}

// The counter of (stream, replica, bead, step): step uses 48 bits (2.8e14 steps); the
// stream id takes the top 16 bits of word 3.
ERMAK_HD r123::Philox4x32::ctr_type philox_counter(Stream stream, std::uint32_t replica, std::uint32_t bead,
                                                   std::uint64_t step) {
  return {{bead, replica, std::uint32_t(step),
           std::uint32_t((step >> 32) & 0xffffu) | (std::uint32_t(stream) << 16)}};
}

ERMAK_HD r123::Philox4x32::ctr_type philox_block(std::uint64_t seed, Stream stream,
                                                 std::uint32_t replica, std::uint32_t bead,
                                                 std::uint64_t step) {
  return philox4x32_10(philox_counter(stream, replica, bead, step), philox_keys(seed));
}

// Uniform in (0, 1]: the top 24 bits, +1 so that log() never sees zero.
ERMAK_HD float uniform_open0(std::uint32_t bits) {
  return float((bits >> 8) + 1u) * (1.0f / 16777216.0f);
}

// Box–Muller on two uint32: returns (r cos θ, r sin θ), θ = 2π·u_closed(b) = 2π·(b >> 8)/2²⁴,
// whose sine and cosine come from the integer b >> 8 (core/sincos_turns.h).
ERMAK_HD void box_muller(std::uint32_t a, std::uint32_t b, float& g0, float& g1) {
  const float radius = sqrtf(-2.0f * logf(uniform_open0(a)));
  float sin_angle, cos_angle;
  sincos_turns24(b >> 8, sin_angle, cos_angle);
  g0 = radius * cos_angle;
  g1 = radius * sin_angle;
}

// Words (0, 1) → (g_x, g_y), words (2, 3) → g_z; the fourth normal is discarded.
ERMAK_HD Vec3f gaussian3_of_block(const r123::Philox4x32::ctr_type& bits) {
  Vec3f g;
  float unused;
  box_muller(bits[0], bits[1], g.x, g.y);
  box_muller(bits[2], bits[3], g.z, unused);
  return g;
}

ERMAK_HD Vec3f gaussian3(std::uint64_t seed, Stream stream, std::uint32_t replica,
                         std::uint32_t bead, std::uint64_t step) {
  return gaussian3_of_block(philox_block(seed, stream, replica, bead, step));
}

// The same numbers from the precomputed round keys of the seed (philox_keys(seed)).
ERMAK_HD Vec3f gaussian3(const PhiloxKeys& keys, Stream stream, std::uint32_t replica, std::uint32_t bead,
                         std::uint64_t step) {
  return gaussian3_of_block(philox4x32_10(philox_counter(stream, replica, bead, step), keys));
}

}  // namespace ermak::rng
