// SOP-GPU run configurations (config/sopgpu_config.h, docs/migrating-from-sop-gpu.md):
// the line format, macros as SOP-GPU expands them, many-runs and single-run modes, the
// mapping of every kind of key onto the RunSpec (exact values), and errors with
// file:line for unknown keys, malformed values, duplicates and unsupported features.
#include <gtest/gtest.h>

#include <cmath>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "ermak/config/sopgpu_config.h"
#include "ermak/config/toml_config.h"
#include "ermak/core/error.h"
#include "ermak/run/sopgpu_outputs.h"
#include "support/test_paths.h"

namespace fs = std::filesystem;
using namespace ermak;

namespace {

SopLoadOptions cpu(std::vector<std::string> overrides = {}) {
  SopLoadOptions o;
  o.backend = "cpu";
  o.overrides = std::move(overrides);
  return o;
}

// A minimal many-runs equilibration, in the style of ww_1-100_equil.sop.
const char* kMinimal =
    "# a comment line\n"
    "name\tww   # trailing comment\n"
    "\n"
    "topology topologies/<name>.top\n"
    "coordinates structures/<name>.pdb\n"
    "numsteps 1000\n"
    "timestep 0.08\n"
    "seed 100\n"
    "firstrun 4\n"
    "runnum 3\n"
    "outputname dat/<name>_<run>_equil.dat\n"
    "DCDfile dcd/<name>_<run>.dcd\n"
    "restartname output/<name>_<run>_restart\n"
    "finalcoord structures/<name>_<run>_final.pdb\n";

std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    parse_sopgpu_run(text, "test.sop", cpu(overrides));
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path abs(const std::string& p) { return fs::absolute(p).lexically_normal(); }

}  // namespace

TEST(SopgpuConfig, CommentsBlankLinesAndMacros) {
  const auto entries = read_sop_entries(kMinimal, "test.sop");
  ASSERT_EQ(entries.size(), 12u);
  EXPECT_EQ(entries[0].key, "name");
  EXPECT_EQ(entries[0].value, "ww");  // trailing comment and tabs gone
  EXPECT_EQ(entries[0].line, 2);
  EXPECT_EQ(entries[1].value, "topologies/ww.top");
  EXPECT_EQ(entries[8].value, "dat/ww_<run>_equil.dat");  // <run> waits for the run
  // A byte-order mark before the first line (some editors write one) is no key's part.
  const SopRun with_bom = parse_sopgpu_run("\xEF\xBB\xBF" + std::string(kMinimal), "test.sop", cpu());
  EXPECT_EQ(with_bom.spec.seed, parse_sopgpu_run(kMinimal, "test.sop", cpu()).spec.seed);
}

TEST(SopgpuConfig, ManyRunsExpandRunPerReplicaWithoutPadding) {
  const SopRun run = parse_sopgpu_run(kMinimal, "test.sop", cpu());
  EXPECT_EQ(run.spec.replicas, 3);
  ASSERT_EQ(run.outputs.runs.size(), 3u);
  EXPECT_EQ(run.outputs.runs[0].run, "4");
  EXPECT_EQ(run.outputs.runs[2].energy, abs("dat/ww_6_equil.dat"));
  EXPECT_EQ(run.outputs.runs[1].trajectory, abs("dcd/ww_5.dcd"));
  EXPECT_EQ(run.outputs.runs[1].restart_pdb, abs("output/ww_5_restart.pdb"));
  EXPECT_EQ(run.outputs.runs[0].final_pdb, abs("structures/ww_4_final.pdb"));
  EXPECT_EQ(run.outputs.checkpoint, abs("output/ww_4-6_restart.test.ermak.ckpt"));
  EXPECT_EQ(run.outputs.reference_pdb, abs("ww.ref.pdb"));
  // SOP-GPU's seed: seed + firstrun + run, run = −1 in many-runs mode.
  EXPECT_EQ(run.spec.seed, 100u + 4 - 1);
  EXPECT_EQ(run.spec.input.topology, abs("topologies/ww.top"));
  EXPECT_EQ(run.spec.input.coordinates, abs("structures/ww.pdb"));
  EXPECT_TRUE(run.spec.input.replica_coordinates.empty());
  EXPECT_FALSE(run.spec.output.write_directory);
  EXPECT_EQ(run.spec.output.checkpoint_file, run.outputs.checkpoint);
}

// Outputs the file does not name take SOP-GPU's default names, <author> included (its
// manual), the final structure's with _<stage> too (its code); without an author or a stage
// those parts are left out (an audit: a SOP-GPU user's scripts look for energy.ww_X1.dat).
TEST(SopgpuConfig, DefaultOutputNamesAreSopGpus) {
  const std::string bare =
      "name ww\ntopology topologies/<name>.top\ncoordinates structures/<name>.pdb\nnumsteps 1000\ntimestep 0.08\n"
      "seed 100\nrun 1\n";
  const SopRun plain = parse_sopgpu_run(bare, "test.sop", cpu());
  EXPECT_EQ(plain.outputs.runs[0].energy, abs("energy.ww_1.dat"));
  EXPECT_EQ(plain.outputs.runs[0].trajectory, abs("ww_1.dcd"));
  EXPECT_EQ(plain.outputs.runs[0].final_pdb, abs("ww_1_final.pdb"));
  const SopRun named = parse_sopgpu_run(bare + "author X\nstage equil\n", "test.sop", cpu());
  EXPECT_EQ(named.outputs.runs[0].energy, abs("energy.ww_X1.dat"));
  EXPECT_EQ(named.outputs.runs[0].trajectory, abs("ww_X1.dcd"));
  EXPECT_EQ(named.outputs.runs[0].restart_pdb, abs("ww_X1_restart.pdb"));
  EXPECT_EQ(named.outputs.runs[0].final_pdb, abs("ww_X1_equil_final.pdb"));
}

TEST(SopgpuConfig, SingleRunKeepsTheRunAsWritten) {
  std::string text = kMinimal;
  text = std::regex_replace(text, std::regex("firstrun 4\nrunnum 3\n"), "run 01\n");
  const SopRun run = parse_sopgpu_run(text, "test.sop", cpu());
  EXPECT_EQ(run.spec.replicas, 1);
  EXPECT_EQ(run.outputs.runs[0].energy, abs("dat/ww_01_equil.dat"));
  EXPECT_EQ(run.outputs.checkpoint, abs("output/ww_01_restart.test.ermak.ckpt"));
  EXPECT_EQ(run.spec.seed, 100u + 1 + 1);  // seed + firstrun (= run) + run
}

TEST(SopgpuConfig, UnknownKeyMalformedValueDuplicateAndMacroErrorsNameFileAndLine) {
  EXPECT_NE(error_of(std::string(kMinimal) + "pulingg on\n").find("test.sop:15: pulingg: unknown key"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "Numsteps 5\n").find("did you mean 'numsteps'"), std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "numstep 5\n").find("numstep: unknown key (did you mean 'numsteps'?)"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "pulingg on\n").find("(did you mean 'pulling'?)"), std::string::npos);
  const std::string bad = std::regex_replace(std::string(kMinimal), std::regex("numsteps 1000"), "numsteps 10x0");
  EXPECT_NE(error_of(bad).find("test.sop:6: numsteps: expected an integer, got '10x0'"), std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "timestep 0.1\n").find("test.sop:15: timestep: given twice (also on line 7)"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "reffilename <nmae>.pdb\n").find("test.sop:15: reffilename: macro <nmae>"),
            std::string::npos);
  // A key of the user's own defines a macro when a value uses it (as the docs and the
  // undefined-macro message say); unused, it is an unknown key.
  const SopRun own = parse_sopgpu_run(std::string(kMinimal) + "proj abc\nreffilename <proj>.pdb\n", "test.sop", cpu());
  EXPECT_EQ(own.outputs.reference_pdb.filename().string(), "abc.pdb");
  EXPECT_NE(error_of(std::string(kMinimal) + "proj abc\n").find("test.sop:15: proj: unknown key"), std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "pulling maybe\n").find("test.sop:15: pulling: expected yes/no"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "name\n").find("test.sop:15: name: a key without a value"),
            std::string::npos);
  // A range check made by the shared TOML validation, reported at the .sop line.
  EXPECT_NE(error_of(std::string(kMinimal) + "zeta -1\n").find("test.sop:15: zeta: out of range"), std::string::npos);
  // Many runs into one file.
  const std::string shared = std::regex_replace(std::string(kMinimal), std::regex("dat/<name>_<run>_equil.dat"),
                                                "dat/all.dat");
  EXPECT_NE(error_of(shared).find("test.sop:11: outputname: 'dat/all.dat' has no <run> macro"), std::string::npos);
}

// Values the code review found crashing or silently changed: a value of form feeds or vertical
// tabs (a segfault), a range that fills the memory, a GPU index beyond int, a seed sum below 0.
TEST(SopgpuConfig, BlankValuesHugeRangesDevicesAndSeedSumsAreErrors) {
  EXPECT_NE(error_of(std::string(kMinimal) + "author \f\n").find("test.sop:15: author: a key without a value"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"author=\v"}).find("--set: author: missing value"), std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "fixed 0 to 3000000000\n")
                .find("test.sop:15: fixed: range '0 to 3000000000' is longer than any model"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kMinimal) + "fixed 5 to 200000000\n").find("is longer than any model"),
            std::string::npos);
  // A range from a negative index: its length would overflow (an audit's filled the memory).
  EXPECT_NE(error_of(std::string(kMinimal) + "fixed -9223372036854775808 to 5\n")
                .find("test.sop:15: fixed: range '-9223372036854775808 to 5' starts below 0"),
            std::string::npos);
  // Run numbers are SOP-GPU's ints, also the last of firstrun + runnum − 1.
  EXPECT_NE(error_of(kMinimal, {"firstrun=9223372036854775807", "runnum=2"}).find("--set: firstrun: out of range"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"firstrun=2147483647", "runnum=2"}).find("firstrun: out of range"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"firstrun=-9223372036854775807"}).find("firstrun: out of range"), std::string::npos);
  EXPECT_EQ(parse_sopgpu_run(kMinimal, "test.sop", cpu({"firstrun=2147483645"})).spec.replicas, 3);
  // Without a seed the note names one that repeats the run, or says there is none.
  for (const char* first : {"firstrun=5", "firstrun=-2147483648"}) {
    std::vector<std::string> overrides = {first};
    std::string text = std::regex_replace(std::string(kMinimal), std::regex("seed [0-9]+\n"), "");
    const SopRun run = parse_sopgpu_run(text, "test.sop", cpu(overrides));
    std::string notes;
    for (const auto& n : run.notes) notes += n + "\n";
    EXPECT_NE(notes.find("seed not given"), std::string::npos) << notes;
    EXPECT_TRUE(notes.find("repeats the run") != std::string::npos) << notes;
  }
  EXPECT_NE(error_of(kMinimal, {"device=4294967297"}).find("--set: device: out of range: a GPU index"),
            std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"device=-7"}).find("--set: device: out of range"), std::string::npos);
  EXPECT_EQ(parse_sopgpu_run(kMinimal, "test.sop", cpu({"device=2"})).spec.device, 2);
  // seed + firstrun + run: 0 + 0 + (−1) with runnum.
  EXPECT_NE(error_of(kMinimal, {"seed=0", "firstrun=0"})
                .find("--set: seed: the run's seed is seed + firstrun + run = 0 + 0 + (-1)"),
            std::string::npos)
      << error_of(kMinimal, {"seed=0", "firstrun=0"});
  EXPECT_NE(error_of(kMinimal, {"seed=9223372036854775807"}).find("which must lie in 0 … 9223372036854775807"),
            std::string::npos);
  EXPECT_EQ(parse_sopgpu_run(kMinimal, "test.sop", cpu()).spec.seed, 100u + 4u - 1u);
  // A sum that fits, though seed + firstrun alone would not: firstrun + run is added first.
  EXPECT_EQ(parse_sopgpu_run(kMinimal, "test.sop", cpu({"seed=9223372036854775807", "firstrun=1"})).spec.seed,
            9223372036854775807u);
}

// SOP-GPU's hydrodynamics keys (docs/migrating-from-sop-gpu.md): hi_on turns on TEA,
// hi_exact the exact Cholesky factor, hi_a is the radius; the TEA tuning keys are noted
// without effect; switched off or absent, every hi_* key is noted as read by nothing.
TEST(SopgpuConfig, HydrodynamicsKeysMapOntoTheHydrodynamicsTable) {
  const SopRun tea = parse_sopgpu_run(std::string(kMinimal) + "hi_on yes\nhi_a 2.5\nhi_epsilon_freq 10\n", "test.sop", cpu());
  EXPECT_EQ(tea.spec.langevin.hydrodynamics.method, HydrodynamicMethod::kTea);
  EXPECT_EQ(tea.spec.langevin.hydrodynamics.radius_A, 2.5);
  EXPECT_NE(tea.spec.resolved_toml.find("[hydrodynamics]\nmethod = \"tea\"\nradius_A = 2.5"), std::string::npos)
      << tea.spec.resolved_toml;
  std::string notes;
  for (const std::string& n : tea.notes) notes += n + "\n";
  EXPECT_NE(notes.find("hi_epsilon_freq 10: no effect in ermak: TEA's ε is recomputed at every step"), std::string::npos)
      << notes;
  const SopRun exact = parse_sopgpu_run(std::string(kMinimal) + "hi_on yes\nhi_exact yes\n", "test.sop", cpu());
  EXPECT_EQ(exact.spec.langevin.hydrodynamics.method, HydrodynamicMethod::kCholesky);
  EXPECT_EQ(exact.spec.langevin.hydrodynamics.radius_A, 1.9);  // ermak's default, noted
  std::string exact_notes;
  for (const std::string& n : exact.notes) exact_notes += n + "\n";
  EXPECT_NE(exact_notes.find("hi_a not given"), std::string::npos) << exact_notes;
  // Switched off or never on: the hi_* keys are read by nothing.
  for (const std::string& off : {std::string("hi_on no\n"), std::string()}) {
    const SopRun run = parse_sopgpu_run(std::string(kMinimal) + off + "hi_a 1.9\nhi_exact yes\n", "test.sop", cpu());
    EXPECT_FALSE(run.spec.langevin.hydrodynamics.enabled());
    EXPECT_EQ(run.spec.resolved_toml.find("[hydrodynamics]"), std::string::npos);
    std::string off_notes;
    for (const std::string& n : run.notes) off_notes += n + "\n";
    EXPECT_NE(off_notes.find(off.empty() ? "hi_a: no effect: hi_on is not on" : "hi_a: no effect: hi_on is off"),
              std::string::npos)
        << off_notes;
  }
  // SOP-GPU's protofilament example with hydrodynamics loads as TEA with a = 1.9 Å.
  const fs::path hi = ermak::test::shared_data() / "sopgpu/pf8/PF8_vf_3.0_R_100_HI.sop";
  if (!fs::exists(hi)) GTEST_SKIP() << "no shared data at " << hi;
  const SopRun pf8 = load_sopgpu_run(hi, cpu());
  EXPECT_EQ(pf8.spec.langevin.hydrodynamics.method, HydrodynamicMethod::kTea);
  EXPECT_EQ(pf8.spec.langevin.hydrodynamics.radius_A, 1.9);
}

// SOP-GPU's pulling plane moves by a spring against its beads' forces, ermak's planes at a set
// speed: refused as not supported, with the numbered bead keys too; switched off, its keys
// are read by nothing, as in SOP-GPU (docs/migrating-from-sop-gpu.md#keys).
TEST(SopgpuConfig, SopGpusPullingPlaneIsNotSupportedYet) {
  const std::string plane = "pullingPlane on\npullingPlaneDeltax 0.01\nplane_pulled_beads 1\nplane_pulled1 4\n";
  const std::string error = error_of(std::string(kMinimal) + plane);
  EXPECT_NE(error.find("test.sop:15: pullingPlane: not supported yet: SOP-GPU's pulling plane"), std::string::npos)
      << error;
  EXPECT_NE(error.find("[plane_pulling] moves its planes at a set speed"), std::string::npos) << error;
  // A numbered key is known (not "unknown key"), and refused at its own line.
  const std::string numbered = error_of(std::string(kMinimal) + "plane_fixed12 3\npullingPlane yes\n");
  EXPECT_NE(numbered.find("test.sop:15: plane_fixed12: not supported yet"), std::string::npos) << numbered;
  EXPECT_NE(error_of(std::string(kMinimal) + "plane_fixedx 3\n").find("plane_fixedx: unknown key"),
            std::string::npos);
  // SOP-GPU reads plane_fixed1 … : no 0, and the table's row name is no key; a hint names a key.
  for (const char* never : {"plane_fixed0 3\n", "plane_fixed<N> 3\n"})
    EXPECT_NE(error_of(std::string(kMinimal) + never).find(": unknown key"), std::string::npos) << never;
  EXPECT_NE(error_of(std::string(kMinimal) + "Plane_fixed1 3\n").find("did you mean 'plane_fixed1'?"),
            std::string::npos);
  // The newer SOP-GPU's keys: bead lists and the plane's own spring and friction.
  const std::string newer = error_of(std::string(kMinimal) + "pullingPlane on\nplane_fixed 0 1 2\n");
  EXPECT_NE(newer.find("test.sop:15: pullingPlane: not supported yet"), std::string::npos) << newer;
  const SopRun newer_off = parse_sopgpu_run(
      std::string(kMinimal) + "pullingPlane off\nplane_fixed 0 1 2\npullingPlaneKsCant 0.05\npullingPlaneZeta 200\n",
      "test.sop", cpu());
  std::string newer_notes;
  for (const std::string& n : newer_off.notes) newer_notes += n + "\n";
  for (const char* key : {"plane_fixed: no effect", "pullingPlaneKsCant: no effect", "pullingPlaneZeta: no effect"})
    EXPECT_NE(newer_notes.find(key), std::string::npos) << key << "\n" << newer_notes;
  // Off or absent: accepted, each key noted without effect.
  for (const std::string& off : {std::string("pullingPlane off\n"), std::string()}) {
    const SopRun run =
        parse_sopgpu_run(std::string(kMinimal) + off + "pullingPlaneKs 0.05\nplane_fixed1 2\n", "test.sop", cpu());
    EXPECT_EQ(run.spec.replicas, 3);
    std::string notes;
    for (const std::string& n : run.notes) notes += n + "\n";
    EXPECT_NE(notes.find("pullingPlaneKs: no effect: pullingPlane is " + std::string(off.empty() ? "not on" : "off")),
              std::string::npos)
        << notes;
    EXPECT_NE(notes.find("plane_fixed1: no effect"), std::string::npos) << notes;
  }
}

TEST(SopgpuConfig, AStageInOtherLettersIsRefusedAnyOtherWordIsAMacro) {
  // "Pull" is not SOP-GPU's pull stage (compared exactly): it would run without pulling.
  const std::string refused = error_of(std::string(kMinimal) + "stage Pull\n");
  EXPECT_NE(refused.find("test.sop:15: stage: 'Pull' is not a stage"), std::string::npos) << refused;
  EXPECT_NE(refused.find("write 'pull'"), std::string::npos) << refused;
  EXPECT_NE(error_of(std::string(kMinimal) + "stage HEAT\n").find("write 'heat'"), std::string::npos);
  // With the protocol switched on by its own key, "Pull" only names files (a run that
  // SOP-GPU and earlier ermak ran as a pulling run).
  EXPECT_EQ(error_of(std::string(kMinimal) + "stage Pull\npulling on\npulled 33\ndeltax 0.0001\nfixedEnd 0\npulledEnd 33\n"),
            "no error");
  // A word that is no stage only names files, as in SOP-GPU.
  const SopRun run = parse_sopgpu_run(std::string(kMinimal) + "stage equil\n", "test.sop", cpu());
  EXPECT_FALSE(run.spec.pulling.enabled);
  EXPECT_FALSE(run.spec.temperature.heating());
}

TEST(SopgpuConfig, SetOverridesAKeyOrReportsAsSet) {
  const SopRun run = parse_sopgpu_run(kMinimal, "test.sop", cpu({"numsteps=250", "runnum=2", "temperature=0.7"}));
  EXPECT_EQ(run.spec.steps, 250);
  EXPECT_EQ(run.spec.replicas, 2);
  EXPECT_DOUBLE_EQ(run.spec.langevin.temperature_kcal_per_mol, 0.7);
  EXPECT_NE(error_of(kMinimal, {"numsteps=lots"}).find("--set: numsteps: expected an integer"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"numsteps"}).find("--set: numsteps: expected key=value"), std::string::npos);
  EXPECT_NE(error_of(kMinimal, {"bogus=1"}).find("--set: bogus: unknown key"), std::string::npos);
  // A topology key names the command with the configuration's file, also from --set.
  for (const std::vector<std::string>& set : {std::vector<std::string>{}, std::vector<std::string>{"structure=ww.pdb"}}) {
    const std::string text = set.empty() ? std::string(kMinimal) + "structure ww.pdb\n" : std::string(kMinimal);
    EXPECT_NE(error_of(text, set).find("build the model with `ermak topology test.sop`"), std::string::npos)
        << error_of(text, set);
  }
}

TEST(SopgpuConfig, WwEquilibrationMapsOntoTheRunSpec) {
  const SopRun run = load_sopgpu_run(ermak::test::shared_data() / "sopgpu/ww/ww_1-100_equil.sop", cpu());
  const RunSpec& s = run.spec;
  EXPECT_EQ(s.replicas, 100);
  EXPECT_EQ(s.steps, 1000000);
  EXPECT_DOUBLE_EQ(s.langevin.timestep_tau, 0.08);
  EXPECT_DOUBLE_EQ(s.langevin.temperature_kcal_per_mol, 0.6);
  EXPECT_DOUBLE_EQ(s.langevin.zeta, 50.0);
  EXPECT_FLOAT_EQ(s.sop.fene_R0_A, 2.0f);
  EXPECT_FLOAT_EQ(s.sop.fene_k_kcal_per_mol_A2, 20.0f);
  EXPECT_FLOAT_EQ(s.sop.repulsion_sigma_A, 3.8f);
  EXPECT_FLOAT_EQ(s.sop.repulsion_eps_kcal_per_mol, 1.0f);
  EXPECT_FLOAT_EQ(s.sop.pair_cutoff_A, 20.0f);
  EXPECT_EQ(s.seed, 1119726u);  // 1119726 + firstrun 1 − 1
  EXPECT_EQ(s.device, 0);
  EXPECT_EQ(run.outputs.energy_every, 10000);
  EXPECT_EQ(run.outputs.trajectory_every, 10000);
  EXPECT_EQ(run.outputs.restart_every, 100000);
  EXPECT_EQ(run.outputs.runs[99].energy, abs("dat/ww_100_equil.dat"));
  EXPECT_FALSE(s.pulling.enabled || s.force_clamp.enabled || s.indentation.enabled);
  // block_size, max_* and pairs_freq are noted, not silently dropped.
  std::string notes;
  for (const auto& n : run.notes) notes += n + "\n";
  for (const char* key : {"block_size", "max_covalent", "max_possiblePairs", "pairs_freq"})
    EXPECT_NE(notes.find(key), std::string::npos) << key;
}

TEST(SopgpuConfig, WwPullingConvertsDeltaxExactlyAndReadsPerRunCoordinates) {
  const SopRun run =
      parse_sopgpu_run(read_text(ermak::test::shared_data() / "sopgpu/ww/ww_1-100_pull.sop"), "pull.sop", cpu({"runnum=3"}));
  const RunSpec& s = run.spec;
  ASSERT_TRUE(s.pulling.enabled);
  // The base moves deltax every pullFreq (default nav = 1000) steps of 0.08 τ_H.
  EXPECT_DOUBLE_EQ(s.pulling.speed_A_per_tau, 0.0005 / (1000 * 0.08));
  EXPECT_DOUBLE_EQ(s.pulling.spring_kcal_per_mol_A2, 0.05);
  EXPECT_TRUE(s.pulling.direction.end_to_end);
  EXPECT_EQ(s.pulling.ends, (std::vector<std::int32_t>{0, 33}));
  EXPECT_EQ(s.pulling.pulled_beads, (std::vector<std::int32_t>{33}));
  EXPECT_EQ(s.fixed_beads, (std::vector<std::int32_t>{0}));
  EXPECT_EQ(run.outputs.pulling_every, 1000);
  EXPECT_DOUBLE_EQ(run.outputs.pulling_spring, 0.05);
  EXPECT_EQ(run.outputs.runs[2].pulling, abs("pull/ww_3_pull.dat"));
  ASSERT_EQ(s.input.replica_coordinates.size(), 3u);
  EXPECT_EQ(s.input.replica_coordinates[1], abs("structures/ww_2_equil_final.pdb"));
  EXPECT_EQ(s.input.coordinates, abs("structures/ww_1_equil_final.pdb"));
  // The per-run files must exist when the run is loaded from disk: the missing run is named.
  const fs::path dir = ermak::test::fresh_directory("sopgpu_missing_coordinates");
  std::ofstream(dir / "pull.sop") << read_text(ermak::test::shared_data() / "sopgpu/ww/ww_1-100_pull.sop");
  const fs::path cwd = fs::current_path();
  fs::current_path(dir);
  std::string message;
  try {
    load_sopgpu_run("pull.sop", cpu({"runnum=2"}));
  } catch (const Error& e) {
    message = e.what();
  }
  fs::current_path(cwd);
  EXPECT_NE(message.find("pull.sop:17: coordinates: the initial coordinates of run 1 do not exist"), std::string::npos)
      << message;
}

TEST(SopgpuConfig, Pf8IndentationWithFixedBeadsAndForceClamp) {
  const SopRun run = load_sopgpu_run(ermak::test::shared_data() / "sopgpu/pf8/PF8_vf_3.0_R_100.sop", cpu());
  const RunSpec& s = run.spec;
  EXPECT_EQ(s.replicas, 1);
  EXPECT_EQ(run.outputs.runs[0].indentation, abs("indentation/PF8_01_bend.dat"));
  ASSERT_TRUE(s.indentation.enabled);
  const IndentationSpec& ind = s.indentation;
  EXPECT_DOUBLE_EQ(ind.speed_A_per_tau, 0.00012 / (100 * 0.16));  // deltaX every nav steps
  EXPECT_DOUBLE_EQ(ind.tip_radius_A, 100.0);
  EXPECT_DOUBLE_EQ(ind.tip_friction, 500.0);
  EXPECT_DOUBLE_EQ(ind.spring_kcal_per_mol_A2, 0.07);
  EXPECT_DOUBLE_EQ(ind.base_position_A.y, -110.0);
  EXPECT_DOUBLE_EQ(ind.tip_position_A.z, -27.68);
  EXPECT_DOUBLE_EQ(ind.direction.y, 1.0);
  EXPECT_EQ(ind.tip.A, 0.0);
  EXPECT_EQ(ind.tip.B, 1.0);
  EXPECT_TRUE(ind.tip_along_direction_only);
  EXPECT_FALSE(ind.move_surface);
  EXPECT_EQ(ind.output_every_steps, 100000);
  ASSERT_TRUE(ind.surface.enabled);
  EXPECT_TRUE(ind.surface.beads);
  EXPECT_EQ(ind.surface.grid_size, 35);
  EXPECT_DOUBLE_EQ(ind.surface.spacing_A, 12.0);
  EXPECT_DOUBLE_EQ(ind.surface.wall.A, 1.0);
  EXPECT_DOUBLE_EQ(ind.surface.wall.B, -2.0);
  EXPECT_DOUBLE_EQ(ind.surface.wall.sigma_A, 10.0);
  EXPECT_DOUBLE_EQ(ind.surface.wall.epsilon_kcal_per_mol, 0.2);
  EXPECT_DOUBLE_EQ(ind.surface.normal.y, -1.0);
  // `pulling on` with fconst and deltax = 0: the fixed beads and a constant force on bead 0.
  EXPECT_EQ(s.fixed_beads.size(), 27u);
  EXPECT_EQ(s.fixed_beads.back(), 6900);
  ASSERT_TRUE(s.force_clamp.enabled);
  EXPECT_EQ(s.force_clamp.pulled_beads, (std::vector<std::int32_t>{0}));
  EXPECT_DOUBLE_EQ(s.force_clamp.schedule.front().force_kcal_per_mol_A, 10.0);
  EXPECT_FALSE(s.force_clamp.direction.end_to_end);
  EXPECT_DOUBLE_EQ(s.force_clamp.direction.vector.x, 1.0);
  EXPECT_EQ(run.outputs.pulling_every, 0);  // SOP-GPU writes no pulling file with fconst
  // SOP-GPU's manual names indentationFreq (its code moves the base every nav steps): accepted
  // with a note, not refused; pullFreq with fconst has no effect, and says so.
  const SopRun more = load_sopgpu_run(ermak::test::shared_data() / "sopgpu/pf8/PF8_vf_3.0_R_100.sop",
                                      cpu({"indentationFreq=100", "pullFreq=1000000"}));
  EXPECT_DOUBLE_EQ(more.spec.indentation.speed_A_per_tau, s.indentation.speed_A_per_tau);
  auto noted = [&](const std::string& part) {
    for (const std::string& n : more.notes)
      if (n.find(part) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(noted("indentationFreq"));
  EXPECT_TRUE(noted("pullFreq: no effect with fconst (deltax = 0)"));
  // A moving surface: SOP-GPU moves it along +indentationDirection (indentation.cu), ermak's
  // against its direction (tip to surface): the direction is reversed, with a note (an audit's
  // migrated input drove its surface the other way).
  const SopRun moving = load_sopgpu_run(ermak::test::shared_data() / "sopgpu/pf8/PF8_vf_3.0_R_100.sop",
                                        cpu({"indentationMoveSurface=yes"}));
  EXPECT_TRUE(moving.spec.indentation.move_surface);
  EXPECT_EQ(moving.spec.indentation.direction.y, -1.0);
  EXPECT_EQ(moving.spec.indentation.direction.x, 0.0);
  EXPECT_FALSE(std::signbit(moving.spec.indentation.direction.x));
  auto noted_moving = [&](const std::string& part) {
    for (const std::string& n : moving.notes)
      if (n.find(part) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(noted_moving("indentationMoveSurface yes: SOP-GPU moves the surface along indentationDirection"));
  // A tip or surface that moves away from the other is noted in this file's keys, as a TOML
  // file's is in its own (the note was lost with the TOML reader's notes).
  const auto notes_of = [](const std::vector<std::string>& overrides) {
    std::string all;
    for (const std::string& n : load_sopgpu_run(ermak::test::shared_data() / "sopgpu/pf8/PF8_vf_3.0_R_100.sop",
                                                cpu(overrides))
                                    .notes)
      all += n + "\n";
    return all;
  };
  const std::string away_tip = "indentationDirection does not point towards the surface";
  const std::string away_surface = "the surface moves away from the tip";
  EXPECT_EQ(notes_of({}).find(away_tip), std::string::npos) << "the file's tip moves towards the surface";
  EXPECT_NE(notes_of({"indentationDirection=0 -1 0"}).find(away_tip), std::string::npos);
  EXPECT_EQ(notes_of({"indentationDirection=0 -1 0", "indentationMoveSurface=yes"}).find(away_surface),
            std::string::npos)
      << "the surface moves along -y, towards the molecule";
  EXPECT_NE(notes_of({"indentationMoveSurface=yes"}).find(away_surface), std::string::npos);
  EXPECT_EQ(notes_of({"indentationMoveSurface=yes"}).find("[indentation]"), std::string::npos)
      << "no note in TOML terms";
}

// Keys that do nothing in this run say so: fconst beside a moving cantilever (SOP-GPU's first
// cantilever update replaces its force) and a GPU index on the CPU backend.
TEST(SopgpuConfig, FconstWithDeltaxAndDeviceOnTheCpuAreNoted) {
  const std::string pulling = std::string(kMinimal) + "pulling on\npulled 33\ndeltax 0.001\nfixedEnd 0\npulledEnd 33\n";
  auto notes_of = [](const SopRun& run) {
    std::string all;
    for (const std::string& n : run.notes) all += n + "\n";
    return all;
  };
  const std::string with = notes_of(parse_sopgpu_run(pulling + "fconst 5\ndevice 1\n", "test.sop", cpu()));
  EXPECT_NE(with.find("fconst 5: no effect with deltax ≠ 0: the cantilever's spring sets the force"), std::string::npos)
      << with;
  EXPECT_NE(with.find("device 1: no effect with --backend cpu"), std::string::npos) << with;
  const std::string without = notes_of(parse_sopgpu_run(pulling, "test.sop", cpu()));
  EXPECT_EQ(without.find("fconst"), std::string::npos) << without;
  EXPECT_EQ(without.find("device"), std::string::npos) << without;
}

TEST(SopgpuConfig, IntegerListsTakeToRangesAndHeatingMaps) {
  const SopRun run = parse_sopgpu_run(std::string(kMinimal) +
                                          "pulling on\nfixed 0 to 3 7\npulled 33\ndeltax 0.001\n"
                                          "fixedEnd 0\npulledEnd 33\npullFreq 10\npullOutput pull/<run>.dat\n"
                                          "heating on\ninitialT 0.5\ndeltaT 0.01\ntempFreq 100\n",
                                      "test.sop", cpu());
  EXPECT_EQ(run.spec.fixed_beads, (std::vector<std::int32_t>{0, 1, 2, 3, 7}));
  EXPECT_DOUBLE_EQ(run.spec.pulling.speed_A_per_tau, 0.001 / (10 * 0.08));
  const TemperatureSchedule& t = run.spec.temperature;
  EXPECT_EQ(t.every_steps, 100);
  EXPECT_DOUBLE_EQ(t.at_step(0), 0.5);
  EXPECT_DOUBLE_EQ(t.at_step(250), 0.5 + 2 * 0.01);
  EXPECT_NEAR(t.at_step(1000), 0.5 + 10 * 0.01, 1e-12);  // the last step's temperature
}

TEST(SopgpuConfig, EnergyLineHasSopGpuColumnsAndFormats) {
  // output_manager: step, T, U_total, U_native, U_repulsive, U_native + U_repulsive, U_FENE, Native#, Rg.
  EXPECT_EQ(SopgpuReporter::energy_line(10000, 0.6, 1.5, -40.25, 2.0, 118, 8.123456),
            "       10000\t 0.60000\t-36.75000\t-40.25000\t 2.00000\t-38.25000\t 1.50000\t     118\t 8.12346\n");
}

// Every key of the table is in the migration guide's table, with the same kind, so the
// documentation and the code cannot drift apart.
TEST(SopgpuConfig, EveryKeyOfTheTableIsDocumented) {
  const std::string doc = read_text(ermak::test::source_dir() / "docs/migrating-from-sop-gpu.md");
  ASSERT_FALSE(doc.empty());
  for (const SopKeyInfo& k : sopgpu_run_keys()) {
    const std::string kind = k.kind == SopKeyKind::kMapped     ? "mapped"
                             : k.kind == SopKeyKind::kNoEffect ? "no effect"
                                                               : "rejected";
    const std::regex row("\\n\\| `" + std::string(k.key) + "` \\|[^\\n]*\\| " + kind + " \\|");
    EXPECT_TRUE(std::regex_search(doc, row)) << "docs/migrating-from-sop-gpu.md lacks a row for `" << k.key
                                             << "` marked " << kind;
  }
}

// The TOML form of per-run coordinates: one file per replica, resolved like every path.
TEST(SopgpuConfig, TomlReplicaCoordinatesNeedOnePerReplica) {
  const std::string base =
      "[input]\ntopology = \"m.top\"\ncoordinates = \"a.pdb\"\nreplica_coordinates = [\"a.pdb\", \"b.pdb\"]\n";
  const RunSpec spec = parse_run_spec(base + "[run]\nreplicas = 2\n", "/tmp/x/run.toml");
  ASSERT_EQ(spec.input.replica_coordinates.size(), 2u);
  EXPECT_EQ(spec.input.replica_coordinates[1], fs::path("/tmp/x/b.pdb"));
  EXPECT_NE(spec.resolved_toml.find("replica_coordinates = [\"/tmp/x/a.pdb\", \"/tmp/x/b.pdb\"]"), std::string::npos);
  try {
    parse_run_spec(base + "[run]\nreplicas = 3\n", "/tmp/x/run.toml");
    FAIL() << "accepted 2 files for 3 replicas";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("run.toml:4: input.replica_coordinates: lists 2 files but run.replicas is 3"),
              std::string::npos)
        << e.what();
  }
}
