// Which GPUs run this build's device code (device_code.cuh, docs/gpu.md#which-gpus).
#include "ermak/backend/cuda/device_code.cuh"

#include <string>

#include "ermak/backend/cuda/cuda_util.cuh"

#ifndef ERMAK_CUDA_ARCHITECTURES_TEXT
#define ERMAK_CUDA_ARCHITECTURES_TEXT "unknown"
#endif

namespace ermak {
namespace cuda {
namespace {

// Built, like every kernel of the library, for each of the build's architectures: whether
// the GPU can run it tells whether it can run the engine's kernels.
__global__ void device_code_probe_kernel() {}

std::string arch_name(int arch) { return std::to_string(arch / 10) + std::to_string(arch % 10); }

}  // namespace

CudaDeviceCode device_code_of(const void* kernel, int device) {
  CudaDeviceCode out;
  cudaDeviceProp prop{};
  if (const cudaError_t status = cudaGetDeviceProperties(&prop, device); status != cudaSuccess) {
    cudaGetLastError();
    out.gpu = "GPU " + std::to_string(device);
    out.problem = std::string("its properties could not be read (") + cudaGetErrorString(status) + ")";
    return out;
  }
  out.compute_capability = prop.major * 10 + prop.minor;
  out.gpu = "GPU " + std::to_string(device) + " (" + prop.name + ", compute capability " + std::to_string(prop.major) +
            "." + std::to_string(prop.minor) + ")";
  int previous = 0;
  const bool had_device = cudaGetDevice(&previous) == cudaSuccess;
  cudaFuncAttributes attributes{};
  cudaError_t status = cudaSetDevice(device);
  if (status == cudaSuccess) status = cudaFuncGetAttributes(&attributes, kernel);
  if (status != cudaSuccess) {
    cudaGetLastError();  // not sticky: the context stays usable
    out.problem = std::string("this build holds no code it can run (") + cudaGetErrorName(status) + ")";
  } else {
    out.runs = true;
    out.ptx_arch = attributes.ptxVersion;
    out.machine_arch = attributes.binaryVersion;
    out.code = out.ptx_arch == out.machine_arch
                   ? "sm_" + arch_name(out.machine_arch) + " machine code"
                   : "compute_" + arch_name(out.ptx_arch) + " PTX, compiled by the driver for sm_" +
                         arch_name(out.machine_arch);
  }
  if (had_device) cudaSetDevice(previous);
  return out;
}

std::string refusal(const CudaDeviceCode& code) {
  std::string out = code.gpu + " cannot run this ermak: " + code.problem + "; its device code was built for the CUDA "
                    "architectures " + cuda_built_architectures() + " (CMAKE_CUDA_ARCHITECTURES)";
  if (code.compute_capability > 0)
    out += "; rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(code.compute_capability) +
           " (scripts/setup.sh adds the GPUs it finds on the machine it builds on)";
  return out;
}

}  // namespace cuda

CudaDeviceCode cuda_device_code(int device) {
  if (device < 0) device = cuda::env_int("ERMAK_CUDA_DEVICE", 0);
  return cuda::device_code_of(reinterpret_cast<const void*>(cuda::device_code_probe_kernel), device);
}

std::string cuda_built_architectures() { return ERMAK_CUDA_ARCHITECTURES_TEXT; }

}  // namespace ermak
