#pragma once
// Hydrodynamic interactions (docs/model.md#hydrodynamic-interactions) against exactly
// solvable two-bead problems, written once and run on every backend (like
// integrator_statistics_checks.h): tests/physics/hydrodynamics_test.cpp passes the CPU
// engine, tests/cuda/hydrodynamics_cuda_test.cpp the CUDA engine. Tolerances are derived in
// hydrodynamics_checks.cpp.
#include "ermak/model/force_field.h"
#include "support/integrator_statistics_checks.h"

namespace ermak::test {

// Two beads in harmonic traps 30 Å apart, nearly at zero temperature: each replica starts
// in one normal mode (along the axis apart or together, across it together) and relaxes
// as the deterministic recursion x ← x + (h/ζ)(F + D₁₂F₂/D0) with the RPY tensor, written
// independently in the test; different from the relaxation without hydrodynamics.
void check_hydrodynamic_relaxation_of_two_trapped_beads(const EngineFactory& make_engine, HydrodynamicMethod method);

// A FENE dumbbell at 300 K: its centre's mean-square displacement after 100 steps is the
// sum over steps of each step's noise covariance of the centre — (2k_BTh/ζ)(6 + 2 tr D₁₂/D0)/4
// for the exact square root, the 6×6 TEA matrix product built in the test for "tea" — with
// the per-step covariance taken from the replicas' own configurations (the centre's
// increments are martingale differences: its drift is zero for two equal beads).
void check_hydrodynamic_dumbbell_centre_diffusion(const EngineFactory& make_engine, HydrodynamicMethod method);

}  // namespace ermak::test

namespace ermak::test {

// One step of 6 beads in a generic bent chain (FENE bonds, an overlapping non-bonded pair
// 3 Å apart, bead 2 fixed, a tether on bead 5), 4 replicas each from its own start: every
// mobile coordinate moves by (h/ζ)(D/D0)F + sqrt(2k_BTh/ζ) B g of the mobile beads, D, B
// (TEA or Cholesky) and the sum built densely in double in the test from the engine's
// forces and the documented Philox Gaussians; the fixed bead keeps its bits.
void check_hydrodynamic_step_against_a_dense_reference(const EngineFactory& make_engine, HydrodynamicMethod method);

// The same with 120 mobile beads of a 122-bead chain (3M = 360 rows: more than a block of
// threads), and with 60 and 40 of 62- and 42-bead chains, 2 replicas, to 3 ulps + 2e-6 Å.
void check_hydrodynamic_step_of_many_beads_against_a_dense_reference(const EngineFactory& make_engine,
                                                                    HydrodynamicMethod method);

// One mobile bead (the rest fixed) moves as without hydrodynamics, to 1e-5 Å over 50 steps;
// with every bead fixed nothing moves, to the bit.
void check_hydrodynamics_with_one_or_no_mobile_beads(const EngineFactory& make_engine, HydrodynamicMethod method);

// Hydrodynamics change the dynamics, not the statics: a FENE dumbbell's bond length under the
// exact method has Boltzmann's distribution r² e^{−U(r)/k_BT} (by quadrature), to 5σ plus the
// integrator's O(h) excess. (TEA fails this by design at a = 1.9 Å: its bond noise is too
// large, docs/model.md#tea; so the check is the exact method's.) Returns the measured ratio
// of ⟨(r − r0)²⟩ to Boltzmann's.
double check_hydrodynamic_dumbbell_bond_length_is_boltzmanns(const EngineFactory& make_engine,
                                                            HydrodynamicMethod method);

}  // namespace ermak::test
