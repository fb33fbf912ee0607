// io/load_system: every input kind of InputSpec gives a validated topology and
// starting coordinates; mistakes name the file at fault.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "ermak/core/error.h"
#include "ermak/io/load_system.h"
#include "ermak/io/pdb_coordinates.h"
#include "ermak/io/topology_file.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

const std::filesystem::path kUbiquitin = "/usr/share/freesasa/test-data/1ubq.pdb";
std::filesystem::path ww_dir() { return test::shared_data() / "sopgpu/ww/reference"; }

std::string error_of(const InputSpec& input) {
  try {
    load_system(input, ModelBuildSpec{});
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(IoLoadSystem, FromStructure) {
  InputSpec input;
  input.structure = kUbiquitin;
  const LoadedSystem system = load_system(input, ModelBuildSpec{});
  EXPECT_EQ(system.topology.bead_count(), 76);
  ASSERT_EQ(system.initial_positions_A.size(), 76u);
  EXPECT_EQ(system.initial_positions_A[5].x, system.topology.native_positions_A[5].x);
}

TEST(IoLoadSystem, FromSopGpuTopWithCoordinates) {
  InputSpec input;
  input.topology = ww_dir() / "ww.top";
  input.coordinates = ww_dir() / "ww_cg.pdb";
  const LoadedSystem system = load_system(input, ModelBuildSpec{});
  EXPECT_EQ(system.topology.bead_count(), 34);
  ASSERT_EQ(system.initial_positions_A.size(), 34u);
  ASSERT_EQ(system.topology.native_positions_A.size(), 34u);
  EXPECT_DOUBLE_EQ(system.initial_positions_A[0].x, 45.525);
  EXPECT_DOUBLE_EQ(system.topology.native_positions_A[33].z, system.initial_positions_A[33].z);

  // A byte-order mark before the first line (some editors write one) is read past.
  const auto dir = test::fresh_directory("io-load-top-bom");
  std::ofstream(dir / "bom.top") << "\xEF\xBB\xBF" << test::read_file(ww_dir() / "ww.top");
  InputSpec bom = input;
  bom.topology = dir / "bom.top";
  EXPECT_EQ(load_system(bom, ModelBuildSpec{}).topology.bonds.size(), system.topology.bonds.size());

  InputSpec pf8;
  pf8.topology = test::shared_data() / "sopgpu/pf8/PF8.top";
  pf8.coordinates = test::shared_data() / "sopgpu/pf8/PF8_sop.pdb";
  EXPECT_EQ(load_system(pf8, ModelBuildSpec{}).initial_positions_A.size(), 6928u);
}

TEST(IoLoadSystem, FromEtopWithAndWithoutCoordinates) {
  InputSpec structure;
  structure.structure = kUbiquitin;
  const LoadedSystem built = load_system(structure, ModelBuildSpec{});
  const auto dir = test::fresh_directory("io-load-etop");
  write_topology_file(built.topology, dir / "ubq.etop");

  InputSpec input;
  input.topology = dir / "ubq.etop";
  const LoadedSystem from_file = load_system(input, ModelBuildSpec{});
  EXPECT_EQ(from_file.topology.bead_count(), 76);
  EXPECT_EQ(from_file.initial_positions_A[7].y, built.topology.native_positions_A[7].y);

  std::vector<float> x(76, 0.0f), y(76, 0.0f), z(76, 0.0f);
  for (int b = 0; b < 76; ++b) x[b] = 3.8f * b;
  write_pdb(dir / "start.pdb", built.topology, x.data(), y.data(), z.data());
  input.coordinates = dir / "start.pdb";
  const LoadedSystem started = load_system(input, ModelBuildSpec{});
  EXPECT_NEAR(started.initial_positions_A[10].x, 38.0, 1e-3);
  // The native structure stays the file's.
  EXPECT_EQ(started.topology.native_positions_A[10].x, built.topology.native_positions_A[10].x);
}

TEST(IoLoadSystem, ErrorsNameTheFileAtFault) {
  InputSpec none;
  EXPECT_NE(error_of(none).find("input.structure"), std::string::npos);

  InputSpec no_coordinates;
  no_coordinates.topology = ww_dir() / "ww.top";
  const std::string missing = error_of(no_coordinates);
  EXPECT_NE(missing.find("ww.top"), std::string::npos) << missing;
  EXPECT_NE(missing.find("input.coordinates"), std::string::npos) << missing;

  InputSpec mismatch;
  mismatch.topology = ww_dir() / "ww.top";
  mismatch.coordinates = test::shared_data() / "sopgpu/pf8/PF8_sop.pdb";
  const std::string count = error_of(mismatch);
  EXPECT_EQ(count.find((test::shared_data() / "sopgpu/pf8/PF8_sop.pdb").string()), 0u) << count;
  EXPECT_NE(count.find("6928"), std::string::npos);

  // One replica's file of many: the message names the setting and the replica as well.
  InputSpec replicas;
  replicas.topology = ww_dir() / "ww.top";
  replicas.coordinates = ww_dir() / "ww_cg.pdb";
  replicas.replica_coordinates = {ww_dir() / "ww_cg.pdb", test::shared_data() / "sopgpu/pf8/PF8_sop.pdb"};
  const std::string replica_count = error_of(replicas);
  EXPECT_EQ(replica_count.find((test::shared_data() / "sopgpu/pf8/PF8_sop.pdb").string() +
                               ": input.replica_coordinates[1]: "),
            0u)
      << replica_count;
  EXPECT_NE(replica_count.find("6928"), std::string::npos) << replica_count;

  InputSpec unknown;
  unknown.topology = "model.psf";
  EXPECT_NE(error_of(unknown).find("model.psf"), std::string::npos);

  InputSpec absent;
  absent.structure = test::fresh_directory("io-load-absent") / "gone.cif";
  EXPECT_NE(error_of(absent).find("gone.cif"), std::string::npos);

  // A device is refused before it is opened (/dev/zero filled the memory); a FIFO is read
  // (process substitution gives one).
  InputSpec device;
  device.topology = ww_dir() / "ww.top";
  device.coordinates = "/dev/zero";
  EXPECT_NE(error_of(device).find("/dev/zero: coordinates: is a character device, not a file to read"),
            std::string::npos)
      << error_of(device);
  std::string out;
  EXPECT_EQ(test::run_command("bash -c \"'" + test::ermak_binary().string() + "' energy --topology '" +
                                  (ww_dir() / "ww.top").string() + "' --coordinates <(cat '" +
                                  (ww_dir() / "ww_cg.pdb").string() + "')\"",
                              &out),
            0)
      << out;
}

}  // namespace
}  // namespace ermak
