#pragma once
// Hydrodynamic interactions between beads, docs/model.md#hydrodynamic-interactions: the
// Rotne–Prager–Yamakawa (RPY) diffusion tensor of equal spheres of radius a, in units of a
// free bead's D0 = k_B T/ζ, and the pieces of the truncated expansion approximation (TEA)
// of its square root (Geyer & Winter, J. Chem. Phys. 130, 114905 (2009), eqs. 19–26),
// the approximation SOP-GPU uses. One definition for both backends.
#include <cmath>
#include <cstddef>

#include "ermak/core/hd.h"
#include "ermak/core/hd_math.h"
#include "ermak/core/vec3.h"

namespace ermak::physics {

// One symmetric 3×3 block D_ij/D0 of the tensor.
template <class Real>
struct MobilityBlockT {
  Real xx, xy, xz, yy, yz, zz;
};
using MobilityBlock = MobilityBlockT<float>;

// D_ij/D0 for two beads at separation r (either sign), docs/model.md#rpy:
//   |r| ≥ 2a: (3a/4r) [(1 + 2a²/3r²) I + (1 − 2a²/r²) r̂r̂]
//   |r| < 2a: (1 − 9r/32a) I + (3r/32a) r̂r̂        (overlapping spheres)
// The two branches meet at r = 2a, and at r = 0 the block is I (one sphere). The r̂r̂
// coefficient is written against r rᵀ so that no unit vector is formed.
template <class Real>
ERMAK_HD MobilityBlockT<Real> rpy_block(Vec3<Real> r, Real radius_A) {
  const Real r2 = dot(r, r);
  const Real d = hd_sqrt(r2);
  Real identity, outer;  // D = identity·I + outer·r rᵀ
  if (d >= Real(2) * radius_A) {
    const Real a_over_r = radius_A / d;
    const Real a2_over_r2 = a_over_r * a_over_r;
    identity = Real(0.75) * a_over_r * (Real(1) + Real(2) / Real(3) * a2_over_r2);
    outer = Real(0.75) * a_over_r * (Real(1) - Real(2) * a2_over_r2) / r2;
  } else {
    identity = Real(1) - Real(9) / Real(32) * d / radius_A;
    outer = d > Real(0) ? Real(3) / (Real(32) * radius_A * d) : Real(0);
  }
  return {identity + outer * r.x * r.x, outer * r.x * r.y, outer * r.x * r.z,
          identity + outer * r.y * r.y, outer * r.y * r.z, identity + outer * r.z * r.z};
}

template <class Real>
ERMAK_HD Vec3<Real> apply(const MobilityBlockT<Real>& d, Vec3<Real> v) {
  return {d.xx * v.x + d.xy * v.y + d.xz * v.z, d.xy * v.x + d.yy * v.y + d.yz * v.z,
          d.xz * v.x + d.yz * v.y + d.zz * v.z};
}

// The sum of the block's nine elements: its share of TEA's mean coupling ε (eq. 22).
template <class Real>
ERMAK_HD Real element_sum(const MobilityBlockT<Real>& d) {
  return d.xx + d.yy + d.zz + Real(2) * (d.xy + d.xz + d.yz);
}

// The sums of squares of the block's three rows: their share of TEA's C_i (eq. 19).
template <class Real>
ERMAK_HD Vec3<Real> row_squares(const MobilityBlockT<Real>& d) {
  return {d.xx * d.xx + d.xy * d.xy + d.xz * d.xz, d.xy * d.xy + d.yy * d.yy + d.yz * d.yz,
          d.xz * d.xz + d.yz * d.yz + d.zz * d.zz};
}

// TEA's mean coupling ε of one replica: the mean of the off-diagonal elements of the
// 3M×3M tensor of its M mobile beads outside their own 3×3 blocks, from the sum of those
// elements (eq. 22), held to at most 1 (where the expansion stops being a contraction).
ERMAK_HD double tea_epsilon(double off_diagonal_element_sum, int mobile_beads) {
  if (mobile_beads < 2) return 0.0;
  const double n = 3.0 * mobile_beads;
  const double epsilon = off_diagonal_element_sum / (n * (n - 3.0));
  return epsilon > 1.0 ? 1.0 : epsilon;
}

// TEA's β' (eq. 26) for mean coupling ε among 3M coordinates: (1 − sqrt(1 − a))/a with
// a = (3M − 1)ε² − (3M − 2)ε; its a → 0 limit is 1/2 (no coupling).
ERMAK_HD double tea_beta(double epsilon, int mobile_beads) {
  const double n = 3.0 * mobile_beads;
  const double a = (n - 1.0) * epsilon * epsilon - (n - 2.0) * epsilon;
  if (fabs(a) < 1e-7) return 0.5;
  return (1.0 - sqrt(1.0 - a)) / a;
}

// TEA's row factors C_i (eq. 19), one per coordinate of bead i, from the sums over the
// other mobile beads j of the squares of D_ij's rows: with B_ii = C_i and B_ij = C_i β D_ij
// the diagonal of B Bᵀ is exactly D_ii/D0 = 1.
template <class Real>
ERMAK_HD Vec3<Real> tea_row_factors(Vec3<Real> row_square_sums, Real beta) {
  const Real b2 = beta * beta;
  return {Real(1) / hd_sqrt(Real(1) + b2 * row_square_sums.x), Real(1) / hd_sqrt(Real(1) + b2 * row_square_sums.y),
          Real(1) / hd_sqrt(Real(1) + b2 * row_square_sums.z)};
}

// What one bead's move needs from the other mobile beads j: Σ D_ij F_j, Σ D_ij g_j and the
// sums of D_ij's squared rows (TEA's C_i); accumulated in bead order by both backends.
template <class Real>
struct HydrodynamicSumsT {
  Vec3<Real> mobility_force{0, 0, 0};  // Σ_j (D_ij/D0) F_j, kcal/mol/Å
  Vec3<Real> coupled_noise{0, 0, 0};   // Σ_j (D_ij/D0) g_j
  Vec3<Real> row_squares{0, 0, 0};     // Σ_j rows of (D_ij/D0)², for C_i
};
using HydrodynamicSums = HydrodynamicSumsT<float>;

template <class Real>
ERMAK_HD void add_pair(HydrodynamicSumsT<Real>& sums, const MobilityBlockT<Real>& d, Vec3<Real> force_j,
                       Vec3<Real> gaussian_j) {
  sums.mobility_force += apply(d, force_j);
  sums.coupled_noise += apply(d, gaussian_j);
  sums.row_squares += physics::row_squares(d);
}

// Bead i's TEA move (docs/model.md#tea): the Ermak–McCammon step with the force replaced by
// F_i + Σ D_ij F_j and the noise by C_i (g_i + β Σ D_ij g_j), the same coefficients
// h/ζ and sqrt(2 k_B T h/ζ) as without hydrodynamics.
template <class Real>
ERMAK_HD Vec3<Real> tea_displacement(Vec3<Real> force_i, Vec3<Real> gaussian_i, const HydrodynamicSumsT<Real>& sums,
                                     Real beta, Real mobility_step, Real noise_amplitude) {
  const Vec3<Real> c = tea_row_factors(sums.row_squares, beta);
  const Vec3<Real> drift = force_i + sums.mobility_force;
  const Vec3<Real> noise{c.x * (gaussian_i.x + beta * sums.coupled_noise.x),
                         c.y * (gaussian_i.y + beta * sums.coupled_noise.y),
                         c.z * (gaussian_i.z + beta * sums.coupled_noise.z)};
  return {mobility_step * drift.x + noise_amplitude * noise.x, mobility_step * drift.y + noise_amplitude * noise.y,
          mobility_step * drift.z + noise_amplitude * noise.z};
}

// The exact square root (docs/model.md#exact-hydrodynamics): the lower Cholesky factor L of
// the n×n row-major symmetric matrix `a` (n = 3M), in place, stored transposed — L_ij at
// a[j·n + i], Lᵀ in the upper triangle — column by column (the strict lower triangle is left as
// it was). Written as steps that a GPU block shares among its threads with the very
// operations of the serial loop: the pivot L_jj from the sum of L_jk², k < j, taken in
// kCholeskyPivotParts interleaved parts (cholesky_pivot_part) added in a fixed tree
// (cholesky_pivot_parts_sum: a warp's shuffle-down order), so that a warp shares it; then
// each L_ij (i > j) from L_ik and L_jk, k < j, and L_jj (cholesky_below), a thread each —
// transposed so that those threads read consecutive addresses for each k
// (docs/gpu.md#hydrodynamic-interactions). Indices in size_t: n² passes 2³¹ from 3M = 46 341
// on. The pivot is false when it is not positive (the RPY tensor is positive definite for
// every configuration, so only a damaged one — NaN positions — gives that).
inline constexpr int kCholeskyPivotParts = 32;

template <class Real, class Index = std::size_t>
ERMAK_HD Real cholesky_pivot_part(const Real* a, Index n, Index j, int part) {
  Real sum = Real(0);
  for (Index k = Index(part); k < j; k += kCholeskyPivotParts) sum += a[k * n + j] * a[k * n + j];
  return sum;
}

// parts[0] += parts[offset] … for offset 16, 8, 4, 2, 1: the order in which a warp's
// __shfl_down_sync tree adds its lanes' values into lane 0.
template <class Real>
ERMAK_HD Real cholesky_pivot_parts_sum(Real (&parts)[kCholeskyPivotParts]) {
  for (int offset = kCholeskyPivotParts / 2; offset > 0; offset /= 2)
    for (int part = 0; part < offset; ++part) parts[part] += parts[part + offset];
  return parts[0];
}

template <class Real, class Index = std::size_t>
ERMAK_HD bool cholesky_pivot_from(Real* a, Index n, Index j, Real sum_of_squares) {
  const Real pivot = a[j * n + j] - sum_of_squares;
  if (!(pivot > Real(0))) return false;
  a[j * n + j] = hd_sqrt(pivot);
  return true;
}

template <class Real>
ERMAK_HD bool cholesky_pivot(Real* a, std::size_t n, std::size_t j) {
  Real parts[kCholeskyPivotParts];
  for (int part = 0; part < kCholeskyPivotParts; ++part) parts[part] = cholesky_pivot_part(a, n, j, part);
  return cholesky_pivot_from(a, n, j, cholesky_pivot_parts_sum(parts));
}

// The products are loaded eight at a time before they are subtracted, still one at a time in
// order of k: a GPU thread's sum is otherwise a chain of load latencies (the exact step of
// one WW domain 1.8x faster on an H200, docs/benchmarks.md#hydrodynamic-interactions). Index:
// std::size_t, or int where the matrix is known to be small (a GPU block's shared memory),
// whose address arithmetic is cheaper.
template <class Real, class Index = std::size_t>
ERMAK_HD void cholesky_below(Real* a, Index n, Index i, Index j) {
  constexpr int kAhead = 8;
  Real v = a[j * n + i];  // A_ji = A_ij
  Index k = 0;
  for (; k + kAhead <= j; k += kAhead) {
    Real row_i[kAhead], row_j[kAhead];
    for (int u = 0; u < kAhead; ++u) {
      row_i[u] = a[(k + u) * n + i];
      row_j[u] = a[(k + u) * n + j];
    }
    for (int u = 0; u < kAhead; ++u) v -= row_i[u] * row_j[u];
  }
  for (; k < j; ++k) v -= a[k * n + i] * a[k * n + j];
  a[j * n + i] = v * (Real(1) / a[j * n + j]);
}

// L_ij (i ≥ j) of a factored matrix.
template <class Real, class Index = std::size_t>
ERMAK_HD Real cholesky_element(const Real* a, Index n, Index i, Index j) {
  return a[j * n + i];
}

// The whole factor on the CPU, right-looking: once column j is known (cholesky_column: its
// pivot, then the elements below it × 1/L_jj), its products L_ij L_kj leave every later
// element (i, k), i > k, along contiguous memory (cholesky_subtract_column, row k by row k)
// that the compiler vectorises — the exact
// step of one ubiquitin (76 beads) 3.3× faster than element by element on one core
// (docs/benchmarks.md#hydrodynamic-interactions). Each element still sees the operations of
// cholesky_below in the same order (A_ik less L_i0 L_k0, L_i1 L_k1, …, then × 1/L_kk), and
// each pivot is cholesky_pivot's, from the same parts as a GPU warp's.
template <class Real>
ERMAK_HD bool cholesky_column(Real* a, std::size_t n, std::size_t j) {
  if (!cholesky_pivot(a, n, j)) return false;
  Real* column = a + j * n;  // L_ij at column[i]
  const Real inverse_pivot = Real(1) / column[j];
  for (std::size_t i = j + 1; i < n; ++i) column[i] = column[i] * inverse_pivot;
  return true;
}

template <class Real>
ERMAK_HD void cholesky_subtract_column(Real* a, std::size_t n, std::size_t j, std::size_t k) {
  const Real* column = a + j * n;
  const Real l_kj = column[k];
  Real* target = a + k * n;  // element (i, k) at target[i], i > k
  for (std::size_t i = k + 1; i < n; ++i) target[i] -= column[i] * l_kj;
}

template <class Real>
ERMAK_HD bool cholesky_factor_in_place(Real* a, int n) {
  const std::size_t size = std::size_t(n);
  for (std::size_t j = 0; j < size; ++j) {
    if (!cholesky_column(a, size, j)) return false;
    for (std::size_t k = j + 1; k < size; ++k) cholesky_subtract_column(a, size, j, k);
  }
  return true;
}

}  // namespace ermak::physics
