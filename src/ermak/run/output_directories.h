#pragma once
// The directories a run writes into ([output] directory, and a SOP-GPU configuration's
// checkpoint and log places): checked before anything is written, so that a path through
// a file or into a read-only tree is an error naming the configuration key, for a run and
// for its dry run alike, not a file-system exception after the model was built.
#include <filesystem>
#include <string>

#include "ermak/config/spec.h"

namespace ermak {

// Throws key_error(spec, key, …) unless `dir` is a directory this process may write into,
// or can be made one: its nearest existing ancestor must be a writable directory.
void check_output_directory(const RunSpec& spec, const std::filesystem::path& dir, const std::string& key);

// check_output_directory, then creates it (and its parents).
void make_output_directory(const RunSpec& spec, const std::filesystem::path& dir, const std::string& key);

}  // namespace ermak
