#pragma once
// Shared pieces of the CUDA tests (label "cuda"): every test skips without a GPU, so the
// binary also passes on machines that only build the CUDA code (CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ermak/backend/cuda_engine.h"
#include "ermak/backend/engine.h"
#include "ermak/io/load_system.h"
#include "support/test_paths.h"

namespace ermak::cudatest {

#define ERMAK_REQUIRE_GPU()                                          \
  do {                                                               \
    std::string why_no_gpu;                                          \
    if (!::ermak::cuda_backend_available(&why_no_gpu)) GTEST_SKIP() << "no GPU: " << why_no_gpu; \
  } while (0)

// The systems of the backend-agreement tests.
struct TestSystem {
  std::string name;
  LoadedSystem system;
};

inline std::optional<TestSystem> load_test_system(const std::string& name) {
  InputSpec input;
  const auto data = test::shared_data();
  if (name == "ww") {
    input.topology = data / "sopgpu/ww/reference/ww.top";
    input.coordinates = data / "sopgpu/ww/reference/ww_cg.pdb";
  } else if (name == "pf8") {
    input.topology = data / "sopgpu/pf8/PF8.top";
    input.coordinates = data / "sopgpu/pf8/PF8_sop.pdb";
  } else if (name == "ubq") {
    input.structure = "/usr/share/freesasa/test-data/1ubq.pdb";
  } else if (name == "fab") {  // 1A0Q, two chains (H, L): the multi-chain system
    input.structure = "/usr/share/freesasa/test-data/1a0q.pdb";
  } else if (name == "lmb") {  // 1LMB, the λ-repressor dimer (179 beads): above 128 beads
    input.structure = data / "pdb/1LMB.pdb";
  } else {
    return std::nullopt;
  }
  for (const auto& p : {input.topology, input.coordinates, input.structure})
    if (!p.empty() && !std::filesystem::exists(p)) return std::nullopt;
  return TestSystem{name, load_system(input, ModelBuildSpec{})};
}

// R replicas at the start structure, each displaced by a small deterministic amount so
// that replicas differ from the first step on.
inline State start_state(const LoadedSystem& s, std::int32_t replicas) {
  const std::int32_t n = s.topology.bead_count();
  State state(n, replicas);
  for (std::int32_t r = 0; r < replicas; ++r)
    for (std::int32_t i = 0; i < n; ++i) {
      const double phase = 0.37 * r + 0.11 * i;
      const Vec3d jitter{0.05 * std::sin(phase) * r, 0.05 * std::cos(1.3 * phase) * r, 0.05 * std::sin(2.1 * phase) * r};
      state.set_position(r, i, vec_cast<float>(s.initial_positions_A[i] + jitter));
    }
  return state;
}

// The CPU engine's state after `steps` steps from `start`: the reference the CUDA runs
// are compared with.
inline State cpu_reference(const EngineSetup& setup, const State& start, std::int64_t steps) {
  auto cpu = make_cpu_engine(setup);
  cpu->set_state(start);
  cpu->advance(steps);
  return cpu->state();
}

inline EngineSetup base_setup(const Topology& topology, std::int32_t replicas, std::uint64_t seed) {
  EngineSetup setup;
  setup.topology = &topology;
  setup.replicas = replicas;
  setup.seed = seed;
  setup.threads = 0;
  return setup;
}

inline std::unique_ptr<Engine> make_gpu(const EngineSetup& setup, CudaKernelFamily family) {
  CudaEngineOptions options;
  options.family = family;
  return make_cuda_engine(setup, options);
}

inline const char* family_name(CudaKernelFamily f) {
  return f == CudaKernelFamily::kBlock ? "block" : f == CudaKernelFamily::kPerBead ? "perbead" : "auto";
}

// Test names "<system>_<family>_x<replicas>" of a parameterised case with those fields.
template <class Case>
std::string system_family_replicas_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.system) + "_" + family_name(info.param.family) + "_x" +
         std::to_string(info.param.replicas);
}

// Largest |a − b| over all coordinates (NaN counts as infinite).
inline double max_abs_difference(const State& a, const State& b) {
  double worst = 0.0;
  for (std::size_t k = 0; k < a.x.size(); ++k) {
    const double d = std::max({std::abs(double(a.x[k]) - b.x[k]), std::abs(double(a.y[k]) - b.y[k]),
                               std::abs(double(a.z[k]) - b.z[k])});
    worst = (d > worst || d != d) ? (d != d ? INFINITY : d) : worst;
  }
  return worst;
}

inline bool bit_identical(const State& a, const State& b) {
  auto same = [](const std::vector<float>& u, const std::vector<float>& v) {
    return u.size() == v.size() && std::memcmp(u.data(), v.data(), u.size() * sizeof(float)) == 0;
  };
  return a.step == b.step && same(a.x, b.x) && same(a.y, b.y) && same(a.z, b.z);
}

}  // namespace ermak::cudatest
