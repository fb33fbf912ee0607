// The CUDA engine's steps with hydrodynamic interactions (langevin.hydrodynamics,
// docs/gpu.md#hydrodynamic-interactions), in either kernel family: a step at a time, the
// forces of the step's positions by the evaluation kernels (eval_kernels.cu, protocol
// forces and the molecule's force on the tip included), then the moves of
// hydrodynamic_kernels.cu. The family's step kernels are not used: the moves couple every
// mobile bead of a replica to every other, which needs all forces before any move.
#include "ermak/backend/cuda/cuda_engine.cuh"

namespace ermak {
namespace cuda {

namespace {

std::vector<std::uint8_t> fixed_mask(std::int32_t n, const std::vector<std::int32_t>& fixed_beads) {
  std::vector<std::uint8_t> fixed(n, 0);
  for (const std::int32_t b : fixed_beads)
    if (b >= 0 && b < n) fixed[b] = 1;
  return fixed;
}

}  // namespace

std::int32_t CudaEngine::mobile_bead_count() const {
  std::int32_t m = 0;
  for (const std::uint8_t f : fixed_mask(n_, setup_.fixed_beads)) m += f ? 0 : 1;
  return m;
}

// Device memory of the hydrodynamic moves (counted in bytes_needed before allocation).
std::size_t CudaEngine::hydrodynamic_bytes() const {
  if (!hydrodynamic()) return 0;
  const std::size_t beads = std::size_t(n_) * R_, m = std::size_t(mobile_bead_count()), r = std::size_t(R_);
  std::size_t b = std::size_t(n_) * sizeof(int);  // mobile and fixed beads
  if (setup_.langevin.hydrodynamics.method == HydrodynamicMethod::kCholesky)
    b += r * m * sizeof(Vec3f)                                              // displacements
         + (cholesky_tensor_in_shared_ ? 0 : r * 9 * m * m * sizeof(float));  // else in shared memory
  else
    b += beads * sizeof(float4) + r * m * sizeof(float) + r * sizeof(float);  // noise, ε shares, β
  return b;
}

void CudaEngine::validate_hydrodynamics() const {
  if (!hydrodynamic()) return;
  const HydrodynamicParameters& hi = setup_.langevin.hydrodynamics;
  if (!(hi.radius_A > 0.0) || !std::isfinite(hi.radius_A))
    throw Error("hydrodynamics: the hydrodynamic radius must be a positive number of Å (got " +
                std::to_string(hi.radius_A) + ")");
  const std::int32_t m = mobile_bead_count();
  if (hi.method == HydrodynamicMethod::kCholesky && m > kMaxCholeskyMobileBeads)
    throw Error("backend \"cuda\": hydrodynamics = \"cholesky\" factors each replica's 3M × 3M tensor at every "
                "step (" + std::to_string(m) + " mobile beads: " +
                format_byte_size(9.0 * double(m) * double(m) * sizeof(float)) + " per replica) and is meant for at most " +
                std::to_string(kMaxCholeskyMobileBeads) + " mobile beads; use hydrodynamics = \"tea\"");
}

// The mobile beads and the moves' buffers (from configure_and_allocate; sizes do not
// change with the list rows, so a reconfiguration keeps them).
void CudaEngine::allocate_hydrodynamics() {
  if (!hydrodynamic()) return;
  const std::vector<std::uint8_t> is_fixed = fixed_mask(n_, setup_.fixed_beads);
  std::vector<int> mobile, fixed;
  for (std::int32_t i = 0; i < n_; ++i) (is_fixed[i] ? fixed : mobile).push_back(i);
  const std::size_t m = mobile.size(), r = std::size_t(R_);
  if (!hydro_beads_uploaded_) {
    hydro_mobile_.upload(mobile.empty() ? std::vector<int>{-1} : mobile, stream_);
    hydro_fixed_.upload(fixed.empty() ? std::vector<int>{-1} : fixed, stream_);
    hydro_beads_uploaded_ = true;
  }
  if (setup_.langevin.hydrodynamics.method == HydrodynamicMethod::kCholesky) {
    hydro_displacement_.resize(std::max<std::size_t>(1, r * m));
    hydro_tensor_.resize(cholesky_tensor_in_shared_ ? 1 : std::max<std::size_t>(1, r * 9 * m * m));
    allow_cholesky_shared_bytes(int(m), cholesky_tensor_in_shared_);
  } else {
    hydro_gaussian_.resize(std::size_t(n_) * r);
    hydro_epsilon_share_.resize(std::max<std::size_t>(1, r * m));
    hydro_beta_.resize(r);
  }
}

// Steps [s, e) at the temperature of each step; a stateful generator's noise of these
// steps is in its ring already (launch_steps).
void CudaEngine::advance_hydrodynamic(std::int64_t s, std::int64_t e) {
  HydrodynamicLaunch H;
  H.m = model_;
  H.force = force_.get();
  H.gaussian = hydro_gaussian_.get();
  H.mobile = hydro_mobile_.get();
  H.mobile_count = mobile_bead_count();
  H.fixed = hydro_fixed_.get();
  H.fixed_count = n_ - H.mobile_count;
  H.radius_A = float(setup_.langevin.hydrodynamics.radius_A);
  H.cholesky = setup_.langevin.hydrodynamics.method == HydrodynamicMethod::kCholesky;
  H.epsilon_share = hydro_epsilon_share_.get();
  H.beta = hydro_beta_.get();
  H.tensor = hydro_tensor_.get();
  H.tensor_in_shared = cholesky_tensor_in_shared_;
  H.displacement = hydro_displacement_.get();
  H.tea_lanes = forced_tea_lanes_;
  H.tea_beads_per_group = forced_tea_beads_;
  H.tips = tips_;
  const bool perbead = family_ == CudaKernelFamily::kPerBead;
  for (std::int64_t step = s; step < e; ++step) {
    const float4* pos = pos_[step & 1].get();
    // Every bead's total force at the step. Per-bead family: the list is checked (and
    // rebuilt once a bead moved more than skin/2 from its reference) against the
    // control's step, which the last move left at this one; the block family's
    // evaluation scans every bead of the replica and needs no list. The per-replica sums
    // only for the indentation tip's step (the molecule's force on it).
    evaluate(false, pos, step, stream_, setup_.indentation.enabled);
    const double kT = setup_.temperature.at_step(step);
    H.pos = pos;
    H.next = pos_[(step + 1) & 1].get();
    H.step = step;
    H.kT = kT;
    H.coeff = physics::langevin_coefficients(setup_.langevin.timestep_tau, setup_.langevin.zeta, kT);
    if (perbead) {  // set here: a list that grew has new buffers
      H.ref = ref_.get();
      H.ctrl = ctrl_.get();
    }
    launch_hydrodynamic_step(H, stream_);
  }
  if (perbead) {
    perbead_rebuilds_ = fetch_control().rebuilds;
    // The list's pairs, for stats() (as advance_perbead).
    if (perbead_.cluster_rows) launch_count_cluster_pairs(perbead_, pairs_.get(), stream_);
    else launch_count_pairs(row_count_.get(), (long long)n_ * R_, pairs_.get(), stream_);
    pairs_.download(pairs_host_.data(), 1, stream_);
    ERMAK_CUDA(cudaEventRecord(pairs_counted_, stream_));
  }
}

}  // namespace cuda
}  // namespace ermak
