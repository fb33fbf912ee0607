#include "ermak/backend/cuda/cuda_util.cuh"

#include "ermak/backend/cuda_engine.h"

namespace ermak::cuda {

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  const char* base = file;
  for (const char* p = file; *p; ++p)
    if (*p == '/') base = p + 1;
  // The GPU, for a run split over several (cudaGetDevice only reads the thread's setting).
  int device = -1;
  const std::string on_gpu = cudaGetDevice(&device) == cudaSuccess ? " on GPU " + std::to_string(device) : "";
  std::string message = std::string("CUDA error") + on_gpu + " in " + call + " (" + base + ":" +
                        std::to_string(line) + "): " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status);
  if (status == cudaErrorNoKernelImageForDevice)
    message += " (this ermak's device code was built for the CUDA architectures " + cuda_built_architectures() +
               "; rebuild with -DCMAKE_CUDA_ARCHITECTURES=<your GPU's>: docs/gpu.md#which-gpus)";
  if (status == cudaErrorUnsupportedPtxVersion)
    message += " (the driver is older than the CUDA that built this ermak: update the driver)";
  if (status == cudaErrorMemoryAllocation) message += " (the GPU ran out of memory)";
  throw Error(message);
}

void check_launch(const char* kernel, cudaStream_t stream, const char* file, int line) {
  check_cuda(cudaGetLastError(), kernel, file, line);
#ifndef NDEBUG
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  check_cuda(cudaStreamIsCapturing(stream, &capturing), kernel, file, line);
  if (capturing == cudaStreamCaptureStatusNone) check_cuda(cudaStreamSynchronize(stream), kernel, file, line);
#else
  (void)stream;
#endif
}

}  // namespace ermak::cuda
