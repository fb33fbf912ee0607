// Known-answer tests of every generator of src/ermak/rng (docs/rng.md). Each library
// generator is checked against a second, straightforward implementation written here
// from the published algorithm (not calling the library), and against published values
// where they exist: Random123's known-answer vectors for Philox4x32-10, std::mt19937 and
// the reference mt19937ar.c output for MT19937, Vigna's splitmix64 for the seeder.
#include <gtest/gtest.h>

#include <Random123/philox.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "ermak/rng/gaussian.h"
#include "ermak/rng/hybrid_taus.h"
#include "ermak/rng/lagged_fibonacci.h"
#include "ermak/rng/lcg.h"
#include "ermak/rng/mt19937.h"
#include "ermak/rng/noise_source.h"
#include "ermak/rng/philox_gaussian.h"
#include "ermak/rng/ran2.h"
#include "ermak/rng/splitmix64.h"

namespace {

using namespace ermak;
using std::uint32_t;
using std::uint64_t;

// ---------- independent reference implementations ----------

// SplitMix64 (Vigna, splitmix64.c).
struct RefSplitMix {
  uint64_t x;
  uint64_t next() {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint32_t next32() { return uint32_t(next() >> 32); }
};
uint64_t ref_mix(uint64_t z) {
  RefSplitMix s{z - 0x9e3779b97f4a7c15ULL};
  return s.next();
}
// docs/rng.md#seeding: start = mix(seed ^ tag·C) ^ mix(replica·2^32 + bead).
RefSplitMix ref_seeder(uint64_t seed, uint32_t tag, uint32_t replica, uint32_t bead) {
  return RefSplitMix{ref_mix(seed ^ (uint64_t(tag) * 0xD1B54A32D192ED03ULL)) ^ ref_mix((uint64_t(replica) << 32) | bead)};
}

// Numerical Recipes "quick and dirty" LCG, in 64-bit arithmetic.
uint32_t ref_lcg(uint32_t& x) {
  x = uint32_t((1664525ULL * x + 1013904223ULL) & 0xffffffffULL);
  return x;
}

// Numerical Recipes ran2, with Schrage's factorisation as published.
struct RefRan2 {
  static constexpr long IM1 = 2147483563, IM2 = 2147483399, IMM1 = IM1 - 1, IA1 = 40014, IA2 = 40692,
                        IQ1 = 53668, IQ2 = 52774, IR1 = 12211, IR2 = 3791, NTAB = 32, NDIV = 1 + IMM1 / NTAB;
  long idum, idum2, iy, iv[NTAB];
  // NR's first call with idum = -seed (and, for ermak's seeding, idum2 given separately).
  RefRan2(long seed, long seed2) {
    idum = seed;
    for (long j = NTAB + 7; j >= 0; j--) {
      long k = idum / IQ1;
      idum = IA1 * (idum - k * IQ1) - k * IR1;
      if (idum < 0) idum += IM1;
      if (j < NTAB) iv[j] = idum;
    }
    iy = iv[0];
    idum2 = seed2;
  }
  long next() {
    long k = idum / IQ1;
    idum = IA1 * (idum - k * IQ1) - k * IR1;
    if (idum < 0) idum += IM1;
    k = idum2 / IQ2;
    idum2 = IA2 * (idum2 - k * IQ2) - k * IR2;
    if (idum2 < 0) idum2 += IM2;
    long j = iy / NDIV;
    iy = iv[j] - idum2;
    iv[j] = idum;
    if (iy < 1) iy += IMM1;
    return iy;
  }
};

// Hybrid Taus as in GPU Gems 3, ch. 37 (TausStep / LCGStep).
struct RefTaus {
  uint32_t z1, z2, z3, z4;
  static uint32_t taus(uint32_t& z, int S1, int S2, int S3, uint32_t M) {
    uint32_t b = (((z << S1) ^ z) >> S2);
    return z = (((z & M) << S3) ^ b);
  }
  static uint32_t lcg(uint32_t& z, uint32_t A, uint32_t C) { return z = (A * z + C); }
  uint32_t next() {
    return taus(z1, 13, 19, 12, 4294967294UL) ^ taus(z2, 2, 25, 4, 4294967288UL) ^ taus(z3, 3, 11, 17, 4294967280UL) ^
           lcg(z4, 1664525, 1013904223UL);
  }
};

// MT19937 as in the reference mt19937ar.c: init_genrand, init_by_array, block twist.
struct RefMt {
  uint32_t mt[624];
  int mti = 625;
  void init_genrand(uint32_t s) {
    mt[0] = s;
    for (mti = 1; mti < 624; mti++) mt[mti] = (1812433253UL * (mt[mti - 1] ^ (mt[mti - 1] >> 30)) + uint32_t(mti));
  }
  void init_by_array(const uint32_t* key, int len) {
    init_genrand(19650218UL);
    int i = 1, j = 0, k = (624 > len ? 624 : len);
    for (; k; k--) {
      mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525UL)) + key[j] + uint32_t(j);
      i++; j++;
      if (i >= 624) { mt[0] = mt[623]; i = 1; }
      if (j >= len) j = 0;
    }
    for (k = 623; k; k--) {
      mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941UL)) - uint32_t(i);
      i++;
      if (i >= 624) { mt[0] = mt[623]; i = 1; }
    }
    mt[0] = 0x80000000UL;
  }
  uint32_t next() {
    static const uint32_t mag01[2] = {0x0UL, 0x9908b0dfUL};
    uint32_t y;
    if (mti >= 624) {
      int kk;
      for (kk = 0; kk < 624 - 397; kk++) {
        y = (mt[kk] & 0x80000000UL) | (mt[kk + 1] & 0x7fffffffUL);
        mt[kk] = mt[kk + 397] ^ (y >> 1) ^ mag01[y & 0x1UL];
      }
      for (; kk < 623; kk++) {
        y = (mt[kk] & 0x80000000UL) | (mt[kk + 1] & 0x7fffffffUL);
        mt[kk] = mt[kk + (397 - 624)] ^ (y >> 1) ^ mag01[y & 0x1UL];
      }
      y = (mt[623] & 0x80000000UL) | (mt[0] & 0x7fffffffUL);
      mt[623] = mt[396] ^ (y >> 1) ^ mag01[y & 0x1UL];
      mti = 0;
    }
    y = mt[mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680UL;
    y ^= (y << 15) & 0xefc60000UL;
    y ^= (y >> 18);
    return y;
  }
};

// Philox4x32-10 (Salmon et al., SC'11): 10 rounds of
//   (L0, R0, L1, R1) ← (hi(M1 R1) ^ k0 ^ L1, lo(M1 R1), hi(M0 R0) ^ k1 ^ L0, lo(M0 R0))
// on counter words (R0, L0, R1, L1) = (c0, c1, c2, c3), with the Weyl key schedule.
std::array<uint32_t, 4> ref_philox(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) { k[0] += 0x9E3779B9u; k[1] += 0xBB67AE85u; }
    const uint64_t p0 = uint64_t(0xD2511F53u) * c[0], p1 = uint64_t(0xCD9E8D57u) * c[2];
    c = {uint32_t(p1 >> 32) ^ c[1] ^ k[0], uint32_t(p1), uint32_t(p0 >> 32) ^ c[3] ^ k[1], uint32_t(p0)};
  }
  return c;
}

// Additive lagged Fibonacci as a plain growing array.
std::vector<uint32_t> ref_lagged_fibonacci(std::vector<uint32_t> x, int s, int l, std::size_t count) {
  const std::size_t start = x.size();
  for (std::size_t n = start; n < start + count; ++n) x.push_back(x[n - std::size_t(s)] + x[n - std::size_t(l)]);
  return std::vector<uint32_t>(x.begin() + std::ptrdiff_t(start), x.end());
}

// ---------- tests ----------

TEST(RngSplitMix64, MatchesVignasReferenceOutput) {
  // splitmix64.c seeded with 1234567 (values also produced by the reference code).
  rng::SplitMix64 s{1234567};
  const uint64_t expected[] = {6457827717110365317ULL, 3203168211198807973ULL, 9817491932198370423ULL,
                               4593380528125082431ULL, 16408922859458223821ULL};
  for (uint64_t e : expected) EXPECT_EQ(rng::splitmix64_next(s), e);
  RefSplitMix r{987654321};
  rng::SplitMix64 t{987654321};
  for (int k = 0; k < 1000; ++k) ASSERT_EQ(rng::splitmix64_next(t), r.next());
}

TEST(RngSplitMix64, SeedingStreamsFollowTheDocumentedFormula) {
  for (uint32_t replica : {0u, 3u})
    for (uint32_t bead : {0u, 1u, 99999u}) {
      rng::SplitMix64 s = rng::seeding_stream(42, rng::GeneratorTag::kRan2, replica, bead);
      RefSplitMix r = ref_seeder(42, 2, replica, bead);
      for (int k = 0; k < 8; ++k) ASSERT_EQ(rng::splitmix64_next(s), r.next());
    }
}

TEST(RngLcg, MatchesNumericalRecipesQuickAndDirty) {
  rng::LcgState s{0};
  EXPECT_EQ(rng::lcg_next(s), 1013904223u);  // NR §7.1: from 0
  EXPECT_EQ(rng::lcg_next(s), 1196435762u);
  EXPECT_EQ(rng::lcg_next(s), 3519870697u);
  for (uint32_t seed : {1u, 12345u, 0xffffffffu}) {
    rng::LcgState t{seed};
    uint32_t r = seed;
    for (int k = 0; k < 10000; ++k) ASSERT_EQ(rng::lcg_next(t), ref_lcg(r));
  }
}

TEST(RngRan2, MatchesNumericalRecipesRan2) {
  for (long seed : {1L, 12345L, 2147483562L}) {
    rng::Ran2State s;
    rng::ran2_init_nr(s, std::int32_t(seed));
    RefRan2 r(seed, seed);
    for (int k = 0; k < 100000; ++k) ASSERT_EQ(rng::ran2_next(s), r.next()) << "seed " << seed << " output " << k;
  }
  // ermak's seeding: the two LCGs start from independent values.
  rng::SplitMix64 seeder = rng::seeding_stream(7, rng::GeneratorTag::kRan2, 0, 5);
  rng::Ran2State s = rng::ran2_seed(seeder);
  RefSplitMix ref_seeder_7 = ref_seeder(7, 2, 0, 5);
  const uint64_t w = ref_seeder_7.next();
  RefRan2 r(long(uint32_t(w) % 2147483562u) + 1, long(uint32_t(w >> 32) % 2147483398u) + 1);
  for (int k = 0; k < 10000; ++k) ASSERT_EQ(rng::ran2_next(s), r.next());
}

TEST(RngRan2, WordsKeepTheTopBitsOfTheOutput) {
  rng::Ran2State a, b;
  rng::ran2_init_nr(a, 99);
  rng::ran2_init_nr(b, 99);
  for (int k = 0; k < 1000; ++k) {
    const uint32_t iy = uint32_t(rng::ran2_next(a));
    ASSERT_EQ(rng::ran2_word(b), (iy - 1) << 1);
  }
  for (int k = 0; k < 1000; ++k) {
    const uint32_t hi = (uint32_t(rng::ran2_next(a)) - 1) >> 15, lo = (uint32_t(rng::ran2_next(a)) - 1) >> 15;
    ASSERT_EQ(rng::ran2_word32(b), (hi << 16) | lo);
  }
}

TEST(RngHybridTaus, MatchesGpuGemsHybridTaus) {
  for (const auto& init : {rng::HybridTausState{128, 129, 130, 131},
                           rng::HybridTausState{0xdeadbeef, 0x12345678, 0x9abcdef0, 0}}) {
    rng::HybridTausState s = init;
    RefTaus r{init.z1, init.z2, init.z3, init.z4};
    for (int k = 0; k < 100000; ++k) ASSERT_EQ(rng::hybrid_taus_next(s), r.next());
  }
  rng::HybridTausState s{128, 129, 130, 131};
  RefTaus r{128, 129, 130, 131};
  EXPECT_FLOAT_EQ(rng::hybrid_taus_uniform(s), 2.3283064365387e-10f * float(r.next()));
}

TEST(RngHybridTaus, SeedingRespectsTheTauswortheMinimumStates) {
  for (uint32_t bead = 0; bead < 10000; ++bead) {
    rng::SplitMix64 seeder = rng::seeding_stream(1, rng::GeneratorTag::kHybridTaus, 0, bead);
    const rng::HybridTausState s = rng::hybrid_taus_seed(seeder);
    ASSERT_GE(s.z1, 2u);
    ASSERT_GE(s.z2, 8u);
    ASSERT_GE(s.z3, 16u);
  }
}

TEST(RngMt19937, MatchesStdMt19937) {
  for (uint32_t seed : {5489u, 1u, 4357u, 0xffffffffu}) {
    rng::Mt19937State s;
    rng::mt19937_init_genrand(s, seed);
    std::mt19937 reference(seed);
    for (int k = 0; k < 5000; ++k) ASSERT_EQ(rng::mt19937_next(s), reference()) << "seed " << seed << " output " << k;
  }
  // The C++ standard's check: the 10000th output of a default-seeded mt19937.
  rng::Mt19937State s;
  rng::mt19937_init_genrand(s, 5489u);
  uint32_t x = 0;
  for (int k = 0; k < 10000; ++k) x = rng::mt19937_next(s);
  EXPECT_EQ(x, 4123659995u);
}

TEST(RngMt19937, InitByArrayMatchesReferenceOutput) {
  const uint32_t key[] = {0x123, 0x234, 0x345, 0x456};
  rng::Mt19937State s;
  rng::mt19937_init_by_array(s, key, 4);
  // First outputs printed by mt19937ar.c's main() (mt19937ar.out).
  const uint32_t published[] = {1067595299u, 955945823u, 477289528u, 4107218783u, 4228976476u};
  for (uint32_t e : published) EXPECT_EQ(rng::mt19937_next(s), e);
  RefMt r;
  r.init_by_array(key, 4);
  for (int k = 0; k < 5; ++k) r.next();
  for (int k = 0; k < 5000; ++k) ASSERT_EQ(rng::mt19937_next(s), r.next());
}

TEST(RngPhilox, MatchesRandom123KnownAnswerVectors) {
  // Random123 kat_vectors: philox4x32 10 <ctr ×4> <key ×2> <output ×4>.
  struct Kat {
    std::array<uint32_t, 4> ctr;
    std::array<uint32_t, 2> key;
    std::array<uint32_t, 4> out;
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& kat : kats) {
    r123::Philox4x32 philox;
    const r123::Philox4x32::ctr_type c = {{kat.ctr[0], kat.ctr[1], kat.ctr[2], kat.ctr[3]}};
    const r123::Philox4x32::key_type k = {{kat.key[0], kat.key[1]}};
    const auto out = philox(c, k);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], kat.out[i]);
    EXPECT_EQ(ref_philox(kat.ctr, kat.key), kat.out);
  }
}

TEST(RngPhilox, BlockIsPhiloxOfTheDocumentedCounter) {
  // docs/model.md#noise: key = (seed lo, seed hi); counter = (bead, replica, step lo,
  // step bits 32-47 | stream << 16).
  const uint64_t seed = 0x0123456789abcdefULL, step = 0x0000'7654'3210'fedcULL;
  const auto block = rng::philox_block(seed, rng::Stream::kBeadLangevin, 17, 123456, step);
  const auto ref = ref_philox({123456, 17, uint32_t(step), uint32_t(step >> 32) | (1u << 16)},
                              {uint32_t(seed), uint32_t(seed >> 32)});
  for (int i = 0; i < 4; ++i) EXPECT_EQ(block[i], ref[i]);
}

TEST(RngLaggedFibonacci, LagTableAndWindows) {
  ASSERT_EQ(rng::kLagPairCount, 10);
  for (const rng::LagPair& p : rng::kLagPairs) EXPECT_LT(p.short_lag, p.long_lag);
  EXPECT_EQ(rng::choose_lagged_fibonacci_lags(1).long_lag, 2281);
  EXPECT_EQ(rng::choose_lagged_fibonacci_lags(1029).long_lag, 2281);   // min(1252, 1029)
  EXPECT_EQ(rng::choose_lagged_fibonacci_lags(1030).long_lag, 4423);
  EXPECT_EQ(rng::choose_lagged_fibonacci_lags(4000).long_lag, 9689);   // 1000 beads
  EXPECT_EQ(rng::choose_lagged_fibonacci_lags(1010202).long_lag, 3021377);
  EXPECT_EQ(rng::choose_lagged_fibonacci_lags(4000000).long_lag, 3021377);  // several windows
}

TEST(RngLaggedFibonacci, WindowsOfAnySizeGiveTheSequence) {
  const rng::LagPair lags{1252, 2281};
  std::vector<uint32_t> init(2281);
  RefSplitMix s{5};
  for (auto& x : init) x = s.next32();
  const auto expected = ref_lagged_fibonacci(init, 1252, 2281, 20000);
  for (int window : {1, 7, 1000, rng::lagged_fibonacci_window(lags)}) {
    std::vector<uint32_t> ring = init;
    std::vector<uint32_t> got;
    int head = 0;
    while (got.size() < expected.size()) {
      // In each window compute all elements in reverse order — any order must give the
      // same result when the window is no larger than min(s, l - s).
      std::vector<uint32_t> w(static_cast<std::size_t>(window));
      for (int j = window - 1; j >= 0; --j) w[std::size_t(j)] = rng::lagged_fibonacci_element(ring.data(), lags, head, j);
      got.insert(got.end(), w.begin(), w.end());
      head = (head + window) % 2281;
    }
    got.resize(expected.size());
    EXPECT_EQ(got, expected) << "window " << window;
  }
}

TEST(RngLaggedFibonacci, WordStreamIsTheSeededSequence) {
  const std::int32_t beads = 1000;  // 4000 words per step: lags (5502, 9689)
  std::vector<uint32_t> init(9689);
  RefSplitMix s = ref_seeder(77, 4, 2, 0);
  for (auto& x : init) x = s.next32();
  init[0] |= 1u;
  const auto expected = ref_lagged_fibonacci(init, 5502, 9689, 30000);
  auto stream = rng::make_word_stream("lagged_fibonacci", "shared", 77, 2, beads);
  for (std::size_t k = 0; k < expected.size(); ++k) ASSERT_EQ(stream->next(), expected[k]) << k;
}

TEST(RngPerThreadStreams, WordStreamsAreTheSeededGenerators) {
  // per_thread stream k = the generator of (replica 0, bead k), seeded from SplitMix64.
  {
    auto stream = rng::make_word_stream("lcg", "", 9, 3, 10);
    uint32_t x = ref_seeder(9, 1, 0, 3).next32();
    for (int k = 0; k < 1000; ++k) ASSERT_EQ(stream->next(), ref_lcg(x));
  }
  {
    auto stream = rng::make_word_stream("hybrid_taus", "", 9, 3, 10);
    RefSplitMix seeder = ref_seeder(9, 3, 0, 3);
    RefTaus r;
    do r.z1 = seeder.next32(); while (r.z1 < 2);
    do r.z2 = seeder.next32(); while (r.z2 < 8);
    do r.z3 = seeder.next32(); while (r.z3 < 16);
    r.z4 = seeder.next32();
    for (int k = 0; k < 1000; ++k) ASSERT_EQ(stream->next(), r.next());
  }
  {
    auto stream = rng::make_word_stream("mt19937", "per_thread", 9, 3, 10);
    RefSplitMix seeder = ref_seeder(9, 5, 0, 3);
    uint32_t key[4];
    for (auto& k : key) k = seeder.next32();
    RefMt r;
    r.init_by_array(key, 4);
    for (int k = 0; k < 2000; ++k) ASSERT_EQ(stream->next(), r.next());
  }
  {
    auto stream = rng::make_word_stream("mt19937", "shared", 9, 4, 10);  // replica 4
    RefSplitMix seeder = ref_seeder(9, 5, 4, 0);
    uint32_t key[4];
    for (auto& k : key) k = seeder.next32();
    RefMt r;
    r.init_by_array(key, 4);
    for (int k = 0; k < 2000; ++k) ASSERT_EQ(stream->next(), r.next());
  }
  {
    auto stream = rng::make_word_stream("philox", "", 9, 3, 10);
    for (uint32_t step = 0; step < 100; ++step) {
      const auto ref = ref_philox({3, 0, step, 1u << 16}, {9, 0});
      for (int i = 0; i < 4; ++i) ASSERT_EQ(stream->next(), ref[i]);
    }
  }
  {
    auto stream = rng::make_word_stream("ran2", "", 9, 3, 10);
    const uint64_t w = ref_seeder(9, 2, 0, 3).next();
    RefRan2 r(long(uint32_t(w) % 2147483562u) + 1, long(uint32_t(w >> 32) % 2147483398u) + 1);
    for (int k = 0; k < 1000; ++k) {
      const uint32_t hi = uint32_t(r.next() - 1) >> 15, lo = uint32_t(r.next() - 1) >> 15;
      ASSERT_EQ(stream->next(), (hi << 16) | lo);
    }
  }
}

TEST(RngPerThreadStreams, InterleaveTakesOneWordFromEachStreamInTurn) {
  auto mixed = rng::make_interleaved_word_stream("hybrid_taus", "per_thread", 5, 3, 10);
  std::vector<std::unique_ptr<rng::WordStream>> single;
  for (uint32_t k = 0; k < 3; ++k) single.push_back(rng::make_word_stream("hybrid_taus", "per_thread", 5, k, 10));
  for (int k = 0; k < 300; ++k) ASSERT_EQ(mixed->next(), single[std::size_t(k % 3)]->next());
}

TEST(RngGaussian, BoxMullerOfFourWordsIsGaussian3) {
  // The common transform equals the engine's rng::gaussian3 on the same Philox block...
  for (uint32_t bead = 0; bead < 100; ++bead) {
    const auto b = rng::philox_block(11, rng::Stream::kBeadLangevin, 2, bead, 77);
    const Vec3f g = rng::gaussian3_from_words(b[0], b[1], b[2], b[3]);
    const Vec3f e = rng::gaussian3(11, rng::Stream::kBeadLangevin, 2, bead, 77);
    ASSERT_EQ(g.x, e.x);
    ASSERT_EQ(g.y, e.y);
    ASSERT_EQ(g.z, e.z);
  }
  // ... and the documented formula, evaluated independently in double precision.
  RefSplitMix s{3};
  for (int k = 0; k < 1000; ++k) {
    const uint32_t w0 = s.next32(), w1 = s.next32(), w2 = s.next32(), w3 = s.next32();
    const Vec3f g = rng::gaussian3_from_words(w0, w1, w2, w3);
    auto u_open = [](uint32_t w) { return double((w >> 8) + 1) / 16777216.0; };
    auto u_closed = [](uint32_t w) { return double(w >> 8) / 16777216.0; };
    const double r0 = std::sqrt(-2 * std::log(u_open(w0))), r1 = std::sqrt(-2 * std::log(u_open(w2)));
    const double t0 = 2 * M_PI * u_closed(w1), t1 = 2 * M_PI * u_closed(w3);
    ASSERT_NEAR(g.x, r0 * std::cos(t0), 2e-6 * (1 + r0));
    ASSERT_NEAR(g.y, r0 * std::sin(t0), 2e-6 * (1 + r0));
    ASSERT_NEAR(g.z, r1 * std::cos(t1), 2e-6 * (1 + r1));
  }
}

}  // namespace
