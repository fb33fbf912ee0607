#pragma once
#include <cstdint>
#include "ermak/physics/fene.h"
#include "ermak/physics/repulsion.h"

namespace ermak {

// Native contacts: bead (C-alpha) pairs closer than this in the native structure, SOP-GPU's
// R_limit_bond (docs/topology.md#native-contacts); also where its energy file counts a
// contact as formed.
inline constexpr double kNativeCutoff_A = 8.0;

// Global SOP parameters in internal units (Å, kcal/mol). Defaults are SOP-GPU's
// (docs/model.md#parameters). Per-contact r0 and ε_h live in the Topology.
struct SopParameters {
  float fene_k_kcal_per_mol_A2 = 20.0f;   // k
  float fene_R0_A = 2.0f;                 // R0, maximum bond stretch
  float repulsion_eps_kcal_per_mol = 1.0f;  // ε_l
  float repulsion_sigma_A = 3.8f;         // σ
  float pair_cutoff_A = 20.0f;            // repulsive pairs beyond this distance are ignored
};

// The physics/ parameters of the FENE bonds and of the repulsion, from the SOP parameters,
// in the precision of the caller: float for both engines' dynamics (the default), double for
// the validation reference (backend/cpu/reference_energy.h) and the run's checks. σ² and
// r_cut² are squared in that precision.
template <class Real = float>
physics::FeneParametersT<Real> fene_parameters(const SopParameters& sop) {
  return {Real(sop.fene_k_kcal_per_mol_A2), Real(sop.fene_R0_A)};
}
template <class Real = float>
physics::RepulsionParametersT<Real> repulsion_parameters(const SopParameters& sop) {
  return {Real(sop.repulsion_eps_kcal_per_mol), Real(sop.repulsion_sigma_A) * Real(sop.repulsion_sigma_A),
          Real(sop.pair_cutoff_A) * Real(sop.pair_cutoff_A)};
}

// A repulsion cut at or inside σ (docs/model.md#repulsion): ε_l(σ/r)⁶ is ≥ ε_l at the
// cutoff, so beads approach freely to the cutoff and then meet a wall of ε_l or more — the
// excluded volume is lost. SOP-GPU's cutoff is 20 Å against σ = 3.8 Å. Refused wherever the
// parameters are given.
inline bool repulsion_cut_inside_sigma(const SopParameters& sop) {
  return !(sop.pair_cutoff_A > sop.repulsion_sigma_A);
}

// Hydrodynamic interactions between the beads (docs/model.md#hydrodynamic-interactions):
// none (each bead alone with its friction ζ, SOP-GPU's default), the Rotne–Prager–Yamakawa
// tensor through the truncated expansion approximation of its square root ("tea"), or its
// exact Cholesky factor ("cholesky"); "auto" (the configuration's default) is resolved
// against the model before a run (resolve_hydrodynamic_method) and never reaches an engine.
enum class HydrodynamicMethod { kNone, kTea, kCholesky, kAuto };

struct HydrodynamicParameters {
  HydrodynamicMethod method = HydrodynamicMethod::kNone;
  double radius_A = 1.9;  // hydrodynamic radius a of a bead (SOP-GPU's hi_a of its examples)
  bool enabled() const { return method != HydrodynamicMethod::kNone; }
};

// The most mobile beads a replica may have with the exact method: it factors the 3M×3M
// tensor at every step, (3M)³/3 multiply-adds and 9M² floats per replica, which stops being
// a sensible choice long before memory runs out (TEA is O(M²)).
inline constexpr std::int32_t kMaxCholeskyMobileBeads = 1000;

// The most mobile beads for which "auto" takes the exact factor, whose ensemble (unlike
// TEA's) is Boltzmann's to the integrator's O(h): there it costs up to ~26 times TEA per
// step (ubiquitin's 76 beads: 1.41·10³ against 3.69·10⁴ steps/s for 100 replicas on an H200;
// on the CPU 4× per thread at WW's 34 beads, 8.5× at ubiquitin's 76, 30× at λ-repressor's
// 179), and its cost grows as M³ against TEA's M² (docs/model.md#exact-hydrodynamics).
inline constexpr std::int32_t kAutoCholeskyMobileBeads = 100;

inline const char* hydrodynamic_method_name(HydrodynamicMethod m) {
  return m == HydrodynamicMethod::kTea        ? "tea"
         : m == HydrodynamicMethod::kCholesky ? "cholesky"
         : m == HydrodynamicMethod::kAuto     ? "auto"
                                              : "none";
}

// "auto": the exact Cholesky factor up to kAutoCholeskyMobileBeads mobile beads per replica,
// else TEA — exact where it costs about ten times TEA or less, since TEA's noise runs bonded
// neighbours hot at SOP radii (docs/model.md#tea).
inline HydrodynamicMethod resolve_hydrodynamic_method(HydrodynamicMethod m, std::int64_t mobile_beads) {
  if (m != HydrodynamicMethod::kAuto) return m;
  return mobile_beads <= kAutoCholeskyMobileBeads ? HydrodynamicMethod::kCholesky : HydrodynamicMethod::kTea;
}

// Parameters of the overdamped Langevin step, internal units.
struct LangevinParameters {
  double timestep_tau = 0.08;      // h, in τ_H
  double zeta = 50.0;              // friction ζ, kcal/mol·τ_H/Å²
  double temperature_kcal_per_mol = 0.6;  // k_B·T
  HydrodynamicParameters hydrodynamics;
};

}  // namespace ermak
