#include "support/test_systems.h"

#include <filesystem>

#include "support/test_paths.h"

namespace ermak::test {

std::optional<LoadedSystem> load_ww_reference() {
  InputSpec input;
  input.topology = shared_data() / "sopgpu/ww/reference/ww.top";
  input.coordinates = shared_data() / "sopgpu/ww/reference/ww_cg.pdb";
  if (!std::filesystem::exists(input.topology) || !std::filesystem::exists(input.coordinates)) return std::nullopt;
  return load_system(input, ModelBuildSpec{});
}

Topology linear_chain(int beads, float r0_A) {
  Topology t;
  t.name = "chain";
  t.beads.resize(std::size_t(beads));
  for (int k = 0; k < beads; ++k) {
    t.beads[std::size_t(k)].residue_number = k + 1;
    t.native_positions_A.push_back({double(r0_A) * k, 0.0, 0.0});
    if (k + 1 < beads) t.bonds.push_back({k, k + 1, r0_A});
  }
  return t;
}

}  // namespace ermak::test
