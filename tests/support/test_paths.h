#pragma once
#include <filesystem>
#include <map>
#include <string>

namespace ermak::test {

// ../shared/data (or $ERMAK_SHARED_DATA): real inputs, used by path, never copied.
std::filesystem::path shared_data();
// The built `ermak` command, for end-to-end tests.
std::filesystem::path ermak_binary();
// Debian's python3 (numpy, MDAnalysis) for independent reference computations.
std::string python();
std::filesystem::path source_dir();
// A fresh, empty directory for one test, under the system temp dir.
std::filesystem::path fresh_directory(const std::string& name);
// Runs a shell command, returns its exit status; stdout+stderr go to `output`.
int run_command(const std::string& command, std::string* output = nullptr);
// `ermak ARGS`: its stdout+stderr; the exit status in *status.
std::string run_ermak(const std::string& args, int* status);
// `ermak ARGS` run in `dir` (SOP-GPU configurations name their files relative to it): its
// exit status; stdout+stderr go to `output`.
int run_ermak_in(const std::filesystem::path& dir, const std::string& args, std::string* output = nullptr);
// DIR/run.toml: SOP-GPU's WW domain (reference .top and PDB), 3 replicas, 4000 steps,
// outputs in DIR/out (energies every 500, frames and checkpoints every 1000), then `extra`.
std::filesystem::path write_ww_run_config(const std::filesystem::path& dir, unsigned seed,
                                          const std::string& extra = "");
// `file`: a minimal mmCIF of `residues` glycine C-alphas 3.8 Å apart along x, all in the
// chain `chain_id` (auth_asym_id; label_asym_id A), for structure-reader and run tests.
std::filesystem::path write_calpha_mmcif(const std::filesystem::path& file, const std::string& chain_id,
                                         int residues = 3);
// The whole file as bytes ("" when it cannot be read).
std::string read_file(const std::filesystem::path& path);
// Every regular file below `dir` (paths relative to it) with its bytes, and every
// directory (its path and a trailing "/", no bytes).
std::map<std::string, std::string> files_under(const std::filesystem::path& dir);

}  // namespace ermak::test
