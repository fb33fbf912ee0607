// core/float8_math.h against double-precision references (docs/rng.md#cpu-batch):
// exhaustively over the inputs Box–Muller feeds them (every u = k·2⁻²⁴, k = 1 … 2²⁴, and
// every angle 2π·k·2⁻²⁴, k = 0 … 2²⁴ − 1, as float), and on random floats over wider
// ranges. The tolerances are the measured worst cases rounded up (log 0.89 ulp,
// sin/cos 1.43 ulp); the double references are accurate to ~1e-16, far below an ulp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "ermak/core/float8_math.h"

namespace {

using namespace ermak;

// Error of a float result in units of the float ulp at the exact value.
double ulps(float got, double exact) {
  if (exact == 0.0) return got == 0.0f ? 0.0 : INFINITY;
  int e;
  std::frexp(std::abs(exact), &e);
  return std::abs(double(got) - exact) / std::ldexp(1.0, e - 24);
}

constexpr double kLogUlps = 1.0;
constexpr double kTrigUlps = 1.5;

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

void check_sincos(const F8& a, double& worst_sin, double& worst_cos) {
  Float8 s, c;
  sincos8(a, s, c);
  for (int l = 0; l < 8; ++l) {
    worst_sin = std::max(worst_sin, ulps(s.v[l], std::sin(double(a[l]))));
    worst_cos = std::max(worst_cos, ulps(c.v[l], std::cos(double(a[l]))));
  }
}

TEST(Float8Math, SinCosOnEveryBoxMullerAngle) {
  double worst_sin = 0, worst_cos = 0;
  for (std::uint32_t k0 = 0; k0 < (1u << 24); k0 += 8) {
    F8 a;
    for (int l = 0; l < 8; ++l) a[l] = 6.2831853071795865f * (float(k0 + l) * (1.0f / 16777216.0f));
    check_sincos(a, worst_sin, worst_cos);
  }
  EXPECT_LE(worst_sin, kTrigUlps);
  EXPECT_LE(worst_cos, kTrigUlps);
}

TEST(Float8Math, SinCosOnRandomAnglesAndNextToMultiplesOfHalfPi) {
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> angle(-6.2831853f, 6.2831853f);
  double worst_sin = 0, worst_cos = 0;
  for (int n = 0; n < 200000; ++n) {
    F8 a;
    for (int l = 0; l < 8; ++l) a[l] = angle(gen);
    check_sincos(a, worst_sin, worst_cos);
  }
  // The floats nearest to q·π/2, where the result is tiny and the reduction must keep
  // the full relative precision of a − q·π/2 (~4e-8).
  for (int q = -4; q <= 4; ++q) {
    float x = float(q * 1.57079632679489662);
    for (int step = 0; step < 64; ++step) x = std::nextafter(x, -100.0f);
    for (int block = 0; block < 16; ++block) {
      F8 a;
      for (int l = 0; l < 8; ++l, x = std::nextafter(x, 100.0f)) a[l] = x;
      check_sincos(a, worst_sin, worst_cos);
    }
  }
  EXPECT_LE(worst_sin, kTrigUlps);
  EXPECT_LE(worst_cos, kTrigUlps);
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
