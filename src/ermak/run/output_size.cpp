#include "ermak/run/output_size.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <system_error>
#include <vector>

#include "ermak/core/byte_size.h"
#include "ermak/io/pdb_coordinates.h"
#include "ermak/rng/noise_source.h"
#include "ermak/run/protocol_setup.h"

namespace ermak {
namespace fs = std::filesystem;

namespace {

// "%.8g" values run to 3–14 characters ("300", "123.45678", "-1.2345678e-05"), plus the
// tab; the energy and pulling tables of WW and λ-repressor runs average 9.8–10 (measured),
// so 11 errs on the side of more.
constexpr double kBytesPerTsvValue = 11.0;

// Rows of a table written every `every` steps from first to last: the stops at its
// multiples and the row a last step off the interval adds.
double table_rows(std::int64_t every, std::int64_t first, std::int64_t last, bool resume) {
  if (every <= 0) return 0;
  return stops_at_multiples(every, first, last, resume) + (last % every != 0 && last > first ? 1 : 0);
}

double row_bytes(std::size_t value_columns, std::int64_t last_step) {
  return double(fmt::format("{}", last_step).size()) + 1 + kBytesPerTsvValue * double(value_columns);
}

}  // namespace

OutputSizeEstimate estimate_output_size(const RunSpec& spec, const ProtocolSetup* protocol, std::int32_t beads,
                                        std::int64_t first_step, std::int64_t last_step, bool resume,
                                        std::size_t native_contacts) {
  OutputSizeEstimate e;
  const double replicas = double(spec.replicas), n = double(beads);
  // Positions and the neighbour lists' reference positions (float x, y, z each), a line of
  // offsets per output file, the run's settings (at most the resolved configuration), and a
  // stateful generator's state (mt19937: 2500 bytes a bead).
  e.checkpoint = 24 * n * replicas + 64 * 4 * replicas + double(spec.resolved_toml.size());
  if (spec.rng != "philox") {
    const rng::GeneratorLayoutInfo noise = rng::generator_layout_info(spec.rng, spec.rng_layout, beads);
    e.checkpoint += replicas * (n * double(noise.state_bytes_per_thread) + double(noise.state_bytes_shared));
  }
  if (!spec.output.write_directory) return e;
  const std::int64_t energy_every = spec.output.energy_every_steps;
  e.energies = replicas * table_rows(energy_every, first_step, last_step, resume) * row_bytes(10, last_step);
  if (const std::int64_t every = spec.output.trajectory_every_steps; every > 0)
    e.trajectories = replicas * dcd_bytes(stops_at_multiples(every, first_step, last_step, resume), beads, !resume);
  if (protocol) {
    if (protocol->pulling_file())
      e.protocol_tables += replicas * table_rows(protocol->pulling_every(), first_step, last_step, resume) *
                           row_bytes(ProtocolSetup::pulling_columns().size() - 1, last_step);
    if (protocol->plane_file())
      e.protocol_tables += replicas * table_rows(protocol->plane_every(), first_step, last_step, resume) *
                           row_bytes(protocol->plane_columns().size() - 1, last_step);
    if (protocol->indentation_file())
      e.protocol_tables += replicas * table_rows(protocol->indentation_every(), first_step, last_step, resume) *
                           row_bytes(ProtocolSetup::indentation_columns().size() - 1, last_step);
  }
  e.final_structures = replicas * pdb_bytes_estimate(n);
  // model.psf, model.pdb, model.etop: ~290 bytes a bead and its bond, ~40 a native contact
  // (measured: 500 beads without contacts 269 B a bead; a capsid 389 B a bead with 3.8
  // contacts each, four capsids 421 B with their wider EXT PSF; ubiquitin 332 B; before the
  // PDB's CONECT records, which add 17 B a bond).
  if (!resume) e.model = 300.0 * n + 40.0 * double(native_contacts);
  return e;
}

double stops_at_multiples(std::int64_t every, std::int64_t first, std::int64_t last, bool resume) {
  if (every <= 0) return 0;
  return double(last / every - first / every) + (resume ? 0 : 1);
}

double dcd_bytes(double frames, std::int32_t beads, bool new_file) {
  return frames * (12.0 * beads + 24) + (new_file ? 300 : 0);
}

double free_bytes_at(const fs::path& path) {
  std::error_code error;
  fs::path existing = fs::absolute(path, error);
  if (error) return -1;
  while (!existing.empty() && !fs::exists(existing, error)) {
    if (existing == existing.parent_path()) return -1;
    existing = existing.parent_path();
  }
  const fs::space_info space = fs::space(existing, error);
  return error ? -1 : double(space.available);
}

std::string describe_output_size(const OutputSizeEstimate& e, double free_bytes, const fs::path& directory) {
  std::vector<std::string> parts;
  auto part = [&](const char* what, double bytes) {
    if (bytes > 0) parts.push_back(fmt::format("{} {}", what, format_byte_size(bytes)));
  };
  part("energies.tsv", e.energies);
  part("trajectory.dcd", e.trajectories);
  part("protocol tables", e.protocol_tables);
  part("final.pdb", e.final_structures);
  part("model", e.model);
  part("SOP-GPU files", e.sopgpu_files);
  part("checkpoint (twice while one is replaced)", e.checkpoint);
  std::string list;
  for (std::size_t k = 0; k < parts.size(); ++k) list += (k ? ", " : "") + parts[k];
  std::string line = fmt::format("disk: the run writes about {} ({})", format_byte_size(e.total()), list);
  if (free_bytes >= 0)
    line += fmt::format("; {} free on the file system of {}", format_byte_size(free_bytes), directory.string());
  return line;
}

void log_output_size(spdlog::logger& log, const OutputSizeEstimate& estimate, const fs::path& directory,
                     bool sopgpu) {
  const double free_bytes = free_bytes_at(directory);
  log.info("{}", describe_output_size(estimate, free_bytes, directory));
  if (free_bytes >= 0 && estimate.total() > free_bytes)
    log.warn("warning: the run's files (about {}) need more than the {} free on the file system of {}: write fewer "
             "rows or frames ({}) or make room (docs/outputs.md#disk-space)",
             format_byte_size(estimate.total()), format_byte_size(free_bytes), directory.string(),
             sopgpu ? "outputtiming, dcdfreq, pullFreq, indentationOutputFreq"
                    : "[output] energy_every, trajectory_every; [pulling] output_every");
}

}  // namespace ermak
