// config/toml_config: every user mistake is an ermak::Error that names file:line and key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ermak/config/toml_config.h"
#include "ermak/core/error.h"

namespace ermak {
namespace {

// Line 1 is the [input] header, line 2 the structure; a test's own text starts on line 3.
const std::string kInput = "[input]\nstructure = \"p.pdb\"\n";

struct Caught {
  bool thrown = false;
  std::string message;
  std::string file;
  int line = 0;
  std::string field;
};

Caught error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    parse_run_spec(text, "cfg/run.toml", overrides);
  } catch (const Error& e) {
    return {true, e.what(), e.file(), e.line(), e.field()};
  }
  return {};
}

// The message must carry "file:line" and the key, and say `what` (e.g. the allowed range).
void expect_error(const std::string& text, int line, const std::string& field,
                  const std::string& what) {
  SCOPED_TRACE(text);
  const Caught e = error_of(text);
  ASSERT_TRUE(e.thrown) << "no error";
  // Error leaves the line out when it is not known (0).
  const std::string location =
      line > 0 ? "cfg/run.toml:" + std::to_string(line) + ": " : std::string("cfg/run.toml: ");
  EXPECT_NE(e.message.find(location), std::string::npos) << e.message;
  EXPECT_NE(e.message.find(field), std::string::npos) << e.message;
  EXPECT_NE(e.message.find(what), std::string::npos) << e.message;
  EXPECT_EQ(e.line, line) << e.message;
  EXPECT_EQ(e.field, field) << e.message;
}

TEST(ConfigErrors, SyntaxErrorCarriesTomlLine) {
  const Caught e = error_of(kInput + "[run]\nsteps = = 3\n");
  ASSERT_TRUE(e.thrown);
  EXPECT_EQ(e.line, 4) << e.message;
  EXPECT_NE(e.message.find("cfg/run.toml:4:"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("TOML syntax error"), std::string::npos) << e.message;
}

TEST(ConfigErrors, UnknownNoiseGeneratorListsTheKnownOnes) {
  expect_error(kInput + "[run]\nrng = \"mersenne\"\n", 4, "run.rng",
               "unknown generator \"mersenne\"; known: philox, hybrid_taus, ran2, lcg, lagged_fibonacci, mt19937");
  expect_error(kInput + "[run]\nrng = \"hybrid_taus\"\nrng_layout = \"shared\"\n", 5, "run.rng_layout",
               "generator \"hybrid_taus\" has no layout \"shared\"; it supports: per_thread");
  expect_error(kInput + "[run]\nrng_layout = \"warp\"\n", 4, "run.rng_layout", "it supports: per_thread");
  expect_error(kInput + "[run]\nrng = 3\n", 4, "run.rng", "string");
}

// A NUL in what the user wrote is shown as \0: the printed message (a C string) ended there.
TEST(ConfigErrors, ANulInTheInputIsShown) {
  const Error e(std::string("a\0b", 3));
  EXPECT_EQ(std::string(e.what()), "a\\0b");
  expect_error(kInput + "[fixed]\nbeads = [\"A:6\\u0000\"]\n", 4, "fixed.beads[0]", "\"A:6\\0");
}

TEST(ConfigErrors, UnknownTable) {
  expect_error(kInput + "[runn]\nsteps = 3\n", 3, "runn", "unknown table (did you mean [run]?); known tables: [input]");
  expect_error(kInput + "[colour]\nsteps = 3\n", 3, "colour", "unknown table; known tables: [input]");
}

TEST(ConfigErrors, UnknownTopLevelKey) {
  expect_error("steps = 3\n" + kInput, 1, "steps", "top-level keys belong in a table");
}

TEST(ConfigErrors, UnknownKeyListsTheKnownOnes) {
  // A slip of one or two letters names the key meant (core/closest_name.h).
  expect_error(kInput + "[run]\nsteps = 3\nstep = 4\n", 5, "run.step",
               "unknown key (did you mean 'steps'?); known keys in [run]: steps, replicas, seed");
  expect_error(kInput + "[run]\ntemperature = 300\n", 4, "run.temperature",
               "unknown key (did you mean 'temperature_K' or 'temperature_kcal_per_mol'?)");
  expect_error(kInput + "[run]\nsteps = 3\nlength = 4\n", 5, "run.length",
               "unknown key; known keys in [run]: steps, replicas, seed");
  expect_error(kInput + "[model]\ncutoff = 8\n", 4, "model.cutoff",
               "known keys in [model]: native_cutoff_A");
  expect_error(kInput + "[run.extra]\nx = 1\n", 3, "run.extra", "unknown key");
}

TEST(ConfigErrors, SectionThatIsNoTable) {
  // Before any [table] header, so that it is a top-level key.
  expect_error("run = 5\n" + kInput, 1, "run", "expected a table ([run]), got an integer");
}

TEST(ConfigErrors, WrongTypeNamesTheExpectedType) {
  expect_error(kInput + "[run]\nsteps = \"many\"\n", 4, "run.steps",
               "expected an integer, got a string");
  expect_error(kInput + "[run]\nsteps = 1e6\n", 4, "run.steps",
               "expected an integer, got a floating-point number");
  expect_error(kInput + "[run]\ntemperature_K = \"300\"\n", 4, "run.temperature_K",
               "expected a number, got a string ('300': write the number without quotes)");
  expect_error(kInput + "[run]\nsteps = \"10\"\n", 4, "run.steps",
               "expected an integer, got a string ('10': write the number without quotes)");
  expect_error(kInput + "[run]\nsteps = \"1e3\"\n", 4, "run.steps",
               "('1e3': an integer is written with digits only and without quotes)");
  expect_error(kInput + "[run]\nsteps = \"99999999999999999999\"\n", 4, "run.steps",
               "('99999999999999999999' is out of range for a 64-bit integer)");
  expect_error("[input]\ntopology = \"t.top\"\ncoordinates = \"c.pdb\"\nreplica_coordinates = []\n", 4,
               "input.replica_coordinates",
               "lists no files");
  // [input] chains: strings, with a structure only, each once (docs/config.md#input--the-model).
  expect_error("[input]\nstructure = \"s.pdb\"\nchains = [3]\n", 3, "input.chains[0]",
               "expected a string, got an integer");
  expect_error("[input]\nstructure = \"s.pdb\"\nchains = []\n", 3, "input.chains", "lists no chain");
  expect_error("[input]\nstructure = \"s.pdb\"\nchains = [\"A\", \"B\", \"A\"]\n", 3, "input.chains",
               "chain 'A' is listed twice");
  expect_error("[input]\ntopology = \"t.top\"\ncoordinates = \"c.pdb\"\nchains = [\"A\"]\n", 4, "input.chains",
               "goes with input.structure");
  expect_error(kInput + "[run]\ntemperature_K = \"300 K\"\n", 4, "run.temperature_K",
               "expected a number, got a string ('300 K': the unit goes in the key's name");
  expect_error(kInput + "[run]\nbackend = 1\n", 4, "run.backend", "expected a string, got an integer");
  expect_error(kInput + "[fixed]\nbeads = 3\n", 4, "fixed.beads",
               "expected an array of bead indices or residue selections, got an integer");
  expect_error(kInput + "[fixed]\nbeads = [1, 2.5]\n", 4, "fixed.beads[1]",
               "expected an integer, got a floating-point number");
  expect_error("[input]\nstructure = 3\n", 2, "input.structure", "expected a string");
}

TEST(ConfigErrors, OutOfRangeStatesTheAllowedRange) {
  expect_error(kInput + "[run]\ntimestep_tau = 0\n", 4, "run.timestep_tau", "must be > 0 tau_H, got 0");
  expect_error(kInput + "[run]\ntimestep_ps = -20\n", 4, "run.timestep_ps", "must be > 0 ps, got -20");
  expect_error(kInput + "[run]\nreplicas = 0\n", 4, "run.replicas",
               "must be between 1 and 2147483647, got 0");
  expect_error(kInput + "[run]\nsteps = -1\n", 4, "run.steps", "must be between 0 and 281474976710656, got -1");
  expect_error(kInput + "[run]\nseed = -5\n", 4, "run.seed", "must be >= 0");
  expect_error(kInput + "[run]\ntemperature_K = 0\n", 4, "run.temperature_K", "must be > 0 K");
  expect_error(kInput + "[run]\ntemperature_kcal_per_mol = -0.6\n", 4,
               "run.temperature_kcal_per_mol", "must be > 0 kcal/mol");
  expect_error(kInput + "[run]\nfriction = 0\n", 4, "run.friction", "must be > 0");
  expect_error(kInput + "[run]\nthreads = -1\n", 4, "run.threads", "between 0 and 1024");
  expect_error(kInput + "[run]\nthreads = 100000\n", 4, "run.threads", "between 0 and 1024, got 100000");
  expect_error(kInput + "[model]\nnative_cutoff_A = -8\n", 4, "model.native_cutoff_A",
               "must be > 0 Å, got -8");
  expect_error(kInput + "[model]\nrepulsion_sigma_A = 0\n", 4, "model.repulsion_sigma_A",
               "must be between 1.17549e-38 and 3.40282e+38 Å, got 0");
  // Below a float's smallest normal value it would be held as 0: a run without repulsion.
  expect_error(kInput + "[model]\nrepulsion_sigma_A = 1e-300\n", 4, "model.repulsion_sigma_A",
               "must be between 1.17549e-38 and");
  expect_error(kInput + "[model]\npair_cutoff_A = 1e39\n", 4, "model.pair_cutoff_A", "and 3.40282e+38 Å, got 1e+39");
  expect_error(kInput + "[minimize]\nforce_tolerance_pN = 0\n", 4, "minimize.force_tolerance_pN",
               "must be > 0 pN");
  expect_error(kInput + "[neighbor]\nskin_A = 0\n", 4, "neighbor.skin_A", "must be > 0 Å");
  expect_error(kInput + "[output]\nenergy_every = 0\n", 4, "output.energy_every", "must be >= 1");
  expect_error(kInput + "[output]\ntrajectory_every = -1\n", 4, "output.trajectory_every",
               "must be >= 0");
  expect_error(kInput + "[output]\ncontact_formed_ratio = 1.0\n", 4, "output.contact_formed_ratio",
               "must be > 1, got 1");
  expect_error(kInput + "[fixed]\nbeads = [0, -1]\n", 4, "fixed.beads[1]", "must be between 0 and");
  expect_error(kInput + "[run]\ntimestep_tau = nan\n", 4, "run.timestep_tau", "finite");
  expect_error(kInput + "[heating]\nstop_K = 400\nincrement_K = 5\nevery_steps = 0\n", 6,
               "heating.every_steps", "must be >= 1");
}

TEST(ConfigErrors, BothUnitsOfOneQuantity) {
  expect_error(kInput + "[run]\ntimestep_tau = 0.08\ntimestep_ps = 20\n", 5, "run.timestep_ps",
               "give either run.timestep_tau or run.timestep_ps, not both");
  expect_error(kInput + "[run]\ntemperature_K = 300\ntemperature_kcal_per_mol = 0.6\n", 4,
               "run.temperature_K", "not both");
  expect_error(kInput + "[heating]\nstop_K = 400\nstop_kcal_per_mol = 0.8\n", 4, "heating.stop_K",
               "not both");
  expect_error(kInput + "[minimize]\nforce_tolerance_pN = 5\nforce_tolerance_kcal_per_mol_A = 0.1\n",
               5, "minimize.force_tolerance_kcal_per_mol_A", "not both");
}

TEST(ConfigErrors, InputNeedsExactlyOneModelSource) {
  expect_error("[run]\nsteps = 1\n", 0, "input", "missing model input");
  expect_error("[input]\ncoordinates = \"c.pdb\"\n", 1, "input", "missing model input");
  expect_error(kInput + "topology = \"t.top\"\n", 3, "input.topology", "not both");
  expect_error("[input]\ntopology = \"t.top\"\n", 2, "input.topology", "needs input.coordinates");
  // A PDB/mmCIF given as the topology: the keys it belongs to, an all-atom structure's or a
  // coarse-grained model's coordinates (ww_cg.pdb is no all-atom structure).
  expect_error("[input]\ntopology = \"1ubq.pdb\"\n", 2, "input.topology",
               "1ubq.pdb is a PDB/mmCIF structure or coordinates file: give an all-atom structure as "
               "input.structure, the coordinates of a coarse-grained model as input.coordinates with its .top or "
               ".etop as input.topology");
  expect_error("[input]\ntopology = \"ww_cg.pdb\"\ncoordinates = \"ww_cg.pdb\"\n", 2, "input.topology",
               "give an all-atom structure as input.structure (without input.coordinates), the coordinates of a "
               "coarse-grained model as input.coordinates");
  // An .etop stores its native coordinates, which are then the start (docs/formats.md).
  EXPECT_FALSE(error_of("[input]\ntopology = \"t.etop\"\n").thrown);
  expect_error(kInput + "coordinates = \"c.pdb\"\n", 3, "input.coordinates", "goes with input.topology");
  expect_error("[input]\nstructure = \"\"\n", 2, "input.structure", "must not be empty");
}

TEST(ConfigErrors, StructureBuilderKeysWithATopologyAreAnError) {
  const std::string topology = "[input]\ntopology = \"t.top\"\ncoordinates = \"c.pdb\"\n";
  expect_error(topology + "[model]\nnative_cutoff_A = 10\n", 5, "model.native_cutoff_A",
               "applies to a model built from input.structure");
  expect_error(topology + "[model]\nnative_energy_kcal_per_mol = 2\n", 5, "model.native_energy_kcal_per_mol",
               "ermak topology --eh");
  expect_error(topology + "[model]\nchain_break_A = 5\n", 5, "model.chain_break_A", "--break-distance");
  // The defaults, as a run's resolved configuration writes them, are accepted.
  EXPECT_FALSE(error_of(topology + "[model]\nnative_cutoff_A = 8.0\nnative_energy_kcal_per_mol = 1.5\n"
                                   "chain_break_A = 4.5\n").thrown);
  // With a structure they build the model; ε_h must fit the model's single precision.
  EXPECT_FALSE(error_of(kInput + "[model]\nnative_cutoff_A = 10\n").thrown);
  expect_error(kInput + "[model]\nnative_energy_kcal_per_mol = 1e39\n", 4, "model.native_energy_kcal_per_mol",
               "and 3.40282e+38 kcal/mol");
}

// Beyond 2^48 steps the noise counter's step would wrap and Philox's numbers repeat.
TEST(ConfigErrors, StepsStopWhereTheNoiseCounterEnds) {
  EXPECT_FALSE(error_of(kInput + "[run]\nsteps = 281474976710656\n").thrown);
  expect_error(kInput + "[run]\nsteps = 281474976710657\n", 4, "run.steps",
               "out of range: must be between 0 and 281474976710656");
}

TEST(ConfigErrors, BackendMustBeKnown) {
  expect_error(kInput + "[run]\nbackend = \"gpu\"\n", 4, "run.backend", "must be \"auto\", \"cpu\" or \"cuda\"");
  expect_error(kInput + "[run]\ncuda_kernels = \"warp\"\n", 4, "run.cuda_kernels", "must be \"auto\", \"block\" or \"perbead\"");
  expect_error(kInput + "[run]\ndevice = -1\n", 4, "run.device", "out of range");
  expect_error(kInput + "[run]\ndevice = [0, -1]\n", 4, "run.device[1]", "out of range");
  expect_error(kInput + "[run]\ndevice = []\n", 4, "run.device", "at least one GPU");
  expect_error(kInput + "[run]\ndevice = \"every\"\n", 4, "run.device", "a GPU index, a list of them or \"all\"");
}

TEST(ConfigErrors, HeatingNeedsConsistentValues) {
  expect_error(kInput + "[heating]\nincrement_K = 5\nevery_steps = 10\n", 3, "heating",
               "needs stop_K or stop_kcal_per_mol");
  expect_error(kInput + "[heating]\nstop_K = 400\nevery_steps = 10\n", 3, "heating",
               "needs increment_K");
  expect_error(kInput + "[heating]\nstop_K = 400\nincrement_K = 5\n", 3, "heating", "needs every_steps");
  expect_error(kInput + "[heating]\nstart_K = 300\nstop_K = 400\nincrement_K = -5\nevery_steps = 10\n",
               6, "heating.increment_K", "must be > 0");
  expect_error(kInput + "[heating]\nstart_K = 300\nstop_K = 200\nincrement_K = 5\nevery_steps = 10\n",
               6, "heating.increment_K", "must be < 0");
  expect_error(kInput + "[heating]\nstart_K = 300\nstop_K = 400\nincrement_K = 0\nevery_steps = 10\n",
               6, "heating.increment_K", "must be > 0");
  expect_error(kInput + "[heating]\nstart_K = 300\nstop_K = 300\nincrement_K = 1\nevery_steps = 10\n",
               5, "heating.stop_K", "equals the start temperature");
  expect_error(kInput +
                   "[run]\ntemperature_K = 300\n[heating]\nstart_K = 300\nstop_K = 400\n"
                   "increment_K = 5\nevery_steps = 10\n",
               6, "heating.start_K", "give it in one place");
}

TEST(ConfigErrors, RepeatedFixedBead) {
  expect_error(kInput + "[fixed]\nbeads = [3, 5, 3]\n", 4, "fixed.beads", "bead 3 is listed twice");
}

TEST(ConfigErrors, OverrideErrorsNameSet) {
  const auto check = [](const std::vector<std::string>& overrides, const std::string& field,
                        const std::string& what) {
    SCOPED_TRACE(overrides.front());
    const Caught e = error_of(kInput, overrides);
    ASSERT_TRUE(e.thrown);
    EXPECT_EQ(e.file, "--set") << e.message;
    EXPECT_EQ(e.line, 0) << e.message;
    EXPECT_EQ(e.field, field) << e.message;
    EXPECT_EQ(e.message.rfind("--set: " + field + ": ", 0), 0u) << e.message;
    EXPECT_NE(e.message.find(what), std::string::npos) << e.message;
  };
  check({"run.stepz=5"}, "run.stepz", "unknown key (did you mean 'steps'?); known keys in [run]");
  check({"runn.steps=5"}, "runn", "unknown table");
  // One element of an array of tables is not a key: the error says to give the whole array.
  check({"plane_pulling.plane[1].speed_um_per_s=20000"}, "plane_pulling.plane[1].speed_um_per_s",
        "a key cannot index an array: give the whole array");
  check({"run.steps=lots"}, "run.steps", "expected an integer, got a string");
  check({"run.temperature_K=300K"}, "run.temperature_K", "('300K': the unit goes in the key's name");
  check({"run.seed=9223372036854775808"}, "run.seed",
        "expected an integer, got a string ('9223372036854775808' is out of range for a 64-bit integer)");
  check({"run.replicas=0"}, "run.replicas", "must be between 1 and");
  check({"run.steps"}, "run.steps", "expected section.key=value");
  check({"run.steps="}, "run.steps", "missing value");
  check({"run..steps=3"}, "run..steps", "cannot read");
  // An array, inline table or quoted string that is no TOML: its syntax error, not a string.
  check({"run.steps=[1,2"}, "run.steps", "cannot read \"run.steps=[1,2\": TOML syntax error");
  check({"fixed.beads=[3"}, "fixed.beads", "TOML syntax error");
  check({"run.backend=\"cpu"}, "run.backend", "TOML syntax error");
  check({"run.temperature_K=300", "run.temperature_kcal_per_mol=0.6"}, "run.temperature_K",
        "not both");
  // A conflict between the file and an override names the override, the user's latest word.
  {
    const Caught e = error_of(kInput + "[run]\ntemperature_K = 300\n", {"run.temperature_kcal_per_mol=0.6"});
    ASSERT_TRUE(e.thrown);
    EXPECT_EQ(e.message.rfind("--set: run.temperature_kcal_per_mol: give either", 0), 0u) << e.message;
    const Caught input = error_of(kInput, {"input.topology=\"t.top\""});
    ASSERT_TRUE(input.thrown);
    EXPECT_EQ(input.message.rfind("--set: input.topology: give either input.structure or input.topology", 0), 0u)
        << input.message;
  }
}

// A value for a whole section, or a key inside a value: an error naming both, not the
// file's (or an earlier --set's) section silently dropped.
TEST(ConfigErrors, OverrideOfASectionByAValueOrTheReverse) {
  const std::string input = kInput + "[run]\nsteps = 100\n[output]\ndirectory = \"out\"\n";
  const auto check = [&](const std::vector<std::string>& overrides, const std::string& field,
                         const std::string& what) {
    SCOPED_TRACE(overrides.back());
    const Caught e = error_of(input, overrides);
    ASSERT_TRUE(e.thrown);
    EXPECT_EQ(e.file, "--set") << e.message;
    EXPECT_EQ(e.field, field) << e.message;
    EXPECT_NE(e.message.find(what), std::string::npos) << e.message;
  };
  check({"output=1"}, "output",
        "\"output=1\" gives a value where the configuration has the section [output]; set its keys as "
        "output.KEY=VALUE");
  check({"run.steps.every=3"}, "run.steps",
        "\"run.steps.every=3\" sets a key inside run.steps, which is a value here (run.steps = 100), not a "
        "section");
  // A section first given as a value by an earlier --set is refused just the same.
  check({"heating=1", "heating.start_K=300"}, "heating",
        "\"heating.start_K=300\" sets a key inside heating, which is a value here (heating = 1)");
}

}  // namespace
}  // namespace ermak

// A problem of several keys together is named at the one a --set override gave.
TEST(ConfigErrors, ACombinationIsNamedAtTheOverriddenKey) {
  ermak::RunSpec spec;
  spec.key_sources["indentation.tip_position_A"] = {"run.toml", 31, ""};
  EXPECT_EQ(ermak::blamed_key(spec, {"indentation.tip_position_A", "indentation.surface.normal"}),
            "indentation.tip_position_A");
  spec.key_sources["indentation.surface.normal"] = {"--set", 0, ""};
  EXPECT_EQ(ermak::blamed_key(spec, {"indentation.tip_position_A", "indentation.surface.normal"}),
            "indentation.surface.normal");
}
