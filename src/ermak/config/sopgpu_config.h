#pragma once
// SOP-GPU run configurations (`ermak run FILE.sop`, docs/migrating-from-sop-gpu.md):
// `name value...` lines with `#` comments and `<name>` macros, read into the same
// validated RunSpec as a TOML configuration, plus the SOP-GPU output files the run writes
// under the names the configuration gives (run/sopgpu_outputs.h).
//
// Values in a .sop file are already in ermak's internal units (Å, kcal/mol, τ_H,
// kcal/mol/Å for forces), so nothing is converted. Every key of SOP-GPU's documentation
// has one entry in sopgpu_run_keys(): mapped to a RunSpec field, accepted with a logged
// note that it has no effect in ermak, or rejected as not supported yet; any other key is
// an error naming file and line.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ermak/config/spec.h"
#include "ermak/model/force_field.h"

namespace ermak {

// ---------------------------------------------------------------------------------------
// The key table: one place that says what ermak does with each SOP-GPU key. The
// documentation's table (docs/migrating-from-sop-gpu.md) lists the same keys; a unit test
// keeps the two in step.

enum class SopKeyKind {
  kMapped,    // sets a RunSpec field or an output file
  kNoEffect,  // accepted; a note in the run log says why it has no effect in ermak
  kRejected,  // a feature ermak does not have yet: "not supported yet"
};

enum class SopValueType { kInteger, kReal, kYesNo, kVector, kIntegerList, kWord };

struct SopKeyInfo {
  std::string_view key;
  SopKeyKind kind;
  SopValueType type;
  std::string_view ermak;  // the TOML key (or output) it maps to, or why it has no effect
};

const std::vector<SopKeyInfo>& sopgpu_run_keys();

// ---------------------------------------------------------------------------------------
// The parsed file.

// One `name value...` line after macro expansion. `file` is the configuration (or "--set"
// for a command-line override, line 0).
struct SopEntry {
  std::string key;
  std::string raw_value;  // as written, without the comment
  std::string value;      // macros other than <run> expanded
  std::string file;
  int line = 0;
};

// Reads the lines of `file` and applies `overrides` ("key=value", `ermak run --set`):
// an override replaces the value of a key given in the file or adds the key. Errors name
// file:line: a line without a value, a key given twice, a macro that names no key. A line
// that starts with a blank is skipped, as SOP-GPU's reader skips it, with a note in `notes`.
std::vector<SopEntry> read_sop_entries(std::string_view text, const std::string& file,
                                       const std::vector<std::string>& overrides = {},
                                       std::vector<std::string>* notes = nullptr);

// ---------------------------------------------------------------------------------------
// The run.

// Output files of one run (replica) with the configuration's names, <run> expanded.
struct SopRunFiles {
  std::string run;                      // the run number as it appears in file names
  std::filesystem::path energy;         // outputname
  std::filesystem::path trajectory;     // DCDfile
  std::filesystem::path restart_pdb;    // restartname + ".pdb"
  std::filesystem::path final_pdb;      // finalcoord
  std::filesystem::path pulling;        // pullOutput (empty: no pulling file)
  std::filesystem::path indentation;    // indentationOutput (empty: no indentation)
};

struct SopOutputs {
  std::int64_t energy_every = 10000;       // outputtiming
  std::int64_t trajectory_every = 10000;   // dcdfreq
  std::int64_t restart_every = 100000;     // restartfreq
  std::int64_t pulling_every = 0;          // pullFreq (default nav); 0: no pulling file
  std::int64_t indentation_every = 0;      // indentationOutputFreq; 0: no indentation file
  double pulling_spring = 0.0;             // k_trans, kcal/mol/Å² (to write the spring force)
  double native_count_cutoff_A = kNativeCutoff_A;      // R_limit_bond: a native contact counts if r < this …
  double native_count_tolerance_A = 2.0;   // … or |r − r0| ≤ R_limit (SOP-GPU's Native# column)
  std::filesystem::path reference_pdb;     // reffilename
  std::filesystem::path checkpoint;        // ermak's checkpoint, next to the restart files
  std::filesystem::path log;               // ermak's run log, next to the checkpoint
  std::vector<SopRunFiles> runs;           // one per replica
};

struct SopRun {
  RunSpec spec;
  SopOutputs outputs;
  bool ermak_outputs = false;            // also write ermak's own output directory
  std::vector<std::string> notes;        // keys without effect, differences; for the run log
  RunSpec::KeySource coordinates_source; // where `coordinates` was given (for missing-file errors)
};

struct SopLoadOptions {
  std::vector<std::string> overrides;           // --set key=value
  std::optional<std::filesystem::path> ermak_output_directory;  // --ermak-output DIR
  std::string backend;                          // "" (cuda when available, else cpu), "cpu", "cuda"
  int threads = 0;
  bool resume = false;  // a missing seed is then taken from the checkpoint
};

// Reads `file` into a RunSpec and the SOP-GPU outputs. Relative paths in the file resolve
// against the current working directory, as in SOP-GPU.
SopRun load_sopgpu_run(const std::filesystem::path& file, const SopLoadOptions& options = {});
SopRun parse_sopgpu_run(std::string_view text, const std::filesystem::path& file,
                        const SopLoadOptions& options = {});

// True when `file` names a SOP-GPU configuration (extension .sop, any case).
bool is_sopgpu_config(const std::filesystem::path& file);

}  // namespace ermak
