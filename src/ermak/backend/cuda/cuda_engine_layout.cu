// The CUDA engine's choice of kernel family and layout for a run (docs/gpu.md#kernel-families),
// and the length of its list rows.
#include <limits>

#include "ermak/backend/cuda/cuda_engine.cuh"

namespace ermak {
namespace cuda {

// The family and its layout, short (bench tables): "block/ap/S1/g4" (all pairs, one
// lane per bead, 4 replicas per block), "block/list/S2/g4", "block/tiles/g8" (each pair
// once in tiles) or "block/tiles/apart/g4" (bead threads apart from the tile threads);
// "perbead/rows" or "perbead/clusters/k2/w4" (cluster tiles: warps per cluster, warps per
// step-kernel block) with "/o16" where the cluster order sorts windows of 16 blocks.
std::string CudaEngine::kernel_layout() const {
  if (family_ != CudaKernelFamily::kBlock) {
    if (!use_cluster_rows()) return "perbead/rows";
    std::string layout = "perbead/clusters/k" + std::to_string(perbead_.cluster_split) + "/w" +
                         std::to_string(perbead_.wide_moves ? perbead_.block_warps : kPerBeadBlockWarps);
    if (perbead_.cluster_order_window > 0) layout += "/o" + std::to_string(perbead_.cluster_order_window);
    return layout;
  }
  if (block_.tiles) return std::string("block/tiles/") + (block_.tile_beads_apart ? "apart/" : "") + "g" +
                           std::to_string(block_.group);
  return std::string("block/") + (block_.all_pairs ? "ap" : "list") + "/S" + std::to_string(block_.lanes) + "/g" +
         std::to_string(block_.group);
}

CudaKernelFamily CudaEngine::choose_family(CudaKernelFamily requested) const {
  if (requested == CudaKernelFamily::kBlock) {
    if (n_ > kBlockMaxBeads)
      throw Error("CUDA kernel family \"block\" handles at most " + std::to_string(kBlockMaxBeads) +
                  " beads per replica; this system has " + std::to_string(n_) +
                  " (use ERMAK_CUDA_KERNEL=perbead or auto)");
    return requested;
  }
  // The per-bead family's grids hold a replica per row, and a grid has at most 65535 rows.
  if (R_ > kPerBeadMaxReplicas) {
    if (requested == CudaKernelFamily::kPerBead || n_ > kBlockMaxBeads)
      throw Error("CUDA: " + std::to_string(R_) + " replicas of " + std::to_string(n_) +
                  " beads on one GPU: the per-bead kernel family takes at most " +
                  std::to_string(kPerBeadMaxReplicas) + " replicas per GPU" +
                  (n_ > kBlockMaxBeads ? ", and the block family at most " + std::to_string(kBlockMaxBeads) +
                                             " beads per replica"
                                       : std::string(" (the block family, auto, takes more)")) +
                  "; run fewer replicas per run or split them over GPUs (run.device = [0, 1, …], docs/gpu.md#several-gpus)");
    return CudaKernelFamily::kBlock;
  }
  if (requested == CudaKernelFamily::kPerBead) return requested;
  // Auto (docs/gpu.md#kernel-families): a block per replica wins while one SM per
  // replica is enough work, or there are enough replicas to fill the GPU.
  if (n_ <= kAutoBlockAlwaysBeads) return CudaKernelFamily::kBlock;
  if (n_ <= kAutoBlockMaxBeads && R_ >= std::max(1, prop_.multiProcessorCount / 2)) return CudaKernelFamily::kBlock;
  return CudaKernelFamily::kPerBead;
}

// Largest full row (partners within the list cutoff, not bonded/native) in any replica
// of `state`, with room to spare; n − 1 is always enough.
// Row capacity that can never overflow: n − 1 partners; the block family's lanes take
// the partners j ≡ lane (mod lanes) at slots k·lanes + lane, which needs round_up(n, 8).
// A cluster row holds at most every bead of the replica.
int CudaEngine::slot_cap() const {
  if (family_ == CudaKernelFamily::kBlock || use_cluster_rows()) return round_up(std::max(1, n_), 8);
  return std::max(1, n_ - 1);
}

// Cluster rows: the union of 8 beads' partners, ~1.5 of one bead's row for PF8; twice
// the largest bead row to start with (a row that overflows grows, as any other).
int CudaEngine::layout_slots(int bead_slots) const {
  return use_cluster_rows() ? std::min(slot_cap(), round_up(2 * bead_slots, 8)) : bead_slots;
}

// ERMAK_CUDA_BLOCK_SLOTS: the block family's list rows start at this many slots, and a
// new state does not raise them, so that rows overflow and grow in the steps (a
// diagnostic, for the tests of that path); 0 = unset.
int CudaEngine::forced_block_slots() const {
  if (family_ != CudaKernelFamily::kBlock) return 0;
  const int forced = env_int("ERMAK_CUDA_BLOCK_SLOTS", 0);
  if (forced < 0) throw Error("ERMAK_CUDA_BLOCK_SLOTS must be 0 or positive");
  return forced > 0 ? std::min(slot_cap(), round_up(forced, 8)) : 0;
}

int CudaEngine::needed_slots_for(const State& state) const {
  if (const int forced = forced_block_slots()) return forced;
  const int cap = slot_cap();
  if (n_ <= 256) return cap;  // small: never overflow
  const ExclusionList exclusions = build_exclusions(topology_);
  CellListScratch scratch;
  VerletList list;
  int worst = 0;
  const std::int32_t sample = std::min<std::int32_t>(state.replica_count, 4);
  std::vector<int> count(n_);
  for (std::int32_t r = 0; r < sample; ++r) {
    const std::size_t o = state.index(r, 0);
    build_verlet_list(&state.x[o], &state.y[o], &state.z[o], n_, exclusions,
                      list_cutoff_A(setup_), scratch, list);
    std::fill(count.begin(), count.end(), 0);
    for_each_listed_pair(list, [&](std::int32_t i, std::int32_t j) { ++count[i]; ++count[j]; });
    for (int c : count) worst = std::max(worst, c);
  }
  return layout_slots(std::min(cap, round_up(int(worst * 1.25) + 16, 8)));
}

int CudaEngine::initial_slots() const {
  if (const int forced = forced_block_slots()) return forced;
  if (n_ <= 256) return slot_cap();
  if (!topology_.native_positions_A.empty()) {
    State native(n_, 1);
    for (std::int32_t i = 0; i < n_; ++i) native.set_position(0, i, vec_cast<float>(topology_.native_positions_A[i]));
    return needed_slots_for(native);
  }
  return std::min(slot_cap(), 256);
}

void CudaEngine::grow_slots(int needed) {
  slots_ = std::min(slot_cap(), std::max(slots_ + 8, round_up(int(needed * 1.2) + 8, 8)));
  configure_and_allocate();
}

bool CudaEngine::choose_cluster_rows() const {
  if (family_ != CudaKernelFamily::kPerBead || n_ > kClusterPartnerMask) return false;
  const int forced = env_int("ERMAK_CUDA_CLUSTER_ROWS", -1);
  if (forced != -1 && forced != 0 && forced != 1) throw Error("ERMAK_CUDA_CLUSTER_ROWS must be 0 or 1");
  if (forced != -1) return forced == 1;
  return (long long)n_ * R_ >= kClusterRowsMinBeads;
}

// Per-bead family: cells of the list cutoff / this (the row builds scan the cells within
// the cutoff, a tighter shape with smaller cells); ERMAK_CUDA_CELL_DIVISIONS=1|2|3.
int CudaEngine::cell_divisions() const {
  const int v = env_int("ERMAK_CUDA_CELL_DIVISIONS", 2);
  if (v < 1 || v > 3) throw Error("ERMAK_CUDA_CELL_DIVISIONS must be 1, 2 or 3");
  return v;
}

// Per-bead family: the cell sort by one cooperative grid over all replicas
// (cell_list_kernels.cu) instead of one block per replica; ERMAK_CUDA_CELL_SORT=grid|block
// overrides.
bool CudaEngine::use_grid_cell_sort() const {
  if (const char* v = std::getenv("ERMAK_CUDA_CELL_SORT"); v && *v) {
    const std::string mode = v;
    if (mode == "grid") return true;
    if (mode == "block") return false;
    throw Error("environment variable ERMAK_CUDA_CELL_SORT=\"" + mode + "\": must be grid or block");
  }
  return true;
}

// Per-bead family, indentation: the tip's work in a kernel of its own before each step
// kernel, whose one-block step of the tip then runs beside the step kernel; in the step
// kernel instead, the replica's last block sums the reaction and moves the tip at the end
// of every step. Measured on an H100 (2026-11-28, docs/benchmarks.md#protocol-runs-pulling):
// its own kernel is faster at every size, fibrinogen (2964 beads) +36 %, PF8 +25 %, two
// PF8 +14 %, CCMV +22 %. ERMAK_CUDA_TIP_KERNEL=0 keeps the tip in the step kernel.
bool CudaEngine::tip_kernel() const {
  if (!setup_.indentation.enabled) return false;
  const int forced = env_int("ERMAK_CUDA_TIP_KERNEL", -1);
  if (forced != -1 && forced != 0 && forced != 1) throw Error("ERMAK_CUDA_TIP_KERNEL must be 0 or 1");
  return forced != 0;
}

// Small systems need no list at all (docs/gpu.md#kernel-families).
bool CudaEngine::use_all_pairs() const {
  if (n_ > all_pairs_max_beads()) return false;
  const char* v = std::getenv("ERMAK_CUDA_BLOCK_ALLPAIRS");
  return !(v && std::string(v) == "0");
}

// Whether one replica at `lanes` lanes per bead, with its noise threads (one per bead,
// their own warps), fits in one block of those variants.
bool CudaEngine::one_replica_fits(int lanes) const {
  return round_up(n_ * lanes, 32) + round_up(n_, 32) <= max_block_threads(lanes);
}

// The tiles layout (docs/gpu.md#tiles), for replicas of 8 to 64 beads in the all-pairs
// mode without indentation: where the lane rule gives 2 lanes per bead, or 4 with at
// least thread_budget / 32 beads in the run — on an H100 WW × 249 to × 1987. Measured
// there faster than the lanes kernels (WW × 300 +8 %, × 10³ +17 %, × 1987 +50 %); below
// (WW × 200, 4 lanes: −26 %) and above (WW × 3000, 1 lane: −3 %) slower
// (docs/benchmarks.md#the-tiles-layout). ERMAK_CUDA_BLOCK_TILES=0|1 overrides (1:
// wherever it applies; a forced lane count alone keeps the lanes kernels).
bool CudaEngine::use_tiles(const BlockConfig& c, bool lanes_forced) const {
  const int forced = env_int("ERMAK_CUDA_BLOCK_TILES", -1);
  if (forced != -1 && forced != 0 && forced != 1) throw Error("ERMAK_CUDA_BLOCK_TILES must be 0 or 1");
  if (!c.all_pairs || !tiles_available_ || setup_.indentation.enabled || forced == 0) return false;
  if (forced == 1) return true;
  return !lanes_forced && (c.lanes == 2 || (c.lanes == 4 && (long long)n_ * R_ >= thread_budget() / 32));
}

// The tiles' bead threads apart from their tile threads while the run's threads that
// takes stay within a third of thread_budget (WW × 1140 on an H100): their noise and
// bonds then run beside the tiles, a shorter step where the GPU has latency to hide
// (WW × 300 +29 %, × 10³ +4 %); beyond, the shared threads fit more replicas per
// multiprocessor (WW × 1300 +135 %, × 1987 +29 %; docs/benchmarks.md#the-tiles-layout).
// ERMAK_CUDA_TILE_BEADS_APART=0|1 overrides.
bool CudaEngine::use_tile_beads_apart() const {
  const int forced = env_int("ERMAK_CUDA_TILE_BEADS_APART", -1);
  if (forced != -1 && forced != 0 && forced != 1) throw Error("ERMAK_CUDA_TILE_BEADS_APART must be 0 or 1");
  if (forced != -1) return forced == 1;
  return (long long)tile_threads_per_replica(n_, true) * R_ <= thread_budget() / 3;
}

CudaEngine::BlockConfig CudaEngine::block_config() const {
  BlockConfig c;
  c.all_pairs = use_all_pairs();
  const long long total = (long long)n_ * R_;
  const int forced = env_int("ERMAK_CUDA_BLOCK_LANES", 0);
  const int forced_group = env_int("ERMAK_CUDA_BLOCK_GROUP", 0);  // replicas per block, for measurements
  if (forced) {
    if (forced != 1 && forced != 2 && forced != 4 && forced != 8)
      throw Error("ERMAK_CUDA_BLOCK_LANES must be 1, 2, 4 or 8");
    c.lanes = one_replica_fits(forced) ? forced : 1;
  } else {
    // Several lanes per bead while the whole run, S threads per bead, fits in about one
    // resident wave (measured: WW × 10³ 1.18× faster at S = 2 than at S = 4) and rows are
    // long enough; 8 lanes only while they fill at most an eighth of a wave (their
    // butterfly sums and short loops cost instructions: WW × 300, 81 600 threads at
    // S = 8, is 1.6× faster at S = 4; WW × 100 is faster at S = 8); 4 lanes while they
    // fill at most 0.55 of a wave (H100, fourteenth session: S = 4 won up to 71 600
    // threads — WW × 500, I27 × 200, λ repressor × 100 — and S = 2 mostly from 76 000 —
    // ubiquitin × 250 +10 %, WW × 600 +25 %, ubiquitin × 300 +31 %; exceptions: I27 × 250
    // and λ repressor × 150 are 3–5 % faster at S = 4, ubiquitin × 150–200 10 % faster at
    // S = 2; docs/benchmarks.md#lanes-per-bead-between-100-and-1000-replicas).
    const auto lane_budget = [&](int s) {
      return s == 8 ? thread_budget() / 8 : s == 4 ? thread_budget() * 55 / 200 : thread_budget() / 2;
    };
    for (int s : {8, 4, 2})
      if (total * s <= lane_budget(s) && one_replica_fits(s) && n_ >= 4 * s) {
        c.lanes = s;
        break;
      }
  }
  c.tiles = use_tiles(c, forced != 0);
  if (c.tiles) c.lanes = 1;
  c.tile_beads_apart = c.tiles && use_tile_beads_apart();
  const int per_replica = c.tiles ? tile_threads_per_replica(n_, c.tile_beads_apart) : n_ * c.lanes;
  auto with_group = [&](int g) {
    BlockConfig t = c;
    t.group = g;
    t.force_threads = round_up(g * per_replica, 32);
    t.noise_threads = c.lanes > 1 ? round_up(g * n_, 32) : 0;
    t.threads = t.force_threads + t.noise_threads;
    t.beads_per_thread = 1;
    return t;
  };
  // The topology's shared copy grows as n² (~150 kB at 211 beads): where a block of
  // one replica cannot hold it, lists.
  if (c.all_pairs && block_shared_bytes(block_launch(with_group(1), true)) > block_max_shared_bytes(device_))
    c.all_pairs = false;
  if (c.lanes > 1 || c.all_pairs || c.tiles) {
    // Replicas per block g, in blocks of at most 512 threads (with S > 1 lanes per
    // bead, plus the noise threads: one per bead, their own warps, the noise drawn while
    // forces are summed): the fewest waves of resident blocks, then the fewest threads
    // on the busiest multiprocessor (which set a step's time: a warp issues for its
    // idle lanes too), then the most threads running there at once (more warps hide
    // more latency), then the fewest idle lanes, then the fewest blocks (each copies the
    // topology into its shared memory).
    // Measured, H100: WW × 300 at S = 4 +6.5 % with 1 replica per block — at most 3 on
    // an SM — than with 2, where 18 SMs held 4; WW × 10³ at S = 2 keeps 4: 2 and 1 were
    // 10 and 39 % slower. At S = 1 the topology's shared copy (~40 kB for titin I27)
    // limits the resident blocks: I27 × 10³ 7.0·10⁴ steps/s with 1 replica per block,
    // 1.16·10⁵ with 4 (docs/benchmarks.md#replicas-per-block-at-one-lane-per-bead).
    const int sms = prop_.multiProcessorCount;
    if (c.tiles) {
      // Tiles: the same number of replicas on every multiprocessor — k blocks of
      // ⌈R / (k · SMs)⌉ replicas each, the smallest k whose blocks fit and are resident
      // together (measured on an H100 with the first form of the kernel, WW × 10³: 8
      // replicas per block, 125 blocks, 1.66·10¹⁰ bead-steps/s; 4 per block, 250 blocks,
      // 1.49·10¹⁰; 5 or 6 per block 1.14–1.24·10¹⁰:
      // docs/benchmarks.md#the-tiles-layout). Otherwise (runs too large for one round) the
      // score below.
      for (int k = 1; forced_group <= 0 && k <= 32; ++k) {
        const int g = int((R_ + (long long)k * sms - 1) / ((long long)k * sms));
        const BlockConfig t = with_group(g);
        if (t.threads > tiles::kMaxThreads) continue;
        if (std::max(1, block_resident_blocks_per_sm(block_launch(t, true))) >= k) return t;
      }
      if (forced_group > 0) return with_group(std::min(forced_group, R_));
    }
    // (Blocks of several replicas in up to 1024 threads lost 4 % at WW × 10³, S = 2:
    // docs/benchmarks.md#packed-repulsive-rows; above 512 threads only one replica.)
    const int max_threads = c.lanes > 1 ? std::max(512, with_group(1).threads)
                                        : std::min(512, env_int("ERMAK_CUDA_BLOCK_MAX_THREADS", 512));
    BlockConfig best = with_group(1);
    std::tuple<int, int, int, double, int> best_score{std::numeric_limits<int>::max(), 0, 0, 0.0, 0};
    for (int g = 1; g <= R_ && with_group(g).threads <= (c.tiles ? tiles::kMaxThreads : max_threads); ++g) {
      const BlockConfig t = with_group(g);
      const int per_sm = ((R_ + g - 1) / g + sms - 1) / sms;  // blocks on the busiest SM
      const bool rows_in_shared = block_shared_bytes(block_launch(t, true)) <= shared_budget();
      if (g > 1 && block_shared_bytes(block_launch(t, rows_in_shared)) > block_max_shared_bytes(device_)) break;
      const int resident = std::max(1, block_resident_blocks_per_sm(block_launch(t, rows_in_shared)));
      const double waste = double(t.threads - g * per_replica - (c.lanes > 1 ? g * n_ : 0)) / t.threads;
      const std::tuple<int, int, int, double, int> score{(per_sm + resident - 1) / resident, per_sm * t.threads,
                                                         -std::min(per_sm, resident) * t.threads, waste, per_sm};
      if (score < best_score) { best = t; best_score = score; }
    }
    if (forced_group > 0) best = with_group(std::min(forced_group, R_));
    return best;
  }
  // Lists at one lane per bead: replicas per block to fill blocks of about 256 threads,
  // but 2 from 161 to 255 beads (measured, H100: Fab light chain × 10³ and × 3000 +24–26 %
  // with 2 replicas per block than with 1, λ repressor × 10³ +21 %; 3 lost 4–17 %:
  // docs/benchmarks.md#replicas-per-block-at-one-lane-per-bead).
  c.group = n_ >= 256 ? 1 : n_ > 160 ? std::min(R_, 2) : std::max(1, std::min(R_, 256 / n_));
  if (forced_group > 0) c.group = std::min(forced_group, R_);
  const int beads = c.group * n_;
  c.threads = std::min(1024, round_up(beads, 32));
  c.force_threads = c.threads;
  c.noise_threads = 0;
  c.beads_per_thread = (beads + c.threads - 1) / c.threads;
  if (c.beads_per_thread == 3) c.beads_per_thread = 4;
  return c;
}

BlockLaunch CudaEngine::block_launch(const BlockConfig& c, bool rows_in_shared) const {
  BlockLaunch L;
  L.m = model_;
  L.slots = slots_;
  L.group = c.group;
  L.lanes = c.lanes;
  L.force_threads = c.force_threads;
  L.noise_threads = c.noise_threads;
  L.beads_per_thread = c.beads_per_thread;
  L.threads = c.threads;
  L.rows_in_shared = rows_in_shared;
  L.all_pairs = c.all_pairs;
  L.tiles = c.tiles;
  L.tile_beads_apart = c.tile_beads_apart;
  L.tile_coefficients = tile_coefficients_.get();
  L.tile_bonds = tile_bonds_.get();
  L.tips = tips_;
  return L;
}

// Lanes per bead by row length; one round (a warp serves 32/lanes beads) while the run
// fits in the thread budget (latency), else lanes rounds of 32/lanes (throughput).
void CudaEngine::choose_perbead_lanes(PerBeadLaunch& L) const {
  L.m = model_;
  int lanes = slots_ >= 192 ? 16 : slots_ >= 96 ? 8 : slots_ >= 24 ? 4 : 2;
  const int forced = env_int("ERMAK_CUDA_LANES", 0);
  if (forced) {
    if (forced != 2 && forced != 4 && forced != 8 && forced != 16)
      throw Error("ERMAK_CUDA_LANES must be 2, 4, 8 or 16");
    lanes = forced;
  }
  const long long total = (long long)n_ * R_;
  L.lanes = lanes;
  L.multi_round = true;
  for (int s = lanes; s >= 2; s /= 2) {
    if (forced && s != forced) break;
    if (total * s <= 2 * thread_budget()) { L.lanes = s; L.multi_round = false; break; }
  }
  if (L.multi_round && L.lanes > 8) L.lanes = 8;  // many rounds of 2 beads per warp: no gain
  // Cluster rows: a warp per cluster of 8 beads, 4 lanes per bead in one round, the
  // warp's repulsion as one tile over the cluster row (docs/gpu.md#cluster-tiles).
  if (use_cluster_rows() && !forced) {
    L.lanes = 4;
    L.multi_round = false;
  }
  if (const char* rounds = std::getenv("ERMAK_CUDA_ROUNDS"); rounds && *rounds) {
    const std::string v = rounds;
    if (v == "multi") L.multi_round = true;
    else if (v == "single") L.multi_round = false;
    else throw Error("environment variable ERMAK_CUDA_ROUNDS=\"" + v + "\": must be single or multi");
  }
  L.cluster_split = use_cluster_rows() && L.lanes == 4 && !L.multi_round ? choose_cluster_split() : 1;
  const int wide = env_int("ERMAK_CUDA_WIDE_MOVES", 1);
  if (wide != 0 && wide != 1) throw Error("ERMAK_CUDA_WIDE_MOVES must be 0 or 1");
  L.wide_moves = wide == 1 && use_cluster_rows() && L.lanes == 4 && !L.multi_round;
  // The cluster order (docs/gpu.md#cluster-order) where each cluster has one warp; with
  // 2 or 4 (runs of one wave or a few) it lost 8–11 % on an H200: the sorted blocks load
  // the first multiprocessors most.
  constexpr int kUnset = std::numeric_limits<int>::min();
  const int order = env_int("ERMAK_CUDA_CLUSTER_ORDER", kUnset);
  if (order != kUnset && (order < 0 || order > 1024))
    throw Error("ERMAK_CUDA_CLUSTER_ORDER must be 0 (chain order) to 1024 blocks");
  // Blocks of 4 warps where the run has at least kBlockWarps4FromPerSM clusters per SM
  // (clusters of one warp or split over 2); measured on an H100
  // (docs/benchmarks.md#cluster-order): split over 2, PF8 × 3 +4.2 %, × 4 +4.5 %, one CCMV
  // capsid +3.0 %, but one PF8 −0.5 % and PF8 × 2 −2.2 %; one warp, PF8 × 16 +2.4 %, 4 ×
  // CCMV +3.7 %, PF8 × 8 −0.6 %. Blocks of 2 warps lost 7–17 % everywhere.
  const long long run_clusters = (long long)cluster_count(n_) * R_;
  const int default_warps = run_clusters >= (long long)kBlockWarps4FromPerSM * prop_.multiProcessorCount
                                ? 4
                                : kPerBeadBlockWarps;
  const int block_warps = env_int("ERMAK_CUDA_BLOCK_WARPS", default_warps);
  if (block_warps != 2 && block_warps != 4 && block_warps != kPerBeadBlockWarps)
    throw Error("ERMAK_CUDA_BLOCK_WARPS must be 2, 4 or 8");
  // Clusters of one warp come in blocks of 8 or 4 warps (2 lost everywhere with split ones).
  L.block_warps = !L.wide_moves                             ? kPerBeadBlockWarps
                  : L.cluster_split == 2                    ? block_warps
                  : L.cluster_split == 1 && block_warps == 4 ? 4
                                                            : kPerBeadBlockWarps;
  L.cluster_order_window = !L.wide_moves      ? 0
                           : order != kUnset  ? order
                           : L.cluster_split == 1 ? kClusterOrderWindow
                                                  : 0;
  const int programmatic = env_int("ERMAK_CUDA_PDL", 1);
  if (programmatic != 0 && programmatic != 1) throw Error("ERMAK_CUDA_PDL must be 0 or 1");
  L.programmatic_steps = programmatic == 1 && perbead_waits_on_chip();
}

int CudaEngine::choose_cluster_split() const {
  const int forced = env_int("ERMAK_CUDA_CLUSTER_SPLIT", 0);
  if (forced != 0 && forced != 1 && forced != 2 && forced != 4)
    throw Error("ERMAK_CUDA_CLUSTER_SPLIT must be 1, 2 or 4");
  if (forced) return forced;
  const long long clusters = (long long)cluster_count(n_) * R_, sms = prop_.multiProcessorCount;
  if (clusters < kClusterSplit4BelowPerSM * sms) return 4;
  if (clusters < kClusterSplit2BelowPerSM * sms) return 2;
  return 1;
}

}  // namespace cuda
}  // namespace ermak
