// The CUDA backend against the CPU backend on random configurations
// (scripts/backend_agreement.py, docs/validation.md#backend-agreement-sweep): every table
// and frame of a run, and of a run stopped half way on the GPU and resumed on the CPU,
// agrees to float rounding; minimisations agree in energy, and the dynamics from one
// minimised state agree. scripts/gpu-check.sh runs a longer sweep (stage "agreement").
#include <gtest/gtest.h>

#include <string>

#include "cuda/cuda_test_support.h"
#include "support/test_paths.h"

TEST(BackendAgreementSweep, CudaAgreesWithCpuOnRandomConfigurations) {
  ERMAK_REQUIRE_GPU();  // without one, every CUDA run would fail for that reason instead
  const auto dir = ermak::test::fresh_directory("agreement-cuda");
  std::string output;
  const int status = ermak::test::run_command(
      ermak::test::python() + " " + (ermak::test::source_dir() / "scripts/backend_agreement.py").string() +
          " --ermak " + ermak::test::ermak_binary().string() + " --data " + ermak::test::shared_data().string() +
          " --out " + (dir / "sweep").string() + " --force --a cuda --b cpu --cases 20 --seed 11",
      &output);
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("# 20 of 20 cases agree"), std::string::npos) << output;
}
