#pragma once
// The validated, resolved description of one run (DESIGN.md §3: input files → Spec).
// Every field is in internal units (Å, kcal/mol, τ_H) except where its name says
// otherwise; the TOML reader (config/toml_config.cpp and its section readers) converts the
// user's physical units once, here.
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/core/vec3.h"
#include "ermak/model/force_field.h"
#include "ermak/model/structure_observables.h"
#include "ermak/protocol/external_force.h"
#include "ermak/protocol/temperature_schedule.h"

namespace ermak {

// The most steps a run may take: the noise counter holds 48 bits of the step
// (docs/model.md#noise), beyond which Philox's numbers would repeat (2.8·10¹⁴ steps: 9 years
// at 10⁶ steps/s).
inline constexpr std::int64_t kMostRunSteps = std::int64_t(1) << 48;

// Where the model comes from: either an all-atom structure turned into a C-alpha SOP
// model, or a ready topology (ermak's own format or SOP-GPU .top) with coordinates.
struct InputSpec {
  std::filesystem::path structure;    // PDB/mmCIF, all-atom → C-alpha model
  std::filesystem::path topology;     // *.top (SOP-GPU) or *.etop (ermak), alternative to structure
  std::filesystem::path coordinates;  // PDB with initial coordinates (with `topology`)
  // One PDB per replica (replica r starts from replica_coordinates[r]) instead of
  // `coordinates` for all: SOP-GPU's per-run `coordinates .../<run>...`. Empty: all
  // replicas start from `coordinates` (or the structure).
  std::vector<std::filesystem::path> replica_coordinates;
  // With `structure`: only these chains, by their names in the file (docs/config.md#input--the-model);
  // empty: every chain.
  std::vector<std::string> chains;
};

// How a C-alpha model is built from `structure` (docs/model.md#native-contacts).
struct ModelBuildSpec {
  double native_cutoff_A = kNativeCutoff_A;            // C-alpha distance below which |i−j|>2 pairs are native
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
  std::int64_t checkpoint_every_steps = 100000;// 0: only at the start and the end
  double contact_formed_ratio = kDefaultContactFormedRatio;           // contact counts toward Q if r < ratio·r0
  // Not part of the TOML schema; set by the SOP-GPU reader (config/sopgpu_config.h), whose
  // runs write SOP-GPU's files instead of the directory unless asked (--ermak-output).
  bool write_directory = true;          // the directory's model/replica files and tables
  std::filesystem::path checkpoint_file;  // empty: directory/checkpoint.ckpt
  std::filesystem::path log_file;         // empty: directory/run.log
};

struct NeighborSpec {
  double skin_A = 3.0;  // Verlet-list skin; list rebuilt when a bead moves > skin/2
};

// ---------------------------------------------------------------------------------------
// Force-spectroscopy protocols (docs/protocols.md). Bead lists and the geometry are kept
// as the user gave them (directions not normalised, so that the resolved configuration
// reproduces them exactly); run/protocol_setup.h turns them into the engine's data
// once the run's start positions are known.

// Direction of pulling or of a force clamp: along the end-to-end vector of two beads at
// the start (per replica), or along a fixed vector.
struct DirectionSpec {
  bool end_to_end = true;
  Vec3d vector{};  // when !end_to_end; non-zero, normalised at resolution
};

// [pulling]: constant-velocity pulling with a cantilever spring (force ramp).
struct PullingSpec {
  bool enabled = false;
  std::vector<std::int32_t> pulled_beads;
  double speed_A_per_tau = 0.0;          // cantilever base speed v
  double spring_kcal_per_mol_A2 = 0.0;   // κ, one spring per pulled bead
  DirectionSpec direction;
  std::vector<std::int32_t> ends;        // {} (default) or {first, second}
  std::int64_t output_every_steps = 0;   // 0: [output] energy_every
};

// [force_clamp]: a force on every pulled bead (each bead gets the full force, as in
// SOP-GPU), constant or piecewise linear in the step.
struct ForceClampSpec {
  bool enabled = false;
  std::vector<std::int32_t> pulled_beads;
  std::vector<ForceSchedulePoint> schedule;  // one point at step 0: constant force
  bool constant = true;                      // given as force_pN (else schedule)
  DirectionSpec direction;
  std::vector<std::int32_t> ends;
  std::int64_t output_every_steps = 0;
};

// One [[plane_pulling.plane]].
struct PlaneSpec {
  std::vector<std::int32_t> beads;
  Vec3d normal{};                        // as given; normalised at resolution
  double speed_A_per_tau = 0.0;          // 0: a static plane
  double spring_kcal_per_mol_A2 = 0.0;
};

struct PlanePullingSpec {
  bool enabled = false;
  std::vector<PlaneSpec> planes;
  std::int64_t output_every_steps = 0;
};

// Shifted Lennard-Jones-like wall ε[A(σ/ρ)¹² + B(σ/ρ)⁶] of the tip and of the surface.
struct WallSpec {
  double A = 0.0, B = 1.0;
  double sigma_A = 1.0;
  double epsilon_kcal_per_mol = 1.0;
};

struct IndentationSurfaceSpec {
  bool enabled = false;
  bool beads = false;                  // type = "beads" (a square grid), else "plane"
  Vec3d point_A{};
  Vec3d normal{};                      // as given, toward the molecule
  WallSpec wall{1.0, -2.0, 10.0, 0.2};
  double spacing_A = 10.0;
  std::int32_t grid_size = 0;
  bool tip_interaction = true;         // the tip feels the surface too (SOP-GPU: no)
};

enum class RetractAt { kNever, kDepth, kForce, kStep };

// [indentation]: a spherical tip on a cantilever spring against a surface.
struct IndentationSpec {
  bool enabled = false;
  double tip_radius_A = 0.0;
  double tip_friction = 0.0;           // ζ_tip, kcal/mol·τ_H/Å²; default ζ·R_tip/3.8 Å (Stokes)
  Vec3d tip_position_A{};
  Vec3d base_position_A{};             // default: the tip position
  Vec3d direction{};                   // as given; normalised at resolution
  double spring_kcal_per_mol_A2 = 0.0;
  double speed_A_per_tau = 0.0;
  WallSpec tip{0.0, 1.0, 1.0, 1.0};
  bool tip_along_direction_only = true;
  RetractAt retract = RetractAt::kNever;
  double retract_depth_A = 0.0;
  double retract_force_kcal_per_mol_A = 0.0;
  std::int64_t retract_step = 0;
  bool move_surface = false;
  std::int64_t output_every_steps = 0;
  IndentationSurfaceSpec surface;
};

// The most CPU threads a run may ask for (run.threads, `ermak run --threads`).
constexpr int kMaxCpuThreads = 1024;

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
  std::string backend = "auto";          // "auto": CUDA when built with it and a GPU answers, else CPU
  int threads = 0;                        // 0: all available; at most kMaxCpuThreads
  int device = -1;                        // CUDA GPU index; −1: $ERMAK_CUDA_DEVICE, else 0
  // Several GPUs sharing the replicas (device = [0, 1, …]; docs/gpu.md#several-gpus): the
  // list as given, or every GPU the run sees (device = "all"); then `device` is unused.
  std::vector<int> devices;
  bool all_devices = false;
  std::string cuda_kernels = "auto";      // CUDA kernel family: "auto", "block", "perbead" (docs/gpu.md)
  // Generator of the beads' thermal noise (docs/rng.md#choosing-the-generator-of-a-run):
  // a name of rng::generator_names() and a layout it supports ("per_thread" or "shared"),
  // resolved to the generator's default when not given.
  std::string rng = "philox";
  std::string rng_layout = "per_thread";
  PullingSpec pulling;
  ForceClampSpec force_clamp;
  PlanePullingSpec plane_pulling;
  IndentationSpec indentation;
  // Where keys that are checked only once the model is loaded (bead indices, the tip
  // against the start positions) were given, for messages "file:line: key: …": the
  // configuration file or "--set" (line 0). Keys absent here were defaults.
  struct KeySource {
    std::string file;
    int line = 0;
    std::string written_as;  // the key as that file names it, where not the TOML key (a .sop file's)
  };
  std::map<std::string, KeySource> key_sources;
  // The --set overrides as given ("run.steps=3000000"), in order: a stopped run's message
  // repeats them for the --resume that continues it.
  std::vector<std::string> set_overrides;
  // A SOP-GPU configuration's keys by the TOML key each became ("pulling.speed_A_per_tau" →
  // "deltax"), for messages about keys that are not in key_sources; empty for TOML.
  std::map<std::string, std::string> file_key_names;
  // Bead lists given with residue selections (docs/config.md#bead-selections), by key
  // ("fixed.beads", "pulling.pulled_beads", "plane_pulling.plane[1].beads"): their items as
  // written — "75", "A:76", "A:1-10:*" — in order. Until run/bead_lists.h resolves them
  // against the model, the key's index list is empty.
  std::map<std::string, std::vector<std::string>> bead_selections;
  std::string resolved_toml;              // the resolved configuration, echoed into the log
  // Other forms of resolved_toml that earlier versions fingerprinted for the same run, so
  // that their checkpoints still resume (a .sop run's output files by absolute path,
  // before 2026-11-29).
  std::vector<std::string> earlier_resolved_toml;
  std::vector<std::string> notes;         // logged at the start (e.g. SOP-GPU keys without effect)
};

// An Error about a configuration key ("run.steps", "fixed.beads"), located where the key
// was given (RunSpec::key_sources: the file and line, or "--set"), else at the file;
// `shown_key` names it as the user wrote it where that differs (a .sop file's numsteps).
// Of keys that make a problem together, the one to name: one a --set override gave (the
// user's latest word), else the first.
inline std::string blamed_key(const RunSpec& spec, std::initializer_list<const char*> keys) {
  for (const char* key : keys)
    if (const auto it = spec.key_sources.find(key); it != spec.key_sources.end() && it->second.file == "--set")
      return key;
  return *keys.begin();
}

inline Error key_error(const RunSpec& spec, const std::string& key, const std::string& what,
                       const std::string& shown_key = "") {
  const auto it = spec.key_sources.find(key);
  if (it != spec.key_sources.end())
    return Error(it->second.file, it->second.line,
                 !shown_key.empty() ? shown_key : !it->second.written_as.empty() ? it->second.written_as : key, what);
  return Error(spec.config_path.string(), 0, shown_key.empty() ? key : shown_key, what);
}

// How a SOP-GPU configuration names the setting that became `key` ("deltax" for
// "pulling.speed_um_per_s"), or "" (a TOML configuration, a default). The resolved
// configuration may show a key in another unit form than the one the .sop became
// (speed_um_per_s, speed_A_per_tau): a key of the same table and stem (the name before
// its first '_') matches when it is the only one.
inline std::string key_as_written(const RunSpec& spec, const std::string& key) {
  if (const auto it = spec.file_key_names.find(key); it != spec.file_key_names.end()) return it->second;
  const auto dot = key.rfind('.');
  const std::string table = dot == std::string::npos ? "" : key.substr(0, dot + 1);
  const std::string stem = key.substr(table.size(), key.find('_', table.size()) - table.size());
  std::string found;
  int matches = 0;
  for (const auto& [field, written] : spec.file_key_names)
    if (field.rfind(table, 0) == 0 && field.find('.', table.size()) == std::string::npos &&
        field.substr(table.size(), field.find('_', table.size()) - table.size()) == stem) {
      found = written;
      ++matches;
    }
  return matches == 1 ? found : "";
}

}  // namespace ermak
