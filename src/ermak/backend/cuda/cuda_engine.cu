// The CUDA engine (cuda_engine.cuh, docs/gpu.md): construction on a chosen device, the
// state and what checkpoints keep of it, forces, minimisation; the backend's free functions.
#include "ermak/backend/cuda/cuda_engine.cuh"
#include "ermak/backend/cuda/device_code.cuh"
#include "ermak/backend/descent_step.h"
#include "ermak/backend/split_engine.h"

namespace ermak {
namespace cuda {

namespace {

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
  if (const CudaDeviceCode code = cuda_device_code(device); !code.runs)
    throw Error("backend \"cuda\": " + refusal(code));
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

}  // namespace

CudaEngine::CudaEngine(const EngineSetup& setup, const CudaEngineOptions& options)
    : setup_(setup), topology_(*setup.topology), n_(topology_.bead_count()), R_(setup.replicas) {
  if (n_ <= 0) throw Error("backend \"cuda\": the topology has no beads");
  if (R_ <= 0) throw Error("backend \"cuda\": replicas must be positive");
  // "auto" is the run driver's to resolve; an engine made without it resolves it alike.
  setup_.langevin.hydrodynamics.method =
      resolve_hydrodynamic_method(setup_.langevin.hydrodynamics.method, mobile_bead_count());
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
  forced_eval_rounds_ = env_choice("ERMAK_CUDA_EVAL_ROUNDS", {1, kEvalLanes});
  forced_tea_lanes_ = env_choice("ERMAK_TEA_LANES", {8, 16, 32});
  forced_tea_beads_ = env_choice("ERMAK_TEA_BEADS_PER_WARP", {1, 2, 4, 8});
  const bool cholesky_forced_global = env_choice("ERMAK_CUDA_CHOLESKY_GLOBAL", {1}) == 1;
  cholesky_tensor_in_shared_ = hydrodynamic() &&
                               setup_.langevin.hydrodynamics.method == HydrodynamicMethod::kCholesky &&
                               !cholesky_forced_global && cholesky_tensor_fits_in_shared(mobile_bead_count(), prop_);
  check_memory(bytes_needed());  // before any allocation (a stateful generator's state as it will be)
  try {
    ERMAK_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    ERMAK_CUDA(cudaStreamCreateWithFlags(&side_.stream, cudaStreamNonBlocking));
    ERMAK_CUDA(cudaEventCreateWithFlags(&side_.fork, cudaEventDisableTiming));
    ERMAK_CUDA(cudaEventCreateWithFlags(&side_.join, cudaEventDisableTiming));
    ERMAK_CUDA(cudaStreamCreateWithFlags(&report_stream_, cudaStreamNonBlocking));
    ERMAK_CUDA(cudaEventCreateWithFlags(&stop_copied_, cudaEventDisableTiming));
    ERMAK_CUDA(cudaEventCreateWithFlags(&stop_taken_, cudaEventDisableTiming));
    ERMAK_CUDA(cudaEventCreateWithFlags(&pairs_counted_, cudaEventDisableTiming));
    upload_model();
    setup_noise();
    // Held already: configure_and_allocate's check counts the noise in what the run needs
    // and in what it has (free memory no longer holds it).
    allocated_bytes_ = noise_->device_bytes() + noise_ring_.bytes();
    configure_and_allocate();
  } catch (...) {
    release();
    throw;
  }
}

void CudaEngine::set_state(const State& state) {
  DeviceGuard guard(device_);
  settle();
  status_step_ = -1;
  if (state.bead_count != n_ || state.replica_count != R_)
    throw Error("CudaEngine::set_state: shape mismatch (" + std::to_string(state.replica_count) + "×" +
                std::to_string(state.bead_count) + " for " + std::to_string(R_) + "×" + std::to_string(n_) + ")");
  step_ = state.step;
  stop_positions_step_ = -1;
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

const State& CudaEngine::state() {
  DeviceGuard guard(device_);
  settle();
  if (!host_valid_) {
    download_positions(pos_[step_ & 1].get(), host_);
    host_.step = step_;
    host_valid_ = true;
  }
  return host_;
}

void CudaEngine::advance(std::int64_t steps) {
  DeviceGuard guard(device_);
  launch_steps(steps);
  settle();
}

State CudaEngine::forces() {
  DeviceGuard guard(device_);
  settle();
  evaluate(false);
  State out(n_, R_);
  out.step = step_;
  download_positions(force_.get(), out);
  return out;
}

std::vector<Vec3d> CudaEngine::tether_forces_kcal_per_mol_A() {
  if (host_valid_ || setup_.tethers.empty()) return report_tether_forces(setup_, state());
  return report_tether_forces(setup_, step_, R_, gathered_positions(tethered_beads_));
}

std::vector<Vec3f> CudaEngine::bead_positions(const std::vector<std::int32_t>& beads) {
  check_bead_indices(n_, beads);
  return host_valid_ ? host_.positions_of(beads) : gathered_positions(beads);
}

std::vector<double> CudaEngine::plane_forces_kcal_per_mol_A() {
  if (host_valid_ || setup_.plane_tethers.empty()) return report_plane_forces(setup_, state());
  return report_plane_forces(setup_, step_, R_, gathered_positions(plane_tethered_beads_));
}

std::vector<IndentationStatus> CudaEngine::indentation_status() {
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
  for (std::int32_t r = 0; r < R_; ++r)
    out.push_back(indentation_status_at(ind, step_, turn[r], setup_.langevin.timestep_tau,
                                        {tip[3 * r], tip[3 * r + 1], tip[3 * r + 2]},
                                        {molecule[3 * r], molecule[3 * r + 1], molecule[3 * r + 2]}));
  return out;
}

std::vector<std::uint8_t> CudaEngine::noise_state() {
  DeviceGuard guard(device_);
  settle();
  ERMAK_CUDA(cudaStreamSynchronize(stream_));
  return noise_->save_state(noise_last_step_);
}

void CudaEngine::restore_noise_state(const std::vector<std::uint8_t>& bytes) {
  DeviceGuard guard(device_);
  settle();
  ERMAK_CUDA(cudaStreamSynchronize(stream_));
  noise_->restore_state(bytes);
  noise_last_step_ = -1;  // the restored bytes hold the last steps
}

std::vector<double> CudaEngine::protocol_state() {
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

void CudaEngine::restore_protocol_state(const std::vector<double>& st) {
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

MinimizeResult CudaEngine::minimize(std::int64_t max_iterations, double force_tolerance_kcal_per_mol_A,
                                    double max_displacement_A, const StopRequested& stop_requested) {
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
    const bool stop = stop_requested && stop_requested();
    for (std::int32_t r = 0; r < R_; ++r) {
      Replica& x = rep[r];
      mode[r] = 0;
      if (!x.active) continue;
      if (x.result.iterations >= max_iterations) { x.active = false; continue; }
      x.result.max_force_kcal_per_mol_A = std::sqrt(max_force2(r));
      if (x.result.max_force_kcal_per_mol_A < force_tolerance_kcal_per_mol_A) {
        x.result.converged = true;
        x.active = false;
        continue;
      }
      if (stop) {
        x.result.interrupted = true;
        x.active = false;
        continue;
      }
      // Steepest descent with the largest bead move limited to step_A (backend/descent_step.h).
      scale[r] = descent_scale(x.step_A, x.result.max_force_kcal_per_mol_A);
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
        x.step_A = descent_step_after_success(x.step_A, max_displacement_A);
        ++x.result.iterations;
        mode[r] = 0;
      } else {
        x.step_A = descent_step_after_failure(x.step_A);
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
        if (descent_step_exhausted(x.step_A)) x.active = false;
        else ++x.result.iterations;
      }
    }
  }
  host_valid_ = false;
  ++positions_version_;
  std::vector<MinimizeResult> results;
  for (const auto& x : rep) results.push_back(x.result);
  return combined(results);
}

State CudaEngine::neighbor_reference() {
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

void CudaEngine::restore_neighbor_reference(const State& reference) {
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

EngineStats CudaEngine::stats() const {
  EngineStats s;
  if (family_ == CudaKernelFamily::kBlock) {
    s.neighbor_rebuilds = block_rebuilds_;
    s.neighbor_pairs = block_pairs_;
  } else {
    // Never below zero: a resume that runs no step has counted none since its offset.
    s.neighbor_rebuilds = std::max<std::int64_t>(0, std::int64_t(perbead_rebuilds_ - rebuilds_offset_)) * R_;
    ERMAK_CUDA(cudaEventSynchronize(pairs_counted_));
    s.neighbor_pairs = std::int64_t(pairs_host_[0] / 2);
  }
  return s;
}

void CudaEngine::upload_positions(const State& s, float4* dst) {
  staging_.resize(std::size_t(n_) * R_);
  for (std::size_t k = 0; k < staging_.size(); ++k) staging_[k] = make_float4(s.x[k], s.y[k], s.z[k], 0.0f);
  ERMAK_CUDA(cudaMemcpyAsync(dst, staging_.data(), staging_.size() * sizeof(float4), cudaMemcpyHostToDevice, stream_));
  ERMAK_CUDA(cudaStreamSynchronize(stream_));
}

void CudaEngine::download_positions(const float4* src, State& s) {
  staging_.resize(std::size_t(n_) * R_);
  ERMAK_CUDA(cudaMemcpyAsync(staging_.data(), src, staging_.size() * sizeof(float4), cudaMemcpyDeviceToHost, stream_));
  ERMAK_CUDA(cudaStreamSynchronize(stream_));
  copy_positions(staging_.data(), s);
}

// Host float4 [R·n] into `s` (reshaped if needed; its step is left as it is).
void CudaEngine::copy_positions(const float4* host, State& s) const {
  if (s.bead_count != n_ || s.replica_count != R_) s = State(n_, R_);
  for (std::size_t k = 0; k < std::size_t(n_) * R_; ++k) { s.x[k] = host[k].x; s.y[k] = host[k].y; s.z[k] = host[k].z; }
}

void CudaEngine::positions_changed() {
  host_valid_ = false;
  ++positions_version_;
  if (family_ == CudaKernelFamily::kPerBead) launch_mark_stale(ctrl_.get(), stream_);
}

}  // namespace cuda

bool cuda_backend_available(std::string* why, int device) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    // Without an NVIDIA driver at all the runtime reports an "insufficient" one: say both.
    if (why)
      *why = status == cudaErrorInsufficientDriver
                 ? std::string("no usable CUDA GPU: no NVIDIA driver on this machine, or one older than this build's "
                               "CUDA runtime (cudaErrorInsufficientDriver)")
                 : std::string("no usable CUDA GPU: ") + cudaGetErrorString(status);
    return false;
  }
  if (count == 0) {
    if (why) *why = "no CUDA GPU found";
    return false;
  }
  if (device < 0) device = cuda::env_int("ERMAK_CUDA_DEVICE", 0);
  if (device >= count) {
    if (why) *why = "GPU " + std::to_string(device) + " does not exist (" + cuda::device_list() + ")";
    return false;
  }
  const CudaDeviceCode code = cuda_device_code(device);
  if (!code.runs) {
    if (why) *why = cuda::refusal(code);
    return false;
  }
  if (why) *why = code.gpu + " runs " + code.code;
  return true;
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

long long cuda_resident_threads(int device) {
  if (device < 0) device = cuda::env_int("ERMAK_CUDA_DEVICE", 0);
  int sms = 0, per_sm = 0;
  if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return (long long)sms * per_sm;
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

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

namespace {

// `describe` of a CUDA engine, or of each GPU's engine of a split run joined by " + ".
std::string describe_cuda(const Engine& engine, std::string (*describe)(const cuda::CudaEngine&)) {
  if (const auto* e = dynamic_cast<const cuda::CudaEngine*>(&engine)) return describe(*e);
  const SplitEngine* split = as_split_engine(engine);
  if (!split) return {};
  std::string out;
  for (const auto& part : split->parts()) {
    const std::string one = describe_cuda(*part, describe);
    if (one.empty()) return {};
    out += (out.empty() ? "" : " + ") + one;
  }
  return out;
}

}  // namespace

std::string cuda_kernel_family(const Engine& engine) {
  return describe_cuda(engine, [](const cuda::CudaEngine& e) { return e.family_name(); });
}

std::string cuda_kernel_layout(const Engine& engine) {
  return describe_cuda(engine, [](const cuda::CudaEngine& e) { return e.kernel_layout(); });
}

long long cuda_engine_device_bytes(const Engine& engine) {
  if (const auto* e = dynamic_cast<const cuda::CudaEngine*>(&engine)) return (long long)e->device_bytes();
  const SplitEngine* split = as_split_engine(engine);
  if (!split) return -1;
  long long sum = 0;
  for (const auto& part : split->parts()) {
    const long long bytes = cuda_engine_device_bytes(*part);
    if (bytes < 0) return -1;
    sum += bytes;
  }
  return sum;
}

}  // namespace ermak
