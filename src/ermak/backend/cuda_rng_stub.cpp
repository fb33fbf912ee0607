// The GPU random-number tools in a build without CUDA: they exist so that callers need no
// #ifdef, and say clearly what is missing (as cuda_engine_stub.cpp).
#if !defined(ERMAK_WITH_CUDA)
#include "ermak/backend/cuda_rng.h"
#include "ermak/core/error.h"

namespace ermak {

namespace {
const char* const kNoCuda =
    "this ermak was built without CUDA (no nvcc was found when it was configured); "
    "install the CUDA toolkit and rebuild, or use --backend cpu";
}

CudaNoiseDraw cuda_draw_noise(const std::string&, const std::string&, std::uint64_t, std::int32_t, std::int32_t,
                              std::int32_t, std::int32_t, int) {
  throw Error(kNoCuda);
}

std::unique_ptr<CudaOscillators> make_cuda_oscillators(const std::string&, const std::string&, std::uint64_t,
                                                       std::int32_t, std::int32_t, double, double, std::int32_t,
                                                       int) {
  throw Error(kNoCuda);
}

}  // namespace ermak
#endif
