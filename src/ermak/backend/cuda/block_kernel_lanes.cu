// Kernel family "block": the variants with 2, 4 or 8 lanes per bead (few beads in the
// run: shorter critical path per step). See block_kernel.cuh.
#include "ermak/backend/cuda/block_kernel.cuh"

namespace ermak::cuda::block_detail {

void launch_multi_lane(const BlockLaunch& L, std::size_t shared, bool protocol, cudaStream_t stream) {
  if (L.beads_per_thread != 1) throw Error("CUDA block family: several lanes per bead need one bead per lane group");
  switch (L.lanes) {
    case 2:
      if (L.all_pairs) {
        if (protocol) launch_variant<2, 1, 512, true, true>(L, shared, stream);
        else launch_variant<2, 1, 512, false, true>(L, shared, stream);
      } else {
        if (protocol) launch_variant<2, 1, 512, true>(L, shared, stream);
        else launch_variant<2, 1, 512, false>(L, shared, stream);
      }
      break;
    case 4:
      if (L.all_pairs) {
        if (protocol) launch_variant<4, 1, 512, true, true>(L, shared, stream);
        else launch_variant<4, 1, 512, false, true>(L, shared, stream);
      } else {
        if (protocol) launch_variant<4, 1, 512, true>(L, shared, stream);
        else launch_variant<4, 1, 512, false>(L, shared, stream);
      }
      break;
    case 8:
      if (L.all_pairs) {
        if (protocol) launch_variant<8, 1, 512, true, true>(L, shared, stream);
        else launch_variant<8, 1, 512, false, true>(L, shared, stream);
      } else {
        if (protocol) launch_variant<8, 1, 512, true>(L, shared, stream);
        else launch_variant<8, 1, 512, false>(L, shared, stream);
      }
      break;
    default: throw Error("CUDA block family: unsupported lanes per bead " + std::to_string(L.lanes));
  }
}

}  // namespace ermak::cuda::block_detail
