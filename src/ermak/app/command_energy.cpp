#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "ermak/app/cli_checks.h"
#include "ermak/app/commands.h"
#include "ermak/backend/cpu/reference_energy.h"
#include "ermak/core/error.h"
#include "ermak/io/load_system.h"
#include "ermak/model/closest_pair.h"
#include "ermak/run/stability_checks.h"

namespace ermak::app {

Command add_energy_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "energy", "Single-point SOP energy (kcal/mol) of a structure: one line per term and the total");
  struct Options {
    InputSpec input;
    ModelBuildSpec build;
    SopParameters sop;
    bool forces = false;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--structure", o->input.structure, "All-atom PDB/mmCIF: builds the C-alpha SOP model as a run's [input] structure does "
                  "(C-alpha distances only; `ermak topology` adds the side-chain contact rule: give its model "
                  "as --topology for that one; docs/formats.md)");
  cmd->add_option("--topology", o->input.topology, "Topology: SOP-GPU .top or ermak .etop");
  cmd->add_option("--coordinates", o->input.coordinates, "Coarse-grained PDB with the bead coordinates");
  cmd->add_option("--pair-cutoff", o->sop.pair_cutoff_A, "Repulsion cutoff, Å")->check(positive_float())->capture_default_str();
  cmd->add_option("--sigma", o->sop.repulsion_sigma_A, "Repulsion radius σ, Å")->check(positive_float())->capture_default_str();
  cmd->add_option("--repulsion-energy", o->sop.repulsion_eps_kcal_per_mol,
                  "Repulsion energy ε_l, kcal/mol ([model] repulsion_energy_kcal_per_mol)")
      ->check(positive_float())
      ->capture_default_str();
  cmd->add_option("--fene-k", o->sop.fene_k_kcal_per_mol_A2, "FENE spring k, kcal/mol/Å²")->check(positive_float())->capture_default_str();
  cmd->add_option("--fene-R0", o->sop.fene_R0_A, "FENE maximum stretch R0, Å")->check(positive_float())->capture_default_str();
  cmd->add_flag("--forces", o->forces, "Also print the force on every bead (kcal/mol/Å)");
  return [o]() {
    if (o->input.structure.empty() == o->input.topology.empty())
      throw Error("energy: give either --structure or --topology (with --coordinates)");
    if (repulsion_cut_inside_sigma(o->sop))
      throw Error(fmt::format("energy: --pair-cutoff {:g} Å is not beyond --sigma {:g} Å: the repulsion would be "
                              "cut where it is ε_l or more, losing the excluded volume (docs/model.md#repulsion)",
                              o->sop.pair_cutoff_A, o->sop.repulsion_sigma_A));
    // The loader names run-configuration keys ("input.coordinates"); here they are options.
    LoadedSystem system;
    try {
      system = load_system(o->input, o->build);
    } catch (const Error& e) {
      if (e.field().rfind("input.", 0) != 0) throw;
      std::string description = e.description();
      for (const char* key : {"structure", "topology", "coordinates"})
        for (std::size_t at; (at = description.find(std::string("input.") + key)) != std::string::npos;)
          description.replace(at, 6 + std::string(key).size(), std::string("--") + key);
      throw Error(e.file(), e.line(), "--" + e.field().substr(6), description);
    }
    for (const auto& w : system.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    // A bond beyond r0 ± R0 has no FENE energy: say which, instead of printing nan.
    check_start_coordinates(system.topology, system.initial_positions_A, o->sop.fene_R0_A,
                            start_coordinates_source(o->input).string());
    const ReferenceEvaluation ref = evaluate_reference(system.topology, o->sop, system.initial_positions_A);
    const EnergyTerms& e = ref.energy;
    // Beads on top of each other make the r⁻⁶/r⁻¹² terms overflow: name the closest pair
    // instead of printing nan, and warn when one is closer than 1 Å.
    const ClosestPair closest = closest_pair(system.initial_positions_A);
    bool finite = std::isfinite(e.total());
    for (const Vec3d& f : ref.forces) finite = finite && std::isfinite(f.x) && std::isfinite(f.y) && std::isfinite(f.z);
    const std::string where = start_coordinates_source(o->input).string();
    if (!finite)
      throw Error(where, 0, "",
                  fmt::format("the energy is not finite: beads {} and {} are {:.3g} Å apart (the closest pair); "
                              "beads on top of each other have no SOP energy",
                              closest.i, closest.j, closest.distance_A));
    if (closest.distance_A < 1.0)
      std::fprintf(stderr, "warning: %s: beads %d and %d are %.3g Å apart (the closest pair): their terms dominate\n",
                   where.c_str(), closest.i, closest.j, closest.distance_A);
    std::printf("# ermak energy: %d beads, %zu bonds, %zu native contacts; kcal/mol, evaluated in double\n",
                system.topology.bead_count(), system.topology.bonds.size(),
                system.topology.native_contacts.size());
    std::printf("fene %.12g\nnative %.12g\nrepulsive %.12g\ntotal %.12g\n", e.fene, e.native,
                e.repulsive, e.total());
    if (o->forces) {
      std::printf("# force bead fx fy fz [kcal/mol/A]\n");
      for (std::size_t i = 0; i < ref.forces.size(); ++i)
        std::printf("force %zu %.10g %.10g %.10g\n", i, ref.forces[i].x, ref.forces[i].y, ref.forces[i].z);
    }
    return 0;
  };
}

}  // namespace ermak::app
