#pragma once
// The application test of the SOP-GPU RNG study (docs/rng.md#application-test): N
// independent 3-D harmonic oscillators in overdamped Langevin dynamics (a stochastic
// thermostat), integrated with the Euler (Ermak–McCammon) step
//   R_{n+1} = R_n − (D k_sp/k_B T) R_n Δt + sqrt(2 D Δt) g_n,   g_n from the tested generator,
// compared with the exact Ornstein–Uhlenbeck results, τ = k_B T/(D k_sp):
//   relaxation from R(0) = R0·ê:                 ⟨R(t)·ê⟩ = R0 e^{−t/τ}
//   stationary autocorrelation (per component):  ⟨R(t0 + t)·R(t0)⟩/3 = (k_B T/k_sp) e^{−t/τ}
// The second ensemble starts from the Boltzmann distribution (Gaussian, variance k_B T/k_sp
// per component, drawn with SplitMix64 + Box–Muller in double precision, independent of
// the tested generator) and is then driven by the tested noise; the autocorrelation is
// averaged over oscillators, components and time origins t0 ∈ [0, T/2], so the
// equal-time value (equipartition) and the decay both depend on the noise. Standard errors:
// relaxation sqrt(v_d (1 − a^{2n})/N); autocorrelation from the exact covariance of the
// products x(t0+t)x(t0) of a stationary Gaussian process over the overlapping origins.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ermak::rng {

struct OuOptions {
  std::string generator = "philox";
  std::string layout;  // "" = the generator's default
  std::uint64_t seed = 2011;
  std::int32_t oscillators = 1000;
  // Span T of the curves in steps (rounded up to a multiple of `samples`); 0 = 2τ/Δt.
  // The equilibrium ensemble runs 1.5 T.
  std::int64_t steps = 0;
  std::int32_t samples = 100;  // points on each curve (sample interval = steps/samples)
  double dt_ps = 1.0;
  double R0_nm = 10.0;
  double k_pN_per_nm = 0.01;
  double temperature_K = 300.0;
  double D_nm2_per_ns = 0.25;
  double tolerance_sigmas = 5.0;
  // "cpu" (NoiseSource, OpenMP) or "cuda": the device generators (backend/cuda_rng.h)
  // drive the oscillators on the GPU, same numbers up to the last bits of Box–Muller.
  std::string backend = "cpu";
};

struct OuPoint {
  double t_ns = 0;
  double mean = 0, mean_exact = 0, mean_discrete = 0, mean_sigma = 0;  // nm
  double acf = 0, acf_exact = 0, acf_discrete = 0, acf_sigma = 0;      // nm²
};

struct OuResult {
  OuOptions options;
  std::string source_name;
  double kT_pN_nm = 0, tau_ns = 0, variance_nm2 = 0;  // k_B T, τ, k_B T/k_sp
  std::int64_t steps = 0, sample_every = 0;
  std::vector<OuPoint> points;
  // Largest |measured − discrete expectation|/σ over the points, and whether every point
  // lies within tolerance_sigmas·σ + |discrete − exact| of the exact continuous curve.
  double max_z_mean = 0, max_z_acf = 0;
  bool pass = false;
  double seconds = 0;
  std::string device;  // the GPU's name with backend cuda
  std::string verdict() const;  // "PASS: …" or "FAIL: …"
};

class NoiseSource;

// Runs on options.backend. Throws ermak::Error for bad options. `source`, when given,
// replaces the generator named in the options (CPU only; 2 replicas × N beads; for tests
// of the test).
OuResult run_ou_application(const OuOptions& options, NoiseSource* source = nullptr);

void write_ou_tsv(const OuResult& result, const std::filesystem::path& path);
void write_ou_svg(const OuResult& result, const std::filesystem::path& path);

}  // namespace ermak::rng
