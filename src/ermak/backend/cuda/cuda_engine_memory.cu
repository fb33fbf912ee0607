// The CUDA engine's device memory: the model uploaded once, the arrays of the chosen
// layout (reallocated when list rows grow), the per-bead family's CUDA graph, release.
#include "ermak/backend/cuda/cuda_engine.cuh"

namespace ermak {
namespace cuda {

namespace {

// Host mirror of one ELL list before upload.
struct HostEll {
  std::vector<int> partner, count;
  std::vector<float> r0, eh;
  int slots = 1;
};

template <class Pair, class Params>
HostEll make_ell(std::int32_t n, const std::vector<Pair>& pairs, Params params) {
  std::vector<std::vector<std::pair<int, std::size_t>>> per(n);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    per[pairs[k].i].push_back({pairs[k].j, k});
    per[pairs[k].j].push_back({pairs[k].i, k});
  }
  HostEll e;
  for (const auto& p : per) e.slots = std::max<int>(e.slots, int(p.size()));
  e.partner.assign(std::size_t(e.slots) * n, 0);
  e.r0.assign(std::size_t(e.slots) * n, 1.0f);
  e.eh.assign(std::size_t(e.slots) * n, 0.0f);
  e.count.assign(n, 0);
  for (std::int32_t i = 0; i < n; ++i) {
    e.count[i] = int(per[i].size());
    for (std::size_t s = 0; s < per[i].size(); ++s) {
      const std::size_t at = s * n + i;
      e.partner[at] = per[i][s].first;
      params(pairs[per[i][s].second], e.r0[at], e.eh[at]);
    }
  }
  return e;
}

// CSR over (replica, bead) slots r·n + i of the items that act on each bead of each
// replica, in input order; an item for every replica (replica −1) is listed in each.
// A thread then visits only its own items: per-replica springs of 10⁴ replicas would
// otherwise cost every pulled bead 10⁴ checks. Empty when there are no items.
template <class Item>
void make_bead_index(std::int32_t n, std::int32_t replicas, const std::vector<Item>& items, std::vector<int>& offsets,
                     std::vector<int>& list) {
  offsets.clear();
  list.clear();
  if (items.empty()) return;
  const std::size_t slots = std::size_t(n) * std::size_t(replicas);
  offsets.assign(slots + 1, 0);
  auto for_each_slot = [&](const Item& it, auto&& visit) {
    if (it.replica >= 0) { visit(std::size_t(it.replica) * n + it.bead); return; }
    for (std::int32_t r = 0; r < replicas; ++r) visit(std::size_t(r) * n + it.bead);
  };
  for (const auto& it : items) for_each_slot(it, [&](std::size_t slot) { ++offsets[slot + 1]; });
  for (std::size_t k = 0; k < slots; ++k) offsets[k + 1] += offsets[k];
  list.assign(std::size_t(offsets[slots]), 0);
  std::vector<int> fill(offsets.begin(), offsets.end() - 1);
  for (std::size_t k = 0; k < items.size(); ++k)
    for_each_slot(items[k], [&](std::size_t slot) { list[std::size_t(fill[slot]++)] = int(k); });
}

// What make_bead_index and the items' upload take on the device.
template <class Item>
std::size_t bead_index_bytes(std::int32_t n, std::int32_t replicas, const std::vector<Item>& items) {
  if (items.empty()) return 0;
  std::size_t entries = 0;
  for (const Item& it : items) entries += it.replica >= 0 ? 1 : std::size_t(replicas);
  return (std::size_t(n) * std::size_t(replicas) + 1 + entries) * sizeof(int) + items.size() * sizeof(Item);
}

}  // namespace

void CudaEngine::validate_setup() {
  for (std::int32_t b : setup_.fixed_beads)
    if (b < 0 || b >= n_)
      throw Error("fixed beads: bead " + std::to_string(b) + " is out of range (0.." + std::to_string(n_ - 1) + ")");
  auto check_bead = [&](std::int32_t bead, const char* what) {
    if (bead < 0 || bead >= n_)
      throw Error(std::string(what) + ": bead " + std::to_string(bead) + " is out of range (0.." +
                  std::to_string(n_ - 1) + ")");
  };
  for (const auto& t : setup_.tethers) check_bead(t.bead, "pulling");
  for (const auto& f : setup_.external_forces) check_bead(f.bead, "force clamp");
  for (const auto& t : setup_.plane_tethers) check_bead(t.bead, "plane pulling");
  if (setup_.replica_offset != 0 && setup_.rng != "philox") throw Error(sliced_noise_refusal(setup_.rng));
  validate_hydrodynamics();
}

void CudaEngine::upload_model() {
  const Topology& t = topology_;
  const HostEll bonds = make_ell(n_, t.bonds, [](const Bond& b, float& r0, float& eh) { r0 = b.r0_A; eh = 0.0f; });
  const HostEll natives = make_ell(n_, t.native_contacts, [](const NativeContact& c, float& r0, float& eh) {
    r0 = c.r0_A;
    eh = c.eh_kcal_per_mol;
  });
  bond_partner_.upload(bonds.partner); bond_r0_.upload(bonds.r0); bond_count_.upload(bonds.count);
  native_partner_.upload(natives.partner); native_r0_.upload(natives.r0); native_eh_.upload(natives.eh);
  native_count_.upload(natives.count);
  std::vector<std::uint8_t> fixed(n_, 0);
  for (std::int32_t b : setup_.fixed_beads) fixed[b] = 1;
  fixed_.upload(fixed);
  // The excluded pairs (a bead with itself, bonds, native contacts), a bit each: the
  // block family's brute-force evaluation reads them (a scan of a bead's bonds and native
  // contacts for every partner made WW's evaluation at one replica take 55 µs,
  // docs/benchmarks.md#hydrodynamic-interactions), and the all-pairs rows below follow
  // from them.
  int excluded_words = 0;
  std::vector<std::uint32_t> bits;
  if (n_ <= kBlockMaxBeads) {
    excluded_words = (n_ + 31) / 32;
    bits.assign(std::size_t(n_) * excluded_words, 0u);
    auto exclude = [&](int i, int j) { bits[std::size_t(i) * excluded_words + j / 32] |= 1u << (j % 32); };
    for (int i = 0; i < n_; ++i) exclude(i, i);
    for (const Bond& b : t.bonds) { exclude(b.i, b.j); exclude(b.j, b.i); }
    for (const NativeContact& c : t.native_contacts) { exclude(c.i, c.j); exclude(c.j, c.i); }
    excluded_bits_.upload(bits);
  }
  auto repels = [&](int i, int j) { return !((bits[std::size_t(i) * excluded_words + j / 32] >> (j % 32)) & 1u); };

  int repulsive_slots = 0;
  static_assert(255 < kBlockMaxBeads, "all_pairs_max_beads() (at most 255): the rows follow from the excluded bits");
  if (n_ <= all_pairs_max_beads()) {
    // The fixed rows of the all-pairs mode: every bead that repels i, ascending.
    std::vector<std::uint8_t> count(n_, 0);
    for (int i = 0; i < n_; ++i)
      for (int j = 0; j < n_; ++j) count[i] += repels(i, j);
    for (int i = 0; i < n_; ++i) repulsive_slots = std::max(repulsive_slots, int(count[i]));
    std::vector<std::uint8_t> partners(std::size_t(std::max(repulsive_slots, 1)) * n_, 0);
    for (int i = 0; i < n_; ++i) {
      int k = 0;
      for (int j = 0; j < n_; ++j)
        if (repels(i, j)) partners[std::size_t(k++) * n_ + i] = std::uint8_t(j);
    }
    repulsive_partners_.upload(partners);
    repulsive_count_.upload(count);
  }

  // The block family's slot order: by native contacts, then bonds, then index.
  std::vector<int> slot_bead(n_), bead_slot(n_);
  for (int i = 0; i < n_; ++i) slot_bead[i] = i;
  std::stable_sort(slot_bead.begin(), slot_bead.end(), [&](int a, int b) {
    return std::pair(natives.count[a], bonds.count[a]) < std::pair(natives.count[b], bonds.count[b]);
  });
  for (int q = 0; q < n_; ++q) bead_slot[slot_bead[q]] = q;
  slot_bead_.upload(slot_bead);
  bead_slot_.upload(bead_slot);

  ModelData& m = model_;
  m.n = n_;
  m.replicas = R_;
  m.bonds = {bond_partner_.get(), bond_r0_.get(), nullptr, bond_count_.get(), bonds.slots};
  m.natives = {native_partner_.get(), native_r0_.get(), native_eh_.get(), native_count_.get(), natives.slots};
  m.fene = fene_parameters(setup_.sop);
  m.repulsion = repulsion_parameters(setup_.sop);
  m.fixed = fixed_.get();
  m.repulsive_partners = repulsive_partners_.get();
  m.repulsive_count = repulsive_count_.get();
  m.repulsive_slots = repulsive_slots;
  m.excluded_bits = excluded_words > 0 ? excluded_bits_.get() : nullptr;
  m.excluded_words = excluded_words;
  m.slot_bead = slot_bead_.get();
  m.bead_slot = bead_slot_.get();
  m.philox_keys = rng::philox_keys(setup_.seed);
  m.replica_offset = setup_.replica_offset;
  const float list_cutoff = list_cutoff_A(setup_);
  m.list_cutoff2 = list_cutoff * list_cutoff;
  m.half_skin2 = half_skin_squared_A2(setup_);
  m.timestep_tau = setup_.langevin.timestep_tau;
  upload_tile_tables();

  ProtocolData& p = m.protocol;
  std::vector<int> offsets, items;
  make_bead_index(n_, R_, setup_.tethers, offsets, items);
  tethers_.upload(setup_.tethers); tether_offsets_.upload(offsets); tether_items_.upload(items);
  make_bead_index(n_, R_, setup_.external_forces, offsets, items);
  forces_.upload(setup_.external_forces); force_offsets_.upload(offsets); force_items_.upload(items);
  make_bead_index(n_, R_, setup_.plane_tethers, offsets, items);
  planes_.upload(setup_.plane_tethers); plane_offsets_.upload(offsets); plane_items_.upload(items);
  schedule_.upload(setup_.force_schedule.points);
  p.tethers = tethers_.get();
  p.tether_index = {tether_offsets_.get(), tether_items_.get()};
  p.forces = forces_.get();
  p.force_index = {force_offsets_.get(), force_items_.get()};
  p.schedule = schedule_.get();
  p.schedule_points = int(setup_.force_schedule.points.size());
  p.planes = planes_.get();
  p.plane_index = {plane_offsets_.get(), plane_items_.get()};
  p.any_per_bead = !setup_.tethers.empty() || !setup_.external_forces.empty() || !setup_.plane_tethers.empty();
  p.indentation = setup_.indentation.enabled;
  p.ind = setup_.indentation;
  // Surface beads beyond 4σ contribute < 2.5e-4 ε: ignored (as the CPU engine).

  std::vector<double> tip(3 * std::size_t(R_));
  for (std::int32_t r = 0; r < R_; ++r) {
    tip[3 * r] = setup_.indentation.tip_start_A.x;
    tip[3 * r + 1] = setup_.indentation.tip_start_A.y;
    tip[3 * r + 2] = setup_.indentation.tip_start_A.z;
  }
  tip_.upload(tip);
  turnaround_.upload(std::vector<long long>(R_, -1));
  molecule_.upload(std::vector<double>(3 * std::size_t(R_), 0.0));
  tips_ = {tip_.get(), turnaround_.get(), molecule_.get()};
  ERMAK_CUDA(cudaDeviceSynchronize());
}

// The tiles layout's tables (pair_tiles.h) for replicas of 8 to 64 beads in the
// all-pairs mode; none where a bead has more bonds than the bead threads take.
void CudaEngine::upload_tile_tables() {
  tiles_available_ = false;
  if (n_ < tiles::kMinBeads || n_ > tiles::kMaxBeads || n_ > all_pairs_max_beads()) return;
  PairTileTables t;
  try {
    t = build_pair_tile_tables(topology_, model_.repulsion);
  } catch (const Error&) {
    return;  // more than PairTileTables::kBondsPerBead bonds on a bead: the lanes kernels
  }
  tile_coefficients_.upload(tiles::coefficient_records(t));
  tile_bonds_.upload(tiles::bond_records(t));
  tiles_available_ = true;
}

// The generator of run.rng (docs/gpu.md#noise): Philox needs no device state; others
// keep theirs in DeviceNoise and fill a ring of noise buffers ahead of the steps.
void CudaEngine::setup_noise() {
  noise_ = std::make_unique<DeviceNoise>(setup_.rng, setup_.rng_layout, setup_.seed, R_, n_, stream_);
  if (noise_->is_philox()) return;
  const std::size_t per_step = std::size_t(R_) * n_ * sizeof(float4);
  const int ring = int(std::clamp<std::size_t>(kNoiseRingBytes / per_step, 1, kNoiseRingMaxSteps));
  noise_ring_.resize(std::size_t(ring) * R_ * n_);
  model_.noise = noise_ring_.get();
  model_.noise_ring = ring;
}

std::size_t CudaEngine::bytes_needed() const {
  const std::size_t beads = std::size_t(n_) * R_;
  std::size_t b = 2 * beads * sizeof(float4)     // positions
                  + beads * sizeof(float4)       // forces (evaluation)
                  + beads * 4 * sizeof(double)   // bead energies
                  + std::size_t(R_) * (kReplicaOut + kStructureOut + 16) * sizeof(double);
  if (setup_.indentation.enabled) b += beads * 3 * sizeof(double);
  if (noise_) {
    b += noise_->device_bytes() + noise_ring_.bytes();
  } else if (setup_.rng != "philox") {
    // Before setup_noise: a stateful generator's state (docs/rng.md) and the ring of noise
    // drawn ahead, as setup_noise will make them.
    const rng::GeneratorLayoutInfo info = rng::generator_layout_info(setup_.rng, setup_.rng_layout, n_);
    b += std::size_t(info.state_bytes_per_thread) * beads + std::size_t(info.state_bytes_shared) * std::size_t(R_) +
         beads * 4 * sizeof(std::uint32_t);  // a step's words (shared layouts, long-lag Fibonacci): at most this
    const std::size_t per_step = beads * sizeof(float4);
    b += per_step * std::clamp<std::size_t>(kNoiseRingBytes / per_step, 1, kNoiseRingMaxSteps);
  }
  b += bead_index_bytes(n_, R_, setup_.tethers) + bead_index_bytes(n_, R_, setup_.external_forces) +
       bead_index_bytes(n_, R_, setup_.plane_tethers);
  b += hydrodynamic_bytes();  // langevin.hydrodynamics (cuda_engine_hydrodynamics.cu)
  if (family_ == CudaKernelFamily::kBlock) {
    b += beads * sizeof(float4);  // a stop's positions (stop_and_advance)
    const BlockConfig c = block_config();
    BlockLaunch L = block_launch(c, true);
    if (!c.all_pairs && block_shared_bytes(L) > shared_budget()) {
      const std::size_t blocks = std::size_t(block_count(L));
      b += blocks * std::size_t(slots_) * c.group * n_ * sizeof(std::uint16_t);
    }
  } else {
    const std::size_t cap = 2 * std::size_t(n_) + 28;
    b += beads * sizeof(float4)                     // reference positions
         + row_entries() * perbead_row_entry_bytes()  // rows
         + beads * sizeof(int)                       // row counts
         + (std::size_t(R_) * cluster_count(n_) + std::size_t(R_) * 8 * kClusterOrderWindow) * sizeof(int)  // cluster order
         + 3 * beads * sizeof(int)                   // cells of beads, cell contents
         + std::size_t(R_) * (2 * cap + 1) * sizeof(int) + std::size_t(R_) * sizeof(CellGrid)
         + std::size_t(R_) * (6 + cell_scan_tiles(int(cap))) * sizeof(int)  // cooperative cell sort
         + std::size_t(R_) * n_ * 3 * sizeof(double)    // tip partials (bounded by beads)
         + (tip_kernel() ? beads * 6 * sizeof(float) : 0);  // tip and surface forces
  }
  return b;
}

std::size_t CudaEngine::shared_budget() const {
  // Leave room for two blocks per SM where possible; never above the opt-in limit.
  return std::min<std::size_t>(block_max_shared_bytes(device_), 110 * 1024);
}

void CudaEngine::check_memory(std::size_t need) const {
  std::size_t free_bytes = 0, total_bytes = 0;
  ERMAK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t have = free_bytes + allocated_bytes_;
  // 3 % stays free for the driver, graphs and the scratch of later list growth; the
  // message says so, or a run that "needs 138.6 of 139.3 GiB" would look like a bug.
  const std::size_t usable = have * 97 / 100;
  if (need > usable) {
    const std::size_t per_replica = need / std::size_t(R_);
    const std::size_t fitting_replicas = per_replica ? usable / per_replica : 0;
    throw Error("backend \"cuda\": this run needs " + format_byte_size(double(need)) + " of GPU memory (" +
                std::to_string(R_) + " replicas × " + std::to_string(n_) + " beads, " +
                format_byte_size(double(need) / (double(n_) * R_)) + " per bead with " + std::to_string(slots_) +
                " list slots per bead), but GPU " + std::to_string(device_) + " (" + prop_.name + ") has " +
                format_byte_size(double(have)) + " available of " + format_byte_size(double(total_bytes)) +
                ", of which ermak uses at most 97 % (" + format_byte_size(double(usable)) + ", about " +
                std::to_string(fitting_replicas) + " such replicas); use fewer replicas or another GPU");
  }
}

// (Re)allocates everything that depends on slots_ and the family; keeps positions.
void CudaEngine::configure_and_allocate() {
  const std::size_t need = bytes_needed();
  check_memory(need);
  const std::size_t beads = std::size_t(n_) * R_;
  // Positions survive a reconfiguration (they are the state).
  if (pos_[0].size() != beads) {
    pos_[0].resize(beads); pos_[1].resize(beads);
    pos_[0].fill_zero(stream_); pos_[1].fill_zero(stream_);
  }
  force_.resize(beads);
  bead_energy_.resize(beads * 4);
  if (setup_.indentation.enabled) bead_tip_.resize(beads * 3);
  replica_out_.resize(std::size_t(R_) * kReplicaOut);
  structure_out_.resize(std::size_t(R_) * kStructureOut);
  min_mode_.resize(R_);
  min_scale_.resize(R_);
  allocate_hydrodynamics();
  if (family_ == CudaKernelFamily::kBlock) {
    block_ = block_config();
    block_.rows_in_shared = block_shared_bytes(block_launch(block_, true)) <= shared_budget();
    BlockLaunch L = block_launch(block_, block_.rows_in_shared);
    if (block_shared_bytes(L) > block_max_shared_bytes(device_))
      throw Error("CUDA block family: a block of " + std::to_string(block_.group) + " replica(s) × " +
                  std::to_string(n_) + " beads needs " + format_byte_size(double(block_shared_bytes(L))) +
                  " of shared memory, more than this GPU offers (" +
                  format_byte_size(double(block_max_shared_bytes(device_))) + "); use ERMAK_CUDA_KERNEL=perbead");
    const std::size_t blocks = std::size_t(block_count(L));
    if (!block_.rows_in_shared && !block_.all_pairs)
      block_rows_.resize(blocks * std::size_t(slots_) * block_.group * n_);
    else block_rows_.release();
    block_status_[0].resize(blocks);
    block_status_[1].resize(blocks);
    status_step_ = -1;
    // Launches run ahead and overlapped stops (stop_and_advance) where the noise is drawn
    // in the step (Philox: a stateful generator's ring is refilled between launches).
    // With lists, not under indentation: a launch whose rows overflow is taken back to
    // the stop's positions, which do not hold the tips. ERMAK_OVERLAP_STOPS=0 turns it
    // off (docs/gpu.md#what-overlaps-the-steps). Not with hydrodynamic interactions: their
    // steps evaluate forces into the buffers a stop beside them would use.
    async_steps_ = !model_.noise && !hydrodynamic() && (block_.all_pairs || !setup_.indentation.enabled) &&
                   overlap_stops_setting() != OverlapStops::kNever;
  } else {
    ref_.resize(beads);
    const bool rows16 = perbead_rows16(), clusters = use_cluster_rows();
    rows_.release(); rows16_.release(); cluster_rows_.release();
    if (clusters) cluster_rows_.resize(row_entries());
    else if (rows16) rows16_.resize(row_entries());
    else rows_.resize(row_entries());
    row_count_.resize(perbead_rows());
    const int cap = 2 * n_ + 28;
    grids_.resize(R_);
    cell_start_.resize(std::size_t(R_) * (cap + 1));
    cell_fill_.resize(std::size_t(R_) * cap);
    bead_cell_.resize(beads);
    cell_unsorted_.resize(beads);
    cell_sorted_.resize(beads);
    const int cell_blocks = use_grid_cell_sort() ? cell_grid_sort_blocks(device_, n_, R_) : 0;
    if (cell_blocks > 0) {
      cell_bounds_.upload(empty_cell_bounds(R_), stream_);
      cell_tile_sum_.resize(std::size_t(R_) * cell_scan_tiles(cap));
    } else {
      cell_bounds_.release(); cell_tile_sum_.release();
    }
    const bool fresh_control = !ctrl_.get();
    if (fresh_control) ctrl_.resize(1);
    pairs_.resize(1);
    if (pairs_host_.size() == 0) {
      pairs_host_.resize(1);
      pairs_host_[0] = 0;
    }
    PerBeadLaunch& L = perbead_;
    choose_perbead_lanes(L);
    const int blocks = perbead_blocks_per_replica(L);
    if (L.cluster_order_window > 0) {
      // Chain order until the first build sorts it.
      const int places = perbead_cluster_order_slots(L);
      std::vector<int> chain(std::size_t(R_) * places);
      for (std::size_t k = 0; k < chain.size(); ++k) chain[k] = int(k % places);
      cluster_order_.upload(chain, stream_);
    } else {
      cluster_order_.release();
    }
    tip_partial_.resize(std::size_t(R_) * blocks * 3);
    tip_counter_.resize(R_);
    tip_counter_.fill_zero(stream_);
    if (tip_kernel()) tip_force_.resize(std::size_t(R_) * n_ * 6);

    L.m = model_;
    L.pos[0] = pos_[0].get(); L.pos[1] = pos_[1].get();
    L.ref = ref_.get();
    L.rows = rows_.get();
    L.rows16 = rows16_.get();
    L.cluster_rows = cluster_rows_.get();
    L.cluster_order = cluster_order_.get();
    L.row_count = row_count_.get();
    L.slots = slots_;
    L.grids = grids_.get();
    L.cell_capacity = cap;
    L.cell_start = cell_start_.get();
    L.cell_fill = cell_fill_.get();
    L.bead_cell = bead_cell_.get();
    L.cell_beads_unsorted = cell_unsorted_.get();
    L.cell_beads = cell_sorted_.get();
    L.cell_divisions = cell_divisions();
    L.cell_sort_blocks = cell_blocks;
    L.cell_bounds = cell_bounds_.get();
    L.cell_tile_sum = cell_tile_sum_.get();
    L.cell_tiles = cell_blocks > 0 ? cell_scan_tiles(cap) : 0;
    L.ctrl = ctrl_.get();
    L.tips = tips_;
    L.tip_partial = tip_partial_.get();
    L.tip_counter = tip_counter_.get();
    L.tip_force = tip_kernel() ? tip_force_.get() : nullptr;
    capture_graph();
    // New rows hold nothing yet: the list is stale at the current step.
    if (fresh_control) {
      Control c;
      c.step = c.target = c.stale_since = step_;
      ctrl_.upload(&c, 1, stream_);
    } else {
      launch_mark_stale(ctrl_.get(), stream_);
    }
  }
  allocated_bytes_ = need;
  ERMAK_CUDA(cudaStreamSynchronize(stream_));
}

void CudaEngine::capture_graph() {
  destroy_graph();
  cudaGraph_t graph = nullptr;
  ERMAK_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  try {
    for (int c = 0; c < kChunksPerGraph; ++c) {
      launch_rebuild(perbead_, stream_);
      for (int k = 0; k < chunk_steps_; ++k) launch_perbead_step(perbead_, k, stream_, side_);
      launch_chunk_end(perbead_, chunk_steps_, stream_);
    }
  } catch (...) {
    cudaStreamEndCapture(stream_, &graph);
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();
    throw;
  }
  ERMAK_CUDA(cudaStreamEndCapture(stream_, &graph));
  const cudaError_t status = cudaGraphInstantiate(&graph_exec_, graph, 0);
  cudaGraphDestroy(graph);
  ERMAK_CUDA(status);
  ERMAK_CUDA(cudaGraphUpload(graph_exec_, stream_));
}

void CudaEngine::destroy_graph() {
  if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
  graph_exec_ = nullptr;
}

void CudaEngine::release() noexcept {
  // On this engine's GPU, also where a split run destroys its parts from one thread; the
  // thread's own setting comes back at the end (as DeviceGuard does).
  int previous = -1;
  const bool restore = cudaGetDevice(&previous) == cudaSuccess;
  cudaSetDevice(device_);
  if (stream_) cudaStreamSynchronize(stream_);  // steps may be under way (stop_and_advance)
  if (report_stream_) cudaStreamSynchronize(report_stream_);
  destroy_graph();
  if (report_stream_) cudaStreamDestroy(report_stream_);
  if (stop_copied_) cudaEventDestroy(stop_copied_);
  if (stop_taken_) cudaEventDestroy(stop_taken_);
  if (pairs_counted_) cudaEventDestroy(pairs_counted_);
  report_stream_ = nullptr;
  stop_copied_ = stop_taken_ = pairs_counted_ = nullptr;
  if (stream_) cudaStreamDestroy(stream_);
  if (side_.stream) cudaStreamDestroy(side_.stream);
  if (side_.fork) cudaEventDestroy(side_.fork);
  if (side_.join) cudaEventDestroy(side_.join);
  side_ = SideBranch{};
  stream_ = nullptr;
  if (restore) cudaSetDevice(previous);
}

}  // namespace cuda
}  // namespace ermak
