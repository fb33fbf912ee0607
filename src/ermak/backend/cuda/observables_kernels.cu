// Structure observables at report time (docs/gpu.md#observables): Q, radius of gyration
// and end-to-end distance of every replica, reduced on the device so that an energy row
// copies three doubles per replica instead of all positions. The per-item math is
// model/structure_observables.h, the same functions the host's measure_structure calls; this
// file owns only the loop and the summation order, which is fixed (strided per thread,
// then a tree over the block; no atomics), so the results do not change from run to run.
#include "ermak/backend/cuda/cuda_util.cuh"
#include "ermak/backend/cuda/kernels.cuh"
#include "ermak/model/structure_observables.h"

namespace ermak::cuda {
namespace {

constexpr int kStructureBlock = 256;

// In-place tree sum of s[0..blockDim.x) into s[0] (blockDim.x a power of two, at most
// kStructureBlock: tree_block_for); every thread must call it.
template <class T>
__device__ void block_tree_sum(T* s) {
  __syncthreads();
  for (int width = blockDim.x / 2; width > 0; width /= 2) {
    if (int(threadIdx.x) < width) s[threadIdx.x] += s[threadIdx.x + width];
    __syncthreads();
  }
}

// One block per replica. Pass 1: formed native contacts (each once, from its lower-index
// bead: every contact is in both beads' ELL rows) and the sum of positions; pass 2:
// Σ|r − c|² about the centre c (two passes, as on the host, so no cancellation).
__global__ void __launch_bounds__(kStructureBlock) structure_kernel(const __grid_constant__ StructureLaunch L) {
  const ModelData& m = L.m;
  const int n = m.n;
  const int r = blockIdx.x;
  const float4* pos = L.pos + std::size_t(r) * n;

  __shared__ double sx[kStructureBlock], sy[kStructureBlock], sz[kStructureBlock];
  __shared__ long long sformed[kStructureBlock];

  double ax = 0.0, ay = 0.0, az = 0.0;
  long long formed = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const float4 pi = pos[i];
    ax += pi.x; ay += pi.y; az += pi.z;
    const int nn = __ldg(m.natives.count + i);
    for (int s = 0; s < nn; ++s) {
      const int k = s * n + i;
      const int j = __ldg(m.natives.partner + k);
      if (j <= i) continue;
      const float4 pj = pos[j];
      if (structure::contact_formed(pi.x - pj.x, pi.y - pj.y, pi.z - pj.z, __ldg(m.natives.r0 + k), L.formed_ratio))
        ++formed;
    }
  }
  sx[threadIdx.x] = ax; sy[threadIdx.x] = ay; sz[threadIdx.x] = az;
  sformed[threadIdx.x] = formed;
  block_tree_sum(sx); block_tree_sum(sy); block_tree_sum(sz);
  block_tree_sum(sformed);
  const double cx = sx[0] / n, cy = sy[0] / n, cz = sz[0] / n;
  const long long formed_total = sformed[0];
  __syncthreads();  // everyone has read the sums before sx is reused

  double a2 = 0.0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const float4 pi = pos[i];
    a2 += structure::squared_deviation_A2(pi.x, pi.y, pi.z, cx, cy, cz);
  }
  sx[threadIdx.x] = a2;
  block_tree_sum(sx);

  if (threadIdx.x == 0) {
    const float4 a = pos[L.end_first], b = pos[L.end_last];
    double* out = L.out + std::size_t(r) * kStructureOut;
    out[0] = structure::native_fraction(formed_total, L.native_contacts);
    out[1] = structure::radius_of_gyration_A(sx[0], n);
    out[2] = structure::end_to_end_A(a.x, a.y, a.z, b.x, b.y, b.z);
  }
}

}  // namespace

void launch_structure_observables(const StructureLaunch& L, cudaStream_t stream) {
  structure_kernel<<<L.m.replicas, tree_block_for(L.m.n), 0, stream>>>(L);
  ERMAK_CUDA_LAUNCHED("structure_kernel", stream);
}

}  // namespace ermak::cuda
