#pragma once
// Square root, natural logarithm and sine/cosine of eight floats at once (core/float8.h),
// for the CPU's batched Box–Muller (rng/philox_gaussian_batch.h): libm's logf/sincosf
// are scalar calls and were ~13 % of a PF8 step (docs/benchmarks.md#cpu-backend).
// Plain float arithmetic in a fixed order (no FMA contraction, no reassociation), so
// the results are the same on every x86 build that has the same vector width.
//
// Accuracy, measured against double-precision references (tests/unit/float8_math_test.cpp,
// docs/rng.md#cpu-batch): log8 ≤ 0.9 ulp, sincos8 ≤ 1.45 ulp on |a| ≤ 2π (glibc's logf
// and sincosf: 0.79 and 0.56 ulp on the same inputs). GCC contracts a·b + c into FMAs
// where the target has them; without (baseline x86-64) the bounds are 0.96 and 1.46 ulp. Derivations are in the comments; coefficients are Taylor
// coefficients (no fitted constants), truncated where the next term is < 2⁻²⁸ relative.
#include <cstdint>
#include <cstring>

#include "ermak/core/float8.h"
#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace ermak {

using I8 = std::int32_t __attribute__((vector_size(32)));

inline F8 as_f8(U8 x) { F8 f; std::memcpy(&f, &x, sizeof f); return f; }
inline U8 as_u8(F8 x) { U8 u; std::memcpy(&u, &x, sizeof u); return u; }

// Correctly rounded, like std::sqrt (IEEE 754).
inline Float8 sqrt8(Float8 x) {
#if defined(__AVX__)
  return F8(_mm256_sqrt_ps(__m256(x.v)));
#else
  F8 r;
  for (int k = 0; k < 8; ++k) r[k] = __builtin_sqrtf(x.v[k]);
  return r;
#endif
}

// ln x for positive normal x (Box–Muller: x = k·2⁻²⁴, k = 1 … 2²⁴).
//   x = 2^e · m, m ∈ [√½, √2);  f = m − 1 (exact);  s = f/(2 + f), so that
//   ln m = 2 atanh s = 2s + 2s³/3 + 2s⁵/5 + …, and with 2s = f − s·f:
//   ln m = f − s·(f − R),  R = z(2/3 + z(2/5 + z(2/7 + z·2/9))),  z = s² ≤ 0.0295;
//   the first omitted term is s·2z⁵/11 ≤ 2·10⁻⁹ |ln m|. The correction s·(f − R) ≈ f²/2
//   is small beside f, so its rounding errors shrink; e·ln2 is added in two parts
//   (ln2_hi has 16 significant bits, so e·ln2_hi is exact).
inline Float8 log8(Float8 x) {
  const U8 bits = as_u8(x.v);
  I8 e = I8(bits >> 23) - 127;
  F8 m = as_f8((bits & 0x007fffffu) | 0x3f800000u);        // [1, 2)
  const I8 big = I8(m > 1.41421356f);                        // −1 where m > √2
  m = as_f8((as_u8(m) & ~U8(big)) | (as_u8(m * 0.5f) & U8(big)));
  e -= big;
  const F8 f = m - 1.0f;
  const F8 s = f / (2.0f + f);
  const F8 z = s * s;
  const F8 r = z * (0.666666666666666667f + z * (0.4f + z * (0.285714285714285714f + z * 0.222222222222222222f)));
  const F8 ef = __builtin_convertvector(e, F8);
  constexpr float kLn2Hi = 0x1.62e4p-1f, kLn2Lo = 0x1.7f7d1cp-20f;
  return (f - (s * (f - r) - ef * kLn2Lo)) + ef * kLn2Hi;
}

// sin a and cos a for |a| ≤ 2π (Box–Muller: a = 2π·u, u ∈ [0, 1)).
//   q = nearest integer to a·2/π, r = a − q·π/2 ∈ [−π/4, π/4] (Cody–Waite: π/2 =
//   P1 + P2 + P3 + P4 with 8, 12 and 10 significant bits in P1–P3, so q·Pk is exact and
//   the first three subtractions are exact; r keeps its full relative precision even for
//   a next to a multiple of π/2, where r ~ 4·10⁻⁸);
//   sin r = r + r z(−1/3! + z(1/5! + z(−1/7! + z/9!))), first omitted term r¹¹/11! ≤ 2·10⁻⁹ r;
//   cos r = 1 − z/2 + z²(1/4! + z(−1/6! + z(1/8! − z/10!))), omitted r¹²/12! ≤ 1.2·10⁻¹⁰;
//   then the quadrant q mod 4 swaps and negates.
inline void sincos8(Float8 a, Float8& sin_a, Float8& cos_a) {
  // Round to nearest by adding 1.5·2²³: the low bits of the sum hold q (|q| < 2²²).
  constexpr float kShift = 12582912.0f;
  const F8 shifted = a.v * 0.636619772367581343f + kShift;
  const U8 quadrant = as_u8(shifted);
  const F8 q = shifted - kShift;
  constexpr float kP1 = 0x1.92p+0f, kP2 = 0x1.fb6p-12f, kP3 = -0x1.778p-25f, kP4 = 0x1.68c234p-39f;
  const F8 r = (((a.v - q * kP1) - q * kP2) - q * kP3) - q * kP4;
  const F8 z = r * r;
  const F8 sin_r = r + (r * z) * (-0.166666666666666667f +
                                  z * (8.33333333333333333e-3f +
                                       z * (-1.98412698412698413e-4f + z * 2.75573192239858907e-6f)));
  // 1 − z/2 loses up to half an ulp; its rounding error (1 − w) − z/2 is exact and added back.
  const F8 half_z = 0.5f * z;
  const F8 w = 1.0f - half_z;
  const F8 cos_r = w + (((1.0f - w) - half_z) +
                        z * z * (4.16666666666666667e-2f +
                                 z * (-1.38888888888888889e-3f +
                                      z * (2.48015873015873016e-5f + z * -2.75573192239858907e-7f))));
  // Quadrant n: sin a = (s, c, −s, −c)[n], cos a = (c, −s, −c, s)[n].
  const U8 swap = U8((quadrant & 1u) != 0u);
  const U8 sin_sign = (quadrant & 2u) << 30;
  const U8 cos_sign = ((quadrant + 1u) & 2u) << 30;
  const U8 s_bits = as_u8(sin_r), c_bits = as_u8(cos_r);
  sin_a = as_f8(((s_bits & ~swap) | (c_bits & swap)) ^ sin_sign);
  cos_a = as_f8(((c_bits & ~swap) | (s_bits & swap)) ^ cos_sign);
}

}  // namespace ermak
