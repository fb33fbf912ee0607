// The CUDA engine (docs/gpu.md): the Engine interface of backend/engine.h with the CPU
// engine's semantics, everything on the device. The host launches kernels and copies
// data only when asked (state, energies, forces, reports, checkpoints).
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
namespace {

constexpr int kBlockMaxBeads = 4096;     // 1024 threads × 4 beads
constexpr int kAutoBlockMaxBeads = 2048; // auto choice: block family up to here (docs/gpu.md)
constexpr int kAutoBlockAlwaysBeads = 384;
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

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end != '\0') throw Error(std::string("environment variable ") + name + "=\"" + v + "\" is not an integer");
  return int(x);
}

// The all-pairs limit; ERMAK_CUDA_ALLPAIRS_MAX_BEADS replaces it for measurements, up to
// 255 (the fixed rows hold uint8 partner indices and counts).
int all_pairs_max_beads() {
  const int forced = env_int("ERMAK_CUDA_ALLPAIRS_MAX_BEADS", -1);
  if (forced > 255 || forced < -1) throw Error("ERMAK_CUDA_ALLPAIRS_MAX_BEADS must be 0 to 255");
  return forced >= 0 ? forced : kAllPairsMaxBeads;
}

std::string device_list() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) { cudaGetLastError(); return "none"; }
  std::string out;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(d) + ": " + prop.name + " (compute capability " + std::to_string(prop.major) + "." +
           std::to_string(prop.minor) + ")";
  }
  return out.empty() ? "none" : out;
}

int resolve_device(int requested) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    cudaGetLastError();
    throw Error(std::string("backend \"cuda\": no usable CUDA GPU was found (") +
                (status != cudaSuccess ? cudaGetErrorString(status) : "no devices") +
                "); use backend = \"cpu\", or run on a machine with an NVIDIA GPU and driver");
  }
  int device = requested;
  if (device < 0) device = env_int("ERMAK_CUDA_DEVICE", 0);
  if (device < 0 || device >= count)
    throw Error("backend \"cuda\": GPU " + std::to_string(device) + " does not exist; this machine has " +
                std::to_string(count) + " (" + device_list() + ")");
  cudaDeviceProp prop{};
  ERMAK_CUDA(cudaGetDeviceProperties(&prop, device));
  if (prop.major < 9)
    throw Error("backend \"cuda\": GPU " + std::to_string(device) + " (" + prop.name + ") has compute capability " +
                std::to_string(prop.major) + "." + std::to_string(prop.minor) +
                "; this ermak was built for 9.0 (H100/H200) and newer; rebuild with "
                "-DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(prop.major) + std::to_string(prop.minor));
  return device;
}

CudaKernelFamily family_from_env(CudaKernelFamily fallback) {
  const char* v = std::getenv("ERMAK_CUDA_KERNEL");
  if (!v || !*v) return fallback;
  const std::string s = v;
  if (s == "block") return CudaKernelFamily::kBlock;
  if (s == "perbead") return CudaKernelFamily::kPerBead;
  if (s == "auto") return CudaKernelFamily::kAuto;
  throw Error("environment variable ERMAK_CUDA_KERNEL=\"" + s + "\": must be block, perbead or auto");
}

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

int round_up(int v, int m) { return (v + m - 1) / m * m; }

class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    int current = -1;
    ERMAK_CUDA(cudaGetDevice(&current));
    if (current != device) ERMAK_CUDA(cudaSetDevice(device));
  }
};

}  // namespace

class CudaEngine final : public Engine {
 public:
  CudaEngine(const EngineSetup& setup, const CudaEngineOptions& options)
      : setup_(setup), topology_(*setup.topology), n_(topology_.bead_count()), R_(setup.replicas) {
    if (n_ <= 0) throw Error("backend \"cuda\": the topology has no beads");
    if (R_ <= 0) throw Error("backend \"cuda\": replicas must be positive");
    device_ = resolve_device(options.device >= 0 ? options.device : setup.device);
    ERMAK_CUDA(cudaSetDevice(device_));
    ERMAK_CUDA(cudaGetDeviceProperties(&prop_, device_));
    validate_setup();
    family_ = choose_family(family_from_env(options.family));
    cluster_rows_mode_ = choose_cluster_rows();
    model_.n = n_;
    model_.replicas = R_;
    model_.protocol.indentation = setup_.indentation.enabled;
    slots_ = initial_slots();
    chunk_steps_ = env_int("ERMAK_CUDA_CHUNK_STEPS", kChunkSteps);
    if (chunk_steps_ < 1 || chunk_steps_ > 256) throw Error("ERMAK_CUDA_CHUNK_STEPS must be between 1 and 256");
    check_memory(bytes_needed());  // before any allocation
    ERMAK_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    ERMAK_CUDA(cudaStreamCreateWithFlags(&side_.stream, cudaStreamNonBlocking));
    ERMAK_CUDA(cudaEventCreateWithFlags(&side_.fork, cudaEventDisableTiming));
    ERMAK_CUDA(cudaEventCreateWithFlags(&side_.join, cudaEventDisableTiming));
    ERMAK_CUDA(cudaStreamCreateWithFlags(&report_stream_, cudaStreamNonBlocking));
    ERMAK_CUDA(cudaEventCreateWithFlags(&stop_copied_, cudaEventDisableTiming));
    ERMAK_CUDA(cudaEventCreateWithFlags(&stop_taken_, cudaEventDisableTiming));
    ERMAK_CUDA(cudaEventCreateWithFlags(&pairs_counted_, cudaEventDisableTiming));
    try {
      upload_model();
      setup_noise();
      configure_and_allocate();
    } catch (...) {
      release();
      throw;
    }
  }

  ~CudaEngine() override { release(); }

  std::string name() const override { return "cuda"; }
  std::string family_name() const { return family_ == CudaKernelFamily::kBlock ? "block" : "perbead"; }
  // The family and its layout, short (bench tables): "block/ap/S1/g4" (all pairs, one
  // lane per bead, 4 replicas per block), "block/list/S2/g4", "block/tiles/g8" (each pair
  // once in tiles) or "block/tiles/apart/g4" (bead threads apart from the tile threads);
  // "perbead/rows" or "perbead/clusters".
  std::string kernel_layout() const {
    if (family_ != CudaKernelFamily::kBlock) return use_cluster_rows() ? "perbead/clusters" : "perbead/rows";
    if (block_.tiles) return std::string("block/tiles/") + (block_.tile_beads_apart ? "apart/" : "") + "g" +
                             std::to_string(block_.group);
    return std::string("block/") + (block_.all_pairs ? "ap" : "list") + "/S" + std::to_string(block_.lanes) + "/g" +
           std::to_string(block_.group);
  }

  void set_state(const State& state) override {
    DeviceGuard guard(device_);
    settle();
    status_step_ = -1;
    if (state.bead_count != n_ || state.replica_count != R_)
      throw Error("CudaEngine::set_state: shape mismatch (" + std::to_string(state.replica_count) + "×" +
                  std::to_string(state.bead_count) + " for " + std::to_string(R_) + "×" + std::to_string(n_) + ")");
    step_ = state.step;
    // Lists must hold the densest replica; grow before the first step if needed.
    const int needed = needed_slots_for(state);
    if (needed > slots_) {
      slots_ = needed;
      configure_and_allocate();
    }
    upload_positions(state, pos_[step_ & 1].get());
    host_ = state;
    host_valid_ = true;
    ++positions_version_;
    if (family_ == CudaKernelFamily::kPerBead) reset_control();
  }

  const State& state() override {
    DeviceGuard guard(device_);
    settle();
    if (!host_valid_) {
      download_positions(pos_[step_ & 1].get(), host_);
      host_.step = step_;
      host_valid_ = true;
    }
    return host_;
  }

  void advance(std::int64_t steps) override {
    DeviceGuard guard(device_);
    launch_steps(steps);
    settle();
  }

  bool overlaps_stops() const override { return async_steps_; }

  // The stop runs beside the next steps (docs/gpu.md#what-overlaps-the-steps): in stream
  // order behind the steps so far, the positions are copied on the device (16 B per
  // bead) and the next steps launched; on the report stream, once that copy is done, the
  // screen, gathers and reductions read the copy and their results go to page-locked
  // memory. The host waits only for those. The launch before's block status is read there
  // too: the next launch writes the other status array.
  StopValues stop_and_advance(const StopRequest& request, std::int64_t next_steps) override {
    if (!async_steps_ || request.indentation) return Engine::stop_and_advance(request, next_steps);
    DeviceGuard guard(device_);
    const std::int64_t stop_step = step_;
    const std::size_t beads = std::size_t(n_) * R_;
    const bool check_steps = steps_in_flight_;
    const BlockStatus* status_at_stop = block_status_[status_parity_].get();
    const std::uint64_t stop_version = positions_version_;
    stop_positions_.resize(beads);
    ERMAK_CUDA(cudaMemcpyAsync(stop_positions_.get(), pos_[step_ & 1].get(), beads * sizeof(float4),
                               cudaMemcpyDeviceToDevice, stream_));
    ERMAK_CUDA(cudaEventRecord(stop_copied_, stream_));
    launch_steps(next_steps);

    cudaStream_t side = report_stream_;
    ERMAK_CUDA(cudaStreamWaitEvent(side, stop_copied_, 0));
    if (check_steps) {
      stop_status_.resize(status_host_.size());
      ERMAK_CUDA(cudaMemcpyAsync(stop_status_.data(), status_at_stop, status_host_.size() * sizeof(BlockStatus),
                                 cudaMemcpyDeviceToHost, side));
    }
    enqueue_stop(request, stop_positions_.get(), stop_version, stop_step, side);
    ERMAK_CUDA(cudaEventRecord(stop_taken_, side));
    ERMAK_CUDA(cudaEventSynchronize(stop_taken_));
    if (check_steps) {
      if (lists_overflowed(stop_status_.data(), stop_status_.size(), stop_step))
        return retake_stop_after_overflow(request, next_steps, stop_step);
      note_list_status(stop_status_.data(), stop_status_.size());
      check_block_status(stop_status_.data(), stop_status_.size(), stop_step);
    }
    return stop_values(request, stop_positions_.get(), stop_step, side);
  }

  // A stop taken in turn: the same work as beside the steps, on the steps' stream over
  // the current positions, with one wait for all of it (the single calls wait once each;
  // the per-bead family's stop went from ~4 waits to 2, its list check being the other).
  StopValues take_stop(const StopRequest& request) override {
    if (request.indentation) return Engine::take_stop(request);
    DeviceGuard guard(device_);
    settle();
    const float4* pos = pos_[step_ & 1].get();
    enqueue_stop(request, pos, positions_version_, step_, stream_);
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
    return stop_values(request, pos, step_, stream_);
  }

  // A stop's work on `stream` over `pos` (the positions at `step`, version `version`): the
  // stability screen, the gathers, the energies and structure observables, and the
  // positions if asked for, all into page-locked memory. Nothing waits here.
  void enqueue_stop(const StopRequest& request, const float4* pos, std::uint64_t version, std::int64_t step,
                    cudaStream_t stream) {
    enqueue_screen(pos, stream);
    if (request.positions) enqueue_positions_to_host(pos, stream);
    if (!request.beads.empty() || request.tether_forces || request.plane_forces)
      enqueue_gather(request.beads, pos, version, stream);
    if (request.energies) {
      check_structure_ends(n_, request.end_first, request.end_last);
      evaluate(true, pos, step, stream);
      stop_energies_host_.resize(std::size_t(R_) * kReplicaOut);
      replica_out_.download(stop_energies_host_.data(), stop_energies_host_.size(), stream);
      enqueue_structure_observables(request.formed_ratio, request.end_first, request.end_last, pos, stream);
      stop_structure_host_.resize(std::size_t(R_) * kStructureOut);
      structure_out_.download(stop_structure_host_.data(), stop_structure_host_.size(), stream);
    }
  }

  void enqueue_positions_to_host(const float4* pos, cudaStream_t stream) {
    const std::size_t beads = std::size_t(n_) * R_;
    stop_positions_host_.resize(beads);
    ERMAK_CUDA(cudaMemcpyAsync(stop_positions_host_.data(), pos, beads * sizeof(float4), cudaMemcpyDeviceToHost,
                               stream));
  }

  // The values of the stop enqueue_stop() left, once its stream got there; a flagged
  // stop's positions (for the exact checks) come from `pos` too.
  StopValues stop_values(const StopRequest& request, const float4* pos, std::int64_t step, cudaStream_t stream) {
    StopValues values;
    values.may_be_unstable = screen_flag_host_[0] != 0;
    if (request.positions || values.may_be_unstable) {  // flagged: the exact checks need them
      if (!request.positions) {
        enqueue_positions_to_host(pos, stream);
        ERMAK_CUDA(cudaStreamSynchronize(stream));
      }
      copy_positions(stop_positions_host_.data(), values.positions);
      values.positions.step = step;
    }
    if (!request.beads.empty()) values.bead_positions = gathered_from_host(request.beads);
    // On the host from the stop's gathered beads, as tether_forces() and plane_forces() do.
    if (request.tether_forces)
      values.tether_forces = report_tether_forces(setup_, step, R_, gathered_from_host(tethered_beads_));
    if (request.plane_forces)
      values.plane_forces = report_plane_forces(setup_, step, R_, gathered_from_host(plane_tethered_beads_));
    if (request.energies) {
      values.energies = energy_terms_from(stop_energies_host_.data());
      values.structure = structure_from(stop_structure_host_.data());
    }
    return values;
  }

  // Launches `steps` steps; the block family with Philox noise returns before they are
  // done (settle() waits for them), the others when they are.
  void launch_steps(std::int64_t steps) {
    if (steps <= 0) return;
    new_status_array_ = true;
    std::int64_t s = step_;
    const std::int64_t end = step_ + steps;
    while (s < end) {
      const std::int64_t e = temperature_segment_end(s, end);
      const double kT = setup_.temperature.at_step(s);
      const auto coeff = physics::langevin_coefficients(setup_.langevin.timestep_tau, setup_.langevin.zeta, kT);
      // A stateful generator draws the noise of up to noise_ring steps ahead, then the
      // step kernels run those steps (docs/gpu.md#noise).
      const std::int64_t window = model_.noise ? model_.noise_ring : e - s;
      for (std::int64_t w = s; w < e; w += window) {
        const std::int64_t w_end = std::min(e, w + window);
        if (model_.noise) noise_->generate(w, int(w_end - w), 0, R_, noise_ring_.get(), model_.noise_ring);
        if (family_ == CudaKernelFamily::kBlock) advance_block(w, w_end, coeff, kT);
        else advance_perbead(w, w_end, coeff, kT);
      }
      if (model_.noise) noise_last_step_ = e - 1;
      s = e;
      step_ = s;
    }
    host_valid_ = false;
    ++positions_version_;
    ERMAK_CUDA(cudaGetLastError());
  }

  // Temperature is constant within a segment: it changes at multiples of every_steps.
  std::int64_t temperature_segment_end(std::int64_t s, std::int64_t end) const {
    const TemperatureSchedule& t = setup_.temperature;
    if (t.every_steps > 0 && t.increment_kcal_per_mol != 0.0) return std::min(end, (s / t.every_steps + 1) * t.every_steps);
    return end;
  }

  // Waits for steps still under way and checks that every block reached them; blocks whose
  // list rows overflowed on the way are run on to them now.
  void settle() {
    if (!steps_in_flight_) return;
    steps_in_flight_ = false;
    block_status_[status_parity_].download(status_host_.data(), status_host_.size(), stream_);
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
    note_list_status(status_host_.data(), status_host_.size());
    if (lists_overflowed(status_host_.data(), status_host_.size(), step_)) {
      finish_overflowed_blocks(pos_[step_ & 1].get(), step_);
      return;
    }
    check_block_status(status_host_.data(), status_host_.size(), step_);
  }

  // A block whose list rows overflowed stops there and says how many it needs.
  static bool lists_overflowed(const BlockStatus* status, std::size_t blocks, std::int64_t step) {
    for (std::size_t b = 0; b < blocks; ++b)
      if (status[b].done < step && status[b].needed_slots > 0) return true;
    return false;
  }

  // The list statistics of launches run ahead (their status counts the rebuilds since the
  // status was last uploaded, async_rebuilds_base_ those before).
  void note_list_status(const BlockStatus* status, std::size_t blocks) {
    if (block_.all_pairs) return;
    block_rebuilds_ = async_rebuilds_base_;
    block_pairs_ = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
      block_rebuilds_ += status[b].rebuilds;
      block_pairs_ += status[b].pairs;
    }
  }

  // An overflow in the steps before an overlapped stop: the stop's values are not of one
  // step, and the steps launched behind it started from them. Both are taken back: the
  // positions return to the stop's copy (the overflowed blocks' at the step where they
  // stopped), the rows grow, those blocks run on to the stop in turn (the noise is a
  // function of replica, bead and step, and rows are canonical: the same bits), and the
  // stop is taken in turn before the next steps are launched again.
  StopValues retake_stop_after_overflow(const StopRequest& request, std::int64_t next_steps, std::int64_t stop_step) {
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
    steps_in_flight_ = false;
    step_ = stop_step;
    const std::size_t beads = std::size_t(n_) * R_;
    ERMAK_CUDA(cudaMemcpyAsync(pos_[step_ & 1].get(), stop_positions_.get(), beads * sizeof(float4),
                               cudaMemcpyDeviceToDevice, stream_));
    host_valid_ = false;
    ++positions_version_;
    status_host_.assign(stop_status_.data(), stop_status_.data() + stop_status_.size());
    note_list_status(status_host_.data(), status_host_.size());
    finish_overflowed_blocks(pos_[step_ & 1].get(), step_);
    return Engine::stop_and_advance(request, next_steps);
  }

  // Blocks that stopped short of `end` (status_host_) run on to it in turn, segment by
  // segment of the temperature schedule, their positions read from and written to `pos`.
  void finish_overflowed_blocks(float4* pos, std::int64_t end) {
    std::int64_t from = end;
    int needed = 0;
    for (const auto& x : status_host_) {
      from = std::min<std::int64_t>(from, x.done);
      if (x.done < end) needed = std::max(needed, x.needed_slots);
    }
    if (needed > slots_) grow_slots(needed);  // reconfigures; positions are kept
    while (from < end) {
      const std::int64_t e = temperature_segment_end(from, end);
      run_block_in_turn(from, e, pos, pos);
      from = e;
    }
    status_step_ = -1;  // the next launch run ahead starts from a fresh status
    host_valid_ = false;
    ++positions_version_;
  }

  void check_block_status(const BlockStatus* status, std::size_t blocks, std::int64_t step) const {
    for (std::size_t b = 0; b < blocks; ++b)
      if (status[b].done != step)
        throw Error("CUDA block family: a block stopped at step " + std::to_string(status[b].done) + " before " +
                    std::to_string(step) + " without a reason");
  }

  std::vector<EnergyTerms> energies() override {
    DeviceGuard guard(device_);
    settle();
    evaluate(true);
    std::vector<double> out(std::size_t(R_) * kReplicaOut);
    replica_out_.download(out.data(), out.size(), stream_);
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
    return energy_terms_from(out.data());
  }

  std::vector<EnergyTerms> energy_terms_from(const double* out) const {
    std::vector<EnergyTerms> e(R_);
    for (std::int32_t r = 0; r < R_; ++r) {
      const double* o = &out[std::size_t(r) * kReplicaOut];
      e[r].fene = o[0]; e[r].native = o[1]; e[r].repulsive = o[2]; e[r].protocol = o[3];
    }
    return e;
  }

  std::vector<StructureObservables> structure_observables(double formed_ratio, std::int32_t end_first,
                                                          std::int32_t end_last) override {
    check_structure_ends(n_, end_first, end_last);
    DeviceGuard guard(device_);
    settle();
    enqueue_structure_observables(formed_ratio, end_first, end_last, pos_[step_ & 1].get(), stream_);
    std::vector<double> out(std::size_t(R_) * kStructureOut);
    structure_out_.download(out.data(), out.size(), stream_);
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
    return structure_from(out.data());
  }

  void enqueue_structure_observables(double formed_ratio, std::int32_t end_first, std::int32_t end_last,
                                     const float4* pos, cudaStream_t stream) {
    StructureLaunch L;
    L.m = model_;
    L.pos = pos;
    L.formed_ratio = formed_ratio;
    L.native_contacts = (long long)topology_.native_contacts.size();
    L.end_first = end_first;
    L.end_last = end_last;
    L.out = structure_out_.get();
    launch_structure_observables(L, stream);
  }

  std::vector<StructureObservables> structure_from(const double* out) const {
    std::vector<StructureObservables> result(R_);
    for (std::int32_t r = 0; r < R_; ++r) {
      const double* o = &out[std::size_t(r) * kStructureOut];
      result[r] = {o[0], o[1], o[2]};
    }
    return result;
  }

  State forces() override {
    DeviceGuard guard(device_);
    settle();
    evaluate(false);
    State out(n_, R_);
    out.step = step_;
    download_positions(force_.get(), out);
    return out;
  }

  std::vector<Vec3d> tether_forces() override {
    if (host_valid_ || setup_.tethers.empty()) return report_tether_forces(setup_, state());
    return report_tether_forces(setup_, step_, R_, gathered_positions(tethered_beads_));
  }

  std::vector<Vec3f> bead_positions(const std::vector<std::int32_t>& beads) override {
    check_bead_indices(n_, beads);
    return host_valid_ ? host_.positions_of(beads) : gathered_positions(beads);
  }

  bool may_be_unstable() override {
    DeviceGuard guard(device_);
    settle();
    enqueue_screen(pos_[step_ & 1].get(), stream_);
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
    return screen_flag_host_[0] != 0;
  }

  // The screen of `pos`; its flag lands in screen_flag_host_.
  void enqueue_screen(const float4* pos, cudaStream_t stream) {
    if (screen_flag_.size() == 0) {  // first call
      bond_screen_.upload(make_bond_screen(topology_.bonds, setup_.sop.fene_R0_A), stream);
      screen_flag_.resize(1);
      screen_flag_host_.resize(1);
    }
    screen_flag_.fill_zero(stream);
    launch_stability_screen(pos, n_, R_, bond_screen_.get(), int(topology_.bonds.size()), screen_flag_.get(), stream);
    screen_flag_.download(screen_flag_host_.data(), 1, stream);
  }

  std::vector<double> plane_forces() override {
    if (host_valid_ || setup_.plane_tethers.empty()) return report_plane_forces(setup_, state());
    return report_plane_forces(setup_, step_, R_, gathered_positions(plane_tethered_beads_));
  }

  std::vector<IndentationStatus> indentation_status() override {
    std::vector<IndentationStatus> out;
    const Indentation& ind = setup_.indentation;
    if (!ind.enabled) return out;
    DeviceGuard guard(device_);
    settle();
    evaluate(false);  // refreshes the molecule's force on the tip
    std::vector<double> tip(3 * std::size_t(R_)), molecule(3 * std::size_t(R_));
    std::vector<long long> turn(R_);
    tip_.download(tip.data(), tip.size(), stream_);
    molecule_.download(molecule.data(), molecule.size(), stream_);
    turnaround_.download(turn.data(), turn.size(), stream_);
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
    const double h = setup_.langevin.timestep_tau;
    for (std::int32_t r = 0; r < R_; ++r) {
      IndentationStatus st;
      st.travel_A = indentation_travel_A(ind, step_, turn[r], h);
      st.base_A = ind.move_surface ? ind.base_start_A : ind.base_start_A + indentation_travel_A(ind, step_, turn[r], h) * ind.direction;
      st.tip_A = {tip[3 * r], tip[3 * r + 1], tip[3 * r + 2]};
      st.spring_force = ind.spring_kcal_per_mol_A2 * (st.base_A - st.tip_A);
      st.molecule_force = {molecule[3 * r], molecule[3 * r + 1], molecule[3 * r + 2]};
      double unused = 0;
      st.surface_force = tip_surface_force<false>(ind, st.tip_A, step_, turn[r], h, unused);
      st.turnaround_step = turn[r];
      out.push_back(st);
    }
    return out;
  }

  std::vector<std::uint8_t> noise_state() override {
    DeviceGuard guard(device_);
    settle();
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
    return noise_->save_state(noise_last_step_);
  }

  void restore_noise_state(const std::vector<std::uint8_t>& bytes) override {
    DeviceGuard guard(device_);
    settle();
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
    noise_->restore_state(bytes);
    noise_last_step_ = -1;  // the restored bytes hold the last steps
  }

  std::string noise_name() const override { return noise_->name(); }

  std::vector<double> protocol_state() override {
    DeviceGuard guard(device_);
    settle();
    std::vector<double> tip(3 * std::size_t(R_));
    std::vector<long long> turn(R_);
    tip_.download(tip.data(), tip.size(), stream_);
    turnaround_.download(turn.data(), turn.size(), stream_);
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
    std::vector<double> out;
    for (std::int32_t r = 0; r < R_; ++r) {
      out.push_back(tip[3 * r]); out.push_back(tip[3 * r + 1]); out.push_back(tip[3 * r + 2]);
      out.push_back(double(turn[r]));
    }
    return out;
  }

  void restore_protocol_state(const std::vector<double>& st) override {
    DeviceGuard guard(device_);
    settle();
    if (st.size() != std::size_t(R_) * 4)
      throw Error("checkpoint: protocol state has " + std::to_string(st.size()) + " values, expected " +
                  std::to_string(R_ * 4));
    std::vector<double> tip(3 * std::size_t(R_));
    std::vector<long long> turn(R_);
    for (std::int32_t r = 0; r < R_; ++r) {
      tip[3 * r] = st[4 * r]; tip[3 * r + 1] = st[4 * r + 1]; tip[3 * r + 2] = st[4 * r + 2];
      turn[r] = std::int64_t(st[4 * r + 3]);
    }
    tip_.upload(tip.data(), tip.size(), stream_);
    turnaround_.upload(turn.data(), turn.size(), stream_);
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
  }

  MinimizeResult minimize(std::int64_t max_iterations, double tolerance, double max_displacement_A) override {
    DeviceGuard guard(device_);
    settle();
    struct Replica {
      double step_A = 0, energy = 0;
      MinimizeResult result;
      bool active = true;
    };
    std::vector<Replica> rep(R_);
    for (auto& x : rep) x.step_A = max_displacement_A;
    std::vector<double> out(std::size_t(R_) * kReplicaOut);
    auto evaluate_and_fetch = [&]() {
      evaluate(true);
      replica_out_.download(out.data(), out.size(), stream_);
      ERMAK_CUDA(cudaStreamSynchronize(stream_));
    };
    auto total = [&](std::int32_t r) {
      const double* o = &out[std::size_t(r) * kReplicaOut];
      return o[0] + o[1] + o[2] + o[3];
    };
    auto max_force2 = [&](std::int32_t r) { return out[std::size_t(r) * kReplicaOut + 4]; };
    float4* pos = pos_[step_ & 1].get();
    float4* save = pos_[(step_ + 1) & 1].get();
    std::vector<int> mode(R_, 0);
    std::vector<float> scale(R_, 0.0f);
    evaluate_and_fetch();
    for (std::int32_t r = 0; r < R_; ++r) rep[r].energy = total(r);
    for (;;) {
      bool any = false;
      for (std::int32_t r = 0; r < R_; ++r) {
        Replica& x = rep[r];
        mode[r] = 0;
        if (!x.active) continue;
        if (x.result.iterations >= max_iterations) { x.active = false; continue; }
        x.result.max_force_kcal_per_mol_A = std::sqrt(max_force2(r));
        if (x.result.max_force_kcal_per_mol_A < tolerance) { x.result.converged = true; x.active = false; continue; }
        // Steepest descent with the largest bead move limited to step_A (CpuEngine::minimize_replica).
        scale[r] = float(x.step_A / x.result.max_force_kcal_per_mol_A);
        mode[r] = 1;
        any = true;
      }
      if (!any) break;
      min_mode_.upload(mode.data(), mode.size(), stream_);
      min_scale_.upload(scale.data(), scale.size(), stream_);
      launch_minimize_move(model_, pos, save, force_.get(), min_mode_.get(), min_scale_.get(), stream_);
      positions_changed();
      evaluate_and_fetch();
      bool any_restore = false;
      for (std::int32_t r = 0; r < R_; ++r) {
        if (mode[r] != 1) { mode[r] = 0; continue; }
        Replica& x = rep[r];
        const double trial = total(r);
        if (std::isfinite(trial) && trial <= x.energy) {
          x.energy = trial;
          x.step_A = std::min(x.step_A * 1.2, max_displacement_A);
          ++x.result.iterations;
          mode[r] = 0;
        } else {
          x.step_A *= 0.5;
          mode[r] = 2;
          any_restore = true;
        }
      }
      if (any_restore) {
        min_mode_.upload(mode.data(), mode.size(), stream_);
        launch_minimize_move(model_, pos, save, force_.get(), min_mode_.get(), min_scale_.get(), stream_);
        positions_changed();
        evaluate_and_fetch();
        for (std::int32_t r = 0; r < R_; ++r) {
          if (mode[r] != 2) continue;
          Replica& x = rep[r];
          if (x.step_A < 1e-7) x.active = false;
          else ++x.result.iterations;
        }
      }
    }
    host_valid_ = false;
    ++positions_version_;
    MinimizeResult result;
    result.converged = true;
    for (const auto& x : rep) {
      result.iterations = std::max(result.iterations, x.result.iterations);
      result.max_force_kcal_per_mol_A = std::max(result.max_force_kcal_per_mol_A, x.result.max_force_kcal_per_mol_A);
      result.converged = result.converged && x.result.converged;
    }
    return result;
  }

  State neighbor_reference() override {
    DeviceGuard guard(device_);
    settle();
    if (family_ == CudaKernelFamily::kBlock) {
      // Each launch builds its lists at its first step: the current positions.
      State ref = state();
      return ref;
    }
    const Control c = fetch_control();
    if (c.stale_since <= c.step) return State(state());
    State ref(n_, R_);
    ref.step = step_;
    download_positions(ref_.get(), ref);
    return ref;
  }

  void restore_neighbor_reference(const State& reference) override {
    DeviceGuard guard(device_);
    settle();
    if (reference.bead_count != n_ || reference.replica_count != R_)
      throw Error("checkpoint: the neighbour-list reference has the wrong shape");
    rebuilds_offset_ = 0;
    if (family_ == CudaKernelFamily::kBlock) {
      // Rows are canonical (ascending partners, zero beyond the cutoff): the trajectory
      // does not depend on where they were built, so there is nothing to restore.
      block_rebuilds_ = 0;
      status_step_ = -1;  // the count starts again from a fresh status
      return;
    }
    const int needed = needed_slots_for(reference);
    if (needed > slots_) {
      slots_ = needed;
      configure_and_allocate();
    }
    float4* scratch = pos_[(step_ + 1) & 1].get();
    upload_positions(reference, scratch);
    for (int attempt = 0;; ++attempt) {
      launch_mark_stale(ctrl_.get(), stream_);
      launch_rebuild(perbead_, stream_, scratch);
      const Control c = fetch_control();
      if (c.needed_slots <= slots_) break;
      if (attempt > 4) throw Error("CUDA: the neighbour list could not be built (rows keep overflowing)");
      grow_slots(c.needed_slots);  // keeps the positions buffers, scratch included
    }
    rebuilds_offset_ = fetch_control().rebuilds;
  }

  EngineStats stats() const override {
    EngineStats s;
    if (family_ == CudaKernelFamily::kBlock) {
      s.neighbor_rebuilds = block_rebuilds_;
      s.neighbor_pairs = block_pairs_;
    } else {
      s.neighbor_rebuilds = (perbead_rebuilds_ - rebuilds_offset_) * R_;
      ERMAK_CUDA(cudaEventSynchronize(pairs_counted_));
      s.neighbor_pairs = std::int64_t(pairs_host_[0] / 2);
    }
    return s;
  }

  // Device memory this engine holds (for docs/gpu.md and messages).
  std::size_t device_bytes() const { return allocated_bytes_; }

 private:
  // ---- setup ----

  void validate_setup() {
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
  }

  CudaKernelFamily choose_family(CudaKernelFamily requested) const {
    if (requested == CudaKernelFamily::kBlock) {
      if (n_ > kBlockMaxBeads)
        throw Error("CUDA kernel family \"block\" handles at most " + std::to_string(kBlockMaxBeads) +
                    " beads per replica; this system has " + std::to_string(n_) +
                    " (use ERMAK_CUDA_KERNEL=perbead or auto)");
      return requested;
    }
    if (requested == CudaKernelFamily::kPerBead) return requested;
    // Auto (docs/gpu.md#kernel-families): a block per replica wins while one SM per
    // replica is enough work, or there are enough replicas to fill the GPU.
    if (n_ <= kAutoBlockAlwaysBeads) return CudaKernelFamily::kBlock;
    if (n_ <= kAutoBlockMaxBeads && R_ >= std::max(1, prop_.multiProcessorCount / 2)) return CudaKernelFamily::kBlock;
    return CudaKernelFamily::kPerBead;
  }

  void upload_model() {
    const Topology& t = topology_;
    const HostEll bonds = make_ell(n_, t.bonds, [](const Bond& b, float& r0, float& eh) { r0 = b.r0_A; eh = 0.0f; });
    const HostEll natives = make_ell(n_, t.native_contacts,
                                     [](const NativeContact& c, float& r0, float& eh) { r0 = c.r0_A; eh = c.eh_kcal_per_mol; });
    bond_partner_.upload(bonds.partner); bond_r0_.upload(bonds.r0); bond_count_.upload(bonds.count);
    native_partner_.upload(natives.partner); native_r0_.upload(natives.r0); native_eh_.upload(natives.eh);
    native_count_.upload(natives.count);
    std::vector<std::uint8_t> fixed(n_, 0);
    for (std::int32_t b : setup_.fixed_beads) fixed[b] = 1;
    fixed_.upload(fixed);
    int repulsive_slots = 0;
    if (n_ <= all_pairs_max_beads()) {
      // The fixed rows of the all-pairs mode: every bead that repels i, ascending.
      std::vector<std::vector<bool>> excluded(n_, std::vector<bool>(n_, false));
      for (int i = 0; i < n_; ++i) excluded[i][i] = true;
      for (const Bond& b : t.bonds) excluded[b.i][b.j] = excluded[b.j][b.i] = true;
      for (const NativeContact& c : t.native_contacts) excluded[c.i][c.j] = excluded[c.j][c.i] = true;
      std::vector<std::uint8_t> count(n_, 0);
      for (int i = 0; i < n_; ++i)
        for (int j = 0; j < n_; ++j) count[i] += !excluded[i][j];
      for (int i = 0; i < n_; ++i) repulsive_slots = std::max(repulsive_slots, int(count[i]));
      std::vector<std::uint8_t> partners(std::size_t(std::max(repulsive_slots, 1)) * n_, 0);
      for (int i = 0; i < n_; ++i) {
        int k = 0;
        for (int j = 0; j < n_; ++j)
          if (!excluded[i][j]) partners[std::size_t(k++) * n_ + i] = std::uint8_t(j);
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
    m.fene = {setup_.sop.fene_k_kcal_per_mol_A2, setup_.sop.fene_R0_A};
    m.repulsion = {setup_.sop.repulsion_eps_kcal_per_mol, setup_.sop.repulsion_sigma_A * setup_.sop.repulsion_sigma_A,
                   setup_.sop.pair_cutoff_A * setup_.sop.pair_cutoff_A};
    m.fixed = fixed_.get();
    m.repulsive_partners = repulsive_partners_.get();
    m.repulsive_count = repulsive_count_.get();
    m.repulsive_slots = repulsive_slots;
    m.slot_bead = slot_bead_.get();
    m.bead_slot = bead_slot_.get();
    m.philox_keys = rng::philox_keys(setup_.seed);
    const float list_cutoff = float(setup_.sop.pair_cutoff_A + setup_.neighbor_skin_A);
    m.list_cutoff2 = list_cutoff * list_cutoff;
    m.half_skin2 = float(0.25 * setup_.neighbor_skin_A * setup_.neighbor_skin_A);
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
  void upload_tile_tables() {
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
  void setup_noise() {
    noise_ = std::make_unique<DeviceNoise>(setup_.rng, setup_.rng_layout, setup_.seed, R_, n_, stream_);
    if (noise_->is_philox()) return;
    const std::size_t per_step = std::size_t(R_) * n_ * sizeof(float4);
    const int ring = int(std::clamp<std::size_t>(kNoiseRingBytes / per_step, 1, kNoiseRingMaxSteps));
    noise_ring_.resize(std::size_t(ring) * R_ * n_);
    model_.noise = noise_ring_.get();
    model_.noise_ring = ring;
  }

  // Largest full row (partners within the list cutoff, not bonded/native) in any replica
  // of `state`, with room to spare; n − 1 is always enough.
  // Row capacity that can never overflow: n − 1 partners; the block family's lanes take
  // the partners j ≡ lane (mod lanes) at slots k·lanes + lane, which needs round_up(n, 8).
  // A cluster row holds at most every bead of the replica.
  int slot_cap() const {
    if (family_ == CudaKernelFamily::kBlock || use_cluster_rows()) return round_up(std::max(1, n_), 8);
    return std::max(1, n_ - 1);
  }

  // Cluster rows: the union of 8 beads' partners, ~1.5 of one bead's row for PF8; twice
  // the largest bead row to start with (a row that overflows grows, as any other).
  int layout_slots(int bead_slots) const {
    return use_cluster_rows() ? std::min(slot_cap(), round_up(2 * bead_slots, 8)) : bead_slots;
  }

  // ERMAK_CUDA_BLOCK_SLOTS: the block family's list rows start at this many slots, and a
  // new state does not raise them, so that rows overflow and grow in the steps (a
  // diagnostic, for the tests of that path); 0 = unset.
  int forced_block_slots() const {
    if (family_ != CudaKernelFamily::kBlock) return 0;
    const int forced = env_int("ERMAK_CUDA_BLOCK_SLOTS", 0);
    if (forced < 0) throw Error("ERMAK_CUDA_BLOCK_SLOTS must be 0 or positive");
    return forced > 0 ? std::min(slot_cap(), round_up(forced, 8)) : 0;
  }

  int needed_slots_for(const State& state) const {
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
                        float(setup_.sop.pair_cutoff_A + setup_.neighbor_skin_A), scratch, list);
      std::fill(count.begin(), count.end(), 0);
      for_each_listed_pair(list, [&](std::int32_t i, std::int32_t j) { ++count[i]; ++count[j]; });
      for (int c : count) worst = std::max(worst, c);
    }
    return layout_slots(std::min(cap, round_up(int(worst * 1.25) + 16, 8)));
  }

  int initial_slots() const {
    if (const int forced = forced_block_slots()) return forced;
    if (n_ <= 256) return slot_cap();
    if (!topology_.native_positions_A.empty()) {
      State native(n_, 1);
      for (std::int32_t i = 0; i < n_; ++i) native.set_position(0, i, vec_cast<float>(topology_.native_positions_A[i]));
      return needed_slots_for(native);
    }
    return std::min(slot_cap(), 256);
  }

  void grow_slots(int needed) {
    slots_ = std::min(slot_cap(), std::max(slots_ + 8, round_up(int(needed * 1.2) + 8, 8)));
    configure_and_allocate();
  }

  // ---- configuration and memory ----

  struct BlockConfig {
    int group = 1, threads = 32, beads_per_thread = 1, lanes = 1;
    int force_threads = 32, noise_threads = 0;
    bool rows_in_shared = true;
    bool all_pairs = false;
    bool tiles = false;  // each pair once in tiles of 4 × 4 beads (all pairs, lanes = 1)
    bool tile_beads_apart = false;  // the tiles' bead threads after their tile threads
  };

  // Per-bead family, indentation: the tip's work in a kernel of its own before each step
  // kernel from this many beads in the run (measured on an H100: CCMV, 28 620 beads,
  // +13 %, 16 PF8 +5 %, 4 CCMV +4 %; PF8 × 1, 6928 beads, −8 %: the kernel boundary costs
  // more than the step kernel's registers gain there; docs/benchmarks.md).
  static constexpr long long kTipKernelMinBeads = 16384;

  // Per-bead family: cluster rows (docs/gpu.md#cluster-rows) for runs of at least this
  // many beads in all, a row per bead otherwise; ERMAK_CUDA_CLUSTER_ROWS=0|1 overrides.
  // Measured on an H100 with the step kernel's cluster tiles, split as
  // choose_cluster_split says (docs/benchmarks.md#cluster-tiles), against rows per bead:
  // one PF8 (6928 beads) +8.6 %, PF8 × 2 +36 %, × 16 +38 %, one CCMV capsid (28 620) +15 %,
  // four capsids as one structure +20 %; but one fibrinogen (2964 beads) −1.6 %. The
  // threshold lies between those two single structures (not measured closer).
  static constexpr long long kClusterRowsMinBeads = 4096;
  bool use_cluster_rows() const { return cluster_rows_mode_; }
  bool choose_cluster_rows() const {
    if (family_ != CudaKernelFamily::kPerBead || n_ > kClusterPartnerMask) return false;
    const int forced = env_int("ERMAK_CUDA_CLUSTER_ROWS", -1);
    if (forced != -1 && forced != 0 && forced != 1) throw Error("ERMAK_CUDA_CLUSTER_ROWS must be 0 or 1");
    if (forced != -1) return forced == 1;
    return (long long)n_ * R_ >= kClusterRowsMinBeads;
  }

  // Per-bead family: cells of the list cutoff / this (the row builds scan the cells within
  // the cutoff, a tighter shape with smaller cells); ERMAK_CUDA_CELL_DIVISIONS=1|2|3.
  int cell_divisions() const {
    const int v = env_int("ERMAK_CUDA_CELL_DIVISIONS", 2);
    if (v < 1 || v > 3) throw Error("ERMAK_CUDA_CELL_DIVISIONS must be 1, 2 or 3");
    return v;
  }

  // Per-bead family: the cell sort by one cooperative grid over all replicas
  // (cell_list_kernels.cu) instead of one block per replica; ERMAK_CUDA_CELL_SORT=grid|block
  // overrides.
  bool use_grid_cell_sort() const {
    if (const char* v = std::getenv("ERMAK_CUDA_CELL_SORT"); v && *v) {
      const std::string mode = v;
      if (mode == "grid") return true;
      if (mode == "block") return false;
      throw Error("environment variable ERMAK_CUDA_CELL_SORT=\"" + mode + "\": must be grid or block");
    }
    return true;
  }

  bool tip_kernel() const {
    if (!setup_.indentation.enabled) return false;
    const int forced = env_int("ERMAK_CUDA_TIP_KERNEL", -1);
    if (forced != -1 && forced != 0 && forced != 1) throw Error("ERMAK_CUDA_TIP_KERNEL must be 0 or 1");
    return forced == -1 ? (long long)n_ * R_ >= kTipKernelMinBeads : forced == 1;
  }

  // Small systems need no list at all (docs/gpu.md#kernel-families).
  bool use_all_pairs() const {
    if (n_ > all_pairs_max_beads()) return false;
    const char* v = std::getenv("ERMAK_CUDA_BLOCK_ALLPAIRS");
    return !(v && std::string(v) == "0");
  }

  // The largest block the variants with S lanes per bead are compiled for (block_kernel_lanes.cu):
  // 1024 threads at S = 2 and 4 — one replica of up to 336 or 200 beads — else 512. (S = 8
  // in 1024 threads lost to S = 4 in 512: ubiquitin × 1 −1.3 %, indented −18 %,
  // docs/benchmarks.md#several-lanes-per-bead-in-blocks-of-up-to-1024-threads.)
  static int max_block_threads(int lanes) { return lanes == 2 || lanes == 4 ? 1024 : 512; }

  // Whether one replica at `lanes` lanes per bead, with its noise threads (one per bead,
  // their own warps), fits in one block of those variants.
  bool one_replica_fits(int lanes) const {
    return round_up(n_ * lanes, 32) + round_up(n_, 32) <= max_block_threads(lanes);
  }

  // Threads that fill the GPU with a short critical path: about two resident "waves".
  long long thread_budget() const { return 2LL * prop_.multiProcessorCount * 1024; }

  // The tiles layout (docs/gpu.md#tiles), for replicas of 8 to 64 beads in the all-pairs
  // mode without indentation: where the lane rule gives 2 lanes per bead, or 4 with at
  // least thread_budget / 32 beads in the run — on an H100 WW × 249 to × 1987. Measured
  // there faster than the lanes kernels (WW × 300 +8 %, × 10³ +17 %, × 1987 +50 %); below
  // (WW × 200, 4 lanes: −26 %) and above (WW × 3000, 1 lane: −3 %) slower
  // (docs/benchmarks.md#the-tiles-layout). ERMAK_CUDA_BLOCK_TILES=0|1 overrides (1:
  // wherever it applies; a forced lane count alone keeps the lanes kernels).
  bool use_tiles(const BlockConfig& c, bool lanes_forced) const {
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
  bool use_tile_beads_apart() const {
    const int forced = env_int("ERMAK_CUDA_TILE_BEADS_APART", -1);
    if (forced != -1 && forced != 0 && forced != 1) throw Error("ERMAK_CUDA_TILE_BEADS_APART must be 0 or 1");
    if (forced != -1) return forced == 1;
    return (long long)tile_threads_per_replica(n_, true) * R_ <= thread_budget() / 3;
  }

  BlockConfig block_config() const {
    BlockConfig c;
    c.all_pairs = use_all_pairs();
    const long long total = (long long)n_ * R_;
    const int forced = env_int("ERMAK_CUDA_BLOCK_LANES", 0);
    const int forced_group = env_int("ERMAK_CUDA_BLOCK_GROUP", 0);  // replicas per block, for measurements
    if (forced) {
      if (forced != 1 && forced != 2 && forced != 4 && forced != 8) throw Error("ERMAK_CUDA_BLOCK_LANES must be 1, 2, 4 or 8");
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

  BlockLaunch block_launch(const BlockConfig& c, bool rows_in_shared) const {
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

  std::size_t bytes_needed() const {
    const std::size_t beads = std::size_t(n_) * R_;
    std::size_t b = 2 * beads * sizeof(float4)     // positions
                    + beads * sizeof(float4)       // forces (evaluation)
                    + beads * 4 * sizeof(double)   // bead energies
                    + std::size_t(R_) * (kReplicaOut + kStructureOut + 16) * sizeof(double);
    if (setup_.indentation.enabled) b += beads * 3 * sizeof(double);
    if (noise_) b += noise_->device_bytes() + noise_ring_.bytes();
    if (family_ == CudaKernelFamily::kBlock) {
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
           + 3 * beads * sizeof(int)                   // cells of beads, cell contents
           + std::size_t(R_) * (2 * cap + 1) * sizeof(int) + std::size_t(R_) * sizeof(CellGrid)
           + std::size_t(R_) * (6 + cell_scan_tiles(int(cap))) * sizeof(int)  // cooperative cell sort
           + std::size_t(R_) * n_ * 3 * sizeof(double)    // tip partials (bounded by beads)
           + (tip_kernel() ? beads * 6 * sizeof(float) : 0);  // tip and surface forces
    }
    return b;
  }

  // 16-bit partner indices while they fit (ERMAK_CUDA_ROWS32=1 forces 32-bit, for tests
  // and comparisons).
  bool perbead_rows16() const { return !use_cluster_rows() && n_ <= 65536 && env_int("ERMAK_CUDA_ROWS32", 0) == 0; }
  std::size_t perbead_row_entry_bytes() const { return perbead_rows16() ? 2 : 4; }
  std::size_t perbead_rows() const { return std::size_t(R_) * (use_cluster_rows() ? cluster_count(n_) : n_); }
  std::size_t row_entries() const { return perbead_rows() * std::size_t(slots_); }

  std::size_t shared_budget() const {
    // Leave room for two blocks per SM where possible; never above the opt-in limit.
    return std::min<std::size_t>(block_max_shared_bytes(device_), 110 * 1024);
  }

  // (Re)allocates everything that depends on slots_ and the family; keeps positions.
  void check_memory(std::size_t need) const {
    std::size_t free_bytes = 0, total_bytes = 0;
    ERMAK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t have = free_bytes + allocated_bytes_;
    if (need > have * 97 / 100)
      throw Error("backend \"cuda\": this run needs " + format_bytes(double(need)) + " of GPU memory (" +
                  std::to_string(R_) + " replicas × " + std::to_string(n_) + " beads, " +
                  format_bytes(double(need) / (double(n_) * R_)) + " per bead with " + std::to_string(slots_) +
                  " list slots per bead), but GPU " + std::to_string(device_) + " (" + prop_.name + ") has " +
                  format_bytes(double(have)) + " available of " + format_bytes(double(total_bytes)) +
                  "; use fewer replicas or another GPU");
  }

  void configure_and_allocate() {
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
    if (family_ == CudaKernelFamily::kBlock) {
      block_ = block_config();
      block_.rows_in_shared = block_shared_bytes(block_launch(block_, true)) <= shared_budget();
      BlockLaunch L = block_launch(block_, block_.rows_in_shared);
      if (block_shared_bytes(L) > block_max_shared_bytes(device_))
        throw Error("CUDA block family: a block of " + std::to_string(block_.group) + " replica(s) × " +
                    std::to_string(n_) + " beads needs " + format_bytes(double(block_shared_bytes(L))) +
                    " of shared memory, more than this GPU offers (" +
                    format_bytes(double(block_max_shared_bytes(device_))) + "); use ERMAK_CUDA_KERNEL=perbead");
      const std::size_t blocks = std::size_t(block_count(L));
      if (!block_.rows_in_shared && !block_.all_pairs) block_rows_.resize(blocks * std::size_t(slots_) * block_.group * n_);
      else block_rows_.release();
      block_status_[0].resize(blocks);
      block_status_[1].resize(blocks);
      status_step_ = -1;
      // Launches run ahead and overlapped stops (stop_and_advance) where the noise is drawn
      // in the step (Philox: a stateful generator's ring is refilled between launches).
      // With lists, not under indentation: a launch whose rows overflow is taken back to
      // the stop's positions, which do not hold the tips. ERMAK_OVERLAP_STOPS=0 turns it
      // off (docs/gpu.md#what-overlaps-the-steps).
      async_steps_ = !model_.noise && (block_.all_pairs || !setup_.indentation.enabled) &&
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

  // Lanes per bead by row length; one round (a warp serves 32/lanes beads) while the run
  // fits in the thread budget (latency), else lanes rounds of 32/lanes (throughput).
  void choose_perbead_lanes(PerBeadLaunch& L) const {
    L.m = model_;
    int lanes = slots_ >= 192 ? 16 : slots_ >= 96 ? 8 : slots_ >= 24 ? 4 : 2;
    const int forced = env_int("ERMAK_CUDA_LANES", 0);
    if (forced) {
      if (forced != 2 && forced != 4 && forced != 8 && forced != 16) throw Error("ERMAK_CUDA_LANES must be 2, 4, 8 or 16");
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
    const int programmatic = env_int("ERMAK_CUDA_PDL", 1);
    if (programmatic != 0 && programmatic != 1) throw Error("ERMAK_CUDA_PDL must be 0 or 1");
    L.programmatic_steps = programmatic == 1;
  }

  // Cluster tiles: warps per cluster (docs/gpu.md#cluster-tiles), by the run's clusters
  // per multiprocessor: 4 below 4, 2 below 32, else 1; ERMAK_CUDA_CLUSTER_SPLIT=1|2|4
  // overrides. Measured on an H100 (132 SMs; docs/benchmarks.md#cluster-tiles): 371
  // clusters (one fibrinogen) best at 4; 866 (one PF8), 1484, 1732, 3578 (one CCMV) at 2
  // (+3 to +21 % against 1); 3464 (PF8 × 4) 1 and 2 alike; 5936 and 13 856 (PF8 × 16)
  // at 1 (−5 %, −12 % with 2). More warps hide the latency of short runs; more shares
  // cost a barrier and a sum per cluster, and split rows of few rounds each.
  static constexpr int kClusterSplit4BelowPerSM = 4, kClusterSplit2BelowPerSM = 32;
  int choose_cluster_split() const {
    const int forced = env_int("ERMAK_CUDA_CLUSTER_SPLIT", 0);
    if (forced != 0 && forced != 1 && forced != 2 && forced != 4) throw Error("ERMAK_CUDA_CLUSTER_SPLIT must be 1, 2 or 4");
    if (forced) return forced;
    const long long clusters = (long long)cluster_count(n_) * R_, sms = prop_.multiProcessorCount;
    if (clusters < kClusterSplit4BelowPerSM * sms) return 4;
    if (clusters < kClusterSplit2BelowPerSM * sms) return 2;
    return 1;
  }

  void capture_graph() {
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

  void destroy_graph() {
    if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
    graph_exec_ = nullptr;
  }

  void release() noexcept {
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
  }

  // ---- positions ----

  void upload_positions(const State& s, float4* dst) {
    staging_.resize(std::size_t(n_) * R_);
    for (std::size_t k = 0; k < staging_.size(); ++k) staging_[k] = make_float4(s.x[k], s.y[k], s.z[k], 0.0f);
    ERMAK_CUDA(cudaMemcpyAsync(dst, staging_.data(), staging_.size() * sizeof(float4), cudaMemcpyHostToDevice, stream_));
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
  }

  void download_positions(const float4* src, State& s) {
    staging_.resize(std::size_t(n_) * R_);
    ERMAK_CUDA(cudaMemcpyAsync(staging_.data(), src, staging_.size() * sizeof(float4), cudaMemcpyDeviceToHost, stream_));
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
    copy_positions(staging_.data(), s);
  }

  // Host float4 [R·n] into `s` (reshaped if needed; its step is left as it is).
  void copy_positions(const float4* host, State& s) const {
    if (s.bead_count != n_ || s.replica_count != R_) s = State(n_, R_);
    for (std::size_t k = 0; k < std::size_t(n_) * R_; ++k) { s.x[k] = host[k].x; s.y[k] = host[k].y; s.z[k] = host[k].z; }
  }

  void positions_changed() {
    host_valid_ = false;
    ++positions_version_;
    if (family_ == CudaKernelFamily::kPerBead) launch_mark_stale(ctrl_.get(), stream_);
  }

  // ---- report stops without all positions (stop_kernels.cu) ----

  // Positions of `beads` in every replica, [r · beads.size() + k], from one gather of every
  // bead a stop has asked for so far and the protocols' beads (a stop's calls for rows,
  // tether and plane forces share one launch and one copy per positions version).
  std::vector<Vec3f> gathered_positions(const std::vector<std::int32_t>& beads) {
    DeviceGuard guard(device_);
    settle();
    if (enqueue_gather(beads, pos_[step_ & 1].get(), positions_version_, stream_))
      ERMAK_CUDA(cudaStreamSynchronize(stream_));
    return gathered_from_host(beads);
  }

  // Gathers the beads of `pos`, positions version `version`, into gather_host_ unless it
  // holds them already; true when a copy was enqueued.
  bool enqueue_gather(const std::vector<std::int32_t>& beads, const float4* pos, std::uint64_t version,
                      cudaStream_t stream) {
    // The protocols' beads are in every gather, so that a stop's rows and forces need one.
    for (const auto* list : {&tethered_beads_, &plane_tethered_beads_, &beads})
      for (const std::int32_t b : *list) {
        const auto at = std::lower_bound(gather_list_.begin(), gather_list_.end(), b);
        if (at == gather_list_.end() || *at != b) gather_list_.insert(at, b);
      }
    const std::size_t k = gather_list_.size();
    const bool grew = gather_beads_.size() != k;  // the list only grows; the first call uploads it
    if (!grew && gathered_version_ == version) return false;
    if (grew) {  // from pinned memory: a pageable upload would wait for the steps under way
      gather_beads_host_.resize(k);
      std::copy(gather_list_.begin(), gather_list_.end(), gather_beads_host_.data());
      gather_beads_.resize(k);
      gather_beads_.upload(gather_beads_host_.data(), k, stream);
    }
    gather_out_.resize(k * std::size_t(R_));
    gather_host_.resize(k * std::size_t(R_));
    launch_gather_beads(pos, n_, R_, gather_beads_.get(), int(k), gather_out_.get(), stream);
    gather_out_.download(gather_host_.data(), k * std::size_t(R_), stream);
    gathered_version_ = version;
    return true;
  }

  // The beads' positions from the last gather, [r · beads.size() + m].
  std::vector<Vec3f> gathered_from_host(const std::vector<std::int32_t>& beads) const {
    const std::size_t k = gather_list_.size();
    std::vector<std::size_t> slot(beads.size());
    for (std::size_t m = 0; m < beads.size(); ++m)
      slot[m] = std::size_t(std::lower_bound(gather_list_.begin(), gather_list_.end(), beads[m]) - gather_list_.begin());
    std::vector<Vec3f> out(beads.size() * std::size_t(R_));
    for (std::size_t r = 0; r < std::size_t(R_); ++r)
      for (std::size_t m = 0; m < beads.size(); ++m) {
        const float4 p = gather_host_[r * k + slot[m]];
        out[r * beads.size() + m] = {p.x, p.y, p.z};
      }
    return out;
  }

  // ---- block family ----

  void advance_block(std::int64_t s, std::int64_t e, physics::LangevinCoefficients coeff, double kT) {
    if (!async_steps_) {
      status_host_.assign(std::size_t(block_count(block_launch(block_, block_.rows_in_shared))), BlockStatus{});
      for (auto& x : status_host_) x.done = s;
      run_block_in_turn(e, pos_[s & 1].get(), pos_[e & 1].get(), coeff, kT);
      return;
    }
    // The launch goes behind the work before it, every block continuing from its status
    // (`done`) left by the launch before; settle() or the next stop checks that they got
    // there (and runs on the blocks whose list rows overflowed).
    BlockLaunch L = block_launch(block_, block_.rows_in_shared);
    if (status_step_ != s) {
      status_host_.assign(std::size_t(block_count(L)), BlockStatus{});
      for (auto& x : status_host_) x.done = s;
      block_status_[status_parity_].upload(status_host_.data(), status_host_.size(), stream_);
      async_rebuilds_base_ = block_rebuilds_;
    }
    L.in = pos_[s & 1].get();
    L.out = pos_[e & 1].get();
    L.global_rows = block_rows_.get();
    L.end_step = e;
    L.coeff = coeff;
    L.kT = kT;
    // The first launch of an advance writes the other status array, which a stop taken
    // before it may still be reading from; later ones read and write that one.
    L.status_in = block_status_[status_parity_].get();
    if (new_status_array_) status_parity_ ^= 1;
    new_status_array_ = false;
    L.status = block_status_[status_parity_].get();
    launch_block_steps(L, stream_);
    status_step_ = e;
    steps_in_flight_ = true;
    if (block_.all_pairs) block_pairs_ = all_pairs_count();
  }

  // No list: every pair that is neither bonded nor native.
  std::int64_t all_pairs_count() const {
    return std::int64_t(R_) * (std::int64_t(n_) * (n_ - 1) / 2 - std::int64_t(topology_.bonds.size()) -
                               std::int64_t(topology_.native_contacts.size()));
  }

  // The same at the temperature of step s.
  void run_block_in_turn(std::int64_t s, std::int64_t e, const float4* in, float4* out) {
    const double kT = setup_.temperature.at_step(s);
    run_block_in_turn(e, in, out, physics::langevin_coefficients(setup_.langevin.timestep_tau, setup_.langevin.zeta, kT),
                      kT);
  }

  // Runs every block from its status in status_host_ (`done`) to e, waiting for each
  // launch; where list rows overflow, they grow and the blocks go on from where they stopped.
  void run_block_in_turn(std::int64_t e, const float4* in, float4* out, physics::LangevinCoefficients coeff,
                         double kT) {
    for (int attempt = 0;; ++attempt) {
      BlockLaunch L = block_launch(block_, block_.rows_in_shared);
      for (auto& x : status_host_) { x.rebuilds = 0; x.needed_slots = 0; }
      block_status_[0].upload(status_host_.data(), status_host_.size(), stream_);
      L.in = attempt == 0 ? in : out;
      L.out = out;
      L.global_rows = block_rows_.get();
      L.end_step = e;
      L.coeff = coeff;
      L.kT = kT;
      L.status = block_status_[0].get();
      launch_block_steps(L, stream_);
      block_status_[0].download(status_host_.data(), status_host_.size(), stream_);
      ERMAK_CUDA(cudaStreamSynchronize(stream_));
      int needed = 0;
      for (const auto& x : status_host_) {
        block_rebuilds_ += x.rebuilds;
        if (x.done < e) needed = std::max(needed, x.needed_slots);
      }
      block_pairs_ = 0;
      for (const auto& x : status_host_) block_pairs_ += x.pairs;
      if (block_.all_pairs) block_pairs_ = all_pairs_count();
      if (needed == 0) {
        for (const auto& x : status_host_)
          if (x.done < e) throw Error("CUDA block family: a block stopped at step " + std::to_string(x.done) +
                                      " before " + std::to_string(e) + " without a reason");
        return;
      }
      if (attempt > 8) throw Error("CUDA block family: the neighbour list keeps overflowing");
      grow_slots(needed);  // reconfigures; positions are kept
    }
  }

  // ---- per-bead family ----

  Control fetch_control() {
    Control c;
    ERMAK_CUDA(cudaMemcpyAsync(&c, ctrl_.get(), sizeof c, cudaMemcpyDeviceToHost, stream_));
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
    return c;
  }

  void reset_control() {
    Control c = fetch_control();
    c.step = step_;
    c.target = step_;
    c.stale_since = step_;  // build at the first step
    c.needed_slots = 0;
    ERMAK_CUDA(cudaMemcpyAsync(ctrl_.get(), &c, sizeof c, cudaMemcpyHostToDevice, stream_));
    ERMAK_CUDA(cudaStreamSynchronize(stream_));
  }

  void advance_perbead(std::int64_t s, std::int64_t e, physics::LangevinCoefficients coeff, double kT) {
    launch_set_segment(ctrl_.get(), e, coeff, kT, stream_);
    const std::int64_t kGraphSteps = std::int64_t(chunk_steps_) * kChunksPerGraph;
    std::int64_t at = s;
    int stalls = 0;
    // ERMAK_CUDA_TRACE=1: one line per host round (for diagnosing slow runs, docs/gpu.md).
    static const bool trace = env_int("ERMAK_CUDA_TRACE", 0) != 0;
    const auto round_start = std::chrono::steady_clock::now();
    while (at < e) {
      const std::int64_t launches = std::max<std::int64_t>(1, (e - at + kGraphSteps - 1) / kGraphSteps);
      for (std::int64_t k = 0; k < launches; ++k) ERMAK_CUDA(cudaGraphLaunch(graph_exec_, stream_));
      const Control c = fetch_control();
      if (trace)
        std::fprintf(stderr, "[ermak cuda] %.3f s: graphs %lld, step %lld -> %lld, builds %lld, needed slots %d of %d\n",
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - round_start).count(),
                     (long long)launches, (long long)at, c.step, c.rebuilds, c.needed_slots, slots_);
      if (c.needed_slots > slots_) {
        grow_slots(c.needed_slots);  // re-captures the graph, marks the list stale
        launch_set_segment(ctrl_.get(), e, coeff, kT, stream_);
      }
      stalls = c.step == at ? stalls + 1 : 0;
      if (stalls > 8) throw Error("CUDA per-bead family: the run stopped advancing at step " + std::to_string(c.step));
      at = c.step;
      perbead_rebuilds_ = c.rebuilds;  // the last round's read is after the last step
    }
    // The list's pairs, for stats(): counted behind the steps and read there (no wait here:
    // a report stop follows most advances).
    if (perbead_.cluster_rows) launch_count_cluster_pairs(perbead_, pairs_.get(), stream_);
    else launch_count_pairs(row_count_.get(), (long long)n_ * R_, pairs_.get(), stream_);
    pairs_.download(pairs_host_.data(), 1, stream_);
    ERMAK_CUDA(cudaEventRecord(pairs_counted_, stream_));
  }

  // Makes sure the list (per-bead family) holds the current positions' pairs.
  void ensure_perbead_list() {
    for (int attempt = 0;; ++attempt) {
      launch_rebuild(perbead_, stream_);  // no-op unless stale
      const Control c = fetch_control();
      if (c.needed_slots <= slots_) return;
      if (attempt > 4) throw Error("CUDA: the neighbour list could not be built (rows keep overflowing)");
      grow_slots(c.needed_slots);  // marks the list stale
    }
  }

  // ---- evaluation ----

  void evaluate(bool energy) { evaluate(energy, pos_[step_ & 1].get(), step_, stream_); }

  // Forces (and energies) of `pos` at `step` (the protocols' anchors move with it).
  void evaluate(bool energy, const float4* pos, std::int64_t step, cudaStream_t stream) {
    EvalLaunch L;
    L.m = model_;
    L.pos = pos;
    L.step = step;
    if (family_ == CudaKernelFamily::kPerBead) {
      // The control's step must be the current one (minimisation moves keep the step).
      ensure_perbead_list();
      L.rows = perbead_.rows;
      L.rows16 = perbead_.rows16;
      L.cluster_rows = perbead_.cluster_rows;
      L.row_count = row_count_.get();
      L.slots = slots_;
    }
    L.tips = tips_;
    L.force = force_.get();
    L.bead_energy = bead_energy_.get();
    L.bead_tip = bead_tip_.get();
    L.replica_out = replica_out_.get();
    launch_eval(L, energy, stream);
    launch_reduce_replicas(L, energy, stream);
  }

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
  PinnedHostBuffer<float4> stop_positions_host_;

  // model
  DeviceBuffer<int> bond_partner_, bond_count_, native_partner_, native_count_;
  DeviceBuffer<float> bond_r0_, native_r0_, native_eh_;
  DeviceBuffer<std::uint8_t> fixed_;
  DeviceBuffer<std::uint8_t> repulsive_partners_, repulsive_count_;
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
  std::int64_t perbead_rebuilds_ = 0, rebuilds_offset_ = 0;
};

}  // namespace cuda

bool cuda_backend_available(std::string* why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    if (why) *why = std::string("no usable CUDA GPU: ") + cudaGetErrorString(status);
    return false;
  }
  if (count == 0) {
    if (why) *why = "no CUDA GPU found";
    return false;
  }
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) == cudaSuccess && prop.major >= 9) return true;
  }
  if (why) *why = "no GPU of compute capability ≥ 9.0 (this build targets sm_90): " + cuda::device_list();
  return false;
}

long long cuda_memory_in_use_bytes(int device) {
  int previous = 0;
  if (cudaGetDevice(&previous) != cudaSuccess) { cudaGetLastError(); return -1; }
  if (device >= 0 && cudaSetDevice(device) != cudaSuccess) { cudaGetLastError(); return -1; }
  std::size_t free_bytes = 0, total_bytes = 0;
  const bool ok = cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess;
  if (!ok) cudaGetLastError();
  if (device >= 0) cudaSetDevice(previous);
  return ok ? (long long)(total_bytes - free_bytes) : -1;
}

int cuda_multiprocessor_count(int device) {
  if (device < 0) device = cuda::env_int("ERMAK_CUDA_DEVICE", 0);
  int sms = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return sms;
}

std::unique_ptr<Engine> make_cuda_engine(const EngineSetup& setup, int device) {
  CudaEngineOptions options;
  options.device = device;
  return make_cuda_engine(setup, options);
}

std::unique_ptr<Engine> make_cuda_engine(const EngineSetup& setup, const CudaEngineOptions& options) {
  if (setup.topology == nullptr) throw Error("make_cuda_engine: no topology");
  return std::make_unique<cuda::CudaEngine>(setup, options);
}

std::string cuda_kernel_family(const Engine& engine) {
  const auto* e = dynamic_cast<const cuda::CudaEngine*>(&engine);
  return e ? e->family_name() : std::string();
}

std::string cuda_kernel_layout(const Engine& engine) {
  const auto* e = dynamic_cast<const cuda::CudaEngine*>(&engine);
  return e ? e->kernel_layout() : std::string();
}

long long cuda_engine_device_bytes(const Engine& engine) {
  const auto* e = dynamic_cast<const cuda::CudaEngine*>(&engine);
  return e ? (long long)e->device_bytes() : -1;
}

}  // namespace ermak
