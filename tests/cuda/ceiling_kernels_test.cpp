// The idealised kernels of `ermak bench --ceiling` do the work they claim: one step of
// each equals the host's sum of the same pair terms (all partners, or the half that
// counts each pair once), noise and move — so the ceiling's rates time real arithmetic.
#include <cmath>

#include "cuda/cuda_test_support.h"
#include "ermak/backend/cuda_ceiling.h"
#include "ermak/core/error.h"
#include "ermak/model/topology.h"
#include "ermak/physics/fene.h"
#include "ermak/physics/langevin_step.h"
#include "ermak/physics/native_contact.h"
#include "ermak/physics/repulsion.h"
#include "ermak/rng/philox_gaussian.h"

namespace ermak::cudatest {
namespace {

// The host's step of a ceiling kernel for every replica (replica-major result).
std::vector<Vec3f> host_ceiling_step(const EngineSetup& setup, const std::vector<Vec3f>& x, CeilingKernel kernel) {
  const int n = int(x.size());
  const SopParameters& sop = setup.sop;
  const physics::RepulsionParameters rep{sop.repulsion_eps_kcal_per_mol,
                                         sop.repulsion_sigma_A * sop.repulsion_sigma_A,
                                         sop.pair_cutoff_A * sop.pair_cutoff_A};
  const auto coeff = physics::langevin_coefficients(setup.langevin.timestep_tau, setup.langevin.zeta,
                                                    setup.temperature.at_step(0));
  const auto keys = rng::philox_keys(setup.seed);
  const bool pairs = kernel != CeilingKernel::kNoiseAndMove;
  const bool once = kernel == CeilingKernel::kPairsOnce || kernel == CeilingKernel::kPairsOnceNoNoise;
  // With the reactions (atomics, slots, tiles) every bead gets every partner's term: the whole sum.
  const bool noise = kernel != CeilingKernel::kPairsOnceNoNoise;
  std::vector<Vec3f> out;
  for (int r = 0; r < setup.replicas; ++r)
    for (int i = 0; i < n; ++i) {
      Vec3f f{0, 0, 0};
      if (pairs) {
        const int partners = once ? (n - 1) / 2 : n - 1;
        std::vector<int> js;
        for (int k = 1; k <= partners; ++k) js.push_back((i + k) % n);
        if (once && n % 2 == 0 && i < n / 2) js.push_back(i + n / 2);
        for (int j : js) {
          const Vec3f d = x[i] - x[j];
          const float r2 = d.x * d.x + d.y * d.y + d.z * d.z;
          if (r2 < rep.cutoff2) f += physics::repulsion<false>(r2, rep).force_over_r * d;
        }
      }
      const Vec3f g = noise ? rng::gaussian3(keys, rng::Stream::kBeadLangevin, std::uint32_t(r), std::uint32_t(i), 0)
                            : Vec3f{0, 0, 0};
      out.push_back(x[i] + physics::langevin_displacement(f, g, coeff));
    }
  return out;
}

// A system's start structure in single precision (the kernels' input).
std::vector<Vec3f> positions_of(const LoadedSystem& system) {
  std::vector<Vec3f> x;
  for (const Vec3d& p : system.initial_positions_A) x.push_back(vec_cast<float>(p));
  return x;
}

TEST(CeilingKernels, OneStepEqualsTheHostsSumOfTheSamePairs) {
  ERMAK_REQUIRE_GPU();
  const auto ww = load_test_system("ww");
  if (!ww) FAIL() << "WW test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const std::vector<Vec3f> x = positions_of(ww->system);
  std::vector<Vec3f> odd(x.begin(), x.end() - 1);  // 33 beads: no opposite bead
  EngineSetup setup;
  setup.replicas = 5;  // two blocks of 3, the second partly filled
  setup.seed = 77;
  for (const auto& start : {x, odd})
    for (CeilingKernel kernel : {CeilingKernel::kPairsTwice, CeilingKernel::kPairsOnce,
                                 CeilingKernel::kPairsOnceAtomics, CeilingKernel::kPairsOnceSlots,
                                 CeilingKernel::kPairsOnceTiles, CeilingKernel::kNoiseAndMove,
                                 CeilingKernel::kPairsOnceNoNoise}) {
      SCOPED_TRACE(ceiling_kernel_name(kernel) + ", " + std::to_string(start.size()) + " beads");
      const std::vector<Vec3f> gpu = cuda_ceiling_run(setup, start, kernel, 1, 3);
      const std::vector<Vec3f> host = host_ceiling_step(setup, start, kernel);
      ASSERT_EQ(gpu.size(), host.size());
      double worst = 0.0, moved = 0.0;
      for (std::size_t e = 0; e < gpu.size(); ++e) {
        const Vec3f d = gpu[e] - host[e], step = host[e] - start[e % start.size()];
        worst = std::max(worst, double(std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z)));
        moved = std::max(moved, double(std::sqrt(step.x * step.x + step.y * step.y + step.z * step.z)));
      }
      // The GPU's reciprocal and Box–Muller differ from the host's by a few ulp.
      EXPECT_LT(worst, 1e-5) << "largest step " << moved << " Å";
      EXPECT_GT(moved, 1e-3);  // the step moved the beads
    }
}

TEST(CeilingKernels, TilesWithTheModelTakeOneStepOfThePlainDynamics) {
  // tiles-model and tiles-unified: every force term of a plain run (FENE bonds, native contacts, the
  // repulsion of the other pairs within the cutoff), noise and move — one step equals the
  // host's, from WW's start structure.
  ERMAK_REQUIRE_GPU();
  const auto ww = load_test_system("ww");
  if (!ww) FAIL() << "WW test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const Topology& topology = ww->system.topology;
  const std::vector<Vec3f> x = positions_of(ww->system);
  const int n = int(x.size());
  EngineSetup setup;
  setup.topology = &topology;
  setup.replicas = 5;
  setup.seed = 91;
  const SopParameters& sop = setup.sop;
  const physics::RepulsionParameters rep{sop.repulsion_eps_kcal_per_mol,
                                         sop.repulsion_sigma_A * sop.repulsion_sigma_A,
                                         sop.pair_cutoff_A * sop.pair_cutoff_A};
  const physics::FeneParameters fene{sop.fene_k_kcal_per_mol_A2, sop.fene_R0_A};
  const ExclusionList exclusions = build_exclusions(topology);
  std::vector<Vec3f> force(n, Vec3f{0, 0, 0});
  auto add = [&](int i, int j, float force_over_r) {
    force[i] += force_over_r * (x[i] - x[j]);
    force[j] -= force_over_r * (x[i] - x[j]);
  };
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      const Vec3f d = x[i] - x[j];
      const float r2 = d.x * d.x + d.y * d.y + d.z * d.z;
      if (!exclusions.excluded(i, j) && r2 < rep.cutoff2) add(i, j, physics::repulsion<false>(r2, rep).force_over_r);
    }
  for (const Bond& b : topology.bonds) {
    const Vec3f d = x[b.i] - x[b.j];
    add(b.i, b.j, physics::fene<false>(d.x * d.x + d.y * d.y + d.z * d.z, b.r0_A, fene).force_over_r);
  }
  for (const NativeContact& c : topology.native_contacts) {
    const Vec3f d = x[c.i] - x[c.j];
    add(c.i, c.j, physics::native_contact<false>(d.x * d.x + d.y * d.y + d.z * d.z, c.r0_A, c.eh_kcal_per_mol).force_over_r);
  }
  const auto coeff = physics::langevin_coefficients(setup.langevin.timestep_tau, setup.langevin.zeta,
                                                    setup.temperature.at_step(0));
  const auto keys = rng::philox_keys(setup.seed);
  for (CeilingKernel kernel : {CeilingKernel::kTilesWithModel, CeilingKernel::kTilesUnified}) {
    SCOPED_TRACE(ceiling_kernel_name(kernel));
    const std::vector<Vec3f> gpu = cuda_ceiling_run(setup, x, kernel, 1, 3);
    ASSERT_EQ(gpu.size(), std::size_t(setup.replicas) * n);
    double worst = 0.0;
    for (int r = 0; r < setup.replicas; ++r)
      for (int i = 0; i < n; ++i) {
        const Vec3f g = rng::gaussian3(keys, rng::Stream::kBeadLangevin, std::uint32_t(r), std::uint32_t(i), 0);
        const Vec3f host = x[i] + physics::langevin_displacement(force[i], g, coeff);
        const Vec3f d = gpu[std::size_t(r) * n + i] - host;
        worst = std::max(worst, double(std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z)));
      }
    EXPECT_LT(worst, 1e-5);
  }
  // Without the topology the kernels are refused, not run on garbage.
  setup.topology = nullptr;
  EXPECT_THROW(cuda_ceiling_run(setup, x, CeilingKernel::kTilesWithModel, 1, 3), Error);
  EXPECT_THROW(cuda_ceiling_run(setup, x, CeilingKernel::kTilesUnified, 1, 3), Error);
}

TEST(CeilingKernels, PairsOnceDiffersFromPairsTwice) {
  // The half sum is not the whole one: the once kernel really skips half of the partners.
  ERMAK_REQUIRE_GPU();
  const auto ww = load_test_system("ww");
  if (!ww) FAIL() << "WW test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const std::vector<Vec3f> x = positions_of(ww->system);
  EngineSetup setup;
  setup.replicas = 2;
  const auto once = cuda_ceiling_run(setup, x, CeilingKernel::kPairsOnce, 1, 2);
  const auto twice = cuda_ceiling_run(setup, x, CeilingKernel::kPairsTwice, 1, 2);
  double differ = 0.0;
  for (std::size_t e = 0; e < once.size(); ++e) {
    const Vec3f d = once[e] - twice[e];
    differ = std::max(differ, double(std::abs(d.x) + std::abs(d.y) + std::abs(d.z)));
  }
  EXPECT_GT(differ, 1e-4);
}

TEST(CeilingKernels, TimingsCoverEveryKernel) {
  ERMAK_REQUIRE_GPU();
  const auto ww = load_test_system("ww");
  if (!ww) FAIL() << "WW test data not found" << " (the shared test data: set ERMAK_SHARED_DATA)";
  const std::vector<Vec3f> x = positions_of(ww->system);
  EngineSetup setup;
  setup.topology = &ww->system.topology;
  setup.replicas = 100;
  const auto timings = cuda_ceiling_timings(setup, x, 0.05);
  ASSERT_EQ(timings.size(), 9u);
  for (const auto& t : timings) {
    EXPECT_GT(t.steps, 0);
    EXPECT_GT(t.seconds, 0.0);
    EXPECT_GT(t.registers, 0);
    EXPECT_GE(t.replicas_per_block, 1);
  }
}

}  // namespace
}  // namespace ermak::cudatest
