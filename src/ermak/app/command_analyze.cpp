#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ermak/analysis/analyze_run.h"
#include "ermak/app/commands.h"
#include "ermak/core/error.h"

namespace ermak::app {

Command add_analyze_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "analyze",
      "Force-spectroscopy analysis of a pulling, force-clamp, indentation or plane-pulling run: "
      "smoothed curves, unfolding/breaking/rupture peaks, worm-like-chain fits (contour lengths, ΔLc), "
      "peak-force statistics and histograms, indentation spring constant, work of the pulling plane; "
      "TSV tables, SVG plots and summary.txt (docs/analysis.md)");
  struct Options {
    std::string run_dir, out_dir;
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
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("RUN_DIR", o->run_dir, "Output directory of the run (holding replica_NNN/pulling.tsv, "
                                         "indentation.tsv or plane.tsv)")
      ->required();
  cmd->add_option("-o,--output", o->out_dir, "Where to write the analysis (default RUN_DIR/analysis)");
  auto* window = cmd->add_option("--smooth-window-nm", o->window_nm,
                                 "Smoothing: centred running average over this much cantilever-base (or plane) "
                                 "travel, nm (default 0.2; force clamp: 1 % of the rows)");
  auto* points = cmd->add_option("--smooth-points", o->points,
                                 "Smoothing: centred running average over this many rows instead");
  window->excludes(points);
  auto* drop = cmd->add_option("--min-peak-drop-pN", o->min_drop,
                               "A peak must be followed by a force drop of at least this, pN "
                               "(default: max(10, 8 × noise of the smoothed force))");
  cmd->add_option("--min-peak-separation-nm", o->separation,
                  "Peaks closer than this in extension (indentation) are merged, nm")
      ->capture_default_str();
  cmd->add_option("--persistence-length-nm", o->persistence,
                  "WLC persistence length P, nm (fixed; with --fit-persistence-length fitted within 0.02 to 50 nm)")
      ->capture_default_str();
  cmd->add_flag("--fit-persistence-length", o->fit_persistence,
                "Fit P as well as the contour length in the WLC fits");
  auto* temperature = cmd->add_option("--temperature-K", o->temperature,
                                      "Temperature of the run, K (sets kT of the WLC; default: the run's, from its "
                                      "run.log, else 300)");
  auto* bins = cmd->add_option("--bins", o->bins, "Histogram bins (default ⌈√n⌉, 5 to 50)");
  auto* contact = cmd->add_option("--contact-force-pN", o->contact,
                                  "Indentation: contact where the smoothed molecule force first reaches "
                                  "this, pN (default: max(5, 3 × its noise before contact))");
  auto* range = cmd->add_option("--linear-range-nm", o->linear_range,
                                "Indentation: fit the spring constant over this indentation window a,b, nm")
                    ->expected(2)
                    ->delimiter(',');
  cmd->add_option("--linear-fraction", o->linear_fraction,
                  "Indentation: without --linear-range-nm the linear regime runs from the contact to this "
                  "fraction of the first peak force")
      ->capture_default_str();
  cmd->add_option("--plane-group", o->plane_group,
                  "Plane pulling: analyse the force of this plane group, force_plane<G>[pN]; group 0 is the "
                  "first [[plane_pulling.plane]] of the config (usually the moving one)")
      ->capture_default_str();
  auto* detach = cmd->add_option("--detach-force-pN", o->detach,
                                 "Plane pulling: detached when the smoothed force at the end is within this of 0 "
                                 "after a rupture event, pN (default: the peak criterion)");
  cmd->add_flag("--force", o->force, "Replace existing output files");
  return [o, window, points, drop, bins, contact, range, detach, temperature]() {
    analysis::AnalyzeOptions a;
    a.run_dir = o->run_dir;
    a.out_dir = o->out_dir;
    if (window->count()) a.settings.window_nm = o->window_nm;
    if (points->count()) a.settings.points = o->points;
    if (drop->count()) a.settings.min_peak_drop_pN = o->min_drop;
    if (contact->count()) a.settings.contact_force_pN = o->contact;
    if (range->count()) a.settings.linear_range_nm = std::make_pair(o->linear_range.at(0), o->linear_range.at(1));
    a.settings.min_peak_separation_nm = o->separation;
    a.settings.wlc.persistence_length = o->persistence;
    a.settings.wlc.fit_persistence = o->fit_persistence;
    a.settings.linear_fraction = o->linear_fraction;
    if (detach->count()) a.settings.detach_force_pN = o->detach;
    a.plane_group = o->plane_group;
    a.temperature_K = o->temperature;
    a.temperature_from_run = temperature->count() == 0;
    if (bins->count()) a.bins = o->bins;
    a.overwrite = o->force;
    const analysis::AnalyzeResult r = analysis::analyze_run(a);
    for (const auto& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    std::fputs(r.brief.c_str(), stdout);
    std::printf("see %s for the details\n", (r.out_dir / "summary.txt").c_str());
    return 0;
  };
}

}  // namespace ermak::app
