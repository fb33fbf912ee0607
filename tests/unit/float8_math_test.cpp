// core/float8_math.h against double-precision references (docs/rng.md#cpu-batch):
// exhaustively over the inputs Box–Muller feeds log8 (every u = k·2⁻²⁴, k = 1 … 2²⁴), and
// on random floats over wider ranges. The tolerance is the measured worst case rounded
// up (log 0.89 ulp); the double references are accurate to ~1e-16, far below an ulp.
// sincos_turns8 is tested with the scalar version in sincos_turns_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "ermak/core/float8_math.h"
#include "support/float_ulps.h"

namespace {

using namespace ermak;

using test::ulps;

constexpr double kLogUlps = 1.0;

TEST(Float8Math, LogOnEveryBoxMullerUniform) {
  double worst = 0;
  for (std::uint32_t k0 = 1; k0 <= (1u << 24); k0 += 8) {
    F8 u;
    for (int l = 0; l < 8; ++l) u[l] = float(std::min(k0 + l, 1u << 24)) * (1.0f / 16777216.0f);
    const F8 y = log8(u).v;
    for (int l = 0; l < 8; ++l) worst = std::max(worst, ulps(y[l], std::log(double(u[l]))));
  }
  EXPECT_LE(worst, kLogUlps);
  EXPECT_EQ(log8(Float8(1.0f)).v[0], 0.0f);
}

TEST(Float8Math, LogOnRandomNormalFloats) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-126, 127);
  double worst = 0;
  for (int n = 0; n < 200000; ++n) {
    F8 x;
    for (int l = 0; l < 8; ++l) x[l] = std::ldexp(mantissa(gen), exponent(gen));
    const F8 y = log8(x).v;
    for (int l = 0; l < 8; ++l) worst = std::max(worst, ulps(y[l], std::log(double(x[l]))));
  }
  EXPECT_LE(worst, kLogUlps);
}

TEST(Float8Math, SqrtIsCorrectlyRounded) {
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> x(0.0f, 40.0f);
  for (int n = 0; n < 10000; ++n) {
    F8 v;
    for (int l = 0; l < 8; ++l) v[l] = x(gen);
    const F8 r = sqrt8(v).v;
    for (int l = 0; l < 8; ++l) ASSERT_EQ(r[l], std::sqrt(v[l]));
  }
}

}  // namespace
