#pragma once
// SOP-GPU topology-creation configurations (.sop files for `sop-top` and `sop-top2`),
// read into what `ermak topology FILE.sop` needs (docs/topology.md#sop-gpu-topology-creation-configs).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ermak/io/topology_builder.h"
#include "ermak/model/force_field.h"

namespace ermak {

// sop-top: C-alpha model from the structure alone; sop-top2: beads from a coarse-graining
// description (the config has `cgconfig`).
enum class SopTopologyStyle { SopTop, SopTop2 };

struct SopTopologyConfig {
  std::string source;  // the .sop file, for messages
  SopTopologyStyle style = SopTopologyStyle::SopTop;
  // Paths as written (macros expanded); relative ones are relative to the current
  // working directory, as in SOP-GPU.
  std::filesystem::path structure, topology, coordinates;
  std::filesystem::path cgconfig, additional_bonds, topology_psf, topology_natpsf;  // empty: none
  std::map<std::string, int> key_lines;  // where each key was given, for errors found later
  double r_limit_A = kNativeCutoff_A;          // R_limit_bond
  double sc_limit_A = 0.0;         // SC_limit_bond (SOP-GPU's default: 0 for sop-top, 5 for sop-top2)
  EpsilonSource eh_source = EpsilonSource::Constant;
  double eh_kcal_per_mol = 1.5;    // eh
  std::string eh_text = "1.5";
  // [ pairs ] of the .top: pairs closer than this in the native structure; nothing means
  // sop-top's default (1000 A) for sop-top and no [ pairs ] for sop-top2; <= 0: none.
  std::optional<double> pairs_threshold_A;
  std::optional<double> break_distance_A;  // covalent_cutoff
  // What ermak does with keys that have no effect here, one line each ("file:line: key: ...").
  std::vector<std::string> notes;
};

// Reads FILE: `name value` lines, `#` comments, `<key>` macros in values (any key of the
// file, expanded recursively), lines starting with a blank ignored as SOP-GPU ignores them.
// Throws ermak::Error "file:line: key: what" for an unknown key, a key given twice, a
// missing or malformed value, an undefined macro, a feature not supported yet (tandems,
// covalent linkers, covalentRepulsion on), and for missing required keys (structure,
// topology, coordinates; eh for sop-top2).
SopTopologyConfig read_sopgpu_topology_config(const std::filesystem::path& file);

}  // namespace ermak
