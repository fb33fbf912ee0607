#pragma once
// The human-readable summary of `ermak topology` (<name>_summary.txt and the terminal).
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "ermak/io/assembly.h"
#include "ermak/io/structure_model.h"
#include "ermak/io/topology_builder.h"

namespace ermak {

struct TopologyRunInfo {
  std::filesystem::path input;
  std::string name;
  TopologyOptions options;
  std::string eh_text;                        // as given: "1.5", "B", "O"
  std::vector<ExpansionReport> expansions;    // in the order applied
  std::vector<std::pair<std::string, std::filesystem::path>> outputs;  // what, where
  std::string pairs_note;                     // how [ pairs ] of the .top was handled
  double read_s = 0, expand_s = 0, build_s = 0, write_s = 0, total_s = 0;
};

// The summary text: input, model definition, beads, bonds by kind, native contacts by
// kind, repulsive pairs, chains, warnings, outputs and timing. With max_chains > 0 only
// that many chain lines are listed (the terminal); 0 lists every chain (the file).
std::string format_topology_summary(const StructureModel& model, const BuiltTopology& built,
                                    const TopologyRunInfo& info, std::size_t max_chains = 0);

}  // namespace ermak
