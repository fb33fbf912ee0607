#pragma once
// The analytic integrator statistics of rung 2 (DESIGN.md §5, docs/validation.md#rung-2),
// written once and run on every backend: tests/physics/integrator_statistics_test.cpp
// passes make_cpu_engine, tests/cuda/integrator_statistics_cuda_test.cpp the CUDA engine
// of each kernel family. Each check builds its one-bead system, makes its engine through
// the factory, steps it and reports through gtest's EXPECT/ASSERT, so it must be called
// from inside a test. Every seed, sample size and tolerance (derived in
// integrator_statistics_checks.cpp) is the same for all backends: each backend has to
// meet the same analytic bounds, so nothing here is a per-backend parameter.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ermak/backend/engine.h"

namespace ermak::test {

using EngineFactory = std::function<std::unique_ptr<Engine>(const EngineSetup&)>;

// The setup of the rung-2 tests: k_B T = 0.6 kcal/mol, ζ = 50 kcal/mol·τ_H/Å²,
// h = 0.08 τ_H, constant temperature, one CPU thread (a GPU engine ignores threads).
EngineSetup integrator_test_setup(const Topology& topology, std::int32_t replicas, std::uint64_t seed);

// (a) Free diffusion: the first step is the documented Philox noise; ⟨Δr²⟩ = 6Dt and
// Gaussian displacements after 1, 10, 100, 1000 steps.
void check_free_diffusion_msd_and_gaussian_steps(const EngineFactory& make_engine);
// (a) Every bead of several replicas draws its own documented noise, at a step past 2³².
void check_every_bead_draws_its_own_documented_noise(const EngineFactory& make_engine);
// (a) The same with beads {2, 8, 9, 26} of the 27 fixed: they keep their bits, every free
// bead still draws the noise of its own index.
void check_free_beads_among_fixed_ones_draw_their_own_documented_noise(const EngineFactory& make_engine);
// (a) With a stateful generator (run.rng other than philox): every (generator, layout)
// make_noise_source accepts, philox left out.
std::vector<std::pair<std::string, std::string>> noise_source_generator_layouts();
// Each step of free beads (some fixed) is amplitude × a fresh NoiseSource's fill of that
// step, over single steps and several steps in one call.
void check_noise_source_moves_every_free_bead_by_its_fill(const EngineFactory& make_engine,
                                                          const std::string& generator, const std::string& layout);
// The first step is amplitude × the fresh source's fill; ⟨Δr²⟩ = 6Dt and Gaussian
// displacements after 1, 10 and 100 steps, as with Philox.
void check_free_diffusion_with_noise_source(const EngineFactory& make_engine, const std::string& generator,
                                            const std::string& layout);
// (b) Ornstein–Uhlenbeck (bead on a fixed spring): the replica mean relaxes as x0 aⁿ.
void check_ou_relaxation_of_the_mean(const EngineFactory& make_engine);
// (b) Ornstein–Uhlenbeck: stationary autocorrelation v a^k.
void check_ou_stationary_autocorrelation(const EngineFactory& make_engine);
// (c) Equipartition of a softly tethered bead, from positions and from the engine's
// reported protocol energy.
void check_equipartition_of_a_tethered_bead(const EngineFactory& make_engine);
// (d) The stationary variance follows a stepwise heating schedule, cap included.
void check_stationary_variance_follows_the_heating_schedule(const EngineFactory& make_engine);
// (d) Step n uses k_B T(n): free beads move by sqrt(2 k_B T(n) h/ζ)·g(n) at the steps
// around each change, one step per call and many in one call.
void check_each_step_uses_the_temperature_of_its_own_step(const EngineFactory& make_engine);
// A force ramp (moving anchor): mean position, and mean spring force ζV (Stokes drag).
void check_force_ramp_mean_position_and_stokes_drag(const EngineFactory& make_engine);
// A force clamp on replica 1 only and a pulling spring on replica 2 only: from a fixed
// state, the first step is the documented noise plus (h/ζ)·F on those beads of those
// replicas and the noise alone everywhere else.
void check_protocol_items_of_one_replica_act_on_it_alone(const EngineFactory& make_engine);

}  // namespace ermak::test
