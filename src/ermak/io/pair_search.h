#pragma once
// Every pair of points closer than a cutoff, through a cell list: O(N) for a compact
// structure, O(N) memory however sparse it is (occupied cells only). Used by the topology
// builder for C-alpha, bead and side-chain-atom contacts (docs/topology.md).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "ermak/core/vec3.h"

namespace ermak {

class CellList {
 public:
  // Cells of edge `cutoff_A` (> 0): partners of a point lie in its own or the 26 adjacent
  // cells. Cells are keyed by their integer coordinates and found by binary search in the
  // sorted keys.
  CellList(const std::vector<Vec3d>& points, double cutoff_A) : points_(points), cutoff_(cutoff_A) {
    const std::size_t n = points.size();
    if (n == 0) return;
    lo_ = points[0];
    for (const Vec3d& p : points) {
      lo_.x = std::min(lo_.x, p.x);
      lo_.y = std::min(lo_.y, p.y);
      lo_.z = std::min(lo_.z, p.z);
    }
    cell_.resize(n);
    sorted_.resize(n);
    for (std::size_t b = 0; b < n; ++b) {
      cell_[b] = {coord(points[b].x, lo_.x), coord(points[b].y, lo_.y), coord(points[b].z, lo_.z)};
      sorted_[b] = {key(cell_[b][0], cell_[b][1], cell_[b][2]), static_cast<std::int32_t>(b)};
    }
    std::sort(sorted_.begin(), sorted_.end());
  }

  // f(i, j, distance²) for every pair i < j with distance < cutoff, in no particular order.
  template <class F>
  void for_each_pair(F&& f) const {
    const double cutoff2 = cutoff_ * cutoff_;
    const std::size_t n = points_.size();
    // Walk the points cell by cell (in key order), so the neighbour cells found for the
    // first point of a cell serve all of its points.
    std::size_t begin = 0;
    while (begin < n) {
      std::size_t end = begin;
      const std::uint64_t k = sorted_[begin].first;
      while (end < n && sorted_[end].first == k) ++end;
      const auto& c = cell_[sorted_[begin].second];
      for (int dx = -1; dx <= 1; ++dx)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dz = -1; dz <= 1; ++dz) {
            const std::int64_t cx = c[0] + dx, cy = c[1] + dy, cz = c[2] + dz;
            if (cx < 0 || cy < 0 || cz < 0) continue;
            const std::uint64_t other = key(cx, cy, cz);
            if (other < k) continue;  // each pair of cells once
            auto lo = std::lower_bound(sorted_.begin(), sorted_.end(), std::make_pair(other, std::int32_t{-1}));
            if (lo == sorted_.end() || lo->first != other) continue;
            auto hi = lo;
            while (hi != sorted_.end() && hi->first == other) ++hi;
            for (std::size_t a = begin; a < end; ++a) {
              const std::int32_t i = sorted_[a].second;
              const Vec3d pi = points_[i];
              for (auto it = (other == k ? sorted_.begin() + a + 1 : lo); it != hi; ++it) {
                const std::int32_t j = it->second;
                const Vec3d d = points_[j] - pi;
                const double d2 = d.x * d.x + d.y * d.y + d.z * d.z;
                if (d2 < cutoff2) {
                  if (i < j) f(i, j, d2);
                  else f(j, i, d2);
                }
              }
            }
          }
      begin = end;
    }
  }

 private:
  static constexpr std::int64_t kAxisCells = 1 << 20;
  // Clamped in double before the cast: a point far beyond the grid, or a tiny cutoff,
  // lands in the last cell (its pairs still tested by distance) instead of overflowing.
  std::int64_t coord(double v, double origin) const {
    const double cell = (v - origin) / cutoff_;
    return cell < double(kAxisCells - 2) ? static_cast<std::int64_t>(cell) : kAxisCells - 2;
  }
  static std::uint64_t key(std::int64_t x, std::int64_t y, std::int64_t z) {
    return static_cast<std::uint64_t>((x * kAxisCells + y) * kAxisCells + z);
  }

  const std::vector<Vec3d>& points_;
  double cutoff_;
  Vec3d lo_{};
  std::vector<std::array<std::int64_t, 3>> cell_;
  std::vector<std::pair<std::uint64_t, std::int32_t>> sorted_;
};

// Convenience: f(i, j, distance²) for every pair i < j of `points` closer than cutoff_A.
template <class F>
void for_each_close_pair(const std::vector<Vec3d>& points, double cutoff_A, F&& f) {
  if (points.size() < 2 || !(cutoff_A > 0.0)) return;
  CellList(points, cutoff_A).for_each_pair(std::forward<F>(f));
}

}  // namespace ermak
