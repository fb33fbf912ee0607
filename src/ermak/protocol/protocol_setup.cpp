#include "ermak/protocol/protocol_setup.h"

#include <fmt/format.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>

#include "ermak/config/sopgpu_config.h"
#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/physics/langevin_step.h"
#include "ermak/physics/tip.h"

namespace ermak {
namespace {

void check_beads(const RunSpec& spec, const std::string& key, const std::vector<std::int32_t>& beads,
                 std::int32_t n) {
  for (std::size_t k = 0; k < beads.size(); ++k) {
    const std::int32_t b = beads[k];
    if (b >= 0 && b < n) continue;
    // An item with a source of its own (a .sop file's fixedEnd and pulledEnd) is named by it.
    const std::string item = fmt::format("{}[{}]", key, k);
    throw key_error(spec, spec.key_sources.count(item) ? item : key,
                    fmt::format("bead {} is out of range: the model has {} beads (0..{})", b, n, n - 1));
  }
}

Vec3d unit(Vec3d v) { return (1.0 / norm(v)) * v; }

Vec3d position(const State& s, std::int32_t r, std::int32_t bead) {
  return vec_cast<double>(s.position(r, bead));
}

std::string bead_name(const Topology& t, std::int32_t i) {
  const BeadInfo& b = t.beads[i];
  return fmt::format("bead {} ({} {}{} chain {})", i, b.residue_name, b.residue_number,
                     b.insertion_code == ' ' ? "" : std::string(1, b.insertion_code), b.chain_id);
}

double tau_to_ns(double t) { return units::tau_to_ns(t); }
double A_to_nm(double x) { return x / units::A_per_nm; }

// True when every replica has bitwise the same value: protocol entries can then be
// shared by all replicas (replica = −1), which keeps the engines' per-step loops short.
template <class F>
bool same_in_all_replicas(std::int32_t replicas, F&& value_of_replica) {
  const auto first = value_of_replica(0);
  for (std::int32_t r = 1; r < replicas; ++r) {
    const auto v = value_of_replica(r);
    if (std::memcmp(&v, &first, sizeof v) != 0) return false;
  }
  return true;
}

std::string vec_text(Vec3d v, int digits = 4) {
  return fmt::format("({:.{}g}, {:.{}g}, {:.{}g})", v.x, digits, v.y, digits, v.z, digits);
}

}  // namespace

void validate_protocols(const RunSpec& spec, const Topology& topology) {
  const std::int32_t n = topology.bead_count();
  if (spec.pulling.enabled) {
    check_beads(spec, "pulling.pulled_beads", spec.pulling.pulled_beads, n);
    check_beads(spec, "pulling.ends", spec.pulling.ends, n);
  }
  if (spec.force_clamp.enabled) {
    check_beads(spec, "force_clamp.pulled_beads", spec.force_clamp.pulled_beads, n);
    check_beads(spec, "force_clamp.ends", spec.force_clamp.ends, n);
  }
  if (spec.plane_pulling.enabled)
    for (std::size_t i = 0; i < spec.plane_pulling.planes.size(); ++i)
      check_beads(spec, fmt::format("plane_pulling.plane[{}].beads", i), spec.plane_pulling.planes[i].beads, n);
}

namespace {

// The two beads that define the end-to-end vector: given, or the first fixed bead (bead 0
// without fixed beads) and the first pulled bead. (Both bead 0 when bead 0 is pulled and none
// is fixed: travel_warnings says so; another default would change the reference beads that
// earlier runs' checkpoints hold, and in a multi-chain or C-alpha–C-beta model no other bead
// is the obvious end.)
void default_ends(const RunSpec& spec, const std::vector<std::int32_t>& given,
                  const std::vector<std::int32_t>& pulled, std::int32_t ends[2]) {
  if (given.size() == 2) {
    ends[0] = given[0];
    ends[1] = given[1];
    return;
  }
  ends[0] = spec.fixed_beads.empty() ? 0 : spec.fixed_beads.front();
  ends[1] = pulled.front();
}

}  // namespace

std::vector<std::int32_t> protocol_reference_beads(const RunSpec& spec, std::int32_t bead_count) {
  std::vector<std::int32_t> beads;
  auto add_pulled = [&](const std::vector<std::int32_t>& pulled, const std::vector<std::int32_t>& ends) {
    beads.insert(beads.end(), pulled.begin(), pulled.end());
    std::int32_t e[2];
    default_ends(spec, ends, pulled, e);
    beads.push_back(e[0]);
    beads.push_back(e[1]);
  };
  if (spec.pulling.enabled) add_pulled(spec.pulling.pulled_beads, spec.pulling.ends);
  if (spec.force_clamp.enabled) add_pulled(spec.force_clamp.pulled_beads, spec.force_clamp.ends);
  if (spec.plane_pulling.enabled)
    for (const PlaneSpec& p : spec.plane_pulling.planes) beads.insert(beads.end(), p.beads.begin(), p.beads.end());
  std::sort(beads.begin(), beads.end());
  beads.erase(std::unique(beads.begin(), beads.end()), beads.end());
  beads.erase(std::remove_if(beads.begin(), beads.end(), [&](std::int32_t b) { return b < 0 || b >= bead_count; }),
              beads.end());
  return beads;
}

ProtocolSetup::ProtocolSetup(const RunSpec& spec, const Topology& topology, const State& start, bool validate)
    : spec_(spec), replicas_(start.replica_count), start_step_(start.step) {
  validate_protocols(spec, topology);

  // --- pulling and force clamp: per-replica direction from the ends or a fixed vector ---
  const bool pulls = spec.pulling.enabled, clamps = spec.force_clamp.enabled;
  if (pulls || clamps) {
    const std::string section = pulls ? "pulling" : "force_clamp";
    const DirectionSpec& dir = pulls ? spec.pulling.direction : spec.force_clamp.direction;
    const auto& pulled = pulls ? spec.pulling.pulled_beads : spec.force_clamp.pulled_beads;
    default_ends(spec, pulls ? spec.pulling.ends : spec.force_clamp.ends, pulled, ends_);
    directions_.resize(replicas_);
    for (std::int32_t r = 0; r < replicas_; ++r) {
      if (!dir.end_to_end) {
        directions_[r] = unit(dir.vector);
        continue;
      }
      // Named at the direction's line, or where it is the default, at the pulled beads'.
      const std::string direction_key =
          spec.key_sources.count(section + ".direction") ? section + ".direction" : section + ".pulled_beads";
      if (ends_[0] == ends_[1])
        throw key_error(spec, direction_key,
                        fmt::format("\"end_to_end\" needs two different end beads, but the default ends (the first "
                                    "fixed bead, or bead 0, and the first pulled bead) are both bead {}; give {}.ends "
                                    "= [i, j] or a direction vector",
                                    ends_[0], section));
      const Vec3d e = position(start, r, ends_[1]) - position(start, r, ends_[0]);
      if (!(norm(e) > 1e-6))
        throw key_error(spec, direction_key,
                        fmt::format("the end beads {} and {} are at the same place in replica {}: no end-to-end "
                                    "direction; give a direction vector",
                                    ends_[0], ends_[1], r));
      directions_[r] = unit(e);
    }
    const bool shared_direction = same_in_all_replicas(replicas_, [&](std::int32_t r) { return directions_[r]; });
    if (pulls) {
      // One spring per pulled bead, anchored where the bead starts, moving at v along the
      // replica's direction. Shared by all replicas when their starts are identical.
      const bool shared = shared_direction && std::all_of(pulled.begin(), pulled.end(), [&](std::int32_t b) {
                            return same_in_all_replicas(replicas_, [&](std::int32_t r) { return start.position(r, b); });
                          });
      for (std::int32_t r = 0; r < (shared ? 1 : replicas_); ++r)
        for (std::int32_t b : pulled) {
          HarmonicTether t;
          t.bead = b;
          t.replica = shared ? -1 : r;
          t.anchor_start_A = position(start, r, b);
          t.anchor_velocity_A_per_tau = spec.pulling.speed_A_per_tau * directions_[r];
          t.spring_kcal_per_mol_A2 = spec.pulling.spring_kcal_per_mol_A2;
          t.start_step = start_step_;
          tethers_.push_back(t);
        }
    } else {
      // SOP-GPU's fconst: every pulled bead gets the full force.
      for (std::int32_t r = 0; r < (shared_direction ? 1 : replicas_); ++r)
        for (std::int32_t b : pulled) {
          ExternalForce f;
          f.bead = b;
          f.replica = shared_direction ? -1 : r;
          f.direction = directions_[r];
          external_forces_.push_back(f);
        }
      schedule_.points = spec.force_clamp.schedule;
    }
  }

  // Where each replica's entries start in Engine::tether_forces_kcal_per_mol_A().
  tether_offsets_.assign(std::size_t(replicas_) + 1, 0);
  {
    std::size_t shared = 0;
    std::vector<std::size_t> own(replicas_, 0);
    for (const HarmonicTether& t : tethers_) {
      if (t.replica < 0) ++shared;
      else if (t.replica < replicas_) ++own[t.replica];
    }
    for (std::int32_t r = 0; r < replicas_; ++r) tether_offsets_[r + 1] = tether_offsets_[r] + shared + own[r];
  }

  // --- plane pulling: every bead's spring starts relaxed (plane through the bead) ---
  if (spec.plane_pulling.enabled) {
    for (std::size_t g = 0; g < spec.plane_pulling.planes.size(); ++g) {
      const PlaneSpec& p = spec.plane_pulling.planes[g];
      const Vec3d n = unit(p.normal);
      for (std::int32_t b : p.beads) {
        const bool shared = same_in_all_replicas(replicas_, [&](std::int32_t r) { return start.position(r, b); });
        for (std::int32_t r = 0; r < (shared ? 1 : replicas_); ++r) {
          PlaneTether t;
          t.bead = b;
          t.replica = shared ? -1 : r;
          t.normal = n;
          t.plane_start_A = dot(position(start, r, b), n);
          t.speed_A_per_tau = p.speed_A_per_tau;
          t.spring_kcal_per_mol_A2 = p.spring_kcal_per_mol_A2;
          t.start_step = start_step_;
          t.group = std::int32_t(g);
          plane_tethers_.push_back(t);
        }
      }
    }
  }

  // --- indentation ---
  if (spec.indentation.enabled) {
    const IndentationSpec& in = spec.indentation;
    Indentation& ind = indentation_;
    ind.enabled = true;
    ind.base_start_A = in.base_position_A;
    ind.tip_start_A = in.tip_position_A;
    ind.direction = unit(in.direction);
    ind.speed_A_per_tau = in.speed_A_per_tau;
    ind.spring_kcal_per_mol_A2 = in.spring_kcal_per_mol_A2;
    ind.tip_zeta = in.tip_friction;
    ind.tip = {in.tip.A, in.tip.B, in.tip.sigma_A, in.tip.epsilon_kcal_per_mol, in.tip_radius_A};
    ind.tip_along_direction_only = in.tip_along_direction_only;
    ind.move_surface = in.move_surface;
    switch (in.retract) {
      case RetractAt::kNever: ind.retraction = RetractionTrigger::kNone; break;
      case RetractAt::kDepth: ind.retraction = RetractionTrigger::kDepth; break;
      case RetractAt::kForce: ind.retraction = RetractionTrigger::kForce; break;
      case RetractAt::kStep: ind.retraction = RetractionTrigger::kStep; break;
    }
    ind.retract_depth_A = in.retract_depth_A;
    ind.retract_force_kcal_per_mol_A = in.retract_force_kcal_per_mol_A;
    ind.retract_step = in.retract_step;
    ind.start_step = start_step_;
    if (in.surface.enabled) {
      IndentationSurface& s = ind.surface;
      s.enabled = true;
      s.discrete = in.surface.beads;
      s.point_A = in.surface.point_A;
      s.normal = unit(in.surface.normal);
      s.spacing_A = in.surface.spacing_A;
      s.grid_size = in.surface.grid_size;
      s.wall = {in.surface.wall.A, in.surface.wall.B, in.surface.wall.sigma_A, in.surface.wall.epsilon_kcal_per_mol,
                0.0};
      s.tip_interaction = in.surface.tip_interaction;
      // Surface beads beyond 4σ contribute < 2.5e-4 ε: ignored (docs/protocols.md#indentation).
      s.cutoff_A = 4.0 * in.surface.wall.sigma_A;
    }
    // Where the tip, moving along d, first touches a bead (a bead at lateral distance ℓ < R
    // from its path, a along it: at travel a − √(R² − ℓ²)) and reaches the substrate.
    if (start.bead_count > 0 && start.replica_count > 0) {
      const double R = in.tip_radius_A;
      for (std::int32_t i = 0; i < start.bead_count; ++i) {
        // A resumed run's start holds only the protocols' reference beads (the rest NaN):
        // then the geometry is not known, and nothing is said of the contact.
        const Vec3d p = position(start, 0, i);
        if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) continue;
        geometry_known_ = true;
        const Vec3d offset = p - ind.tip_start_A;
        const double along = dot(offset, ind.direction), lateral2 = dot(offset, offset) - along * along;
        if (along > 0 && lateral2 < R * R)
          contact_travel_A_ = std::min(contact_travel_A_, along - std::sqrt(R * R - lateral2));
      }
      if (in.surface.enabled) {
        const double approach = dot(ind.direction, ind.surface.normal);  // < 0: towards the surface
        const double height = dot(ind.tip_start_A - ind.surface.point_A, ind.surface.normal);
        // The tip's surface rests on a bare wall about σ above it (when it feels the wall).
        const double rest_A = in.surface.tip_interaction ? in.surface.wall.sigma_A : 0.0;
        if (approach < 0) surface_travel_A_ = (height - R - rest_A) / -approach;
      }
    }
    if (validate) {
      const std::int32_t n = start.bead_count;
      std::vector<char> fixed(std::size_t(n), 0);  // fixed beads do not move: no wall check
      for (const std::int32_t b : spec.fixed_beads)
        if (b >= 0 && b < n) fixed[std::size_t(b)] = 1;
      for (std::int32_t r = 0; r < replicas_; ++r)
        for (std::int32_t i = 0; i < n; ++i) {
          const Vec3d p = position(start, r, i);
          const double d = norm(p - ind.tip_start_A);
          if (!(d > in.tip_radius_A))
            throw key_error(spec, "indentation.tip_position_A",
                            fmt::format("the tip (centre {} Å, radius {} Å) starts inside the molecule: {} of replica "
                                        "{} is {:.4g} Å from the tip centre; move the tip away from the molecule",
                                        vec_text(in.tip_position_A, 6), in.tip_radius_A, bead_name(topology, i), r, d));
          // A free bead in the tip's wall at the start is thrown by it at the first step (a
          // tip σ of 1e308 Å, or an ε of 2·10⁹: the run then stopped with non-finite
          // coordinates, naming no key): refused as for the surface below.
          if (!fixed[std::size_t(i)]) {
            double unused = 0;
            const physics::WallParametersT<double> wall{in.tip.A, in.tip.B, in.tip.sigma_A,
                                                        in.tip.epsilon_kcal_per_mol, 0.0};
            const double push = physics::wall_force<false>(d - in.tip_radius_A, wall, unused);
            // The first step's drift (h/ζ)·|F|, here and for the plane below.
            const double move_A =
                physics::langevin_mobility_step<double>(spec.langevin.timestep_tau, spec.langevin.zeta) * std::abs(push);
            if (!(move_A < 0.5 * double(spec.sop.fene_R0_A)))
              throw key_error(spec,
                              blamed_key(spec, {"indentation.tip_sigma_A", "indentation.tip_epsilon_kcal_per_mol",
                                                "indentation.tip_position_A"}),
                              fmt::format("{} of replica {} starts {:.4g} Å from the tip's surface, deep in its wall "
                                          "(σ = {:.4g} Å, ε = {:.4g} kcal/mol), which would move it by {} in the "
                                          "first step and break its bonds; start the tip farther away or give it a "
                                          "smaller σ or ε",
                                          bead_name(topology, i), r, d - in.tip_radius_A, in.tip.sigma_A,
                                          in.tip.epsilon_kcal_per_mol,
                                          std::isfinite(move_A) ? fmt::format("{:.3g} Å", move_A)
                                                                : std::string("a non-finite distance")));
          }
          if (in.surface.enabled && r == 0 && i == 0 && in.surface.tip_interaction) {
            const double tip_height = dot(ind.tip_start_A - ind.surface.point_A, ind.surface.normal);
            if (!(tip_height > in.tip_radius_A))
              throw key_error(spec,
                              blamed_key(spec, {"indentation.tip_position_A", "indentation.surface.normal",
                                                "indentation.surface.point_A"}),
                              fmt::format("the tip (centre {} Å, radius {} Å) starts {} the surface; start it above",
                                          vec_text(in.tip_position_A, 6), in.tip_radius_A,
                                          tip_height > 0 ? "touching" : "behind"));
          }
          if (in.surface.enabled) {
            const double height = dot(p - ind.surface.point_A, ind.surface.normal);
            if (!(height > 0.0))
              throw key_error(spec, blamed_key(spec, {"indentation.surface.point_A", "indentation.surface.normal"}),
                              fmt::format("{} of replica {} is {:.4g} Å behind the surface (the normal must point "
                                          "from the surface toward the molecule)",
                                          bead_name(topology, i), r, -height));
            // A free bead that starts deep in the plane's wall is thrown by it at the first
            // step (then the run stops with a broken bond): a move of R0/2 or more per step
            // is refused here, as for springs (run/step_size_check.h).
            if (!in.surface.beads && !fixed[std::size_t(i)]) {
              double unused = 0;
              const physics::WallParametersT<double> wall{in.surface.wall.A, in.surface.wall.B, in.surface.wall.sigma_A,
                                                          in.surface.wall.epsilon_kcal_per_mol, 0.0};
              const double push = physics::wall_force<false>(height, wall, unused);
              const double move_A =
                  physics::langevin_mobility_step<double>(spec.langevin.timestep_tau, spec.langevin.zeta) *
                  std::abs(push);
              if (!(move_A < 0.5 * double(spec.sop.fene_R0_A)))
                throw key_error(spec, "indentation.surface.point_A",
                                fmt::format("{} of replica {} starts {:.4g} Å from the surface, deep in its wall (σ = "
                                            "{:.4g} Å), which would move it by {:.3g} Å in the first step and break "
                                            "its bonds; place the surface farther from the molecule (about σ below "
                                            "its lowest bead) or fix the beads that touch it",
                                            bead_name(topology, i), r, height, in.surface.wall.sigma_A, move_A));
            }
          }
        }
    }
  }
}

void ProtocolSetup::fill(EngineSetup& setup) const {
  setup.tethers = tethers_;
  setup.external_forces = external_forces_;
  setup.force_schedule = schedule_;
  setup.plane_tethers = plane_tethers_;
  setup.plane_groups = spec_.plane_pulling.enabled ? std::int32_t(spec_.plane_pulling.planes.size()) : 0;
  setup.indentation = indentation_;
}

std::int64_t ProtocolSetup::pulling_every() const {
  const std::int64_t every = spec_.pulling.enabled ? spec_.pulling.output_every_steps : spec_.force_clamp.output_every_steps;
  return every > 0 ? every : spec_.output.energy_every_steps;
}
std::int64_t ProtocolSetup::plane_every() const {
  return spec_.plane_pulling.output_every_steps > 0 ? spec_.plane_pulling.output_every_steps
                                                    : spec_.output.energy_every_steps;
}
std::int64_t ProtocolSetup::indentation_every() const {
  return spec_.indentation.output_every_steps > 0 ? spec_.indentation.output_every_steps
                                                  : spec_.output.energy_every_steps;
}

const std::vector<std::string>& ProtocolSetup::pulling_columns() {
  static const std::vector<std::string> columns = {
      "step",       "time[ns]",   "base[nm]",   "end_to_end[nm]", "extension[nm]",
      "force_x[pN]", "force_y[pN]", "force_z[pN]", "force[pN]",      "force_along[pN]"};
  return columns;
}

std::vector<std::string> ProtocolSetup::plane_columns() const {
  std::vector<std::string> columns = {"step", "time[ns]", "plane[nm]"};
  for (std::size_t g = 0; g < spec_.plane_pulling.planes.size(); ++g)
    columns.push_back(fmt::format("force_plane{}[pN]", g));
  return columns;
}

const std::vector<std::string>& ProtocolSetup::indentation_columns() {
  static const std::vector<std::string> columns = {"step",     "time[ns]",         "base[nm]",
                                                   "tip[nm]",  "tip_x[nm]",        "tip_y[nm]",
                                                   "tip_z[nm]", "spring_force[pN]", "molecule_force[pN]",
                                                   "surface_force[pN]"};
  return columns;
}

std::vector<double> ProtocolSetup::pulling_row(std::int32_t r, const State& state,
                                               const std::vector<Vec3d>& tether_forces_kcal_per_mol_A) const {
  return pulling_row(r, state.step, end_to_end(state.position(r, ends_[0]), state.position(r, ends_[1])),
                     tether_forces_kcal_per_mol_A);
}

std::vector<double> ProtocolSetup::pulling_row(std::int32_t r, std::int64_t step, Vec3d end_to_end_A,
                                               const std::vector<Vec3d>& tether_forces_kcal_per_mol_A) const {
  const double h = spec_.langevin.timestep_tau;
  const double elapsed_tau = double(step - start_step_) * h;
  const Vec3d d = directions_[r];
  const Vec3d& e = end_to_end_A;
  Vec3d force{};
  double base_A = 0.0;
  if (spec_.pulling.enabled) {
    base_A = spec_.pulling.speed_A_per_tau * elapsed_tau;
    // Engine::tether_forces_kcal_per_mol_A() lists, replica by replica, the tethers that apply to it;
    // all of them are this protocol's springs on pulled beads.
    for (std::size_t k = tether_offsets_.at(r); k < tether_offsets_.at(r + 1); ++k)
      force += tether_forces_kcal_per_mol_A.at(k);
  } else {
    const double f = schedule_.at_step(step);
    force = (f * double(spec_.force_clamp.pulled_beads.size())) * d;
  }
  const double pN = units::pN_per_kcal_per_mol_A;
  return {tau_to_ns(double(step) * h),
          A_to_nm(base_A),
          A_to_nm(norm(e)),
          A_to_nm(dot(e, d)),
          force.x * pN,
          force.y * pN,
          force.z * pN,
          norm(force) * pN,
          dot(force, d) * pN};
}

std::vector<double> ProtocolSetup::plane_row(std::int32_t r, std::int64_t step,
                                             const std::vector<double>& plane_forces_kcal_per_mol_A) const {
  const double h = spec_.langevin.timestep_tau;
  const auto& planes = spec_.plane_pulling.planes;
  // The travel of the first moving plane (0 when all planes are static).
  double speed = 0.0;
  for (const PlaneSpec& p : planes)
    if (p.speed_A_per_tau != 0.0) {
      speed = p.speed_A_per_tau;
      break;
    }
  std::vector<double> row = {tau_to_ns(double(step) * h), A_to_nm(speed * double(step - start_step_) * h)};
  for (std::size_t g = 0; g < planes.size(); ++g)
    row.push_back(plane_forces_kcal_per_mol_A.at(std::size_t(r) * planes.size() + g) * units::pN_per_kcal_per_mol_A);
  return row;
}

std::vector<double> ProtocolSetup::indentation_row(std::int32_t /*r*/, std::int64_t step,
                                                   const IndentationStatus& st) const {
  const Indentation& ind = indentation_;
  const double h = spec_.langevin.timestep_tau;
  const Vec3d d = ind.direction;
  // Displacements along the direction relative to the surface: with move_surface the
  // surface travels toward the tip and the base stays, which is the same relative motion.
  const double surface_shift = ind.move_surface ? st.travel_A : 0.0;
  const double base_A = dot(st.base_A - ind.base_start_A, d) + surface_shift;
  const double tip_A = dot(st.tip_A - ind.tip_start_A, d) + surface_shift;
  const double pN = units::pN_per_kcal_per_mol_A;
  return {tau_to_ns(double(step) * h),
          A_to_nm(base_A),
          A_to_nm(tip_A),
          A_to_nm(st.tip_A.x),
          A_to_nm(st.tip_A.y),
          A_to_nm(st.tip_A.z),
          dot(st.spring_force_kcal_per_mol_A, d) * pN,
          -dot(st.molecule_force_kcal_per_mol_A, d) * pN,
          -dot(st.surface_force_kcal_per_mol_A, d) * pN};
}

// A tip drag above this is a large part of what a protein resists with (ProtocolSetup::describe).
constexpr double kLargeTipDrag_pN = 50.0;

std::vector<std::string> ProtocolSetup::describe() const {
  std::vector<std::string> lines;
  const double h = spec_.langevin.timestep_tau;
  auto beads_text = [](const std::vector<std::int32_t>& b) { return fmt::format("[{}]", fmt::join(b, ", ")); };
  auto direction_text = [&](const DirectionSpec& dir) {
    if (!dir.end_to_end) return fmt::format("along {}", vec_text(directions_[0]));
    std::string s = fmt::format("end-to-end {}→{} at the start", ends_[0], ends_[1]);
    s += fmt::format(", replica 0: {}", vec_text(directions_[0]));
    return s;
  };
  if (spec_.pulling.enabled) {
    const PullingSpec& p = spec_.pulling;
    const double loading_rate_pN_per_s = units::internal_spring_to_pN_per_nm(p.spring_kcal_per_mol_A2) *
                                         units::A_per_tau_to_um_per_s(p.speed_A_per_tau) * 1e3;
    lines.push_back(fmt::format(
        "pulling: beads {} on springs κ = {:.6g} pN/nm, base speed v = {:.6g} µm/s ({:.6g} Å per step), {}; "
        "ends {} {}; loading rate κv = {:.6g} pN/s{}; output every {} steps (pulling.tsv)",
        beads_text(p.pulled_beads), units::internal_spring_to_pN_per_nm(p.spring_kcal_per_mol_A2),
        units::A_per_tau_to_um_per_s(p.speed_A_per_tau), p.speed_A_per_tau * h, direction_text(p.direction),
        ends_[0], ends_[1], loading_rate_pN_per_s,
        // pulling.tsv's force sums the springs: it rises at m·κv (analysis/run_directory.h
        // reads κv first, then the beads, so the phrase after it is for the reader).
        p.pulled_beads.size() > 1
            ? fmt::format(" per spring, m·κv = {:.6g} pN/s for the sum of the {} springs' forces",
                          loading_rate_pN_per_s * double(p.pulled_beads.size()), p.pulled_beads.size())
            : std::string(),
        pulling_every()));
  }
  if (spec_.force_clamp.enabled) {
    const ForceClampSpec& c = spec_.force_clamp;
    std::string force;
    if (c.constant)
      force = fmt::format("{:.6g} pN", units::internal_force_to_pN(c.schedule.front().force_kcal_per_mol_A));
    else
      for (const auto& point : c.schedule)
        force += fmt::format("{}(step {}: {:.6g} pN)", force.empty() ? "schedule " : ", ", point.step,
                             units::internal_force_to_pN(point.force_kcal_per_mol_A));
    lines.push_back(fmt::format("force clamp: beads {}, each pulled with {}, {}; ends {} {}; output every {} steps "
                                "(pulling.tsv)",
                                beads_text(c.pulled_beads), force, direction_text(c.direction), ends_[0], ends_[1],
                                pulling_every()));
  }
  if (spec_.plane_pulling.enabled)
    for (std::size_t g = 0; g < spec_.plane_pulling.planes.size(); ++g) {
      const PlaneSpec& p = spec_.plane_pulling.planes[g];
      lines.push_back(fmt::format("plane {}: {} beads, normal {}, speed {:.6g} µm/s, κ = {:.6g} pN/nm per bead; output "
                                  "every {} steps (plane.tsv)",
                                  g, p.beads.size(), vec_text(unit(p.normal)), units::A_per_tau_to_um_per_s(p.speed_A_per_tau),
                                  units::internal_spring_to_pN_per_nm(p.spring_kcal_per_mol_A2), plane_every()));
    }
  if (spec_.indentation.enabled) {
    const IndentationSpec& in = spec_.indentation;
    const Indentation& ind = indentation_;
    // "ε[1(σ/ρ)¹² − 2(σ/ρ)⁶]": the wall's coefficients with their signs.
    auto wall_text = [](double a, double b) {
      return fmt::format("ε[{:g}(σ/ρ)¹² {} {:g}(σ/ρ)⁶]", a, b < 0 ? "−" : "+", std::abs(b));
    };
    lines.push_back(fmt::format(
        "indentation: tip R = {:.6g} nm at {} Å, ζ_tip = {:.6g}, base at {} Å moving {:.6g} µm/s along {}, κ = {:.6g} "
        "pN/nm; tip {} σ = {:.6g} Å ε = {:.6g} kcal/mol; {}{}; output every {} steps "
        "(indentation.tsv)",
        in.tip_radius_A / units::A_per_nm, vec_text(in.tip_position_A, 6), in.tip_friction,
        vec_text(in.base_position_A, 6), units::A_per_tau_to_um_per_s(in.speed_A_per_tau), vec_text(ind.direction),
        units::internal_spring_to_pN_per_nm(in.spring_kcal_per_mol_A2), wall_text(in.tip.A, in.tip.B), in.tip.sigma_A,
        in.tip.epsilon_kcal_per_mol,
        in.retract == RetractAt::kNever   ? "no retraction"
        : in.retract == RetractAt::kDepth ? fmt::format("retraction after {:.6g} nm of base travel",
                                                        in.retract_depth_A / units::A_per_nm)
        : in.retract == RetractAt::kForce
            ? fmt::format("retraction at {:.6g} pN", units::internal_force_to_pN(in.retract_force_kcal_per_mol_A))
            : fmt::format("retraction at step {}", in.retract_step),
        in.move_surface ? ", the surface moves instead of the base" : "", indentation_every()));
    // Before contact the spring holds the tip against its friction: a force of ζ_tip·v that
    // the curve carries as an offset (docs/protocols.md#indentation), reached within a few
    // τ_t = ζ_tip/κ. At simulation speeds a large tip's default (Stokes) friction makes it
    // hundreds of pN.
    const double drag_pN = units::internal_force_to_pN(in.tip_friction * std::abs(in.speed_A_per_tau));
    const double relax_steps = in.tip_friction / in.spring_kcal_per_mol_A2 / spec_.langevin.timestep_tau;
    lines.push_back(fmt::format("indentation: before contact the spring drags the tip: ζ_tip·v = {:.3g} pN, reached "
                                "within ~3 ζ_tip/κ = {:.3g} steps{}",
                                drag_pN, 3 * relax_steps,
                                drag_pN > kLargeTipDrag_pN
                                    ? fmt::format("; note: that drag is large against the forces of a protein (above "
                                                  "{:g} pN): give a smaller indentation.tip_friction or a lower speed",
                                                  kLargeTipDrag_pN)
                                    : std::string()));
    // A retraction force within the free tip's range — the drag plus z sd of the spring's
    // thermal force, √(kT κ) by equipartition — turns the base on noise, before any contact.
    // The approach holds ~N = travel to contact / (v τ_t) independent samples of that force:
    // its largest is ~√(2 ln N) sd above the mean, more than 3 for a long, slow approach.
    if (in.retract == RetractAt::kForce) {
      const double thermal_pN =
          units::internal_force_to_pN(std::sqrt(spec_.temperature.start_kcal_per_mol * in.spring_kcal_per_mol_A2));
      const double retract_pN = units::internal_force_to_pN(in.retract_force_kcal_per_mol_A);
      // The approach's samples before contact, within the run's travel.
      const double free_travel_A =
          std::min(contact_travel_A_, std::abs(in.speed_A_per_tau) * spec_.langevin.timestep_tau *
                                          double(std::max<std::int64_t>(spec_.steps - start_step_, 0)));
      const double samples = geometry_known_ && std::isfinite(free_travel_A) && std::abs(in.speed_A_per_tau) > 0
                                 ? free_travel_A / (std::abs(in.speed_A_per_tau) * (in.tip_friction /
                                                                                    in.spring_kcal_per_mol_A2))
                                 : 0.0;
      const double z = samples > 1.0 ? std::max(3.0, std::sqrt(2.0 * std::log(samples))) : 3.0;
      if (retract_pN < drag_pN + z * thermal_pN)
        lines.push_back(fmt::format("indentation: note: retract_at_force_pN = {:.6g} pN lies within the free tip's "
                                    "range (drag {:.3g} pN + {:.3g} × √(kTκ) = {:.3g} pN, the largest of ~{:.2g} "
                                    "independent samples of its noise before contact): noise may turn the base before "
                                    "the tip touches the molecule; give a larger force",
                                    retract_pN, drag_pN, z, drag_pN + z * thermal_pN, std::max(samples, 1.0)));
    }
    if (in.move_surface && !spec_.fixed_beads.empty())
      lines.push_back("indentation: note: move_surface with [fixed] beads: the surface moves toward the tip while "
                      "the fixed beads stay where they are, so it drives into them (a FENE bond of theirs breaks); "
                      "move the base instead, or fix no beads");
    if (in.surface.enabled)
      lines.push_back(fmt::format("surface: {} through {} Å, normal {}, {} σ = {:.6g} Å ε = "
                                  "{:.6g} kcal/mol{}",
                                  in.surface.beads ? "grid of beads" : "plane", vec_text(in.surface.point_A, 6),
                                  vec_text(ind.surface.normal), wall_text(in.surface.wall.A, in.surface.wall.B),
                                  in.surface.wall.sigma_A, in.surface.wall.epsilon_kcal_per_mol,
                                  in.surface.beads ? fmt::format(", {}×{} beads {:.6g} Å apart", in.surface.grid_size,
                                                                 in.surface.grid_size, in.surface.spacing_A)
                                                   : std::string()));
  }
  return lines;
}

std::vector<std::string> ProtocolSetup::travel_warnings() const {
  std::vector<std::string> lines;
  // Default ends that are one bead (bead 0 pulled, none fixed): nothing to measure.
  if ((spec_.pulling.enabled || spec_.force_clamp.enabled) && ends_[0] == ends_[1]) {
    const std::string section = spec_.pulling.enabled ? "pulling" : "force_clamp";
    lines.push_back(fmt::format("warning: {0}: the end-to-end vector's default ends (the first fixed bead, or bead 0, "
                                "and the first pulled bead) are both bead {1}: the table's end_to_end and extension "
                                "columns stay 0; give {0}.ends = [i, j] to measure them",
                                section, ends_[0]));
  }
  // A force schedule that ends after the run: the clamp never gets to its last forces.
  if (spec_.force_clamp.enabled && !spec_.force_clamp.constant && !spec_.force_clamp.schedule.empty() &&
      spec_.force_clamp.schedule.back().step > spec_.steps)
    lines.push_back(fmt::format("note: force_clamp: the schedule's last point (step {}, {:.6g} pN) lies beyond the "
                                "run's {} steps: the run ends at {:.4g} pN",
                                spec_.force_clamp.schedule.back().step,
                                units::internal_force_to_pN(spec_.force_clamp.schedule.back().force_kcal_per_mol_A),
                                spec_.steps, units::internal_force_to_pN(schedule_.at_step(spec_.steps))));
  if (!spec_.indentation.enabled) return lines;
  const IndentationSpec& in = spec_.indentation;
  const double per_step_A = std::abs(in.speed_A_per_tau) * spec_.langevin.timestep_tau;
  if (!(per_step_A > 0)) return lines;
  // The base's travel before it turns: the whole run, or up to its retraction trigger.
  const double whole_A = per_step_A * double(std::max<std::int64_t>(spec_.steps - start_step_, 0));
  double approach_A = whole_A;
  std::string until = "over the run's steps";
  bool turns = true;  // within the run
  if (in.retract == RetractAt::kDepth && in.retract_depth_A < whole_A) {
    approach_A = in.retract_depth_A;
    until = "before retract_at_depth_nm turns it";
  } else if (in.retract == RetractAt::kStep && in.retract_step < spec_.steps) {
    approach_A = per_step_A * double(std::max<std::int64_t>(in.retract_step - start_step_, 0));
    until = "before retract_at_step turns it";
  } else {
    turns = false;
  }
  const double kappa_pN_per_nm = units::internal_spring_to_pN_per_nm(in.spring_kcal_per_mol_A2);
  constexpr double kOverload_pN = 1000.0;
  const bool turns_below_overload = in.retract == RetractAt::kForce &&
                                    units::internal_force_to_pN(in.retract_force_kcal_per_mol_A) <= kOverload_pN;
  if (std::isfinite(surface_travel_A_) && kappa_pN_per_nm > 0 && !turns_below_overload) {
    // Where the tip stalls: on the substrate's wall, or — with the molecule under it — at
    // about half the molecule's thickness (a pressed molecule does not flatten; the λ
    // repressor's tip stalled at 3.4 nm of a 0.6–5.4 nm span). Past that, the spring's force
    // grows by κ per nm of travel.
    const bool molecule_between = geometry_known_ && contact_travel_A_ < surface_travel_A_;
    const double stall_A =
        molecule_between ? contact_travel_A_ + 0.5 * (surface_travel_A_ - contact_travel_A_) : surface_travel_A_;
    const double overload_A = stall_A + 10.0 * kOverload_pN / kappa_pN_per_nm;
    const bool sop = is_sopgpu_config(spec_.config_path);
    if (approach_A > overload_A)
      lines.push_back(fmt::format(
          "warning: indentation: the base travels {:.4g} nm {}, but the tip's surface reaches the substrate's wall "
          "after {:.4g} nm{}: past that the spring presses the tip{} onto the surface — about {:.0f} pN by the {}, a "
          "crushed molecule and a curve of the wall. Unless that is meant, {} = {:.3g} nm turns it below ~{:g} pN "
          "(docs/protocols.md#indentation)",
          approach_A / 10.0, until, surface_travel_A_ / 10.0,
          molecule_between ? fmt::format(", and stalls near {:.3g} nm on the molecule between", stall_A / 10.0)
                           : std::string(),
          molecule_between ? ", and the molecule under it," : "", kappa_pN_per_nm * (approach_A - stall_A) / 10.0,
          turns ? "turn" : "last step",
          sop ? "a turn after (fewer numsteps)" : "retract_at_depth_nm", std::floor(overload_A) / 10.0,
          kOverload_pN));
  }
  // Retraction triggers the run's steps never reach: the base never turns.
  if (in.retract == RetractAt::kDepth && in.retract_depth_A > whole_A)
    lines.push_back(fmt::format("note: indentation: retract_at_depth_nm = {:.6g} is beyond the base's travel over the "
                                "run's steps ({:.4g} nm): the base never turns",
                                in.retract_depth_A / 10.0, whole_A / 10.0));
  if (in.retract == RetractAt::kStep && in.retract_step >= spec_.steps)
    lines.push_back(fmt::format("note: indentation: retract_at_step = {} is not before the run's last step {}: the "
                                "base never turns",
                                in.retract_step, spec_.steps));
  if (!geometry_known_) return lines;
  if (!std::isfinite(contact_travel_A_))
    lines.push_back(fmt::format("note: indentation: the tip's path (radius {:g} Å along the direction) misses every "
                                "bead of replica 0: no bead lies ahead of it within its radius",
                                in.tip_radius_A));
  else if (approach_A < contact_travel_A_)
    lines.push_back(fmt::format("note: indentation: the base travels {:.4g} nm {}, but the tip's surface starts "
                                "{:.4g} nm from the molecule along the direction: no contact in this run (more "
                                "steps, a faster speed, or the tip closer)",
                                approach_A / 10.0, until, contact_travel_A_ / 10.0));
  return lines;
}

// ---------------------------------------------------------------------------------------
// Exact text encodings for Checkpoint::extra.

std::string encode_floats(const std::vector<float>& values) {
  std::string out;
  out.reserve(values.size() * 9);
  char buf[16];
  for (float v : values) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    std::snprintf(buf, sizeof buf, "%08" PRIx32, bits);
    if (!out.empty()) out += ' ';
    out += buf;
  }
  return out;
}

std::vector<float> decode_floats(const std::string& text, const std::string& what) {
  std::vector<float> out;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    char* end = nullptr;
    const unsigned long long bits = std::strtoull(word.c_str(), &end, 16);
    if (word.size() != 8 || *end != '\0') throw Error("checkpoint: " + what + ": malformed value \"" + word + "\"");
    const auto b = std::uint32_t(bits);
    float v;
    std::memcpy(&v, &b, sizeof v);
    out.push_back(v);
  }
  return out;
}

std::string encode_doubles(const std::vector<double>& values) {
  std::string out;
  char buf[24];
  for (double v : values) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    std::snprintf(buf, sizeof buf, "%016" PRIx64, bits);
    if (!out.empty()) out += ' ';
    out += buf;
  }
  return out;
}

std::vector<double> decode_doubles(const std::string& text, const std::string& what) {
  std::vector<double> out;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    char* end = nullptr;
    const unsigned long long bits = std::strtoull(word.c_str(), &end, 16);
    if (word.size() != 16 || *end != '\0') throw Error("checkpoint: " + what + ": malformed value \"" + word + "\"");
    const auto b = std::uint64_t(bits);
    double v;
    std::memcpy(&v, &b, sizeof v);
    out.push_back(v);
  }
  return out;
}

std::vector<float> gather_positions(const State& state, const std::vector<std::int32_t>& beads) {
  std::vector<float> out;
  out.reserve(std::size_t(state.replica_count) * beads.size() * 3);
  for (std::int32_t r = 0; r < state.replica_count; ++r)
    for (std::int32_t b : beads) {
      const Vec3f p = state.position(r, b);
      out.push_back(p.x);
      out.push_back(p.y);
      out.push_back(p.z);
    }
  return out;
}

State scatter_positions(const std::vector<float>& values, const std::vector<std::int32_t>& beads,
                        std::int32_t bead_count, std::int32_t replicas, std::int64_t step) {
  if (values.size() != std::size_t(replicas) * beads.size() * 3)
    throw Error("checkpoint: the protocol start positions hold " + std::to_string(values.size()) + " values, expected " +
                std::to_string(std::size_t(replicas) * beads.size() * 3));
  State s(bead_count, replicas);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::fill(s.x.begin(), s.x.end(), nan);
  std::fill(s.y.begin(), s.y.end(), nan);
  std::fill(s.z.begin(), s.z.end(), nan);
  s.step = step;
  std::size_t k = 0;
  for (std::int32_t r = 0; r < replicas; ++r)
    for (std::int32_t b : beads) {
      s.set_position(r, b, {values[k], values[k + 1], values[k + 2]});
      k += 3;
    }
  return s;
}

}  // namespace ermak
