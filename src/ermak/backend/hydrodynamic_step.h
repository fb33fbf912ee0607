#pragma once
// One replica's Brownian step with hydrodynamic interactions (docs/model.md#hydrodynamic-interactions),
// written once for both engines over a `Beads` view with position(j), force(j) and
// gaussian(j) (Vec3f, bead j of the replica) and the list of its mobile beads: the CPU engine
// runs these loops per replica, the CUDA engine per bead (TEA) or per replica (Cholesky).
// Fixed beads take no part: they do not move, and their forces and noise reach no other bead.
#include <cstddef>
#include <cstdint>

#include "ermak/core/hd.h"
#include "ermak/core/vec3.h"
#include "ermak/physics/hydrodynamic_tensor.h"

namespace ermak {

// Mobile bead k's sums over the other mobile beads, in the order of `mobile`.
template <class Beads>
ERMAK_HD physics::HydrodynamicSums hydrodynamic_sums_of(const Beads& beads, const std::int32_t* mobile,
                                                       std::int32_t mobile_count, std::int32_t k, float radius_A) {
  physics::HydrodynamicSums sums;
  const Vec3f pi = beads.position(mobile[k]);
  for (std::int32_t m = 0; m < mobile_count; ++m) {
    if (m == k) continue;
    const std::int32_t j = mobile[m];
    const physics::MobilityBlock d = physics::rpy_block(beads.position(j) - pi, radius_A);
    physics::add_pair(sums, d, beads.force(j), beads.gaussian(j));
  }
  return sums;
}

// Mobile bead k's share of TEA's ε: the element sums of its blocks with the other mobile
// beads (float, in the order of `mobile`; the replica's shares are added in double in bead
// order by both engines).
template <class Beads>
ERMAK_HD float tea_epsilon_share_of(const Beads& beads, const std::int32_t* mobile, std::int32_t mobile_count,
                                    std::int32_t k, float radius_A) {
  float sum = 0.0f;
  const Vec3f pi = beads.position(mobile[k]);
  for (std::int32_t m = 0; m < mobile_count; ++m)
    if (m != k) sum += physics::element_sum(physics::rpy_block(beads.position(mobile[m]) - pi, radius_A));
  return sum;
}

// The exact step of one replica (docs/model.md#exact-hydrodynamics): D/D0 of its M mobile
// beads into `matrix` (3M × 3M floats, row-major), the drift (h/ζ)(D/D0)F, the Cholesky
// factor L of D/D0 in place, and the noise sqrt(2 k_B T h/ζ) L g; bead mobile[k]'s
// displacement into displacement[k]. False when the factor fails (non-finite positions).
template <class Beads>
ERMAK_HD bool exact_hydrodynamic_displacements(const Beads& beads, const std::int32_t* mobile, std::int32_t mobile_count,
                                               float radius_A, float mobility_step, float noise_amplitude, float* matrix,
                                               Vec3f* displacement) {
  const std::size_t n = 3 * std::size_t(mobile_count);  // n² passes 2³¹ from 3M = 46 341 on
  for (std::int32_t k = 0; k < mobile_count; ++k) {
    const Vec3f pk = beads.position(mobile[k]);
    for (std::int32_t m = 0; m <= k; ++m) {
      const physics::MobilityBlock d = physics::rpy_block(beads.position(mobile[m]) - pk, radius_A);
      const float block[3][3] = {{d.xx, d.xy, d.xz}, {d.xy, d.yy, d.yz}, {d.xz, d.yz, d.zz}};
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          matrix[(3 * std::size_t(k) + a) * n + 3 * std::size_t(m) + b] = block[a][b];
          matrix[(3 * std::size_t(m) + b) * n + 3 * std::size_t(k) + a] = block[a][b];
        }
    }
  }
  for (std::int32_t k = 0; k < mobile_count; ++k) {
    float drift[3] = {0.0f, 0.0f, 0.0f};
    for (std::int32_t m = 0; m < mobile_count; ++m) {
      const Vec3f f = beads.force(mobile[m]);
      for (int a = 0; a < 3; ++a) {
        const float* row = matrix + (3 * std::size_t(k) + a) * n + 3 * std::size_t(m);
        drift[a] += row[0] * f.x + row[1] * f.y + row[2] * f.z;
      }
    }
    displacement[k] = {mobility_step * drift[0], mobility_step * drift[1], mobility_step * drift[2]};
  }
  if (!physics::cholesky_lower_in_place(matrix, int(n))) return false;
  for (std::int32_t k = 0; k < mobile_count; ++k) {
    float noise[3] = {0.0f, 0.0f, 0.0f};
    for (int a = 0; a < 3; ++a) {
      const std::size_t row = 3 * std::size_t(k) + a;
      for (std::int32_t m = 0; m <= k; ++m) {
        const Vec3f g = beads.gaussian(mobile[m]);
        const float gm[3] = {g.x, g.y, g.z};
        for (int b = 0; b < 3 && 3 * std::size_t(m) + b <= row; ++b)
          noise[a] += matrix[row * n + 3 * std::size_t(m) + b] * gm[b];
      }
    }
    displacement[k] += Vec3f{noise_amplitude * noise[0], noise_amplitude * noise[1], noise_amplitude * noise[2]};
  }
  return true;
}

}  // namespace ermak
