// Bead lists with residue selections (docs/config.md#bead-selections): config/toml_config
// keeps their items as written (syntax errors at the item's line), the resolved
// configuration reads back the same, and run/bead_lists resolves them against a model with
// the parser's checks, naming the key's file and line and the beads by residue.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ermak/config/toml_config.h"
#include "ermak/core/error.h"
#include "ermak/run/bead_lists.h"

namespace ermak {
namespace {

const std::string kInput = "[input]\nstructure = \"p.pdb\"\n";  // lines 1–2
const std::string kPull = "[pulling]\nspeed_um_per_s = 1\nspring_pN_per_nm = 35\n";

RunSpec parse(const std::string& text) { return parse_run_spec(kInput + text, "cfg/run.toml", {}); }

// Chain A residues 1–5, chain B residues 1–3, one CA bead each: beads 0–4 and 5–7.
Topology two_chains() {
  Topology t;
  for (const auto& [chain, count] : {std::pair{"A", 5}, std::pair{"B", 3}})
    for (int r = 1; r <= count; ++r) {
      BeadInfo b;
      b.chain_id = chain;
      b.residue_number = r;
      t.beads.push_back(b);
    }
  return t;
}

std::string resolution_error(const std::string& text, int* line = nullptr) {
  RunSpec spec = parse(text);
  try {
    resolve_bead_selections(spec, two_chains());
  } catch (const Error& e) {
    if (line) *line = e.line();
    return e.what();
  }
  ADD_FAILURE() << "no error for\n" << text;
  return {};
}

TEST(BeadLists, SelectionsWaitForTheModelAndResolveInOrder) {
  RunSpec spec = parse("[fixed]\nbeads = [\"A:1\", 7]\n" + kPull + "pulled_beads = [\"A:5\", \"B:1-2\"]\n" +
                       "ends = [\"A:1\", \"B:3\"]\n");
  EXPECT_TRUE(spec.fixed_beads.empty());
  EXPECT_TRUE(spec.pulling.pulled_beads.empty());
  EXPECT_EQ(spec.bead_selections.at("fixed.beads"), (std::vector<std::string>{"A:1", "7"}));
  EXPECT_EQ(spec.bead_selections.at("pulling.pulled_beads"), (std::vector<std::string>{"A:5", "B:1-2"}));
  const auto log = resolve_bead_selections(spec, two_chains());
  EXPECT_EQ(spec.fixed_beads, (std::vector<std::int32_t>{0, 7}));
  EXPECT_EQ(spec.pulling.pulled_beads, (std::vector<std::int32_t>{4, 5, 6}));
  EXPECT_EQ(spec.pulling.ends, (std::vector<std::int32_t>{0, 7}));
  ASSERT_EQ(log.size(), 3u);
  EXPECT_NE(log[0].find("fixed.beads: \"A:1\" → bead 0 (chain A residue 1 CA)"), std::string::npos) << log[0];
  EXPECT_NE(log[2].find("\"B:1-2\" → 2 beads, 5 (chain B residue 1 CA) to 6 (chain B residue 2 CA)"),
            std::string::npos)
      << log[2];
  // Lists of indices alone stay as they were parsed.
  RunSpec plain = parse(kPull + "pulled_beads = [4]\n");
  EXPECT_TRUE(plain.bead_selections.empty());
  EXPECT_TRUE(resolve_bead_selections(plain, two_chains()).empty());
  EXPECT_EQ(plain.pulling.pulled_beads, (std::vector<std::int32_t>{4}));
}

// Position selections pick beads by a coordinate at the input positions (a capsid's
// bottom layer), keep their text in the resolved configuration, and name the model's
// range when they select nothing.
TEST(BeadLists, PositionSelectionsPickBeadsByCoordinate) {
  std::vector<Vec3d> at(8);
  for (std::size_t i = 0; i < at.size(); ++i) at[i] = {0.5 * double(i), 10.0 - double(i), -2.0 * double(i)};
  RunSpec spec = parse("[fixed]\nbeads = [\"z<-11\", \"A:2\"]\n" + kPull + "pulled_beads = [\"y > 9.5\"]\n");
  EXPECT_NE(spec.resolved_toml.find("beads = [\"z<-11\", \"A:2\"]"), std::string::npos) << spec.resolved_toml;
  const auto log = resolve_bead_selections(spec, two_chains(), at);
  EXPECT_EQ(spec.fixed_beads, (std::vector<std::int32_t>{6, 7, 1}));  // z = −12, −14; then A:2
  EXPECT_EQ(spec.pulling.pulled_beads, (std::vector<std::int32_t>{0}));  // y = 10 (strictly above 9.5)
  EXPECT_NE(log[0].find("\"z<-11\" → 2 beads, 6 (chain B residue 2 CA) to 7 (chain B residue 3 CA)"),
            std::string::npos)
      << log[0];
  RunSpec none = parse("[fixed]\nbeads = [\"y > 50\"]\n");
  try {
    resolve_bead_selections(none, two_chains(), at);
    ADD_FAILURE() << "no error for a selection of nothing";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cfg/run.toml:4: fixed.beads: \"y > 50\" selects no bead: the model's y runs "
                                         "from 3.00 to 10.00 Å"),
              std::string::npos)
        << e.what();
  }
  // Syntax errors at the item's line, before any model is read.
  for (const char* bad : {"z<", "z<abc", "z<-1e400"})
    try {
      parse(std::string("[fixed]\nbeads = [\"") + bad + "\"]\n");
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is not a position selection"), std::string::npos) << e.what();
      EXPECT_EQ(e.line(), 4) << e.what();
    }
}

TEST(BeadLists, ResolvedConfigurationKeepsTheSelectionsAsWritten) {
  const RunSpec a = parse("[fixed]\nbeads = [\"A:1-2\"]\n" + kPull + "pulled_beads = [\"B:3\", 4]\n" +
                          "[plane_pulling]\n[[plane_pulling.plane]]\nbeads = [\"B:1\"]\nnormal = [1, 0, 0]\n"
                          "spring_pN_per_nm = 5\n");
  SCOPED_TRACE(a.resolved_toml);
  EXPECT_NE(a.resolved_toml.find("pulled_beads = [\"B:3\", 4]"), std::string::npos);
  const RunSpec b = parse_run_spec(a.resolved_toml, "elsewhere/resolved.toml", {});
  EXPECT_EQ(a.bead_selections, b.bead_selections);
  RunSpec resolved = b;
  resolve_bead_selections(resolved, two_chains());
  EXPECT_EQ(resolved.fixed_beads, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(resolved.pulling.pulled_beads, (std::vector<std::int32_t>{7, 4}));
  EXPECT_EQ(resolved.plane_pulling.planes.at(0).beads, (std::vector<std::int32_t>{5}));
}

TEST(BeadLists, MalformedSelectionsAreRefusedAtTheirLine) {
  try {
    parse(kPull + "pulled_beads = [\n  1,\n  \"A76\",\n]\n");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.line(), 8) << e.what();
    EXPECT_EQ(e.field(), "pulling.pulled_beads[1]");
    EXPECT_NE(std::string(e.what()).find("\"A76\" is not a residue selection"), std::string::npos) << e.what();
  }
  try {
    parse("[fixed]\nbeads = [true]\n");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "fixed.beads[0]");
  }
}

TEST(BeadLists, ResolvedListsAreCheckedAsListsOfIndicesAre) {
  int line = 0;
  std::string e = resolution_error(kPull + "pulled_beads = [\"C:1\"]\n", &line);
  EXPECT_NE(e.find("cfg/run.toml:6: pulling.pulled_beads: \"C:1\": the model has no chain \"C\""), std::string::npos)
      << e;
  EXPECT_EQ(line, 6);
  e = resolution_error(kPull + "pulled_beads = [\"A:9\"]\n");
  EXPECT_NE(e.find("chain A has no residue 9 (its residue numbers run 1 to 5)"), std::string::npos) << e;
  e = resolution_error(kPull + "pulled_beads = [4, \"A:5\"]\n");
  EXPECT_NE(e.find("pulling.pulled_beads: bead 4 (chain A residue 5 CA) is listed twice"), std::string::npos) << e;
  e = resolution_error("[fixed]\nbeads = [\"A:*\"]\n" + kPull + "pulled_beads = [2]\n");
  EXPECT_NE(e.find("cfg/run.toml:8: pulling.pulled_beads: bead 2 (chain A residue 3 CA) is also in fixed.beads"),
            std::string::npos)
      << e;
  e = resolution_error(kPull + "pulled_beads = [\"B:3\"]\nends = [\"A:1-2\", \"B:3\"]\n");
  EXPECT_NE(e.find("pulling.ends: expected two beads [first, second]; the selections name 3"), std::string::npos) << e;
  e = resolution_error(kPull + "pulled_beads = [\"B:3\"]\nends = [\"A:1\", 0]\n");
  EXPECT_NE(e.find("pulling.ends: the two ends must be different beads"), std::string::npos) << e;
  e = resolution_error("[force_clamp]\npulled_beads = [\"A:2\", \"A:1-3\"]\nforce_pN = 5\n");
  EXPECT_NE(e.find("force_clamp.pulled_beads: bead 1 (chain A residue 2 CA) is listed twice"), std::string::npos) << e;
  e = resolution_error(
      "[plane_pulling]\n[[plane_pulling.plane]]\nbeads = [\"B:*\"]\nnormal = [1, 0, 0]\nspring_pN_per_nm = 5\n"
      "[[plane_pulling.plane]]\nbeads = [\"B:2\"]\nnormal = [1, 0, 0]\nspring_pN_per_nm = 5\n");
  EXPECT_NE(e.find("plane_pulling.plane[1].beads: bead 6 (chain B residue 2 CA) is already tethered to another plane"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace ermak
