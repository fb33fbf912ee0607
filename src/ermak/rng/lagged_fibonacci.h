#pragma once
// Additive lagged Fibonacci generator: x_n = x_{n−s} + x_{n−l} (mod 2³²), with (s, l)
// from the table of the SOP-GPU RNG study (trinomials x^l + x^s + 1 primitive over GF(2);
// l are Mersenne exponents). Period 2³¹·(2^l − 1) provided some initial word is odd.
// State: the last l words (9 KB for l = 2281 … 12 MB for l = 3021377).
//
// "One RNG for all threads" (docs/rng.md#layouts): one state (a ring of l words) per
// replica; a step produces a window of W consecutive elements x_n … x_{n+W−1}, thread j
// making x_{n+j} from the ring and writing it back in place of x_{n+j−l}. The elements
// of a window depend only on earlier windows when W ≤ s, and the in-place writes never
// hit a word another thread of the window still reads when W ≤ l − s; so with
// W ≤ min(s, l − s) a window needs no synchronisation. The sequence itself does not
// depend on how it is cut into windows.
#include <cstdint>

#include "ermak/core/hd.h"

namespace ermak::rng {

struct LagPair {
  std::int32_t short_lag;
  std::int32_t long_lag;
};

inline constexpr int kLagPairCount = 10;
inline constexpr LagPair kLagPairs[kLagPairCount] = {
    {1252, 2281},     {3004, 4423},     {5502, 9689},       {10095, 19937},     {12470, 23209},
    {23463, 44497},   {54454, 132049},  {279695, 756839},   {288477, 859433},   {1010202, 3021377}};

// The largest window that needs no synchronisation.
ERMAK_HD std::int32_t lagged_fibonacci_window(LagPair lags) {
  const std::int32_t gap = lags.long_lag - lags.short_lag;
  return lags.short_lag < gap ? lags.short_lag : gap;
}

// The smallest pair whose window holds `words_per_step` words; the largest pair if none
// does (the step is then cut into several windows, with a barrier between them on a GPU).
inline LagPair choose_lagged_fibonacci_lags(std::int64_t words_per_step) {
  for (const LagPair& p : kLagPairs)
    if (lagged_fibonacci_window(p) >= words_per_step) return p;
  return kLagPairs[kLagPairCount - 1];
}

// Element j of the window that starts where ring[head] holds x_{n−l} (so x_{n−s} is at
// head + l − s): returns x_{n+j} and stores it in place of x_{n+j−l}. Requires
// 0 ≤ head < l and j < lagged_fibonacci_window(lags).
ERMAK_HD std::uint32_t lagged_fibonacci_element(std::uint32_t* ring, LagPair lags, std::int32_t head,
                                                std::int32_t j) {
  const std::int32_t l = lags.long_lag;
  std::int32_t oldest = head + j;
  if (oldest >= l) oldest -= l;
  std::int32_t recent = oldest + (l - lags.short_lag);
  if (recent >= l) recent -= l;
  const std::uint32_t x = ring[oldest] + ring[recent];
  ring[oldest] = x;
  return x;
}

}  // namespace ermak::rng
