// CPU backend (OpenMP). Numerics do not depend on the thread count: each replica's
// forces are summed through a fixed number of chunk buffers (chosen from N alone) in a
// fixed order, and noise is counter-based (Philox) or drawn per replica by a NoiseSource
// (run.rng, docs/rng.md), so 1 thread and 16 threads give the same bits.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "ermak/backend/protocol_reports.h"
#include "ermak/backend/structure_ends.h"
#include "ermak/backend/cpu/pair_forces.h"
#include "ermak/backend/descent_step.h"
#include "ermak/backend/engine.h"
#include "ermak/backend/hydrodynamic_step.h"
#include "ermak/core/error.h"
#include "ermak/model/measure_structure.h"
#include "ermak/physics/harmonic.h"
#include "ermak/physics/langevin_step.h"
#include "ermak/physics/plane_tether.h"
#include "ermak/protocol/indentation.h"
#include "ermak/protocol/replica_index.h"
#include "ermak/rng/noise_source.h"
#include "ermak/rng/philox_gaussian.h"
#include "ermak/rng/philox_gaussian_batch.h"

namespace ermak {
namespace {

using cpu::ConstPositions;
using cpu::ForceArrays;

// Chunks per replica: enough to share one replica among threads, few enough that
// zeroing and summing the chunk buffers stays cheap. Depends on N only (determinism).
std::int32_t chunk_count_for(std::int32_t beads) {
  return std::clamp<std::int32_t>((beads + 511) / 512, 1, 32);
}

struct Range {
  std::int64_t begin = 0, end = 0;
};
Range split(std::int64_t count, std::int32_t parts, std::int32_t part) {
  return {count * part / parts, count * (part + 1) / parts};
}

struct ReplicaLists {
  VerletList list;
  std::vector<float> ref_x, ref_y, ref_z;  // positions at the last build
  std::vector<std::int32_t> chunk_rows;    // size K+1, list rows (i-clusters) balanced by entry count
  std::vector<std::int32_t> chunk_lo, chunk_hi;  // size K: beads [lo, hi) that chunk k writes
  bool needs_rebuild = true;
};

// Per-worker scratch: K chunk force buffers of 3N floats and a cell list.
struct Workspace {
  std::vector<float> chunk_forces;  // [chunk][component][padded bead]
  std::vector<float> px, py, pz;    // positions of the replica being computed, padded
  std::vector<float> fx, fy, fz;    // reduced total force
  std::vector<float> gx, gy, gz;    // the replica's noise of the step (non-Philox generators, hydrodynamics)
  CellListScratch cells;
  // Hydrodynamic moves (backend/hydrodynamic_step.h): the mobile beads' displacements,
  // TEA's ε shares, the exact method's 3M×3M tensor.
  std::vector<Vec3f> displacement;
  std::vector<float> epsilon_share;
  std::vector<float> tensor;
};

// A replica's positions, forces and Gaussians as backend/hydrodynamic_step.h reads them.
struct SoaBeads {
  const float *x, *y, *z, *fx, *fy, *fz, *gx, *gy, *gz;
  Vec3f position(std::int32_t j) const { return {x[j], y[j], z[j]}; }
  Vec3f force(std::int32_t j) const { return {fx[j], fy[j], fz[j]}; }
  Vec3f gaussian(std::int32_t j) const { return {gx[j], gy[j], gz[j]}; }
};

class CpuEngine final : public Engine {
 public:
  explicit CpuEngine(const EngineSetup& setup)
      : setup_(setup),
        topology_(*setup.topology),
        n_(topology_.bead_count()),
        npad_(padded_bead_count(n_)),
        chunks_(chunk_count_for(n_)),
        exclusions_(build_exclusions(topology_)),
        state_(n_, setup.replicas),
        lists_(setup.replicas),
        fixed_(n_, 0) {
    for (std::int32_t b : setup.fixed_beads) {
      if (b < 0 || b >= n_) throw Error("fixed beads: bead " + std::to_string(b) + " is out of range (0.." + std::to_string(n_ - 1) + ")");
      fixed_[b] = 1;
    }
    auto check_bead = [&](std::int32_t bead, const char* what) {
      if (bead < 0 || bead >= n_)
        throw Error(std::string(what) + ": bead " + std::to_string(bead) + " is out of range (0.." +
                    std::to_string(n_ - 1) + ")");
    };
    for (const auto& t : setup.tethers) check_bead(t.bead, "pulling");
    for (const auto& f : setup.external_forces) check_bead(f.bead, "force clamp");
    for (const auto& t : setup.plane_tethers) check_bead(t.bead, "plane pulling");
    tethers_of_ = index_by_replica(setup.tethers, setup.replicas);
    forces_of_ = index_by_replica(setup.external_forces, setup.replicas);
    planes_of_ = index_by_replica(setup.plane_tethers, setup.replicas);
    tip_.assign(setup.replicas, setup.indentation.tip_start_A);
    turnaround_.assign(setup.replicas, -1);
    tip_molecule_force_.assign(setup.replicas, Vec3d{});
    threads_ = setup.threads > 0 ? setup.threads : omp_get_max_threads();
    workspaces_.resize(threads_);
    // Philox is drawn in the move itself (a pure function of the counters); any other
    // generator fills the replica's noise once per step into the worker's scratch.
    noise_ = rng::make_noise_source(setup.rng, setup.rng_layout, setup.seed, setup.replicas, n_);
    noise_from_source_ = setup.rng != "philox";
    if (setup.replica_offset != 0 && noise_from_source_) throw Error(sliced_noise_refusal(setup.rng));
    hydrodynamics_ = setup.langevin.hydrodynamics;
    for (std::int32_t i = 0; i < n_; ++i)
      if (!fixed_[i]) mobile_.push_back(i);
    // "auto" is the run driver's to resolve; an engine made without it resolves it alike.
    hydrodynamics_.method = resolve_hydrodynamic_method(hydrodynamics_.method, std::int64_t(mobile_.size()));
    if (hydrodynamics_.method == HydrodynamicMethod::kCholesky &&
        std::int32_t(mobile_.size()) > kMaxCholeskyMobileBeads)
      throw Error("hydrodynamics = \"cholesky\" factors each replica's 3M × 3M tensor at every step and is meant for "
                  "at most " + std::to_string(kMaxCholeskyMobileBeads) + " mobile beads (this model has " +
                  std::to_string(mobile_.size()) + "); use hydrodynamics = \"tea\"");
    if (noise_from_source_ || hydrodynamics_.enabled())
      for (Workspace& w : workspaces_) { w.gx.resize(n_); w.gy.resize(n_); w.gz.resize(n_); }
    fene_ = fene_parameters(setup.sop);
    repulsion_ = repulsion_parameters(setup.sop);
    list_cutoff_A_ = list_cutoff_A(setup);
    half_skin2_ = half_skin_squared_A2(setup);
    // Beads each chunk's share of bonds and contacts touches (fixed for the run).
    bonded_lo_.assign(chunks_, npad_);
    bonded_hi_.assign(chunks_, 0);
    for (std::int32_t c = 0; c < chunks_; ++c) {
      auto widen = [&](std::int32_t i, std::int32_t j) {
        bonded_lo_[c] = std::min({bonded_lo_[c], i, j});
        bonded_hi_[c] = std::max({bonded_hi_[c], i + 1, j + 1});
      };
      const Range bonds = split(std::int64_t(topology_.bonds.size()), chunks_, c);
      for (std::int64_t b = bonds.begin; b < bonds.end; ++b) widen(topology_.bonds[b].i, topology_.bonds[b].j);
      const Range natives = split(std::int64_t(topology_.native_contacts.size()), chunks_, c);
      for (std::int64_t k = natives.begin; k < natives.end; ++k)
        widen(topology_.native_contacts[k].i, topology_.native_contacts[k].j);
    }
  }

  std::string name() const override { return "cpu"; }

  void set_state(const State& state) override {
    if (state.bead_count != n_ || state.replica_count != setup_.replicas)
      throw std::invalid_argument("CpuEngine::set_state: shape mismatch");
    state_ = state;
    for (auto& l : lists_) l.needs_rebuild = true;
  }
  const State& state() override { return state_; }

  std::vector<Vec3f> bead_positions(const std::vector<std::int32_t>& beads) override {
    check_bead_indices(state_.bead_count, beads);
    return state_.positions_of(beads);
  }
  // The positions are here already: the run's exact checks cost no copy.
  bool may_be_unstable() override { return true; }

  void advance(std::int64_t steps) override {
    if (steps <= 0) return;
    const std::int64_t first_step = state_.step;
    if (replica_parallel()) {
      // Contiguous blocks of replicas per thread: neighbouring replicas share cache
      // lines of the state arrays, and interleaving them between threads costs more
      // than any load imbalance.
#pragma omp parallel for num_threads(threads_) schedule(static)
      for (std::int32_t r = 0; r < setup_.replicas; ++r) {
        Workspace& w = workspaces_[omp_get_thread_num()];
        for (std::int64_t s = 0; s < steps; ++s) step_replica_serial(r, first_step + s, w);
      }
    } else {
      for (std::int32_t r = 0; r < setup_.replicas; ++r)
        for (std::int64_t s = 0; s < steps; ++s) step_replica_parallel(r, first_step + s);
    }
    state_.step = first_step + steps;
  }

  std::vector<EnergyTerms> energies() override {
    std::vector<EnergyTerms> out(setup_.replicas);
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
    for (std::int32_t r = 0; r < setup_.replicas; ++r) {
      Workspace& w = workspaces_[omp_get_thread_num()];
      ensure_list(r, w);
      out[r] = total_forces<true>(r, state_.step, w);
    }
    return out;
  }

  std::vector<StructureObservables> structure_observables(double formed_ratio, std::int32_t end_first,
                                                          std::int32_t end_last) override {
    check_structure_ends(n_, end_first, end_last);
    std::vector<StructureObservables> out(setup_.replicas);
    for (std::int32_t r = 0; r < setup_.replicas; ++r) {
      const std::size_t o = state_.index(r, 0);
      out[r] = measure_structure(topology_, &state_.x[o], &state_.y[o], &state_.z[o], formed_ratio, end_first,
                                 end_last);
    }
    return out;
  }

  State forces() override {
    State out(n_, setup_.replicas);
    out.step = state_.step;
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
    for (std::int32_t r = 0; r < setup_.replicas; ++r) {
      Workspace& w = workspaces_[omp_get_thread_num()];
      ensure_list(r, w);
      total_forces<false>(r, state_.step, w);
      for (std::int32_t i = 0; i < n_; ++i) out.set_position(r, i, {w.fx[i], w.fy[i], w.fz[i]});
    }
    return out;
  }

  std::vector<Vec3d> tether_forces_kcal_per_mol_A() override { return report_tether_forces(setup_, state_); }

  std::vector<double> plane_forces_kcal_per_mol_A() override { return report_plane_forces(setup_, state_); }

  std::vector<IndentationStatus> indentation_status() override {
    std::vector<IndentationStatus> out;
    if (!setup_.indentation.enabled) return out;
    Workspace& w = workspaces_[0];
    for (std::int32_t r = 0; r < setup_.replicas; ++r) {
      ensure_list(r, w);
      total_forces<false>(r, state_.step, w);  // refreshes the molecule's force on the tip
      out.push_back(indentation_status_at(setup_.indentation, state_.step, turnaround_[r], setup_.langevin.timestep_tau,
                                          tip_[r], tip_molecule_force_[r]));
    }
    return out;
  }

  std::vector<std::uint8_t> noise_state() override { return noise_->save_state(); }
  void restore_noise_state(const std::vector<std::uint8_t>& bytes) override { noise_->restore_state(bytes); }
  std::string noise_name() const override { return noise_->name(); }

  std::vector<double> protocol_state() override {
    std::vector<double> out;
    for (std::int32_t r = 0; r < setup_.replicas; ++r) {
      out.push_back(tip_[r].x); out.push_back(tip_[r].y); out.push_back(tip_[r].z);
      out.push_back(double(turnaround_[r]));
    }
    return out;
  }

  void restore_protocol_state(const std::vector<double>& st) override {
    if (st.size() != std::size_t(setup_.replicas) * 4)
      throw Error("checkpoint: protocol state has " + std::to_string(st.size()) + " values, expected " +
                  std::to_string(setup_.replicas * 4));
    for (std::int32_t r = 0; r < setup_.replicas; ++r) {
      tip_[r] = {st[4 * r], st[4 * r + 1], st[4 * r + 2]};
      turnaround_[r] = std::int64_t(st[4 * r + 3]);
    }
  }

  MinimizeResult minimize(std::int64_t max_iterations, double force_tolerance_kcal_per_mol_A,
                          double max_displacement_A, const StopRequested& stop_requested) override {
    std::vector<MinimizeResult> per_replica(setup_.replicas);
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
    for (std::int32_t r = 0; r < setup_.replicas; ++r)
      per_replica[r] = minimize_replica(r, max_iterations, force_tolerance_kcal_per_mol_A, max_displacement_A,
                                        stop_requested, workspaces_[omp_get_thread_num()]);
    return combined(per_replica);
  }

  State neighbor_reference() override {
    State ref(n_, setup_.replicas);
    ref.step = state_.step;
    for (std::int32_t r = 0; r < setup_.replicas; ++r) {
      const auto& l = lists_[r];
      if (l.needs_rebuild || l.ref_x.empty()) {
        // No list yet: the current positions are where the next build will happen.
        for (std::int32_t i = 0; i < n_; ++i) ref.set_position(r, i, state_.position(r, i));
      } else {
        for (std::int32_t i = 0; i < n_; ++i) ref.set_position(r, i, {l.ref_x[i], l.ref_y[i], l.ref_z[i]});
      }
    }
    return ref;
  }

  void restore_neighbor_reference(const State& reference) override {
    if (reference.bead_count != n_ || reference.replica_count != setup_.replicas)
      throw Error("checkpoint: the neighbour-list reference has the wrong shape");
    for (std::int32_t r = 0; r < setup_.replicas; ++r) {
      const std::size_t o = reference.index(r, 0);
      rebuild(r, &reference.x[o], &reference.y[o], &reference.z[o], workspaces_[0]);
    }
    stats_.neighbor_rebuilds = 0;
  }

  EngineStats stats() const override {
    EngineStats s = stats_;
    s.neighbor_pairs = 0;
    for (const auto& l : lists_) s.neighbor_pairs += l.list.pair_count();
    return s;
  }

 private:
  // Replicas on threads, or the threads on each replica in turn: fewer replicas than threads,
  // and beads enough to share — force chunks, or (with hydrodynamics) at least
  // kSharedHydrodynamicsMobileBeads mobile beads, whose O(M²) TEA sums outweigh the threads'
  // barriers (λ-repressor × 1, 179 beads, on two threads: 1.9× one).
  static constexpr std::size_t kSharedHydrodynamicsMobileBeads = 128;
  bool replica_parallel() const {
    const bool shared_moves = hydrodynamics_.enabled() && mobile_.size() >= kSharedHydrodynamicsMobileBeads;
    return setup_.replicas >= threads_ || (chunks_ == 1 && !shared_moves);
  }

  ConstPositions positions(std::int32_t r) const {
    const std::size_t o = state_.index(r, 0);
    return {&state_.x[o], &state_.y[o], &state_.z[o]};
  }

  ForceArrays chunk_buffer(Workspace& w, std::int32_t chunk) {
    float* base = w.chunk_forces.data() + std::size_t(chunk) * 3 * npad_;
    return {base, base + npad_, base + 2 * std::size_t(npad_)};
  }

  // Sizes the workspace and copies replica r's positions into its padded arrays (the
  // cluster force loop reads whole clusters; padding lanes are masked out).
  void prepare_workspace(Workspace& w, std::int32_t r) {
    if (w.chunk_forces.size() != std::size_t(chunks_) * 3 * npad_) {
      w.chunk_forces.assign(std::size_t(chunks_) * 3 * npad_, 0.0f);
      w.px.assign(npad_, 0.0f); w.py.assign(npad_, 0.0f); w.pz.assign(npad_, 0.0f);
      w.fx.assign(n_, 0.0f); w.fy.assign(n_, 0.0f); w.fz.assign(n_, 0.0f);
    }
    const ConstPositions p = positions(r);
    std::copy_n(p.x, n_, w.px.begin()); std::copy_n(p.y, n_, w.py.begin()); std::copy_n(p.z, n_, w.pz.begin());
  }

  void rebuild(std::int32_t r, const float* x, const float* y, const float* z, Workspace& w) {
    ReplicaLists& l = lists_[r];
    // One replica per thread builds serially; a lone large replica uses all threads.
    if (replica_parallel() || omp_in_parallel())
      build_verlet_list(x, y, z, n_, exclusions_, list_cutoff_A_, w.cells, l.list);
    else
      build_verlet_list_parallel(x, y, z, n_, exclusions_, list_cutoff_A_, threads_, w.cells, l.list);
    l.ref_x.assign(x, x + n_); l.ref_y.assign(y, y + n_); l.ref_z.assign(z, z + n_);
    // Balance chunks by work (pairs + one per row), deterministic from the list alone.
    const std::int32_t rows = l.list.row_count();
    l.chunk_rows.assign(chunks_ + 1, rows);
    l.chunk_rows[0] = 0;
    const std::int64_t total = std::int64_t(l.list.row_offsets[rows]) + rows;
    std::int32_t c = 1;
    for (std::int32_t i = 0; i < rows && c < chunks_; ++i) {
      const std::int64_t done = std::int64_t(l.list.row_offsets[i + 1]) + (i + 1);
      while (c < chunks_ && done >= total * c / chunks_) l.chunk_rows[c++] = i + 1;
    }
    // The bead range each chunk writes: its rows' i beads, their j clusters (j > i in a
    // half list, so the range starts at the first row), its bonds and contacts; chunk 0
    // also carries the protocol forces, which may touch any bead. Only this range is
    // zeroed and summed (docs/benchmarks.md#cpu-backend).
    l.chunk_lo.resize(chunks_);
    l.chunk_hi.resize(chunks_);
    for (std::int32_t k = 0; k < chunks_; ++k) {
      const std::int32_t first_row = l.chunk_rows[k], end_row = l.chunk_rows[k + 1];
      std::int32_t lo = std::min(bonded_lo_[k], first_row * kIClusterWidth);
      std::int32_t hi = std::max(bonded_hi_[k], std::min(npad_, end_row * kIClusterWidth));
      for (std::int32_t e = l.list.row_offsets[first_row]; e < l.list.row_offsets[end_row]; ++e)
        hi = std::max(hi, (l.list.clusters[e] + 1) * kClusterWidth);
      if (k == 0) { lo = 0; hi = npad_; }
      l.chunk_lo[k] = std::min(lo, hi);
      l.chunk_hi[k] = hi;
    }
    l.needs_rebuild = false;
#pragma omp atomic
    ++stats_.neighbor_rebuilds;
  }

  void ensure_list(std::int32_t r, Workspace& w) {
    if (!lists_[r].needs_rebuild) return;
    const ConstPositions p = positions(r);
    rebuild(r, p.x, p.y, p.z, w);
  }

  // Forces of chunk c of replica r into its buffer (its bead range zeroed here). Chunk 0
  // also carries the protocol forces, so every contribution has one fixed place in the
  // summation order.
  template <bool kEnergy>
  EnergyTerms chunk_forces(std::int32_t r, std::int32_t c, std::int64_t step, Workspace& w) {
    EnergyTerms e;
    ForceArrays f = chunk_buffer(w, c);
    const ReplicaLists& l = lists_[r];
    const std::int32_t lo = l.chunk_lo[c], hi = l.chunk_hi[c];
    std::fill(f.x + lo, f.x + hi, 0.0f); std::fill(f.y + lo, f.y + hi, 0.0f); std::fill(f.z + lo, f.z + hi, 0.0f);
    const ConstPositions p{w.px.data(), w.py.data(), w.pz.data()};
    const Range bonds = split(std::int64_t(topology_.bonds.size()), chunks_, c);
    cpu::add_bond_forces<kEnergy>(topology_.bonds.data() + bonds.begin, bonds.end - bonds.begin, fene_, p, f, e);
    const Range natives = split(std::int64_t(topology_.native_contacts.size()), chunks_, c);
    cpu::add_native_forces<kEnergy>(topology_.native_contacts.data() + natives.begin,
                                    natives.end - natives.begin, p, f, e);
    cpu::add_repulsion_forces<kEnergy>(l.list, l.chunk_rows[c], l.chunk_rows[c + 1], repulsion_, p, f, e);
    if (c == 0) add_protocol_forces<kEnergy>(r, step, p, f, e);
    return e;
  }

  // All protocol forces on beads of replica r (docs/protocols.md), into chunk 0's buffer.
  template <bool kEnergy>
  void add_protocol_forces(std::int32_t r, std::int64_t step, ConstPositions p, ForceArrays f, EnergyTerms& e) {
    const double h = setup_.langevin.timestep_tau;
    {
      for (const std::int32_t k : tethers_of_.of(r)) {
        const HarmonicTether& t = setup_.tethers[std::size_t(k)];
        const auto tf = tether_force_on_bead<kEnergy>(t, Vec3f{p.x[t.bead], p.y[t.bead], p.z[t.bead]}, step, h);
        f.x[t.bead] += tf.force.x; f.y[t.bead] += tf.force.y; f.z[t.bead] += tf.force.z;
        if constexpr (kEnergy) e.protocol += tf.energy;
      }
    }
    if (!setup_.external_forces.empty()) {
      const double magnitude = setup_.force_schedule.at_step(step);
      for (const std::int32_t k : forces_of_.of(r)) {
        const ExternalForce& x = setup_.external_forces[std::size_t(k)];
        const Vec3f clamp = clamp_force_kcal_per_mol_A(magnitude, x.direction);
        f.x[x.bead] += clamp.x; f.y[x.bead] += clamp.y; f.z[x.bead] += clamp.z;
      }
    }
    for (const std::int32_t k : planes_of_.of(r)) {
      const PlaneTether& t = setup_.plane_tethers[std::size_t(k)];
      double energy = 0;
      const Vec3f along =
          plane_tether_force_on_bead<kEnergy>(t, Vec3d{p.x[t.bead], p.y[t.bead], p.z[t.bead]}, step, h, energy);
      f.x[t.bead] += along.x; f.y[t.bead] += along.y; f.z[t.bead] += along.z;
      if constexpr (kEnergy) e.protocol += energy;
    }
    const Indentation& ind = setup_.indentation;
    if (!ind.enabled) return;
    // Tip on every bead (O(N) per step); the reaction is the molecule's force on the tip.
    Vec3d on_tip{};
    const Vec3d tip = tip_[r];
    for (std::int32_t i = 0; i < n_; ++i) {
      double energy = 0;
      const Vec3d force = tip_force_on_bead<kEnergy>(ind, Vec3d{p.x[i], p.y[i], p.z[i]}, tip, energy);
      f.x[i] += float(force.x); f.y[i] += float(force.y); f.z[i] += float(force.z);
      on_tip -= force;
      if constexpr (kEnergy) e.protocol += energy;
    }
    tip_molecule_force_[r] = on_tip;
    // The cantilever spring belongs to the replica's energy too (docs/protocols.md#indentation).
    if constexpr (kEnergy) e.protocol += cantilever_energy(ind, tip, step, turnaround_[r], h);
    if (ind.surface.enabled) add_surface_forces<kEnergy>(r, step, p, f, e);
  }

  template <bool kEnergy>
  void add_surface_forces(std::int32_t r, std::int64_t step, ConstPositions p, ForceArrays f, EnergyTerms& e) {
    const Indentation& ind = setup_.indentation;
    const IndentationSurface surface = surface_at(ind, step, turnaround_[r], setup_.langevin.timestep_tau);
    for (std::int32_t i = 0; i < n_; ++i) {
      double energy = 0;
      const Vec3d force = surface_force_on<kEnergy>(surface, Vec3d{p.x[i], p.y[i], p.z[i]}, 0.0, energy);
      f.x[i] += float(force.x); f.y[i] += float(force.y); f.z[i] += float(force.z);
      if constexpr (kEnergy) e.protocol += energy;
    }
    if constexpr (kEnergy) {
      // The tip–surface energy belongs to the replica too (counted once, here).
      double tip_energy = 0;
      tip_surface_force<true>(ind, tip_[r], step, turnaround_[r], setup_.langevin.timestep_tau, tip_energy);
      e.protocol += tip_energy;
    }
  }

  // Replica r's index in the Philox counters: its index in the whole run
  // (EngineSetup::replica_offset).
  std::uint32_t noise_replica(std::int32_t r) const { return std::uint32_t(setup_.replica_offset + r); }

  // The tip's own overdamped step (after the beads'), then the retraction check.
  void step_tip(std::int32_t r, std::int64_t step) {
    const Indentation& ind = setup_.indentation;
    if (!ind.enabled) return;
    const Vec3f g = rng::gaussian3(setup_.seed, rng::Stream::kTipLangevin, noise_replica(r), 0u, std::uint64_t(step));
    indentation_tip_step(ind, step, setup_.langevin.timestep_tau, setup_.temperature.at_step(step),
                         tip_molecule_force_[r], g, tip_[r], turnaround_[r]);
  }

  // Sums chunk buffers for beads [begin, end) into w.fx/fy/fz in chunk order (each chunk
  // over the beads it wrote).
  void reduce_chunks(std::int32_t r, Workspace& w, std::int32_t begin, std::int32_t end) {
    for (std::int32_t i = begin; i < end; ++i) { w.fx[i] = 0.0f; w.fy[i] = 0.0f; w.fz[i] = 0.0f; }
    const ReplicaLists& l = lists_[r];
    for (std::int32_t c = 0; c < chunks_; ++c) {
      const ForceArrays f = chunk_buffer(w, c);
      const std::int32_t lo = std::max(begin, l.chunk_lo[c]), hi = std::min(end, l.chunk_hi[c]);
#pragma omp simd
      for (std::int32_t i = lo; i < hi; ++i) { w.fx[i] += f.x[i]; w.fy[i] += f.y[i]; w.fz[i] += f.z[i]; }
    }
  }

  template <bool kEnergy>
  EnergyTerms total_forces(std::int32_t r, std::int64_t step, Workspace& w) {
    prepare_workspace(w, r);
    EnergyTerms total;
    for (std::int32_t c = 0; c < chunks_; ++c) {
      const EnergyTerms e = chunk_forces<kEnergy>(r, c, step, w);
      total.fene += e.fene; total.native += e.native; total.repulsive += e.repulsive; total.protocol += e.protocol;
    }
    reduce_chunks(r, w, 0, n_);
    return total;
  }

  // Moves beads [begin, end) of replica r by one Langevin step; returns the largest
  // squared displacement from the list reference among them. Philox noise is drawn 8
  // beads at a time (rng/philox_gaussian_batch.h, docs/rng.md#cpu-batch), in blocks
  // aligned to multiples of 8, and never by the scalar gaussian3 (whose libm results
  // differ by an ulp or so): every bead's Gaussians come from the same lane arithmetic
  // whatever [begin, end) the thread split gives, so 1 and 2 threads agree bit for bit.
  // Lanes outside [begin, end), past N, and fixed beads are drawn and discarded.
  float integrate(std::int32_t r, std::int64_t step, const Workspace& w, std::int32_t begin, std::int32_t end) {
    const auto coeff = physics::langevin_coefficients(setup_.langevin.timestep_tau, setup_.langevin.zeta,
                                                      setup_.temperature.at_step(step));
    const std::size_t o = state_.index(r, 0);
    float* x = &state_.x[o]; float* y = &state_.y[o]; float* z = &state_.z[o];
    const ReplicaLists& l = lists_[r];
    float max_d2 = 0.0f;
    const auto move = [&](std::int32_t i, Vec3f g) {
      const Vec3f d = physics::langevin_displacement({w.fx[i], w.fy[i], w.fz[i]}, g, coeff);
      x[i] += d.x; y[i] += d.y; z[i] += d.z;
      const float dx = x[i] - l.ref_x[i], dy = y[i] - l.ref_y[i], dz = z[i] - l.ref_z[i];
      const float d2 = dx * dx + dy * dy + dz * dz;
      // NaN compares false: keep it visible so the list is rebuilt and the run stops.
      max_d2 = (d2 > max_d2 || d2 != d2) ? d2 : max_d2;
    };
    if (noise_from_source_) {
      for (std::int32_t i = begin; i < end; ++i)
        if (!fixed_[i]) move(i, {w.gx[i], w.gy[i], w.gz[i]});
      return max_d2;
    }
    constexpr std::int32_t kB = rng::kGaussianBatch;
    for (std::int32_t block = begin - begin % kB; block < end; block += kB) {
      const rng::Gaussians8 g = rng::gaussian3_batch8(setup_.seed, rng::Stream::kBeadLangevin, noise_replica(r),
                                                      std::uint32_t(block), std::uint64_t(step));
      float gx[kB], gy[kB], gz[kB];
      g.x.store(gx); g.y.store(gy); g.z.store(gz);
      const std::int32_t lo = std::max(block, begin), hi = std::min(block + kB, end);
      for (std::int32_t i = lo; i < hi; ++i)
        if (!fixed_[i]) move(i, {gx[i - block], gy[i - block], gz[i - block]});
    }
    return max_d2;
  }

  // Every bead's Gaussians of the step into w.gx/gy/gz, the very values the plain move
  // draws (Philox by batches of 8; a NoiseSource has filled them already).
  void draw_gaussians(std::int32_t r, std::int64_t step, Workspace& w) {
    if (noise_from_source_) return;
    constexpr std::int32_t kB = rng::kGaussianBatch;
    for (std::int32_t block = 0; block < n_; block += kB) {
      const rng::Gaussians8 g = rng::gaussian3_batch8(setup_.seed, rng::Stream::kBeadLangevin, noise_replica(r),
                                                      std::uint32_t(block), std::uint64_t(step));
      float gx[kB], gy[kB], gz[kB];
      g.x.store(gx); g.y.store(gy); g.z.store(gz);
      for (std::int32_t i = block; i < std::min(block + kB, n_); ++i) {
        w.gx[i] = gx[i - block]; w.gy[i] = gy[i - block]; w.gz[i] = gz[i - block];
      }
    }
  }

  // One step of replica r's mobile beads with hydrodynamic interactions
  // (backend/hydrodynamic_step.h, docs/model.md#hydrodynamic-interactions), from the forces
  // in w.fx/fy/fz; `parallel`: the beads' sums shared among the threads (one large replica).
  // Each bead's sums run in bead order, so the thread count changes no bit. Returns the
  // largest squared displacement from the list reference, as integrate().
  float move_hydrodynamic(std::int32_t r, std::int64_t step, Workspace& w, bool parallel) {
    draw_gaussians(r, step, w);
    const auto coeff = physics::langevin_coefficients(setup_.langevin.timestep_tau, setup_.langevin.zeta,
                                                      setup_.temperature.at_step(step));
    const std::size_t o = state_.index(r, 0);
    float* x = &state_.x[o]; float* y = &state_.y[o]; float* z = &state_.z[o];
    const SoaBeads beads{x, y, z, w.fx.data(), w.fy.data(), w.fz.data(), w.gx.data(), w.gy.data(), w.gz.data()};
    const std::int32_t m = std::int32_t(mobile_.size());
    const float radius_A = float(hydrodynamics_.radius_A);
    w.displacement.resize(m);
    constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
    if (hydrodynamics_.method == HydrodynamicMethod::kCholesky) {
      w.tensor.resize(std::size_t(9) * m * m);
      // On one thread even for one large replica: the factor's columns, shared among two
      // threads with a barrier each, ran λ-repressor's step 40 % slower
      // (docs/benchmarks.md#hydrodynamic-interactions).
      if (!exact_hydrodynamic_displacements(beads, mobile_.data(), m, radius_A, coeff.mobility_step,
                                            coeff.noise_amplitude, w.tensor.data(), w.displacement.data()))
        std::fill(w.displacement.begin(), w.displacement.end(), Vec3f{kNaN, kNaN, kNaN});  // the run's checks stop it
    } else {
      w.epsilon_share.resize(m);
      // Each bead's items on any thread: the same bits. A parallel region only for one
      // large replica (`parallel`): an `if` clause still enters one per call, which cost a
      // 2-bead replica 5× its step.
      const auto share = [&](std::int32_t k) {
        w.epsilon_share[k] = tea_epsilon_share_of(beads, mobile_.data(), m, k, radius_A);
      };
      if (parallel) {
#pragma omp parallel for num_threads(threads_) schedule(static)
        for (std::int32_t k = 0; k < m; ++k) share(k);
      } else {
        for (std::int32_t k = 0; k < m; ++k) share(k);
      }
      double epsilon_sum = 0.0;
      for (std::int32_t k = 0; k < m; ++k) epsilon_sum += w.epsilon_share[k];
      const float beta = float(physics::tea_beta(physics::tea_epsilon(epsilon_sum, m), m));
      const auto move = [&](std::int32_t k) {
        const std::int32_t i = mobile_[k];
        const physics::HydrodynamicSums sums = hydrodynamic_sums_of(beads, mobile_.data(), m, k, radius_A);
        w.displacement[k] = physics::tea_displacement(beads.force(i), beads.gaussian(i), sums, beta,
                                                      coeff.mobility_step, coeff.noise_amplitude);
      };
      if (parallel) {
#pragma omp parallel for num_threads(threads_) schedule(static)
        for (std::int32_t k = 0; k < m; ++k) move(k);
      } else {
        for (std::int32_t k = 0; k < m; ++k) move(k);
      }
    }
    const ReplicaLists& l = lists_[r];
    float max_d2 = 0.0f;
    for (std::int32_t k = 0; k < m; ++k) {
      const std::int32_t i = mobile_[k];
      x[i] += w.displacement[k].x; y[i] += w.displacement[k].y; z[i] += w.displacement[k].z;
      const float dx = x[i] - l.ref_x[i], dy = y[i] - l.ref_y[i], dz = z[i] - l.ref_z[i];
      const float d2 = dx * dx + dy * dy + dz * dz;
      max_d2 = (d2 > max_d2 || d2 != d2) ? d2 : max_d2;
    }
    return max_d2;
  }

  void step_replica_serial(std::int32_t r, std::int64_t step, Workspace& w) {
    ensure_list(r, w);
    total_forces<false>(r, step, w);
    if (noise_from_source_) noise_->fill(r, step, w.gx.data(), w.gy.data(), w.gz.data());
    const float max_d2 = hydrodynamics_.enabled() ? move_hydrodynamic(r, step, w, false) : integrate(r, step, w, 0, n_);
    if (!(max_d2 <= half_skin2_)) lists_[r].needs_rebuild = true;
    step_tip(r, step);
  }

  void step_replica_parallel(std::int32_t r, std::int64_t step) {
    Workspace& w = workspaces_[0];
    ensure_list(r, w);
    prepare_workspace(w, r);
    // Outside the team below: the fill splits the beads among threads itself.
    if (noise_from_source_) noise_->fill(r, step, w.gx.data(), w.gy.data(), w.gz.data());
    float max_d2 = 0.0f;
    if (hydrodynamics_.enabled()) {
      // Every bead's force before any move: the moves couple all mobile beads.
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
      for (std::int32_t c = 0; c < chunks_; ++c) chunk_forces<false>(r, c, step, w);
      reduce_chunks(r, w, 0, n_);
      max_d2 = move_hydrodynamic(r, step, w, true);
      if (!(max_d2 <= half_skin2_)) lists_[r].needs_rebuild = true;
      step_tip(r, step);
      return;
    }
#pragma omp parallel num_threads(threads_)
    {
#pragma omp for schedule(dynamic, 1)
      for (std::int32_t c = 0; c < chunks_; ++c) chunk_forces<false>(r, c, step, w);
      float local_max = 0.0f;
#pragma omp for schedule(static)
      for (std::int32_t block = 0; block < chunks_; ++block) {
        const Range beads = split(n_, chunks_, block);
        reduce_chunks(r, w, std::int32_t(beads.begin), std::int32_t(beads.end));
        const float d2 = integrate(r, step, w, std::int32_t(beads.begin), std::int32_t(beads.end));
        local_max = (d2 > local_max || d2 != d2) ? d2 : local_max;
      }
#pragma omp critical
      max_d2 = (local_max > max_d2 || local_max != local_max) ? local_max : max_d2;
    }
    if (!(max_d2 <= half_skin2_)) lists_[r].needs_rebuild = true;
    step_tip(r, step);
  }

  MinimizeResult minimize_replica(std::int32_t r, std::int64_t max_iterations, double tolerance,
                                  double max_displacement_A, const StopRequested& stop_requested, Workspace& w) {
    MinimizeResult result;
    double step_A = max_displacement_A;
    const std::size_t o = state_.index(r, 0);
    std::vector<float> saved_x(n_), saved_y(n_), saved_z(n_);
    ensure_list(r, w);
    double energy = total_forces<true>(r, state_.step, w).total();
    for (; result.iterations < max_iterations; ++result.iterations) {
      // A NaN force stays the largest, as in the CUDA reduction (eval_kernels.cu), so that
      // both backends report it rather than a finite maximum (std::max would drop it).
      double max_f2 = 0.0;
      for (std::int32_t i = 0; i < n_; ++i)
        if (!fixed_[i]) {
          const double f2 = double(w.fx[i]) * w.fx[i] + double(w.fy[i]) * w.fy[i] + double(w.fz[i]) * w.fz[i];
          max_f2 = (f2 > max_f2 || f2 != f2) ? f2 : max_f2;
        }
      result.max_force_kcal_per_mol_A = std::sqrt(max_f2);
      if (result.max_force_kcal_per_mol_A < tolerance) { result.converged = true; break; }
      if (stop_requested && stop_requested()) { result.interrupted = true; break; }
      std::copy_n(&state_.x[o], n_, saved_x.begin()); std::copy_n(&state_.y[o], n_, saved_y.begin());
      std::copy_n(&state_.z[o], n_, saved_z.begin());
      // Steepest descent with the largest bead move limited to step_A (backend/descent_step.h).
      const float scale = descent_scale(step_A, result.max_force_kcal_per_mol_A);
      float max_d2 = 0.0f;
      for (std::int32_t i = 0; i < n_; ++i) {
        if (fixed_[i]) continue;
        state_.x[o + i] += scale * w.fx[i]; state_.y[o + i] += scale * w.fy[i]; state_.z[o + i] += scale * w.fz[i];
        const float dx = state_.x[o + i] - lists_[r].ref_x[i], dy = state_.y[o + i] - lists_[r].ref_y[i],
                    dz = state_.z[o + i] - lists_[r].ref_z[i];
        max_d2 = std::max(max_d2, dx * dx + dy * dy + dz * dz);
      }
      if (!(max_d2 <= half_skin2_)) lists_[r].needs_rebuild = true;
      ensure_list(r, w);
      const double trial = total_forces<true>(r, state_.step, w).total();
      if (std::isfinite(trial) && trial <= energy) {
        energy = trial;
        step_A = descent_step_after_success(step_A, max_displacement_A);
      } else {
        std::copy_n(saved_x.begin(), n_, &state_.x[o]); std::copy_n(saved_y.begin(), n_, &state_.y[o]);
        std::copy_n(saved_z.begin(), n_, &state_.z[o]);
        step_A = descent_step_after_failure(step_A);
        lists_[r].needs_rebuild = true;
        ensure_list(r, w);
        total_forces<true>(r, state_.step, w);
        if (descent_step_exhausted(step_A)) break;
      }
    }
    lists_[r].needs_rebuild = true;
    return result;
  }

  EngineSetup setup_;
  const Topology& topology_;
  std::int32_t n_;
  std::int32_t npad_;
  std::int32_t chunks_;
  ExclusionList exclusions_;
  State state_;
  std::vector<ReplicaLists> lists_;
  std::vector<std::uint8_t> fixed_;
  std::vector<Workspace> workspaces_;
  int threads_ = 1;
  physics::FeneParameters fene_{};
  physics::RepulsionParameters repulsion_{};
  float list_cutoff_A_ = 0.0f;
  float half_skin2_ = 0.0f;
  EngineStats stats_;
  ReplicaIndex tethers_of_, forces_of_, planes_of_;  // protocol items acting in each replica
  std::vector<Vec3d> tip_;                 // indentation tip per replica
  std::vector<std::int64_t> turnaround_;   // step at which the base reversed, −1: not yet
  std::vector<Vec3d> tip_molecule_force_;  // force of the beads on the tip, last evaluation
  std::unique_ptr<rng::NoiseSource> noise_;  // run.rng; used for the beads unless philox
  bool noise_from_source_ = false;
  HydrodynamicParameters hydrodynamics_;
  std::vector<std::int32_t> mobile_;  // beads that are not fixed, in order
  std::vector<std::int32_t> bonded_lo_, bonded_hi_;  // per chunk: beads its bonds and contacts touch
};

}  // namespace

std::unique_ptr<Engine> make_cpu_engine(const EngineSetup& setup) {
  if (setup.topology == nullptr) throw std::invalid_argument("make_cpu_engine: no topology");
  return std::make_unique<CpuEngine>(setup);
}

}  // namespace ermak
