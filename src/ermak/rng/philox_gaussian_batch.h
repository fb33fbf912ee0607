#pragma once
// rng::gaussian3 for 8 consecutive beads at once, for the CPU backend (CUDA keeps the
// scalar philox_gaussian.h, one bead per thread). Same counters, key, uniforms and
// Box–Muller as philox_gaussian.h: the Philox words are equal bit for bit, the Gaussians
// agree within a few float ulps (libm's logf is replaced by core/float8_math.h's log8;
// tolerance and measurements in docs/rng.md#cpu-batch). The CPU engine draws every bead's
// noise through this function — in blocks aligned to multiples of 8 — so a bead's noise
// does not depend on how beads are split among threads.
#include <cstdint>

#include "ermak/core/float8.h"
#include "ermak/core/float8_math.h"
#include "ermak/rng/philox_gaussian.h"
#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace ermak::rng {

constexpr std::int32_t kGaussianBatch = 8;

// The four Philox words of beads first_bead … first_bead + 7: words[j][k] =
// philox_block(seed, stream, replica, first_bead + k, step)[j].
struct PhiloxWords8 {
  U8 words[4];
};

#if defined(__AVX2__)
namespace detail {
// hi:lo = x·M per 32-bit lane: vpmuludq multiplies the even lanes, the odd lanes are
// shifted down and multiplied, and the 64-bit products are split and interleaved.
inline void mulhilo8(__m256i x, __m256i multiplier, __m256i& hi, __m256i& lo) {
  const __m256i even = _mm256_mul_epu32(x, multiplier);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(x, 32), multiplier);
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xaa);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xaa);
}
}  // namespace detail
#endif

// Philox4x32-10 (Random123's round function and key schedule) on 8 counters.
inline PhiloxWords8 philox_block8(std::uint64_t seed, Stream stream, std::uint32_t replica,
                                  std::uint32_t first_bead, std::uint64_t step) {
  PhiloxWords8 out;
#if defined(__AVX2__)
  __m256i c0 = _mm256_add_epi32(_mm256_set1_epi32(int(first_bead)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  __m256i c1 = _mm256_set1_epi32(int(replica));
  __m256i c2 = _mm256_set1_epi32(int(std::uint32_t(step)));
  __m256i c3 = _mm256_set1_epi32(int(std::uint32_t((step >> 32) & 0xffffu) | (std::uint32_t(stream) << 16)));
  std::uint32_t k0 = std::uint32_t(seed), k1 = std::uint32_t(seed >> 32);
  const __m256i m0 = _mm256_set1_epi64x(0xD2511F53), m1 = _mm256_set1_epi64x(0xCD9E8D57);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    __m256i hi0, lo0, hi1, lo1;
    detail::mulhilo8(c0, m0, hi0, lo0);
    detail::mulhilo8(c2, m1, hi1, lo1);
    const __m256i n0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), _mm256_set1_epi32(int(k0)));
    const __m256i n2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), _mm256_set1_epi32(int(k1)));
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
  }
  out.words[0] = U8(c0);
  out.words[1] = U8(c1);
  out.words[2] = U8(c2);
  out.words[3] = U8(c3);
#else
  for (std::uint32_t k = 0; k < 8; ++k) {
    const auto b = philox_block(seed, stream, replica, first_bead + k, step);
    for (int j = 0; j < 4; ++j) out.words[j][k] = b[j];
  }
#endif
  return out;
}

// uniform_open0 of philox_gaussian.h on 8 words (the values are below 2²⁵, so the signed
// conversion is exact).
inline Float8 uniform_open0_8(U8 bits) {
  return __builtin_convertvector(I8((bits >> 8) + 1u), F8) * (1.0f / 16777216.0f);
}

struct Gaussians8 {
  Float8 x, y, z;
};

// Box–Muller of philox_gaussian.h: words (0, 1) → (x, y), words (2, 3) → z (cosine).
inline Gaussians8 gaussian3_from_words8(const PhiloxWords8& w) {
  const Float8 radius01 = sqrt8(-2.0f * log8(uniform_open0_8(w.words[0])).v);
  const Float8 radius23 = sqrt8(-2.0f * log8(uniform_open0_8(w.words[2])).v);
  Float8 sin01, cos01, sin23, cos23;
  sincos_turns8(w.words[1] >> 8, sin01, cos01);
  sincos_turns8(w.words[3] >> 8, sin23, cos23);
  return {radius01 * cos01, radius01 * sin01, radius23 * cos23};
}

// gaussian3(seed, stream, replica, first_bead + k, step) for k = 0 … 7, in lane k.
inline Gaussians8 gaussian3_batch8(std::uint64_t seed, Stream stream, std::uint32_t replica,
                                   std::uint32_t first_bead, std::uint64_t step) {
  return gaussian3_from_words8(philox_block8(seed, stream, replica, first_bead, step));
}

}  // namespace ermak::rng
