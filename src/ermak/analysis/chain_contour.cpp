#include "ermak/analysis/chain_contour.h"

#include <system_error>

#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/io/topology_file.h"
#include "ermak/model/bonded_paths.h"

namespace ermak::analysis {

namespace {

// The run's model, where it is there, readable and holds both beads (a note the analysis can
// do without otherwise).
std::optional<Topology> model_of(const std::filesystem::path& run_dir, int from, int to) {
  const std::filesystem::path file = run_dir / "model.etop";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  Topology topology;
  try {
    topology = read_topology_file(file);
  } catch (const Error&) {
    return std::nullopt;
  }
  const int n = topology.bead_count();
  if (from < 0 || to < 0 || from >= n || to >= n || from == to) return std::nullopt;
  return topology;
}

}  // namespace

ChainBetween chain_between(const std::filesystem::path& run_dir, int from, int to) {
  const std::optional<Topology> topology = model_of(run_dir, from, to);
  if (!topology) return {};
  const double length_A = bonded_contour_length_A(*topology, from, to);
  if (!(length_A > 0.0)) return {std::nullopt, true};  // no chain of bonds joins them
  return {length_A / units::A_per_nm, false};
}

std::optional<double> contour_length_between_nm(const std::filesystem::path& run_dir, int from, int to) {
  return chain_between(run_dir, from, to).contour_nm;
}

}  // namespace ermak::analysis
