// config/toml_config: the protocol tables [pulling], [force_clamp], [plane_pulling],
// [indentation] (docs/config.md, docs/protocols.md) — unit conversion, defaults, errors
// with file:line:key, and the resolved configuration's exact round trip.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ermak/config/toml_config.h"
#include "ermak/core/error.h"
#include "ermak/core/units.h"

namespace ermak {
namespace {

const std::string kInput = "[input]\nstructure = \"p.pdb\"\n";  // lines 1–2

RunSpec parse(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return parse_run_spec(kInput + text, "cfg/run.toml", overrides);
}

struct Caught {
  bool thrown = false;
  std::string message, field;
  int line = 0;
};

Caught error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    parse(text, overrides);
  } catch (const Error& e) {
    return {true, e.what(), e.field(), e.line()};
  }
  return {};
}

void expect_error(const std::string& text, int line, const std::string& field, const std::string& what) {
  SCOPED_TRACE(text);
  const Caught e = error_of(text);
  ASSERT_TRUE(e.thrown) << "no error";
  EXPECT_EQ(e.line, line) << e.message;
  EXPECT_EQ(e.field, field) << e.message;
  EXPECT_NE(e.message.find(what), std::string::npos) << e.message;
  if (line > 0) EXPECT_NE(e.message.find("cfg/run.toml:" + std::to_string(line) + ": "), std::string::npos) << e.message;
}

// A resolved configuration parses back to the same protocol values, bit for bit.
void expect_round_trip(const RunSpec& a) {
  SCOPED_TRACE(a.resolved_toml);
  const RunSpec b = parse_run_spec(a.resolved_toml, "elsewhere/resolved.toml");
  EXPECT_EQ(a.pulling.enabled, b.pulling.enabled);
  EXPECT_EQ(a.pulling.pulled_beads, b.pulling.pulled_beads);
  EXPECT_EQ(a.pulling.speed_A_per_tau, b.pulling.speed_A_per_tau);
  EXPECT_EQ(a.pulling.spring_kcal_per_mol_A2, b.pulling.spring_kcal_per_mol_A2);
  EXPECT_EQ(a.pulling.direction.end_to_end, b.pulling.direction.end_to_end);
  EXPECT_EQ(a.pulling.direction.vector.x, b.pulling.direction.vector.x);
  EXPECT_EQ(a.pulling.direction.vector.z, b.pulling.direction.vector.z);
  EXPECT_EQ(a.pulling.ends, b.pulling.ends);
  EXPECT_EQ(a.pulling.output_every_steps, b.pulling.output_every_steps);
  EXPECT_EQ(a.force_clamp.enabled, b.force_clamp.enabled);
  EXPECT_EQ(a.force_clamp.constant, b.force_clamp.constant);
  ASSERT_EQ(a.force_clamp.schedule.size(), b.force_clamp.schedule.size());
  for (std::size_t i = 0; i < a.force_clamp.schedule.size(); ++i) {
    EXPECT_EQ(a.force_clamp.schedule[i].step, b.force_clamp.schedule[i].step);
    EXPECT_EQ(a.force_clamp.schedule[i].force_kcal_per_mol_A, b.force_clamp.schedule[i].force_kcal_per_mol_A);
  }
  EXPECT_EQ(a.plane_pulling.enabled, b.plane_pulling.enabled);
  ASSERT_EQ(a.plane_pulling.planes.size(), b.plane_pulling.planes.size());
  for (std::size_t i = 0; i < a.plane_pulling.planes.size(); ++i) {
    EXPECT_EQ(a.plane_pulling.planes[i].beads, b.plane_pulling.planes[i].beads);
    EXPECT_EQ(a.plane_pulling.planes[i].normal.y, b.plane_pulling.planes[i].normal.y);
    EXPECT_EQ(a.plane_pulling.planes[i].speed_A_per_tau, b.plane_pulling.planes[i].speed_A_per_tau);
    EXPECT_EQ(a.plane_pulling.planes[i].spring_kcal_per_mol_A2, b.plane_pulling.planes[i].spring_kcal_per_mol_A2);
  }
  const IndentationSpec &x = a.indentation, &y = b.indentation;
  EXPECT_EQ(x.enabled, y.enabled);
  EXPECT_EQ(x.tip_radius_A, y.tip_radius_A);
  EXPECT_EQ(x.tip_friction, y.tip_friction);
  EXPECT_EQ(x.tip_position_A.z, y.tip_position_A.z);
  EXPECT_EQ(x.base_position_A.y, y.base_position_A.y);
  EXPECT_EQ(x.direction.z, y.direction.z);
  EXPECT_EQ(x.spring_kcal_per_mol_A2, y.spring_kcal_per_mol_A2);
  EXPECT_EQ(x.speed_A_per_tau, y.speed_A_per_tau);
  EXPECT_EQ(x.tip.A, y.tip.A);
  EXPECT_EQ(x.tip.B, y.tip.B);
  EXPECT_EQ(x.tip.sigma_A, y.tip.sigma_A);
  EXPECT_EQ(x.tip.epsilon_kcal_per_mol, y.tip.epsilon_kcal_per_mol);
  EXPECT_EQ(x.tip_along_direction_only, y.tip_along_direction_only);
  EXPECT_EQ(x.retract, y.retract);
  EXPECT_EQ(x.retract_depth_A, y.retract_depth_A);
  EXPECT_EQ(x.retract_force_kcal_per_mol_A, y.retract_force_kcal_per_mol_A);
  EXPECT_EQ(x.retract_step, y.retract_step);
  EXPECT_EQ(x.move_surface, y.move_surface);
  EXPECT_EQ(x.output_every_steps, y.output_every_steps);
  EXPECT_EQ(x.surface.enabled, y.surface.enabled);
  EXPECT_EQ(x.surface.beads, y.surface.beads);
  EXPECT_EQ(x.surface.point_A.z, y.surface.point_A.z);
  EXPECT_EQ(x.surface.normal.z, y.surface.normal.z);
  EXPECT_EQ(x.surface.wall.A, y.surface.wall.A);
  EXPECT_EQ(x.surface.wall.B, y.surface.wall.B);
  EXPECT_EQ(x.surface.wall.sigma_A, y.surface.wall.sigma_A);
  EXPECT_EQ(x.surface.wall.epsilon_kcal_per_mol, y.surface.wall.epsilon_kcal_per_mol);
  EXPECT_EQ(x.surface.spacing_A, y.surface.spacing_A);
  EXPECT_EQ(x.surface.grid_size, y.surface.grid_size);
  const auto body = [](const std::string& s) { return s.substr(s.find("\n[")); };
  EXPECT_EQ(body(b.resolved_toml), body(a.resolved_toml));
}

TEST(ConfigProtocol, PullingInPhysicalUnits) {
  const RunSpec s = parse(
      "[fixed]\nbeads = [0]\n"
      "[pulling]\npulled_beads = [33, 32]\nspeed_um_per_s = 2.5\nspring_pN_per_nm = 34.7\nends = [0, 33]\n"
      "output_every = 500\n");
  ASSERT_TRUE(s.pulling.enabled);
  EXPECT_EQ(s.pulling.pulled_beads, (std::vector<std::int32_t>{33, 32}));
  EXPECT_DOUBLE_EQ(s.pulling.speed_A_per_tau, units::um_per_s_to_A_per_tau(2.5));
  EXPECT_DOUBLE_EQ(s.pulling.speed_A_per_tau, 2.5 * 1e4 * 248e-12);  // 1 µm/s = 10⁴ Å/s, τ_H = 248 ps
  EXPECT_DOUBLE_EQ(s.pulling.spring_kcal_per_mol_A2, 34.7 / 694.7695);
  EXPECT_TRUE(s.pulling.direction.end_to_end);
  EXPECT_EQ(s.pulling.ends, (std::vector<std::int32_t>{0, 33}));
  EXPECT_EQ(s.pulling.output_every_steps, 500);
  EXPECT_EQ(s.key_sources.at("pulling.pulled_beads").line, 6);
  EXPECT_FALSE(s.force_clamp.enabled);
  EXPECT_FALSE(s.indentation.enabled);
  expect_round_trip(s);
  EXPECT_NE(s.resolved_toml.find("speed_um_per_s = 2.5  # = "), std::string::npos) << s.resolved_toml;
  EXPECT_NE(s.resolved_toml.find("spring_pN_per_nm = 34.7  # = "), std::string::npos) << s.resolved_toml;
}

TEST(ConfigProtocol, PullingVectorDirectionAndInternalUnits) {
  const RunSpec s = parse("[pulling]\npulled_beads = [5]\nspeed_A_per_tau = 0.001\nspring_kcal_per_mol_A2 = 0.05\n"
                          "direction = [1, -2, 0.5]\n");
  EXPECT_FALSE(s.pulling.direction.end_to_end);
  EXPECT_EQ(s.pulling.direction.vector.y, -2.0);  // kept as given; normalised at resolution
  EXPECT_EQ(s.pulling.speed_A_per_tau, 0.001);
  EXPECT_EQ(s.pulling.spring_kcal_per_mol_A2, 0.05);
  EXPECT_TRUE(s.pulling.ends.empty());
  expect_round_trip(s);
}

TEST(ConfigProtocol, ForceClampConstantAndSchedule) {
  const RunSpec c = parse("[force_clamp]\npulled_beads = [75]\nforce_pN = 150\n");
  ASSERT_TRUE(c.force_clamp.enabled);
  ASSERT_EQ(c.force_clamp.schedule.size(), 1u);
  EXPECT_TRUE(c.force_clamp.constant);
  EXPECT_DOUBLE_EQ(c.force_clamp.schedule[0].force_kcal_per_mol_A, 150.0 / 69.47695);
  expect_round_trip(c);
  const RunSpec r = parse("[force_clamp]\npulled_beads = [75]\nschedule = [[0, 0.0], [1000, 100], [5000, 250.5]]\n"
                          "direction = [0, 0, 1]\n");
  EXPECT_FALSE(r.force_clamp.constant);
  ASSERT_EQ(r.force_clamp.schedule.size(), 3u);
  EXPECT_EQ(r.force_clamp.schedule[2].step, 5000);
  EXPECT_DOUBLE_EQ(r.force_clamp.schedule[1].force_kcal_per_mol_A, 100.0 / 69.47695);
  expect_round_trip(r);
  EXPECT_NE(r.resolved_toml.find("schedule = [[0, 0.0], [1000, 100.0], [5000, 250.5]]"), std::string::npos)
      << r.resolved_toml;
}

TEST(ConfigProtocol, PlanePullingArrayOfTables) {
  const RunSpec s = parse(
      "[fixed]\nbeads = [9]\n"
      "[plane_pulling]\noutput_every = 100\n"
      "[[plane_pulling.plane]]\nbeads = [0, 1, 2]\nnormal = [0, 0, 1]\nspeed_um_per_s = 10\nspring_pN_per_nm = 50\n"
      "[[plane_pulling.plane]]\nbeads = [7, 8]\nnormal = [0, 0, -1]\nspring_pN_per_nm = 50\n");
  ASSERT_TRUE(s.plane_pulling.enabled);
  ASSERT_EQ(s.plane_pulling.planes.size(), 2u);
  EXPECT_EQ(s.plane_pulling.planes[1].speed_A_per_tau, 0.0) << "static by default";
  EXPECT_EQ(s.plane_pulling.planes[0].beads, (std::vector<std::int32_t>{0, 1, 2}));
  EXPECT_EQ(s.key_sources.at("plane_pulling.plane[1].beads").line, 13);
  expect_round_trip(s);
}

TEST(ConfigProtocol, IndentationWithSurfaceDefaultsAndPresets) {
  const RunSpec s = parse(
      "[indentation]\ntip_radius_nm = 10\ntip_position_A = [0, -110, -27.68]\ndirection = [0, 1, 0]\n"
      "spring_pN_per_nm = 48.6\nspeed_um_per_s = 1\nretract_at_depth_nm = 5\n"
      "[indentation.surface]\ntype = \"beads\"\npoint_A = [0, 500, 0]\nnormal = [0, -1, 0]\nspacing_A = 12\n"
      "grid_size = 35\n");
  const IndentationSpec& i = s.indentation;
  ASSERT_TRUE(i.enabled);
  EXPECT_EQ(i.tip_radius_A, 100.0);
  EXPECT_EQ(i.base_position_A.y, -110.0) << "the base starts at the tip";
  EXPECT_DOUBLE_EQ(i.tip_friction, 50.0 * 100.0 / 3.8) << "Stokes: ζ·R_tip/3.8 Å";
  EXPECT_EQ(i.tip.A, 0.0);
  EXPECT_EQ(i.tip.B, 1.0);
  EXPECT_TRUE(i.tip_along_direction_only);
  EXPECT_EQ(i.retract, RetractAt::kDepth);
  EXPECT_EQ(i.retract_depth_A, 50.0);
  ASSERT_TRUE(i.surface.enabled);
  EXPECT_TRUE(i.surface.beads);
  EXPECT_EQ(i.surface.grid_size, 35);
  EXPECT_EQ(i.surface.wall.A, 1.0);
  EXPECT_EQ(i.surface.wall.B, -2.0);
  EXPECT_EQ(i.surface.wall.sigma_A, 10.0);
  EXPECT_EQ(i.surface.wall.epsilon_kcal_per_mol, 0.2);
  expect_round_trip(s);

  const RunSpec t = parse(
      "[indentation]\ntip_radius_A = 50\ntip_friction = 500\ntip_position_A = [0, 0, 60]\n"
      "base_position_A = [0, 0, 70]\ndirection = [0, 0, -1]\nspring_kcal_per_mol_A2 = 0.07\nspeed_A_per_tau = 0.001\n"
      "tip_interaction = \"lennard_jones\"\ntip_sigma_A = 3\ntip_epsilon_kcal_per_mol = 0.5\n"
      "tip_along_direction_only = false\nretract_at_force_pN = 300\nmove_surface = true\noutput_every = 50\n"
      "[indentation.surface]\npoint_A = [0, 0, -5]\nnormal = [0, 0, 2]\nA = 0\nB = 1\n");
  EXPECT_EQ(t.indentation.tip.A, 1.0);
  EXPECT_EQ(t.indentation.tip.B, -2.0);
  EXPECT_EQ(t.indentation.retract, RetractAt::kForce);
  EXPECT_TRUE(t.indentation.move_surface);
  EXPECT_FALSE(t.indentation.surface.beads);
  EXPECT_EQ(t.indentation.surface.wall.A, 0.0);
  expect_round_trip(t);
  const RunSpec u = parse(
      "[indentation]\ntip_radius_A = 50\ntip_position_A = [0, 0, 60]\ndirection = [0, 0, -1]\n"
      "spring_pN_per_nm = 50\nspeed_um_per_s = 1\nretract_at_step = 12345\ntip_A = 0.5\ntip_B = -1\n");
  EXPECT_EQ(u.indentation.retract_step, 12345);
  EXPECT_EQ(u.indentation.tip.A, 0.5);
  EXPECT_FALSE(u.indentation.surface.enabled);
  expect_round_trip(u);
}

// A constant force on some beads while a tip indents (SOP-GPU's PF8 input does this):
// both protocols are read, and the resolved configuration keeps both.
TEST(ConfigProtocol, ForceClampCombinesWithIndentation) {
  const RunSpec s = parse(
      "[force_clamp]\npulled_beads = [0]\nforce_pN = 200\ndirection = [1, 0, 0]\n"
      "[indentation]\ntip_radius_nm = 1\ntip_position_A = [0, 0, 60]\ndirection = [0, 0, -1]\n"
      "spring_pN_per_nm = 50\nspeed_um_per_s = 1\n");
  ASSERT_TRUE(s.force_clamp.enabled);
  ASSERT_TRUE(s.indentation.enabled);
  EXPECT_FALSE(s.pulling.enabled);
  EXPECT_DOUBLE_EQ(s.force_clamp.schedule[0].force_kcal_per_mol_A, 200.0 / 69.47695);
  EXPECT_EQ(s.indentation.tip_radius_A, 10.0);
  EXPECT_NE(s.resolved_toml.find("[force_clamp]"), std::string::npos) << s.resolved_toml;
  EXPECT_NE(s.resolved_toml.find("[indentation]"), std::string::npos) << s.resolved_toml;
  expect_round_trip(s);
}

TEST(ConfigProtocol, OverridesReachNestedTables) {
  const RunSpec s = parse(
      "[indentation]\ntip_radius_nm = 1\ntip_position_A = [0, 0, 60]\ndirection = [0, 0, -1]\n"
      "spring_pN_per_nm = 50\nspeed_um_per_s = 1\n[indentation.surface]\npoint_A = [0, 0, -5]\nnormal = [0, 0, 1]\n",
      {"indentation.surface.epsilon_kcal_per_mol=0.7", "indentation.speed_um_per_s=3"});
  EXPECT_EQ(s.indentation.surface.wall.epsilon_kcal_per_mol, 0.7);
  EXPECT_DOUBLE_EQ(s.indentation.speed_A_per_tau, units::um_per_s_to_A_per_tau(3));
}

TEST(ConfigProtocol, AnIndentationAwayFromTheSurfaceIsNoted) {
  const std::string tip = "[indentation]\ntip_radius_nm = 1\ntip_position_A = [0, 0, 60]\nspring_pN_per_nm = 50\n"
                          "speed_um_per_s = 1\n";
  const std::string surface = "[indentation.surface]\npoint_A = [0, 0, -5]\nnormal = [0, 0, 1]\n";
  auto noted = [](const RunSpec& spec) {
    for (const std::string& note : spec.notes)
      if (note.find("does not point towards the surface") != std::string::npos) return true;
    return false;
  };
  EXPECT_FALSE(noted(parse(tip + "direction = [0, 0, -1]\n" + surface)));
  EXPECT_TRUE(noted(parse(tip + "direction = [0, 0, 1]\n" + surface)));
  EXPECT_FALSE(noted(parse(tip + "direction = [0, 0, 1]\n")));  // no surface: any direction
}

TEST(ConfigProtocol, ErrorsNameFileLineAndKey) {
  const std::string pull = "[pulling]\nspeed_um_per_s = 1\nspring_pN_per_nm = 35\n";  // lines 3–5
  expect_error(pull + "pulled_beads = [3, 3]\n", 6, "pulling.pulled_beads", "bead 3 is listed twice");
  // An indentation base far from the tip: the spring's whole stretch on the tip at once.
  const std::string far = "[indentation]\ntip_radius_A = 50\ntip_position_A = [0, 0, 60]\ndirection = [0, 0, -1]\n"
                          "spring_pN_per_nm = 200\nspeed_um_per_s = 1\n";  // lines 3–8
  expect_error(far + "base_position_A = [0, 0, 20000]\n", 9, "indentation.base_position_A",
               "the base starts 1994 nm from the tip, so the spring pulls the tip with 3.988e+05 pN at the first step");
  expect_error(far + "base_position_A = [1e308, 1e308, 1e308]\n", 9, "indentation.base_position_A",
               "with inf pN at the first step");
  expect_error(pull, 3, "pulling", "needs pulled_beads");
  expect_error(pull + "pulled_beads = []\n", 6, "pulling.pulled_beads", "at least one bead");
  expect_error(pull + "pulled_beads = [1]\ndirection = [0, 0, 0]\n", 7, "pulling.direction", "zero");
  expect_error(pull + "pulled_beads = [1]\ndirection = \"sideways\"\n", 7, "pulling.direction",
               "must be \"end_to_end\" or a vector");
  expect_error(pull + "pulled_beads = [1]\ndirection = [1, 2]\n", 7, "pulling.direction", "three numbers");
  expect_error(pull + "pulled_beads = [1]\nends = [4, 4]\n", 7, "pulling.ends", "must be different");
  expect_error(pull + "pulled_beads = [1]\nends = [4]\n", 7, "pulling.ends", "expected two beads [first, second]");
  expect_error(pull + "pulled_beads = [1]\nspeed_A_per_tau = 0.1\n", 7, "pulling.speed_A_per_tau", "not both");
  expect_error("[pulling]\npulled_beads = [1]\nspeed_um_per_s = -1\nspring_pN_per_nm = 35\n", 5,
               "pulling.speed_um_per_s", "out of range: must be >= 0");
  expect_error("[pulling]\npulled_beads = [1]\nspeed_um_per_s = 1\nspring_pN_per_nm = 0\n", 6,
               "pulling.spring_pN_per_nm", "out of range: must be > 0");
  expect_error("[pulling]\npulled_beads = [1]\nspring_pN_per_nm = 35\n", 3, "pulling", "needs speed_um_per_s");
  expect_error("[fixed]\nbeads = [0, 7]\n" + pull + "pulled_beads = [7]\n", 8, "pulling.pulled_beads",
               "bead 7 is also in fixed.beads");
  expect_error(pull + "pulled_beads = [1]\nspeed = 3\n", 7, "pulling.speed",
               "unknown key (did you mean 'speed_um_per_s' or 'speed_A_per_tau'?); known keys in [pulling]");
  expect_error(pull + "pulled_beads = [1]\n[force_clamp]\npulled_beads = [1]\nforce_pN = 3\n", 7, "force_clamp",
               "cannot be combined with [pulling]");
  // Force clamp
  expect_error("[force_clamp]\npulled_beads = [1]\n", 3, "force_clamp", "needs force_pN");
  expect_error("[force_clamp]\npulled_beads = [1]\nforce_pN = 1\nschedule = [[0, 1.0]]\n", 5, "force_clamp.force_pN",
               "give one of");
  expect_error("[force_clamp]\npulled_beads = [1]\nschedule = [[0, 1.0], [0, 2.0]]\n", 5, "force_clamp.schedule[1]",
               "steps must increase");
  expect_error("[force_clamp]\npulled_beads = [1]\nschedule = [[0, 1.0], [5]]\n", 5, "force_clamp.schedule[1]",
               "expected a pair");
  expect_error("[force_clamp]\npulled_beads = [1]\nschedule = [[-1, 1.0]]\n", 5, "force_clamp.schedule[0][0]",
               "out of range");
  // Plane pulling
  expect_error("[plane_pulling]\nplane = 3\n", 4, "plane_pulling.plane", "array of tables");
  expect_error("[plane_pulling]\n[[plane_pulling.plane]]\nbeads = [1]\nspring_pN_per_nm = 5\n", 4, "plane_pulling.plane[0]",
               "needs normal");
  expect_error(
      "[plane_pulling]\n[[plane_pulling.plane]]\nbeads = [1]\nnormal = [1, 0, 0]\nspring_pN_per_nm = 5\n"
      "[[plane_pulling.plane]]\nbeads = [2, 1]\nnormal = [1, 0, 0]\nspring_pN_per_nm = 5\n",
      9, "plane_pulling.plane[1].beads", "already tethered to another plane");
  expect_error("[plane_pulling]\n[[plane_pulling.plane]]\nbeads = [1]\nnormal = [1, 0, 0]\nspring_pN_per_nm = 5\nspeed = 1\n",
               8, "plane_pulling.plane[0].speed", "unknown key");
  // Indentation
  const std::string tip = "[indentation]\ntip_radius_nm = 1\ntip_position_A = [0, 0, 60]\ndirection = [0, 0, -1]\n"
                          "spring_pN_per_nm = 50\nspeed_um_per_s = 1\n";  // lines 3–8
  expect_error(tip + "tip_interaction = \"sticky\"\n", 9, "indentation.tip_interaction",
               "must be \"repulsive\" or \"lennard_jones\"");
  expect_error(tip + "tip_interaction = \"repulsive\"\ntip_A = 1\n", 10, "indentation.tip_A", "not both");
  expect_error(tip + "tip_A = 1\n", 9, "indentation.tip_A", "give both");
  expect_error(tip + "retract_at_step = 10\nretract_at_depth_nm = 1\n", 9, "indentation.retract_at_step",
               "at most one");
  expect_error(tip + "move_surface = true\n", 9, "indentation.move_surface", "needs an [indentation.surface]");
  expect_error(tip + "move_surface = 1\n", 9, "indentation.move_surface", "expected true or false");
  expect_error(tip + "[indentation.surface]\nnormal = [0, 0, 1]\n", 9, "indentation.surface", "needs point_A");
  expect_error(tip + "[indentation.surface]\ntype = \"beads\"\npoint_A = [0, 0, 0]\nnormal = [0, 0, 1]\n", 10,
               "indentation.surface.type", "needs grid_size");
  expect_error(tip + "[indentation.surface]\npoint_A = [0, 0, 0]\nnormal = [0, 0, 1]\ngrid_size = 3\n", 12,
               "indentation.surface.grid_size", "only to type = \"beads\"");
  expect_error(tip + "[indentation.surface]\npoint_A = [0, 0, 0]\nnormal = [0, 0, 0]\n", 11,
               "indentation.surface.normal", "zero");
  expect_error("[indentation]\ntip_position_A = [0, 0, 60]\n", 3, "indentation", "needs tip_radius_nm");
  expect_error(pull + "pulled_beads = [1]\n" + "[indentation]\ntip_radius_nm = 1\n", 7, "indentation",
               "cannot be combined with [pulling]");
}

}  // namespace
}  // namespace ermak
