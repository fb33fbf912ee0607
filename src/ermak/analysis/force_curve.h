#pragma once
// Numerics on one force curve (docs/analysis.md): running-average smoothing, a noise
// estimate, and the force-peak (unfolding / breaking event) finder.
#include <cstddef>
#include <span>
#include <vector>

namespace ermak::analysis {

// --- smoothing -------------------------------------------------------------------------

// Cumulative path length Σ|Δb| of a driving coordinate b (the cantilever base): equals
// v·t for constant-velocity pulling and keeps growing through a reversal (retraction).
std::vector<double> path_length(std::span<const double> b);

// Both running averages average the finite values of their window (a `nan` row of a table,
// written where a run blew up, spoils only itself); a window without one gives NaN.
//
// Centred running average over the rows j with |s_j − s_i| ≤ window/2, s non-decreasing
// (a path length or a time). Near the ends the window is cut at the first and last row
// (it stays an average over at least half a window, so the ends are not noisier than
// the rest; on a trend they are biased by at most slope·window/4). window ≤ 0 returns y.
std::vector<double> running_average_window(std::span<const double> s, std::span<const double> y,
                                           double window);

// Centred running average over `points` consecutive rows (rounded up to odd), cut at the
// ends as above. points ≤ 1 returns y.
std::vector<double> running_average_points(std::span<const double> y, std::size_t points);

// Mean number of rows that the window of running_average_window spans (away from ends).
double mean_rows_per_window(std::span<const double> s, double window);

// Robust standard deviation of the noise of y: 1.4826·MAD of the second differences
// y[i+1] − 2y[i] + y[i−1], divided by √6 (exact for white noise; a linear trend drops out,
// and the few large jumps at rupture events do not count). 0 for fewer than 5 rows.
double noise_sd(std::span<const double> y);
// The spread of the values themselves: 1.4826 × their median absolute deviation (an sd
// for normal values, robust to a minority of outliers; non-finite values skipped; 0 for
// fewer than 3).
double robust_sd(std::span<const double> y);

// Noise of averages over `block` consecutive rows — the noise left on a curve smoothed
// with a window of that many rows: the robust sd (1.4826·MAD/√6) of the second differences
// M_i − 2M_{i+block} + M_{i+2·block} of the means M_i of rows i … i+block−1, at every row i —
// the successive blocks' means at every block offset, pooled. Unlike noise_sd(y)/√block it
// follows noise correlated over several rows (frequent output), though adjacent blocks'
// correlation makes it low by 9 % for rows correlated as ρ^lag with ρ = 0.8 and blocks of
// 21 (docs/analysis.md). With fewer than 8 blocks in y it takes the means of 16 shorter
// blocks (every offset too) scaled to `block` rows as white noise scales (single rows when
// y has fewer than 32: noise_sd(y)/√block).
double block_mean_noise_sd(std::span<const double> y, std::size_t block);

// --- peaks -----------------------------------------------------------------------------

struct PeakCriteria {
  double min_drop = 10.0;       // pN: a peak must be followed by a drop at least this large
  double min_separation = 0.0;  // nm: peaks closer than this in position are merged
};

struct ForcePeak {
  std::size_t index = 0;          // row of the maximum
  std::size_t trough_before = 0;  // row of the minimum before it (start of the rising edge)
  std::size_t trough_after = 0;   // row of the minimum after it (end of its drop)
  double force = 0.0;             // force at index
  double position = 0.0;          // position (extension, indentation) at index
  double drop = 0.0;              // force − force at trough_after
};

// Peaks of `force` (in row order) by hysteresis: the search for a peak starts when the
// force has risen min_drop above the lowest point before (the trough; for the first peak
// the lowest point since the first row), and a running maximum becomes a peak once the
// force has fallen min_drop below it. Noise smaller than
// min_drop can neither make nor split a peak. A maximum at the end of the series that is
// not followed by a drop is not a peak. Successive peaks whose positions differ by less
// than min_separation are merged into the higher one. Run it on a smoothed curve.
std::vector<ForcePeak> find_force_peaks(std::span<const double> position,
                                        std::span<const double> force, const PeakCriteria& criteria);

}  // namespace ermak::analysis
