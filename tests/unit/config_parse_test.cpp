// config/toml_config: defaults, unit conversions, paths, --set overrides, heating.
#include <gtest/gtest.h>

#include <limits>

#include <fstream>
#include <string>

#include "ermak/config/toml_config.h"
#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "support/test_paths.h"

namespace ermak {
namespace {

namespace fs = std::filesystem;

const std::string kMinimal = "[input]\nstructure = \"protein.pdb\"\n";
const fs::path kConfig = "/data/runs/run.toml";

RunSpec parse(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return parse_run_spec(text, kConfig, overrides);
}

TEST(ConfigDefaults, MinimalConfigTakesEveryDefaultFromSpecH) {
  const RunSpec spec = parse(kMinimal);
  const RunSpec ref;
  EXPECT_EQ(spec.config_path, kConfig);
  EXPECT_EQ(spec.input.structure, fs::path("/data/runs/protein.pdb"));
  EXPECT_TRUE(spec.input.topology.empty());
  EXPECT_TRUE(spec.input.coordinates.empty());

  EXPECT_EQ(spec.model_build.native_cutoff_A, ref.model_build.native_cutoff_A);
  EXPECT_EQ(spec.model_build.native_energy_kcal_per_mol, ref.model_build.native_energy_kcal_per_mol);
  EXPECT_EQ(spec.model_build.chain_break_A, ref.model_build.chain_break_A);
  EXPECT_EQ(spec.sop.fene_k_kcal_per_mol_A2, ref.sop.fene_k_kcal_per_mol_A2);
  EXPECT_EQ(spec.sop.fene_R0_A, ref.sop.fene_R0_A);
  EXPECT_EQ(spec.sop.repulsion_eps_kcal_per_mol, ref.sop.repulsion_eps_kcal_per_mol);
  EXPECT_EQ(spec.sop.repulsion_sigma_A, ref.sop.repulsion_sigma_A);
  EXPECT_EQ(spec.sop.pair_cutoff_A, ref.sop.pair_cutoff_A);

  EXPECT_EQ(spec.steps, 100000);
  EXPECT_EQ(spec.replicas, 1);
  EXPECT_EQ(spec.seed, 1u);
  EXPECT_EQ(spec.langevin.timestep_tau, 0.08);
  EXPECT_EQ(spec.langevin.temperature_kcal_per_mol, 0.6);
  EXPECT_EQ(spec.langevin.zeta, 50.0);
  EXPECT_EQ(spec.backend, "auto");
  EXPECT_EQ(spec.threads, 0);
  EXPECT_EQ(spec.device, -1);
  EXPECT_EQ(spec.cuda_kernels, "auto");

  EXPECT_EQ(spec.temperature.every_steps, 0);
  EXPECT_EQ(spec.temperature.at_step(0), 0.6);
  EXPECT_EQ(spec.temperature.at_step(10'000'000), 0.6);

  EXPECT_EQ(spec.minimize.max_steps, ref.minimize.max_steps);
  EXPECT_EQ(spec.minimize.force_tolerance_kcal_per_mol_A, ref.minimize.force_tolerance_kcal_per_mol_A);
  EXPECT_EQ(spec.minimize.max_displacement_A, ref.minimize.max_displacement_A);
  EXPECT_TRUE(spec.fixed_beads.empty());
  EXPECT_EQ(spec.neighbor.skin_A, ref.neighbor.skin_A);

  // The default output directory, like every path, is relative to the config.
  EXPECT_EQ(spec.output.directory, fs::path("/data/runs/ermak-output"));
  EXPECT_EQ(spec.output.energy_every_steps, ref.output.energy_every_steps);
  EXPECT_EQ(spec.output.trajectory_every_steps, ref.output.trajectory_every_steps);
  EXPECT_EQ(spec.output.checkpoint_every_steps, ref.output.checkpoint_every_steps);
  EXPECT_EQ(spec.output.contact_formed_ratio, ref.output.contact_formed_ratio);
  EXPECT_FALSE(spec.resolved_toml.empty());
}

TEST(ConfigValues, EveryKeyReachesItsField) {
  const RunSpec spec = parse(kMinimal + R"(
[model]
native_cutoff_A = 7.5
native_energy_kcal_per_mol = 2
chain_break_A = 5.0
fene_spring_kcal_per_mol_A2 = 14.0
fene_max_stretch_A = 2.5
repulsion_energy_kcal_per_mol = 0.5
repulsion_sigma_A = 4.0
pair_cutoff_A = 15.0
[run]
steps = 1_000_000
replicas = 64
seed = 9223372036854775807
timestep_tau = 0.05
temperature_kcal_per_mol = 0.7
friction = 100
backend = "cuda"
threads = 8
device = 1
cuda_kernels = "perbead"
[minimize]
steps = 500
max_displacement_A = 0.05
[fixed]
beads = [0, 33, 7]
[neighbor]
skin_A = 4.5
[output]
energy_every = 10
trajectory_every = 0
checkpoint_every = 0
contact_formed_ratio = 1.25
)");
  EXPECT_EQ(spec.model_build.native_cutoff_A, 7.5);
  EXPECT_EQ(spec.model_build.native_energy_kcal_per_mol, 2.0);
  EXPECT_EQ(spec.model_build.chain_break_A, 5.0);
  EXPECT_EQ(spec.sop.fene_k_kcal_per_mol_A2, 14.0f);
  EXPECT_EQ(spec.sop.fene_R0_A, 2.5f);
  EXPECT_EQ(spec.sop.repulsion_eps_kcal_per_mol, 0.5f);
  EXPECT_EQ(spec.sop.repulsion_sigma_A, 4.0f);
  EXPECT_EQ(spec.sop.pair_cutoff_A, 15.0f);
  EXPECT_EQ(spec.steps, 1'000'000);
  EXPECT_EQ(spec.replicas, 64);
  EXPECT_EQ(spec.seed, 9223372036854775807ull);
  EXPECT_EQ(spec.langevin.timestep_tau, 0.05);
  EXPECT_EQ(spec.langevin.temperature_kcal_per_mol, 0.7);
  EXPECT_EQ(spec.temperature.at_step(123456), 0.7);
  EXPECT_EQ(spec.langevin.zeta, 100.0);
  EXPECT_EQ(spec.backend, "cuda");
  EXPECT_EQ(spec.threads, 8);
  EXPECT_EQ(spec.device, 1);
  EXPECT_EQ(spec.cuda_kernels, "perbead");
  EXPECT_EQ(spec.minimize.max_steps, 500);
  EXPECT_EQ(spec.minimize.max_displacement_A, 0.05);
  EXPECT_EQ(spec.fixed_beads, (std::vector<std::int32_t>{0, 33, 7}));
  EXPECT_EQ(spec.neighbor.skin_A, 4.5);
  EXPECT_EQ(spec.output.energy_every_steps, 10);
  EXPECT_EQ(spec.output.trajectory_every_steps, 0);
  EXPECT_EQ(spec.output.checkpoint_every_steps, 0);
  EXPECT_EQ(spec.output.contact_formed_ratio, 1.25);
}

// run.device: one GPU, several that share the replicas, or every GPU (docs/gpu.md#several-gpus);
// the resolved configuration writes back what was given.
TEST(ConfigValues, DeviceIsOneGpuAListOrAll) {
  const RunSpec list = parse(kMinimal + "[run]\ndevice = [2, 0, 1]\n");
  EXPECT_EQ(list.devices, (std::vector<int>{2, 0, 1}));
  EXPECT_FALSE(list.all_devices);
  EXPECT_NE(list.resolved_toml.find("device = [2, 0, 1]"), std::string::npos) << list.resolved_toml;
  EXPECT_EQ(parse_run_spec(list.resolved_toml, kConfig).devices, list.devices);
  const RunSpec one = parse(kMinimal + "[run]\ndevice = [3]\n");
  EXPECT_EQ(one.device, 3);
  EXPECT_TRUE(one.devices.empty());
  const RunSpec all = parse(kMinimal + "[run]\ndevice = \"all\"\n");
  EXPECT_TRUE(all.all_devices);
  EXPECT_TRUE(all.devices.empty());
  EXPECT_TRUE(parse_run_spec(all.resolved_toml, kConfig).all_devices);
  const RunSpec overridden = parse(kMinimal + "[run]\ndevice = \"all\"\n", {"run.device=[0,1]"});
  EXPECT_FALSE(overridden.all_devices);
  EXPECT_EQ(overridden.devices, (std::vector<int>{0, 1}));
  const RunSpec back = parse(kMinimal + "[run]\ndevice = [0, 1]\n", {"run.device=1"});
  EXPECT_TRUE(back.devices.empty());
  EXPECT_EQ(back.device, 1);
}

TEST(ConfigUnits, TimestepInPicosecondsBecomesTauH) {
  const RunSpec spec = parse(kMinimal + "[run]\ntimestep_ps = 24.8\n");
  EXPECT_DOUBLE_EQ(spec.langevin.timestep_tau, 0.1);  // τ_H = 248 ps
  EXPECT_EQ(spec.langevin.timestep_tau, units::ps_to_tau(24.8));
}

TEST(ConfigUnits, TemperatureInKelvinBecomesKcalPerMol) {
  const RunSpec spec = parse(kMinimal + "[run]\ntemperature_K = 300\n");
  EXPECT_NEAR(spec.langevin.temperature_kcal_per_mol, 0.596161, 1e-6);
  EXPECT_EQ(spec.langevin.temperature_kcal_per_mol, units::kelvin_to_kcal_per_mol(300.0));
  EXPECT_EQ(spec.temperature.start_kcal_per_mol, spec.langevin.temperature_kcal_per_mol);
}

TEST(ConfigUnits, ForceToleranceInPiconewtonsBecomesKcalPerMolA) {
  const RunSpec spec = parse(kMinimal + "[minimize]\nforce_tolerance_pN = 69.47695\n");
  EXPECT_DOUBLE_EQ(spec.minimize.force_tolerance_kcal_per_mol_A, 1.0);
}

TEST(ConfigUnits, ForceToleranceInInternalUnitsIsTakenAsIs) {
  const RunSpec spec = parse(kMinimal + "[minimize]\nforce_tolerance_kcal_per_mol_A = 0.25\n");
  EXPECT_EQ(spec.minimize.force_tolerance_kcal_per_mol_A, 0.25);
}

TEST(ConfigPaths, RelativeToTheConfigDirectory) {
  const RunSpec spec = parse(R"(
[input]
topology = "../models/ww.top"
coordinates = "ww.pdb"
[output]
directory = "out/ww"
)");
  EXPECT_EQ(spec.input.topology, fs::path("/data/models/ww.top"));
  EXPECT_EQ(spec.input.coordinates, fs::path("/data/runs/ww.pdb"));
  EXPECT_TRUE(spec.input.structure.empty());
  EXPECT_EQ(spec.output.directory, fs::path("/data/runs/out/ww"));
}

TEST(ConfigPaths, AbsolutePathsStayAsTheyAre) {
  const RunSpec spec = parse("[input]\nstructure = \"/pdb/1ubq.cif\"\n[output]\ndirectory = \"/scratch/o\"\n");
  EXPECT_EQ(spec.input.structure, fs::path("/pdb/1ubq.cif"));
  EXPECT_EQ(spec.output.directory, fs::path("/scratch/o"));
}

TEST(ConfigPaths, LoadRunSpecResolvesAgainstTheFilesDirectory) {
  const fs::path dir = test::fresh_directory("config-load");
  fs::create_directories(dir / "cfg");
  std::ofstream(dir / "cfg" / "run.toml") << "[input]\nstructure = \"../pdb/x.pdb\"\n[run]\nsteps = 7\n";
  const RunSpec spec = load_run_spec(dir / "cfg" / "run.toml");
  EXPECT_EQ(spec.input.structure, (dir / "pdb" / "x.pdb").lexically_normal());
  EXPECT_EQ(spec.output.directory, (dir / "cfg" / "ermak-output").lexically_normal());
  EXPECT_EQ(spec.steps, 7);
}

TEST(ConfigPaths, MissingFileIsAnError) {
  try {
    load_run_spec("/nonexistent/ermak/run.toml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "/nonexistent/ermak/run.toml");
  }
}

TEST(ConfigOverrides, ReplaceAndAddValues) {
  const RunSpec spec = parse(kMinimal + "[run]\nsteps = 100\nseed = 3\n",
                             {"run.steps=250", "run.backend=cuda", "heating.every_steps = 10",
                              "heating.stop_K=400", "heating.increment_K=5", "fixed.beads=[4, 2]",
                              "run.temperature_K=300", "output.contact_formed_ratio=2"});
  EXPECT_EQ(spec.steps, 250);
  EXPECT_EQ(spec.seed, 3u);  // untouched
  EXPECT_EQ(spec.backend, "cuda");  // a bare word is taken as a string
  EXPECT_EQ(spec.temperature.every_steps, 10);
  EXPECT_EQ(spec.temperature.start_kcal_per_mol, units::kelvin_to_kcal_per_mol(300));
  EXPECT_EQ(spec.fixed_beads, (std::vector<std::int32_t>{4, 2}));
  EXPECT_EQ(spec.output.contact_formed_ratio, 2.0);
}

TEST(ConfigOverrides, LaterOverridesWin) {
  const RunSpec spec = parse(kMinimal, {"run.steps=1", "run.steps=2"});
  EXPECT_EQ(spec.steps, 2);
}

TEST(ConfigOverrides, QuotedStringsAndPathsRelativeToTheWorkingDirectory) {
  const RunSpec spec = parse(kMinimal, {R"(input.structure="other.pdb")", "output.directory=out"});
  EXPECT_EQ(spec.input.structure, fs::absolute("other.pdb").lexically_normal());
  EXPECT_EQ(spec.output.directory, fs::absolute("out").lexically_normal());
}

TEST(ConfigOverrides, SwitchingInputKindThroughOverrides) {
  // An override cannot delete a key, so switching structure → topology is an error that
  // names both; the message must still point at a usable location.
  try {
    parse(kMinimal, {"input.topology=a.top", "input.coordinates=a.pdb"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "input.topology");
    EXPECT_EQ(e.file(), "--set");
  }
}

TEST(ConfigHeating, StepwiseScheduleInKelvin) {
  const RunSpec spec = parse(kMinimal + R"(
[heating]
start_K = 300
stop_K = 400
increment_K = 10
every_steps = 1000
)");
  const TemperatureSchedule& t = spec.temperature;
  const double kB = units::kBoltzmann_kcal_per_mol_K;
  EXPECT_EQ(t.every_steps, 1000);
  EXPECT_DOUBLE_EQ(t.at_step(0), 300 * kB);
  EXPECT_DOUBLE_EQ(t.at_step(999), 300 * kB);
  EXPECT_DOUBLE_EQ(t.at_step(1000), 310 * kB);
  EXPECT_DOUBLE_EQ(t.at_step(5500), 350 * kB);
  EXPECT_DOUBLE_EQ(t.at_step(10000), 400 * kB);
  EXPECT_DOUBLE_EQ(t.at_step(50000), 400 * kB);  // capped at stop
  EXPECT_EQ(spec.langevin.temperature_kcal_per_mol, t.start_kcal_per_mol);
  // The run log's "at 400 K from step 10000", whole stairs in K converted to kcal/mol.
  EXPECT_TRUE(t.heating());
  EXPECT_EQ(t.stop_step(), 10000);
  // The CUDA engine runs the steps before the next stair at one kT.
  EXPECT_EQ(t.next_change_after(0), 1000);
  EXPECT_EQ(t.next_change_after(999), 1000);
  EXPECT_EQ(t.next_change_after(1000), 2000);
  EXPECT_EQ(t.next_change_after(5500), 6000);
  for (std::int64_t s : {0, 999, 1000, 5500})
    for (std::int64_t k = s; k < t.next_change_after(s); ++k) ASSERT_EQ(t.at_step(k), t.at_step(s)) << s << " " << k;
}

TEST(ConfigHeating, StartDefaultsToTheRunTemperature) {
  const RunSpec spec = parse(kMinimal + R"(
[run]
temperature_kcal_per_mol = 0.5
[heating]
stop_kcal_per_mol = 0.9
increment_kcal_per_mol = 0.1
every_steps = 10
)");
  EXPECT_EQ(spec.temperature.start_kcal_per_mol, 0.5);
  EXPECT_EQ(spec.langevin.temperature_kcal_per_mol, 0.5);
  EXPECT_DOUBLE_EQ(spec.temperature.at_step(25), 0.7);
  EXPECT_DOUBLE_EQ(spec.temperature.at_step(1000), 0.9);
}

TEST(ConfigHeating, CoolingWithNegativeIncrement) {
  const RunSpec spec = parse(kMinimal + R"(
[heating]
start_kcal_per_mol = 1.0
stop_kcal_per_mol = 0.5
increment_kcal_per_mol = -0.1
every_steps = 100
)");
  EXPECT_EQ(spec.langevin.temperature_kcal_per_mol, 1.0);
  EXPECT_DOUBLE_EQ(spec.temperature.at_step(250), 0.8);
  EXPECT_DOUBLE_EQ(spec.temperature.at_step(10000), 0.5);
  EXPECT_EQ(spec.temperature.stop_step(), 500);
  TemperatureSchedule part = spec.temperature;  // a stop between stairs: reached at the next one
  part.stop_kcal_per_mol = 0.75;
  EXPECT_EQ(part.stop_step(), 300);
  EXPECT_DOUBLE_EQ(part.at_step(299), 0.8);
  EXPECT_DOUBLE_EQ(part.at_step(300), 0.75);
  // An increment too small for any step count to reach the stop: the last step, not an
  // overflow (1e-20 kcal/mol gave "at the stop from step 0").
  TemperatureSchedule tiny = spec.temperature;
  tiny.increment_kcal_per_mol = -1e-20;
  EXPECT_EQ(tiny.stop_step(), std::numeric_limits<std::int64_t>::max());
  tiny.increment_kcal_per_mol = -1e-12;
  tiny.every_steps = 1000000000;
  EXPECT_EQ(tiny.stop_step(), std::numeric_limits<std::int64_t>::max());
}

TEST(ConfigHeating, WithoutHeatingTheScheduleIsConstant) {
  const RunSpec spec = parse(kMinimal + "[run]\ntemperature_K = 310\n");
  EXPECT_EQ(spec.temperature.every_steps, 0);
  EXPECT_FALSE(spec.temperature.heating());
  EXPECT_EQ(spec.temperature.increment_kcal_per_mol, 0.0);
  EXPECT_EQ(spec.temperature.at_step(0), spec.langevin.temperature_kcal_per_mol);
  EXPECT_EQ(spec.temperature.at_step(1'000'000), spec.langevin.temperature_kcal_per_mol);
  EXPECT_EQ(spec.temperature.next_change_after(1'000'000), std::numeric_limits<std::int64_t>::max());
}

}  // namespace
}  // namespace ermak
