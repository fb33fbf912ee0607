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

// The sums of `Count` mobile beads ks[0..Count) over the other mobile beads, in the order of
// `mobile`: all of them (the CPU engine, one bead at a time), or those from `first` in steps of
// `stride` (the CUDA engine's lanes of a warp, whose partial sums it then adds in a fixed tree
// order). Each bead's sum is the same sequence of operations whatever Count is — several beads
// at once only let a GPU lane load each partner once for all of them
// (docs/gpu.md#hydrodynamic-interactions).
template <int Count, class Beads>
ERMAK_HD void hydrodynamic_sums_of_beads(const Beads& beads, const std::int32_t* mobile, std::int32_t mobile_count,
                                         const std::int32_t (&ks)[Count], float radius_A, std::int32_t first,
                                         std::int32_t stride, physics::HydrodynamicSums (&sums)[Count]) {
  Vec3f pi[Count];
  for (int t = 0; t < Count; ++t) {
    sums[t] = physics::HydrodynamicSums{};
    pi[t] = beads.position(mobile[ks[t]]);
  }
  for (std::int32_t m = first; m < mobile_count; m += stride) {
    const std::int32_t j = mobile[m];
    const Vec3f pj = beads.position(j), fj = beads.force(j), gj = beads.gaussian(j);
    for (int t = 0; t < Count; ++t)
      if (m != ks[t]) physics::add_pair(sums[t], physics::rpy_block(pj - pi[t], radius_A), fj, gj);
  }
}

template <class Beads>
ERMAK_HD physics::HydrodynamicSums hydrodynamic_sums_of(const Beads& beads, const std::int32_t* mobile,
                                                       std::int32_t mobile_count, std::int32_t k, float radius_A,
                                                       std::int32_t first = 0, std::int32_t stride = 1) {
  const std::int32_t ks[1] = {k};
  physics::HydrodynamicSums sums[1];
  hydrodynamic_sums_of_beads<1>(beads, mobile, mobile_count, ks, radius_A, first, stride, sums);
  return sums[0];
}

// Mobile beads ks' shares of TEA's ε: the element sums of their blocks with the other mobile
// beads (float, in the order of `mobile`, as above; the replica's shares are added in double
// in bead order by both engines).
template <int Count, class Beads>
ERMAK_HD void tea_epsilon_shares_of_beads(const Beads& beads, const std::int32_t* mobile, std::int32_t mobile_count,
                                          const std::int32_t (&ks)[Count], float radius_A, std::int32_t first,
                                          std::int32_t stride, float (&shares)[Count]) {
  Vec3f pi[Count];
  for (int t = 0; t < Count; ++t) {
    shares[t] = 0.0f;
    pi[t] = beads.position(mobile[ks[t]]);
  }
  for (std::int32_t m = first; m < mobile_count; m += stride) {
    const Vec3f pj = beads.position(mobile[m]);
    for (int t = 0; t < Count; ++t)
      if (m != ks[t]) shares[t] += physics::element_sum(physics::rpy_block(pj - pi[t], radius_A));
  }
}

template <class Beads>
ERMAK_HD float tea_epsilon_share_of(const Beads& beads, const std::int32_t* mobile, std::int32_t mobile_count,
                                    std::int32_t k, float radius_A, std::int32_t first = 0, std::int32_t stride = 1) {
  const std::int32_t ks[1] = {k};
  float shares[1];
  tea_epsilon_shares_of_beads<1>(beads, mobile, mobile_count, ks, radius_A, first, stride, shares);
  return shares[0];
}

// The exact step of one replica (docs/model.md#exact-hydrodynamics), in four phases that a
// GPU block shares among its threads (each item computed by the same operations as here):
// the blocks D_km/D0 (m ≤ k) of its M mobile beads into `matrix` (3M × 3M floats, row-major,
// both triangles); each bead's drift (D/D0)F; the Cholesky factor L of D/D0 in place, stored
// transposed in the upper triangle (physics::cholesky_pivot, cholesky_below); each bead's
// noise L g.
template <class Beads>
ERMAK_HD void fill_mobility_blocks(const Beads& beads, const std::int32_t* mobile, std::int32_t k, std::int32_t m,
                                   float radius_A, float* matrix, std::size_t n) {
  const physics::MobilityBlock d = physics::rpy_block(beads.position(mobile[m]) - beads.position(mobile[k]), radius_A);
  const float block[3][3] = {{d.xx, d.xy, d.xz}, {d.xy, d.yy, d.yz}, {d.xz, d.yz, d.zz}};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      matrix[(3 * std::size_t(k) + a) * n + 3 * std::size_t(m) + b] = block[a][b];
      matrix[(3 * std::size_t(m) + b) * n + 3 * std::size_t(k) + a] = block[a][b];
    }
}

template <class Beads>
ERMAK_HD Vec3f exact_drift_of(const Beads& beads, const std::int32_t* mobile, std::int32_t mobile_count,
                              std::int32_t k, const float* matrix, std::size_t n) {
  float drift[3] = {0.0f, 0.0f, 0.0f};
  // D_{3k+a, 3m+b} read from its mirror D_{3m+b, 3k+a} (both triangles hold it): a GPU
  // block's threads, a bead k each, then read consecutive addresses.
  for (std::int32_t m = 0; m < mobile_count; ++m) {
    const Vec3f f = beads.force(mobile[m]);
    const float* rows = matrix + 3 * std::size_t(m) * n + 3 * std::size_t(k);
    for (int a = 0; a < 3; ++a) drift[a] += rows[a] * f.x + rows[n + a] * f.y + rows[2 * n + a] * f.z;
  }
  return {drift[0], drift[1], drift[2]};
}

// Row `row` of L g: Σ_{c ≤ row} L_{row,c} g_c in order of c, where g_c (c = 3m + b) is
// component b of mobile bead m's Gaussian, read through `gaussian(c)`. Each row is its own
// sum, so that a GPU block gives each its own thread (the exact step's noise 16x faster on
// an H200 than a thread per bead, docs/benchmarks.md#hydrodynamic-interactions).
template <class Gaussian, class Index = std::size_t>
ERMAK_HD float exact_noise_row(const float* matrix, Index n, Index row, const Gaussian& gaussian) {
  float noise = 0.0f;
  for (Index c = 0; c <= row; ++c) noise += physics::cholesky_element(matrix, n, row, c) * gaussian(c);
  return noise;
}

// Component c = 3m + b of mobile bead m's Gaussian, from a `Beads` view.
template <class Beads>
struct MobileGaussians {
  const Beads& beads;
  const std::int32_t* mobile;
  ERMAK_HD float operator()(std::size_t c) const {
    const Vec3f g = beads.gaussian(mobile[c / 3]);
    const std::size_t b = c % 3;
    return b == 0 ? g.x : b == 1 ? g.y : g.z;
  }
};

template <class Beads>
ERMAK_HD Vec3f exact_noise_of(const Beads& beads, const std::int32_t* mobile, std::int32_t k, const float* matrix,
                              std::size_t n) {
  const MobileGaussians<Beads> gaussian{beads, mobile};
  const std::size_t row = 3 * std::size_t(k);
  return {exact_noise_row(matrix, n, row, gaussian), exact_noise_row(matrix, n, row + 1, gaussian),
          exact_noise_row(matrix, n, row + 2, gaussian)};
}

// The four phases in order, for one replica on one thread: bead mobile[k]'s displacement
// (h/ζ)(D/D0)F + sqrt(2 k_B T h/ζ) L g into displacement[k]. False when the factor fails.
template <class Beads>
ERMAK_HD bool exact_hydrodynamic_displacements(const Beads& beads, const std::int32_t* mobile, std::int32_t mobile_count,
                                               float radius_A, float mobility_step, float noise_amplitude, float* matrix,
                                               Vec3f* displacement) {
  const std::size_t n = 3 * std::size_t(mobile_count);
  for (std::int32_t k = 0; k < mobile_count; ++k)
    for (std::int32_t m = 0; m <= k; ++m) fill_mobility_blocks(beads, mobile, k, m, radius_A, matrix, n);
  for (std::int32_t k = 0; k < mobile_count; ++k)
    displacement[k] = mobility_step * exact_drift_of(beads, mobile, mobile_count, k, matrix, n);
  if (!physics::cholesky_factor_in_place(matrix, int(n))) return false;
  for (std::int32_t k = 0; k < mobile_count; ++k)
    displacement[k] += noise_amplitude * exact_noise_of(beads, mobile, k, matrix, n);
  return true;
}

}  // namespace ermak
