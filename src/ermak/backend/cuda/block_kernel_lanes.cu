// Kernel family "block": the variants with 2, 4 or 8 lanes per bead (few beads in the
// run: shorter critical path per step). See block_kernel.cuh.
#include "ermak/backend/cuda/block_kernel.cuh"

namespace ermak::cuda::block_detail {

BlockKernel multi_lane_kernel(const BlockLaunch& L, ProtocolCode code) {
  if (L.beads_per_thread != 1) throw Error("CUDA block family: several lanes per bead need one bead per lane group");
  if (L.threads > 1024) throw Error("CUDA block family: blocks of several lanes per bead hold at most 1024 threads");
  if (L.threads > 512) {
    // One replica whose S + 1 threads per bead need more than 512, at S = 2 or 4
    // (docs/gpu.md#kernel-families).
    switch (L.lanes) {
      case 2: return L.all_pairs ? variant_for<2, 1, 1024, true>(code) : variant_for<2, 1, 1024>(code);
      case 4: return L.all_pairs ? variant_for<4, 1, 1024, true>(code) : variant_for<4, 1, 1024>(code);
      default: throw Error("CUDA block family: blocks of more than 512 threads only at 2 or 4 lanes per bead");
    }
  }
  switch (L.lanes) {
    case 2: return L.all_pairs ? variant_for<2, 1, 512, true>(code) : variant_for<2, 1, 512>(code);
    case 4: return L.all_pairs ? variant_for<4, 1, 512, true>(code) : variant_for<4, 1, 512>(code);
    case 8: return L.all_pairs ? variant_for<8, 1, 512, true>(code) : variant_for<8, 1, 512>(code);
    default: throw Error("CUDA block family: unsupported lanes per bead " + std::to_string(L.lanes));
  }
}

}  // namespace ermak::cuda::block_detail
