// `ermak rng` and `ermak bench --rng` end to end (docs/rng.md#commands).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "ermak/backend/cuda_engine.h"
#include "ermak/rng/philox_gaussian.h"
#include "support/test_paths.h"

namespace {

using namespace ermak;

std::string ermak_cmd() { return test::ermak_binary().string(); }

std::vector<std::uint32_t> read_words(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

TEST(RngCommand, DumpWritesRawPhiloxWords) {
  const auto dir = test::fresh_directory("rng-dump");
  std::string out;
  ASSERT_EQ(test::run_command(ermak_cmd() + " rng dump --generator philox --seed 3 --raw --stream 5 --count 10 > " +
                                  (dir / "w.bin").string(),
                              &out),
            0)
      << out;
  const auto words = read_words(dir / "w.bin");
  ASSERT_EQ(words.size(), 10u);
  for (std::uint32_t k = 0; k < 10; ++k)
    EXPECT_EQ(words[k], rng::philox_block(3, rng::Stream::kBeadLangevin, 0, 5, k / 4)[k % 4]);
  // Text mode: one decimal per line.
  ASSERT_EQ(test::run_command(ermak_cmd() + " rng dump --generator philox --seed 3 --stream 5 --count 2", &out), 0);
  EXPECT_EQ(out, std::to_string(words[0]) + "\n" + std::to_string(words[1]) + "\n");
}

TEST(RngCommand, EndlessDumpStopsQuietlyWhenThePipeCloses) {
  for (const char* generator : {"lcg", "ran2", "lagged_fibonacci"}) {
    std::string out;
    const int status = test::run_command(
        "bash -c 'set -o pipefail; " + ermak_cmd() + " rng dump --generator " + generator +
            " --seed 1 --raw | head -c 1000000 | wc -c'",
        &out);
    EXPECT_EQ(status, 0) << generator << ": " << out;
    EXPECT_EQ(out, "1000000\n") << generator;
  }
}

TEST(RngCommand, DumpInterleavesStreams) {
  const auto dir = test::fresh_directory("rng-dump-interleave");
  ASSERT_EQ(test::run_command(ermak_cmd() + " rng dump --generator hybrid_taus --raw --interleave 3 --count 30 > " +
                              (dir / "mixed.bin").string()),
            0);
  const auto mixed = read_words(dir / "mixed.bin");
  for (int k = 0; k < 3; ++k) {
    ASSERT_EQ(test::run_command(ermak_cmd() + " rng dump --generator hybrid_taus --raw --stream " + std::to_string(k) +
                                " --count 10 > " + (dir / "one.bin").string()),
              0);
    const auto one = read_words(dir / "one.bin");
    for (int j = 0; j < 10; ++j) EXPECT_EQ(mixed[std::size_t(3 * j + k)], one[std::size_t(j)]);
  }
}

TEST(RngCommand, DumpRejectsBadNames) {
  std::string out;
  EXPECT_EQ(test::run_command(ermak_cmd() + " rng dump --generator xorshift --count 1", &out), 1);
  EXPECT_NE(out.find("unknown generator"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(ermak_cmd() + " rng dump --generator lagged_fibonacci --layout per_thread --count 1", &out), 1);
  EXPECT_NE(out.find("layout"), std::string::npos) << out;
}

TEST(RngCommand, OuWritesTableAndPlotAndVerdict) {
  const auto dir = test::fresh_directory("rng-ou");
  std::string out;
  ASSERT_EQ(test::run_command(ermak_cmd() + " rng ou --generator hybrid_taus --oscillators 500 --dt 10000 --samples 20 -o " +
                                  dir.string(),
                              &out),
            0)
      << out;
  EXPECT_NE(out.find("PASS: hybrid_taus/per_thread"), std::string::npos) << out;
  std::ifstream tsv(dir / "ou_hybrid_taus_per_thread.tsv");
  std::string header;
  std::getline(tsv, header);
  EXPECT_EQ(header.rfind("# time[ns]\tR_mean[nm]\tR_exact[nm]", 0), 0u) << header;
  int rows = 0;
  for (std::string line; std::getline(tsv, line);) ++rows;
  EXPECT_EQ(rows, 21);
  std::ifstream svg(dir / "ou_hybrid_taus_per_thread.svg");
  std::string first;
  std::getline(svg, first);
  EXPECT_EQ(first.rfind("<svg", 0), 0u);
  // The same test again refuses to replace its files without --force, before any step.
  const std::string again = ermak_cmd() + " rng ou --generator hybrid_taus --oscillators 500 --dt 10000 --samples 20 -o " +
                            dir.string();
  EXPECT_EQ(test::run_command(again, &out), 1) << out;
  EXPECT_NE(out.find("ou_hybrid_taus_per_thread.tsv: exists; pass --force to replace it"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(again + " --force", &out), 0) << out;
}

TEST(RngCommand, CountsAndStepsMustBeWholeNumbersInRange) {
  std::string out;
  EXPECT_EQ(test::run_command(ermak_cmd() + " rng dump --generator philox --count -1", &out), 1) << out;
  EXPECT_NE(out.find("--count: must be a whole number >= 0, got -1"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(ermak_cmd() + " rng ou --steps 0", &out), 1) << out;
  EXPECT_NE(out.find("--steps: must be a whole number >= 1, got 0"), std::string::npos) << out;
  // Options that name what the user set (an audit found --interleave 0 taken as --stream 0,
  // and --dt 0 or --beads 0 reported by internal names).
  for (const auto& [args, message] :
       {std::pair{" rng dump --interleave 0 --count 1", "--interleave: must be a whole number >= 1, got 0"},
        {" rng dump --beads 0 --count 1", "--beads: must be a whole number >= 1, got 0"},
        {" rng ou --dt 0", "--dt: must be a number > 0 and finite, got 0"},
        {" bench --rng --rng-seconds 0", "--rng-seconds: must be a number > 0 and finite, got 0"},
        // Sizes that would fill the memory say so (an audit's 10⁸ streams: std::bad_alloc).
        {" rng dump --generator mt19937 --layout shared --interleave 100000000 --count 1",
         "--interleave: 100000000 streams of mt19937 hold 233 GiB of state; at most 3435973 streams (8 GiB)"},
        // CLI11's own words after "not in range" differ between its versions ("2 to 1000000",
        // "[2 - 1000000]"): the option and the value are ours to check.
        {" rng ou --samples 2147483647", "--samples: Value 2147483647 not in range"},
        {" bench --rng --rng-max-state-mb -1", "--rng-max-state-mb: must be a number > 0 and finite, got -1"}}) {
    EXPECT_EQ(test::run_command(ermak_cmd() + args, &out), 1) << args << out;
    EXPECT_NE(out.find(message), std::string::npos) << args << out;
  }
  // The seeds a run takes (run.seed is a TOML integer), so that a dump can be a run's noise.
  EXPECT_EQ(test::run_command(ermak_cmd() + " rng dump --generator philox --count 1 --seed 9223372036854775807", &out), 0)
      << out;
  EXPECT_EQ(test::run_command(ermak_cmd() + " rng dump --generator philox --count 1 --seed 18446744073709551615", &out), 1)
      << out;
  EXPECT_NE(out.find("--seed: Value 18446744073709551615 not in range"), std::string::npos) << out;
  EXPECT_NE(out.find("9223372036854775807"), std::string::npos) << "the largest seed is named: " << out;
}

TEST(RngCommand, OuOnCudaWithoutAGpuSaysWhy) {
  // With a GPU, tests/cuda/rng_cuda_test.cpp runs it.
  if (cuda_backend_available()) GTEST_SKIP() << "a GPU is present";
  std::string out;
  EXPECT_EQ(test::run_command(ermak_cmd() + " rng ou --backend cuda --oscillators 10 --dt 100", &out), 1);
  EXPECT_TRUE(out.find("without CUDA") != std::string::npos || out.find("GPU") != std::string::npos) << out;
  EXPECT_EQ(test::run_command(ermak_cmd() + " rng ou --backend tpu --oscillators 10 --dt 100", &out), 1);
  EXPECT_NE(out.find("unknown backend"), std::string::npos) << out;
}

TEST(RngCommand, BenchRngPrintsTheTable) {
  std::string out;
  ASSERT_EQ(test::run_command(ermak_cmd() + " bench --rng --rng-sizes 1000 --rng-generators lcg,lagged_fibonacci "
                                            "--rng-seconds 0.01",
                              &out),
            0)
      << out;
  EXPECT_NE(out.find("state/thread"), std::string::npos) << out;
  EXPECT_NE(out.find("lcg"), std::string::npos) << out;
  EXPECT_NE(out.find("[38756]"), std::string::npos) << out;  // 9689 words of lags (5502, 9689)
}

}  // namespace
