// The CUDA engine (docs/gpu.md): the Engine interface of backend/engine.h with the CPU
// engine's semantics, everything on the device. The host launches kernels and copies
// data only when asked (state, energies, forces, reports, checkpoints). This header is
// the class, internal to the CUDA backend (backend/cuda_engine.h is its interface); its
// members are defined by concern:
//   cuda_engine.cu          construction, state, checkpoint state, forces, minimisation
//   cuda_engine_layout.cu   the kernel family and layout of a run, list row lengths
//   cuda_engine_memory.cu   the model's upload, device memory, the per-bead graph
//   cuda_engine_block.cu    the block family's steps: launches run ahead, overflows
//   cuda_engine_perbead.cu  the per-bead family's steps: graph chunks, list checks
//   cuda_engine_stops.cu    report stops (beside the steps or in turn), evaluation, gathers
//   cuda_engine_hydrodynamics.cu  steps with hydrodynamic interactions (either family)
//
// Memory (all owned here, one DeviceBuffer per array):
//   positions   float4 [2][R·n]   current positions in pos[step & 1]; the other buffer is
//                                 the per-bead family's next-step buffer, or scratch
//   topology    ELL rows of bonds and native contacts, per-bead protocol indices
//   lists       block family: rows on chip (or [block][slot][bead] 16-bit in global);
//               per-bead family: int [R·n][slots] + cell list + reference positions
//   evaluation  forces float4 [R·n], bead energies double [R·n][4], reductions
//   noise       non-Philox generators only (run.rng): the generator state (DeviceNoise)
//               and a ring of float4 [K][R·n] noise for the next K steps, K ≤ 256 within
//               32 MB; the step kernels read it instead of drawing Philox
//   hydrodynamics langevin.hydrodynamics only: the mobile beads, the step's noise float4
//               [R·n], displacements [R·M]; TEA's ε shares [R·M] and β [R], or the
//               exact method's tensor float [R][9M²]
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "ermak/backend/pair_tiles.h"
#include "ermak/backend/protocol_reports.h"
#include "ermak/backend/structure_ends.h"
#include "ermak/backend/cuda/cuda_util.cuh"
#include "ermak/backend/cuda/device_noise.cuh"
#include "ermak/backend/cuda/kernels.cuh"
#include "ermak/backend/cuda/tile_kernel.cuh"
#include "ermak/backend/cuda_engine.h"
#include "ermak/core/error.h"
#include "ermak/neighbor/verlet_list.h"

namespace ermak {
namespace cuda {

constexpr int kBlockMaxBeads = 4096;     // 1024 threads × 4 beads
constexpr int kAutoBlockMaxBeads = 2048; // auto choice: block family up to here (docs/gpu.md)
constexpr int kAutoBlockAlwaysBeads = 384;
constexpr int kPerBeadMaxReplicas = 65535;  // a grid's rows (gridDim.y) hold one replica each
// Block family without a list (docs/gpu.md#kernel-families), up to this many beads per
// replica (measured, docs/benchmarks.md#all-pairs-up-to-192-beads: 149 and 179 beads
// +10–31 % at 1 to 3000 replicas, with 4 lanes per bead in blocks of up to 1024 threads
// for few replicas; 211 beads −16 to −21 % at 1 and 100 replicas).
constexpr int kAllPairsMaxBeads = 192;
constexpr int kChunkSteps = 16;          // per-bead family: steps between rebuild checks
                                         // (ERMAK_CUDA_CHUNK_STEPS overrides, for experiments)
constexpr int kChunksPerGraph = 4;
constexpr std::size_t kNoiseRingBytes = std::size_t(32) << 20;  // non-Philox noise drawn ahead
constexpr int kNoiseRingMaxSteps = 256;

// The all-pairs limit; ERMAK_CUDA_ALLPAIRS_MAX_BEADS replaces it for measurements, up to
// 255 (the fixed rows hold uint8 partner indices and counts).
inline int all_pairs_max_beads() {
  const int forced = env_int("ERMAK_CUDA_ALLPAIRS_MAX_BEADS", -1);
  if (forced > 255 || forced < -1) throw Error("ERMAK_CUDA_ALLPAIRS_MAX_BEADS must be 0 to 255");
  return forced >= 0 ? forced : kAllPairsMaxBeads;
}

inline int round_up(int v, int m) { return (v + m - 1) / m * m; }

class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    int current = -1;
    ERMAK_CUDA(cudaGetDevice(&current));
    if (current != device) ERMAK_CUDA(cudaSetDevice(device));
  }
};

class CudaEngine final : public Engine {
 public:
  CudaEngine(const EngineSetup& setup, const CudaEngineOptions& options);
  ~CudaEngine() override { release(); }
  std::string name() const override { return "cuda"; }
  std::string family_name() const { return family_ == CudaKernelFamily::kBlock ? "block" : "perbead"; }
  std::string kernel_layout() const;
  // Device memory this engine holds (for docs/gpu.md and messages).
  std::size_t device_bytes() const { return allocated_bytes_; }
  void set_state(const State& state) override;
  const State& state() override;
  void advance(std::int64_t steps) override;
  // Stops of an indentation run are taken in turn (cuda_engine_stops.cu).
  bool overlaps_stops() const override { return async_steps_ && !setup_.indentation.enabled; }
  StopValues stop_and_advance(const StopRequest& request, std::int64_t next_steps) override;
  StopValues take_stop(const StopRequest& request) override;
  bool last_stop_positions(State& out) override;
  std::vector<EnergyTerms> energies() override;
  std::vector<StructureObservables> structure_observables(double formed_ratio, std::int32_t end_first,
                                                          std::int32_t end_last) override;
  State forces() override;
  std::vector<Vec3d> tether_forces_kcal_per_mol_A() override;
  std::vector<Vec3f> bead_positions(const std::vector<std::int32_t>& beads) override;
  bool may_be_unstable() override;
  std::vector<double> plane_forces_kcal_per_mol_A() override;
  std::vector<IndentationStatus> indentation_status() override;
  std::vector<std::uint8_t> noise_state() override;
  void restore_noise_state(const std::vector<std::uint8_t>& bytes) override;
  std::string noise_name() const override { return noise_->name(); }
  std::vector<double> protocol_state() override;
  void restore_protocol_state(const std::vector<double>& st) override;
  MinimizeResult minimize(std::int64_t max_iterations, double force_tolerance_kcal_per_mol_A,
                          double max_displacement_A, const StopRequested& stop_requested) override;
  State neighbor_reference() override;
  void restore_neighbor_reference(const State& reference) override;
  EngineStats stats() const override;

 private:
  // ---- positions (cuda_engine.cu) ----
  void upload_positions(const State& s, float4* dst);
  void download_positions(const float4* src, State& s);
  void copy_positions(const float4* host, State& s) const;
  void positions_changed();

  // ---- the family and layout of a run (cuda_engine_layout.cu) ----
  struct BlockConfig {
    int group = 1, threads = 32, beads_per_thread = 1, lanes = 1;
    int force_threads = 32, noise_threads = 0;
    bool rows_in_shared = true;
    bool all_pairs = false;
    bool tiles = false;  // each pair once in tiles of 4 × 4 beads (all pairs, lanes = 1)
    bool tile_beads_apart = false;  // the tiles' bead threads after their tile threads
  };
  // Per-bead family: cluster rows (docs/gpu.md#cluster-rows) for runs of at least this
  // many beads in all, a row per bead otherwise; ERMAK_CUDA_CLUSTER_ROWS=0|1 overrides.
  // Measured on an H100 with the step kernel's cluster tiles, split as
  // choose_cluster_split says (docs/benchmarks.md#cluster-tiles), against rows per bead:
  // one PF8 (6928 beads) +8.6 %, PF8 × 2 +36 %, × 16 +38 %, one CCMV capsid (28 620) +15 %,
  // four capsids as one structure +20 %; but one fibrinogen (2964 beads) −1.6 %. The
  // threshold lies between those two single structures (not measured closer).
  static constexpr long long kClusterRowsMinBeads = 4096;
  // Cluster tiles: warps per cluster (docs/gpu.md#cluster-tiles), by the run's clusters
  // per multiprocessor: 4 below 4, 2 below 32, else 1; ERMAK_CUDA_CLUSTER_SPLIT=1|2|4
  // overrides. Measured on an H100 (132 SMs; docs/benchmarks.md#cluster-tiles): 371
  // clusters (one fibrinogen) best at 4; 866 (one PF8), 1484, 1732, 3578 (one CCMV) at 2
  // (+3 to +21 % against 1); 3464 (PF8 × 4) 1 and 2 alike; 5936 and 13 856 (PF8 × 16)
  // at 1 (−5 %, −12 % with 2). More warps hide the latency of short runs; more shares
  // cost a barrier and a sum per cluster, and split rows of few rounds each.
  static constexpr int kClusterSplit4BelowPerSM = 4, kClusterSplit2BelowPerSM = 32;
  // Cluster order (docs/gpu.md#cluster-order): blocks per window of clusters sorted by row
  // length; ERMAK_CUDA_CLUSTER_ORDER=0 (chain order) or another window overrides.
  static constexpr int kClusterOrderWindow = 16;
  // Step-kernel blocks of 4 warps instead of 8 (wide moves), from this many clusters per SM
  // (docs/gpu.md#cluster-order); ERMAK_CUDA_BLOCK_WARPS=2|4|8 overrides. On an H100 (132
  // SMs) 4 warps lost at 866 and 1732 clusters (one PF8, PF8 × 2) and won +1.5 to +4.5 %
  // from 2226 to 4081 (split over 2 warps: fibrinogen × 6 … × 11, PF8 × 3, × 4, one CCMV),
  // the line between, at 2112; with clusters of one warp (from 4224) +0.7 to +3.7 % but
  // PF8 × 8 −0.6 %.
  static constexpr int kBlockWarps4FromPerSM = 16;
  CudaKernelFamily choose_family(CudaKernelFamily requested) const;
  bool choose_cluster_rows() const;
  bool use_cluster_rows() const { return cluster_rows_mode_; }
  int cell_divisions() const;
  bool use_grid_cell_sort() const;
  bool tip_kernel() const;
  bool use_all_pairs() const;
  // The largest block the variants with S lanes per bead are compiled for (block_kernel_lanes.cu):
  // 1024 threads at S = 2 and 4 — one replica of up to 336 or 200 beads — else 512. (S = 8
  // in 1024 threads lost to S = 4 in 512: ubiquitin × 1 −1.3 %, indented −18 %,
  // docs/benchmarks.md#several-lanes-per-bead-in-blocks-of-up-to-1024-threads.)
  static int max_block_threads(int lanes) { return lanes == 2 || lanes == 4 ? 1024 : 512; }
  bool one_replica_fits(int lanes) const;
  // Threads that fill the GPU with a short critical path: as many as it holds at once
  // (2048 per SM on an H100, where the layout rules were measured; 1536 on an RTX 4090).
  long long thread_budget() const {
    return (long long)prop_.multiProcessorCount * prop_.maxThreadsPerMultiProcessor;
  }
  bool use_tiles(const BlockConfig& c, bool lanes_forced) const;
  bool use_tile_beads_apart() const;
  BlockConfig block_config() const;
  BlockLaunch block_launch(const BlockConfig& c, bool rows_in_shared) const;
  void choose_perbead_lanes(PerBeadLaunch& L) const;
  int choose_cluster_split() const;
  int slot_cap() const;
  int layout_slots(int bead_slots) const;
  int forced_block_slots() const;
  int needed_slots_for(const State& state) const;
  int initial_slots() const;
  void grow_slots(int needed);

  // ---- the model, memory and the per-bead graph (cuda_engine_memory.cu) ----
  void validate_setup();
  void upload_model();
  void upload_tile_tables();
  void setup_noise();
  std::size_t bytes_needed() const;
  // 16-bit partner indices while they fit (ERMAK_CUDA_ROWS32=1 forces 32-bit, for tests
  // and comparisons).
  bool perbead_rows16() const { return !use_cluster_rows() && n_ <= 65536 && env_int("ERMAK_CUDA_ROWS32", 0) == 0; }
  std::size_t perbead_row_entry_bytes() const { return perbead_rows16() ? 2 : 4; }
  std::size_t perbead_rows() const { return std::size_t(R_) * (use_cluster_rows() ? cluster_count(n_) : n_); }
  std::size_t row_entries() const { return perbead_rows() * std::size_t(slots_); }
  std::size_t shared_budget() const;
  void check_memory(std::size_t need) const;
  void configure_and_allocate();
  void capture_graph();
  void destroy_graph();
  void release() noexcept;

  // ---- steps: the block family (cuda_engine_block.cu) ----
  void launch_steps(std::int64_t steps);
  std::int64_t temperature_segment_end(std::int64_t s, std::int64_t end) const;
  void settle();
  static bool lists_overflowed(const BlockStatus* status, std::size_t blocks, std::int64_t step);
  void note_list_status(const BlockStatus* status, std::size_t blocks);
  StopValues retake_stop_after_overflow(const StopRequest& request, std::int64_t next_steps, std::int64_t stop_step);
  void finish_overflowed_blocks(float4* pos, std::int64_t end);
  void check_block_status(const BlockStatus* status, std::size_t blocks, std::int64_t step) const;
  void advance_block(std::int64_t s, std::int64_t e, physics::LangevinCoefficients coeff, double kT);
  std::int64_t all_pairs_count() const;
  void run_block_in_turn(std::int64_t s, std::int64_t e, const float4* in, float4* out);
  void run_block_in_turn(std::int64_t e, const float4* in, float4* out, physics::LangevinCoefficients coeff,
                         double kT);

  // ---- steps: the per-bead family (cuda_engine_perbead.cu) ----
  Control fetch_control();
  void reset_control();
  void advance_perbead(std::int64_t s, std::int64_t e, physics::LangevinCoefficients coeff, double kT);
  void ensure_perbead_list();

  // ---- steps with hydrodynamic interactions (cuda_engine_hydrodynamics.cu) ----
  bool hydrodynamic() const { return setup_.langevin.hydrodynamics.enabled(); }
  std::int32_t mobile_bead_count() const;
  std::size_t hydrodynamic_bytes() const;
  void validate_hydrodynamics() const;
  void allocate_hydrodynamics();
  void advance_hydrodynamic(std::int64_t s, std::int64_t e);

  // ---- stops, evaluation and gathers (cuda_engine_stops.cu, stop_kernels.cu) ----
  void enqueue_stop(const StopRequest& request, const float4* pos, std::uint64_t version, std::int64_t step,
                    cudaStream_t stream);
  void enqueue_positions_to_host(const float4* pos, cudaStream_t stream);
  StopValues stop_values(const StopRequest& request, const float4* pos, std::int64_t step, cudaStream_t stream);
  std::vector<EnergyTerms> energy_terms_from(const double* out) const;
  void enqueue_structure_observables(double formed_ratio, std::int32_t end_first, std::int32_t end_last,
                                     const float4* pos, cudaStream_t stream);
  std::vector<StructureObservables> structure_from(const double* out) const;
  void enqueue_screen(const float4* pos, cudaStream_t stream);
  std::vector<Vec3f> gathered_positions(const std::vector<std::int32_t>& beads);
  bool enqueue_gather(const std::vector<std::int32_t>& beads, const float4* pos, std::uint64_t version,
                      cudaStream_t stream);
  std::vector<Vec3f> gathered_from_host(const std::vector<std::int32_t>& beads) const;
  void evaluate(bool energy) { evaluate(energy, pos_[step_ & 1].get(), step_, stream_); }
  // `reduce`: also the per-replica sums (energies, max |F|², the molecule's force on the tip).
  void evaluate(bool energy, const float4* pos, std::int64_t step, cudaStream_t stream, bool reduce = true);

  EngineSetup setup_;
  const Topology& topology_;
  std::int32_t n_;
  std::int32_t R_;
  int device_ = 0;
  cudaDeviceProp prop_{};
  CudaKernelFamily family_ = CudaKernelFamily::kBlock;
  cudaStream_t stream_ = nullptr;
  SideBranch side_;  // the graph's branch beside the step kernels (the tip's step)
  int slots_ = 1;
  std::size_t allocated_bytes_ = 0;

  std::int64_t step_ = 0;
  State host_;
  bool host_valid_ = false;
  PinnedHostBuffer<float4> staging_;  // positions on their way to or from the GPU
  // Report stops without all positions (stop_kernels.cu): the stability screen and its
  // flag; the beads gathered at a stop (the protocols' and those asked for) and their
  // positions at positions version gathered_version_.
  DeviceBuffer<BondScreen> bond_screen_;
  DeviceBuffer<int> screen_flag_;
  PinnedHostBuffer<int> screen_flag_host_;
  const std::vector<std::int32_t> tethered_beads_ = tethered_beads(setup_);
  const std::vector<std::int32_t> plane_tethered_beads_ = plane_tethered_beads(setup_);
  std::vector<std::int32_t> gather_list_;  // ascending; grows with the beads asked for
  std::uint64_t positions_version_ = 0;  // counts changes of the positions
  std::uint64_t gathered_version_ = ~std::uint64_t(0);  // of gather_host_
  DeviceBuffer<int> gather_beads_;
  PinnedHostBuffer<int> gather_beads_host_;
  DeviceBuffer<float4> gather_out_;
  PinnedHostBuffer<float4> gather_host_;
  // Overlapped stops (stop_and_advance): the block family's steps may be under way (up to
  // step_); the device's block status is at status_step_ for every block (−1: unknown).
  bool async_steps_ = false;
  bool steps_in_flight_ = false;
  std::int64_t status_step_ = -1;
  int status_parity_ = 0;  // block_status_[status_parity_] holds the last launch's status
  bool new_status_array_ = false;
  cudaStream_t report_stream_ = nullptr;
  cudaEvent_t stop_copied_ = nullptr, stop_taken_ = nullptr;
  PinnedHostBuffer<BlockStatus> stop_status_;
  PinnedHostBuffer<double> stop_energies_host_, stop_structure_host_;
  DeviceBuffer<float4> stop_positions_;  // the stop's positions, read on the report stream
  std::int64_t stop_positions_step_ = -1;  // their step (−1: none kept since the last set_state)
  PinnedHostBuffer<float4> stop_positions_host_;

  // model
  DeviceBuffer<int> bond_partner_, bond_count_, native_partner_, native_count_;
  DeviceBuffer<float> bond_r0_, native_r0_, native_eh_;
  DeviceBuffer<std::uint8_t> fixed_;
  DeviceBuffer<std::uint8_t> repulsive_partners_, repulsive_count_;
  DeviceBuffer<std::uint32_t> excluded_bits_;  // ModelData::excluded_bits
  DeviceBuffer<int> slot_bead_, bead_slot_;
  DeviceBuffer<float4> tile_coefficients_;
  DeviceBuffer<float2> tile_bonds_;
  bool tiles_available_ = false;
  DeviceBuffer<HarmonicTether> tethers_;
  DeviceBuffer<ExternalForce> forces_;
  DeviceBuffer<PlaneTether> planes_;
  DeviceBuffer<ForceSchedulePoint> schedule_;
  DeviceBuffer<int> tether_offsets_, tether_items_, force_offsets_, force_items_, plane_offsets_, plane_items_;
  DeviceBuffer<double> tip_, molecule_;
  DeviceBuffer<long long> turnaround_;
  ModelData model_;
  TipArrays tips_;

  // noise (run.rng)
  std::unique_ptr<DeviceNoise> noise_;
  DeviceBuffer<float4> noise_ring_;
  long long noise_last_step_ = -1;  // last step drawn by this engine (−1: none since construction/restore)

  // positions and evaluation
  DeviceBuffer<float4> pos_[2];
  DeviceBuffer<float4> force_;
  DeviceBuffer<double> bead_energy_, bead_tip_, replica_out_, structure_out_;
  DeviceBuffer<int> min_mode_;
  DeviceBuffer<float> min_scale_;

  // block family
  BlockConfig block_;
  DeviceBuffer<std::uint16_t> block_rows_;
  DeviceBuffer<BlockStatus> block_status_[2];  // the async launches alternate: status_parity_
  std::vector<BlockStatus> status_host_;
  std::int64_t block_rebuilds_ = 0, block_pairs_ = 0;
  std::int64_t async_rebuilds_base_ = 0;  // block_rebuilds_ when the block status was last uploaded

  // per-bead family
  DeviceBuffer<float4> ref_;
  DeviceBuffer<int> rows_, row_count_;
  DeviceBuffer<std::uint16_t> rows16_;
  DeviceBuffer<std::uint32_t> cluster_rows_;
  DeviceBuffer<int> cluster_order_;  // PerBeadLaunch::cluster_order
  bool cluster_rows_mode_ = false;  // per-bead family: cluster rows instead of a row per bead
  DeviceBuffer<CellGrid> grids_;
  DeviceBuffer<int> cell_start_, cell_fill_, bead_cell_, cell_unsorted_, cell_sorted_, cell_bounds_, cell_tile_sum_;
  DeviceBuffer<Control> ctrl_;
  DeviceBuffer<unsigned long long> pairs_;
  PinnedHostBuffer<unsigned long long> pairs_host_;  // the list's pairs × 2 after the last advance
  cudaEvent_t pairs_counted_ = nullptr;
  DeviceBuffer<double> tip_partial_;
  DeviceBuffer<unsigned> tip_counter_;
  DeviceBuffer<float> tip_force_;  // perbead_tip_kernel → step kernel, [R·n][6]
  PerBeadLaunch perbead_;
  cudaGraphExec_t graph_exec_ = nullptr;
  int chunk_steps_ = kChunkSteps;
  // Layout overrides for A/B measurements, read and checked once at construction:
  // ERMAK_CUDA_EVAL_ROUNDS (1 or 8), ERMAK_TEA_LANES (8, 16 or 32),
  // ERMAK_TEA_BEADS_PER_WARP (1, 2, 4 or 8); 0 = chosen by the run's size.
  int forced_eval_rounds_ = 0, forced_tea_lanes_ = 0, forced_tea_beads_ = 0;
  // The exact method's tensor in each block's shared memory where it fits, unless
  // ERMAK_CUDA_CHOLESKY_GLOBAL=1 keeps it in global memory (A/B measurements and the test
  // that both give the same bits).
  bool cholesky_tensor_in_shared_ = false;
  std::int64_t perbead_rebuilds_ = 0, rebuilds_offset_ = 0;

  // hydrodynamic interactions (langevin.hydrodynamics)
  DeviceBuffer<int> hydro_mobile_, hydro_fixed_;  // [M] mobile beads, [n − M] fixed beads, ascending
  bool hydro_beads_uploaded_ = false;
  DeviceBuffer<float4> hydro_gaussian_;            // [R·n] TEA: the step's noise
  DeviceBuffer<Vec3f> hydro_displacement_;         // [R·M] Cholesky
  DeviceBuffer<float> hydro_epsilon_share_, hydro_beta_;  // TEA: [R·M], [R]
  DeviceBuffer<float> hydro_tensor_;                     // Cholesky: [R][9M²]
};

}  // namespace cuda
}  // namespace ermak
