// Which GPUs run this build's device code (docs/gpu.md#which-gpus): the engine asks the
// driver what a GPU runs of its kernels — machine code of the GPU's own architecture, PTX
// of an earlier one compiled by the driver, or nothing — and refuses a GPU that runs
// nothing with a message that names the fix. Kernels built for other architectures
// (cuda/probe/architecture_probe.h) stand in for the GPUs the test machine is not.
#include "cuda/cuda_test_support.h"
#include "cuda/probe/architecture_probe.h"

namespace ermak::cudatest {
namespace {

TEST(CudaDeviceCode, ThisBuildRunsOnThisGpuAndSaysWhichCode) {
  ERMAK_REQUIRE_GPU();
  const CudaDeviceCode code = cuda_device_code();
  ASSERT_TRUE(code.runs) << code.problem;
  EXPECT_TRUE(code.problem.empty());
  EXPECT_NE(code.gpu.find("compute capability"), std::string::npos) << code.gpu;
  // The code came from one of the build's architectures, not later than the GPU's, and
  // runs as machine code of the GPU's architecture.
  EXPECT_NE(cuda_built_architectures().find(std::to_string(code.ptx_arch)), std::string::npos)
      << code.ptx_arch << " not in " << cuda_built_architectures();
  EXPECT_LE(code.ptx_arch, code.compute_capability);
  EXPECT_EQ(code.machine_arch / 10, code.compute_capability / 10);
  if (code.ptx_arch == code.machine_arch)
    EXPECT_EQ(code.code, "sm_" + std::to_string(code.machine_arch) + " machine code");
  else
    EXPECT_EQ(code.code, "compute_" + std::to_string(code.ptx_arch) + " PTX, compiled by the driver for sm_" +
                             std::to_string(code.machine_arch));
  std::string why;
  EXPECT_TRUE(cuda_backend_available(&why));
  EXPECT_EQ(why, code.gpu + " runs " + code.code);
}

TEST(CudaDeviceCode, PtxOfAnEarlierArchitectureIsCompiledByTheDriver) {
  ERMAK_REQUIRE_GPU();
  const CudaDeviceCode code = ptx80_probe_code(0);
  ASSERT_TRUE(code.runs) << code.problem;
  EXPECT_EQ(code.ptx_arch, 80);
  EXPECT_EQ(code.machine_arch / 10, code.compute_capability / 10);
  if (code.compute_capability != 80)
    EXPECT_EQ(code.code, "compute_80 PTX, compiled by the driver for sm_" + std::to_string(code.machine_arch));
}

TEST(CudaDeviceCode, AGpuWithoutCodeForItIsRefusedWithTheFix) {
  ERMAK_REQUIRE_GPU();
  const CudaDeviceCode code = sm75_probe_code(0);
  if (code.compute_capability == 75) GTEST_SKIP() << "this GPU is the probe's architecture";
  EXPECT_FALSE(code.runs);
  EXPECT_EQ(code.ptx_arch, 0);
  EXPECT_TRUE(code.code.empty());
  EXPECT_NE(code.problem.find("this build holds no code it can run (cuda"), std::string::npos) << code.problem;
  const std::string message = sm75_probe_refusal(0);
  EXPECT_EQ(message.rfind(code.gpu + " cannot run this ermak: ", 0), 0u) << message;
  EXPECT_NE(message.find("built for the CUDA architectures " + cuda_built_architectures()), std::string::npos)
      << message;
  EXPECT_NE(message.find("rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(code.compute_capability)),
            std::string::npos)
      << message;
  // Asking left the engine's GPU usable.
  EXPECT_TRUE(cuda_device_code().runs);
}

TEST(CudaDeviceCode, AGpuThatDoesNotExistIsNamed) {
  ERMAK_REQUIRE_GPU();
  std::string why;
  EXPECT_FALSE(cuda_backend_available(&why, 4096));
  EXPECT_NE(why.find("GPU 4096 does not exist"), std::string::npos) << why;
}

}  // namespace
}  // namespace ermak::cudatest
