// Each replica's files in the output directory (run/replica_files.h): what a run creates,
// the checkpoint offsets it records, and that --resume continues each file from them.
// Whole runs that stop and resume: tests/regression/run_cli_test.cpp, protocol_run_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "ermak/config/spec.h"
#include "ermak/core/error.h"
#include "ermak/run/replica_files.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

namespace fs = std::filesystem;

RunSpec spec_with_trajectory(std::int64_t trajectory_every) {
  RunSpec spec;
  spec.output.trajectory_every_steps = trajectory_every;
  return spec;
}

TEST(ReplicaFiles, NamesDirectoriesAndEnergyColumns) {
  EXPECT_EQ(replica_dir_name(7), "replica_007");
  EXPECT_EQ(replica_dir_name(1234), "replica_1234");
  EXPECT_EQ(replica_dir_name(7, 4), "replica_0007");
  EXPECT_EQ(replica_dir_name(12345, 5), "replica_12345");
  EXPECT_EQ(energy_columns().front(), "step");
  EXPECT_EQ(energy_columns().size(), 11u);
  EXPECT_EQ(table_file_name(ProtocolTable::kPulling), "pulling.tsv");
  EXPECT_EQ(table_file_name(ProtocolTable::kPlane), "plane.tsv");
  EXPECT_EQ(table_file_name(ProtocolTable::kIndentation), "indentation.tsv");
}

// Numbers as wide as the largest needs, at least 3: `ls` and sorted() list the replicas in
// order (docs/outputs.md#layout-of-an-output-directory).
TEST(ReplicaFiles, NamesAreAsWideAsTheLargestNumberOfTheRun) {
  EXPECT_EQ(replica_name_digits(1), 3);
  EXPECT_EQ(replica_name_digits(1000), 3);  // replica_000 … replica_999
  EXPECT_EQ(replica_name_digits(1001), 4);  // replica_0000 … replica_1000
  EXPECT_EQ(replica_name_digits(10000), 4);
  EXPECT_EQ(replica_name_digits(10001), 5);
  RunSpec spec = spec_with_trajectory(0);
  spec.replicas = 1001;
  EXPECT_EQ(ReplicaFiles(spec, nullptr).dir_name(7), "replica_0007");
  EXPECT_EQ(ReplicaFiles(spec, nullptr, FileHolding::kKeptOpen, 3).dir_name(7), "replica_007");
  // A checkpoint's offsets tell the width its run started with; 0 without replica files.
  EXPECT_EQ(replica_name_digits_in({{"model.psf", 10}, {"replica_0000/energies.tsv", 90}}), 4);
  EXPECT_EQ(replica_name_digits_in({{"replica_000/energies.tsv", 90}, {"replica_1000/energies.tsv", 90}}), 3);
  EXPECT_EQ(replica_name_digits_in({{"sopgpu/1/energy", 90}}), 0);
}

// A run of more than 1000 replicas started by ermak before 2026-11-30 (3 digits) resumes
// with its own names: the offsets' keys and the directories are those it wrote.
TEST(ReplicaFiles, AResumeKeepsTheNamesItsRunStartedWith) {
  const fs::path out = test::fresh_directory("replica_files_width");
  RunSpec spec = spec_with_trajectory(0);
  spec.replicas = 1001;
  constexpr std::int32_t kBeads = 5;
  std::vector<std::pair<std::string, std::uint64_t>> at_checkpoint;
  {
    ReplicaFiles files(spec, nullptr, FileHolding::kKeptOpen, 3);
    files.create(out, spec.replicas, kBeads);
    files.flush(1);
    at_checkpoint = files.offsets();
  }
  EXPECT_TRUE(fs::exists(out / "replica_000/energies.tsv"));
  EXPECT_TRUE(fs::exists(out / "replica_1000/energies.tsv"));
  EXPECT_FALSE(fs::exists(out / "replica_0000"));
  const int digits = replica_name_digits_in(at_checkpoint);
  ASSERT_EQ(digits, 3);
  std::map<std::string, std::uint64_t> offset(at_checkpoint.begin(), at_checkpoint.end());
  ReplicaFiles resumed(spec, nullptr, FileHolding::kKeptOpen, digits);
  resumed.append(out, spec.replicas, kBeads, [&](const std::string& name) { return offset.at(name); });
  resumed.flush(1);
  EXPECT_EQ(resumed.offsets(), at_checkpoint);
  EXPECT_FALSE(fs::exists(out / "replica_0000"));
}

TEST(ReplicaFiles, WithoutProtocolsWritesEnergiesAndTheTrajectoryWhenAskedFor) {
  EXPECT_EQ(ReplicaFiles(spec_with_trajectory(0), nullptr).file_names(), std::vector<std::string>{"energies.tsv"});
  EXPECT_EQ(ReplicaFiles(spec_with_trajectory(100), nullptr).file_names(),
            (std::vector<std::string>{"energies.tsv", "trajectory.dcd"}));
  const ReplicaFiles files(spec_with_trajectory(100), nullptr);
  EXPECT_FALSE(files.writes(ProtocolTable::kPulling));
  EXPECT_FALSE(files.writes(ProtocolTable::kPlane));
  EXPECT_FALSE(files.writes(ProtocolTable::kIndentation));
}

TEST(ReplicaFiles, OffsetsFollowTheFilesAndResumeCutsThemThere) {
  const fs::path out = test::fresh_directory("replica_files");
  const RunSpec spec = spec_with_trajectory(100);
  constexpr std::int32_t kReplicas = 3, kBeads = 5;
  const float x[kBeads] = {0, 1, 2, 3, 4};
  std::vector<std::pair<std::string, std::uint64_t>> at_checkpoint;
  {
    ReplicaFiles files(spec, nullptr);
    files.create(out, kReplicas, kBeads);
    ASSERT_EQ(files.replicas(), kReplicas);
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      const double row[10] = {double(r), 300, 1, 2, 3, 4, 10, 0.5, 9, 12};
      files.energies(r).row(0, row);
      files.trajectory(r).write_frame(x, x, x);
    }
    files.flush(2);
    at_checkpoint = files.offsets();
    // Rows and a frame after the checkpoint, which a resume cuts away.
    for (std::int32_t r = 0; r < kReplicas; ++r) {
      const double row[10] = {1, 300, 1, 2, 3, 4, 10, 0.5, 9, 12};
      files.energies(r).row(100, row);
      files.trajectory(r).write_frame(x, x, x);
    }
    files.flush(1);
  }
  // Replica by replica, each replica's files in file_names() order, with their sizes.
  ASSERT_EQ(at_checkpoint.size(), std::size_t(2 * kReplicas));
  for (std::int32_t r = 0; r < kReplicas; ++r) {
    const std::string dir = replica_dir_name(r) + "/";
    EXPECT_EQ(at_checkpoint[2 * r].first, dir + "energies.tsv");
    EXPECT_EQ(at_checkpoint[2 * r + 1].first, dir + "trajectory.dcd");
    EXPECT_GT(at_checkpoint[2 * r].second, 0u);
    EXPECT_LT(at_checkpoint[2 * r].second, fs::file_size(out / (dir + "energies.tsv")));
    EXPECT_LT(at_checkpoint[2 * r + 1].second, fs::file_size(out / (dir + "trajectory.dcd")));
  }
  std::map<std::string, std::uint64_t> offset(at_checkpoint.begin(), at_checkpoint.end());
  ReplicaFiles resumed(spec, nullptr);
  resumed.append(out, kReplicas, kBeads, [&](const std::string& name) { return offset.at(name); });
  resumed.flush(1);
  EXPECT_EQ(resumed.offsets(), at_checkpoint);
  for (const auto& [name, bytes] : at_checkpoint) EXPECT_EQ(fs::file_size(out / name), bytes) << name;
}

TEST(ReplicaFiles, ResumeWithoutAFileNamesIt) {
  const fs::path out = test::fresh_directory("replica_files_missing");
  ReplicaFiles files(spec_with_trajectory(0), nullptr);
  try {
    files.append(out, 1, 5, [](const std::string&) { return std::uint64_t(0); });
    FAIL() << "a missing energies.tsv was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("replica_000/energies.tsv"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ermak
