// Kernel family "block": the variants with 2, 4 or 8 lanes per bead (few beads in the
// run: shorter critical path per step). See block_kernel.cuh.
#include "ermak/backend/cuda/block_kernel.cuh"

namespace ermak::cuda::block_detail {

BlockKernel multi_lane_kernel(const BlockLaunch& L, bool protocol) {
  if (L.beads_per_thread != 1) throw Error("CUDA block family: several lanes per bead need one bead per lane group");
  switch (L.lanes) {
    case 2:
      if (L.all_pairs) return protocol ? variant<2, 1, 512, true, true>() : variant<2, 1, 512, false, true>();
      return protocol ? variant<2, 1, 512, true>() : variant<2, 1, 512, false>();
    case 4:
      if (L.all_pairs) return protocol ? variant<4, 1, 512, true, true>() : variant<4, 1, 512, false, true>();
      return protocol ? variant<4, 1, 512, true>() : variant<4, 1, 512, false>();
    case 8:
      if (L.all_pairs) return protocol ? variant<8, 1, 512, true, true>() : variant<8, 1, 512, false, true>();
      return protocol ? variant<8, 1, 512, true>() : variant<8, 1, 512, false>();
    default: throw Error("CUDA block family: unsupported lanes per bead " + std::to_string(L.lanes));
  }
}

}  // namespace ermak::cuda::block_detail
