#pragma once
// Launch interfaces of the CUDA backend's kernels (host side). The engine
// (cuda_engine.cuh, defined in the cuda_engine*.cu files) owns the memory and calls
// these; each .cu file owns its kernels.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "ermak/backend/cuda/device_model.cuh"
#include "ermak/backend/stability_screen.h"
#include "ermak/model/structure_observables.h"

namespace ermak::cuda {

// ---- block family (block_kernel.cu) ----

// Per block of the block family: where it is and what it saw.
struct BlockStatus {
  long long done = 0;      // step the block's positions are at
  int needed_slots = 0;    // > slots: a list row overflowed at `done`
  int unused = 0;          // the padding made a member, so that a kernel's store of the
                           // struct writes every byte the host later copies back
                           // (compute-sanitizer --tool initcheck, docs/gpu.md#checking-a-gpu-build)
  long long rebuilds = 0;  // list builds (per replica, summed), added to those of the
                           // status the launch starts from (status_in, else status)
  long long pairs = 0;     // repulsive pairs in the block's lists at the last build
};
static_assert(sizeof(BlockStatus) == 32, "BlockStatus: no padding left unwritten");

struct BlockLaunch {
  ModelData m;
  const float4* in = nullptr;   // [R·n], positions at each block's `done` step
  float4* out = nullptr;        // [R·n], positions when the block stops (may equal in)
  std::uint16_t* global_rows = nullptr;  // [block][slot][group·n] when rows do not fit on chip
  int slots = 0;                // list row capacity
  int group = 1;                // replicas per block
  int lanes = 1;                // threads per bead: 1, 2, 4 or 8
  int force_threads = 0;        // threads [0, force_threads) compute forces and move beads
  int noise_threads = 0;        // threads [force_threads, +noise_threads) draw the noise, one
                                // bead each (at least as many as the block's beads)
                                // concurrently with the forces (0: the movers draw it)
  int beads_per_thread = 1;     // 1, 2 or 4 (with one lane per bead)
  int threads = 32;
  bool rows_in_shared = true;
  bool all_pairs = false;       // small systems: no list, fixed rows (ModelData::repulsive_partners)
  // Tiles layout (tile_kernel.cuh, docs/gpu.md#tiles; all pairs, 8 to 64 beads): each
  // pair once in tiles of 4 × 4 beads, `threads` = group × tile_threads_per_replica(n,
  // tile_beads_apart) rounded up to a warp. Tables of backend/pair_tiles.h, the same for every replica: each
  // tile's 16 pairs {c², 12 e12, 6 e6, cutoff²} [tile][16] and each bead's bonds
  // {partner as int bits (−1: none), r0} [n][4].
  bool tiles = false;
  bool tile_beads_apart = false;  // bead threads after the tile threads (tile_kernel.cuh)
  const float4* tile_coefficients = nullptr;
  const float2* tile_bonds = nullptr;
  long long end_step = 0;
  physics::LangevinCoefficients coeff{};
  double kT = 0.0;
  TipArrays tips;
  BlockStatus* status = nullptr;  // [blocks], written when each block stops
  // Where each block's `done` is read at the start (nullptr: `status`): the engine's
  // overlapped stops alternate two status arrays, so that a stop can read the status of
  // the launch before while the next launch runs (docs/gpu.md#what-overlaps-the-steps).
  const BlockStatus* status_in = nullptr;
};

int block_count(const BlockLaunch& launch);
std::size_t block_shared_bytes(const BlockLaunch& launch);
std::size_t block_max_shared_bytes(int device);
// How many blocks of this launch's kernel variant fit on one multiprocessor at once.
int block_resident_blocks_per_sm(const BlockLaunch& launch);
void launch_block_steps(const BlockLaunch& launch, cudaStream_t stream);

// The tiles layout's kernel for a launch (tile_kernel.cu; throws where it does not apply),
// its shared memory, and its threads per replica before rounding the block to a warp.
using TileKernel = void (*)(BlockLaunch);
TileKernel tile_kernel_for(const BlockLaunch& launch);
std::size_t tile_shared_bytes(const BlockLaunch& launch);
int tile_threads_per_replica(int n, bool beads_apart);

// ---- per-bead family (perbead_kernels.cu) ----

// Device-resident control of a graph-driven run (perbead family).
struct Control {
  long long step = 0;            // positions of this step are in pos[step & 1]
  long long target = 0;          // steps stop before this one
  long long stale_since = 0;     // the list is invalid for steps ≥ this (kNever: valid)
  long long rebuilds = 0;        // list builds (all replicas at once)
  int needed_slots = 0;          // > slots: a row overflowed; the run waits for the host
  int pad = 0;
  physics::LangevinCoefficients coeff{};
  double kT = 0.0;
};

struct CellGrid {
  float origin[3];
  float inverse_cell;
  int dims[3];
  int cells;
};

constexpr int kPerBeadBlock = 256;  // threads per block of the per-bead step kernel
constexpr int kPerBeadBlockWarps = kPerBeadBlock / 32;

struct PerBeadLaunch {
  ModelData m;
  float4* pos[2] = {nullptr, nullptr};  // [R·n] each: step s reads pos[s&1], writes pos[(s+1)&1]
  float4* ref = nullptr;                // [R·n] positions at the last list build
  // List rows [R·n][slots]: 16-bit partner indices while n ≤ 65536 (rows16), else 32-bit
  // (rows); exactly one is set. Half the bytes of the largest per-step stream (docs/gpu.md).
  int* rows = nullptr;
  std::uint16_t* rows16 = nullptr;
  // Or cluster rows (docs/gpu.md#cluster-rows): [R·clusters][slots], one row per 8
  // consecutive beads (ClusterRow in device_model.cuh); then rows, rows16 are null and
  // row_count is per cluster.
  std::uint32_t* cluster_rows = nullptr;
  int* row_count = nullptr;             // [R·n], or [R·clusters] with cluster rows
  int slots = 0;
  int lanes = 8;                        // lanes per bead in the force loop (2, 4, 8, 16)
  bool multi_round = true;              // a warp serves 32 beads (else 32/lanes)
  // Warps per cluster (1, 2, 4) where the step kernel reads cluster rows as tiles (lanes 4,
  // one round): each takes a share of the cluster row (docs/gpu.md#cluster-tiles); else 1.
  int cluster_split = 1;
  // With cluster tiles (and no tip in the step kernel): the block's beads are moved a
  // bead per lane by its first threads after a barrier, instead of by one lane in 4 of
  // each cluster's first warp (docs/gpu.md#cluster-tiles). ERMAK_CUDA_WIDE_MOVES=0|1
  // overrides.
  bool wide_moves = false;
  // With wide moves: the order in which the step kernel's blocks take clusters
  // (docs/gpu.md#cluster-order). Each window of `cluster_order_window` blocks of a replica
  // holds its clusters sorted by row length, longest first, so that a block's warps meet
  // its barrier at about the same time; and the grid runs every window's first block of
  // every replica first, then the second ones, …, so that the longest blocks start
  // first. [R][perbead_cluster_order_slots], rebuilt with the rows; values ≥ the
  // replica's clusters are empty places. nullptr (window 0): chain order.
  // ERMAK_CUDA_CLUSTER_ORDER=0|blocks per window overrides.
  int* cluster_order = nullptr;
  int cluster_order_window = 0;
  // Warps per block of the step kernel: 8 (kPerBeadBlock threads), or with wide moves 4
  // (clusters of one warp or of two) or 2 (clusters of two) (ERMAK_CUDA_BLOCK_WARPS;
  // docs/gpu.md#cluster-order).
  int block_warps = kPerBeadBlockWarps;
  // Step kernels (and the indentation tip kernel) launched with programmatic stream
  // serialization (docs/gpu.md#kernel-families): their blocks may be scheduled while the
  // kernel before them drains, and wait on chip (griddepcontrol.wait) until its writes are
  // visible. ERMAK_CUDA_PDL=0: plain launches.
  bool programmatic_steps = true;
  // cell list, per replica
  CellGrid* grids = nullptr;            // [R]
  int cell_capacity = 0;                // per replica: ≥ 2n + 27
  int cell_divisions = 1;               // cells are list cutoff / this wide (or wider, ≤ cap cells)
  int* cell_start = nullptr;            // [R][cell_capacity + 1]
  int* cell_fill = nullptr;             // [R][cell_capacity]
  int* bead_cell = nullptr;             // [R·n]
  int* cell_beads_unsorted = nullptr;   // [R·n]
  int* cell_beads = nullptr;            // [R·n], ascending bead index within each cell
  // The cooperative cell sort (cell_sort_blocks > 0; else one block per replica):
  int cell_sort_blocks = 0;             // its grid
  int* cell_bounds = nullptr;           // [R][6] bounding-box keys, empty between builds
  int* cell_tile_sum = nullptr;         // [R][cell_tiles] scan tiles' sums, then offsets
  int cell_tiles = 0;
  Control* ctrl = nullptr;
  TipArrays tips;
  double* tip_partial = nullptr;        // [R][blocks per replica][3]
  unsigned* tip_counter = nullptr;      // [R]
  float* tip_force = nullptr;           // [R·n][6]: indentation in large runs, the tip's and the
                                        // surface's force on each bead at the step (float, as
                                        // added) from perbead_tip_kernel; nullptr: the step
                                        // kernel does the tip's work itself
};

int perbead_beads_per_block(int lanes, bool multi_round);
int perbead_blocks_per_replica(const PerBeadLaunch& launch);  // the step kernel's grid.x
// With a cluster order: its places per replica (blocks per replica × clusters per block).
int perbead_cluster_order_slots(const PerBeadLaunch& launch);
// The list build for every replica, when ctrl->stale_since ≤ ctrl->step (three kernels).
// `from` (optional) builds from these positions instead of pos[step & 1].
void launch_rebuild(const PerBeadLaunch& launch, cudaStream_t stream, const float4* from = nullptr);
// Its first kernel, the cell sort (cell_list_kernels.cu): one cooperative grid of
// launch.cell_sort_blocks blocks over all replicas, or one block per replica.
void launch_rebuild_cells(const PerBeadLaunch& launch, cudaStream_t stream, const float4* from);
// The cooperative cell sort's grid for this device and run (0: the device cannot launch
// it), its scan tiles per replica, and the bounding-box keys it expects between builds.
int cell_grid_sort_blocks(int device, int n, int replicas);
int cell_scan_tiles(int cell_capacity);
std::vector<int> empty_cell_bounds(int replicas);
// A second stream for a branch of a captured graph, forked and joined by two events: with
// the tip kernel (indentation, large runs), the tip's step runs there beside the step
// kernel.
struct SideBranch {
  cudaStream_t stream = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
};
// Whether the step and tip kernels that run on the current device wait on chip for the
// grid before them (code compiled for compute capability ≥ 9.0): only then may they be
// launched programmatically (PerBeadLaunch::programmatic_steps). Code built for an
// earlier architecture — also as PTX compiled by the driver for a newer GPU — does not.
bool perbead_waits_on_chip();
// One step, node `node` of a chunk: step ctrl->step + node unless past target or stale.
void launch_perbead_step(const PerBeadLaunch& launch, int node, cudaStream_t stream, const SideBranch& side);
// ctrl->step = min(step + chunk, target, stale_since).
void launch_chunk_end(const PerBeadLaunch& launch, int chunk, cudaStream_t stream);
void launch_set_segment(Control* ctrl, long long target, physics::LangevinCoefficients coeff, double kT,
                        cudaStream_t stream);
void launch_mark_stale(Control* ctrl, cudaStream_t stream);
// Sum of row counts over all beads (each pair twice) into *out.
void launch_count_pairs(const int* row_count, long long total_beads, unsigned long long* out, cudaStream_t stream);
// The same for cluster rows: the set bead bits of all entries (each pair twice).
void launch_count_cluster_pairs(const PerBeadLaunch& launch, unsigned long long* out, cudaStream_t stream);
__host__ __device__ inline int cluster_count(int n) { return (n + kClusterBeads - 1) / kClusterBeads; }
// Replica r's cluster row that holds bead i (rows [R·clusters][slots], replica-major).
__host__ __device__ inline std::size_t cluster_row_index(int r, int n, int i) {
  return std::size_t(r) * cluster_count(n) + i / kClusterBeads;
}

// ---- evaluation (eval_kernels.cu) ----

constexpr int kEvalLanes = 8;  // eval_kernel: lanes per bead

struct EvalLaunch {
  ModelData m;
  const float4* pos = nullptr;    // [R·n]
  long long step = 0;             // protocol time
  // list: rows (perbead family layout) or brute force when rows == nullptr
  const int* rows = nullptr;              // 32-bit rows, or
  const std::uint16_t* rows16 = nullptr;  // 16-bit rows, or
  const std::uint32_t* cluster_rows = nullptr;  // cluster rows (row_count per cluster)
  const int* row_count = nullptr;
  int slots = 0;
  TipArrays tips;                 // tip, turnaround read; molecule_force written by the reduction
  float4* force = nullptr;        // [R·n] out: force (w unused)
  double* bead_energy = nullptr;  // [R·n][4] out when energies are wanted
  double* bead_tip = nullptr;     // [R·n][3] out when indentation is on
  double* replica_out = nullptr;  // [R][kReplicaOut] out by the reduction
  int rounds = 8;                 // eval_kernel's rounds per warp: 8 (32 beads) or 1 (4 beads)
};

// Threads of a one-block-per-replica tree reduction (reduce_kernel, structure_kernel):
// the smallest power of two from 32 that holds the replica's beads, at most 256. Below
// 256 the tree only leaves out levels that add zeros, so the sums keep their values, and a
// 34-bead replica no longer holds 256 threads (WW × 9000: 89 and 49 µs per report).
inline int tree_block_for(int beads) {
  int block = 32;
  while (block < beads && block < 256) block *= 2;
  return block;
}

// replica_out layout
constexpr int kReplicaOut = 5;  // fene, native, repulsive, protocol, max |F|² over free beads

void launch_eval(const EvalLaunch& launch, bool energy, cudaStream_t stream);
// Per-replica sums of bead_energy, max |F|² (free beads) and the tip reaction.
void launch_reduce_replicas(const EvalLaunch& launch, bool energy, cudaStream_t stream);

// Minimisation moves: mode[r] 1: save = pos, pos += scale[r]·force (free beads); 2: pos = save.
void launch_minimize_move(const ModelData& m, float4* pos, float4* save, const float4* force, const int* mode,
                          const float* scale, cudaStream_t stream);

// ---- hydrodynamic interactions (hydrodynamic_kernels.cu) ----

// One Brownian step of every replica with hydrodynamic interactions
// (docs/gpu.md#hydrodynamic-interactions, backend/hydrodynamic_step.h), from the total
// forces at `step` that the evaluation left in `force`: the step's Gaussians of every bead
// (Philox, or the stateful generator's ring: bead_noise), the displacements of the mobile
// beads — TEA: ε shares (a warp per mobile bead or two), ε and β per replica (a thread per
// replica, the shares summed in double in bead order), the moves (a warp per mobile
// bead or two); Cholesky: a block per replica over its 3M × 3M tensor — then every bead's
// position at step + 1 into `next` (fixed beads copied), and the indentation tip's step.
struct HydrodynamicLaunch {
  ModelData m;
  const float4* pos = nullptr;    // [R·n] positions at `step`
  float4* next = nullptr;         // [R·n] out: positions at step + 1
  const float4* force = nullptr;  // [R·n] total forces at `step`
  float4* gaussian = nullptr;     // [R·n] TEA: the step's noise of the mobile beads
  const int* mobile = nullptr;    // [M] the beads that are not fixed, ascending
  int mobile_count = 0;           // M
  const int* fixed = nullptr;     // [n − M] the fixed beads, ascending
  int fixed_count = 0;            // n − M
  float radius_A = 0.0f;          // hydrodynamic radius a
  bool cholesky = false;          // the exact square root (else TEA)
  float* epsilon_share = nullptr;  // [R·M] TEA: each mobile bead's share of ε
  float* beta = nullptr;           // [R] TEA: β' of each replica
  float* tensor = nullptr;         // [R][9M²] Cholesky: each replica's tensor, then its factor
  bool tensor_in_shared = false;   // Cholesky: the tensor in each block's shared memory instead
  Vec3f* displacement = nullptr;   // [R·M] Cholesky: each mobile bead's displacement
  int tea_lanes = 0;              // TEA: lanes per group (8, 16, 32), 0 = by M
  int tea_beads_per_group = 0;    // TEA: mobile beads per group (1, 2, 4, 8), 0 = by the run's size
  long long step = 0;
  physics::LangevinCoefficients coeff{};  // of the temperature at `step`
  double kT = 0.0;                        // the same, for the tip's step
  TipArrays tips;                         // the tip moves from molecule_force of the evaluation
  // Per-bead family: the list reference and control; a bead farther than skin/2 from its
  // reference marks the list stale at step + 1, and the control moves to step + 1.
  // nullptr (block family): no list to keep.
  const float4* ref = nullptr;
  Control* ctrl = nullptr;
};

void launch_hydrodynamic_step(const HydrodynamicLaunch& launch, cudaStream_t stream);

// The exact method's shared memory per block: the replica's 3M Gaussians, and its tensor
// (9M² floats) too when tensor_in_shared; whether the tensor fits in what a block may take on
// the device; and the launch attribute that lets the kernel take it (once, before launches).
std::size_t cholesky_shared_bytes(int mobile_count, bool tensor_in_shared);
bool cholesky_tensor_fits_in_shared(int mobile_count, const cudaDeviceProp& prop);
void allow_cholesky_shared_bytes(int mobile_count, bool tensor_in_shared);

// ---- structure observables (observables_kernels.cu) ----

struct StructureLaunch {
  ModelData m;                     // n, replicas and the native-contact rows
  const float4* pos = nullptr;     // [R·n]
  double formed_ratio = kDefaultContactFormedRatio;  // formed when r < formed_ratio · r0
  long long native_contacts = 0;   // contacts in the topology (Q's denominator)
  int end_first = 0, end_last = 0; // beads of the end-to-end distance
  double* out = nullptr;           // [R][kStructureOut]
};

constexpr int kStructureOut = 3;  // Q, Rg (Å), end-to-end (Å)

// One block per replica, sums in a fixed order (docs/gpu.md#observables).
void launch_structure_observables(const StructureLaunch& launch, cudaStream_t stream);

// ---- report stops (stop_kernels.cu) ----

// Sets *flag (0 before) to 1 when a coordinate of pos[R·n] is not finite or a bond of
// screen[bonds] (the same in every replica) lies outside its bounds (backend/stability_screen.h).
void launch_stability_screen(const float4* pos, int n, int replicas, const BondScreen* screen, int bonds, int* flag,
                             cudaStream_t stream);
// out[r·count + k] = pos[r·n + beads[k]].
void launch_gather_beads(const float4* pos, int n, int replicas, const int* beads, int count, float4* out,
                         cudaStream_t stream);

}  // namespace ermak::cuda
