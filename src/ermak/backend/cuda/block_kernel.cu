// Kernel family "block": host side, and the variants with one lane per bead
// (block_kernel.cuh has the kernel; block_kernel_lanes.cu the multi-lane variants).
#include "ermak/backend/cuda/block_kernel.cuh"

namespace ermak::cuda {
namespace block_detail {

BlockKernel single_lane_kernel(const BlockLaunch& L, ProtocolCode code) {
  const int bpt = L.beads_per_thread;
  if (L.all_pairs) {
    if (L.threads > 512 || bpt != 1) throw Error("CUDA block family: all-pairs mode runs 1 bead per thread in ≤ 512 threads");
    if (L.threads <= 256) return variant_for<1, 1, 256, true>(code);
    return variant_for<1, 1, 512, true>(code);
  }
  if (bpt == 1 && L.threads <= 256) return variant_for<1, 1, 256>(code);
  if (bpt == 1) return variant_for<1, 1, 1024>(code);
  if (bpt == 2) return variant_for<1, 2, 1024>(code);
  if (bpt == 4) return variant_for<1, 4, 1024>(code);
  throw Error("CUDA block family: unsupported beads per thread " + std::to_string(bpt));
}

}  // namespace block_detail

int block_count(const BlockLaunch& L) { return (L.m.replicas + L.group - 1) / L.group; }

std::size_t block_shared_bytes(const BlockLaunch& L) {
  return L.tiles ? tile_shared_bytes(L) : block_detail::shared_layout(L).total;
}

std::size_t block_max_shared_bytes(int device) {
  int bytes = 0;
  ERMAK_CUDA(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return std::size_t(bytes) - 1024;  // static shared variables of the kernel
}

namespace {
block_detail::BlockKernel kernel_for(const BlockLaunch& L) {
  if (L.tiles) return tile_kernel_for(L);
  const ProtocolCode code = protocol_code(L.m.protocol);
  return L.lanes == 1 ? block_detail::single_lane_kernel(L, code) : block_detail::multi_lane_kernel(L, code);
}

// The launch's kernel variant, allowed the launch's dynamic shared memory.
block_detail::BlockKernel prepared_kernel(const BlockLaunch& L, std::size_t shared) {
  const block_detail::BlockKernel kernel = kernel_for(L);
  ERMAK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  return kernel;
}
}  // namespace

int block_resident_blocks_per_sm(const BlockLaunch& L) {
  const std::size_t shared = block_shared_bytes(L);
  int blocks = 0;
  ERMAK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, prepared_kernel(L, shared), L.threads, shared));
  return blocks;
}

void launch_block_steps(const BlockLaunch& L, cudaStream_t stream) {
  const std::size_t shared = block_shared_bytes(L);
  prepared_kernel(L, shared)<<<block_count(L), L.threads, shared, stream>>>(L);
  ERMAK_CUDA_LAUNCHED(L.tiles ? "tile_steps_kernel" : "block_steps_kernel", stream);
}

}  // namespace ermak::cuda
