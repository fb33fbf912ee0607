#include "ermak/run/model_files.h"

#include "ermak/core/error.h"
#include "ermak/io/pdb_coordinates.h"
#include "ermak/io/psf_writer.h"
#include "ermak/io/topology_file.h"
#include "ermak/run/config_fingerprint.h"

namespace ermak {
namespace fs = std::filesystem;

std::vector<std::string> write_model_files(const fs::path& dir, const Topology& topology,
                                           const std::vector<Vec3d>& input_positions_A, bool only_missing) {
  std::vector<std::string> written;
  auto wanted = [&](const char* name) {
    if (only_missing && fs::exists(dir / name)) return false;
    written.emplace_back(name);
    return true;
  };
  if (wanted("model.psf")) write_psf(dir / "model.psf", topology, false, true);
  if (wanted("model.etop")) write_topology_file(topology, dir / "model.etop");
  if (wanted("model.pdb")) {
    const std::size_t n = input_positions_A.size();
    std::vector<float> x(n), y(n), z(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = float(input_positions_A[i].x);
      y[i] = float(input_positions_A[i].y);
      z[i] = float(input_positions_A[i].z);
    }
    write_pdb(dir / "model.pdb", topology, x.data(), y.data(), z.data(), "ermak initial coordinates");
  }
  return written;
}

void check_kept_model_file(const fs::path& dir, const Topology& topology) {
  const fs::path file = dir / "model.etop";
  if (!fs::exists(file)) return;
  const std::string remedy = "it is this run's copy of its model, which `ermak analyze` reads: remove it and resume "
                             "again, and the run writes it anew (docs/outputs.md#resume)";
  std::string problem;
  try {
    const Topology kept = read_topology_file(file);
    if (model_fingerprint(kept) != model_fingerprint(topology)) {
      const std::string size = model_summary(kept), runs = model_summary(topology);
      problem = "holds another model than the run's (" +
                (size == runs ? "of the same size, " + size + ", with other names or parameters"
                              : size + " against the run's " + runs) +
                ")";
    }
  } catch (const Error& e) {
    problem = std::string("does not read as a model (") + e.what() + ")";
  }
  if (!problem.empty()) throw Error(file.string() + ": " + problem + "; " + remedy);
}

}  // namespace ermak
