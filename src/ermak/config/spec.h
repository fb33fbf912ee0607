#pragma once
// The validated, resolved description of one run (DESIGN.md §3: input files → Spec).
// Every field is in internal units (Å, kcal/mol, τ_H) except where its name says
// otherwise; config/toml_config.cpp converts the user's physical units once, here.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ermak/model/force_field.h"
#include "ermak/protocol/temperature_schedule.h"

namespace ermak {

// Where the model comes from: either an all-atom structure turned into a C-alpha SOP
// model, or a ready topology (ermak's own format or SOP-GPU .top) with coordinates.
struct InputSpec {
  std::filesystem::path structure;    // PDB/mmCIF, all-atom → C-alpha model
  std::filesystem::path topology;     // *.top (SOP-GPU) or *.etop (ermak), alternative to structure
  std::filesystem::path coordinates;  // PDB with initial coordinates (with `topology`)
};

// How a C-alpha model is built from `structure` (docs/model.md#native-contacts).
struct ModelBuildSpec {
  double native_cutoff_A = 8.0;            // C-alpha distance below which |i−j|>2 pairs are native
  double native_energy_kcal_per_mol = 1.5; // ε_h of every native contact
  double chain_break_A = 4.5;              // consecutive C-alpha farther apart: no bond
};

struct MinimizeSpec {
  std::int64_t max_steps = 0;                  // 0: no minimisation
  double force_tolerance_kcal_per_mol_A = 0.1; // stop when max |F| is below
  double max_displacement_A = 0.1;             // largest move of a bead per iteration
};

struct OutputSpec {
  std::filesystem::path directory = "ermak-output";
  std::int64_t energy_every_steps = 1000;      // TSV rows
  std::int64_t trajectory_every_steps = 10000; // DCD frames; 0 disables
  std::int64_t checkpoint_every_steps = 100000;// 0: only at the end
  double contact_formed_ratio = 1.5;           // contact counts toward Q if r < ratio·r0
};

struct NeighborSpec {
  double skin_A = 3.0;  // Verlet-list skin; list rebuilt when a bead moves > skin/2
};

struct RunSpec {
  std::filesystem::path config_path;  // for messages and relative paths
  InputSpec input;
  ModelBuildSpec model_build;
  SopParameters sop;
  LangevinParameters langevin;        // temperature here is the schedule's start value
  TemperatureSchedule temperature;
  MinimizeSpec minimize;
  OutputSpec output;
  NeighborSpec neighbor;
  std::int64_t steps = 100000;
  std::uint64_t seed = 1;
  std::int32_t replicas = 1;
  std::vector<std::int32_t> fixed_beads;  // 0-based bead indices
  std::string backend = "cpu";
  int threads = 0;                        // 0: all available
  std::string resolved_toml;              // the resolved configuration, echoed into the log
};

}  // namespace ermak
