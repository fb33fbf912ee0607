#include "ermak/run/model_files.h"

#include "ermak/io/pdb_coordinates.h"
#include "ermak/io/psf_writer.h"
#include "ermak/io/topology_file.h"

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

}  // namespace ermak
