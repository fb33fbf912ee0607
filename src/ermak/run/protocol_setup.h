#pragma once
// From the protocol sections of a RunSpec ([pulling], [force_clamp], [plane_pulling],
// [indentation]; docs/protocols.md) to the engine's protocol data, once the run's start
// positions are known, and back from the engine's state to the rows of the per-replica
// protocol tables (pulling.tsv, plane.tsv, indentation.tsv).
//
// Resolution is a pure function of (spec, start positions of the reference beads, start
// step): a resumed run stores those positions in its checkpoint and resolves again to
// the identical EngineSetup, so it continues bit for bit.
//
// One class, defined over three files: protocol_setup.cpp (resolution and fill),
// protocol_rows.cpp (the tables' columns and rows), protocol_log_lines.cpp (the run-log
// lines). The checks of the protocol keys against the model are protocol_checks.h; the
// checkpoint's text encodings, checkpoint_codec.h.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ermak/backend/engine.h"
#include "ermak/config/spec.h"
#include "ermak/model/state.h"
#include "ermak/model/topology.h"

namespace ermak {

class ProtocolSetup {
 public:
  // Resolves the protocols of `spec` at the start positions `start` (all replicas; only
  // the reference beads are read) and the step `start.step`. With `validate`, checks the
  // start against the protocols (the tip must not hold beads inside it, beads must lie on
  // the molecule's side of the surface, end-to-end ends must not coincide); a resumed
  // run passes false (its start was checked when it began).
  ProtocolSetup(const RunSpec& spec, const Topology& topology, const State& start, bool validate = true);

  bool any() const { return pulling_file() || plane_file() || indentation_file(); }
  bool pulling_file() const { return spec_.pulling.enabled || spec_.force_clamp.enabled; }
  bool plane_file() const { return spec_.plane_pulling.enabled; }
  bool indentation_file() const { return spec_.indentation.enabled; }
  std::int64_t start_step() const { return start_step_; }

  // Copies the resolved tethers, forces, planes and indentation into `setup`.
  void fill(EngineSetup& setup) const;

  // Steps between rows of each table ([protocol] output_every, else [output] energy_every).
  std::int64_t pulling_every() const;
  std::int64_t plane_every() const;
  std::int64_t indentation_every() const;

  static const std::vector<std::string>& pulling_columns();
  std::vector<std::string> plane_columns() const;
  static const std::vector<std::string>& indentation_columns();

  // The row of replica r after the step column, in the columns' units, at the engine's
  // current state: `tether_forces_kcal_per_mol_A` is Engine::tether_forces_kcal_per_mol_A(),
  // `plane_forces_kcal_per_mol_A` Engine::plane_forces_kcal_per_mol_A(), `status`
  // Engine::indentation_status()[r].
  std::vector<double> pulling_row(std::int32_t r, const State& state,
                                  const std::vector<Vec3d>& tether_forces_kcal_per_mol_A) const;
  // The same from what the row needs of the state: the step and the vector from the first
  // to the second end bead (end_to_end of their positions), so that a stop for rows alone
  // need not copy every position back (Engine::bead_positions).
  std::vector<double> pulling_row(std::int32_t r, std::int64_t step, Vec3d end_to_end_A,
                                  const std::vector<Vec3d>& tether_forces_kcal_per_mol_A) const;
  static Vec3d end_to_end(Vec3f first_A, Vec3f second_A) { return vec_cast<double>(second_A) - vec_cast<double>(first_A); }
  std::vector<double> plane_row(std::int32_t r, std::int64_t step,
                                const std::vector<double>& plane_forces_kcal_per_mol_A) const;
  std::vector<double> indentation_row(std::int32_t r, std::int64_t step, const IndentationStatus& status) const;

  // Pulling/clamp direction of replica r (unit vector) and the two end beads.
  Vec3d direction(std::int32_t r) const { return directions_[r]; }
  std::int32_t end_first() const { return ends_[0]; }
  std::int32_t end_second() const { return ends_[1]; }

  // Human-readable lines for the run log (physical units).
  std::vector<std::string> describe() const;
  // Warnings for the run log about what the indentation's travel over the run's steps does
  // (docs/protocols.md#indentation): a base that presses the tip onto the surface beyond
  // 1000 pN before it turns, a travel that never reaches the molecule, a tip whose path misses
  // it (replica 0's start).
  std::vector<std::string> travel_warnings() const;

 private:
  const RunSpec& spec_;
  std::int32_t replicas_ = 1;
  std::int64_t start_step_ = 0;
  std::int32_t ends_[2] = {0, 0};
  std::vector<Vec3d> directions_;  // per replica (pulling or force clamp)
  std::vector<HarmonicTether> tethers_;
  std::vector<std::size_t> tether_offsets_;  // replica r's entries in Engine::tether_forces_kcal_per_mol_A()
  std::vector<ExternalForce> external_forces_;
  ForceSchedule schedule_;
  std::vector<PlaneTether> plane_tethers_;
  Indentation indentation_;
  // Replica 0's start, along the indentation's direction: the base travel at which the tip's
  // surface first touches a bead, and at which it reaches the substrate (∞: never).
  double contact_travel_A_ = std::numeric_limits<double>::infinity();
  double surface_travel_A_ = std::numeric_limits<double>::infinity();
  bool geometry_known_ = false;  // a resumed run's start holds only the reference beads
};

}  // namespace ermak
