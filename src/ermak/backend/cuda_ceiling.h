#pragma once
// Idealised step kernels that bound from above what a GPU step of the model's arithmetic
// can reach (`ermak bench --ceiling`, docs/benchmarks.md#the-instruction-ceiling). They do
// the work every formulation must do and nothing else: each replica's pairs repelled by
// the model's repulsion (physics::repulsion, the 20 Å select), the Philox/Box–Muller noise
// and the Langevin move (physics::langevin_displacement) — no bonds, native contacts,
// lists, rows, protocols or reports (tiles-model and tiles-unified add the bonds and
// native contacts). NOT a simulation: without bonds the chain flies apart.
// Plain C++; in a build without CUDA the functions throw (cuda_ceiling_stub.cpp).
#include <string>
#include <vector>

#include "ermak/backend/engine.h"
#include "ermak/core/vec3.h"

namespace ermak {

enum class CeilingKernel {
  kPairsTwice,         // every bead sums all n−1 partners (each pair from both ends)
  kPairsOnce,          // every bead sums only half of its partners, each pair once per
                       // replica; the partner's reaction is dropped (a lower bound on the
                       // work of any each-pair-once scheme)
  kPairsOnceAtomics,   // each pair once, the reaction added to the partner by a
                       // shared-memory float atomic (not deterministic: the order of the
                       // additions varies; what the cheapest exchange of reactions costs)
  kPairsOnceSlots,     // each pair once, the reaction stored in a shared-memory slot of
                       // its own and each bead's slots summed in a fixed order after a
                       // barrier (deterministic: a candidate for a real kernel)
  kPairsOnceTiles,     // each pair once in tiles of 4 × 4 beads, a thread per tile, both
                       // quads' sums in registers, partial sums per pair of quads summed in
                       // a fixed order after a barrier (deterministic; 8 to 64 beads)
  kTilesWithModel,     // the tiles with the model's bonds (FENE) and native contacts: every
                       // force term of a plain run (needs setup.topology; 8 to 64 beads)
  kTilesUnified,       // the same terms, the native contacts inside the tiles' 16 terms by
                       // one formula for both kinds of pair, the bonds on the bead threads
  kNoiseAndMove,       // no pairs: the noise and the move alone
  kPairsOnceNoNoise,   // pairs once, no noise (what the noise costs on top)
};

std::string ceiling_kernel_name(CeilingKernel kernel);

struct CeilingTiming {
  CeilingKernel kernel{};
  long long steps = 0;
  double seconds = 0.0;
  int replicas_per_block = 0;  // the fastest of the block shapes tried
  int registers = 0;
};

// Times each kernel for about `seconds` on setup.device with setup.replicas copies of
// `positions_A` (2 to 512 beads), the model parameters, seed and temperature of `setup`
// (first step's kT). A kernel not built for that size (or, tiles-model, without the
// topology), or whose block of one replica does not fit in shared memory, comes back with
// steps = 0.
std::vector<CeilingTiming> cuda_ceiling_timings(const EngineSetup& setup, const std::vector<Vec3f>& positions_A,
                                                double seconds);

// Runs `steps` steps of one kernel from `positions_A` (every replica) in blocks of
// `replicas_per_block`; returns the positions, replica-major [replica][bead] (for tests).
std::vector<Vec3f> cuda_ceiling_run(const EngineSetup& setup, const std::vector<Vec3f>& positions_A,
                                    CeilingKernel kernel, int steps, int replicas_per_block);

}  // namespace ermak
