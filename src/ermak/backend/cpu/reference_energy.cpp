#include "ermak/backend/cpu/reference_energy.h"

#include "ermak/neighbor/verlet_list.h"
#include "ermak/physics/fene.h"
#include "ermak/physics/native_contact.h"
#include "ermak/physics/repulsion.h"

namespace ermak {

ReferenceEvaluation evaluate_reference(const Topology& topology, const SopParameters& sop,
                                       const std::vector<Vec3d>& x) {
  const std::int32_t n = topology.bead_count();
  ReferenceEvaluation out;
  out.forces.assign(n, Vec3d{});
  auto apply = [&](std::int32_t i, std::int32_t j, double force_over_r, Vec3d d) {
    out.forces[i] += force_over_r * d;
    out.forces[j] -= force_over_r * d;
  };
  const physics::FeneParametersT<double> fene = fene_parameters<double>(sop);
  for (const Bond& b : topology.bonds) {
    const Vec3d d = x[b.i] - x[b.j];
    const auto pf = physics::fene<true>(norm2(d), double(b.r0_A), fene);
    apply(b.i, b.j, pf.force_over_r, d);
    out.energy.fene += pf.energy;
  }
  for (const NativeContact& c : topology.native_contacts) {
    const Vec3d d = x[c.i] - x[c.j];
    const auto pf = physics::native_contact<true>(norm2(d), double(c.r0_A), double(c.eh_kcal_per_mol));
    apply(c.i, c.j, pf.force_over_r, d);
    out.energy.native += pf.energy;
  }
  // Candidate pairs from the float list with 1 Å of margin; the cutoff test is in double.
  std::vector<float> fx(n), fy(n), fz(n);
  for (std::int32_t i = 0; i < n; ++i) { fx[i] = float(x[i].x); fy[i] = float(x[i].y); fz[i] = float(x[i].z); }
  CellListScratch scratch;
  VerletList list;
  build_verlet_list(fx.data(), fy.data(), fz.data(), n, build_exclusions(topology),
                    sop.pair_cutoff_A + 1.0f, scratch, list);
  const physics::RepulsionParametersT<double> repulsion = repulsion_parameters<double>(sop);
  const double cutoff2 = repulsion.cutoff2;
  for_each_listed_pair(list, [&](std::int32_t i, std::int32_t j) {
    const Vec3d d = x[i] - x[j];
    const double r2 = norm2(d);
    if (r2 >= cutoff2) return;
    const auto pf = physics::repulsion<true>(r2, repulsion);
    apply(i, j, pf.force_over_r, d);
    out.energy.repulsive += pf.energy;
  });
  return out;
}

}  // namespace ermak
