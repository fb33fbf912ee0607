#pragma once
// Structural observables of one replica (docs/outputs.md#tsv-time-series): the result type and
// the per-item math, as ERMAK_HD code that the host (measure_structure, model/measure_structure.cpp)
// and the CUDA reduction (backend/cuda/observables_kernels.cu) both call — one
// definition, two loops (DESIGN.md §3). The loops own the summation order.
#include <cstdint>

#include "ermak/core/hd.h"
#include "ermak/core/hd_math.h"

namespace ermak {

struct StructureObservables {
  double native_fraction = 0.0;       // Q ∈ [0, 1]
  double radius_of_gyration_A = 0.0;  // unweighted (all beads equal)
  double end_to_end_A = 0.0;          // |r_last − r_first| of the chosen ends
};

// A native contact counts toward Q while r < ratio · r0: the default of [output]
// contact_formed_ratio (docs/outputs.md), also what an analysis assumes when run.log gives none.
inline constexpr double kDefaultContactFormedRatio = 1.5;

namespace structure {

// A native contact is formed when r < formed_ratio · r0 (SOP convention, default 1.5),
// tested as r² < (formed_ratio · r0)². The components are float differences of float
// positions; their squares are exact in double, so the test gives the same answer on
// every backend whether or not the compiler fuses the sum into multiply-adds.
ERMAK_HD bool contact_formed(float dx_A, float dy_A, float dz_A, float r0_A, double formed_ratio) {
  const double r2 = double(dx_A) * dx_A + double(dy_A) * dy_A + double(dz_A) * dz_A;
  const double ratio2 = formed_ratio * formed_ratio;
  return r2 < ratio2 * double(r0_A) * r0_A;
}

// Q = formed / all; 0 for a topology without native contacts.
ERMAK_HD double native_fraction(std::int64_t formed, std::int64_t contacts) {
  return contacts == 0 ? 0.0 : double(formed) / double(contacts);
}

// |r − c|² of one bead about the centre c (double).
ERMAK_HD double squared_deviation_A2(float x_A, float y_A, float z_A, double cx_A, double cy_A, double cz_A) {
  const double dx = x_A - cx_A, dy = y_A - cy_A, dz = z_A - cz_A;
  return dx * dx + dy * dy + dz * dz;
}

// Rg = sqrt(Σ|r − c|² / n), all beads weighted equally.
ERMAK_HD double radius_of_gyration_A(double sum_squared_deviation_A2, std::int32_t beads) {
  return hd_sqrt(sum_squared_deviation_A2 / beads);
}

// |r_last − r_first|, differences taken in double.
ERMAK_HD double end_to_end_A(float first_x_A, float first_y_A, float first_z_A, float last_x_A, float last_y_A,
                             float last_z_A) {
  const double ex = double(last_x_A) - first_x_A, ey = double(last_y_A) - first_y_A,
               ez = double(last_z_A) - first_z_A;
  return hd_sqrt(ex * ex + ey * ey + ez * ez);
}

}  // namespace structure
}  // namespace ermak
