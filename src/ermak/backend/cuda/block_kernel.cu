// Kernel family "block": host side, and the variants with one lane per bead
// (block_kernel.cuh has the kernel; block_kernel_lanes.cu the multi-lane variants).
#include "ermak/backend/cuda/block_kernel.cuh"

namespace ermak::cuda {
namespace block_detail {

void launch_single_lane(const BlockLaunch& L, std::size_t shared, bool protocol, cudaStream_t stream) {
  if (L.all_pairs) {
    if (L.beads_per_thread != 1 || L.threads > 256) throw Error("CUDA block family: all-pairs mode needs one bead per thread");
    if (protocol) launch_variant<1, 1, 256, true, true>(L, shared, stream);
    else launch_variant<1, 1, 256, false, true>(L, shared, stream);
  } else if (L.beads_per_thread == 1 && L.threads <= 256) {
    if (protocol) launch_variant<1, 1, 256, true>(L, shared, stream);
    else launch_variant<1, 1, 256, false>(L, shared, stream);
  } else if (L.beads_per_thread == 1) {
    if (protocol) launch_variant<1, 1, 1024, true>(L, shared, stream);
    else launch_variant<1, 1, 1024, false>(L, shared, stream);
  } else if (L.beads_per_thread == 2) {
    if (protocol) launch_variant<1, 2, 1024, true>(L, shared, stream);
    else launch_variant<1, 2, 1024, false>(L, shared, stream);
  } else if (L.beads_per_thread == 4) {
    if (protocol) launch_variant<1, 4, 1024, true>(L, shared, stream);
    else launch_variant<1, 4, 1024, false>(L, shared, stream);
  } else {
    throw Error("CUDA block family: unsupported beads per thread " + std::to_string(L.beads_per_thread));
  }
}

}  // namespace block_detail

int block_count(const BlockLaunch& L) { return (L.m.replicas + L.group - 1) / L.group; }

std::size_t block_shared_bytes(const BlockLaunch& L) { return block_detail::shared_layout(L).total; }

std::size_t block_max_shared_bytes(int device) {
  int bytes = 0;
  ERMAK_CUDA(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return std::size_t(bytes) - 1024;  // static shared variables of the kernel
}

void launch_block_steps(const BlockLaunch& L, cudaStream_t stream) {
  const std::size_t shared = block_shared_bytes(L);
  const bool protocol = L.m.protocol.any_per_bead || L.m.protocol.indentation;
  if (L.lanes == 1) block_detail::launch_single_lane(L, shared, protocol, stream);
  else block_detail::launch_multi_lane(L, shared, protocol, stream);
  ERMAK_CUDA_LAUNCHED("block_steps_kernel", stream);
}

}  // namespace ermak::cuda
