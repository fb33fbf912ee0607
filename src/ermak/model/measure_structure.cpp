#include "ermak/model/measure_structure.h"

namespace ermak {

StructureObservables measure_structure(const Topology& topology, const float* x, const float* y,
                                       const float* z, double formed_ratio,
                                       std::int32_t end_first, std::int32_t end_last) {
  StructureObservables out;
  const std::int32_t n = topology.bead_count();
  std::int64_t formed = 0;
  for (const NativeContact& c : topology.native_contacts)
    if (structure::contact_formed(x[c.i] - x[c.j], y[c.i] - y[c.j], z[c.i] - z[c.j], c.r0_A, formed_ratio))
      ++formed;
  out.native_fraction = structure::native_fraction(formed, std::int64_t(topology.native_contacts.size()));
  double cx = 0, cy = 0, cz = 0;
  for (std::int32_t i = 0; i < n; ++i) { cx += x[i]; cy += y[i]; cz += z[i]; }
  cx /= n; cy /= n; cz /= n;
  double sum2 = 0;
  for (std::int32_t i = 0; i < n; ++i) sum2 += structure::squared_deviation_A2(x[i], y[i], z[i], cx, cy, cz);
  out.radius_of_gyration_A = structure::radius_of_gyration_A(sum2, n);
  out.end_to_end_A =
      structure::end_to_end_A(x[end_first], y[end_first], z[end_first], x[end_last], y[end_last], z[end_last]);
  return out;
}

}  // namespace ermak
