#include "ermak/analysis/force_curve.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ermak::analysis {

std::vector<double> path_length(std::span<const double> b) {
  std::vector<double> s(b.size(), 0.0);
  for (std::size_t i = 1; i < b.size(); ++i) {
    const double d = b[i] - b[i - 1];
    s[i] = s[i - 1] + (std::isfinite(d) ? std::abs(d) : 0.0);
  }
  return s;
}

namespace {

// Prefix sums of the finite values of y and of their count.
struct PrefixSums {
  std::vector<double> sum;
  std::vector<std::size_t> count;
};

PrefixSums prefix_sums(std::span<const double> y) {
  PrefixSums p{std::vector<double>(y.size() + 1, 0.0), std::vector<std::size_t>(y.size() + 1, 0)};
  for (std::size_t i = 0; i < y.size(); ++i) {
    const bool finite = std::isfinite(y[i]);
    p.sum[i + 1] = p.sum[i] + (finite ? y[i] : 0.0);
    p.count[i + 1] = p.count[i] + (finite ? 1 : 0);
  }
  return p;
}

// Mean of the finite values of y over rows [lo, hi]; NaN when there is none.
double window_mean(const PrefixSums& prefix, std::size_t lo, std::size_t hi) {
  const std::size_t n = prefix.count[hi + 1] - prefix.count[lo];
  return n == 0 ? std::numeric_limits<double>::quiet_NaN() : (prefix.sum[hi + 1] - prefix.sum[lo]) / double(n);
}

}  // namespace

std::vector<double> running_average_window(std::span<const double> s, std::span<const double> y,
                                           double window) {
  const std::size_t n = y.size();
  std::vector<double> out(y.begin(), y.end());
  if (n < 2 || !(window > 0.0)) return out;
  const PrefixSums prefix = prefix_sums(y);
  const double h = 0.5 * window;
  const double eps = 1e-9 * std::max(std::abs(s.back() - s.front()), window);  // rounding in s_i ± h
  // Both ends of the window [s_i − h, s_i + h] are non-decreasing in i: two pointers.
  std::size_t lo = 0, hi = 0;
  for (std::size_t i = 0; i < n; ++i) {
    while (lo < i && s[lo] < s[i] - h - eps) ++lo;
    if (hi < i) hi = i;
    while (hi + 1 < n && s[hi + 1] <= s[i] + h + eps) ++hi;
    out[i] = window_mean(prefix, lo, hi);
  }
  return out;
}

std::vector<double> running_average_points(std::span<const double> y, std::size_t points) {
  const std::size_t n = y.size();
  std::vector<double> out(y.begin(), y.end());
  if (points <= 1 || n < 2) return out;
  const PrefixSums prefix = prefix_sums(y);
  const std::size_t half = points / 2;  // points rounded up to odd: 2·half + 1
  for (std::size_t i = 0; i < n; ++i) out[i] = window_mean(prefix, i > half ? i - half : 0, std::min(n - 1, i + half));
  return out;
}

double mean_rows_per_window(std::span<const double> s, double window) {
  if (s.size() < 2 || !(window > 0.0)) return 1.0;
  const std::size_t n = s.size();
  const double span = s.back() - s.front();
  if (!(span > 0.0)) return double(n);
  // The rows the window |s_j − s_i| ≤ W/2 holds — counted as running_average_window takes
  // them (the same rounding allowance) — averaged over the rows whose window the ends do not
  // cut; over every row when none is that far from both ends (a window wider than half the
  // travel). W/Δs, the window over the mean row spacing, is one less than that at constant
  // spacing (20.2 for a window that holds 21 rows, 2·⌊W/2Δs⌋ + 1): the count is what the noise
  // of a window's mean, the block size of σ_s and the standard error of a fit over smoothed
  // points rest on.
  const double h = 0.5 * window;
  const double eps = 1e-9 * std::max(std::abs(span), window);
  double inner_sum = 0.0, all_sum = 0.0;
  std::size_t inner = 0, lo = 0, hi = 0;
  for (std::size_t i = 0; i < n; ++i) {
    while (lo < i && s[lo] < s[i] - h - eps) ++lo;
    if (hi < i) hi = i;
    while (hi + 1 < n && s[hi + 1] <= s[i] + h + eps) ++hi;
    const double rows = double(hi - lo + 1);
    all_sum += rows;
    if (s[i] - h >= s.front() - eps && s[i] + h <= s.back() + eps) inner_sum += rows, ++inner;
  }
  return std::max(1.0, inner ? inner_sum / double(inner) : all_sum / double(n));
}

namespace {

double median_in_place(std::vector<double>& v) {
  const std::size_t m = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(m), v.end());
  double med = v[m];
  if (v.size() % 2 == 0) med = 0.5 * (med + *std::max_element(v.begin(), v.begin() + std::ptrdiff_t(m)));
  return med;
}

}  // namespace

double robust_sd(std::span<const double> y) {
  std::vector<double> v;
  v.reserve(y.size());
  for (double x : y)
    if (std::isfinite(x)) v.push_back(x);
  if (v.size() < 3) return 0.0;
  const double md = median_in_place(v);
  for (double& x : v) x = std::abs(x - md);
  return 1.482602218505602 * median_in_place(v);  // 1.4826·MAD estimates a normal sd
}

double noise_sd(std::span<const double> y) {
  std::vector<double> d;
  if (y.size() >= 3) d.reserve(y.size() - 2);
  for (std::size_t i = 2; i < y.size(); ++i) {
    const double v = y[i] - 2.0 * y[i - 1] + y[i - 2];
    if (std::isfinite(v)) d.push_back(v);
  }
  if (d.size() < 3) return 0.0;
  const double md = median_in_place(d);
  for (double& v : d) v = std::abs(v - md);
  // Second differences of white noise of sd σ have sd √6·σ; 1.4826·MAD estimates an sd.
  return 1.482602218505602 * median_in_place(d) / std::sqrt(6.0);
}

namespace {

// noise_sd of the means of `block` consecutive rows taken at every offset: the robust sd
// (1.4826·MAD/√6) of all second differences M_i − 2M_{i+block} + M_{i+2·block}, where M_i is
// the mean of rows i … i+block−1, for every i from 0 to size − 3·block. Those of one offset
// o (i ≡ o mod block) are exactly the second differences of the successive disjoint block
// means starting at row o, so this is the estimate over the blocks of every offset pooled
// into one sample (the blocks that fit at each). Its scale is that of one offset's: each
// M_i − 2M_{i+block} + M_{i+2·block} is the same combination of 3·block consecutive rows
// whatever i, so on stationary noise all have the distribution the disjoint blocks' have
// and their MAD estimates the same quantity. Pooling rather than averaging the
// per-offset estimates: one median over every second difference, no offset with fewer
// blocks than the rest weighed like the others, and it scatters no more (white noise,
// 4000 rows, blocks of 21, 400 seeds: relative sd 0.056 pooled, 0.056 the mean and 0.058 the
// median of the 21 per-offset estimates, 0.100 offset 0 alone, which is what this replaced — one
// offset's ~190 block means scattered enough that a block one row longer moved σ_s by
// −26 % to +49 % on real replicas). The MAD keeps the few second differences that straddle
// a rupture (3·block of them per drop) from counting. Prefix sums make it O(size) and the
// median O(size) on average; a block with a non-finite row has no mean and its second
// differences are skipped, as noise_sd skips them.
double all_offsets_block_noise_sd(std::span<const double> y, std::size_t block) {
  const std::size_t n = y.size();
  if (block == 0 || n < 3 * block) return 0.0;
  // Sums relative to the first finite value keep the prefix sums' rounding far below the noise.
  double ref = 0.0;
  for (double v : y)
    if (std::isfinite(v)) {
      ref = v;
      break;
    }
  std::vector<double> sum(n + 1, 0.0);
  std::vector<std::size_t> bad(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const bool finite = std::isfinite(y[i]);
    sum[i + 1] = sum[i] + (finite ? y[i] - ref : 0.0);
    bad[i + 1] = bad[i] + (finite ? 0 : 1);
  }
  const double inv = 1.0 / double(block);
  std::vector<double> d;
  d.reserve(n - 3 * block + 1);
  for (std::size_t i = 0; i + 3 * block <= n; ++i) {
    if (bad[i + 3 * block] != bad[i]) continue;
    const double m0 = (sum[i + block] - sum[i]) * inv;
    const double m1 = (sum[i + 2 * block] - sum[i + block]) * inv;
    const double m2 = (sum[i + 3 * block] - sum[i + 2 * block]) * inv;
    d.push_back(m2 - 2.0 * m1 + m0);
  }
  if (d.size() < 3) return 0.0;
  const double md = median_in_place(d);
  for (double& v : d) v = std::abs(v - md);
  return 1.482602218505602 * median_in_place(d) / std::sqrt(6.0);
}

}  // namespace

double block_mean_noise_sd(std::span<const double> y, std::size_t block) {
  block = std::max<std::size_t>(block, 1);
  if (y.size() / block >= 8) return all_offsets_block_noise_sd(y, block);
  // Fewer than 8 windows in the record: the means of 16 shorter blocks (at every offset, as
  // above), scaled to a window as white noise scales (√(short/block)). Rows correlated over
  // less than a short block count right — noise_sd(y)/√block, the same scaling from single
  // rows, came out 10–60 times too small on a slowly wandering force — and 16 blocks give
  // the robust estimate enough second differences that the curve's own bends and drops do
  // not make it (8 blocks of a whole short record measured the curve: 7–16 pN on 1.6 pN of
  // noise).
  const std::size_t short_block = std::max<std::size_t>(y.size() / 16, 1);
  if (short_block >= block) return noise_sd(y) / std::sqrt(double(block));
  return all_offsets_block_noise_sd(y, short_block) * std::sqrt(double(short_block) / double(block));
}

std::vector<ForcePeak> find_force_peaks(std::span<const double> position,
                                        std::span<const double> force, const PeakCriteria& criteria) {
  std::vector<ForcePeak> peaks;
  const std::size_t n = force.size();
  std::size_t first = 0;
  while (first < n && !std::isfinite(force[first])) ++first;
  if (first == n) return peaks;
  const double drop = std::max(criteria.min_drop, 0.0);
  // Every peak, the first too, needs a rise of min_drop from the lowest point before it: the
  // search starts by following the trough, so a series that starts high and falls (a record
  // cut after its first rows, a tip still settling) makes no peak at its first row.
  bool seeking_peak = false;
  std::size_t imax = first, imin = first, last_trough = first;
  for (std::size_t i = first; i < n; ++i) {
    const double f = force[i];
    if (!std::isfinite(f)) continue;
    if (seeking_peak) {
      if (f > force[imax]) {
        imax = i;
      } else if (f < force[imax] - drop) {
        ForcePeak p;
        p.index = imax;
        p.trough_before = last_trough;
        peaks.push_back(p);
        seeking_peak = false;
        imin = i;
      }
    } else {
      if (f < force[imin]) {
        imin = i;
      } else if (f > force[imin] + drop) {
        if (!peaks.empty()) peaks.back().trough_after = imin;
        last_trough = imin;
        seeking_peak = true;
        imax = i;
      }
    }
  }
  if (!seeking_peak && !peaks.empty()) peaks.back().trough_after = imin;  // in the last peak's drop

  // Merge peaks closer than min_separation in position into the higher one; the merged
  // peak's rising edge starts at the first one's trough and its drop ends at the last's.
  std::vector<ForcePeak> merged;
  for (const ForcePeak& p : peaks) {
    if (!merged.empty() &&
        std::abs(position[p.index] - position[merged.back().index]) < criteria.min_separation) {
      ForcePeak& q = merged.back();
      if (force[p.index] > force[q.index]) q.index = p.index;
      q.trough_after = p.trough_after;
      continue;
    }
    merged.push_back(p);
  }
  for (ForcePeak& p : merged) {
    p.force = force[p.index];
    p.position = position[p.index];
    p.drop = p.force - force[p.trough_after];
  }
  return merged;
}

}  // namespace ermak::analysis
