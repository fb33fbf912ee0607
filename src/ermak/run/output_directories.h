#pragma once
// Where a run writes, checked before anything is written: the directories ([output]
// directory, a SOP-GPU configuration's checkpoint, log and output places), so that a path
// through a file or into a read-only tree is an error naming the configuration key, for a
// run and for its dry run alike, not a file-system exception after the model was built;
// and the files a resumed run continues.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ermak/config/spec.h"

namespace ermak {

// Throws key_error(spec, key, …) unless `dir` is a directory this process may write into,
// or can be made one: its nearest existing ancestor must be a writable directory.
void check_output_directory(const RunSpec& spec, const std::filesystem::path& dir, const std::string& key);

// Throws key_error naming the input key (input.structure, input.topology, …; for the
// configuration itself, its path) when an input of the run is one of `run_files`, the
// files this run writes or --force removes (through links either way): writing the
// model's model.pdb over the all-atom model.pdb it was built from would lose it.
void check_inputs_are_not_run_files(const RunSpec& spec, const std::vector<std::filesystem::path>& run_files);

// check_output_directory, then creates it (and its parents).
void make_output_directory(const RunSpec& spec, const std::filesystem::path& dir, const std::string& key);

// A resumed run continues `file` from `offset` (its size at the checkpoint): throws
// ermak::Error naming the file unless it is a regular file of at least that size. (The
// writers' append() checks more — headers, whole frames — when they reopen it.)
void check_file_to_continue(const std::filesystem::path& file, std::uint64_t offset);

}  // namespace ermak
