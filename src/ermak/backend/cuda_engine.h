#pragma once
// The CUDA backend (docs/gpu.md). This header is plain C++: it compiles without CUDA
// headers, and in a build without CUDA every function here exists and reports that the
// backend is missing (cuda_engine_stub.cpp).
#include <memory>
#include <string>

#include "ermak/backend/engine.h"

namespace ermak {

// The two kernel families of DESIGN.md §4.
enum class CudaKernelFamily {
  kAuto,     // by beads per replica (docs/gpu.md#kernel-families); env ERMAK_CUDA_KERNEL overrides
  kBlock,    // one thread block per replica (or several small replicas), many steps per launch
  kPerBead,  // fused per-bead kernels over the whole GPU, cell-list Verlet list, CUDA graph
};

struct CudaEngineOptions {
  int device = -1;  // −1: $ERMAK_CUDA_DEVICE, else 0
  CudaKernelFamily family = CudaKernelFamily::kAuto;
};

// True when this build has the CUDA backend and `device` (−1: $ERMAK_CUDA_DEVICE, else 0,
// as the engine picks it) exists and can run this build's device code; otherwise false
// with the reason in *why (when given).
bool cuda_backend_available(std::string* why = nullptr, int device = -1);

// Which of this build's device code a GPU runs (docs/gpu.md#which-gpus): a build holds
// machine code for some architectures and PTX for others (CMAKE_CUDA_ARCHITECTURES); a
// GPU runs machine code of its own architecture, else PTX of an earlier one, compiled by
// the driver at first use.
struct CudaDeviceCode {
  bool runs = false;
  int compute_capability = 0;  // of the GPU, e.g. 90 for 9.0
  int ptx_arch = 0;            // the architecture the running code was compiled for (90: sm_90 or compute_90)
  int machine_arch = 0;        // the machine code's architecture on the GPU
  std::string gpu;             // "GPU 0 (NVIDIA H100 80GB HBM3, compute capability 9.0)"
  std::string code;            // "sm_90 machine code", "compute_80 PTX, compiled by the driver for sm_90"
  std::string problem;         // why it does not run; empty when it does
};
// For `device` (−1: $ERMAK_CUDA_DEVICE, else 0); without CUDA, runs = false and the problem says so.
CudaDeviceCode cuda_device_code(int device = -1);
// The architectures this build's device code was compiled for, as given to CMake
// ("90-real 90-virtual"); empty in a build without CUDA.
std::string cuda_built_architectures();

// A CUDA engine with the semantics of the CPU engine. Throws ermak::Error when the build
// has no CUDA, no GPU is present, the device index is invalid, or the run does not fit
// in the GPU's memory (the message says how much it needs).
std::unique_ptr<Engine> make_cuda_engine(const EngineSetup& setup, int device = -1);
std::unique_ptr<Engine> make_cuda_engine(const EngineSetup& setup, const CudaEngineOptions& options);

// CUDA GPUs this process sees (CUDA_VISIBLE_DEVICES applies); 0 without CUDA or GPU.
int cuda_device_count();

// Bytes of GPU memory in use on `device` (−1: the default device) by every process, from
// the driver (total − free); −1 without CUDA or GPU. Benchmarks take differences.
long long cuda_memory_in_use_bytes(int device = -1);

// Threads `device` (−1: $ERMAK_CUDA_DEVICE, else 0, as the engine picks it) holds at once:
// its streaming multiprocessors × the threads each holds (132 × 2048 on an H100); 0
// without CUDA or GPU. The block family's layout rules scale with it (tests).
long long cuda_resident_threads(int device = -1);

// "block" or "perbead": the family an engine made by make_cuda_engine runs (for logs,
// benchmarks and tests; a run split over several GPUs: each GPU's, joined by " + ");
// empty for engines of other backends.
std::string cuda_kernel_family(const Engine& engine);

// The family and its layout in a few characters, e.g. "block/ap/S1/g4" (docs/gpu.md#kernel-families;
// several GPUs: each GPU's, joined by " + "); empty for engines of other backends.
std::string cuda_kernel_layout(const Engine& engine);

// Bytes of GPU memory that an engine made by make_cuda_engine has allocated for its run
// (its own count, the figure it checks against the GPU's free memory; several GPUs: the
// sum); −1 for engines of other backends.
long long cuda_engine_device_bytes(const Engine& engine);

}  // namespace ermak
