#pragma once
// The files each replica of a run writes into the output directory (docs/outputs.md#layout-of-an-output-directory):
// replica_NNN/energies.tsv, trajectory.dcd and the protocols' tables, created by a new run
// or continued on --resume from the sizes a checkpoint recorded.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ermak/io/dcd_writer.h"
#include "ermak/io/tsv_writer.h"

namespace ermak {

struct RunSpec;
class ProtocolSetup;

// The digits of the replica directories' numbers (docs/outputs.md#layout-of-an-output-directory):
// 3 (replica_007) up to 1000 replicas, else as many as the largest number needs
// (replica_0007 … replica_9999 for 10⁴), so that `ls`, a shell's replica_* and Python's
// sorted() list them in the replicas' order.
int replica_name_digits(std::int32_t replicas);
// The digits of the replica names in a checkpoint's output offsets ("replica_0000/energies.tsv"):
// a run keeps the names it started with (ermak before 2026-11-30 wrote 3 digits at any count).
// 0 where the offsets name no replica file.
int replica_name_digits_in(const std::vector<std::pair<std::string, std::uint64_t>>& offsets);
// "replica_007": replica r's directory under the output directory, its number `digits` wide.
std::string replica_dir_name(std::int32_t r, int digits = 3);

// The columns of replica_NNN/energies.tsv (docs/outputs.md#tsv-time-series).
const std::vector<std::string>& energy_columns();

// A protocol's table in every replica's directory.
enum class ProtocolTable { kPulling, kPlane, kIndentation };
std::string table_file_name(ProtocolTable table);  // "pulling.tsv", "plane.tsv", "indentation.tsv"

class ReplicaFiles {
 public:
  // What a run of `spec` with `protocol` (null without any) writes for each replica;
  // `holding`: whether each file stays open for the run or is opened to write out
  // (io/file_holding.h; docs/outputs.md#how-many-files-a-run-keeps-open); `name_digits`: of
  // the replica directories' numbers (replica_name_digits; 0: from spec's replica count).
  ReplicaFiles(const RunSpec& spec, const ProtocolSetup* protocol,
               FileHolding holding = FileHolding::kKeptOpen, int name_digits = 0);

  // Replica r's directory name ("replica_007", or "replica_0007" in a run of 10⁴).
  std::string dir_name(std::int32_t r) const { return replica_dir_name(r, plan_.name_digits); }

  // Every file of one replica, by name ("energies.tsv", "trajectory.dcd", "pulling.tsv", …),
  // in the order of offsets().
  std::vector<std::string> file_names() const;
  bool writes(ProtocolTable table) const;

  // A new run: makes each replica's directory under `out` and starts its files, refusing
  // any that exists (--force has removed an earlier run's; another job may be writing it).
  void create(const std::filesystem::path& out, std::int32_t replicas, std::int32_t beads);
  // A resumed run: continues each file from `offset_of(dir_name(r) + "/energies.tsv")`, the
  // size the checkpoint recorded (the file is cut there, once every file has been checked).
  // Returns what was cut: rows and frames written after the checkpoint, written again.
  using OffsetOf = std::function<std::uint64_t(const std::string&)>;
  struct CutBack {
    int files = 0;            // files that held more than their checkpoint offset
    std::uint64_t bytes = 0;  // in all
  };
  CutBack append(const std::filesystem::path& out, std::int32_t replicas, std::int32_t beads,
                 const OffsetOf& offset_of);

  std::int32_t replicas() const { return std::int32_t(energies_.size()); }
  TsvWriter& energies(std::int32_t r) { return energies_[std::size_t(r)]; }
  DcdWriter& trajectory(std::int32_t r) { return trajectories_[std::size_t(r)]; }
  TsvWriter& table(ProtocolTable table, std::int32_t r) { return tables_[index(table)][std::size_t(r)]; }

  // Hands every buffered row to the OS, replicas side by side on `threads` threads.
  void flush(int threads);
  // Each file's size ("replica_NNN/NAME", bytes), replica by replica in file_names() order,
  // for a checkpoint; after flush().
  std::vector<std::pair<std::string, std::uint64_t>> offsets() const;

 private:
  static std::size_t index(ProtocolTable table) { return std::size_t(table); }
  struct Plan {
    FileHolding holding = FileHolding::kKeptOpen;
    int name_digits = 3;
    bool trajectory = false;
    std::int64_t trajectory_every_steps = 0;
    double timestep_ps = 0.0;
    bool tables[3] = {false, false, false};
    std::vector<std::string> table_columns[3];
  } plan_;
  std::vector<TsvWriter> energies_;
  std::vector<DcdWriter> trajectories_;
  std::vector<TsvWriter> tables_[3];
};

}  // namespace ermak
