#pragma once
// A synthetic constant-velocity pulling record for the analysis tests: a cantilever of
// 50 pN/nm pulls a worm-like chain (Marko–Siggia, P = 0.4 nm, 300 K) whose contour length
// grows 10 → 20 → 30 nm when the spring's force reaches the given rupture forces; at each
// base position the extension is the WLC's equilibrium under the spring, then noise of
// 3 pN on the force and 0.02 nm on the extension (drawn in that order, from `seed`).
// Rows 0 … last_row, 1000 steps and 0.005 nm of base travel apart (0.5 nm/ns).
#include <vector>

namespace ermak::test {

struct SyntheticPullingRow {
  long long step = 0;
  double time_ns = 0, base_nm = 0, extension_nm = 0, force_pN = 0;  // force along the pull (signed)
};

std::vector<SyntheticPullingRow> synthetic_wlc_pulling(const std::vector<double>& rupture_pN, unsigned seed,
                                                       int last_row = 6000);

}  // namespace ermak::test
