#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ermak/analysis/analyze_run.h"
#include "ermak/analysis/force_spectrum.h"
#include "ermak/analysis/run_pool.h"
#include "ermak/app/cli_checks.h"
#include "ermak/app/commands.h"
#include "ermak/core/error.h"
#include "ermak/run/run_lock.h"

namespace ermak::app {

namespace {
int report(const analysis::AnalyzeResult& r) {
  for (const auto& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  std::fputs(r.brief.c_str(), stdout);
  std::printf("see %s for the details\n", (r.out_dir / "summary.txt").c_str());
  return 0;
}
}  // namespace

Command add_analyze_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "analyze",
      "Force-spectroscopy analysis of a pulling, force-clamp, indentation or plane-pulling run: "
      "smoothed curves, unfolding/breaking/rupture peaks, worm-like-chain fits (contour lengths, ΔLc), "
      "peak-force statistics and histograms, indentation spring constant, work of the pulling plane; "
      "TSV tables, SVG plots and summary.txt; a heating run's melting curve (Q, heat capacity, melting "
      "temperature); several runs of one condition (pulling at one speed and spring, or clamps at one force, "
      "run in batches) pooled into that one analysis; runs at several loading rates or clamp forces give "
      "their dynamic force spectrum "
      "(rupture force against loading rate, or lifetime against force) with Bell's and Dudko–Hummer–Szabo's "
      "rates fitted to it; with --contacts, which native contacts break and when, from the trajectories "
      "(docs/analysis.md; `ermak analyse` is the same command)");
  // The British spelling, as the documentation's prose has it.
  cmd->alias("analyse");
  struct Options {
    std::vector<std::string> run_dirs;
    std::string out_dir;
    std::string spectrum_peak = "largest";
    std::string loading_rate = "nominal";
    std::string no_peak = "left-out";
    std::size_t bootstrap = 0;
    double unfolded_extension = 0.0;
    double window_nm = 0.0;
    std::size_t points = 0;
    double min_drop = 0.0;
    double separation = 0.5;
    double persistence = 0.4;
    bool fit_persistence = false;
    double temperature = 300.0;
    std::size_t bins = 0;
    double contact = 0.0;
    std::vector<double> linear_range;
    double linear_fraction = 0.7;
    int plane_group = 0;
    double detach = 0.0;
    std::string replica_files;
    bool contacts = false;
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("RUN_DIR", o->run_dirs,
                  "Output directory of the run (holding replica_NNN/pulling.tsv, indentation.tsv or plane.tsv, or a "
                  "heating run's energies.tsv). Several pulling (or force-clamp) runs of one condition — the same "
                  "model, temperature, time step, friction, fixed beads and [pulling] ([force_clamp]) settings but "
                  "output_every; seeds, replicas and steps may differ — are pooled into one analysis, their replicas "
                  "numbered on in the order given (replicas.tsv); runs at several loading rates (clamp forces) give "
                  "their dynamic force spectrum, in which the runs at one loading rate (clamp force) are pooled")
      ->required();
  cmd->add_option("-o,--output", o->out_dir,
                  "Where to write the analysis (default RUN_DIR/analysis; required with several run directories)");
  auto* window = cmd->add_option("--smooth-window-nm", o->window_nm,
                                 "Smoothing: centred running average over this much cantilever-base (or plane) "
                                 "travel, nm (default 0.2; force clamp: 1 % of the rows, at most 101)");
  auto* points = cmd->add_option("--smooth-points", o->points,
                                 "Smoothing: centred running average over this many rows instead")
                     ->check(whole_number_at_least(1));
  window->excludes(points);
  auto* drop = cmd->add_option("--min-peak-drop-pN", o->min_drop,
                               "A peak must be followed by a force drop of at least this, pN "
                               "(default: max(10, 8 × noise of the smoothed force))");
  auto* separation = cmd->add_option("--min-peak-separation-nm", o->separation,
                  "Peaks closer than this in extension (indentation, plane travel) are merged, nm")
      ->capture_default_str();
  auto* persistence = cmd->add_option("--persistence-length-nm", o->persistence,
                  "WLC persistence length P, nm (fixed; with --fit-persistence-length fitted within 0.02 to 50 nm)")
      ->capture_default_str();
  auto* fit_persistence = cmd->add_flag("--fit-persistence-length", o->fit_persistence,
                "Fit P as well as the contour length in the WLC fits");
  auto* temperature = cmd->add_option("--temperature-K", o->temperature,
                                      "Temperature of the run, K (sets kT of the WLC fits and of a spectrum's Bell and DHS fits, "
                                      "for every run given; default: each run's, from its run.log, else 300)");
  auto* bins = cmd->add_option("--bins", o->bins, "Histogram bins (default ⌈√n⌉, 5 to 50)")->check(whole_number_at_least(1));
  auto* contact = cmd->add_option("--contact-force-pN", o->contact,
                                  "Indentation: contact where the smoothed molecule force first reaches "
                                  "this, pN (default: max(5, 3 × its noise before contact))");
  auto* range = cmd->add_option("--linear-range-nm", o->linear_range,
                                "Indentation: fit the spring constant over this indentation window a,b, nm")
                    ->expected(2)
                    ->delimiter(',');
  auto* linear_fraction = cmd->add_option("--linear-fraction", o->linear_fraction,
                  "Indentation: without --linear-range-nm the linear regime runs from the contact to this "
                  "fraction of the first peak force")
      ->capture_default_str();
  auto* plane_group = cmd->add_option("--plane-group", o->plane_group,
                  "Plane pulling: analyse the force of this plane group, force_plane<G>[pN]; group 0 is the "
                  "first [[plane_pulling.plane]] of the config. Default: the first moving plane (run.log), else 0");
  auto* detach = cmd->add_option("--detach-force-pN", o->detach,
                                 "Plane pulling: detached when the smoothed force at the end is within this of 0 "
                                 "after a rupture event, pN (default: the peak criterion)");
  auto* replica_files =
      cmd->add_option("--replica-files", o->replica_files,
                      "Which replicas get their own smoothed curve table and plot (replica_NNN_*): all, none, or "
                      "replica numbers and ranges such as 0-9,5123 (default: the run's first 100 replicas, whatever their "
                      "numbers; runs pooled: their pooled numbers). Not for a spectrum; the peak tables, fits and "
                      "statistics cover every replica whatever this selects");
  auto* spectrum_peak =
      cmd->add_option("--spectrum-peak", o->spectrum_peak,
                      "Spectrum of pulling runs: a replica's rupture force is its first or its largest unfolding peak")
          ->check(CLI::IsMember({"first", "largest"}))
          ->capture_default_str();
  auto* loading_rate =
      cmd->add_option("--loading-rate", o->loading_rate,
                      "Spectrum of pulling runs: each force at the run's nominal κv, or at the slope of the force "
                      "against time just before its peak")
          ->check(CLI::IsMember({"nominal", "peak"}))
          ->capture_default_str();
  auto* no_peak =
      cmd->add_option("--no-peak", o->no_peak,
                      "Spectrum of pulling runs: a replica without an unfolding peak is left out, or censored at "
                      "the largest force it reached (it had not ruptured by then)")
          ->check(CLI::IsMember({"left-out", "censored"}))
          ->capture_default_str();
  auto* unfolded = cmd->add_option("--unfolded-extension-nm", o->unfolded_extension,
                                   "Force clamp (one run or runs pooled, or the spectrum of several): a trajectory has "
                                   "unfolded when its extension (the table's rows) first reaches this, nm: its "
                                   "unfolding time and the lifetime");
  auto* bootstrap = cmd->add_option("--bootstrap", o->bootstrap,
                                    "Spectrum: refit Bell and DHS to N resamples of each loading rate's (force's) "
                                    "replicas and give 95 % percentile intervals (bootstrap.tsv); ~1 s per resample "
                                    "of 1000 forces on one core")
                       ->check(CLI::Range(1, 100000));
  auto* contacts = cmd->add_flag(
      "--contacts", o->contacts,
      "Which native contacts break, and when: each replica's trajectory.dcd read frame by frame; a contact (of "
      "model.etop) is formed when r < contact_formed_ratio × r0 (the run's, else 1.5) and ruptures at the first frame "
      "from which it stays broken to the end (NA when formed in the last frame). Writes contact_ruptures.tsv, "
      "contact_fractions.tsv (Q per frame, within and between chains), contacts.tsv (mean rupture order) and, for pulling with unfolding peaks, peak_contacts.tsv. Needs trajectories "
      "(trajectory_every > 0); one run directory or runs pooled, not a spectrum");
  cmd->add_flag("--force", o->force, "Replace existing output files");
  return [o, window, contacts, points, drop, bins, contact, range, detach, temperature, spectrum_peak, unfolded, linear_fraction,
          plane_group, loading_rate, separation, persistence, fit_persistence, no_peak, bootstrap, replica_files]() {
    analysis::CurveSettings settings;
    if (window->count()) settings.window_nm = o->window_nm;
    if (points->count()) settings.points = o->points;
    if (drop->count()) settings.min_peak_drop_pN = o->min_drop;
    settings.min_peak_separation_nm = o->separation;
    settings.wlc.persistence_length = o->persistence;
    settings.wlc.fit_persistence = o->fit_persistence;
    // One run's analysis, of one directory or of several pooled (run_pool.h).
    auto run_analysis = [&](std::vector<std::filesystem::path> pooled_run_dirs) {
      analysis::AnalyzeOptions a;
      a.run_dir = o->run_dirs.front();
      a.pooled_run_dirs = std::move(pooled_run_dirs);
      a.out_dir = o->out_dir;
      a.settings = settings;
      if (contact->count()) a.settings.contact_force_pN = o->contact;
      if (range->count()) a.settings.linear_range_nm = std::make_pair(o->linear_range.at(0), o->linear_range.at(1));
      a.settings.linear_fraction = o->linear_fraction;
      if (detach->count()) a.settings.detach_force_pN = o->detach;
      if (plane_group->count()) a.plane_group = o->plane_group;
      if (unfolded->count()) a.unfolded_extension_nm = o->unfolded_extension;
      a.temperature_K = o->temperature;
      a.temperature_from_run = temperature->count() == 0;
      if (bins->count()) a.bins = o->bins;
      if (replica_files->count()) a.replica_files = analysis::parse_replica_selection(o->replica_files);
      a.overwrite = o->force;
      // A run still running there holds its lock (run/run_lock.h): its tables end early, but
      // it has not stopped.
      a.run_in_progress = [](const std::filesystem::path& dir) {
        return RunLock::holder(run_lock_file(dir / "checkpoint.ckpt"));
      };
      a.contacts = o->contacts;
      for (const CLI::Option* given : {window, points, drop, separation, persistence, fit_persistence, temperature,
                                       bins, contact, range, linear_fraction, plane_group, detach, unfolded,
                                       replica_files})
        if (given->count()) a.given_options.push_back(given->get_name());
      return report(analysis::analyze_run(a));
    };
    if (o->run_dirs.size() > 1) {
      const std::vector<std::filesystem::path> dirs(o->run_dirs.begin(), o->run_dirs.end());
      if (analysis::judge_runs_for_pooling(dirs).pooled) {
        for (const auto* spectrum_only : {spectrum_peak, loading_rate, no_peak, bootstrap})
          if (spectrum_only->count())
            throw Error(spectrum_only->get_name() +
                        ": applies to the spectrum of runs at several loading rates (or clamp forces); these runs "
                        "are of one condition and pooled into one analysis "
                        "(docs/analysis.md#pooling-runs-of-one-condition)");
        return run_analysis(dirs);
      }
      for (const auto* indentation_or_plane :
           {contact, range, detach, bins, linear_fraction, plane_group, replica_files, contacts})
        if (indentation_or_plane->count())
          throw Error(indentation_or_plane->get_name() +
                      ": applies to the analysis of one run directory (or of runs of one condition, pooled into "
                      "one), not to the spectrum of several");
      analysis::SpectrumOptions s;
      for (const std::string& d : o->run_dirs) s.run_dirs.push_back(d);
      s.out_dir = o->out_dir;
      s.settings = settings;
      if (temperature->count()) s.temperature_K = o->temperature;
      s.peak = o->spectrum_peak == "first" ? analysis::SpectrumPeak::first : analysis::SpectrumPeak::largest;
      s.peak_given = spectrum_peak->count() > 0;
      s.rate_at_peak = o->loading_rate == "peak";
      s.censor_without_peak = o->no_peak == "censored";
      if (unfolded->count()) s.unfolded_extension_nm = o->unfolded_extension;
      if (bootstrap->count()) s.bootstrap_resamples = o->bootstrap;
      s.overwrite = o->force;
      return report(analysis::analyze_force_spectrum(s));
    }
    for (const auto* spectrum_only : {spectrum_peak, loading_rate, no_peak, bootstrap})
      if (spectrum_only->count())
        throw Error(spectrum_only->get_name() + ": applies to the spectrum of several run directories");
    return run_analysis({});
  };
}

}  // namespace ermak::app
