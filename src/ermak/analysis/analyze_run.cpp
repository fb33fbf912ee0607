#include "ermak/analysis/analyze_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "ermak/analysis/analysis_progress.h"
#include "ermak/analysis/chain_contour.h"
#include "ermak/analysis/contact_report.h"
#include "ermak/analysis/indentation_report.h"
#include "ermak/analysis/melting_curve.h"
#include "ermak/analysis/plane_report.h"
#include "ermak/analysis/pulling_report.h"
#include "ermak/analysis/report_common.h"
#include "ermak/analysis/run_directory.h"
#include "ermak/analysis/run_pool.h"
#include "ermak/analysis/smoothing_defaults.h"
#include "ermak/core/error.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;

}  // namespace

AnalyzeResult analyze_run(const AnalyzeOptions& options_in) {
  AnalyzeOptions options = options_in;
  CurveSettings& st = options.settings;
  auto bad = [](const std::string& option, const std::string& what) { throw Error(option + ": " + what); };
  if (!std::isfinite(options.temperature_K)) bad("--temperature-K", "must be finite");
  if (!(options.temperature_K > 0.0)) bad("--temperature-K", "must be > 0");
  check_curve_settings(st);
  if (!(st.linear_fraction > 0.0 && st.linear_fraction <= 1.0)) bad("--linear-fraction", "must lie in (0, 1]");
  if (options.bins && *options.bins < 1) bad("--bins", "must be ≥ 1");
  if (options.plane_group && *options.plane_group < 0) bad("--plane-group", "must be ≥ 0");
  if (options.unfolded_extension_nm &&
      !(*options.unfolded_extension_nm > 0.0 && std::isfinite(*options.unfolded_extension_nm)))
    bad("--unfolded-extension-nm", "must be > 0 and finite");
  if (st.detach_force_pN && !(*st.detach_force_pN >= 0.0)) bad("--detach-force-pN", "must be ≥ 0");
  if (st.contact_force_pN && !(*st.contact_force_pN > 0.0 && std::isfinite(*st.contact_force_pN)))
    bad("--contact-force-pN", "must be > 0 and finite");
  if (st.linear_range_nm) {
    const auto [from, to] = *st.linear_range_nm;
    if (!(std::isfinite(from) && std::isfinite(to) && from >= 0.0 && to > from))
      bad("--linear-range-nm", fmt::format("must be two indentations a,b with 0 ≤ a < b, nm; got {},{}", from, to));
  }
  if (st.detach_force_pN && !std::isfinite(*st.detach_force_pN)) bad("--detach-force-pN", "must be finite");
  // Runs pooled: of one condition (run_pool.h), so the first one's run.log says what they
  // share (loading rate, temperature, ends); each one's end is its own (pooled_logs).
  const std::vector<fs::path>& pooled_dirs = options.pooled_run_dirs;
  const bool pooled = !pooled_dirs.empty();
  std::vector<RunLogFacts> pooled_logs;
  std::vector<std::string> pool_warnings;
  if (pooled) {
    if (options.out_dir.empty())
      bad("-o,--output", "with several run directories, name the directory for the analysis");
    const PoolVerdict verdict = judge_runs_for_pooling(pooled_dirs);
    if (!verdict.pooled)
      bad("RUN_DIR", "these runs are no batches of one condition to pool into one analysis: " + verdict.why_not);
    pool_warnings = verdict.warnings;
    options.run_dir = pooled_dirs.front();
    for (const fs::path& dir : pooled_dirs) pooled_logs.push_back(read_run_log(dir));
  }
  const RunLogFacts run_log = read_run_log(options.run_dir);
  // A run still running (its lock held): its tables end early, but it has not stopped.
  auto run_in_progress = [&](const fs::path& dir) {
    return options.run_in_progress ? options.run_in_progress(dir) : std::optional<std::string>{};
  };
  const std::optional<std::string> running = run_in_progress(options.run_dir);
  if (options.temperature_from_run && run_log.temperature_error) throw *run_log.temperature_error;
  std::string temperature_source = options.temperature_from_run ? "default; run.log gives none" : "--temperature-K";
  if (options.temperature_from_run && run_log.temperature_K) {
    options.temperature_K = *run_log.temperature_K;
    temperature_source = run_log.heating ? "the start of the run's heating schedule, from run.log"
                         : pooled        ? "the runs', from their run.logs"
                                         : "the run's, from run.log";
  }
  st.wlc.kT = kT_pN_nm(options.temperature_K);
  const double kT = st.wlc.kT;
  // A pulling run's maxima are checked against what its cantilever can load (κv, run.log).
  st.loading_rate_pN_per_s = run_log.summed_loading_rate_pN_per_s();
  // A --force run that has not replaced the run here (killed in its start, or starting now)
  // logs to run.log.new (run/previous_run.h: pending_run_log): said, since the files analysed
  // are the earlier run's, with their own run.log, and not the new configuration's.
  std::vector<std::string> pending_log_warnings;
  for (const fs::path& dir : pooled ? pooled_dirs : std::vector<fs::path>{options.run_dir})
    if (std::error_code ec; fs::exists(dir / "run.log.new", ec))
      pending_log_warnings.push_back((dir / "run.log.new").string() +
                                     ": the log of a --force run that has not replaced this run (killed in its start, "
                                     "or starting now); the tables and run.log analysed here are the earlier run's");
  // A heating or cooling run without protocol tables: its melting curve, which takes none of
  // the curve options.
  if (run_log.heating) {
    std::vector<std::string> lost;
    if (const auto tables = energy_tables_of_a_run_without_protocol(options.run_dir, &lost); !tables.empty()) {
      if (options.contacts)
        bad("--contacts", "applies to runs with a force protocol (pulling, force clamp, indentation, plane pulling); " +
                              options.run_dir.string() + " is a heating run without protocol tables");
      if (!options.given_options.empty())
        bad(options.given_options.front(), "does not apply to the melting curve of a heating run (" +
                                               options.run_dir.string() + " has no protocol tables)");
      AnalyzeResult melting = analyze_melting_run(
          options, tables, {run_log.heating_every_steps, run_log.heating_stop_K, run_log.run_error, running});
      melting.warnings.insert(melting.warnings.begin(), pending_log_warnings.begin(), pending_log_warnings.end());
      for (const std::string& name : lost)
        melting.warnings.push_back((options.run_dir / name).string() +
                                   ": no energies.tsv, which the other replicas have; replica left out of the melting "
                                   "curve");
      return melting;
    }
  }
  const bool overwrite = options.overwrite;

  AnalyzeResult result;
  result.warnings = pool_warnings;
  result.warnings.insert(result.warnings.end(), pending_log_warnings.begin(), pending_log_warnings.end());
  std::vector<std::string> without_table;  // "RUN/replica_NNN" (pooled) or "replica_NNN"
  const std::vector<Replica> replicas =
      pooled ? pool_replicas(pooled_dirs, &without_table) : discover_replicas(options.run_dir, &without_table);
  for (const std::string& name : without_table)
    result.warnings.push_back((pooled ? fs::path(name) : options.run_dir / name).string() +
                              ": no pulling.tsv, indentation.tsv or plane.tsv, which the other replicas have; replica "
                              "left out of the analysis");
  result.out_dir = options.out_dir.empty() ? options.run_dir / "analysis" : options.out_dir;
  const fs::path& final_out = result.out_dir;
  const bool any_pulling = std::any_of(replicas.begin(), replicas.end(), [](const Replica& r) { return r.pulling; });
  const bool any_indent = std::any_of(replicas.begin(), replicas.end(), [](const Replica& r) { return r.indentation; });
  const std::string ip = any_pulling ? "indentation_" : "";  // indentation file prefix in a mixed run
  // Which replicas get their own curve table and plot (--replica-files).
  std::vector<bool> own_files(replicas.size());
  for (std::size_t k = 0; k < replicas.size(); ++k) own_files[k] = options.replica_files.includes(replicas[k].index, k);
  std::vector<PlaneReplica> planes;
  for (std::size_t k = 0; k < replicas.size(); ++k)
    if (replicas[k].plane)
      planes.push_back({replicas[k].index, replicas[k].name, replicas[k].dir / "plane.tsv", own_files[k]});
  {
    std::vector<int> numbers;
    for (const Replica& r : replicas) numbers.push_back(r.index);
    for (std::string& w : options.replica_files.unmatched_warnings(numbers, pooled))
      result.warnings.push_back(std::move(w));
  }
  // An option for a kind of run this one has none of is named, not silently dropped.
  {
    struct Applies {
      const char* option;
      bool here;
      const char* kind;
    };
    const Applies applies[] = {{"--persistence-length-nm", any_pulling, "pulling (its WLC fits)"},
                               {"--fit-persistence-length", any_pulling, "pulling (its WLC fits)"},
                               {"--temperature-K", any_pulling, "pulling (its WLC fits)"},
                               {"--contact-force-pN", any_indent, "indentation"},
                               {"--linear-range-nm", any_indent, "indentation"},
                               {"--linear-fraction", any_indent, "indentation"},
                               {"--plane-group", !planes.empty(), "plane pulling"},
                               {"--detach-force-pN", !planes.empty(), "plane pulling"}};
    for (const Applies& a : applies)
      if (!a.here && std::find(options.given_options.begin(), options.given_options.end(), a.option) !=
                         options.given_options.end())
        result.warnings.push_back(fmt::format("{} applies to {}, and this run has none: not used", a.option, a.kind));
  }
  int plane_group = options.plane_group.value_or(0);
  if (!options.plane_group)
    for (std::size_t k = 0; k < run_log.planes.size(); ++k)
      if (run_log.planes[k].speed_um_per_s != 0.0) {
        plane_group = int(k);
        break;
      }
  check_plane_group(planes, plane_group);

  // The files this may write; none may exist unless overwrite (checked before writing any).
  // Every replica's own files count, whether --replica-files selects it or not: with
  // --force an earlier analysis's files of replicas not selected now are removed, not left
  // beside the new results.
  std::vector<fs::path> planned = {final_out / "summary.txt"};
  if (any_pulling) {
    for (const char* f : {"peaks.tsv", "wlc_fits.tsv", "forces_histogram.tsv", "force_extension.svg",
                          "peak_force_histogram.svg", "extension_time.svg", "unfolding_times.tsv"})
      planned.push_back(final_out / f);
    for (std::size_t k = 0; k < replicas.size(); ++k)
      if (replicas[k].pulling)
        for (const char* suffix : {"_curve.tsv", "_force_extension.svg"})
          planned.push_back(final_out / (replicas[k].name + suffix));
  }
  if (any_indent) {
    for (const char* f : {"peaks.tsv", "forces_histogram.tsv", "peak_force_histogram.svg"})
      planned.push_back(final_out / (ip + f));
    planned.push_back(final_out / "force_indentation.svg");
    for (std::size_t k = 0; k < replicas.size(); ++k)
      if (replicas[k].indentation) {
        planned.push_back(final_out / (replicas[k].name + "_" + ip + "curve.tsv"));
        planned.push_back(final_out / (replicas[k].name + "_force_indentation.svg"));
      }
  }
  planned.push_back(final_out / "replicas.txt");  // removed with --force even where this run writes none
  for (const fs::path& p : plane_report_files(final_out, planes)) planned.push_back(p);
  add_every_analysis_file(final_out, planned);  // a spectrum's or melting curve's files too
  // --contacts: the model and the trajectories, found (or refused) before anything is written.
  std::optional<ContactInputs> contact_inputs;
  if (options.contacts) contact_inputs = find_contact_inputs(options.run_dir, replicas, run_log);
  // Written into a staging directory, moved into OUT when everything has succeeded.
  StagedOutput staged(final_out, planned, overwrite);
  const fs::path& out = staged.dir();
  auto written = [&](const fs::path& p) { result.files.push_back(p); };

  // --- per replica: analyse, write its curve and plot, keep what the summary needs ---------
  std::vector<PullingRecord> pulls;
  std::vector<IndentationRecord> indents;
  PullingReportOptions pulling_options;
  pulling_options.settings = st;
  pulling_options.unfolded_extension_nm = options.unfolded_extension_nm;
  pulling_options.loading_rate_pN_per_s = run_log.loading_rate_pN_per_s;
  pulling_options.pulled_beads = run_log.pulled_beads.value_or(1);
  pulling_options.run_steps = run_log.run_steps;
  pulling_options.run_error = run_log.run_error;
  pulling_options.running = running;
  for (std::size_t k = 0; k < pooled_logs.size(); ++k)
    pulling_options.pooled_runs.push_back({pooled_dirs[k].string(), pooled_logs[k].run_steps,
                                           pooled_logs[k].run_error, run_in_progress(pooled_dirs[k])});
  if (run_log.temperature_changes()) pulling_options.heating = run_log.heating_text();
  if (run_log.extension_ends) {
    pulling_options.ends = *run_log.extension_ends;
    // One reading of model.etop for both.
    const ChainBetween chain = chain_between(options.run_dir, pulling_options.ends.first, pulling_options.ends.second);
    pulling_options.ends_on_separate_chains = chain.joined_by_no_chain;
    if (options.unfolded_extension_nm) pulling_options.contour_nm = chain.contour_nm;
  }
  pulling_options.overwrite = overwrite;
  IndentationReportOptions indentation_options;
  indentation_options.settings = st;
  indentation_options.file_prefix = ip;
  indentation_options.run_steps = run_log.run_steps;
  indentation_options.run_error = run_log.run_error;
  indentation_options.running = running;
  indentation_options.overwrite = overwrite;
  // Curves kept for the overlays (the first kOverlayCurves of each kind).
  PullingOverlayCurves pulling_overlay;
  std::size_t indentation_curves = 0;
  AnalysisProgress progress("replicas", replicas.size());
  for (std::size_t position = 0; position < replicas.size(); ++position) {
    progress.update(position);
    const Replica& r = replicas[position];
    const bool own = own_files[position];
    if (r.pulling)
      if (auto rec = read_pulling_replica(r, own, pulling_options, out, pulling_overlay, result.files, result.warnings))
        pulls.push_back(std::move(*rec));
    if (r.indentation)
      indents.push_back(read_indentation_replica(r, own, indentation_options, out, indentation_curves, result.files,
                                                 result.warnings));
  }

  // The replicas analysed (a table of one row, an empty one or none is left out), of any kind.
  std::set<std::string> analysed;
  for (const auto& rec : pulls) analysed.insert(rec.replica.name);
  for (const auto& rec : indents) analysed.insert(rec.replica.name);
  for (const auto& p : planes) analysed.insert(p.name);
  // A run of many replicas: their blocks go to replicas.txt, the summary keeps the statistics.
  const bool blocks_apart = analysed.size() > kReplicaBlocksInSummary;

  // --- summary header -----------------------------------------------------------------------
  std::string summary;
  // Each replica's block: in the summary, or for a run of many replicas in replicas.txt
  // (kReplicaBlocksInSummary), under the title of its kind's section.
  std::string replica_blocks;
  summary += "ermak analyze: force-spectroscopy analysis (docs/analysis.md)\n";
  if (pooled)
    summary += fmt::format("run directories:  {} runs of one condition, pooled into this one analysis (their replicas "
                           "numbered on from one run to the next; replicas.tsv maps them; "
                           "docs/analysis.md#pooling-runs-of-one-condition)\n{}output directory: {}\n\n",
                           pooled_dirs.size(), pooled_runs_text(replicas, pooled_dirs), final_out.string());
  else
    summary += fmt::format("run directory:    {}\noutput directory: {}\n\n", options.run_dir.string(),
                           final_out.string());
  std::size_t n_ramp = 0, n_clamp = 0;
  for (const auto& rec : pulls) (rec.a.force_clamp ? n_clamp : n_ramp) += 1;
  summary += "Settings\n";
  // A centred average takes an odd number of rows (docs/analysis.md#smoothing).
  const bool clamps_only = n_clamp > 0 && n_ramp == 0 && indents.empty() && planes.empty();
  if (st.points)
    summary += fmt::format("  smoothing: centred running average over {} rows{}\n", *st.points | 1,
                           *st.points % 2 == 0 ? fmt::format(" (--smooth-points {} rounded up to odd)", *st.points)
                                               : std::string());
  else if (clamps_only) {
    // A clamp's base does not move: rows, not travel (curve_smoothing.cpp); say how many and
    // how long, from the first replica.
    const PullingRecord& first = pulls.front();
    const std::size_t rows = std::clamp<std::size_t>(first.a.rows / 100, 1, 101) | 1;
    summary += fmt::format("  smoothing: centred running average over 1 % of the rows, at most 101 (a force clamp's "
                           "base does not move): {} rows, {} ns in {}\n",
                           rows, g(double(rows - 1) * first.row_ns, 4), first.replica.name);
  } else summary += fmt::format("  smoothing: centred running average over {} nm of {} travel{}\n",
                              g(st.window_nm.value_or(kDefaultSmoothWindow_nm)),
                              planes.empty() ? "cantilever-base"
                              : pulls.empty() && indents.empty() ? "plane"
                                                                 : "cantilever-base (plane pulling: plane)",
                              n_clamp ? " (force clamp: over 1 % of the rows)" : "");
  if (n_ramp > 0 || !indents.empty() || !planes.empty())
    summary += fmt::format("  peaks: drop after the maximum ≥ {}, separation ≥ {} nm\n",
                           st.min_peak_drop_pN ? g(*st.min_peak_drop_pN) + " pN"
                                               : std::string("max(10 pN, 8 × noise of the smoothed force), per replica"),
                           g(st.min_peak_separation_nm));
  if (n_ramp + indents.size() + planes.size() > 0 && !st.min_peak_drop_pN)
    summary += "  (the automatic criterion follows each replica's whole record: for statistics to compare between "
               "runs of other lengths or speeds, give one --min-peak-drop-pN)\n";
  if (n_ramp > 0)
    summary += fmt::format("  WLC (Marko–Siggia): T = {} K ({}), kT = {} pN·nm, persistence length {}\n",
                           g(options.temperature_K, 6), temperature_source, g(kT, 5),
                           st.wlc.fit_persistence ? std::string("fitted") : g(st.wlc.persistence_length) + " nm (fixed)");
  if (!indents.empty())
    summary += fmt::format("  indentation: contact at a smoothed molecule force ≥ {}; linear regime {}\n",
                           st.contact_force_pN ? g(*st.contact_force_pN) + " pN"
                                               : std::string("max(5 pN, 3 × its noise before contact)"),
                           st.linear_range_nm ? fmt::format("over indentation {} to {} nm", g(st.linear_range_nm->first),
                                                            g(st.linear_range_nm->second))
                                              : fmt::format("from the contact to {} × the first peak force",
                                                            g(st.linear_fraction)));

  std::string brief;
  std::vector<std::string> produced;  // aggregate files for the brief

  // --- pulling, indentation (pulling_report, indentation_report) -----------------------------
  pulling_options.replica_blocks_apart = blocks_apart;
  const PullingReport pulling = write_pulling_report(pulls, pulling_options, out, result.files);
  summary += pulling.summary;
  replica_blocks += pulling.replica_blocks;
  brief += pulling.brief;
  produced.insert(produced.end(), pulling.produced.begin(), pulling.produced.end());
  result.warnings.insert(result.warnings.end(), pulling.warnings.begin(), pulling.warnings.end());
  if (any_pulling && pulls.empty()) brief += no_pulling_curve_notes(pulling_options, summary);
  IndentationReport indentation;
  if (!indents.empty()) {
    indentation_options.replica_blocks_apart = blocks_apart;
    indentation = write_indentation_report(indents, indentation_options, out, result.files);
    summary += indentation.summary;
    replica_blocks += indentation.replica_blocks;
    brief += indentation.brief;
    produced.insert(produced.end(), indentation.produced.begin(), indentation.produced.end());
  }

  // --- histograms -------------------------------------------------------------------------
  if (!pulling.first_forces.empty()) {
    summary += "\nHistogram of unfolding forces\n";
    summary += write_force_histogram(out, "", pulling.first_forces, pulling.max_forces, pulling.all_forces,
                                     "unfolding", options.bins, overwrite, result.files);
    produced.insert(produced.end(), {"forces_histogram.tsv", "peak_force_histogram.svg"});
  }
  if (!indentation.first_forces.empty()) {
    summary += "\nHistogram of breaking forces\n";
    summary += write_force_histogram(out, ip, indentation.first_forces, indentation.max_forces,
                                     indentation.all_forces, "breaking", options.bins, overwrite, result.files);
    produced.insert(produced.end(), {ip + "forces_histogram.tsv", ip + "peak_force_histogram.svg"});
  }

  // --- plane pulling (plane_report) ---------------------------------------------------------
  PlaneReport plane_report;
  if (!planes.empty()) {
    PlaneReportOptions po;
    po.group = plane_group;
    po.group_given = options.plane_group.has_value();
    po.planes = run_log.planes;
    po.run_steps = run_log.run_steps;
    po.run_error = run_log.run_error;
    po.running = running;
    po.settings = st;
    po.bins = options.bins;
    po.replica_blocks_apart = blocks_apart;
    po.overwrite = overwrite;
    plane_report = write_plane_report(planes, po, out, result.files);
    summary += plane_report.summary;
    replica_blocks += plane_report.replica_blocks;
    brief += plane_report.brief;
    produced.insert(produced.end(), plane_report.produced.begin(), plane_report.produced.end());
    result.warnings.insert(result.warnings.end(), plane_report.warnings.begin(), plane_report.warnings.end());
  }

  // --- which contacts break (contact_report), after the peaks it assigns them to ----------------
  ContactReport contact_report;
  if (contact_inputs) {
    ContactReportOptions co;
    for (const auto& rec : pulls)
      if (!rec.a.force_clamp)
        for (const PullingPeak& p : rec.a.peaks) co.peaks[rec.replica.index].push_back({p.step, p.drop_end_step});
    co.overwrite = overwrite;
    contact_report = write_contact_report(*contact_inputs, co, out, result.files);
    summary += contact_report.summary;
    brief += contact_report.brief;
    produced.insert(produced.end(), contact_report.produced.begin(), contact_report.produced.end());
    result.warnings.insert(result.warnings.end(), contact_report.warnings.begin(), contact_report.warnings.end());
  }

  // --- the list of files, the summary ------------------------------------------------------
  summary += "\nFiles\n";
  summary += "  summary.txt                  this summary\n";
  if (pooled) {
    write_text_file(out / "replicas.tsv", pooled_replica_table(replicas, pooled_dirs), overwrite);
    written(out / "replicas.tsv");
    produced.push_back("replicas.tsv");
    summary +=
        "  replicas.tsv                 the runs pooled: each replica's number here, its run and its number there\n";
  }
  if (blocks_apart) {
    std::string of_what = options.run_dir.string();
    if (pooled) {
      of_what = fmt::format("the {} runs pooled (", pooled_dirs.size());
      for (std::size_t k = 0; k < pooled_dirs.size(); ++k) of_what += (k ? ", " : "") + pooled_dirs[k].string();
      of_what += ")";
    }
    write_text_file(out / "replicas.txt",
                    fmt::format("ermak analyze: each replica of {} ({} replicas; their statistics are in "
                                "summary.txt)\n{}",
                                of_what, replicas.size(), replica_blocks),
                    overwrite);
    written(out / "replicas.txt");
    produced.push_back("replicas.txt");
    summary += "  replicas.txt                 each replica's smoothing, noise, peaks or events, fits and notes\n";
  }
  auto describe_file = [&](const std::string& name, const std::string& what) {
    if (std::find(produced.begin(), produced.end(), name) != produced.end())
      summary += fmt::format("  {:<28} {}\n", name, what);
  };
  if (any_pulling) {
    describe_file("peaks.tsv", "unfolding peaks: step, replica, force, extension, WLC Lc and ΔLc");
    describe_file("wlc_fits.tsv", "every WLC fit: replica, edge, Lc, P, ΔLc, fitted extension range");
    describe_file("forces_histogram.tsv", "histogram of first / largest / all unfolding forces over replicas");
    describe_file("force_extension.svg",
                  n_ramp > kOverlayCurves
                      ? fmt::format("force–extension curves and WLC fits of the first {} replicas, peaks of all",
                                    kOverlayCurves)
                      : "force–extension curves of all replicas, peaks, WLC fits");
    describe_file("peak_force_histogram.svg", "histogram plot of the unfolding forces");
    describe_file("extension_time.svg",
                  n_clamp > kOverlayCurves
                      ? fmt::format("force clamp: extension against time of the first {} replicas, half-way times of "
                                    "all",
                                    kOverlayCurves)
                      : "force clamp: extension against time");
    describe_file("unfolding_times.tsv", "force clamp: each replica's unfolding time, or censored (unfolded 0)");
  }
  if (any_indent) {
    describe_file(ip + "peaks.tsv", "breaking events of the indentation: step, replica, force, indentation");
    describe_file(ip + "forces_histogram.tsv", "histogram of first / largest / all breaking forces over replicas");
    describe_file("force_indentation.svg",
                  indents.size() > kOverlayCurves
                      ? fmt::format("force–indentation curves and linear fits of the first {} replicas, breaking "
                                    "events of all",
                                    kOverlayCurves)
                      : "force–indentation curves, breaking events, linear fits");
    describe_file(ip + "peak_force_histogram.svg", "histogram plot of the breaking forces");
  }
  summary += plane_report.files;
  summary += contact_report.files;
  // Per replica: a curve table always, a plot where there is a curve to plot (a force
  // clamp's replicas share extension_time.svg instead).
  // Which replicas have them, counted from the files written (a selected replica left out,
  // e.g. of one row, has none), where not every one (--replica-files).
  std::size_t replica_curves = 0, replica_plots = 0;
  std::set<std::string> with_files;
  for (const auto& f : result.files) {
    const std::string name = f.filename().string();
    if (name.rfind("replica_", 0) != 0) continue;
    ++(f.extension() == ".svg" ? replica_plots : replica_curves);
    with_files.insert(name.substr(0, name.find('_', 8)));
  }
  std::string selection = options.replica_files.describe();
  // A listed selection names the replicas that have files, not the ranges asked for: "1, 3-7"
  // of a run of 4 replicas read as if 3 to 7 had them (the warnings name what matched nothing).
  if (options.replica_files.kind == ReplicaSelection::Kind::listed && !with_files.empty()) {
    std::string numbers;
    for (const std::string& name : with_files) {
      const std::string digits = name.substr(8);  // after "replica_"
      const bool plain = !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos;
      numbers += (numbers.empty() ? "" : ", ") + (plain ? std::to_string(std::stoll(digits)) : digits);
    }
    if (numbers != selection.substr(selection.find(' ') + 1))
      selection = (with_files.size() == 1 ? "replica " : "replicas ") + numbers + " of " + selection;
  }
  if (options.replica_files.kind == ReplicaSelection::Kind::first && !replicas.empty()) {
    const std::size_t last = std::min(replicas.size(), options.replica_files.first_count) - 1;
    selection += fmt::format(", numbered {} to {}", replicas.front().index, replicas[last].index);
  }
  const bool every_replica_files = with_files.size() == analysed.size();
  const std::string of_which = every_replica_files ? std::string("each replica")
                                                   : fmt::format("{} of the {} replicas ({}; --replica-files)",
                                                                 with_files.size(), analysed.size(), selection);
  if (replica_curves > 0) summary += "  replica_NNN_*curve.tsv       smoothed curve of " + of_which + "\n";
  if (replica_plots > 0)
    summary += "  replica_NNN_force_*.svg      plot of " + of_which + ": raw and smoothed curve, peaks, fits\n";
  if (!every_replica_files && replica_curves == 0)
    summary += fmt::format("  (no per-replica curve tables or plots: --replica-files selects {})\n", selection);
  if (!result.warnings.empty()) {
    summary += "\nWarnings\n";
    for (const auto& w : result.warnings) summary += "  " + w + "\n";
  }
  write_text_file(out / "summary.txt", summary, overwrite);
  written(out / "summary.txt");

  staged.commit(result.files);
  brief += fmt::format("wrote {}/: summary.txt", final_out.string());
  for (const auto& p : produced) brief += ", " + p;
  auto count = [](std::size_t n, const char* what) { return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s"); };
  if (replica_plots > 0)
    brief += fmt::format(", {} and {}\n", count(replica_curves, "per-replica curve"), count(replica_plots, "plot"));
  else
    brief += fmt::format(" and {}\n", count(replica_curves, "per-replica curve"));
  result.brief = brief;
  return result;
}

}  // namespace ermak::analysis
