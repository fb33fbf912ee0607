#include "ermak/run/replica_files.h"

#include <algorithm>
#include <cstdio>

#include "ermak/config/spec.h"
#include "ermak/core/units.h"
#include "ermak/run/protocol_setup.h"
#include "ermak/run/replica_loop.h"

namespace ermak {
namespace fs = std::filesystem;

namespace {
constexpr ProtocolTable kTables[] = {ProtocolTable::kPulling, ProtocolTable::kPlane, ProtocolTable::kIndentation};
}  // namespace

int replica_name_digits(std::int32_t replicas) {
  int digits = 1;
  for (std::int32_t largest = std::max(replicas - 1, 0); largest >= 10; largest /= 10) ++digits;
  return std::max(digits, 3);
}

int replica_name_digits_in(const std::vector<std::pair<std::string, std::uint64_t>>& offsets) {
  const std::string prefix = "replica_";
  for (const auto& [name, offset] : offsets)
    if (name.rfind(prefix, 0) == 0) {
      const std::size_t slash = name.find('/');
      if (slash != std::string::npos) return int(slash - prefix.size());
    }
  return 0;
}

std::string replica_dir_name(std::int32_t r, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "replica_%0*d", digits, r);
  return buffer;
}

const std::vector<std::string>& energy_columns() {
  static const std::vector<std::string> columns = {
      "step",          "time[ns]",          "T[K]",          "U_FENE[kcal/mol]",
      "U_native[kcal/mol]", "U_repulsive[kcal/mol]", "U_protocol[kcal/mol]", "U_total[kcal/mol]", "Q",
      "Rg[A]",         "end_to_end[A]"};
  return columns;
}

std::string table_file_name(ProtocolTable table) {
  switch (table) {
    case ProtocolTable::kPulling: return "pulling.tsv";
    case ProtocolTable::kPlane: return "plane.tsv";
    case ProtocolTable::kIndentation: return "indentation.tsv";
  }
  return "";
}

ReplicaFiles::ReplicaFiles(const RunSpec& spec, const ProtocolSetup* protocol, FileHolding holding,
                           int name_digits) {
  plan_.holding = holding;
  plan_.name_digits = name_digits > 0 ? name_digits : replica_name_digits(spec.replicas);
  plan_.trajectory = spec.output.trajectory_every_steps > 0;
  plan_.trajectory_every_steps = spec.output.trajectory_every_steps;
  plan_.timestep_ps = units::tau_to_ps(spec.langevin.timestep_tau);
  if (protocol) {
    plan_.tables[index(ProtocolTable::kPulling)] = protocol->pulling_file();
    plan_.tables[index(ProtocolTable::kPlane)] = protocol->plane_file();
    plan_.tables[index(ProtocolTable::kIndentation)] = protocol->indentation_file();
    plan_.table_columns[index(ProtocolTable::kPulling)] = ProtocolSetup::pulling_columns();
    if (protocol->plane_file()) plan_.table_columns[index(ProtocolTable::kPlane)] = protocol->plane_columns();
    plan_.table_columns[index(ProtocolTable::kIndentation)] = ProtocolSetup::indentation_columns();
  }
}

bool ReplicaFiles::writes(ProtocolTable table) const { return plan_.tables[index(table)]; }

std::vector<std::string> ReplicaFiles::file_names() const {
  std::vector<std::string> names = {"energies.tsv"};
  if (plan_.trajectory) names.push_back("trajectory.dcd");
  for (ProtocolTable table : kTables)
    if (writes(table)) names.push_back(table_file_name(table));
  return names;
}

void ReplicaFiles::create(const fs::path& out, std::int32_t replicas, std::int32_t beads) {
  for (std::int32_t r = 0; r < replicas; ++r) {
    const fs::path dir = out / dir_name(r);
    fs::create_directories(dir);
    // Never over an existing file (one atomic open with O_EXCL): a new run's directory holds
    // none (--force removed the earlier run's), unless a second job started in it.
    constexpr bool kOverwrite = false;
    energies_.push_back(TsvWriter::create(dir / "energies.tsv", energy_columns(), kOverwrite, plan_.holding));
    if (plan_.trajectory)
      trajectories_.push_back(DcdWriter::create(dir / "trajectory.dcd", beads, 0, plan_.trajectory_every_steps,
                                                plan_.timestep_ps, kOverwrite, plan_.holding));
    for (ProtocolTable table : kTables)
      if (writes(table))
        tables_[index(table)].push_back(TsvWriter::create(dir / table_file_name(table),
                                                          plan_.table_columns[index(table)], kOverwrite, plan_.holding));
  }
}

ReplicaFiles::CutBack ReplicaFiles::append(const fs::path& out, std::int32_t replicas, std::int32_t beads,
                                           const OffsetOf& offset_of) {
  // Every file is opened and checked before any is cut back: a resume refused for one
  // replica's file leaves the others as they were (docs/outputs.md#resume).
  for (std::int32_t r = 0; r < replicas; ++r) {
    const std::string dir = dir_name(r);
    energies_.push_back(TsvWriter::open_to_continue(out / dir / "energies.tsv", offset_of(dir + "/energies.tsv"),
                                                    energy_columns(), plan_.holding));
    if (plan_.trajectory)
      trajectories_.push_back(DcdWriter::open_to_continue(out / dir / "trajectory.dcd", beads,
                                                          offset_of(dir + "/trajectory.dcd"), plan_.holding));
    for (ProtocolTable table : kTables)
      if (writes(table)) {
        const std::string name = table_file_name(table);
        tables_[index(table)].push_back(TsvWriter::open_to_continue(
            out / dir / name, offset_of(dir + "/" + name), plan_.table_columns[index(table)], plan_.holding));
      }
  }
  CutBack cut;
  auto cut_back = [&cut](auto& writer) {
    cut.files += writer.bytes_to_cut() > 0 ? 1 : 0;
    cut.bytes += writer.bytes_to_cut();
    writer.cut_to_continue();
  };
  for (TsvWriter& w : energies_) cut_back(w);
  for (DcdWriter& w : trajectories_) cut_back(w);
  for (auto& writers : tables_)
    for (TsvWriter& w : writers) cut_back(w);
  return cut;
}

void ReplicaFiles::flush(int threads) {
  // One write per file, replicas side by side: at 10⁴ replicas most of a checkpoint.
  for_each_replica(replicas(), threads, [&](std::int32_t r) {
    energies_[std::size_t(r)].flush();
    if (plan_.trajectory) trajectories_[std::size_t(r)].flush();
    for (ProtocolTable table : kTables)
      if (writes(table)) tables_[index(table)][std::size_t(r)].flush();
  });
}

std::vector<std::pair<std::string, std::uint64_t>> ReplicaFiles::offsets() const {
  std::vector<std::pair<std::string, std::uint64_t>> offsets;
  for (std::int32_t r = 0; r < replicas(); ++r) {
    const std::string dir = dir_name(r) + "/";
    const std::size_t k = std::size_t(r);
    offsets.emplace_back(dir + "energies.tsv", energies_[k].bytes_written());
    if (plan_.trajectory) offsets.emplace_back(dir + "trajectory.dcd", trajectories_[k].bytes_written());
    for (ProtocolTable table : kTables)
      if (writes(table)) offsets.emplace_back(dir + table_file_name(table), tables_[index(table)][k].bytes_written());
  }
  return offsets;
}

}  // namespace ermak
