#pragma once
// Twelve lone beads — no bonds, no native contacts, so every pair is repulsive (the SOP
// model excludes bonded and native pairs only: build_exclusions) — beads 0–9 on a grid of
// 40 Å, bead 10 at distance d10 from bead 1 and bead 11 at d11 from bead 6, both along
// (2, 3, 6)/7, every other pair more than 23 Å (cutoff + the default 3 Å skin) apart: the
// repulsion's cutoff tests of both engines (tests/unit/cpu_engine_forces_test.cpp,
// tests/cuda/cuda_engine_test.cpp). Twelve beads span clusters of the CPU list (4-bead
// rows, 8-bead columns) and are enough for the CUDA block family's tiles layout (8 to 64).
#include <cstdint>
#include <vector>

#include "ermak/core/vec3.h"
#include "ermak/model/topology.h"

namespace ermak::test {

inline constexpr std::int32_t kLoneBeads = 12;

inline Topology lone_beads() {
  Topology t;
  t.name = "lone beads";
  t.beads.resize(kLoneBeads);
  for (std::int32_t k = 0; k < kLoneBeads; ++k) t.beads[k].residue_number = k + 1;
  return t;
}

inline std::vector<Vec3f> lone_bead_pairs(double d10_A, double d11_A) {
  std::vector<Vec3f> x;
  for (int k = 0; k < 10; ++k) x.push_back(vec_cast<float>(40.0 * Vec3d{k % 3 - 1.0, (k / 3) % 2 - 0.5, k / 6 - 0.5}));
  const Vec3d u{2.0 / 7, 3.0 / 7, 6.0 / 7};
  x.push_back(vec_cast<float>(vec_cast<double>(x[1]) + d10_A * u));
  x.push_back(vec_cast<float>(vec_cast<double>(x[6]) + d11_A * u));
  return x;
}

}  // namespace ermak::test
