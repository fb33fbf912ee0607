#include "ermak/run/hydrodynamics_check.h"

#include <fmt/format.h>

#include <set>

namespace ermak {

void check_hydrodynamics(const RunSpec& spec, const Topology& topology) {
  const HydrodynamicParameters& h = spec.langevin.hydrodynamics;
  if (h.method != HydrodynamicMethod::kCholesky) return;
  const std::set<std::int32_t> fixed(spec.fixed_beads.begin(), spec.fixed_beads.end());
  const std::int64_t mobile = std::int64_t(topology.bead_count()) - std::int64_t(fixed.size());
  if (mobile <= kMaxCholeskyMobileBeads) return;
  const double n = 3.0 * double(mobile);
  throw key_error(spec, "hydrodynamics.method",
                  fmt::format("\"cholesky\" factors the {0:.0f}×{0:.0f} diffusion tensor of the model's {1} mobile beads "
                              "at every step ({2:.2g} multiply-adds and {3:.0f} MB per replica): it is meant for at most "
                              "{4} mobile beads; use method = \"tea\" (docs/model.md#hydrodynamic-interactions)",
                              n, mobile, n * n * n / 3.0, n * n * 4.0 / 1e6, kMaxCholeskyMobileBeads));
}

}  // namespace ermak
