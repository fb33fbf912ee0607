// ProtocolSetup's tables: the steps between rows, the columns, and the rows of replica r
// (pulling.tsv, plane.tsv, indentation.tsv; docs/protocols.md).
#include "ermak/run/protocol_setup.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "ermak/core/units.h"

namespace ermak {
namespace {

double tau_to_ns(double t) { return units::tau_to_ns(t); }
double A_to_nm(double x) { return x / units::A_per_nm; }

}  // namespace

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

}  // namespace ermak
