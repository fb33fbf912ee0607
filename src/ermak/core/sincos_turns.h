#pragma once
// Sine and cosine of a whole number of 2⁻²⁴ turns, a = 2π·k/2²⁴ with 0 ≤ k < 2²⁴: the
// angle of Box–Muller (docs/model.md#noise), where k is the top 24 bits of a random word.
// Because k is an integer, the reduction to the nearest quarter turn is exact integer
// arithmetic:
//   n = ⌊(k + 2²¹)/2²²⌋ (the nearest multiple of π/2, mod 4),
//   j = k − n·2²² ∈ [−2²¹, 2²¹), r = j·2π/2²⁴ ∈ [−π/4, π/4),
// with 2π/2²⁴ in two float parts (r = j·hi + j·lo, one fused rounding where FMA exists).
// No Cody–Waite constants and no large-argument path: on the GPU about half the
// instructions of CUDA's sinf + cosf, which each reduce the argument again
// (docs/benchmarks.md#box-muller-by-whole-turns). Exact zeros stay exact (k = 0, 2²²,
// 2²³, 3·2²²).
// The series are Taylor's (no fitted constants), for |r| ≤ π/4:
//   sin r = r + r·z(−1/3! + z(1/5! + z(−1/7! + z/9!))), first omitted term r¹¹/11! ≤ 2·10⁻⁹ r;
//   cos r = 1 − z/2 + z²(1/4! + z(−1/6! + z(1/8! − z/10!))), omitted r¹²/12! ≤ 1.2·10⁻¹⁰,
// z = r², with the rounding of 1 − z/2 added back. sincos_quarter is a template so that
// the CPU's 8-lane version (core/float8_math.h, sincos_turns8) evaluates the same
// expressions. Accuracy, exhaustively over all 2²⁴ k: tests/unit/sincos_turns_test.cpp.
#include <cmath>
#include <cstdint>

#include "ermak/core/hd.h"

namespace ermak {

// 2π/2²⁴ = kTurnStepHi + kTurnStepLo (hi: the nearest float; lo: the nearest float to the rest).
constexpr float kTurnStepHi = 0x1.921fb6p-22f;
constexpr float kTurnStepLo = -0x1.777a5cp-47f;

// sin r and cos r for |r| ≤ π/4 (T: float, or an 8-lane float vector on the CPU).
template <class T>
ERMAK_HD void sincos_quarter(T r, T& sin_r, T& cos_r) {
  const T z = r * r;
  sin_r = r + (r * z) * (-0.166666666666666667f +
                         z * (8.33333333333333333e-3f + z * (-1.98412698412698413e-4f + z * 2.75573192239858907e-6f)));
  // 1 − z/2 loses up to half an ulp; its rounding error (1 − w) − z/2 is exact and added back.
  const T half_z = 0.5f * z;
  const T w = 1.0f - half_z;
  cos_r = w + (((1.0f - w) - half_z) +
               z * z * (4.16666666666666667e-2f +
                        z * (-1.38888888888888889e-3f + z * (2.48015873015873016e-5f + z * -2.75573192239858907e-7f))));
}

// sin and cos of 2π·k/2²⁴ for 0 ≤ k < 2²⁴ (higher bits of k are ignored).
ERMAK_HD void sincos_turns24(std::uint32_t k, float& sin_a, float& cos_a) {
  const std::uint32_t shifted = (k & 0xffffffu) + (1u << 21);
  const std::uint32_t quadrant = shifted >> 22;
  const float j = float(int(shifted & 0x3fffffu) - (1 << 21));  // exact: |j| ≤ 2²¹
  const float r = fmaf(j, kTurnStepHi, j * kTurnStepLo);
  float s, c;
  sincos_quarter(r, s, c);
  // Quadrant n: sin a = (s, c, −s, −c)[n], cos a = (c, −s, −c, s)[n].
  const bool swap = (quadrant & 1u) != 0u;
  const float sin_v = swap ? c : s, cos_v = swap ? s : c;
  sin_a = (quadrant & 2u) != 0u ? -sin_v : sin_v;
  cos_a = ((quadrant + 1u) & 2u) != 0u ? -cos_v : cos_v;
}

}  // namespace ermak
