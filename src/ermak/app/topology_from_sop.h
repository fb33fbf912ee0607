#pragma once
// `ermak topology FILE.sop`: SOP-GPU topology-creation configs (sop-top and sop-top2
// styles), docs/topology.md#sop-gpu-topology-creation-configs.
#include <filesystem>

namespace ermak::app {

// Reads the config, builds the model and writes the files it names (paths relative to the
// current directory, as in SOP-GPU). Refuses to overwrite without `force`; prints a summary
// unless `quiet`. Returns the exit status; errors are thrown as ermak::Error.
int run_topology_from_sop(const std::filesystem::path& config, bool force, bool quiet);

}  // namespace ermak::app
