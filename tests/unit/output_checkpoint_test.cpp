// io/checkpoint: bit-exact round trip, corruption detected with the file named, atomic
// replacement leaves no temporary behind.
#include <gtest/gtest.h>

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/io/checkpoint.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

using namespace std::string_literals;

std::vector<char> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_bytes(const std::filesystem::path& p, const std::vector<char>& b) {
  std::ofstream(p, std::ios::binary).write(b.data(), static_cast<std::streamsize>(b.size()));
}

// Values chosen to catch any conversion: signed zero, subnormals, infinities, a NaN with
// a payload, extremes, and ordinary values that do not survive a decimal round trip.
State make_state(std::int32_t beads, std::int32_t replicas, std::int64_t step, std::uint32_t salt) {
  State s(beads, replicas);
  s.step = step;
  const float specials[] = {-0.0f,
                            std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::bit_cast<float>(0x7fc12345u),
                            std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::lowest()};
  std::uint32_t h = 2166136261u ^ salt;
  for (std::size_t k = 0; k < s.x.size(); ++k) {
    for (auto* v : {&s.x, &s.y, &s.z}) {
      h = h * 16777619u + 0x9e3779b9u;
      (*v)[k] = (h % 5 == 0) ? specials[h % 7] : std::bit_cast<float>((h & 0x3fffffffu) | 0x3c000000u) - 1.7f;
    }
  }
  return s;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), 4 * a.size()) == 0);
}
void expect_same_state(const State& a, const State& b) {
  EXPECT_EQ(a.bead_count, b.bead_count);
  EXPECT_EQ(a.replica_count, b.replica_count);
  EXPECT_EQ(a.step, b.step);
  EXPECT_TRUE(same_bits(a.x, b.x));
  EXPECT_TRUE(same_bits(a.y, b.y));
  EXPECT_TRUE(same_bits(a.z, b.z));
}

Checkpoint make_checkpoint() {
  Checkpoint c;
  c.seed = 0xfedcba9876543210ull;
  c.step = 12'345'678'901;
  c.config_fingerprint = "sha256:0123456789abcdef\0with a NUL"s;
  c.positions = make_state(37, 5, c.step, 1);
  c.neighbor_reference = make_state(37, 5, c.step - 40, 2);
  c.output_offsets = {{"replica_000/trajectory.dcd", 1234567890123ull},
                      {"replica_000/energies.tsv", 77}};
  c.extra = {{"ermak_version", "0.1.0"}, {"pulling.base_A", "12.5"}, {"", ""}};
  return c;
}

TEST(OutputCheckpoint, RoundTripIsBitExact) {
  const auto dir = test::fresh_directory("output-ckpt-roundtrip");
  const Checkpoint c = make_checkpoint();
  write_checkpoint_atomically(dir / "run.ckpt", c);
  const Checkpoint r = read_checkpoint(dir / "run.ckpt");
  EXPECT_EQ(r.seed, c.seed);
  EXPECT_EQ(r.step, c.step);
  EXPECT_EQ(r.config_fingerprint, c.config_fingerprint);
  expect_same_state(r.positions, c.positions);
  expect_same_state(r.neighbor_reference, c.neighbor_reference);
  EXPECT_EQ(r.output_offsets, c.output_offsets);
  EXPECT_EQ(r.extra, c.extra);

  // An empty neighbour reference (no list yet) round-trips too.
  Checkpoint e = c;
  e.neighbor_reference = State();
  e.output_offsets.clear();
  e.extra.clear();
  write_checkpoint_atomically(dir / "empty.ckpt", e);
  const Checkpoint re = read_checkpoint(dir / "empty.ckpt");
  expect_same_state(re.neighbor_reference, State());
  EXPECT_TRUE(re.output_offsets.empty());
  EXPECT_TRUE(re.extra.empty());

  // The file starts with the magic and the format version.
  const auto b = read_bytes(dir / "run.ckpt");
  EXPECT_EQ(std::string(b.begin(), b.begin() + 8), "ERMAKCKP");
  EXPECT_EQ(static_cast<unsigned char>(b[8]), kCheckpointFormatVersion);
}

TEST(OutputCheckpoint, NoiseGeneratorSectionRoundTripsAndVersionOneStillReads) {
  const auto dir = test::fresh_directory("output-ckpt-rng");
  Checkpoint c = make_checkpoint();
  c.rng_name = "lagged_fibonacci/shared";
  for (int k = 0; k < 1000; ++k) c.rng_state.push_back(std::uint8_t(k * 37 + 1));
  c.rng_state.push_back(0);
  write_checkpoint_atomically(dir / "rng.ckpt", c);
  const Checkpoint r = read_checkpoint(dir / "rng.ckpt");
  EXPECT_EQ(r.rng_name, c.rng_name);
  EXPECT_EQ(r.rng_state, c.rng_state);
  EXPECT_EQ(r.extra, c.extra);

  // A version-1 file (before run.rng) is the version-2 payload without the rng section:
  // it reads back as a Philox run.
  Checkpoint philox = make_checkpoint();
  philox.rng_state.clear();
  write_checkpoint_atomically(dir / "v2.ckpt", philox);
  auto b = read_bytes(dir / "v2.ckpt");
  const std::size_t section = 8 + philox.rng_name.size() + 8;  // str name, str (empty) state
  b.erase(b.end() - 8 - std::ptrdiff_t(section), b.end());     // the section and the checksum
  b[8] = 1;
  const std::uint64_t payload = b.size() - 24;
  for (int k = 0; k < 8; ++k) b[16 + k] = char(payload >> (8 * k));
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64, as documented in checkpoint.cpp
  for (char ch : b) { h ^= static_cast<unsigned char>(ch); h *= 0x100000001b3ull; }
  for (int k = 0; k < 8; ++k) b.push_back(char(h >> (8 * k)));
  write_bytes(dir / "v1.ckpt", b);
  const Checkpoint v1 = read_checkpoint(dir / "v1.ckpt");
  EXPECT_EQ(v1.rng_name, "philox/per_thread");
  EXPECT_TRUE(v1.rng_state.empty());
  EXPECT_EQ(v1.step, philox.step);
  EXPECT_EQ(v1.extra, philox.extra);
  expect_same_state(v1.positions, philox.positions);
}

std::string error_of(const std::filesystem::path& p) {
  try {
    read_checkpoint(p);
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), p.string());
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error for " << p;
  return {};
}

TEST(OutputCheckpoint, CorruptionIsDetectedAndNamesTheFile) {
  const auto dir = test::fresh_directory("output-ckpt-corrupt");
  const auto good = dir / "good.ckpt";
  write_checkpoint_atomically(good, make_checkpoint());
  const auto bytes = read_bytes(good);

  // One flipped bit anywhere in the payload or the checksum.
  for (std::size_t at : {std::size_t(24), std::size_t(40), bytes.size() / 2, bytes.size() - 20,
                         bytes.size() - 1}) {
    auto b = bytes;
    b[at] ^= 0x10;
    const auto p = dir / ("flip" + std::to_string(at) + ".ckpt");
    write_bytes(p, b);
    EXPECT_NE(error_of(p).find("checksum"), std::string::npos) << at;
  }
  // Truncated at several places.
  for (std::size_t size : {std::size_t(0), std::size_t(5), std::size_t(30), bytes.size() / 2,
                           bytes.size() - 1}) {
    const auto p = dir / ("cut" + std::to_string(size) + ".ckpt");
    write_bytes(p, std::vector<char>(bytes.begin(), bytes.begin() + std::ptrdiff_t(size)));
    EXPECT_NE(error_of(p).find("truncated"), std::string::npos) << size;
  }
  // Trailing garbage.
  {
    auto b = bytes;
    b.push_back('x');
    write_bytes(dir / "long.ckpt", b);
    EXPECT_NE(error_of(dir / "long.ckpt").find("trailing"), std::string::npos);
  }
  // Not a checkpoint at all, a future version, a missing file.
  {
    auto b = bytes;
    b[0] = 'X';
    write_bytes(dir / "magic.ckpt", b);
    EXPECT_NE(error_of(dir / "magic.ckpt").find("not an ermak checkpoint"), std::string::npos);
    b = bytes;
    b[8] = 99;
    write_bytes(dir / "version.ckpt", b);
    EXPECT_NE(error_of(dir / "version.ckpt").find("version 99"), std::string::npos);
    EXPECT_NE(error_of(dir / "missing.ckpt").find("cannot open"), std::string::npos);
  }
  EXPECT_NO_THROW(read_checkpoint(good));
}

TEST(OutputCheckpoint, AtomicWriteReplacesAndLeavesNoTemporary) {
  const auto dir = test::fresh_directory("output-ckpt-atomic");
  const auto path = dir / "run.ckpt";
  Checkpoint c = make_checkpoint();
  write_checkpoint_atomically(path, c);
  EXPECT_FALSE(std::filesystem::exists(dir / "run.ckpt.tmp"));

  // A temporary left by a crash mid-write is simply replaced; the old checkpoint stays
  // valid until the rename.
  write_bytes(dir / "run.ckpt.tmp", {'h', 'a', 'l', 'f'});
  EXPECT_EQ(read_checkpoint(path).step, c.step);
  c.step += 1000;
  c.positions.step = c.step;
  write_checkpoint_atomically(path, c);
  EXPECT_FALSE(std::filesystem::exists(dir / "run.ckpt.tmp"));
  EXPECT_EQ(read_checkpoint(path).step, c.step);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u);

  // An inconsistent state is refused before anything is written.
  Checkpoint bad = c;
  bad.positions.x.pop_back();
  EXPECT_THROW(write_checkpoint_atomically(dir / "bad.ckpt", bad), Error);
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.ckpt"));
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.ckpt.tmp"));

  // A directory that does not exist is an error naming the file.
  EXPECT_THROW(write_checkpoint_atomically(dir / "no" / "such" / "run.ckpt", c), Error);

  // A temporary that is a symbolic link (left there, or planted) is replaced, not written
  // through: the file it points at stays as it was (an audit's was overwritten).
  const auto outside = test::fresh_directory("output-ckpt-atomic-outside") / "precious";
  write_bytes(outside, {'m', 'i', 'n', 'e'});
  std::filesystem::create_symlink(outside, dir / "run.ckpt.tmp");
  write_checkpoint_atomically(path, c);
  EXPECT_EQ(std::filesystem::file_size(outside), 4u);
  EXPECT_FALSE(std::filesystem::is_symlink(path));
  EXPECT_EQ(read_checkpoint(path).step, c.step);
}

// A failed syncfs falls back to sync() only where the kernel or filesystem lacks it; a
// write-back error keeps the previous checkpoint (docs/outputs.md#checkpoint).
TEST(OutputCheckpoint, OnlyAMissingSyncfsFallsBackToSync) {
  EXPECT_TRUE(syncfs_unsupported(ENOSYS));
  EXPECT_TRUE(syncfs_unsupported(EOPNOTSUPP));
  for (int write_back_error : {EIO, ENOSPC, EDQUOT, EROFS}) EXPECT_FALSE(syncfs_unsupported(write_back_error));
}

}  // namespace
}  // namespace ermak
