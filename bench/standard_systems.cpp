#include "bench/standard_systems.h"

#include <cstdlib>

namespace ermak::bench {

std::filesystem::path shared_data_directory() {
  if (const char* env = std::getenv("ERMAK_SHARED_DATA")) return env;
  return "../shared/data";
}

std::vector<BenchSystem> standard_systems() {
  const auto data = shared_data_directory();
  std::vector<BenchSystem> systems;
  BenchSystem ww{"ww", "WW domain, SOP-GPU reference topology (34 beads)", {}};
  ww.input.topology = data / "sopgpu/ww/reference/ww.top";
  ww.input.coordinates = data / "sopgpu/ww/reference/ww_cg.pdb";
  systems.push_back(ww);
  BenchSystem ubq{"ubq", "ubiquitin 1UBQ, C-alpha model built by ermak (76 beads)", {}};
  ubq.input.structure = "/usr/share/freesasa/test-data/1ubq.pdb";
  systems.push_back(ubq);
  BenchSystem pf8{"pf8", "microtubule protofilament PF8, SOP-GPU topology (6928 beads)", {}};
  pf8.input.topology = data / "sopgpu/pf8/PF8.top";
  pf8.input.coordinates = data / "sopgpu/pf8/PF8_sop.pdb";
  systems.push_back(pf8);
  return systems;
}

}  // namespace ermak::bench
