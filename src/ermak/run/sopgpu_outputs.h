#pragma once
// SOP-GPU's output files for `ermak run FILE.sop` (docs/migrating-from-sop-gpu.md#outputs):
// per run the energy file (outputname), the DCD (DCDfile), the pulling file (pullOutput),
// the indentation file (indentationOutput), the restart PDB (restartname.pdb) and the final
// coordinates (finalcoord), and the reference PDB (reffilename), with SOP-GPU's columns,
// printf formats and units (Å, kcal/mol, kcal/mol/Å), so that existing analysis scripts
// read them. Driven by the run driver's schedule (run/simulation.h, RunReporter).
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "ermak/config/sopgpu_config.h"
#include "ermak/io/dcd_writer.h"
#include "ermak/run/simulation.h"

namespace ermak {

class SopgpuReporter final : public RunReporter {
 public:
  SopgpuReporter(const SopOutputs& outputs, const RunSpec& spec);
  ~SopgpuReporter() override;

  std::vector<std::int64_t> intervals() const override;
  std::int64_t files_kept_open() const override;
  void prepare(bool resume, bool force) override;
  void remove_empty_directories_it_made() noexcept override;
  std::vector<std::filesystem::path> output_directories() const override { return directories(); }
  std::vector<std::string> finish_warnings() const override;
  void check_files(bool resume, bool force, const Offsets* offsets = nullptr) const override;
  void open(ReportContext& context, bool resume, const Offsets& offsets) override;
  Work report(ReportContext& context) override;
  void checkpoint(Offsets& offsets) override;
  void finish(ReportContext& context) override;
  std::string describe() const override;
  double bytes_to_write(std::int64_t first_step, std::int64_t last_step, std::int32_t beads,
                        bool resume) const override;

  // One line of SOP-GPU's energy file (output_manager: step, T, U_total, U_native,
  // U_repulsive, U_native + U_repulsive, U_FENE, Native#, Rg), exposed for tests.
  static std::string energy_line(std::int64_t step, double temperature, double fene, double native,
                                 double repulsive, std::int64_t native_count, double rg_A);

 private:
  class TextFile;  // an appendable text file with a resume offset
  struct RunFiles {
    std::unique_ptr<TextFile> energy, pulling, indentation;
    std::unique_ptr<DcdWriter> trajectory;
  };

  // What one stop writes, copied from the engine on the driver's thread.
  struct Snapshot {
    State state;
    bool energies_due = false, pulling_due = false, indentation_due = false, frame_due = false,
         restart_due = false;
    std::vector<EnergyTerms> energies;
    std::vector<Vec3d> tether_forces_kcal_per_mol_A;
    std::vector<IndentationStatus> indentation;
  };

  std::vector<std::filesystem::path> made_directories_;  // by prepare(), deepest last
  // Per run: its last restart or final PDB not written, and why (a coordinate beyond a PDB's
  // columns, io/pdb_coordinates.h), for finish_warnings(); "" where written.
  std::vector<std::string> unwritten_pdb_;
  // Writes a restart or final PDB of run r unless a coordinate does not fit its columns.
  void write_run_pdb(std::int32_t r, const std::filesystem::path& file, const Topology& topology, const State& s,
                     const std::string& remark);

  std::vector<std::filesystem::path> files_of_new_run() const;
  std::vector<std::filesystem::path> directories() const;
  void write(const Snapshot& snapshot, const Topology& topology, const ProtocolSetup* protocol);
  void write_energies(const Snapshot& snapshot, const Topology& topology);
  void write_pulling(const Snapshot& snapshot, const ProtocolSetup& protocol);
  void write_indentation(const Snapshot& snapshot);

  SopOutputs outputs_;
  const RunSpec& spec_;
  // With pulling on, SOP-GPU's PDBs (reference, restart, final) flag the beads in their
  // B-factor column: 1 fixed, 2 pulled, 0 the rest (its pulling.cu sets them before any PDB
  // is saved); the model with those B-factors, made by open(). Unset: the model's own.
  std::optional<Topology> flagged_topology_;
  const Topology& pdb_topology(const Topology& topology) const {
    return flagged_topology_ ? *flagged_topology_ : topology;
  }
  std::vector<RunFiles> runs_;
  int file_threads_ = 1;  // ReportContext::file_threads: each run's files on one thread
};

}  // namespace ermak
