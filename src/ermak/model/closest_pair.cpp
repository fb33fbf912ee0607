#include "ermak/model/closest_pair.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace ermak {

ClosestPair closest_pair(const std::vector<Vec3d>& p) {
  std::vector<int> order(p.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = int(k);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return p[std::size_t(a)].x < p[std::size_t(b)].x; });
  ClosestPair best;
  for (std::size_t a = 0; a < order.size(); ++a)
    for (std::size_t b = a + 1; b < order.size(); ++b) {
      const Vec3d& u = p[std::size_t(order[a])];
      const Vec3d& v = p[std::size_t(order[b])];
      if (v.x - u.x >= best.distance_A) break;
      const double d = std::sqrt((u.x - v.x) * (u.x - v.x) + (u.y - v.y) * (u.y - v.y) + (u.z - v.z) * (u.z - v.z));
      if (d < best.distance_A) best = {std::min(order[a], order[b]), std::max(order[a], order[b]), d};
    }
  return best;
}

}  // namespace ermak
