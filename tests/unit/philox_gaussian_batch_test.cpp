// rng/philox_gaussian_batch.h against the scalar rng::gaussian3 that CUDA uses
// (docs/rng.md#cpu-batch): the Philox words equal bit for bit, the Gaussians within
// kGaussianUlps ulps of |g| (libm's logf vs core/float8_math.h's log8; the angle's
// sin/cos is the same function in both; measured worst 2 ulps, ~96 % of values
// bit-identical), over many seeds, streams, replicas,
// bead offsets (aligned and not), and steps with high bits set.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "ermak/rng/philox_gaussian_batch.h"
#include "support/float_ulps.h"

namespace {

using namespace ermak;

constexpr double kGaussianUlps = 4.0;

using test::ulps;  // of the scalar value, the reference here

TEST(PhiloxGaussianBatch, WordsEqualAndGaussiansWithinTolerance) {
  std::mt19937_64 gen(20261121);
  double worst = 0;
  std::int64_t values = 0, identical = 0;
  for (int trial = 0; trial < 100000; ++trial) {
    const std::uint64_t seed = gen();
    const rng::Stream stream = trial % 5 == 0 ? rng::Stream::kTipLangevin : rng::Stream::kBeadLangevin;
    const std::uint32_t replica = std::uint32_t(gen() % 1000);
    const std::uint32_t bead = trial % 3 == 0 ? std::uint32_t(gen()) : std::uint32_t(gen() % 100000);
    const std::uint64_t step = trial % 4 == 0 ? gen() & 0xffffffffffffull : gen() % 10000000;
    const rng::PhiloxWords8 w = rng::philox_block8(seed, stream, replica, bead, step);
    const rng::Gaussians8 g = rng::gaussian3_from_words8(w);
    const rng::Gaussians8 g2 = rng::gaussian3_batch8(seed, stream, replica, bead, step);
    for (std::uint32_t k = 0; k < 8; ++k) {
      const auto want = rng::philox_block(seed, stream, replica, bead + k, step);
      for (int j = 0; j < 4; ++j) ASSERT_EQ(w.words[j][k], want[j]) << "word " << j << " lane " << k;
      const Vec3f s = rng::gaussian3(seed, stream, replica, bead + k, step);
      const float got[3] = {g.x.v[k], g.y.v[k], g.z.v[k]}, ref[3] = {s.x, s.y, s.z};
      const float again[3] = {g2.x.v[k], g2.y.v[k], g2.z.v[k]};
      for (int c = 0; c < 3; ++c) {
        ASSERT_EQ(got[c], again[c]);
        worst = std::max(worst, ulps(got[c], ref[c]));
        identical += got[c] == ref[c];
        ++values;
      }
    }
  }
  EXPECT_LE(worst, kGaussianUlps);
  // Most values are bit-identical (the functions disagree by an ulp only occasionally).
  EXPECT_GT(double(identical) / double(values), 0.5);
}

TEST(PhiloxGaussianBatch, ExtremeWordsGiveTheTruncatedTails) {
  // w0 = 0 → u_open = 2⁻²⁴, radius sqrt(2·24 ln 2) = 5.768; w1 = 0 → angle 0.
  rng::PhiloxWords8 w;
  for (auto& word : w.words) word = U8{} + 0u;
  const rng::Gaussians8 g = rng::gaussian3_from_words8(w);
  float x, y;
  rng::box_muller(0u, 0u, x, y);
  EXPECT_NEAR(g.x.v[0], x, 1e-6);
  EXPECT_EQ(g.y.v[0], 0.0f);
  EXPECT_NEAR(g.x.v[0], std::sqrt(48.0 * std::log(2.0)), 1e-6);
  // w0 = all ones → u_open = 1, radius 0.
  for (auto& word : w.words) word = U8{} + 0xffffffffu;
  const rng::Gaussians8 zero = rng::gaussian3_from_words8(w);
  EXPECT_EQ(zero.x.v[3], 0.0f);
  EXPECT_EQ(zero.z.v[7], 0.0f);
}

}  // namespace
