#pragma once
// Error of a float result in units of the float ulp at the exact (double) value: the
// measure of the accuracy tests of the noise's math functions (docs/rng.md#cpu-batch).
#include <cmath>

namespace ermak::test {

inline double ulps(float got, double exact) {
  if (exact == 0.0) return got == 0.0f ? 0.0 : INFINITY;
  int e;
  std::frexp(std::abs(exact), &e);
  return std::abs(double(got) - exact) / std::ldexp(1.0, e - 24);
}

}  // namespace ermak::test
