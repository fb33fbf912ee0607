#pragma once
// Square root, natural logarithm and the sine/cosine of whole 2⁻²⁴ turns of eight floats
// at once (core/float8.h), for the CPU's batched Box–Muller (rng/philox_gaussian_batch.h):
// libm's logf/sincosf are scalar calls and were ~13 % of a PF8 step
// (docs/benchmarks.md#cpu-backend).
// Plain float arithmetic in a fixed order (no reassociation), so the results are the
// same on every x86 build that has the same vector width and the same FMA support.
//
// Accuracy, measured against double-precision references (tests/unit/float8_math_test.cpp,
// tests/unit/sincos_turns_test.cpp, docs/rng.md#cpu-batch): log8 ≤ 0.9 ulp (glibc's logf:
// 0.79 ulp on the same inputs), sincos_turns8 ≤ 1.48 ulp over all 2²⁴ angles. GCC
// contracts a·b + c into FMAs where the target has them; without (baseline x86-64) the
// bounds are 0.96 and 1.93 ulp. Derivations are in the comments; coefficients are Taylor
// coefficients (no fitted constants), truncated where the next term is < 2⁻²⁸ relative.
#include <cstdint>
#include <cstring>

#include "ermak/core/float8.h"
#include "ermak/core/sincos_turns.h"
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

// sincos_turns24 (core/sincos_turns.h) on 8 whole numbers of 2⁻²⁴ turns: the same exact
// integer reduction and the same series.
inline void sincos_turns8(U8 k, Float8& sin_a, Float8& cos_a) {
  const U8 shifted = (k & 0xffffffu) + (1u << 21);
  const U8 quadrant = shifted >> 22;
  const F8 j = __builtin_convertvector(I8(shifted & 0x3fffffu) - (1 << 21), F8);  // exact
  const F8 r = j * kTurnStepHi + j * kTurnStepLo;
  F8 sin_r, cos_r;
  sincos_quarter(r, sin_r, cos_r);
  // Quadrant n: sin a = (s, c, −s, −c)[n], cos a = (c, −s, −c, s)[n].
  const U8 swap = U8((quadrant & 1u) != 0u);
  const U8 sin_sign = (quadrant & 2u) << 30;
  const U8 cos_sign = ((quadrant + 1u) & 2u) << 30;
  const U8 s_bits = as_u8(sin_r), c_bits = as_u8(cos_r);
  sin_a = as_f8(((s_bits & ~swap) | (c_bits & swap)) ^ sin_sign);
  cos_a = as_f8(((c_bits & ~swap) | (s_bits & swap)) ^ cos_sign);
}

}  // namespace ermak
