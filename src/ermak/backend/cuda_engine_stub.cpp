// The CUDA backend's entry points in a build without CUDA (no nvcc at configure time):
// they exist so that callers need no #ifdef, and say clearly what is missing.
#if !defined(ERMAK_WITH_CUDA)
#include "ermak/backend/cuda_engine.h"
#include "ermak/core/error.h"

namespace ermak {

namespace {
const char* const kNoCuda =
    "this ermak was built without CUDA (no nvcc was found when it was configured); "
    "install the CUDA toolkit and rebuild, or use backend = \"cpu\"";
}

bool cuda_backend_available(std::string* why, int) {
  if (why) *why = kNoCuda;
  return false;
}

CudaDeviceCode cuda_device_code(int) {
  CudaDeviceCode out;
  out.problem = kNoCuda;
  return out;
}

std::string cuda_built_architectures() { return {}; }

std::unique_ptr<Engine> make_cuda_engine(const EngineSetup&, int) { throw Error(kNoCuda); }

std::unique_ptr<Engine> make_cuda_engine(const EngineSetup&, const CudaEngineOptions&) {
  throw Error(kNoCuda);
}

std::string cuda_kernel_family(const Engine&) { return {}; }

std::string cuda_kernel_layout(const Engine&) { return {}; }

long long cuda_engine_device_bytes(const Engine&) { return -1; }

int cuda_device_count() { return 0; }

long long cuda_memory_in_use_bytes(int) { return -1; }

long long cuda_resident_threads(int) { return 0; }

}  // namespace ermak
#endif
