// What a resumed run may change (run/config_fingerprint.h config_fingerprint,
// docs/outputs.md#resuming-elsewhere): the step counts and where the run is computed,
// nothing that changes what it computes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ermak/run/config_fingerprint.h"

using ermak::config_fingerprint;
using ermak::config_fingerprint_with_input_paths;
using ermak::legacy_config_fingerprint;
using ermak::model_fingerprint;

namespace {

const std::string kResolved =
    "# ermak resolved configuration\n# source: a.toml\n\n"
    "[run]\nsteps = 10\nseed = 3\nbackend = \"cpu\"\nrng = \"philox\"\n\n"
    "[minimize]\nsteps = 0\n\n[output]\ndirectory = \"/x/out\"\n";

std::string with(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST(ConfigFingerprint, WhereTheRunIsComputedMayChange) {
  const std::string base = config_fingerprint(kResolved);
  EXPECT_EQ(config_fingerprint(with(kResolved, "backend = \"cpu\"", "backend = \"cuda\"\ndevice = 1\n"
                                                                  "threads = 4\ncuda_kernels = \"block\"")),
            base);
  EXPECT_EQ(config_fingerprint(with(kResolved, "directory = \"/x/out\"", "directory = \"/scratch/y/out\"")), base);
  EXPECT_EQ(config_fingerprint(with(kResolved, "# source: a.toml", "# source: renamed.toml")), base);
  EXPECT_EQ(config_fingerprint(with(kResolved, "steps = 10", "steps = 20000")), base);
}

TEST(ConfigFingerprint, ADeviceLeftAtItsDefaultMayBeGivenOnResume) {
  const std::string base = config_fingerprint(with(kResolved, "seed = 3", "seed = 3\n# device: $ERMAK_CUDA_DEVICE, else 0"));
  EXPECT_EQ(config_fingerprint(with(kResolved, "seed = 3", "seed = 3\ndevice = 1")), base);
}

// The note on default ends (written since 2026-11-29) repeats what the fixed and pulled
// beads fix: a checkpoint written without it resumes.
TEST(ConfigFingerprint, TheDefaultEndsNoteDoesNotCount) {
  const std::string pulled = kResolved + "\n[pulling]\npulled_beads = [33]\n";
  EXPECT_EQ(config_fingerprint(with(pulled, "pulled_beads = [33]\n",
                                    "pulled_beads = [33]\n# ends: the first fixed bead (bead 0 without one) and the "
                                    "first pulled bead\n")),
            config_fingerprint(pulled));
  EXPECT_NE(config_fingerprint(with(pulled, "pulled_beads = [33]\n", "pulled_beads = [33]\nends = [5, 33]\n")),
            config_fingerprint(pulled));
}

TEST(ConfigFingerprint, WhatTheRunComputesMayNot) {
  const std::string base = config_fingerprint(kResolved);
  EXPECT_NE(config_fingerprint(with(kResolved, "seed = 3", "seed = 4")), base);
  // A placement key's name in another section is not a placement key.
  EXPECT_NE(config_fingerprint(with(kResolved, "[output]\n", "[output]\nthreads = 2\n")), base);
  EXPECT_NE(config_fingerprint(with(kResolved, "[output]\n", "[output]\nbackend = \"x\"\n")), base);
  // A SOP-GPU run's output settings are comments of its resolved configuration
  // (config/sopgpu_config.cpp): they count.
  const std::string sop = kResolved + "\n# SOP-GPU outputs (ermak run FILE.sop)\n# outputtiming 1000 dcdfreq 10000\n";
  EXPECT_NE(config_fingerprint(with(sop, "outputtiming 1000", "outputtiming 500")), config_fingerprint(sop));
}

// A resume starts from the checkpoint's positions and never minimises: [minimize] may change
// (an audit's resume was refused over a force tolerance it never used). Checkpoints of
// 2026-11-29 covered it; their fingerprint stays accepted.
TEST(ConfigFingerprint, TheMinimisationMayChange) {
  const std::string base = config_fingerprint(kResolved);
  EXPECT_EQ(config_fingerprint(with(kResolved, "[minimize]\nsteps = 0", "[minimize]\nsteps = 5000\n"
                                                                      "force_tolerance_kcal_per_mol_A = 0.01")),
            base);
  EXPECT_EQ(config_fingerprint(with(kResolved, "[minimize]\nsteps = 0\n", "")), base);
  // The value the run driver of 2026-11-29 wrote for kResolved (computed with that code).
  EXPECT_EQ(ermak::config_fingerprint_with_minimize(kResolved), "15beb971002e624b");
  EXPECT_NE(ermak::config_fingerprint_with_minimize(with(kResolved, "steps = 0\n", "steps = 0\nmax_displacement_A = 0.2\n")),
            "15beb971002e624b");
}

// A .sop heating run's stop is derived from numsteps (config/sopgpu_config.cpp), which may grow
// on resume; the staircase never reached it within the steps already run. A TOML's stop is
// the user's own setting and still counts.
TEST(ConfigFingerprint, ASopRunsHeatingStopMayGrowWithItsSteps) {
  const std::string heating = "\n[heating]\nstart_K = 301.9  # = 0.6 kcal/mol\nstop_K = 352.2  # = 0.7 kcal/mol\n"
                              "increment_K = 5.03\nevery_steps = 100\n";
  const std::string sop = with(kResolved, "# source: a.toml", "# source: heat.sop") + heating;
  const std::string longer = with(sop, "stop_K = 352.2  # = 0.7 kcal/mol", "stop_K = 402.6  # = 0.8 kcal/mol");
  EXPECT_EQ(config_fingerprint(longer), config_fingerprint(sop));
  EXPECT_NE(ermak::config_fingerprint_with_minimize(longer), ermak::config_fingerprint_with_minimize(sop));
  EXPECT_NE(config_fingerprint(with(sop, "increment_K = 5.03", "increment_K = 6")), config_fingerprint(sop));
  const std::string toml = kResolved + heating;
  EXPECT_NE(config_fingerprint(with(toml, "stop_K = 352.2", "stop_K = 402.6")), config_fingerprint(toml));
  // The text a checkpoint keeps says it is of a .sop file (not its path), so that the
  // differences of a refused resume leave the stop out too.
  const std::string kept = ermak::fingerprinted_text(sop);
  EXPECT_NE(kept.find("# source: .sop\n"), std::string::npos) << kept;
  EXPECT_EQ(kept.find("heat.sop"), std::string::npos) << kept;
  EXPECT_TRUE(ermak::fingerprint_differences(kept, longer).empty());
  // A checkpoint's text from before the marker holds the stop: still no difference to name
  // (the refusal then says the checkpoint is of an earlier ermak).
  const std::string kept_before = kept.substr(kept.find('\n') + 1) + "[heating]\nstop_K = 352.2  # = 0.7 kcal/mol\n";
  EXPECT_EQ(kept_before.find("# source"), std::string::npos);
  EXPECT_TRUE(ermak::fingerprint_differences(kept_before, longer).empty())
      << ermak::fingerprint_differences(kept_before, longer).front();
  EXPECT_EQ(ermak::fingerprinted_text(toml).find("# source"), std::string::npos);
}

// A .sop run's output intervals are one comment line of SOP-GPU's names (config/sopgpu_config.cpp):
// a refused resume names the interval that changed by that name, not the whole line.
TEST(ConfigFingerprint, ASopRunsOutputIntervalsDifferByName) {
  const std::string sop = with(kResolved, "# source: a.toml", "# source: pull.sop") +
                          "\n# SOP-GPU outputs (ermak run FILE.sop)\n# outputtiming 10000 dcdfreq 10000 restartfreq "
                          "100000 pullFreq 100 indentationOutputFreq 0\n";
  const std::string changed = with(sop, "pullFreq 100 ", "pullFreq 1000 ");
  ASSERT_NE(config_fingerprint(changed), config_fingerprint(sop));
  const std::vector<std::string> d = ermak::fingerprint_differences(sop, changed);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d.front(), "pullFreq = 1000, was 100");
}

TEST(ConfigFingerprint, CheckpointsOfEarlierVersionsKeepTheirFingerprint) {
  // The value that ermak's run driver before 2026-11-23 wrote into checkpoints for this
  // configuration (computed with that code): such checkpoints still resume.
  EXPECT_EQ(legacy_config_fingerprint(kResolved), "b9ea9f0fd3ad918f");
  EXPECT_NE(legacy_config_fingerprint(with(kResolved, "backend = \"cpu\"", "backend = \"cuda\"")),
            "b9ea9f0fd3ad918f");
}

// The input files' paths are not part of the fingerprint (a project moved elsewhere
// resumes); the model they give is compared by content instead. Checkpoints of
// 2026-11-23 to 11-28 carry the fingerprint with the paths, which stays accepted.
TEST(ConfigFingerprint, InputPathsGiveWayToTheModelsContent) {
  const std::string input = "[input]\ntopology = \"/a/ww.top\"\ncoordinates = \"/a/ww_cg.pdb\"\n\n";
  const std::string resolved = input + kResolved;
  const std::string moved = with(with(resolved, "/a/ww.top", "/b/ww.top"), "/a/ww_cg.pdb", "/b/ww_cg.pdb");
  EXPECT_EQ(config_fingerprint(moved), config_fingerprint(resolved));
  EXPECT_NE(config_fingerprint_with_input_paths(moved), config_fingerprint_with_input_paths(resolved));
  EXPECT_NE(config_fingerprint_with_input_paths(resolved), config_fingerprint(resolved));
  // Only the file keys of [input]: the same key name elsewhere still counts.
  EXPECT_NE(config_fingerprint(with(kResolved, "[output]\n", "[output]\ntopology = \"x\"\n")),
            config_fingerprint(kResolved));

  ermak::Topology t;
  t.beads.resize(3);
  t.bonds = {{0, 1, 3.8f}, {1, 2, 3.8f}};
  t.native_contacts = {{0, 2, 6.0f, 1.0f}};
  t.native_positions_A = {{0, 0, 0}, {3.8, 0, 0}, {7.6, 0, 0}};
  const std::string base = model_fingerprint(t);
  ermak::Topology same = t;
  same.native_positions_A[2].y = 1.0;  // coordinates: the checkpoint holds the positions
  same.beads[1].b_factor = 50.0f;      // informational columns
  same.beads[1].mass_amu = 12.0f;
  EXPECT_EQ(model_fingerprint(same), base);
  for (int change = 0; change < 5; ++change) {
    ermak::Topology other = t;
    if (change == 0) other.bonds[1].r0_A = 3.9f;
    if (change == 1) other.native_contacts[0].eh_kcal_per_mol = 1.2f;
    if (change == 2) other.native_contacts[0].r0_A = 7.2f;
    if (change == 3) other.beads[2].residue_number = 7;  // bead selections resolve against it
    if (change == 4) other.beads.resize(4);
    EXPECT_NE(model_fingerprint(other), base) << change;
  }
}

// What a refused resume names (run/config_fingerprint.h fingerprint_differences): the
// settings that changed, appeared or went, not where the run is computed or its length.
TEST(ConfigFingerprint, DifferencesNameTheChangedSettings) {
  using ermak::fingerprint_differences;
  using ermak::fingerprinted_text;
  EXPECT_TRUE(fingerprint_differences(kResolved, kResolved).empty());
  // The checkpoint keeps the fingerprinted text; the run compares its whole configuration.
  const std::string kept = fingerprinted_text(kResolved);
  EXPECT_EQ(kept.find("directory"), std::string::npos) << kept;
  EXPECT_EQ(config_fingerprint(kept), config_fingerprint(kResolved));
  EXPECT_TRUE(fingerprint_differences(kept, with(kResolved, "steps = 10", "steps = 99")).empty());
  EXPECT_TRUE(fingerprint_differences(kept, with(kResolved, "backend = \"cpu\"", "backend = \"cuda\"")).empty());
  EXPECT_EQ(fingerprint_differences(kept, with(kResolved, "seed = 3", "seed = 4")),
            (std::vector<std::string>{"run.seed = 4, was 3"}));
  EXPECT_EQ(fingerprint_differences(kept, with(kResolved, "[output]\n", "[output]\nx = 1\n")),
            (std::vector<std::string>{"output.x = 1 is new"}));
  EXPECT_EQ(fingerprint_differences(kept, with(kResolved, "seed = 3\n", "")),
            (std::vector<std::string>{"run.seed = 3 is gone"}));
  // At most `at_most` of them.
  const std::string many = with(with(kResolved, "seed = 3", "seed = 4\na = 1\nb = 2"), "[output]\n", "[output]\nc = 3\n");
  EXPECT_EQ(fingerprint_differences(kept, many, 2).size(), 2u);
}
