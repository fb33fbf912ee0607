// config/toml_config: RunSpec::resolved_toml is complete, in physical units, and parses
// back to the same RunSpec bit for bit (it is the run log's record of the configuration).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "ermak/config/toml_config.h"
#include "ermak/core/units.h"

namespace ermak {
namespace {

namespace fs = std::filesystem;

// Every field but config_path (the resolved text is read back under another name);
// doubles compared exactly.
void expect_same(const RunSpec& a, const RunSpec& b) {
  EXPECT_EQ(a.input.structure, b.input.structure);
  EXPECT_EQ(a.input.topology, b.input.topology);
  EXPECT_EQ(a.input.coordinates, b.input.coordinates);
  EXPECT_EQ(a.model_build.native_cutoff_A, b.model_build.native_cutoff_A);
  EXPECT_EQ(a.model_build.native_energy_kcal_per_mol, b.model_build.native_energy_kcal_per_mol);
  EXPECT_EQ(a.model_build.chain_break_A, b.model_build.chain_break_A);
  EXPECT_EQ(a.sop.fene_k_kcal_per_mol_A2, b.sop.fene_k_kcal_per_mol_A2);
  EXPECT_EQ(a.sop.fene_R0_A, b.sop.fene_R0_A);
  EXPECT_EQ(a.sop.repulsion_eps_kcal_per_mol, b.sop.repulsion_eps_kcal_per_mol);
  EXPECT_EQ(a.sop.repulsion_sigma_A, b.sop.repulsion_sigma_A);
  EXPECT_EQ(a.sop.pair_cutoff_A, b.sop.pair_cutoff_A);
  EXPECT_EQ(a.langevin.timestep_tau, b.langevin.timestep_tau);
  EXPECT_EQ(a.langevin.zeta, b.langevin.zeta);
  EXPECT_EQ(a.langevin.temperature_kcal_per_mol, b.langevin.temperature_kcal_per_mol);
  EXPECT_EQ(a.temperature.start_kcal_per_mol, b.temperature.start_kcal_per_mol);
  EXPECT_EQ(a.temperature.increment_kcal_per_mol, b.temperature.increment_kcal_per_mol);
  EXPECT_EQ(a.temperature.every_steps, b.temperature.every_steps);
  EXPECT_EQ(a.temperature.stop_kcal_per_mol, b.temperature.stop_kcal_per_mol);
  EXPECT_EQ(a.minimize.max_steps, b.minimize.max_steps);
  EXPECT_EQ(a.minimize.force_tolerance_kcal_per_mol_A, b.minimize.force_tolerance_kcal_per_mol_A);
  EXPECT_EQ(a.minimize.max_displacement_A, b.minimize.max_displacement_A);
  EXPECT_EQ(a.output.directory, b.output.directory);
  EXPECT_EQ(a.output.energy_every_steps, b.output.energy_every_steps);
  EXPECT_EQ(a.output.trajectory_every_steps, b.output.trajectory_every_steps);
  EXPECT_EQ(a.output.checkpoint_every_steps, b.output.checkpoint_every_steps);
  EXPECT_EQ(a.output.contact_formed_ratio, b.output.contact_formed_ratio);
  EXPECT_EQ(a.neighbor.skin_A, b.neighbor.skin_A);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.replicas, b.replicas);
  EXPECT_EQ(a.fixed_beads, b.fixed_beads);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.threads, b.threads);
  EXPECT_EQ(a.rng, b.rng);
  EXPECT_EQ(a.rng_layout, b.rng_layout);
}

// Reads the resolved text back, from a different (relative) name in another directory:
// the resolved paths are absolute, so they must not move.
void expect_round_trip(const RunSpec& spec) {
  SCOPED_TRACE(spec.resolved_toml);
  const RunSpec again = parse_run_spec(spec.resolved_toml, "elsewhere/resolved.toml");
  expect_same(spec, again);
  // Apart from the "# source:" line, the text is a fixed point.
  const auto body = [](const std::string& s) { return s.substr(s.find("\n[")); };
  EXPECT_EQ(body(again.resolved_toml), body(spec.resolved_toml));
}

TEST(ConfigResolved, DefaultsRoundTripAndReadInPhysicalUnits) {
  const RunSpec spec = parse_run_spec("[input]\nstructure = \"p.pdb\"\n", "/data/run.toml");
  expect_round_trip(spec);
  const std::string& t = spec.resolved_toml;
  EXPECT_NE(t.find("timestep_ps = 19.84  # = 0.08 tau_H"), std::string::npos) << t;
  EXPECT_NE(t.find("temperature_K = 301.93"), std::string::npos) << t;
  EXPECT_NE(t.find("# = 0.6 kcal/mol"), std::string::npos) << t;
  EXPECT_NE(t.find("force_tolerance_pN = 6.947695  # = 0.1 kcal/mol/A"), std::string::npos) << t;
  EXPECT_NE(t.find("structure = \"/data/p.pdb\""), std::string::npos) << t;
  EXPECT_NE(t.find("directory = \"/data/ermak-output\""), std::string::npos) << t;
  EXPECT_NE(t.find("repulsion_sigma_A = 3.8\n"), std::string::npos) << t;  // float, short form
  EXPECT_NE(t.find("friction = 50.0"), std::string::npos) << t;             // float, not integer
  EXPECT_EQ(t.find("[heating]"), std::string::npos) << t;
  // The noise generator defaults to Philox and is recorded (docs/rng.md#choosing-the-generator-of-a-run).
  EXPECT_EQ(spec.rng, "philox");
  EXPECT_EQ(spec.rng_layout, "per_thread");
  EXPECT_NE(t.find("rng = \"philox\""), std::string::npos) << t;
  EXPECT_NE(t.find("rng_layout = \"per_thread\""), std::string::npos) << t;
}

TEST(ConfigResolved, NoiseGeneratorAndLayoutRoundTrip) {
  // The layout resolves to the generator's default when not given.
  const RunSpec lf = parse_run_spec("[input]\nstructure = \"p.pdb\"\n[run]\nrng = \"lagged_fibonacci\"\n", "/d/run.toml");
  EXPECT_EQ(lf.rng, "lagged_fibonacci");
  EXPECT_EQ(lf.rng_layout, "shared");
  expect_round_trip(lf);
  const RunSpec mt = parse_run_spec("[input]\nstructure = \"p.pdb\"\n[run]\nrng = \"mt19937\"\nrng_layout = \"shared\"\n",
                                    "/d/run.toml");
  EXPECT_EQ(mt.rng_layout, "shared");
  expect_round_trip(mt);
  EXPECT_NE(mt.resolved_toml.find("rng = \"mt19937\""), std::string::npos) << mt.resolved_toml;
  const RunSpec set = parse_run_spec("[input]\nstructure = \"p.pdb\"\n", "/d/run.toml", {"run.rng=hybrid_taus"});
  EXPECT_EQ(set.rng, "hybrid_taus");
  EXPECT_EQ(set.rng_layout, "per_thread");
}

TEST(ConfigResolved, FullConfigWithHeatingRoundTrips) {
  const RunSpec spec = parse_run_spec(R"(
[input]
topology = "models/ww.top"
coordinates = "models/ww \"quoted\".pdb"
[model]
fene_max_stretch_A = 2.1
pair_cutoff_A = 18
[run]
steps = 123456789
replicas = 1000
seed = 9223372036854775807
timestep_ps = 10
friction = 33.3
backend = "cuda"
threads = 4
[heating]
start_K = 280.5
stop_K = 420
increment_K = 2.5
every_steps = 5000
[minimize]
steps = 100
force_tolerance_pN = 3.3
[fixed]
beads = [0, 34, 12]
[neighbor]
skin_A = 2.75
[output]
directory = "../results"
energy_every = 250
trajectory_every = 0
checkpoint_every = 7
contact_formed_ratio = 1.8
)",
                                      "/data/cfg/run.toml");
  EXPECT_EQ(spec.input.coordinates, fs::path("/data/cfg/models/ww \"quoted\".pdb"));
  expect_round_trip(spec);
  const std::string& t = spec.resolved_toml;
  EXPECT_NE(t.find("timestep_ps = 10.0"), std::string::npos) << t;
  EXPECT_NE(t.find("start_K = 280.5"), std::string::npos) << t;
  EXPECT_NE(t.find("stop_K = 420.0"), std::string::npos) << t;
  EXPECT_NE(t.find("increment_K = 2.5"), std::string::npos) << t;
  EXPECT_NE(t.find("every_steps = 5000"), std::string::npos) << t;
  EXPECT_NE(t.find("force_tolerance_pN = 3.3"), std::string::npos) << t;
  EXPECT_NE(t.find("beads = [0, 34, 12]"), std::string::npos) << t;
}

// Values given in internal units need not have an exactly equivalent physical decimal;
// the resolved text must then still reproduce them (it falls back to the internal key).
TEST(ConfigResolved, ArbitraryInternalValuesRoundTripExactly) {
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> tau(1e-4, 1.0), kT(0.1, 3.0), force(1e-3, 10.0);
  for (int i = 0; i < 300; ++i) {
    const std::string text =
        "[input]\nstructure = \"p.pdb\"\n[run]\n" +
        std::string("timestep_tau = ") + std::to_string(tau(rng)) + "123456789\n" +
        "temperature_kcal_per_mol = " + std::to_string(kT(rng)) + "987654321\n";
    const RunSpec spec = parse_run_spec(text, "/r/run.toml");
    const RunSpec again = parse_run_spec(spec.resolved_toml, "/r/run.toml");
    ASSERT_EQ(spec.langevin.timestep_tau, again.langevin.timestep_tau) << spec.resolved_toml;
    ASSERT_EQ(spec.langevin.temperature_kcal_per_mol, again.langevin.temperature_kcal_per_mol)
        << spec.resolved_toml;
  }
  for (int i = 0; i < 300; ++i) {
    const std::string text = "[input]\nstructure = \"p.pdb\"\n[minimize]\n"
                             "force_tolerance_kcal_per_mol_A = " +
                             std::to_string(force(rng)) + "4321\n";
    const RunSpec spec = parse_run_spec(text, "/r/run.toml");
    const RunSpec again = parse_run_spec(spec.resolved_toml, "/r/run.toml");
    ASSERT_EQ(spec.minimize.force_tolerance_kcal_per_mol_A, again.minimize.force_tolerance_kcal_per_mol_A)
        << spec.resolved_toml;
  }
  for (int i = 0; i < 300; ++i) {
    const double f = units::internal_force_to_pN(force(rng));
    const std::string text = "[input]\nstructure = \"p.pdb\"\n[minimize]\nforce_tolerance_pN = " +
                             std::to_string(f) + "4321\n";
    const RunSpec spec = parse_run_spec(text, "/r/run.toml");
    const RunSpec again = parse_run_spec(spec.resolved_toml, "/r/run.toml");
    ASSERT_EQ(spec.minimize.force_tolerance_kcal_per_mol_A, again.minimize.force_tolerance_kcal_per_mol_A)
        << spec.resolved_toml;
  }
}

// These internal values have no decimal in ps / K / pN that converts back to exactly the
// same double (found by search with the constants of core/units.h; re-find them if those
// change); the resolved text keeps them in internal units.
TEST(ConfigResolved, FallsBackToInternalUnitsWhereNoExactPhysicalDecimalExists) {
  const RunSpec spec = parse_run_spec(R"(
[input]
structure = "p.pdb"
[run]
timestep_tau = 0.030813986132559756
temperature_kcal_per_mol = 0.29008593200507055
[minimize]
force_tolerance_kcal_per_mol_A = 0.939374429910246
)",
                                      "/r/run.toml");
  const std::string& t = spec.resolved_toml;
  EXPECT_NE(t.find("timestep_tau = 0.030813986132559756  # = "), std::string::npos) << t;
  EXPECT_NE(t.find("temperature_kcal_per_mol = 0.29008593200507055  # = "), std::string::npos) << t;
  EXPECT_NE(t.find("force_tolerance_kcal_per_mol_A = 0.939374429910246  # = "), std::string::npos)
      << t;
  expect_round_trip(spec);
}

// The structure builder's keys round-trip with a structure (with a topology only their
// defaults are accepted: config_errors_test.cpp).
TEST(ConfigResolved, StructureBuilderKeysRoundTrip) {
  const RunSpec spec = parse_run_spec(
      "[input]\nstructure = \"p.pdb\"\n[model]\nnative_cutoff_A = 7.3\nnative_energy_kcal_per_mol = 0.9\n"
      "chain_break_A = 5.5\n",
      "/d/run.toml");
  EXPECT_NE(spec.resolved_toml.find("native_cutoff_A = 7.3\n"), std::string::npos) << spec.resolved_toml;
  expect_round_trip(spec);
}

TEST(ConfigResolved, OverridesAreBakedIn) {
  const RunSpec spec =
      parse_run_spec("[input]\nstructure = \"p.pdb\"\n", "/d/run.toml", {"run.steps=42"});
  EXPECT_NE(spec.resolved_toml.find("steps = 42\n"), std::string::npos) << spec.resolved_toml;
  expect_round_trip(spec);
}

}  // namespace
}  // namespace ermak
