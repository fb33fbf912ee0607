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

}  // namespace ermak::test
