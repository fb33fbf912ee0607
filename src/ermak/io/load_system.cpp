#include "ermak/io/load_system.h"

#include <algorithm>
#include <cctype>

#include "ermak/core/error.h"
#include "ermak/io/ca_model_builder.h"
#include "ermak/io/pdb_coordinates.h"
#include "ermak/io/sopgpu_top.h"
#include "ermak/io/topology_file.h"

namespace ermak {
namespace {

std::string lower_extension(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

std::vector<Vec3d> coordinates_for(const std::filesystem::path& coordinates, const Topology& topology,
                                   const std::filesystem::path& topology_source) {
  std::vector<Vec3d> positions = read_pdb_coordinates(coordinates);
  if (static_cast<std::int64_t>(positions.size()) != topology.bead_count())
    throw Error(coordinates.string(), 0, "coordinates",
                "has " + std::to_string(positions.size()) + " atoms but the topology " +
                    topology_source.string() + " has " + std::to_string(topology.bead_count()) +
                    " beads");
  return positions;
}

}  // namespace

std::filesystem::path start_coordinates_source(const InputSpec& input) {
  return !input.coordinates.empty() ? input.coordinates : !input.structure.empty() ? input.structure : input.topology;
}

std::string replica_coordinates_field(std::int64_t replica) {
  return "input.replica_coordinates[" + std::to_string(replica) + "]";
}

LoadedSystem load_system(const InputSpec& input, const ModelBuildSpec& build, CaDistances distances) {
  // A directory given for a file: say so, not what its reader makes of it.
  auto not_a_directory = [](const std::filesystem::path& path, const std::string& key) {
    if (!path.empty() && std::filesystem::is_directory(path))
      throw Error(path.string(), 0, key, "is a directory; give a file");
  };
  not_a_directory(input.structure, "input.structure");
  not_a_directory(input.topology, "input.topology");
  not_a_directory(input.coordinates, "input.coordinates");
  for (std::size_t r = 0; r < input.replica_coordinates.size(); ++r)
    not_a_directory(input.replica_coordinates[r], replica_coordinates_field(std::int64_t(r)));
  LoadedSystem system;
  std::string source;
  if (!input.structure.empty()) {
    source = input.structure.string();
    if (!input.topology.empty())
      system.warnings.push_back("input.topology " + input.topology.string() +
                                " ignored: input.structure is set");
    system.topology = build_ca_model(input.structure, build, &system.warnings, distances, input.chains);
    system.initial_positions_A = input.coordinates.empty()
                                     ? system.topology.native_positions_A
                                     : coordinates_for(input.coordinates, system.topology, input.structure);
  } else if (!input.topology.empty()) {
    source = input.topology.string();
    const std::string ext = lower_extension(input.topology);
    if (ext == ".top") {
      if (input.coordinates.empty())
        throw Error(source, 0, "input.coordinates",
                    "a SOP-GPU .top topology has no coordinates; set input.coordinates to a PDB "
                    "file with one ATOM record per bead");
      system.topology = read_sopgpu_top(input.topology, &system.warnings);
      system.initial_positions_A = coordinates_for(input.coordinates, system.topology, input.topology);
      system.topology.native_positions_A = system.initial_positions_A;
    } else if (ext == ".etop") {
      system.topology = read_topology_file(input.topology);
      if (!input.coordinates.empty()) {
        system.initial_positions_A = coordinates_for(input.coordinates, system.topology, input.topology);
      } else if (!system.topology.native_positions_A.empty()) {
        system.initial_positions_A = system.topology.native_positions_A;
      } else {
        throw Error(source, 0, "input.coordinates",
                    "the topology stores no coordinates; set input.coordinates");
      }
    } else {
      throw Error(source, 0, "input.topology",
                  "unknown topology format '" + ext + "'; expected .top (SOP-GPU) or .etop (ermak)");
    }
  } else {
    throw Error("", 0, "input", "set input.structure (PDB/mmCIF) or input.topology (.top/.etop)");
  }
  for (std::size_t r = 0; r < input.replica_coordinates.size(); ++r) {
    const std::filesystem::path& file = input.replica_coordinates[r];
    const std::string field = replica_coordinates_field(std::int64_t(r));
    if (!std::filesystem::exists(file))
      throw Error(file.string(), 0, field, "the initial coordinates of replica " + std::to_string(r) + " do not exist");
    try {
      system.replica_positions_A.push_back(coordinates_for(file, system.topology, input.topology));
    } catch (const Error& e) {
      // The reader names its field "coordinates"; this file is one replica's of many.
      if (e.file() != file.string() || !(e.field().empty() || e.field() == "coordinates")) throw;
      throw Error(e.file(), e.line(), field, e.description());
    }
  }
  if (!system.replica_positions_A.empty()) system.initial_positions_A = system.replica_positions_A.front();
  validate_topology(system.topology, source);
  // A model that holds together has a bond at every bead and native contacts; say so where
  // it does not (a topology cut short, a chain of one residue) rather than run it silently.
  const Topology& t = system.topology;
  if (t.bead_count() > 1) {
    const std::int32_t loose = count_unbonded_beads(t);
    if (loose > 0)
      system.warnings.push_back(source + ": " + std::to_string(loose) + " of " + std::to_string(t.bead_count()) +
                                " beads have no bond (chains of one residue, or a topology cut short?)");
    if (t.native_contacts.empty())
      system.warnings.push_back(source + ": the model has no native contacts: nothing holds its structure together");
  }
  return system;
}

}  // namespace ermak
