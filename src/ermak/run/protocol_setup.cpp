#include "ermak/run/protocol_setup.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "ermak/core/error.h"
#include "ermak/physics/langevin_step.h"
#include "ermak/physics/tip.h"
#include "ermak/run/protocol_checks.h"
#include "ermak/run/protocol_setup_detail.h"

namespace ermak {
namespace {

using protocol_setup_detail::default_ends;
using protocol_setup_detail::unit;
using protocol_setup_detail::vec_text;

Vec3d position(const State& s, std::int32_t r, std::int32_t bead) {
  return vec_cast<double>(s.position(r, bead));
}

std::string bead_name(const Topology& t, std::int32_t i) {
  const BeadInfo& b = t.beads[i];
  return fmt::format("bead {} ({} {}{} chain {})", i, b.residue_name, b.residue_number,
                     b.insertion_code == ' ' ? "" : std::string(1, b.insertion_code), b.chain_id);
}

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

}  // namespace

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

}  // namespace ermak
