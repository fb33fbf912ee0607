#include "ermak/run/hydrodynamics_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "ermak/physics/hydrodynamic_tensor.h"

namespace ermak {

namespace {

using Block = std::array<std::array<double, 3>, 3>;

Block block_of(const physics::MobilityBlockT<double>& d) {
  return {{{d.xx, d.xy, d.xz}, {d.xy, d.yy, d.yz}, {d.xz, d.yz, d.zz}}};
}

}  // namespace

std::int64_t mobile_bead_count(const RunSpec& spec, const Topology& topology) {
  std::set<std::int32_t> fixed;
  for (const std::int32_t b : spec.fixed_beads)
    if (b >= 0 && b < topology.bead_count()) fixed.insert(b);
  return std::int64_t(topology.bead_count()) - std::int64_t(fixed.size());
}

std::string resolve_hydrodynamics(RunSpec& spec, const Topology& topology) {
  HydrodynamicParameters& h = spec.langevin.hydrodynamics;
  if (h.method != HydrodynamicMethod::kAuto) return "";
  const std::int64_t mobile = mobile_bead_count(spec, topology);
  h.method = resolve_hydrodynamic_method(h.method, mobile);
  return fmt::format("hydrodynamics.method \"auto\" is \"{}\" here: {} mobile beads per replica, {} the {} up to which "
                     "it takes the exact factor (docs/model.md#hydrodynamic-interactions)",
                     hydrodynamic_method_name(h.method), mobile,
                     h.method == HydrodynamicMethod::kCholesky ? "within" : "more than", kAutoCholeskyMobileBeads);
}

void check_hydrodynamics(const RunSpec& spec, const Topology& topology) {
  if (spec.langevin.hydrodynamics.method != HydrodynamicMethod::kCholesky) return;
  const std::int64_t mobile = mobile_bead_count(spec, topology);
  if (mobile <= kMaxCholeskyMobileBeads) return;
  const double n = 3.0 * double(mobile);
  throw key_error(spec, "hydrodynamics.method",
                  fmt::format("\"cholesky\" factors the {0:.0f}×{0:.0f} diffusion tensor of the model's {1} mobile beads "
                              "at every step ({2:.2g} multiply-adds and {3:.0f} MB per replica): it is meant for at most "
                              "{4} mobile beads; use method = \"tea\" (docs/model.md#hydrodynamic-interactions)",
                              n, mobile, n * n * n / 3.0, n * n * 4.0 / 1e6, kMaxCholeskyMobileBeads));
}

TeaBondNoise tea_bond_noise(const Topology& topology, const std::vector<Vec3d>& positions_A,
                            const std::vector<std::int32_t>& fixed_beads, double radius_A, std::int64_t max_bonds) {
  const std::int32_t n = topology.bead_count();
  std::vector<char> fixed(std::size_t(n), 0);
  for (const std::int32_t b : fixed_beads)
    if (b >= 0 && b < n) fixed[std::size_t(b)] = 1;
  std::vector<std::int32_t> mobile;
  for (std::int32_t i = 0; i < n; ++i)
    if (!fixed[std::size_t(i)]) mobile.push_back(i);
  const std::int64_t m = std::int64_t(mobile.size());
  auto d = [&](std::int32_t i, std::int32_t j) { return physics::rpy_block(positions_A[j] - positions_A[i], radius_A); };
  // ε and each mobile bead's row factors C (docs/model.md#tea), in double.
  double element_sum = 0.0;
  std::vector<Vec3d> row_squares(std::size_t(n), Vec3d{0, 0, 0});
  for (std::int64_t a = 0; a < m; ++a)
    for (std::int64_t b = 0; b < m; ++b)
      if (a != b) {
        const auto block = d(mobile[a], mobile[b]);
        element_sum += physics::element_sum(block);
        row_squares[std::size_t(mobile[a])] += physics::row_squares(block);
      }
  const double beta = physics::tea_beta(physics::tea_epsilon(element_sum, int(m)), int(m));
  std::vector<Vec3d> c(std::size_t(n), Vec3d{1, 1, 1});
  for (const std::int32_t i : mobile) c[std::size_t(i)] = physics::tea_row_factors(row_squares[std::size_t(i)], beta);
  // B_ik = diag(C_i)(δ_ik I + β D_ik); the bond's relative noise is (B_i· − B_j·) g.
  auto b_block = [&](std::int32_t i, std::int32_t k) {
    Block out{};
    const Block dik = i == k ? Block{} : block_of(d(i, k));
    const double ci[3] = {c[std::size_t(i)].x, c[std::size_t(i)].y, c[std::size_t(i)].z};
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) out[r][s] = ci[r] * ((i == k && r == s ? 1.0 : 0.0) + (i == k ? 0.0 : beta * dik[r][s]));
    return out;
  };
  std::vector<const Bond*> bonds;
  for (const Bond& bond : topology.bonds)
    if (!fixed[std::size_t(bond.i)] && !fixed[std::size_t(bond.j)]) bonds.push_back(&bond);
  // Every stride-th bond, so that at most max_bonds are measured.
  const std::size_t most = std::size_t(std::max<std::int64_t>(1, max_bonds));
  const std::size_t stride = std::max<std::size_t>(1, (bonds.size() + most - 1) / most);
  std::vector<double> ratios;
  for (std::size_t k = 0; k < bonds.size(); k += stride) {
    const Bond& bond = *bonds[k];
    const Vec3d r = positions_A[bond.j] - positions_A[bond.i];
    const double length = std::sqrt(dot(r, r));
    if (!(length > 0)) continue;
    const double e[3] = {r.x / length, r.y / length, r.z / length};
    double tea = 0.0;  // Σ_k |êᵀ(B_ik − B_jk)|²
    for (const std::int32_t q : mobile) {
      const Block bi = b_block(bond.i, q), bj = b_block(bond.j, q);
      for (int s = 0; s < 3; ++s) {
        double v = 0.0;
        for (int t = 0; t < 3; ++t) v += e[t] * (bi[t][s] - bj[t][s]);
        tea += v * v;
      }
    }
    const Block dij = block_of(d(bond.i, bond.j));
    double along = 0.0;
    for (int s = 0; s < 3; ++s)
      for (int t = 0; t < 3; ++t) along += e[s] * dij[s][t] * e[t];
    ratios.push_back(tea / (2.0 * (1.0 - along)));
  }
  TeaBondNoise out;
  out.bonds = std::int64_t(ratios.size());
  if (ratios.empty()) return out;
  std::sort(ratios.begin(), ratios.end());
  out.median_ratio = ratios[ratios.size() / 2];
  out.largest_ratio = ratios.back();
  return out;
}

std::string tea_bond_noise_warning(const RunSpec& spec, HydrodynamicMethod given, const Topology& topology,
                                   const std::vector<Vec3d>& positions_A) {
  const HydrodynamicParameters& h = spec.langevin.hydrodynamics;
  if (h.method != HydrodynamicMethod::kTea) return "";
  const std::int64_t mobile = mobile_bead_count(spec, topology);
  const std::string chosen = given == HydrodynamicMethod::kAuto ? " (chosen by \"auto\")" : "";
  if (mobile > kTeaNoiseMeasuredMobileBeads)
    return fmt::format("warning: hydrodynamics.method = \"tea\"{} at radius_A = {:g}: its noise along the bonds is not "
                       "measured for more than {} mobile beads; at SOP radii it typically runs the bonds hot (1.6× the "
                       "exact variance for the WW domain at 1.9 Å), so the ensemble is not Boltzmann's (docs/model.md#tea)",
                       chosen, h.radius_A, kTeaNoiseMeasuredMobileBeads);
  const TeaBondNoise noise = tea_bond_noise(topology, positions_A, spec.fixed_beads, h.radius_A);
  if (noise.bonds == 0 || noise.median_ratio < 1.05) return "";
  const std::string exact =
      mobile <= kMaxCholeskyMobileBeads
          ? fmt::format("method = \"cholesky\" is exact for these {} mobile beads (at 10–26× TEA's cost per step "
                        "on a GPU from 34 to 76 beads, 2–4× on the CPU from 34 to 179: it grows as M³ against "
                        "TEA's M²)",
                        mobile)
          : fmt::format("the exact method is refused beyond {} mobile beads", kMaxCholeskyMobileBeads);
  return fmt::format(
      "warning: hydrodynamics.method = \"tea\"{} at radius_A = {:g}: along the bonds of the start structure TEA's noise "
      "has {:.2f}× (median of {} bonds; up to {:.2f}×) the variance of the exact tensor's, so the bonds run hot and the "
      "ensemble is not Boltzmann's (the WW domain's FENE energy +56 % at 1.9 Å, docs/model.md#tea); "
      "{}; a smaller radius_A shrinks the error, but models weaker hydrodynamic coupling",
      chosen, h.radius_A, noise.median_ratio, noise.bonds, noise.largest_ratio, exact);
}

}  // namespace ermak
