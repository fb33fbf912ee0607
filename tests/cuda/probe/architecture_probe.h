#pragma once
// Kernels built for other architectures than the build's own (tests/CMakeLists.txt builds
// architecture_probe.cu twice): sm_75 machine code only, which a GPU of another
// architecture cannot run, and compute_80 PTX only, which the driver compiles for a later
// GPU. What a GPU runs of each, as the engine asks it of its own kernels.
#include <string>

#include "ermak/backend/cuda_engine.h"

namespace ermak::cudatest {

CudaDeviceCode sm75_probe_code(int device);
std::string sm75_probe_refusal(int device);  // the message a run would give
CudaDeviceCode ptx80_probe_code(int device);
std::string ptx80_probe_refusal(int device);

}  // namespace ermak::cudatest
