#pragma once
// Counts a message suggests (a step count, a checkpoint interval): rounded down to a few
// significant digits, to type rather than to read digit by digit, and no larger than the
// value they are for.
#include <cmath>

namespace ermak {

// 816 424.4 → 816 000 (3 digits); 290 494 252 → 290 000 000 (2 digits); x ≤ 0 unchanged.
inline double round_down_significant(double x, int digits) {
  if (!(x > 0)) return x;
  const double unit = std::pow(10.0, std::floor(std::log10(x)) - (digits - 1));
  return std::floor(x / unit) * unit;
}

}  // namespace ermak
