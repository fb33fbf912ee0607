// What a report stop needs without copying every position back (docs/gpu.md#what-overlaps-the-steps):
// the stability screen of backend/stability_screen.h over all replicas, and the positions
// of a few beads (the pulled ends, the tethered beads) gathered from every replica.
#include <algorithm>

#include "ermak/backend/cuda/cuda_util.cuh"
#include "ermak/backend/cuda/kernels.cuh"
#include "ermak/backend/stability_screen.h"

namespace ermak::cuda {
namespace {

constexpr int kStopBlock = 256;

// Item t of replica r = t / per_replica: bead t % per_replica (its coordinates) and bond
// t % per_replica (its length), where they exist. A flagged item sets *flag; nothing else
// is written, so the order of the threads does not matter.
__global__ void __launch_bounds__(kStopBlock)
    stability_screen_kernel(const float4* __restrict__ pos, int n, long long items, int per_replica,
                            const BondScreen* __restrict__ screen, int bonds, int* flag) {
  for (long long t = blockIdx.x * (long long)kStopBlock + threadIdx.x; t < items;
       t += (long long)gridDim.x * kStopBlock) {
    const long long r = t / per_replica;
    const int k = int(t - r * per_replica);
    const float4* p = pos + r * n;
    bool bad = false;
    if (k < n) {
      const float4 a = p[k];
      bad = non_finite(a.x) || non_finite(a.y) || non_finite(a.z);
    }
    if (k < bonds) {
      const BondScreen b = screen[k];
      const float4 a = p[b.i], c = p[b.j];
      bad = bad || outside_bond_screen(b, c.x - a.x, c.y - a.y, c.z - a.z);
    }
    if (bad) atomicOr(flag, 1);
  }
}

__global__ void __launch_bounds__(kStopBlock)
    gather_beads_kernel(const float4* __restrict__ pos, int n, long long items, const int* __restrict__ beads,
                        int per_replica, float4* __restrict__ out) {
  for (long long t = blockIdx.x * (long long)kStopBlock + threadIdx.x; t < items;
       t += (long long)gridDim.x * kStopBlock) {
    const long long r = t / per_replica;
    out[t] = pos[r * n + beads[t - r * per_replica]];
  }
}

int grid_for(long long items) {
  // Enough blocks to fill the GPU several times over; the loops stride beyond that.
  return int(std::min<long long>((items + kStopBlock - 1) / kStopBlock, 65536));
}

}  // namespace

void launch_stability_screen(const float4* pos, int n, int replicas, const BondScreen* screen, int bonds, int* flag,
                             cudaStream_t stream) {
  const int per_replica = std::max(n, bonds);
  const long long items = (long long)replicas * per_replica;
  if (items == 0) return;
  stability_screen_kernel<<<grid_for(items), kStopBlock, 0, stream>>>(pos, n, items, per_replica, screen, bonds,
                                                                       flag);
  ERMAK_CUDA_LAUNCHED("stability_screen_kernel", stream);
}

void launch_gather_beads(const float4* pos, int n, int replicas, const int* beads, int count, float4* out,
                         cudaStream_t stream) {
  const long long items = (long long)replicas * count;
  if (items == 0) return;
  gather_beads_kernel<<<grid_for(items), kStopBlock, 0, stream>>>(pos, n, items, beads, count, out);
  ERMAK_CUDA_LAUNCHED("gather_beads_kernel", stream);
}

}  // namespace ermak::cuda
