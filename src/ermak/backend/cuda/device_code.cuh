#pragma once
// Which of this build's device code a GPU runs (docs/gpu.md#which-gpus). A build holds
// machine code (sm_XY) for some architectures and PTX (compute_XY) for others, as
// CMAKE_CUDA_ARCHITECTURES says; a GPU runs machine code of its own architecture, else
// PTX of an earlier one, which the driver compiles for it at first use; else nothing.
#include <cuda_runtime.h>

#include "ermak/backend/cuda_engine.h"

namespace ermak::cuda {

// What `device` runs of `kernel` (any kernel of a library: all of its kernels were built
// for the same architectures). Leaves the current device as it was.
CudaDeviceCode device_code_of(const void* kernel, int device);

// Why a GPU that cannot run this build's code (code.runs false) cannot, and what to do:
// the architectures the build has, and the CMake setting that adds the GPU's.
std::string refusal(const CudaDeviceCode& code);

}  // namespace ermak::cuda
