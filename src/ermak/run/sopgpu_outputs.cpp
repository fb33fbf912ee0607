#include "ermak/run/sopgpu_outputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/io/gathered_lines.h"
#include "ermak/io/held_output_file.h"
#include "ermak/io/pdb_coordinates.h"
#include "ermak/run/output_directories.h"
#include "ermak/run/output_size.h"
#include "ermak/run/protocol_setup.h"
#include "ermak/run/replica_loop.h"

namespace ermak {
namespace fs = std::filesystem;

// SOP-GPU's .dat files have no header: rows of printf-formatted numbers. A resumed run cuts
// the file back to the size recorded in the checkpoint and appends. The file and its lines
// are held as a table's are (io/held_output_file.h, io/gathered_lines.h): kept open, or opened
// only to write out (io/file_holding.h).
class SopgpuReporter::TextFile {
  // Beyond kOpenedToWriteOutBytes, the room for the line that crosses it (SOP-GPU's lines
  // are 60–170 bytes).
  static constexpr std::size_t kLineRoom = 1024;
  static constexpr const char* kNoun = "SOP-GPU output file";

 public:
  TextFile(const fs::path& path, std::uint64_t resume_at, bool resume, FileHolding holding) : lines_(holding) {
    if (!resume) {
      // Overwritten: the run's start checks have refused an earlier run's files without --force.
      file_ = HeldOutputFile::create(path, true, holding, OutputPlacement::kAppended, kNoun, {});
      return;
    }
    std::error_code ec;
    if (!fs::exists(path, ec))
      throw Error(path.string(), 0, "", "cannot resume: the file is missing (it was written before the checkpoint)");
    file_ = HeldOutputFile::open_to_continue(path, holding, OutputPlacement::kAppended, kNoun);
    if (file_.bytes_found() < resume_at)
      throw Error(path.string(), 0, "",
                  fmt::format("cannot resume: the file is shorter ({} bytes) than at the checkpoint ({} bytes)",
                              file_.bytes_found(), resume_at));
    file_.continue_at(resume_at);
    file_.cut_to_continue();
  }
  ~TextFile() { file_.last_write_out(lines_.bytes(), lines_.written()); }
  void write(const std::string& line) {
    lines_.for_next_line(std::max(line.size(), kLineRoom)) += line;
    if (lines_.due()) file_.write_out(lines_.bytes(), lines_.written());
  }
  void flush() { file_.flush(lines_.bytes(), lines_.written()); }
  std::uint64_t bytes() const { return file_.size() + lines_.size(); }

 private:
  HeldOutputFile file_;
  GatheredLines lines_;
};

namespace {

bool multiple(std::int64_t step, std::int64_t every) { return every > 0 && step % every == 0; }

// Native# of SOP-GPU's energy file (output_manager computeNativeNumber): contacts closer
// than R_limit_bond or within R_limit of their native length.
std::int64_t native_count(const Topology& topology, const State& s, std::int32_t r, double cutoff_A,
                          double tolerance_A) {
  std::int64_t count = 0;
  for (const NativeContact& c : topology.native_contacts) {
    const double d = norm(vec_cast<double>(s.position(r, c.j)) - vec_cast<double>(s.position(r, c.i)));
    if (d < cutoff_A || std::abs(double(c.r0_A) - d) <= tolerance_A) ++count;
  }
  return count;
}

double radius_of_gyration(const State& s, std::int32_t r) {
  Vec3d centre{};
  for (std::int32_t i = 0; i < s.bead_count; ++i) centre += vec_cast<double>(s.position(r, i));
  centre = (1.0 / double(s.bead_count)) * centre;
  double sum = 0.0;
  for (std::int32_t i = 0; i < s.bead_count; ++i) sum += norm2(vec_cast<double>(s.position(r, i)) - centre);
  return std::sqrt(sum / double(s.bead_count));
}

std::string key(const std::string& run, const char* what) { return "sopgpu/" + run + "/" + what; }

}  // namespace

SopgpuReporter::SopgpuReporter(const SopOutputs& outputs, const RunSpec& spec) : outputs_(outputs), spec_(spec) {}
SopgpuReporter::~SopgpuReporter() = default;

std::vector<std::int64_t> SopgpuReporter::intervals() const {
  return {outputs_.energy_every, outputs_.trajectory_every, outputs_.restart_every, outputs_.pulling_every,
          outputs_.indentation_every};
}

// Rows at the multiples of each interval (the start's too in a new run), each as long as a
// row of typical values; the DCD frames exactly; the restart and final PDBs once per run
// (a restart PDB is rewritten in place).
double SopgpuReporter::bytes_to_write(std::int64_t first, std::int64_t last, std::int32_t beads, bool resume) const {
  auto rows = [&](std::int64_t every) { return stops_at_multiples(every, first, last, resume); };
  // Energies of a few hundred to thousands of kcal/mol (a 10⁴-bead model's run to ±10⁴).
  const double energy_row = double(energy_line(last, 0.6, 1234.56789, -1234.56789, 123.45678, 750, 12.34567).size());
  const double pulling_row = 13 + 6 * 9.0;       // "{:12d}" and six "{:5.3f}" such as 12.345, with tabs
  const double indentation_row = 13 + 14 * 11.0;  // the step and fourteen "{:8.5f}" such as -123.45678
  const double pdb = pdb_bytes_estimate(beads);
  double per_run = rows(outputs_.energy_every) * energy_row + rows(outputs_.pulling_every) * pulling_row +
                   rows(outputs_.indentation_every) * indentation_row + 2 * pdb;
  if (outputs_.trajectory_every > 0) per_run += dcd_bytes(rows(outputs_.trajectory_every), beads, !resume);
  double bytes = double(outputs_.runs.size()) * per_run;
  for (const SopRunFiles& f : outputs_.runs) {
    if (f.pulling.empty()) bytes -= rows(outputs_.pulling_every) * pulling_row;
    if (f.indentation.empty()) bytes -= rows(outputs_.indentation_every) * indentation_row;
  }
  return bytes + (resume ? 0 : pdb);  // the reference PDB
}

// The files a new run must not overwrite without --force. The reference and restart PDBs
// are left out: SOP-GPU's own stages share them (the WW equilibration and pulling both
// write <name>.ref.pdb and output/<name>_<run>_restart.pdb) and overwrite them, and they
// hold nothing a later stage could not write again.
std::vector<fs::path> SopgpuReporter::files_of_new_run() const {
  std::vector<fs::path> files = {outputs_.log};
  for (const SopRunFiles& f : outputs_.runs)
    for (const fs::path& p : {f.energy, f.trajectory, f.final_pdb, f.pulling, f.indentation})
      if (!p.empty()) files.push_back(p);
  return files;
}

std::int64_t SopgpuReporter::files_kept_open() const {
  std::int64_t files = 0;
  for (const SopRunFiles& f : outputs_.runs)
    files += 2 + (f.pulling.empty() ? 0 : 1) + (f.indentation.empty() ? 0 : 1);  // energy, DCD, ...
  return files;
}

// Every directory the files go into (SOP-GPU users' configurations write into dat/, dcd/,
// pull/, structures/ …), each once.
std::vector<fs::path> SopgpuReporter::directories() const {
  std::vector<fs::path> dirs;
  auto add = [&](const fs::path& file) {
    const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  };
  add(outputs_.reference_pdb);
  for (const SopRunFiles& f : outputs_.runs) add(f.restart_pdb);
  for (const fs::path& p : files_of_new_run()) add(p);
  return dirs;
}

void SopgpuReporter::check_files(bool resume, bool force, const Offsets* offsets) const {
  // Two outputs given one file name (DCDfile = outputname) would write over each other.
  std::vector<std::pair<fs::path, std::string>> named = {{outputs_.reference_pdb, "reffilename"},
                                                         {outputs_.checkpoint, "the checkpoint"},
                                                         {outputs_.log, "the run log"}};
  for (const SopRunFiles& f : outputs_.runs)
    for (const auto& [path, key] : {std::pair{f.energy, "outputname"}, {f.trajectory, "DCDfile"},
                                    {f.restart_pdb, "restartname"}, {f.final_pdb, "finalcoord"},
                                    {f.pulling, "pullOutput"}, {f.indentation, "indentationOutput"}})
      if (!path.empty()) named.emplace_back(path, std::string(key) + " of run " + f.run);
  std::map<std::string, std::string> owner;
  for (const auto& [path, what] : named) {
    const auto [it, first] = owner.emplace(path.lexically_normal().string(), what);
    if (!first)
      throw Error(spec_.config_path.string(), 0, "",
                  it->second + " and " + what + " are the same file, " + path.string() +
                      ": give each output its own name");
  }
  for (const fs::path& dir : directories()) check_output_directory(spec_, dir, "");
  if (!resume && !force) {
    // A run log alone, without a checkpoint, is that of a start that failed its checks (a
    // missing topology): no run to protect; the new run replaces it (as for a TOML run,
    // run/previous_run.h).
    std::vector<fs::path> existing;
    for (const fs::path& p : files_of_new_run())
      if (fs::exists(p)) existing.push_back(p);
    const bool failed_start_log = existing.size() == 1 && existing.front() == outputs_.log &&
                                  !fs::exists(outputs_.checkpoint);
    if (!existing.empty() && !failed_start_log)
      throw Error(existing.front().string(), 0, "",
                  "exists; pass --force to overwrite it or --resume to continue the run");
  }
  if (!resume || !offsets) return;
  auto offset_of = [&](const std::string& name) -> std::uint64_t {
    for (const auto& [k, offset] : *offsets)
      if (k == name) return offset;
    throw Error(outputs_.checkpoint.string(), 0, name, "the checkpoint lacks this SOP-GPU output's offset");
  };
  for (const SopRunFiles& f : outputs_.runs) {
    check_file_to_continue(f.energy, offset_of(key(f.run, "energy")));
    check_file_to_continue(f.trajectory, offset_of(key(f.run, "dcd")));
    if (!f.pulling.empty()) check_file_to_continue(f.pulling, offset_of(key(f.run, "pull")));
    if (!f.indentation.empty()) check_file_to_continue(f.indentation, offset_of(key(f.run, "indentation")));
  }
}

void SopgpuReporter::prepare(bool resume, bool force) {
  check_files(resume, force);
  for (const fs::path& dir : directories()) {
    // Each level this call creates, so that a failed start can take them back.
    std::vector<fs::path> missing;
    std::error_code error;
    for (fs::path d = dir; !d.empty() && !fs::exists(d, error); d = d.parent_path()) {
      missing.push_back(d);
      if (d == d.parent_path()) break;
    }
    make_output_directory(spec_, dir, "");
    made_directories_.insert(made_directories_.end(), missing.rbegin(), missing.rend());
  }
}

void SopgpuReporter::remove_empty_directories_it_made() noexcept {
  std::error_code error;
  for (auto it = made_directories_.rbegin(); it != made_directories_.rend(); ++it)
    if (fs::is_directory(*it, error) && fs::is_empty(*it, error)) fs::remove(*it, error);
  made_directories_.clear();
}

void SopgpuReporter::open(ReportContext& context, bool resume, const Offsets& offsets) {
  file_threads_ = context.file_threads;
  // "pulling on" (a spring or a constant force fconst): SOP-GPU's B-factor flags
  // (docs/migrating-from-sop-gpu.md#what-differs-from-sop-gpu-and-why); fixed wins over pulled, as there.
  const std::vector<std::int32_t>& pulled =
      spec_.pulling.enabled ? spec_.pulling.pulled_beads : spec_.force_clamp.pulled_beads;
  if (spec_.pulling.enabled || spec_.force_clamp.enabled) {
    flagged_topology_ = context.topology;
    for (BeadInfo& bead : flagged_topology_->beads) bead.b_factor = 0.0f;
    const auto n = std::int32_t(flagged_topology_->beads.size());
    for (std::int32_t b : pulled)
      if (b >= 0 && b < n) flagged_topology_->beads[std::size_t(b)].b_factor = 2.0f;
    for (std::int32_t b : spec_.fixed_beads)
      if (b >= 0 && b < n) flagged_topology_->beads[std::size_t(b)].b_factor = 1.0f;
  }
  const FileHolding holding = context.file_holding;
  auto offset_of = [&](const std::string& name) -> std::uint64_t {
    for (const auto& [k, offset] : offsets)
      if (k == name) return offset;
    throw Error(outputs_.checkpoint.string(), 0, name, "the checkpoint lacks this SOP-GPU output's offset");
  };
  const std::int32_t n = context.topology.bead_count();
  const double timestep_ps = units::tau_to_ps(spec_.langevin.timestep_tau);
  runs_.clear();
  for (const SopRunFiles& f : outputs_.runs) {
    RunFiles files;
    files.energy =
        std::make_unique<TextFile>(f.energy, resume ? offset_of(key(f.run, "energy")) : 0, resume, holding);
    files.trajectory = std::make_unique<DcdWriter>(
        resume ? DcdWriter::append(f.trajectory, n, offset_of(key(f.run, "dcd")), holding)
               : DcdWriter::create(f.trajectory, n, context.engine.state().step, outputs_.trajectory_every,
                                   timestep_ps, true, holding));
    if (!f.pulling.empty())
      files.pulling =
          std::make_unique<TextFile>(f.pulling, resume ? offset_of(key(f.run, "pull")) : 0, resume, holding);
    if (!f.indentation.empty())
      files.indentation =
          std::make_unique<TextFile>(f.indentation, resume ? offset_of(key(f.run, "indentation")) : 0, resume, holding);
    runs_.push_back(std::move(files));
  }
  if (!resume) {
    // SOP-GPU's reference PDB: the model at the start (replica 0), to load into VMD with
    // the DCD files.
    const State& s = context.engine.state();
    const std::size_t o = s.index(0, 0);
    write_pdb(outputs_.reference_pdb, pdb_topology(context.topology), &s.x[o], &s.y[o], &s.z[o],
              "ermak reference coordinates (SOP-GPU reffilename), run " + outputs_.runs.front().run);
  }
}

std::string SopgpuReporter::energy_line(std::int64_t step, double temperature, double fene, double native,
                                        double repulsive, std::int64_t count, double rg_A) {
  return fmt::format("{:12d}\t{:8.5f}\t{:8.5f}\t{:8.5f}\t{:8.5f}\t{:8.5f}\t{:8.5f}\t{:8d}\t{:8.5f}\n", step,
                     temperature, fene + native + repulsive, native, repulsive, native + repulsive, fene, count, rg_A);
}

void SopgpuReporter::write_energies(const Snapshot& snapshot, const Topology& topology) {
  const State& s = snapshot.state;
  // SOP-GPU prints the temperature estimated from the displacements; ermak prints the
  // heat bath's (docs/migrating-from-sop-gpu.md#outputs).
  const double temperature = spec_.temperature.at_step(s.step);
  for_each_replica(std::int32_t(runs_.size()), file_threads_, [&](std::int32_t r) {
    const EnergyTerms& e = snapshot.energies[r];
    runs_[r].energy->write(energy_line(
        s.step, temperature, e.fene, e.native, e.repulsive,
        native_count(topology, s, r, outputs_.native_count_cutoff_A, outputs_.native_count_tolerance_A),
        radius_of_gyration(s, r)));
  });
}

// pulling.cu savePullingData: step, |X|, X·n, f·n, fx, fy, fz (Å, kcal/mol/Å), X the
// end-to-end vector fixedEnd → pulledEnd and f the cantilever spring's force.
void SopgpuReporter::write_pulling(const Snapshot& snapshot, const ProtocolSetup& protocol) {
  const State& s = snapshot.state;
  const double A_per_nm = units::A_per_nm, pN = units::pN_per_kcal_per_mol_A;
  for_each_replica(std::int32_t(runs_.size()), file_threads_, [&](std::int32_t r) {
    // ProtocolSetup's row: time, base, end-to-end, extension (nm), force x, y, z, |F|, F·n (pN).
    const std::vector<double> row = protocol.pulling_row(r, s, snapshot.tether_forces_kcal_per_mol_A);
    runs_[r].pulling->write(fmt::format("{:12d}\t{:5.3f}\t{:5.3f}\t{:5.3f}\t{:5.3f}\t{:5.3f}\t{:5.3f}\n", s.step,
                                        row[2] * A_per_nm, row[3] * A_per_nm, row[8] / pN, row[4] / pN, row[5] / pN,
                                        row[6] / pN));
  });
}

// indentation.cu: step, base travel, |F|, |F| (SOP-GPU: mean of |F| and |mean F| over the
// interval), |κΔx| now and (SOP-GPU) its mean, F x y z, tip x y z, base x y z; F the
// tip's force on the molecule. ermak writes the values at the step (no interval means).
void SopgpuReporter::write_indentation(const Snapshot& snapshot) {
  const std::int64_t step = snapshot.state.step;
  for_each_replica(std::int32_t(runs_.size()), file_threads_, [&](std::int32_t r) {
    const IndentationStatus& st = snapshot.indentation.at(r);
    const Vec3d f = -1.0 * st.molecule_force_kcal_per_mol_A;
    const double spring = norm(st.spring_force_kcal_per_mol_A);
    runs_[r].indentation->write(fmt::format(
        "{}\t{:8.5f}\t{:8.5f}\t{:8.5f}\t{:8.5f}\t{:8.5f}\t{:8.5f}\t{:8.5f}\t{:8.5f}\t{:8.5f}\t{:8.5f}\t{:8.5f}\t{:8.5f}\t{:8."
        "5f}\t{:8.5f}\n",
        step, st.travel_A, norm(f), norm(f), spring, spring, f.x, f.y, f.z, st.tip_A.x, st.tip_A.y, st.tip_A.z,
        st.base_A.x, st.base_A.y, st.base_A.z));
  });
}

RunReporter::Work SopgpuReporter::report(ReportContext& context) {
  const std::int64_t step = context.step;
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->energies_due = multiple(step, outputs_.energy_every);
  snapshot->pulling_due = multiple(step, outputs_.pulling_every) && context.protocol;
  snapshot->indentation_due = multiple(step, outputs_.indentation_every) && context.protocol;
  snapshot->frame_due = multiple(step, outputs_.trajectory_every);
  snapshot->restart_due = multiple(step, outputs_.restart_every);
  if (!(snapshot->energies_due || snapshot->pulling_due || snapshot->indentation_due || snapshot->frame_due ||
        snapshot->restart_due))
    return {};
  // Everything from the engine is taken here, on the driver's thread; the returned work
  // only formats and writes (run/report_writer.h).
  snapshot->state = context.engine.state();
  if (snapshot->energies_due) snapshot->energies = context.engine.energies();
  if (snapshot->pulling_due) snapshot->tether_forces_kcal_per_mol_A = context.engine.tether_forces_kcal_per_mol_A();
  if (snapshot->indentation_due) snapshot->indentation = context.engine.indentation_status();
  const std::size_t bytes = snapshot->state.bytes() + snapshot->energies.size() * sizeof(EnergyTerms) +
                            snapshot->tether_forces_kcal_per_mol_A.size() * sizeof(Vec3d) +
                            snapshot->indentation.size() * sizeof(IndentationStatus);
  return {[this, snapshot, topology = &context.topology, protocol = context.protocol] {
            write(*snapshot, *topology, protocol);
          },
          bytes};
}

void SopgpuReporter::write(const Snapshot& snapshot, const Topology& topology, const ProtocolSetup* protocol) {
  const State& s = snapshot.state;
  const std::int64_t step = s.step;
  if (snapshot.energies_due) write_energies(snapshot, topology);
  if (snapshot.pulling_due) write_pulling(snapshot, *protocol);
  if (snapshot.indentation_due) write_indentation(snapshot);
  const auto runs = std::int32_t(runs_.size());
  if (snapshot.frame_due)
    for_each_replica(runs, file_threads_, [&](std::int32_t r) {
      const std::size_t o = s.index(r, 0);
      runs_[r].trajectory->write_frame(&s.x[o], &s.y[o], &s.z[o]);
    });
  unwritten_pdb_.resize(runs_.size());  // before the replicas' threads write their entries
  if (snapshot.restart_due)
    for_each_replica(runs, file_threads_, [&](std::int32_t r) {
      write_run_pdb(r, outputs_.runs[r].restart_pdb, pdb_topology(topology), s,
                    fmt::format("ermak restart coordinates, run {}, step {}", outputs_.runs[r].run, step));
    });
}

void SopgpuReporter::write_run_pdb(std::int32_t r, const fs::path& file, const Topology& topology, const State& s,
                                   const std::string& remark) {
  const std::size_t o = s.index(r, 0);
  const std::string overflow = write_pdb_if_it_fits(file, topology, &s.x[o], &s.y[o], &s.z[o], remark);
  unwritten_pdb_[std::size_t(r)] = overflow.empty() ? "" : file.string() + " not written: its " + overflow;
}

std::vector<std::string> SopgpuReporter::finish_warnings() const {
  std::vector<std::string> warnings;
  for (const std::string& w : unwritten_pdb_)
    if (!w.empty())
      warnings.push_back("warning: " + w + " does not fit a PDB's 8 columns; the checkpoint holds the positions");
  return warnings;
}

void SopgpuReporter::checkpoint(Offsets& offsets) {
  for_each_replica(std::int32_t(runs_.size()), file_threads_, [&](std::int32_t r) {
    RunFiles& f = runs_[r];
    f.energy->flush();
    f.trajectory->flush();  // checks that the DCD is still there (io/output_file_check.h)
    if (f.pulling) f.pulling->flush();
    if (f.indentation) f.indentation->flush();
  });
  for (std::size_t r = 0; r < runs_.size(); ++r) {
    const std::string& run = outputs_.runs[r].run;
    const RunFiles& f = runs_[r];
    offsets.emplace_back(key(run, "energy"), f.energy->bytes());
    offsets.emplace_back(key(run, "dcd"), f.trajectory->bytes_written());
    if (f.pulling) offsets.emplace_back(key(run, "pull"), f.pulling->bytes());
    if (f.indentation) offsets.emplace_back(key(run, "indentation"), f.indentation->bytes());
  }
}

void SopgpuReporter::finish(ReportContext& context) {
  const State& s = context.engine.state();
  unwritten_pdb_.resize(runs_.size());  // before the replicas' threads write their entries
  for_each_replica(std::int32_t(runs_.size()), file_threads_, [&](std::int32_t r) {
    RunFiles& f = runs_[r];
    f.energy->flush();
    f.trajectory->flush();  // checks that the DCD is still there (io/output_file_check.h)
    if (f.pulling) f.pulling->flush();
    if (f.indentation) f.indentation->flush();
    write_run_pdb(r, outputs_.runs[r].final_pdb, pdb_topology(context.topology), s,
                  fmt::format("ermak final coordinates, run {}, step {}", outputs_.runs[r].run, s.step));
  });
}

std::string SopgpuReporter::describe() const {
  const SopRunFiles& f = outputs_.runs.front();
  std::string text = fmt::format(
      "SOP-GPU outputs for {} run(s) ({} … {}): energies every {} steps ({}), DCD every {} ({}), restart PDB every {} "
      "({}), final coordinates ({}), reference PDB {}",
      outputs_.runs.size(), f.run, outputs_.runs.back().run, outputs_.energy_every, f.energy.string(),
      outputs_.trajectory_every, f.trajectory.string(), outputs_.restart_every, f.restart_pdb.string(),
      f.final_pdb.string(), outputs_.reference_pdb.string());
  if (!f.pulling.empty()) text += fmt::format(", pulling every {} ({})", outputs_.pulling_every, f.pulling.string());
  if (!f.indentation.empty())
    text += fmt::format(", indentation every {} ({})", outputs_.indentation_every, f.indentation.string());
  return text + fmt::format("; ermak checkpoint {}", outputs_.checkpoint.string());
}

}  // namespace ermak
