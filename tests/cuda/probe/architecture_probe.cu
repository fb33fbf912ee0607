// One empty kernel and what a GPU runs of it (architecture_probe.h); ERMAK_PROBE names
// the pair of functions of this build of the file.
#include "cuda/probe/architecture_probe.h"
#include "ermak/backend/cuda/device_code.cuh"

#define ERMAK_PROBE_JOIN(a, b) a##b
#define ERMAK_PROBE_NAME(prefix, suffix) ERMAK_PROBE_JOIN(prefix, suffix)

namespace ermak::cudatest {
namespace {
__global__ void probe_kernel() {}
}  // namespace

CudaDeviceCode ERMAK_PROBE_NAME(ERMAK_PROBE, _probe_code)(int device) {
  return cuda::device_code_of(reinterpret_cast<const void*>(probe_kernel), device);
}

std::string ERMAK_PROBE_NAME(ERMAK_PROBE, _probe_refusal)(int device) {
  return cuda::refusal(ERMAK_PROBE_NAME(ERMAK_PROBE, _probe_code)(device));
}

}  // namespace ermak::cudatest
