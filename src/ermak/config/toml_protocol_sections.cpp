// The readers of the protocols' tables (docs/protocols.md): [pulling], [force_clamp],
// [plane_pulling], and [indentation] with its [indentation.surface]. Checks that need the
// model (bead indices against the bead count, the tip against the start positions) happen
// in run/protocol_checks.cpp and run/protocol_setup.cpp; key_sources remembers where those
// keys were given.
#include "ermak/config/toml_section_readers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "ermak/core/units.h"
#include "ermak/physics/harmonic.h"
#include "ermak/protocol/indentation.h"

namespace ermak::config {
namespace {

Vec3d nonzero_vector(const Section& s, std::string_view key) {
  const Vec3d v = *s.vec3(key);
  if (norm2(v) == 0.0) throw s.error(key, "the direction vector is zero; give a non-zero [x, y, z]");
  // Only its direction counts: a vector whose squared length overflows is scaled to its
  // largest component (others stay as written, for the resolved configuration).
  const double largest = std::max({std::abs(v.x), std::abs(v.y), std::abs(v.z)});
  if (!std::isfinite(largest)) throw s.error(key, "the direction vector is not finite");
  return std::isfinite(norm2(v)) ? v : (1.0 / largest) * v;
}

DirectionSpec read_direction(const Section& s) {
  DirectionSpec d;
  const toml::node* n = s.node("direction");
  if (!n) return d;
  if (const auto* text = n->as_string()) {
    if (text->get() != "end_to_end")
      throw s.error("direction", fmt::format("must be \"end_to_end\" or a vector [x, y, z], got \"{}\"",
                                             text->get()));
    return d;
  }
  if (!n->is_array())
    throw s.error("direction", fmt::format("must be \"end_to_end\" or a vector [x, y, z], got {}",
                                           type_name(n->type())));
  d.end_to_end = false;
  d.vector = nonzero_vector(s, "direction");
  return d;
}

std::vector<std::int32_t> read_ends(const Section& s, RunSpec& spec) {
  if (!s.has("ends")) return {};
  const auto* array = s.node("ends")->as_array();
  if (array && array->size() != 2)
    throw s.error("ends", fmt::format("expected two beads [first, second], got {} values", array->size()));
  return bead_list(s, "ends", false, spec);
}

std::int64_t read_output_every(const Section& s) {
  return s.integer("output_every", kPositiveInt).value_or(0);
}

// schedule = [[step, force], ...]: steps ascending integers ≥ 0, forces in `unit`.
std::vector<ForceSchedulePoint> read_schedule(const Section& s, std::string_view key, Conversion to_internal) {
  const toml::node* n = s.node(key);
  const auto* array = n->as_array();
  if (!array || array->empty())
    throw s.error(key, "expected a non-empty array of [step, force] pairs, e.g. [[0, 0.0], [100000, 200.0]]");
  std::vector<ForceSchedulePoint> points;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const std::string where = fmt::format("{}[{}]", s.field(key), i);
    const toml::node& item = *array->get(i);
    const auto* pair = item.as_array();
    if (!pair || pair->size() != 2)
      throw s.error_node(item, where, "expected a pair [step, force]");
    ForceSchedulePoint point;
    point.step = s.integer_in(*pair->get(0), where + "[0]", kNonNegative);
    point.force_kcal_per_mol_A = to_internal(s.number_value(*pair->get(1), where + "[1]"));
    if (!points.empty() && point.step <= points.back().step)
      throw s.error_node(item, where,
                     fmt::format("steps must increase: step {} follows step {}", point.step, points.back().step));
    points.push_back(point);
  }
  return points;
}

// interaction = "repulsive" (A = 0, B = 1) | "lennard_jones" (A = 1, B = −2), or A and B.
void read_wall_shape(const Section& s, std::string_view preset_key, std::string_view a_key,
                     std::string_view b_key, WallSpec& wall) {
  const auto preset = s.string(preset_key);
  const bool a = s.has(a_key), b = s.has(b_key);
  if (preset && (a || b))
    throw s.error(a ? a_key : b_key, fmt::format("give either {} or {} and {}, not both", s.field(preset_key),
                                                 s.field(a_key), s.field(b_key)));
  if (preset) {
    if (*preset == "repulsive") { wall.A = 0.0; wall.B = 1.0; }
    else if (*preset == "lennard_jones") { wall.A = 1.0; wall.B = -2.0; }
    else
      throw s.error(preset_key, fmt::format("must be \"repulsive\" or \"lennard_jones\", got \"{}\"", *preset));
    return;
  }
  if (a != b) throw s.error(a ? a_key : b_key, fmt::format("give both {} and {}", s.field(a_key), s.field(b_key)));
  if (a) {
    wall.A = *s.real(a_key, kAny, "");
    wall.B = *s.real(b_key, kAny, "");
    if (wall.A == 0.0 && wall.B == 0.0) throw s.error(a_key, "A and B are both zero: no interaction");
  }
}

void read_surface(const Context& ctx, const Section& parent, RunSpec& spec) {
  const Section s(ctx, parent.node("surface"), "indentation.surface",
                  {"type", "point_A", "normal", "interaction", "A", "B", "sigma_A", "epsilon_kcal_per_mol",
                   "spacing_A", "grid_size", "tip_interaction"});
  if (!s.present()) return;
  IndentationSurfaceSpec& surface = spec.indentation.surface;
  surface.enabled = true;
  const std::string type = s.string("type").value_or("plane");
  if (type != "plane" && type != "beads")
    throw s.error("type", fmt::format("must be \"plane\" or \"beads\", got \"{}\"", type));
  surface.beads = type == "beads";
  if (!s.has("point_A")) throw s.error("[indentation.surface] needs point_A = [x, y, z] (a point of the surface)");
  surface.point_A = *s.vec3("point_A");
  if (!s.has("normal")) throw s.error("[indentation.surface] needs normal = [x, y, z] (toward the molecule)");
  surface.normal = nonzero_vector(s, "normal");
  read_wall_shape(s, "interaction", "A", "B", surface.wall);
  assign(surface.wall.sigma_A, s.real("sigma_A", kPositive, "Å"));
  assign(surface.wall.epsilon_kcal_per_mol, s.real("epsilon_kcal_per_mol", kPositive, "kcal/mol"));
  assign(surface.tip_interaction, s.boolean("tip_interaction"));
  if (surface.beads) {
    assign(surface.spacing_A, s.real("spacing_A", kPositive, "Å"));
    const auto grid = s.integer("grid_size", {1.0, false, 46340.0});
    if (!grid) throw s.error("type", "type = \"beads\" needs grid_size (surface beads per side)");
    surface.grid_size = std::int32_t(*grid);
  } else {
    for (const char* key : {"spacing_A", "grid_size"})
      if (s.has(key)) throw s.error(key, "applies only to type = \"beads\"");
  }
  remember(spec, s, "point_A");
  remember(spec, s, "normal");
}

}  // namespace

// The mechanical protocols that may share a run: [pulling] alone; [force_clamp] and
// [indentation] together (a constant force on some beads while the tip indents, as
// SOP-GPU's PF8 input does); [plane_pulling] and [fixed] with any. Pulling and the clamp
// both write pulling.tsv, and a cantilever spring beside an indenting tip has no SOP-GPU
// counterpart to check it against.
void check_protocol_combination(const Section& pulling, const Section& clamp, const Section& indentation) {
  if (!pulling.present()) return;
  for (const Section* s : {&clamp, &indentation})
    if (s->present())
      throw s->error(fmt::format("[{}] cannot be combined with [pulling]: [pulling] combines with neither "
                                 "[force_clamp] nor [indentation] ([force_clamp] and [indentation] combine with "
                                 "each other; [plane_pulling] and [fixed] with any)",
                                 s->name()));
}

void read_pulling(const Section& s, RunSpec& spec) {
  if (!s.present()) return;
  PullingSpec& p = spec.pulling;
  p.enabled = true;
  p.pulled_beads = bead_list(s, "pulled_beads", true, spec);
  const auto speed = either(s, kSpeedUm, kSpeedInternal, kNonNegative);
  if (!speed) throw s.error("[pulling] needs speed_um_per_s (the cantilever base speed)");
  p.speed_A_per_tau = speed->value;
  const auto spring = either(s, kSpringPn, kSpringInternal, kPositive);
  if (!spring) throw s.error("[pulling] needs spring_pN_per_nm (the cantilever spring constant)");
  p.spring_kcal_per_mol_A2 = spring->value;
  remember(spec, s, speed->key);  // for the step-size check at the start (run/step_size_check.h)
  remember(spec, s, spring->key);
  p.direction = read_direction(s);
  p.ends = read_ends(s, spec);
  p.output_every_steps = read_output_every(s);
  remember(spec, s, "direction");
  remember(spec, s, "pulled_beads");  // a default end-to-end direction's errors point here
}

void read_force_clamp(const Section& s, RunSpec& spec) {
  if (!s.present()) return;
  ForceClampSpec& c = spec.force_clamp;
  c.enabled = true;
  c.pulled_beads = bead_list(s, "pulled_beads", true, spec);
  const auto force = either(s, {"force_pN", units::pN_to_internal_force, "pN"},
                            {"force_kcal_per_mol_A", identity, "kcal/mol/Å"}, kAny);
  const bool schedule_pN = s.has("schedule"), schedule_internal = s.has("schedule_kcal_per_mol_A");
  const int given = int(force.has_value()) + int(schedule_pN) + int(schedule_internal);
  if (given == 0) throw s.error("[force_clamp] needs force_pN (a constant force) or schedule = [[step, force_pN], ...]");
  if (given > 1)
    throw s.error(force ? std::string_view(force->key) : std::string_view("schedule_kcal_per_mol_A"),
                  "give one of force_clamp.force_pN, force_clamp.schedule (or their _kcal_per_mol_A forms)");
  c.constant = force.has_value();
  for (std::string_view key : {"force_pN", "force_kcal_per_mol_A", "schedule", "schedule_kcal_per_mol_A"})
    remember(spec, s, key);
  if (force)
    c.schedule = {ForceSchedulePoint{0, force->value}};
  else if (schedule_pN)
    c.schedule = read_schedule(s, "schedule", units::pN_to_internal_force);
  else
    c.schedule = read_schedule(s, "schedule_kcal_per_mol_A", identity);
  c.direction = read_direction(s);
  c.ends = read_ends(s, spec);
  c.output_every_steps = read_output_every(s);
  remember(spec, s, "direction");
  remember(spec, s, "pulled_beads");  // a default end-to-end direction's errors point here
}

void read_plane_pulling(const Context& ctx, const Section& s, RunSpec& spec) {
  if (!s.present()) return;
  PlanePullingSpec& pp = spec.plane_pulling;
  pp.enabled = true;
  pp.output_every_steps = read_output_every(s);
  const toml::node* n = s.node("plane");
  if (!n) throw s.error("[plane_pulling] needs at least one [[plane_pulling.plane]]");
  const auto* array = n->as_array();
  if (!array || !array->is_array_of_tables() || array->empty())
    throw s.error("plane", "expected an array of tables: write each plane as [[plane_pulling.plane]]");
  for (std::size_t i = 0; i < array->size(); ++i) {
    const Section plane(ctx, array->get(i), fmt::format("plane_pulling.plane[{}]", i),
                        {"beads", "normal", "speed_um_per_s", "speed_A_per_tau", "spring_pN_per_nm",
                         "spring_kcal_per_mol_A2"});
    PlaneSpec p;
    p.beads = bead_list(plane, "beads", true, spec);
    if (!plane.has("normal")) throw plane.error(fmt::format("[[plane_pulling.plane]] {} needs normal = [x, y, z]", i));
    p.normal = nonzero_vector(plane, "normal");
    if (const auto speed = either(plane, kSpeedUm, kSpeedInternal, kAny)) p.speed_A_per_tau = speed->value;
    const auto spring = either(plane, kSpringPn, kSpringInternal, kPositive);
    if (!spring) throw plane.error(fmt::format("[[plane_pulling.plane]] {} needs spring_pN_per_nm", i));
    p.spring_kcal_per_mol_A2 = spring->value;
    for (std::string_view key : {kSpeedUm.key, kSpeedInternal.key, kSpringPn.key, kSpringInternal.key})
      remember(spec, plane, key);
    pp.planes.push_back(std::move(p));
  }
}

void read_indentation(const Context& ctx, const Section& s, RunSpec& spec) {
  if (!s.present()) return;
  IndentationSpec& ind = spec.indentation;
  ind.enabled = true;
  const auto radius = either(s, {"tip_radius_nm", nm_to_A, "nm"}, {"tip_radius_A", identity, "Å"}, kPositive);
  if (!radius) throw s.error("[indentation] needs tip_radius_nm");
  ind.tip_radius_A = radius->value;
  // Default: Stokes' law from the beads' friction, ζ_tip = ζ·R_tip/a with a = 3.8 Å the
  // bead radius behind SOP-GPU's ζ = 50 (docs/protocols.md#indentation).
  ind.tip_friction = stokes_tip_friction(spec.langevin.zeta, ind.tip_radius_A);
  assign(ind.tip_friction, s.real("tip_friction", kPositive, "kcal/mol·tau_H/Å²"));
  if (!s.has("tip_position_A")) throw s.error("[indentation] needs tip_position_A = [x, y, z] (the tip centre)");
  ind.tip_position_A = *s.vec3("tip_position_A");
  ind.base_position_A = s.vec3("base_position_A").value_or(ind.tip_position_A);
  if (!s.has("direction")) throw s.error("[indentation] needs direction = [x, y, z] (the way the base moves)");
  ind.direction = nonzero_vector(s, "direction");
  const auto spring = either(s, kSpringPn, kSpringInternal, kPositive);
  if (!spring) throw s.error("[indentation] needs spring_pN_per_nm (the cantilever spring constant)");
  ind.spring_kcal_per_mol_A2 = spring->value;
  // A base given far from the tip pulls the tip at the first step with the whole stretch
  // (a base 2 µm away at 200 pN/nm: 4·10⁵ pN; one at 1e308 Å: an infinite force).
  {
    const double stretch_A = norm(ind.base_position_A - ind.tip_position_A);
    const double force_pN = units::internal_force_to_pN(physics::spring_force(ind.spring_kcal_per_mol_A2, stretch_A));
    constexpr double kMostStartForce_pN = 1e4;
    if (!(force_pN <= kMostStartForce_pN))
      throw s.error("base_position_A",
                    fmt::format("the base starts {:.4g} nm from the tip, so the spring pulls the tip with {:.4g} pN at "
                                "the first step (more than {:g} pN): give base_position_A at or near tip_position_A "
                                "(it defaults to it)",
                                stretch_A / 10.0, force_pN, kMostStartForce_pN));
  }
  const auto speed = either(s, kSpeedUm, kSpeedInternal, kNonNegative);
  if (!speed) throw s.error("[indentation] needs speed_um_per_s (the cantilever base speed)");
  ind.speed_A_per_tau = speed->value;
  remember(spec, s, speed->key);
  remember(spec, s, spring->key);
  read_wall_shape(s, "tip_interaction", "tip_A", "tip_B", ind.tip);
  assign(ind.tip.sigma_A, s.real("tip_sigma_A", kPositive, "Å"));
  assign(ind.tip.epsilon_kcal_per_mol, s.real("tip_epsilon_kcal_per_mol", kPositive, "kcal/mol"));
  assign(ind.tip_along_direction_only, s.boolean("tip_along_direction_only"));
  assign(ind.move_surface, s.boolean("move_surface"));
  const auto depth = either(s, {"retract_at_depth_nm", nm_to_A, "nm"}, {"retract_at_depth_A", identity, "Å"}, kPositive);
  const auto force = either(s, {"retract_at_force_pN", units::pN_to_internal_force, "pN"},
                            {"retract_at_force_kcal_per_mol_A", identity, "kcal/mol/Å"}, kPositive);
  const auto step = s.integer("retract_at_step", kPositiveInt);
  if (int(depth.has_value()) + int(force.has_value()) + int(step.has_value()) > 1)
    throw s.error(step ? std::string_view("retract_at_step") : force ? force->key : depth->key,
                  "give at most one of retract_at_depth_nm, retract_at_force_pN, retract_at_step");
  if (depth) { ind.retract = RetractAt::kDepth; ind.retract_depth_A = depth->value; }
  if (force) { ind.retract = RetractAt::kForce; ind.retract_force_kcal_per_mol_A = force->value; }
  if (step) { ind.retract = RetractAt::kStep; ind.retract_step = *step; }
  ind.output_every_steps = read_output_every(s);
  read_surface(ctx, s, spec);
  if (ind.move_surface && !ind.surface.enabled)
    throw s.error("move_surface", "needs an [indentation.surface] to move");
  // The tip presses the molecule onto the surface: its base should move against the
  // surface's normal (which points from the surface to the molecule).
  if (ind.surface.enabled && dot(ind.direction, ind.surface.normal) >= 0.0)
    spec.notes.push_back(
        "[indentation] direction does not point towards the surface (direction · surface normal >= 0): the tip "
        "moves away from it, and no indentation presses the molecule onto the surface");
  remember(spec, s, "tip_position_A");
  remember(spec, s, "tip_radius_nm");
  remember(spec, s, "tip_radius_A");
  remember(spec, s, "tip_friction");  // a spring too stiff for it (run/step_size_check.cpp)
  remember(spec, s, "tip_sigma_A");  // the tip's wall at the start (run/protocol_setup.cpp)
  remember(spec, s, "tip_epsilon_kcal_per_mol");
}

}  // namespace ermak::config
