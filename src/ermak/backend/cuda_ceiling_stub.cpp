// The ceiling kernels of `ermak bench --ceiling` in a build without CUDA: they exist so
// that callers need no #ifdef, and say clearly what is missing (as cuda_engine_stub.cpp).
#if !defined(ERMAK_WITH_CUDA)
#include "ermak/backend/cuda_ceiling.h"
#include "ermak/core/error.h"

namespace ermak {

namespace {
const char* const kNoCuda =
    "this ermak was built without CUDA (no nvcc was found when it was configured); the ceiling kernels "
    "exist only on the GPU";
}

std::string ceiling_kernel_name(CeilingKernel) { return "-"; }

std::vector<CeilingTiming> cuda_ceiling_timings(const EngineSetup&, const std::vector<Vec3f>&, double) {
  throw Error(kNoCuda);
}

std::vector<Vec3f> cuda_ceiling_run(const EngineSetup&, const std::vector<Vec3f>&, CeilingKernel, int, int) {
  throw Error(kNoCuda);
}

}  // namespace ermak
#endif
