#include "ermak/analysis/observables.h"

#include <cmath>

namespace ermak {

StructureObservables measure_structure(const Topology& topology, const float* x, const float* y,
                                       const float* z, double formed_ratio,
                                       std::int32_t end_first, std::int32_t end_last) {
  StructureObservables out;
  const std::int32_t n = topology.bead_count();
  std::int64_t formed = 0;
  const double ratio2 = formed_ratio * formed_ratio;
  for (const NativeContact& c : topology.native_contacts) {
    const double dx = x[c.i] - x[c.j], dy = y[c.i] - y[c.j], dz = z[c.i] - z[c.j];
    if (dx * dx + dy * dy + dz * dz < ratio2 * double(c.r0_A) * c.r0_A) ++formed;
  }
  out.native_fraction = topology.native_contacts.empty()
                            ? 0.0
                            : double(formed) / double(topology.native_contacts.size());
  double cx = 0, cy = 0, cz = 0;
  for (std::int32_t i = 0; i < n; ++i) { cx += x[i]; cy += y[i]; cz += z[i]; }
  cx /= n; cy /= n; cz /= n;
  double sum2 = 0;
  for (std::int32_t i = 0; i < n; ++i)
    sum2 += (x[i] - cx) * (x[i] - cx) + (y[i] - cy) * (y[i] - cy) + (z[i] - cz) * (z[i] - cz);
  out.radius_of_gyration_A = std::sqrt(sum2 / n);
  const double ex = double(x[end_last]) - x[end_first], ey = double(y[end_last]) - y[end_first],
               ez = double(z[end_last]) - z[end_first];
  out.end_to_end_A = std::sqrt(ex * ex + ey * ey + ez * ez);
  return out;
}

}  // namespace ermak
