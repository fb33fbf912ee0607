// rng::NoiseSource (src/ermak/rng/noise_source.h, docs/rng.md): names and errors, Philox
// equal to the engine's rng::gaussian3 bit for bit, every generator's noise equal to its
// documented word stream through Box–Muller, checkpoints that continue bit-identically,
// and results independent of the number of threads and of concurrent replicas.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <thread>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/rng/gaussian.h"
#include "ermak/rng/noise_source.h"
#include "ermak/rng/philox_gaussian.h"
#include "ermak/rng/splitmix64.h"

namespace {

using namespace ermak;

struct Combo {
  std::string generator, layout;
};
std::vector<Combo> all_combos() {
  std::vector<Combo> combos;
  for (const auto& g : rng::generator_names())
    for (const auto& l : rng::layout_names(g)) combos.push_back({g, l});
  return combos;
}

struct Noise {
  std::vector<float> x, y, z;
  explicit Noise(std::int32_t n) : x(std::size_t(n)), y(std::size_t(n)), z(std::size_t(n)) {}
  bool operator==(const Noise& o) const {  // bitwise
    return std::memcmp(x.data(), o.x.data(), x.size() * 4) == 0 && std::memcmp(y.data(), o.y.data(), y.size() * 4) == 0 &&
           std::memcmp(z.data(), o.z.data(), z.size() * 4) == 0;
  }
};

// Steps [first, last) for every replica, concatenated.
std::vector<Noise> run(rng::NoiseSource& source, std::int32_t replicas, std::int32_t beads, std::int64_t first,
                       std::int64_t last) {
  std::vector<Noise> out;
  for (std::int64_t step = first; step < last; ++step)
    for (std::int32_t r = 0; r < replicas; ++r) {
      Noise n(beads);
      source.fill(r, step, n.x.data(), n.y.data(), n.z.data());
      out.push_back(std::move(n));
    }
  return out;
}

TEST(RngNoiseSource, NamesLayoutsAndErrors) {
  const std::vector<std::string> expected = {"philox", "hybrid_taus", "ran2", "lcg", "lagged_fibonacci", "mt19937"};
  EXPECT_EQ(rng::generator_names(), expected);
  EXPECT_EQ(rng::default_layout("philox"), "per_thread");
  EXPECT_EQ(rng::default_layout("lagged_fibonacci"), "shared");
  EXPECT_EQ(rng::make_noise_source("hybrid_taus", "per_thread", 1, 1, 1)->name(), "hybrid_taus/per_thread");
  EXPECT_EQ(rng::make_noise_source("lagged_fibonacci", "", 1, 1, 1)->name(), "lagged_fibonacci/shared");
  EXPECT_EQ(rng::make_noise_source("mt19937", "shared", 1, 1, 1)->name(), "mt19937/shared");
  EXPECT_EQ(rng::make_noise_source("philox", "default", 1, 1, 1)->name(), "philox/per_thread");
  EXPECT_THROW(rng::make_noise_source("ranlux", "per_thread", 1, 1, 1), Error);
  EXPECT_THROW(rng::make_noise_source("philox", "striped", 1, 1, 1), Error);
  EXPECT_THROW(rng::make_noise_source("lagged_fibonacci", "per_thread", 1, 1, 1), Error);
  EXPECT_THROW(rng::make_noise_source("hybrid_taus", "shared", 1, 1, 1), Error);
  EXPECT_THROW(rng::make_noise_source("philox", "shared", 1, 1, 1), Error);
  EXPECT_THROW(rng::make_noise_source("lcg", "per_thread", 1, 0, 1), Error);
  EXPECT_THROW(rng::make_noise_source("lcg", "per_thread", 1, 1, 0), Error);
  try {
    rng::make_noise_source("ranlux", "per_thread", 1, 1, 1);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("hybrid_taus"), std::string::npos) << "lists the known names: " << e.what();
  }
  auto source = rng::make_noise_source("ran2", "per_thread", 1, 2, 3);
  Noise n(3);
  EXPECT_THROW(source->fill(2, 0, n.x.data(), n.y.data(), n.z.data()), Error);
  EXPECT_THROW(source->fill(-1, 0, n.x.data(), n.y.data(), n.z.data()), Error);
}

TEST(RngNoiseSource, PhiloxEqualsGaussian3BitForBit) {
  const std::uint64_t seed = 0xfeedface12345678ULL;
  auto source = rng::make_noise_source("philox", "per_thread", seed, 3, 5000);
  for (std::int64_t step : {std::int64_t(0), std::int64_t(1), std::int64_t(123456789), std::int64_t(1) << 40}) {
    for (std::int32_t r = 0; r < 3; ++r) {
      Noise n(5000);
      source->fill(r, step, n.x.data(), n.y.data(), n.z.data());
      for (std::int32_t i = 0; i < 5000; ++i) {
        const Vec3f g = rng::gaussian3(seed, rng::Stream::kBeadLangevin, std::uint32_t(r), std::uint32_t(i),
                                       std::uint64_t(step));
        ASSERT_EQ(std::memcmp(&n.x[i], &g.x, 4), 0) << "replica " << r << " bead " << i << " step " << step;
        ASSERT_EQ(std::memcmp(&n.y[i], &g.y, 4), 0);
        ASSERT_EQ(std::memcmp(&n.z[i], &g.z, 4), 0);
      }
    }
  }
}

TEST(RngNoiseSource, PerThreadNoiseIsBoxMullerOfTheThreadsWordStream) {
  for (const char* generator : {"lcg", "hybrid_taus", "mt19937"}) {
    auto source = rng::make_noise_source(generator, "per_thread", 31, 1, 50);
    std::vector<std::unique_ptr<rng::WordStream>> streams;
    for (std::uint32_t i = 0; i < 50; ++i) streams.push_back(rng::make_word_stream(generator, "per_thread", 31, i, 50));
    for (std::int64_t step = 0; step < 20; ++step) {
      Noise n(50);
      source->fill(0, step, n.x.data(), n.y.data(), n.z.data());
      for (std::size_t i = 0; i < 50; ++i) {
        const std::uint32_t w0 = streams[i]->next(), w1 = streams[i]->next(), w2 = streams[i]->next(),
                            w3 = streams[i]->next();
        const Vec3f g = rng::gaussian3_from_words(w0, w1, w2, w3);
        ASSERT_EQ(n.x[i], g.x) << generator;
        ASSERT_EQ(n.y[i], g.y);
        ASSERT_EQ(n.z[i], g.z);
      }
    }
  }
}

TEST(RngNoiseSource, SharedLayoutsGiveBeadIWordsIAndNPlusIOfTheReplicaSequence) {
  // 300000 beads: 1.2e6 words per step exceed the largest window, so a step is made of
  // two windows of the lags (1010202, 3021377).
  for (const auto& [generator, beads] : {std::pair<const char*, std::int32_t>{"lagged_fibonacci", 300000},
                                         std::pair<const char*, std::int32_t>{"lagged_fibonacci", 700},
                                         std::pair<const char*, std::int32_t>{"mt19937", 1000}}) {
    auto source = rng::make_noise_source(generator, "shared", 8, 2, beads);
    auto words = rng::make_word_stream(generator, "shared", 8, 1, beads);  // replica 1
    std::vector<std::uint32_t> step_words(4 * std::size_t(beads));
    for (std::int64_t step = 0; step < 2; ++step) {
      Noise n(beads);
      source->fill(1, step, n.x.data(), n.y.data(), n.z.data());
      words->fill(step_words.data(), step_words.size());
      for (std::int32_t i = 0; i < beads; i += (beads > 1000 ? 997 : 1)) {
        const Vec3f g = rng::gaussian3_from_words(step_words[i], step_words[beads + i], step_words[2 * beads + i],
                                                  step_words[3 * beads + i]);
        ASSERT_EQ(n.x[i], g.x) << generator << " bead " << i << " step " << step;
        ASSERT_EQ(n.y[i], g.y);
        ASSERT_EQ(n.z[i], g.z);
      }
    }
  }
}

TEST(RngNoiseSource, SaveRestoreContinuesBitIdentically) {
  for (const Combo& c : all_combos()) {
    SCOPED_TRACE(c.generator + "/" + c.layout);
    const std::int32_t replicas = 2, beads = 37;
    auto a = rng::make_noise_source(c.generator, c.layout, 99, replicas, beads);
    run(*a, replicas, beads, 0, 10);
    const std::vector<std::uint8_t> saved = a->save_state();
    const auto continued = run(*a, replicas, beads, 10, 20);

    auto b = rng::make_noise_source(c.generator, c.layout, 99, replicas, beads);
    run(*b, replicas, beads, 0, 3);  // restore overwrites whatever came before
    b->restore_state(saved);
    const auto restored = run(*b, replicas, beads, 10, 20);
    ASSERT_EQ(continued.size(), restored.size());
    for (std::size_t k = 0; k < continued.size(); ++k) ASSERT_TRUE(continued[k] == restored[k]) << "fill " << k;
    EXPECT_EQ(b->save_state(), a->save_state());
  }
}

TEST(RngNoiseSource, RestoreRejectsMismatches) {
  auto a = rng::make_noise_source("hybrid_taus", "per_thread", 5, 2, 10);
  const auto saved = a->save_state();
  EXPECT_THROW(rng::make_noise_source("lcg", "per_thread", 5, 2, 10)->restore_state(saved), Error);
  EXPECT_THROW(rng::make_noise_source("hybrid_taus", "per_thread", 6, 2, 10)->restore_state(saved), Error);
  EXPECT_THROW(rng::make_noise_source("hybrid_taus", "per_thread", 5, 3, 10)->restore_state(saved), Error);
  EXPECT_THROW(rng::make_noise_source("hybrid_taus", "per_thread", 5, 2, 11)->restore_state(saved), Error);
  EXPECT_THROW(rng::make_noise_source("mt19937", "shared", 5, 2, 10)->restore_state(
                   rng::make_noise_source("mt19937", "per_thread", 5, 2, 10)->save_state()),
               Error);
  // lagged_fibonacci: a different system size means different lags.
  EXPECT_THROW(rng::make_noise_source("lagged_fibonacci", "shared", 5, 1, 2000)->restore_state(
                   rng::make_noise_source("lagged_fibonacci", "shared", 5, 1, 100)->save_state()),
               Error);
  auto truncated = saved;
  truncated.resize(saved.size() - 1);
  auto b = rng::make_noise_source("hybrid_taus", "per_thread", 5, 2, 10);
  EXPECT_THROW(b->restore_state(truncated), Error);
  auto extended = saved;
  extended.push_back(0);
  EXPECT_THROW(b->restore_state(extended), Error);
  EXPECT_THROW(b->restore_state(std::vector<std::uint8_t>(100, 7)), Error);
  EXPECT_THROW(b->restore_state({}), Error);
  // A failed restore leaves the source as it was.
  auto fresh = rng::make_noise_source("hybrid_taus", "per_thread", 5, 2, 10);
  EXPECT_EQ(b->save_state(), fresh->save_state());
}

TEST(RngNoiseSource, StatefulGeneratorsOnlyMoveForward) {
  auto source = rng::make_noise_source("mt19937", "per_thread", 1, 1, 4);
  Noise n(4);
  source->fill(0, 5, n.x.data(), n.y.data(), n.z.data());
  EXPECT_THROW(source->fill(0, 5, n.x.data(), n.y.data(), n.z.data()), Error);
  EXPECT_THROW(source->fill(0, 4, n.x.data(), n.y.data(), n.z.data()), Error);
  EXPECT_NO_THROW(source->fill(0, 9, n.x.data(), n.y.data(), n.z.data()));  // gaps: the stream continues
  // Philox is a pure function of the step: any order, repeats included.
  auto philox = rng::make_noise_source("philox", "per_thread", 1, 1, 4);
  Noise p1(4), p2(4);
  philox->fill(0, 5, p1.x.data(), p1.y.data(), p1.z.data());
  philox->fill(0, 2, p2.x.data(), p2.y.data(), p2.z.data());
  philox->fill(0, 5, p2.x.data(), p2.y.data(), p2.z.data());
  EXPECT_TRUE(p1 == p2);
}

TEST(RngNoiseSource, ResultsDoNotDependOnThreadCountOrConcurrentReplicas) {
  const int saved_threads = omp_get_max_threads();
  for (const Combo& c : all_combos()) {
    SCOPED_TRACE(c.generator + "/" + c.layout);
    const std::int32_t replicas = 3, beads = 6000;  // above the parallel threshold
    std::vector<std::vector<Noise>> results;
    for (int threads : {1, 3}) {
      omp_set_num_threads(threads);
      auto source = rng::make_noise_source(c.generator, c.layout, 4242, replicas, beads);
      results.push_back(run(*source, replicas, beads, 0, 2));
    }
    omp_set_num_threads(saved_threads);
    // Replicas filled concurrently from separate threads, in different orders.
    auto source = rng::make_noise_source(c.generator, c.layout, 4242, replicas, beads);
    std::vector<std::vector<Noise>> per_replica(replicas);
    std::vector<std::thread> workers;
    for (std::int32_t r = replicas - 1; r >= 0; --r)
      workers.emplace_back([&, r] {
        for (std::int64_t step = 0; step < 2; ++step) {
          Noise n(beads);
          source->fill(r, step, n.x.data(), n.y.data(), n.z.data());
          per_replica[std::size_t(r)].push_back(std::move(n));
        }
      });
    for (auto& w : workers) w.join();
    std::vector<Noise> concurrent;
    for (std::int64_t step = 0; step < 2; ++step)
      for (std::int32_t r = 0; r < replicas; ++r) concurrent.push_back(per_replica[std::size_t(r)][std::size_t(step)]);
    for (std::size_t k = 0; k < results[0].size(); ++k) {
      ASSERT_TRUE(results[0][k] == results[1][k]) << "1 vs 3 threads, fill " << k;
      ASSERT_TRUE(results[0][k] == concurrent[k]) << "sequential vs concurrent replicas, fill " << k;
    }
  }
}

TEST(RngNoiseSource, ReplicasAndBeadsGetDifferentNumbers) {
  for (const Combo& c : all_combos()) {
    auto source = rng::make_noise_source(c.generator, c.layout, 1, 2, 100);
    Noise a(100), b(100);
    source->fill(0, 0, a.x.data(), a.y.data(), a.z.data());
    source->fill(1, 0, b.x.data(), b.y.data(), b.z.data());
    EXPECT_FALSE(a == b) << c.generator;
    int equal_neighbours = 0;
    for (int i = 1; i < 100; ++i) equal_neighbours += a.x[i] == a.x[i - 1];
    EXPECT_EQ(equal_neighbours, 0) << c.generator;
  }
}

TEST(RngNoiseSource, LayoutInfoForTheBenchmarkTable) {
  EXPECT_EQ(rng::generator_layout_info("hybrid_taus", "", 10).state_bytes_per_thread, 16);
  EXPECT_EQ(rng::generator_layout_info("ran2", "", 10).state_bytes_per_thread, 140);
  EXPECT_EQ(rng::generator_layout_info("lcg", "", 10).state_bytes_per_thread, 4);
  EXPECT_EQ(rng::generator_layout_info("mt19937", "per_thread", 10).state_bytes_per_thread, 2500);
  EXPECT_EQ(rng::generator_layout_info("philox", "", 10).state_bytes_per_thread, 0);
  EXPECT_EQ(rng::generator_layout_info("philox", "", 10).reads_per_4, 0);
  EXPECT_EQ(rng::generator_layout_info("lagged_fibonacci", "shared", 1000).state_bytes_shared, 4 * 9689);
  EXPECT_EQ(rng::generator_layout_info("lagged_fibonacci", "shared", 1000).reads_per_4, 8);
  EXPECT_THROW(rng::generator_layout_info("lagged_fibonacci", "per_thread", 1000), Error);
}

}  // namespace
