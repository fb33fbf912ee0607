#include "ermak/run/simulation.h"

#include <omp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>

#include "ermak/backend/cuda_engine.h"
#include "ermak/config/sopgpu_config.h"
#include "ermak/core/byte_size.h"
#include "ermak/core/error.h"
#include "ermak/core/progress.h"
#include "ermak/io/checkpoint.h"
#include "ermak/io/dcd_writer.h"
#include "ermak/core/simulated_time.h"
#include "ermak/core/units.h"
#include "ermak/io/load_system.h"
#include "ermak/io/psf_writer.h"
#include "ermak/io/pdb_coordinates.h"
#include "ermak/io/tsv_writer.h"
#include "ermak/model/residue_selection.h"
#include "ermak/run/bead_lists.h"
#include "ermak/run/bonded_piece_check.h"
#include "ermak/run/checkpoint_codec.h"
#include "ermak/run/config_fingerprint.h"
#include "ermak/run/dry_run.h"
#include "ermak/run/engine_choice.h"
#include "ermak/run/model_files.h"
#include "ermak/run/output_directories.h"
#include "ermak/run/output_size.h"
#include "ermak/run/previous_run.h"
#include "ermak/run/hydrodynamics_check.h"
#include "ermak/run/protocol_checks.h"
#include "ermak/run/protocol_setup.h"
#include "ermak/run/pulling_travel_check.h"
#include "ermak/run/output_file_holding.h"
#include "ermak/run/replica_files.h"
#include "ermak/run/replica_loop.h"
#include "ermak/run/run_lock.h"
#include "ermak/run/row_density_check.h"
#include "ermak/run/run_end_log.h"
#include "ermak/run/run_log.h"
#include "ermak/run/run_start_log.h"
#include "ermak/run/report_writer.h"
#include "ermak/run/resume_checks.h"
#include "ermak/run/stability_checks.h"
#include "ermak/run/start_forces.h"
#include "ermak/run/step_size_check.h"
#include "ermak/run/stop_signals.h"
#include "ermak/run/stop_snapshot.h"

namespace ermak {
namespace fs = std::filesystem;

namespace {

// The memory the report writer's unfinished stops may hold beyond its first two: at 10⁴
// WW replicas ~350 stops of energy rows (0.7 MB each) or ~60 of trajectory frames, enough
// to cover a checkpoint's flushes and syncs (~0.6 s) without holding the engine up.
constexpr std::size_t kReportQueueBytes = std::size_t(256) << 20;

// Where a run's files go, decided before its log is opened.
struct RunPaths {
  fs::path out, checkpoint, log;
  bool own_files = true;
  // The extra reporter whose files the disk estimate counts (run/output_size.h): a dry run
  // writes none but still counts them.
  const RunReporter* extra_files = nullptr;
  // --force over an earlier run: removes its files (not run.log: pending_log is renamed over it)
  // once this run has passed every start check, just before its own files are written, so
  // that a mistake in the new configuration leaves the earlier run as it was.
  bool remove_previous = false;
  // With remove_previous: where this run's log is written until then (run.log.new,
  // pending_run_log), renamed over the earlier run's log once its other files are gone, so
  // that up to that point run.log stays the log of the files beside it, even for a run
  // killed by SIGKILL (`ermak analyze` reads that run's temperature and rate from it).
  // Empty when the log is written in its place from the start.
  fs::path pending_log{};
  // A run's (not a dry run's): SIGINT and SIGTERM noted from before its lock is taken, so that
  // one during the start stops it at the end of the start's phase in progress, with its lock
  // removed and a line in its log, instead of ending the process in the middle of a file.
  const StopSignals* stop_signals = nullptr;
  // A run's: the step of the last checkpoint it can be resumed from (the one it resumed, then
  // each one written; −1 while none), set on the report writer's thread, for the advice of a
  // failed write (run_end_log.h write_failure_advice).
  std::atomic<std::int64_t>* checkpoint_step = nullptr;
};

// The run itself, once its log is open (run_simulation).
RunSummary run_logged(const RunSpec& given_spec, const RunOptions& options, RunReporter* extra, const RunPaths& paths,
                      const RunFileHolding& file_holding, RunLog& run_log) {
  const fs::path& out = paths.out;
  const fs::path& checkpoint_path = paths.checkpoint;
  const fs::path& log_path = paths.log;
  const bool own_files = paths.own_files;
  const RunReporter* sizes_of = paths.extra_files;
  // Where the files go (the output directory, or a SOP-GPU configuration's checkpoint
  // directory), for the disk estimate (run/output_size.h).
  const fs::path files_directory = given_spec.output.write_directory ? out : checkpoint_path.parent_path();
  auto& log = run_log.both;
  // A signal during the start (docs/outputs.md#stopping-a-run): nothing to save yet, and
  // nothing of the run's files written or removed after the phase it came in.
  auto signal_during_start = [&]() { return paths.stop_signals ? paths.stop_signals->received() : 0; };
  auto stopped_during_start = [&](int signal, std::int64_t step) {
    log_start_stop(signal, options.resume, *log);
    RunSummary summary;
    summary.output_directory = out;
    summary.first_step = summary.last_step = step;
    summary.stopped_by_signal = signal;
    return summary;
  };

  // An input file that is not there is reported at the configuration line that names it
  // (the loaders name only the file).
  const InputSpec& in = given_spec.input;
  std::vector<std::pair<std::string, fs::path>> inputs = {
      {"input.structure", in.structure}, {"input.topology", in.topology}, {"input.coordinates", in.coordinates}};
  for (const fs::path& p : in.replica_coordinates) inputs.emplace_back("input.replica_coordinates", p);
  for (const auto& [key, path] : inputs)
    if (!path.empty() && !fs::exists(path) && given_spec.key_sources.count(key))
      throw key_error(given_spec, key,
                      "file not found: " + path.string() +
                          (given_spec.key_sources.at(key).file == "--set"
                               ? " (a relative path given with --set is relative to the working directory)"
                           : is_sopgpu_config(given_spec.config_path)
                               ? " (a relative path in a .sop file is relative to the working directory, as in "
                                 "SOP-GPU)"
                               : " (a relative path is relative to the configuration file)"));
  LoadedSystem system;
  try {
    system = load_system(given_spec.input, given_spec.model_build);
  } catch (const Error& e) {
    // An error about a whole input file (no line of it to name: a directory, or coordinates
    // with another atom count than the topology) is reported at the configuration line that
    // names the file too.
    // One about another key the configuration gave (input.chains) is reported at that key's line.
    std::error_code ec;
    if (e.line() == 0 && !e.file().empty())
      for (const auto& [key, path] : inputs)
        if (!path.empty() && given_spec.key_sources.count(key) && fs::equivalent(fs::path(e.file()), path, ec)) {
          const bool other_key = e.field() != key && given_spec.key_sources.count(e.field());
          throw key_error(given_spec, other_key ? e.field() : key,
                          path.string() + ": " + (e.field().empty() || e.field() == key || other_key ? "" : e.field() + ": ") +
                              e.description());
        }
    throw;
  }
  if (options.resume)
    if (const std::string note = keep_the_model_the_run_started_with(given_spec, checkpoint_path, system);
        !note.empty())
      log->info("note: {}", note);
  const Topology& topology = system.topology;
  // Residue selections in the bead lists ("A:76") become indices of this model.
  RunSpec resolved_spec = given_spec;
  const std::vector<std::string> bead_selection_lines =
      resolve_bead_selections(resolved_spec, topology, system.initial_positions_A);
  if (std::string note = resolve_hydrodynamics(resolved_spec, topology); !note.empty())  // "auto" by the model's size
    resolved_spec.notes.push_back(std::move(note));
  const RunSpec& spec = resolved_spec;
  const std::int32_t n = topology.bead_count();
  const std::int32_t replicas = spec.replicas;
  // Warnings of the checks below are logged after the run's start line: run.log's readers
  // (`ermak analyze`) split an appended log into attempts there, and a warning before it
  // would fall to the attempt before. A check that throws first still leaves them logged
  // (they may explain its error).
  struct PendingWarnings {
    spdlog::logger& log;
    std::vector<std::string> lines;
    void flush() {
      for (const std::string& line : lines) log.warn("{}", line);
      lines.clear();
    }
    ~PendingWarnings() { flush(); }
  } start_warnings{*log, {}};
  for (const auto& w : system.warnings) start_warnings.lines.push_back("warning: " + w);
  for (std::int32_t b : spec.fixed_beads)
    if (b < 0 || b >= n) {
      throw key_error(spec, "fixed.beads",
                  "bead " + std::to_string(b) + " is out of range: the model has " +
                      std::to_string(n) + " beads (0.." + std::to_string(n - 1) + ")");
    }
  validate_protocols(spec, topology);
  check_hydrodynamics(spec, topology);
  // model.psf is written at the start: names it cannot hold stop a dry run too, at the model's
  // file, where they are changed.
  if (spec.output.write_directory)
    check_psf_names(topology, (spec.input.structure.empty() ? spec.input.topology : spec.input.structure).string());
  if (repulsion_cut_inside_sigma(spec.sop))
    throw key_error(spec, blamed_key(spec, {"model.pair_cutoff_A", "model.repulsion_sigma_A"}),
                    fmt::format("the repulsion's cutoff {:g} Å is not beyond its σ {:g} Å: the repulsion would be cut "
                                "where it is ε_l or more, losing the excluded volume (SOP-GPU: 20 Å against 3.8 Å; "
                                "docs/model.md#repulsion)",
                                spec.sop.pair_cutoff_A, spec.sop.repulsion_sigma_A));
  for (std::string warning : {check_step_size(spec), clamp_tension_warning(spec), sparse_protocol_rows_warning(spec),
                               nothing_holds_warning(spec),
                               tea_bond_noise_warning(spec, given_spec.langevin.hydrodynamics.method, topology,
                                                      system.initial_positions_A)})
    if (!warning.empty()) start_warnings.lines.push_back(std::move(warning));
  // The start coordinates, each with the file (and key) that gave them: one file for every
  // replica, or with input.replica_coordinates one per replica (replica 0's is also
  // initial_positions_A).
  if (!options.resume) {
    struct StartCoordinates {
      const std::vector<Vec3d>* positions_A;
      std::string source, field;
    };
    std::vector<StartCoordinates> starts;
    if (system.replica_positions_A.empty())
      starts.push_back({&system.initial_positions_A, start_coordinates_source(spec.input).string(), ""});
    for (std::size_t r = 0; r < system.replica_positions_A.size(); ++r)
      starts.push_back({&system.replica_positions_A[r], spec.input.replica_coordinates.at(r).string(),
                        replica_coordinates_field(r)});
    const double noise_A = largest_noise_amplitude_A(spec);
    std::string resolution;  // the first file's warning only
    for (const StartCoordinates& start : starts) {
      // A bond beyond r0 ± R0 would stop the run at its first check with a message about the
      // dynamics: the coordinates file is named instead.
      check_start_coordinates(topology, *start.positions_A, spec.sop.fene_R0_A, start.source, start.field);
      // Far from the origin single-precision positions cannot follow a step's noise.
      std::string warning =
          check_coordinate_resolution(topology, *start.positions_A, noise_A, start.source, start.field);
      if (resolution.empty()) resolution = std::move(warning);
    }
    if (!resolution.empty()) start_warnings.lines.push_back(std::move(resolution));
  }

  const std::vector<std::int32_t> pieces = bonded_pieces(topology);
  const PullingTravel travel = assess_pulling_travel(spec, topology, system.initial_positions_A);
  log_run_start(spec, topology, system.initial_positions_A, pieces, travel.warning, bead_selection_lines, options,
                run_log);
  start_warnings.flush();
  if (!options.dry_run && !run_log.file_failed->load())
    log->info("resolved configuration written to {}", log_path.string());
  const OpenFileLimit& file_limit = file_holding.limit;
  if (file_limit.soft != file_limit.soft_at_start)
    log->info("open-file limit raised from {} to {} (the hard limit)", file_limit.soft_at_start, file_limit.soft);
  if (const std::string note = file_holding_note(file_holding); !note.empty()) log->info("{}", note);

  if (const int signal = signal_during_start()) return stopped_during_start(signal, 0);
  EngineSetup setup = engine_setup_for(spec, topology);
  const std::string backend = choose_backend(spec, setup, *log);
  std::unique_ptr<Engine> engine;

  const std::string fingerprint = config_fingerprint(spec.resolved_toml);
  const std::string settings_text = fingerprinted_text(spec.resolved_toml);
  const std::string model_print = model_fingerprint(topology);
  const std::string model_size = model_summary(topology);
  const ChainEnds energy_ends = chain_ends(topology);  // the energy tables' end-to-end
  // Each replica's files in the output directory, once the protocols are known.
  ReplicaFiles files(spec, nullptr, file_holding.holding);
  const bool want_trajectory = own_files && spec.output.trajectory_every_steps > 0;
  // The DCD header holds the frame interval (and the first frame's step) as int32, saturated
  // beyond (docs/outputs.md#dcd): readers then compute a wrong time between frames.
  if ((spec.output.write_directory || is_sopgpu_config(spec.config_path)) &&
      spec.output.trajectory_every_steps > std::numeric_limits<std::int32_t>::max())
    log->warn("warning: {} = {} is beyond the DCD header's 32-bit frame interval: VMD and "
              "MDAnalysis will read 2147483647 steps between frames (dt {:.3g} % short); the exact interval is in the "
              "DCD title and this log",
              is_sopgpu_config(spec.config_path) ? "dcdfreq" : "output.trajectory_every",
              spec.output.trajectory_every_steps,
              100.0 * (1.0 - 2147483647.0 / double(spec.output.trajectory_every_steps)));

  // Protocols (docs/protocols.md) are resolved at the run's start positions: after the
  // minimisation of a new run, or from the start positions kept in the checkpoint.
  const bool any_protocol = spec.pulling.enabled || spec.force_clamp.enabled || spec.plane_pulling.enabled ||
                            spec.indentation.enabled;
  const std::vector<std::int32_t> reference_beads = protocol_reference_beads(spec, n);
  std::optional<ProtocolSetup> protocol;
  // The protocols' start (step and reference positions), kept in every checkpoint.
  std::vector<std::pair<std::string, std::string>> protocol_extra;
  auto log_protocol = [&]() {
    if (!protocol) return;
    for (const std::string& line : protocol->describe()) log->info("{}", line);
    for (const std::string& line : protocol->travel_warnings())
      (line.rfind("warning", 0) == 0 ? log->warn("{}", line) : log->info("{}", line));
  };

  // A resume at the checkpoint's own step whose run did not finish there (see kFinishedAtStep).
  bool finish_at_checkpoint = false;
  if (options.resume) {
    Checkpoint cp = read_checkpoint(checkpoint_path);
    check_checkpoint_of_this_run(cp, spec, checkpoint_path, topology);
    if (paths.checkpoint_step) paths.checkpoint_step->store(cp.step);
    auto extra = [&](const std::string& key) -> const std::string& {
      for (const auto& [name, value] : cp.extra)
        if (name == key) return value;
      throw Error(checkpoint_path.string(), 0, key, "checkpoint lacks the protocol data");
    };
    if (any_protocol) {
      std::int64_t start_step = 0;
      if (const std::string& text = extra("protocol.start_step");
          std::from_chars(text.data(), text.data() + text.size(), start_step).ec != std::errc{})
        throw Error(checkpoint_path.string(), 0, "protocol.start_step", "is not an integer: '" + text + "'");
      const State start = scatter_positions(decode_floats(extra("protocol.start_positions"), "protocol.start_positions"),
                                            reference_beads, n, replicas, start_step);
      protocol.emplace(spec, topology, start, false);
      protocol->fill(setup);
      protocol_extra = {{"protocol.start_step", extra("protocol.start_step")},
                        {"protocol.start_positions", extra("protocol.start_positions")}};
    }
    engine = make_engine(backend, setup, spec.cuda_kernels);
    engine->set_state(cp.positions);
    engine->restore_neighbor_reference(cp.neighbor_reference);
    if (cp.rng_name != engine->noise_name())
      throw Error(checkpoint_path.string(), 0, "run.rng",
                  "this checkpoint was written with the noise generator " + cp.rng_name +
                      ", but the configuration asks for " + engine->noise_name() +
                      "; a run continues with the generator it started with");
    if (!cp.rng_state.empty()) {
      try {
        engine->restore_noise_state(cp.rng_state);
      } catch (const Error& e) {
        throw Error(checkpoint_path.string(), 0, "rng_state", e.what());
      }
    }
    if (any_protocol)
      engine->restore_protocol_state(decode_doubles(extra("protocol.engine_state"), "protocol.engine_state"));
    // Checkpoints of ermak before kFinishedAtStep: a finished run with off-interval rows
    // left kOffsetsBeforeEndRows; one on every interval owes no rows.
    const bool finished_there = std::any_of(cp.extra.begin(), cp.extra.end(), [](const auto& e) {
      return e.first == kFinishedAtStep || e.first == kOffsetsBeforeEndRows;
    });
    // A finished run resumed at its own steps whose tables are not as its checkpoint left them:
    // an extension (a higher run.steps) cut its end rows and wrote on, then stopped before its
    // first checkpoint. Cutting to the checkpoint's sizes alone would keep a row of the
    // extension in place of the end row; the end rows are written again instead.
    bool rewrite_end_rows = false;
    if (finished_there && spec.steps == cp.step && own_files && !options.dry_run) {
      std::error_code error;
      for (const auto& [name, offset] : cp.output_offsets)
        if (name.rfind("replica_", 0) == 0 && fs::file_size(out / name, error) != offset) rewrite_end_rows = true;
    }
    // A finished run extended by a higher [run] steps continues from before the rows its
    // last step added off the tables' intervals; a stopped or unchanged run keeps them.
    for (const auto& [key, value] : cp.extra)
      if (key == kOffsetsBeforeEndRows && (spec.steps > cp.step || rewrite_end_rows))
        cp.output_offsets = offsets_without_end_rows(cp, value, checkpoint_path);
    // The run continues the files it started with: neither drops nor adds ermak's own
    // output directory (a SOP-GPU configuration's --ermak-output).
    const bool wrote_own_files = std::any_of(cp.output_offsets.begin(), cp.output_offsets.end(),
                                             [](const auto& o) { return o.first.rfind("replica_", 0) == 0; });
    if (wrote_own_files && !spec.output.write_directory)
      throw Error(checkpoint_path.string(), 0, "",
                  "this run also wrote ermak's own output directory (--ermak-output) when it started; give it "
                  "again so that --resume continues those files too");
    auto offset_of = [&](const std::string& key) -> std::uint64_t {
      for (const auto& [name, offset] : cp.output_offsets)
        if (name == key) return offset;
      if (!wrote_own_files && key.rfind("replica_", 0) == 0)
        throw Error(checkpoint_path.string(), 0, "",
                    "this run did not write ermak's output directory when it started (--ermak-output was not "
                    "given); --resume continues only the files a run started with");
      throw Error(checkpoint_path.string(), 0, key, "checkpoint lacks the output offset");
    };
    // The replica directories keep the names the run started with (3 digits at any count
    // before 2026-11-30).
    files = ReplicaFiles(spec, protocol ? &*protocol : nullptr, file_holding.holding,
                         replica_name_digits_in(cp.output_offsets));
    // Every file the run continues is there and long enough before any is cut back to its
    // checkpoint offset: a refused resume cuts nothing (docs/outputs.md#resume).
    // A .sop run's checkpoint lies beside its SOP-GPU files, not in --ermak-output's directory:
    // another --ermak-output holds none of the files it continues (an audit's "energies.tsv:
    // missing").
    if (spec.output.write_directory && wrote_own_files && replicas > 0 && is_sopgpu_config(spec.config_path) &&
        !fs::is_directory(out / files.dir_name(0)))
      throw Error(out.string(), 0, "--ermak-output",
                  "holds none of the files of the run this checkpoint continues (no " + files.dir_name(0) +
                      "/): give the --ermak-output the run started with (the directory holding its run.log and " +
                      files.dir_name(0) + "/)");
    for (std::int32_t r = 0; r < (spec.output.write_directory ? replicas : 0); ++r) {  // a dry run's too
      const std::string dir = files.dir_name(r) + "/";
      for (const std::string& name : files.file_names())
        check_file_to_continue(out / (dir + name), offset_of(dir + name));
    }
    if (options.dry_run && sizes_of) sizes_of->check_files(true, false, &cp.output_offsets);
    if (own_files) check_kept_model_file(out, topology);
    if (const int signal = signal_during_start()) return stopped_during_start(signal, cp.step);
    const ReplicaFiles::CutBack cut = own_files ? files.append(out, replicas, n, offset_of) : ReplicaFiles::CutBack{};
    // A finished run extended by a higher [run] steps is unfinished again: its final.pdb
    // files would outlive a crash of the extension beside tables that go past them
    // (docs/outputs.md: an unfinished run has no final.pdb); the new last step writes them.
    if (own_files && !options.dry_run && spec.steps > cp.step) {
      int removed = 0;
      for (std::int32_t r = 0; r < replicas; ++r) removed += fs::remove(out / files.dir_name(r) / "final.pdb") ? 1 : 0;
      if (removed > 0)
        log->info("removed the final.pdb of {} replica{} (step {}): the run writes them again at step {}", removed,
                  removed == 1 ? "" : "s", cp.step, spec.steps);
    }
    // A model file deleted since the start (e.g. to save space) is written again: the
    // checkpoint's model fingerprint has shown it is the same model.
    if (own_files && !options.dry_run)
      for (const std::string& name : write_model_files(out, topology, system.initial_positions_A, true))
        log->info("{} was missing: written again", name);
    log_protocol();
    log->info("{} at step {}", options.dry_run ? "would resume" : "resumed", cp.step);
    if (cut.files > 0)
      log->info("cut {} that {} file{} held beyond the checkpoint (rows and frames written after it; the run writes "
                "them again)",
                format_byte_size(double(cut.bytes)), cut.files, cut.files == 1 ? "" : "s");
    finish_at_checkpoint = cp.step == spec.steps && (!finished_there || rewrite_end_rows);
    if (rewrite_end_rows)
      log->info("the run finished at step {}, but its tables changed since (an extension to more steps that stopped "
                "before its first checkpoint?): cut back to that step and its last rows written again; `--resume "
                "--set run.steps=N` continues the extension",
                spec.steps);
    else if (finish_at_checkpoint)
      log->info("the checkpoint is at the run's last step {}, where the run did not finish: writing that step's "
                "last rows and final files",
                spec.steps);
    else if (cp.step >= spec.steps)
      log->info("the run had already reached its {} steps: nothing to continue (raise run.steps to run longer)",
                spec.steps);
  } else {
    // Every replica starts at the input coordinates, or at its own (input.replica_coordinates).
    State initial(n, replicas);
    for (std::int32_t r = 0; r < replicas; ++r) {
      const auto& positions = system.replica_positions_A.empty() ? system.initial_positions_A
                                                                 : system.replica_positions_A.at(r);
      for (std::int32_t i = 0; i < n; ++i) initial.set_position(r, i, vec_cast<float>(positions[i]));
    }
    // The minimisation runs without the protocols (their springs start relaxed at the
    // minimised positions; the tip and the surface are checked against them).
    State start = initial;
    if (spec.minimize.max_steps > 0 && options.dry_run) {
      log->info("dry run: the minimisation ([minimize] steps = {}) is not run; the protocols' start checks and "
                "the timed steps use the input coordinates",
                spec.minimize.max_steps);
    } else if (spec.minimize.max_steps > 0) {
      engine = make_engine(backend, setup, spec.cuda_kernels);
      engine->set_state(initial);
      refuse_coincident_start(*engine, engine->forces(), spec);
      const auto minimize_start = std::chrono::steady_clock::now();
      // A signal ends the minimisation at its next iteration; the run then stops below,
      // before it writes any file (docs/outputs.md#stopping-a-run).
      const MinimizeResult m = engine->minimize(
          spec.minimize.max_steps, spec.minimize.force_tolerance_kcal_per_mol_A, spec.minimize.max_displacement_A,
          [&signal_during_start]() { return signal_during_start() != 0; });
      log_minimisation(m, std::chrono::duration<double>(std::chrono::steady_clock::now() - minimize_start).count(),
                       spec, *log);
      if (m.interrupted) return stopped_during_start(signal_during_start(), initial.step);
      start = engine->state();
    }
    if (any_protocol) {
      protocol.emplace(spec, topology, start, true);
      protocol->fill(setup);
      protocol_extra = {{"protocol.start_step", std::to_string(start.step)},
                        {"protocol.start_positions", encode_floats(gather_positions(start, reference_beads))}};
      engine.reset();
    }
    if (!engine) {
      engine = make_engine(backend, setup, spec.cuda_kernels);
      engine->set_state(start);
    }
    if (spec.minimize.max_steps == 0 || options.dry_run) {
      // One evaluation of the start's forces for both checks.
      const State forces = engine->forces();
      refuse_coincident_start(*engine, forces, spec);
      if (spec.minimize.max_steps == 0) warn_of_start_forces(forces, topology, spec, *log);
    }
    log_protocol();
    files = ReplicaFiles(spec, protocol ? &*protocol : nullptr, file_holding.holding);
    if (const int signal = signal_during_start()) return stopped_during_start(signal, start.step);
    if (paths.remove_previous) {
      std::size_t removed = remove_previous_run(out, true);
      // Last, with the earlier run's tables and checkpoint gone: its log makes way for this one's.
      if (!paths.pending_log.empty()) {
        removed += fs::exists(paths.log) ? 1 : 0;
        fs::rename(paths.pending_log, paths.log);
      }
      if (removed > 0) log->info("--force: removed {} files of the earlier run in {}", removed, out.string());
      // ermak analyze's analysis/ is not the run's to remove: it stays, of the earlier run.
      if (const std::string note = earlier_analysis_note(out, "the earlier run");
          !note.empty() && !options.caller_handles_analysis)
        log->info("note: {} once it has ended", note);
    }
    if (own_files) {
      write_model_files(out, topology, system.initial_positions_A, false);
      if (const std::string clash = segment_id_clash(topology); !clash.empty()) log->warn("model.pdb: {}", clash);
      if (const std::string wrap = residue_numbers_beyond_pdb(topology); !wrap.empty())
        log->warn("model.pdb: {}", wrap);
    }
    if (own_files) files.create(out, replicas, n);
  }


  // What the run's files take from first to last step, the extra reporter's included.
  auto output_size = [&](std::int64_t first, std::int64_t last) {
    OutputSizeEstimate estimate =
        estimate_output_size(spec, protocol ? &*protocol : nullptr, n, first, last, options.resume,
                             topology.native_contacts.size());
    if (sizes_of) estimate.sopgpu_files = sizes_of->bytes_to_write(first, last, n, options.resume);
    return estimate;
  };
  if (options.dry_run) {
    DryRunFacts facts;
    const std::string kernel = cuda_kernel_layout(*engine);
    facts.backend = engine->name() + (kernel.empty() ? "" : " (" + kernel + ")");
    facts.gpu_bytes = cuda_engine_device_bytes(*engine);
    facts.checkpoint_every = spec.output.checkpoint_every_steps;
    facts.beads_per_replica = n;
    facts.replicas = replicas;
    facts.first_step = engine->state().step;
    facts.last_step = std::max(facts.first_step, spec.steps);
    facts.output_holds_a_run = options.dry_run_output_holds_a_run;
    log_output_size(*log, output_size(facts.first_step, facts.last_step), files_directory, sizes_of != nullptr);
    facts.timing = time_engine_steps(*engine, facts.last_step - facts.first_step, options.dry_run_seconds);
    // The checks a run makes at its stops, on the timed steps' end: a run that goes unstable
    // at once (a time step or force far too large) fails its dry run too.
    try {
      const State& after = engine->state();
      check_finite(after, facts.first_step);
      bond_check_for_run(topology, spec, travel.overload_step)(after, facts.first_step);
    } catch (const Error& e) {
      throw Error(std::string("dry run: ") + e.what());
    }
    for (const std::string& line : describe_dry_run(facts)) log->info("{}", line);
    RunSummary summary;
    summary.output_directory = out;
    summary.first_step = facts.first_step;
    summary.last_step = facts.first_step;  // nothing was run
    summary.steps_per_second = facts.timing.steps_per_second();
    return summary;
  }

  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  RunCosts costs;  // for the run log's last lines
  // Each replica's rows and frames go to its own files, so the writer thread spreads them
  // over a few threads where cores are idle (run/replica_loop.h).
  // omp_get_max_threads() honours OMP_NUM_THREADS, which batch scripts set to a job's share.
  const int file_threads = report_threads(backend == "cpu", std::min(omp_get_num_procs(), omp_get_max_threads()),
                                          options.report_threads);
  const ProtocolSetup* protocol_setup = protocol ? &*protocol : nullptr;
  // A stop's rows and frame (run/stop_snapshot.h): taken from the engine on this thread,
  // written with the extra reporter's files on the report writer's thread.
  struct StopReport {
    StopSnapshot snapshot;
    RunReporter::Work extra_work;  // the extra reporter's files, written first
  };
  auto take_snapshot = [&](std::int64_t step, const StopsDue& due, StopValues&& values) {
    const auto start = Clock::now();
    auto report = std::make_shared<StopReport>();
    report->snapshot = take_stop_snapshot(step, due, std::move(values));
    costs.snapshot_seconds += seconds_since(start);
    return report;
  };
  // What the checkpoint jobs use on the writer thread, declared before the writer like the
  // files: a run stopping with an error destroys the writer first, whose thread then finishes
  // the rows and the checkpoint already queued (they passed their checks) with these alive.
  // Written by the checkpoint jobs on the writer thread; read once the writer is drained.
  // Every output file's size once flushed: on the writer thread, where the jobs before
  // have written every row taken so far.
  auto file_offsets = [&]() {
    files.flush(file_threads);
    Checkpoint::Offsets offsets = files.offsets();
    if (extra) extra->checkpoint(offsets);
    return offsets;
  };
  // Where the files live, for the checkpoint's syncs: the run's own directory (beside a .sop
  // run's checkpoint with --ermak-output, maybe elsewhere) and the extra reporter's.
  std::vector<fs::path> output_directories = extra ? extra->output_directories() : std::vector<fs::path>{};
  if (own_files) output_directories.push_back(out);
  // Declared after every file it writes, so that it is destroyed (and its thread joined)
  // before them when the run ends or stops with an error.
  ReportWriter writer(2, kReportQueueBytes);
  auto submit = [&](std::shared_ptr<StopReport> report) {
    const std::size_t bytes = report->snapshot.bytes() + report->extra_work.bytes;
    writer.submit(
        [report, &files, &spec, protocol_setup, file_threads] {
          if (report->extra_work.write) report->extra_work.write();
          write_stop_snapshot(report->snapshot, files, spec, protocol_setup, file_threads);
        },
        bytes);
  };
  // The driver's other stops, for the run log: checkpoints (taking the state from the
  // engine; the writer thread flushes every file and writes the checkpoint with its syncs)
  // and the instability checks.
  // The same on the driver's thread, after waiting for the writer.
  auto output_offsets = [&]() {
    writer.drain();
    return file_offsets();
  };
  const std::int64_t first_step = engine->state().step;
  const std::int64_t last_step = std::max(first_step, spec.steps);
  // The sizes before the rows a run's last step adds off its tables' intervals: a resume
  // that raises [run] steps cuts those rows away, so that the files end as those of one
  // longer run (docs/outputs.md#resume).
  std::optional<Checkpoint::Offsets> offsets_before_end_rows;
  std::vector<std::string> tables_with_end_rows;  // "energies.tsv", "pulling.tsv", …
  // A checkpoint is taken like a report: the state is copied from the engine here, and the
  // writer thread, once it has written every row and frame taken before, records the files'
  // sizes and writes the checkpoint atomically while the engine goes on. At 9000 WW replicas
  // the flushes and syncs take ~0.6 s, which at the default interval held the GPU up for
  // ~27 % of the run (docs/gpu.md#what-overlaps-the-steps).
  ReportWriter::Ticket checkpoint_in_flight = 0;
  std::int64_t last_checkpoint_step = engine->state().step;
  auto write_checkpoint = [&]() {
    const auto start = Clock::now();
    // One checkpoint at a time: a crash then loses at most one interval and the writing
    // of the next checkpoint (docs/outputs.md#checkpoint, "Taken in the background").
    writer.wait_for(checkpoint_in_flight);
    auto cp = std::make_shared<Checkpoint>();
    cp->seed = spec.seed;
    cp->step = engine->state().step;
    // A tip thrown through the surface between indentation rows is not kept as a resume point.
    if (setup.indentation.enabled)
      check_indentation_tips(setup.indentation, engine->indentation_status(), spec.langevin.timestep_tau,
                             last_checkpoint_step, cp->step);
    last_checkpoint_step = cp->step;
    cp->config_fingerprint = fingerprint;
    cp->positions = engine->state();
    cp->neighbor_reference = engine->neighbor_reference();
    cp->rng_name = engine->noise_name();
    if (spec.rng != "philox") cp->rng_state = engine->noise_state();  // philox: seed and step suffice
    if (protocol) {
      cp->extra = protocol_extra;
      cp->extra.emplace_back("protocol.engine_state", encode_doubles(engine->protocol_state()));
    }
    cp->extra.emplace_back(kConfigSettings, settings_text);
    cp->extra.emplace_back(kModelFingerprint, model_print);
    cp->extra.emplace_back(kModelSummary, model_size);
    if (cp->step == last_step) cp->extra.emplace_back(kFinishedAtStep, std::to_string(cp->step));
    const std::size_t bytes = cp->positions.bytes() + cp->neighbor_reference.bytes();
    auto job = [cp, before_end_rows = offsets_before_end_rows, end_row_tables = tables_with_end_rows, &file_offsets,
                &checkpoint_path, &output_directories, &costs,
                &seconds_since, written_step = paths.checkpoint_step] {
      const auto writing_start = Clock::now();
      cp->output_offsets = file_offsets();
      if (before_end_rows) {
        Checkpoint::Offsets before = cp->output_offsets;
        for (std::size_t k = 0; k < before.size(); ++k)
          for (const std::string& table : end_row_tables)
            if (before[k].first.ends_with("/" + table)) before[k].second = (*before_end_rows)[k].second;
        cp->extra.emplace_back(kOffsetsBeforeEndRows, encode_offsets(before));
      }
      write_checkpoint_atomically(checkpoint_path, *cp, output_directories);
      if (written_step) written_step->store(cp->step);
      ++costs.checkpoints_written;
      costs.checkpoint_writing_seconds += seconds_since(writing_start);
    };
    checkpoint_in_flight = writer.submit(std::move(job), bytes);
    costs.checkpoint_seconds += seconds_since(start);
  };

  log_output_size(*log, output_size(first_step, last_step), files_directory, sizes_of != nullptr);
  auto multiple = [](std::int64_t step, std::int64_t every) { return every > 0 && step % every == 0; };
  const std::int64_t pulling_every = own_files && files.writes(ProtocolTable::kPulling) ? protocol->pulling_every() : 0;
  const std::int64_t plane_every = own_files && files.writes(ProtocolTable::kPlane) ? protocol->plane_every() : 0;
  const std::int64_t indentation_every =
      own_files && files.writes(ProtocolTable::kIndentation) ? protocol->indentation_every() : 0;
  ReportContext context{*engine, topology, protocol ? &*protocol : nullptr, last_step, file_threads, first_step,
                        file_holding.holding};
  if (extra) {
    if (options.resume) {
      const Checkpoint cp = read_checkpoint(checkpoint_path);
      extra->open(context, true, cp.output_offsets);
    } else {
      extra->open(context, false, {});
    }
    log->info("{}", extra->describe());
  }
  if (!options.resume) {
    RunReporter::Work extra_work = extra ? extra->report(context) : RunReporter::Work{};
    const StopsDue due{own_files, want_trajectory, pulling_every > 0, plane_every > 0, indentation_every > 0};
    const StopRequest request = stop_request(due, spec, protocol_setup, energy_ends);
    const auto start = Clock::now();
    StopValues values = engine->take_stop(request);
    costs.snapshot_seconds += seconds_since(start);
    auto report = take_snapshot(first_step, due, std::move(values));
    report->extra_work = std::move(extra_work);
    submit(std::move(report));
    // A checkpoint at the start too (after the minimisation and the first rows): a run
    // killed before its first interval then resumes from here instead of starting over
    // with --force (docs/outputs.md#checkpoint). A run of no steps takes its one at the end.
    // The run log's checkpoint advice leaves it out: no interval makes it rarer.
    if (first_step < last_step) {
      write_checkpoint();
      costs.start_checkpoints = 1;
    }
  }
  // CUDA: the kernel family and its layout, e.g. "cuda (block/ap/S1/g11)" (docs/gpu.md#kernel-families).
  const std::string kernel = cuda_kernel_layout(*engine);
  const std::string backend_name = engine->name() + (kernel.empty() ? "" : " (" + kernel + ")");
  // The minimisation's list builds are not the steps' (the engine may have minimised).
  const std::int64_t rebuilds_before_steps = engine->stats().neighbor_rebuilds;
  // The model time the steps cover: what a user compares with an experiment's (docs/units.md#time).
  const double step_ps = units::tau_to_ps(spec.langevin.timestep_tau);
  const std::string covers = fmt::format("{} at {:g} ps per step", format_simulated_time(double(last_step - first_step) * step_ps), step_ps);
  if (own_files)
    log->info("running steps {} .. {} ({}) on backend {} (outputs in {}, energy rows every {} steps)", first_step,
              last_step, covers, backend_name, out.string(), spec.output.energy_every_steps);
  else
    log->info("running steps {} .. {} ({}) on backend {}", first_step, last_step, covers, backend_name);
  // A DCD's frames are evenly spaced (docs/outputs.md#dcd): the last one may fall
  // before the run's last step, which the tables and final.pdb still reach.
  const std::int64_t frame_every = spec.output.trajectory_every_steps;
  if (own_files && frame_every > 0 && spec.steps % frame_every != 0)
    log->info("note: run.steps = {} is not a multiple of output.trajectory_every = {}: the trajectories' last frame "
              "will be step {}; final.pdb and the tables' last rows hold step {}",
              spec.steps, frame_every, spec.steps / frame_every * frame_every, spec.steps);

  const BondStretchCheck check_bonds = bond_check_for_run(topology, spec, travel.overload_step);
  ProgressMeter progress(first_step, last_step, std::int64_t(n) * replicas);
  if (options.quiet) progress.silence();  // --quiet: the run log only
  // Noted since the run's start (a dry run, which has none, returned above).
  if (!paths.stop_signals) throw Error("internal: a run without its stop signals");
  const StopSignals& stop_signals = *paths.stop_signals;
  int stopped_by = 0;
  std::int64_t step = first_step;
  // The last step whose positions passed the stability checks: an error names the steps
  // between it and the stop that found the problem, and progress-only chunks check nothing.
  std::int64_t checked_step = first_step;
  // The end of the next chunk of steps from `from`: the next step that something is due
  // at, or a chunk that keeps the progress line alive on long report intervals.
  auto next_target = [&](std::int64_t from) {
    auto next_event = [&](std::int64_t every) { return every > 0 ? (from / every + 1) * every : last_step; };
    std::int64_t extra_target = last_step;
    if (extra)
      for (std::int64_t every : extra->intervals())
        if (every > 0) extra_target = std::min(extra_target, next_event(every));
    const std::int64_t target = std::min({last_step, extra_target, next_event(spec.output.energy_every_steps),
                                          want_trajectory ? next_event(spec.output.trajectory_every_steps) : last_step,
                                          next_event(spec.output.checkpoint_every_steps),
                                          pulling_every ? next_event(pulling_every) : last_step,
                                          plane_every ? next_event(plane_every) : last_step,
                                          indentation_every ? next_event(indentation_every) : last_step});
    return std::min(target, from + std::max<std::int64_t>(1, std::int64_t(progress.steps_per_second() * 0.5) + 1));
  };
  // > step: the engine is stepping there since the last stop (Engine::stop_and_advance).
  std::int64_t launched_to = -1;
  const OverlapStops overlap = overlap_stops_setting();
  while (step < last_step || finish_at_checkpoint) {
    const auto advance_start = Clock::now();
    // Resumed at its last step without having finished there: no steps, only the rows that
    // step adds off the tables' intervals (those on them are in the files already).
    const bool finishing = std::exchange(finish_at_checkpoint, false);
    std::int64_t target = launched_to;
    if (finishing) {
      target = step;
    } else if (launched_to > step) {
      launched_to = -1;
    } else {
      target = next_target(step);
      engine->advance(target - step);
      ++costs.advances;
    }
    step = target;
    auto row_due = [&](std::int64_t every) {
      return finishing ? !multiple(step, every) : multiple(step, every) || step == last_step;
    };
    const bool report = row_due(spec.output.energy_every_steps);
    const bool frame = !finishing && want_trajectory && multiple(step, spec.output.trajectory_every_steps);
    const bool checkpoint = multiple(step, spec.output.checkpoint_every_steps) || step == last_step;
    const bool pull_row = pulling_every && row_due(pulling_every);
    const bool plane_row = plane_every && row_due(plane_every);
    const bool indentation_row = indentation_every && row_due(indentation_every);
    const bool stop = extra || report || frame || checkpoint || pull_row || plane_row || indentation_row;
    // At a stop the engine screens for instabilities (waiting for the steps, so their time
    // ends there; an engine that returns from advance() early has the rest counted at the
    // next stop) and takes what the rows and frames need. Where the engine can, the next
    // chunk starts behind the stop's values (docs/gpu.md#what-overlaps-the-steps): not
    // when the extra reporter or a checkpoint needs the engine at this step, at the last
    // step, or once a signal asks the run to stop here.
    const StopsDue due{own_files && report, frame, pull_row, plane_row, indentation_row};
    const StopRequest request = stop_request(due, spec, protocol_setup, energy_ends);
    StopValues values;
    bool overlapped = false;
    if (stop) {
      overlapped = (overlap == OverlapStops::kAlways || (overlap == OverlapStops::kWhereTheEngineDoes &&
                                                          engine->overlaps_stops())) &&
                   !extra && !checkpoint && step < last_step && stop_signals.received() == 0;
      if (overlapped) {  // its time is mostly the wait for the steps before
        launched_to = next_target(step);
        values = engine->stop_and_advance(request, launched_to - step);
        ++costs.advances;
      } else {
        costs.advance_seconds += seconds_since(advance_start);
        const auto start = Clock::now();
        values = engine->take_stop(request);
        costs.snapshot_seconds += seconds_since(start);
      }
    }
    const auto stepped = Clock::now();
    if (!stop || overlapped) costs.advance_seconds += std::chrono::duration<double>(stepped - advance_start).count();
    // Only when the screen flags something do the exact checks look at every position (the
    // stop's: the engine may have moved on).
    if (values.may_be_unstable) {
      if (overlapped && values.positions.x.empty())
        throw Error("internal: the engine flagged the stop at step " + std::to_string(step) +
                    " but returned no positions to check");
      const State& at_stop = values.positions.x.empty() ? engine->state() : values.positions;
      check_finite(at_stop, checked_step);
      check_bonds(at_stop, checked_step);
      costs.check_seconds += seconds_since(stepped);
    }
    if (!values.indentation.empty())
      check_indentation_tips(setup.indentation, values.indentation, spec.langevin.timestep_tau, checked_step, step);
    if (stop) checked_step = step;
    if (step == last_step && own_files) {
      if (report && !multiple(step, spec.output.energy_every_steps)) tables_with_end_rows.push_back("energies.tsv");
      if (pull_row && !multiple(step, pulling_every)) tables_with_end_rows.push_back("pulling.tsv");
      if (plane_row && !multiple(step, plane_every)) tables_with_end_rows.push_back("plane.tsv");
      if (indentation_row && !multiple(step, indentation_every)) tables_with_end_rows.push_back("indentation.tsv");
      if (!tables_with_end_rows.empty()) offsets_before_end_rows = output_offsets();
    }
    context.step = step;
    RunReporter::Work extra_work = extra && !finishing ? extra->report(context) : RunReporter::Work{};
    if (extra_work.write || (own_files && report) || frame || pull_row || plane_row || indentation_row) {
      auto due_report = take_snapshot(step, due, std::move(values));
      due_report->extra_work = std::move(extra_work);
      submit(std::move(due_report));
    }
    if (checkpoint) write_checkpoint();
    progress.update(step);
    // Long runs say how far they are in the run log (and, where no live line is drawn, a
    // batch job's output): after a minute, then every 10 minutes.
    if (auto line = progress.log_line_due()) (progress.drawing() ? run_log.file_only : log)->info("progress: {}", *line);
    // At the last step: finish; with steps under way: stop at their end, the next stop.
    if (step < last_step && launched_to < 0 && (stopped_by = stop_signals.received()) != 0) {
      if (!checkpoint) write_checkpoint();
      break;
    }
  }
  // A run of no steps (e.g. only the minimisation) still ends with a checkpoint, so that
  // --resume with a higher [run] steps continues from its state.
  if (!options.resume && first_step == last_step) write_checkpoint();
  writer.drain();  // a failed write stops the run with its error here at the latest
  progress.finish();  // the rate includes the last stops' writing and the final checkpoint
  // The run's rate: the steps and their reports, not the final files below (10⁴ replicas
  // write 10⁴ PDBs).
  RunSummary summary;
  summary.output_directory = out;
  summary.first_step = first_step;
  summary.last_step = step;
  summary.wall_seconds = progress.elapsed_seconds();
  summary.steps_per_second = progress.steps_per_second();
  summary.stopped_by_signal = stopped_by;
  if (stopped_by != 0) {
    log_signal_stop(spec, stopped_by, step, last_step, summary, checkpoint_path, *log);
    return summary;
  }

  const auto final_start = Clock::now();
  const State& final_state = engine->state();
  if (extra) {
    extra->finish(context);
    for (const std::string& warning : extra->finish_warnings()) log->warn("{}", warning);
  }
  // A replica whose beads drifted beyond what a PDB's columns hold (a free molecule under a
  // clamp for 10⁷ steps) gets no final.pdb, and the run still finishes.
  std::vector<std::string> unwritable(std::size_t(own_files ? replicas : 0));
  for_each_replica(own_files ? replicas : 0, file_threads, [&](std::int32_t r) {
    const std::size_t o = final_state.index(r, 0);
    unwritable[std::size_t(r)] =
        write_pdb_if_it_fits(out / files.dir_name(r) / "final.pdb", topology, &final_state.x[o], &final_state.y[o],
                             &final_state.z[o], "ermak final coordinates, step " + std::to_string(final_state.step));
  });
  for (std::size_t r = 0; r < unwritable.size(); ++r)
    if (!unwritable[r].empty())
      log->warn("warning: {}/final.pdb not written: its {} does not fit a PDB's 8 columns; the checkpoint{} holds "
                "the final positions",
                files.dir_name(std::int32_t(r)), unwritable[r],
                spec.output.trajectory_every_steps > 0 && final_state.step % spec.output.trajectory_every_steps == 0
                    ? " (and the trajectory's last frame)"
                    : "");
  costs.final_seconds = seconds_since(final_start);
  const RunEndFacts facts{first_step, last_step, n, replicas,
                          engine->stats().neighbor_rebuilds - rebuilds_before_steps, file_threads, own_files};
  log_run_end(spec, summary, facts, costs, writer.totals(), files, *log);
  return summary;
}

}  // namespace

RunSummary run_simulation(const RunSpec& spec, const RunOptions& options, RunReporter* extra) {
  const fs::path out = spec.output.directory;
  // The directory's own files (model, replica_NNN/ tables and trajectories); a SOP-GPU
  // run writes its own files through `extra` instead unless asked for these too.
  const bool own_files = spec.output.write_directory;
  const fs::path checkpoint_path =
      spec.output.checkpoint_file.empty() ? out / "checkpoint.ckpt" : spec.output.checkpoint_file;
  const fs::path log_path = spec.output.log_file.empty() ? out / "run.log" : spec.output.log_file;
  // A run still going on these files is named first (whatever else this one would say);
  // the lock itself is taken below, before anything is written (run/run_lock.h).
  const fs::path lock_file = run_lock_file(checkpoint_path);
  RunLock::check_free(lock_file);
  if (options.resume && options.force)
    throw Error("--resume continues a run and --force starts it over: give one of them");
  // An input among the run's own files (a structure named model.pdb in the output
  // directory) is refused before anything, --force included, touches it.
  {
    std::vector<fs::path> run_files = own_files ? previous_run_files(out) : std::vector<fs::path>{};
    run_files.insert(run_files.end(), {checkpoint_path, fs::path(checkpoint_path) += ".tmp", log_path});
    check_inputs_are_not_run_files(spec, run_files);
  }
  // A run.log that is no ermak log (a user's notes) is not replaced without --force, as no
  // other file that is not the run's is (an audit's lab notes went silently).
  if (!options.resume && !options.force && !is_absent_empty_or_ermak_log(log_path))
    throw Error(log_path.string(), 0, "",
                "exists and is not an ermak run log, but the run writes its log there: move it away, or pass "
                "--force to replace it");
  std::optional<Error> existing_run;  // a dry run's refusal of an output that holds a run
  if (options.resume) {
    // A SOP-GPU run's checkpoint is named by its runs (ww_1-3_…ckpt): another beside it is a
    // run started with other overrides, which --force here would not continue.
    if (!fs::exists(checkpoint_path) && is_sopgpu_config(spec.config_path)) {
      std::string others;
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(checkpoint_path.parent_path(), ec))
        if (entry.path().extension() == ".ckpt")
          others += (others.empty() ? "" : ", ") + entry.path().filename().string();
      if (!others.empty())
        throw Error(checkpoint_path.string(), 0, "",
                    "no checkpoint to resume from; beside it: " + others +
                        " — a run resumes with the overrides it started with (e.g. the same --set runnum=…)");
    }
    // Where no run started (a directory that is missing, or holds no run: an audit's empty
    // one was told to use --force), a plain start does it.
    const fs::path holder = own_files ? out : checkpoint_path.parent_path();
    if (!fs::exists(checkpoint_path))
      throw Error(checkpoint_path.string(), 0, "",
                  !fs::exists(holder) ? "no checkpoint to resume from: " + holder.string() +
                                            " does not exist (start the run without --resume)"
                  : own_files && !directory_has_run(out)
                      ? "no checkpoint to resume from: " + out.string() +
                            " holds no run (start the run without --resume)"
                      : "no checkpoint to resume from (the run stopped before its first checkpoint, or none ran with "
                        "these outputs): start it again with --force");
  } else if (((own_files && directory_has_run(out)) || fs::exists(checkpoint_path)) && !options.force) {
    // Without a checkpoint (a run killed before its first) there is nothing to resume. Name
    // what holds the run: the output directory, or a checkpoint elsewhere (a SOP-GPU
    // configuration's, beside a new --ermak-output directory).
    const bool directory_holds_it = own_files && directory_has_run(out);
    Error refusal(directory_holds_it ? out.string() : checkpoint_path.string(), 0,
                  directory_holds_it ? "output.directory" : "",
                  fs::exists(checkpoint_path)
                      ? "already holds a run; pass --force to overwrite it or --resume to continue it"
                      : "already holds a run that wrote no checkpoint (it stopped before its first one), so it "
                        "cannot be resumed; pass --force to start it again");
    // A dry run checks the rest first (configuration, model, selections), so that one
    // call shows every problem; this one is its answer at the end.
    if (!options.dry_run) throw refusal;
    existing_run = std::move(refusal);
  }
  // Model files without a run (the user's own model.pdb, say): a new run would write over them.
  if (const std::vector<fs::path> model_files = model_files_without_run(out);
      own_files && !options.resume && !options.force && !existing_run && !model_files.empty()) {
    std::string names;
    for (const fs::path& f : model_files) names += (names.empty() ? "" : " and ") + f.filename().string();
    Error refusal(out.string(), 0, "output.directory",
                  "holds " + names + ", which this run would write its model over (the directory holds no run "
                  "of ermak); pass --force to overwrite " + (model_files.size() == 1 ? "it" : "them") +
                      ", or give another output directory");
    if (!options.dry_run) throw refusal;
    existing_run = std::move(refusal);
  }
  // Before anything is written: how the run's files are held under the open-file limit (a
  // limit too low for the run itself stops it here).
  const RunFileHolding file_holding = choose_file_holding(spec, extra, options.report_threads);
  // The places of the run's files ("" for those of a SOP-GPU configuration, which names no
  // TOML key: the message then names the path).
  const std::string checkpoint_key = spec.output.checkpoint_file.empty() ? "output.directory" : "";
  const std::string log_key = spec.output.log_file.empty() ? "output.directory" : "";
  // Every place the run writes, checked before any is made, for a run and a dry run alike.
  if (own_files) check_output_directory(spec, out, "output.directory");
  check_output_directory(spec, checkpoint_path.parent_path(), checkpoint_key);
  check_output_directory(spec, log_path.parent_path(), log_key);
  if (extra) {
    try {
      extra->check_files(options.resume, options.force);
    } catch (const Error& e) {
      // A SOP-GPU configuration's files that exist: in a dry run, like a TOML run's output
      // above, the answer after every other check (docs/outputs.md#dry-run). Two outputs on
      // one file, or a directory that cannot be made, is the configuration's error, which
      // --force does not mend: the same check with --force throws it at once.
      if (!options.dry_run) throw;
      extra->check_files(options.resume, /*force=*/true);
      if (!existing_run) existing_run = e;
    }
  }
  if (options.dry_run) {
    // The same start, but no file: the run's own files are off and the extra reporter
    // writes none.
    RunLog console = make_console_logger();
    RunOptions dry = options;
    dry.dry_run_output_holds_a_run = existing_run.has_value();
    RunSummary summary =
        run_logged(spec, dry, nullptr, {out, checkpoint_path, log_path, false, extra}, file_holding, console);
    if (existing_run) throw *existing_run;
    return summary;
  }
  // From here on this process alone writes these files (run/run_lock.h): a second run on
  // them — a resume or --force while this one runs — stops here before it touches any.
  // Before the lock: a signal from here on stops the run where it can (RunPaths::stop_signals).
  const StopSignals stop_signals;
  make_output_directory(spec, checkpoint_path.parent_path(), checkpoint_key);
  const RunLock lock(lock_file);
  if (extra) extra->prepare(options.resume, options.force);
  if (own_files) make_output_directory(spec, out, "output.directory");
  make_output_directory(spec, log_path.parent_path(), log_key);
  const fs::path log_copy = own_files && fs::absolute(log_path) != fs::absolute(out / "run.log") ? out / "run.log"
                                                                                                  : fs::path{};
  // --force: the earlier run's files go once this run passed its start checks (run_logged).
  // Until then this run logs to run.log.new beside the earlier run's run.log, which becomes
  // this run's when the earlier files are gone; a run that stops before (a signal, an error
  // in its start checks) appends its lines to the earlier run's log, which it leaves in place.
  // A run killed before (SIGKILL) leaves run.log.new behind and run.log as it was.
  const bool remove_previous = !options.resume && options.force && own_files;
  const bool log_pending = remove_previous && log_copy.empty() && directory_has_run(out) && fs::exists(log_path);
  const fs::path pending_log = log_pending ? pending_run_log(log_path) : fs::path{};
  RunLog run_log = make_logger(log_pending ? pending_log : log_path, options.quiet, options.resume, log_copy);
  // From here on the run log says why a run ended: a batch job's log then holds the error
  // that stderr alone would carry.
  // An earlier run left in place (this one stopped before removing it) keeps its log, with
  // this attempt's lines after it.
  auto append_pending_log = [&]() {
    if (!log_pending || !fs::exists(pending_log)) return;
    std::ostringstream attempt;
    attempt << std::ifstream(pending_log, std::ios::binary).rdbuf();
    std::ofstream(log_path, std::ios::app | std::ios::binary) << attempt.str();
    fs::remove(pending_log);
  };
  std::atomic<std::int64_t> checkpoint_step{-1};
  try {
    const RunSummary summary =
        run_logged(spec, options, extra,
                   {out, checkpoint_path, log_path, own_files, extra, remove_previous, pending_log, &stop_signals,
                    &checkpoint_step},
                   file_holding, run_log);
    if (summary.stopped_by_signal != 0) {
      append_pending_log();
      if (extra) extra->remove_empty_directories_it_made();
    }
    return summary;
  } catch (const std::exception& e) {
    // A failed write (a full disk) says how the run continues once the cause is gone. The
    // writer's thread has finished by now: its last checkpoint step is final.
    const std::string advice = write_failure_advice(spec, e, checkpoint_step.load(), checkpoint_path);
    run_log.file_only->error("error: {}{}", e.what(), advice);
    run_log.file_only->flush();
    append_pending_log();
    if (extra) extra->remove_empty_directories_it_made();
    if (!advice.empty()) {
      if (const auto* error = dynamic_cast<const Error*>(&e); error && !error->file().empty())
        throw Error(error->file(), error->line(), error->field(), error->description() + advice);
      throw Error(std::string(e.what()) + advice);
    }
    throw;
  }
}

}  // namespace ermak
