#include "ermak/analysis/plane_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

#include "ermak/analysis/analysis_progress.h"
#include "ermak/analysis/plane_analysis.h"
#include "ermak/analysis/report_common.h"
#include "ermak/core/error.h"
#include "ermak/io/tsv_writer.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;

// What the summary and the overlay need of a replica once its series are written.
struct PlaneRecord {
  PlaneReplica replica;
  PlaneAnalysis a;  // series cleared after the replica's files are written
  Line curve;       // decimated smoothed (plane travel, force)
  double last_step = 0.0;  // of the table
};

void drop_series(PlaneAnalysis& a) {
  for (std::vector<double>* v : {&a.step, &a.time_ns, &a.plane_nm, &a.force_raw_pN, &a.force_pN}) release(*v);
}

// The analysed group's travel and loading from the run's planes (none known: nullopt).
std::optional<PlaneLoading> group_loading(const std::vector<RunLogFacts::Plane>& planes, int group) {
  if (group < 0 || std::size_t(group) >= planes.size()) return std::nullopt;
  const auto first_moving = std::find_if(planes.begin(), planes.end(),
                                         [](const RunLogFacts::Plane& p) { return p.speed_um_per_s != 0.0; });
  if (first_moving == planes.end()) return PlaneLoading{0.0, 0.0};
  const RunLogFacts::Plane& own = planes[std::size_t(group)];
  PlaneLoading loading;
  loading.travel_scale = own.speed_um_per_s / first_moving->speed_um_per_s;
  loading.loading_pN_per_nm = loading.travel_scale != 0.0
                                  ? own.beads * own.spring_pN_per_nm * std::abs(loading.travel_scale)
                                  : first_moving->beads * first_moving->spring_pN_per_nm;
  return loading;
}

std::string plural(std::size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

std::string force_label(int group) { return fmt::format("force of plane group {} [pN]", group); }

// Cumulative work ∫ F dp of the raw rows, kcal/mol (the last entry is a.work_kcal_per_mol).
std::vector<double> cumulative_work_kcal(const PlaneAnalysis& a) {
  std::vector<double> w(a.rows, 0.0);
  const double per_kcal = pN_nm_per_kcal_per_mol();
  double sum = 0.0;
  for (std::size_t i = 1; i < a.rows; ++i) {
    sum += 0.5 * (a.force_raw_pN[i] + a.force_raw_pN[i - 1]) * a.travel_scale * (a.plane_nm[i] - a.plane_nm[i - 1]);
    w[i] = sum / per_kcal;
  }
  return w;
}

void write_curve(const PlaneAnalysis& a, const fs::path& path, bool overwrite) {
  TsvWriter w = TsvWriter::create(path, {"step", "time[ns]", "plane[nm]", a.force_column, "work[kcal/mol]"},
                                  overwrite);
  const std::vector<double> work = cumulative_work_kcal(a);
  for (std::size_t i = 0; i < a.rows; ++i) {
    const double rest[] = {a.time_ns[i], a.plane_nm[i], a.force_pN[i], work[i]};
    w.row(std::int64_t(std::llround(a.step[i])), rest);
  }
  w.flush();
}

void plot_replica(const PlaneAnalysis& a, const std::string& name, const fs::path& path, bool overwrite) {
  // Without a moving plane the travel is 0 throughout: the force against time instead.
  const std::vector<double>& x = a.plane_moves ? a.plane_nm : a.time_ns;
  SvgPlot plot(name + ": plane pulling", a.plane_moves ? "plane travel [nm]" : "time [ns]", force_label(a.group));
  plot.include_zero_y(true);
  const Line raw = decimated_line(x, a.force_raw_pN), smooth = decimated_line(x, a.force_pN);
  plot.line(raw.x, raw.y, style("#9a9a9a", 0.7, "", 0.45), "raw data");
  plot.line(smooth.x, smooth.y, style(palette_color(0), 1.8), "smoothed");
  std::vector<double> px, py;
  for (const PlaneEvent& e : a.events) {
    px.push_back(e.peak.position);
    py.push_back(e.peak.force);
  }
  if (!a.plane_moves) plot.legend_note("the plane does not move");
  else if (px.empty()) plot.legend_note("no rupture events");
  else plot.markers(px, py, Marker::circle, 9.0, marker_style("#ffbf00"), fmt::format("rupture events ({})", px.size()));
  for (std::size_t k = 0; k < a.events.size(); ++k)
    plot.legend_note(fmt::format("#{}: {} pN at {} nm", k + 1, g(a.events[k].peak.force), g(a.events[k].peak.position)));
  if (a.plane_moves) {
    plot.legend_note(fmt::format("work {} kcal/mol", g(a.work_kcal_per_mol)));
    plot.legend_note(a.detached ? fmt::format("detached (end force {} pN)", g(a.end_force_pN, 3))
                                : fmt::format("end force {} pN", g(a.end_force_pN, 3)));
  }
  plot.write(path, overwrite);
}

void plot_overlay(const std::vector<PlaneRecord>& records, int group, const fs::path& path, bool overwrite) {
  std::size_t count = 0;
  for (const auto& r : records) count += r.a.plane_moves;
  SvgPlot plot(fmt::format("Plane pulling, {}", plural(count, "replica")), "plane travel [nm]", force_label(group));
  plot.include_zero_y(true);
  const bool per_replica_legend = count <= 10;
  std::size_t k = 0, events = 0;
  for (const auto& r : records) {
    if (!r.a.plane_moves) continue;
    const std::string color = palette_color(k++ % kOverlayCurves);
    if (!r.curve.x.empty())  // kept for the first kOverlayCurves
      plot.line(r.curve.x, r.curve.y, style(color, 1.4), per_replica_legend ? r.replica.name : "");
    std::vector<double> x, y;
    for (const PlaneEvent& e : r.a.events) {
      x.push_back(e.peak.position);
      y.push_back(e.peak.force);
    }
    events += x.size();
    plot.markers(x, y, Marker::circle, 8.0, marker_style(color));
  }
  if (count > kOverlayCurves)
    plot.legend_note(fmt::format("curves of the first {} of {} replicas; events of all", kOverlayCurves, count));
  else if (!per_replica_legend)
    plot.legend_note(fmt::format("{} replicas, one colour each", count));
  if (count < records.size()) plot.legend_note(fmt::format("{} without a moving plane left out", records.size() - count));
  if (events == 0) plot.legend_note("no rupture events");
  else plot.markers({}, {}, Marker::circle, 8.0, marker_style("#ffffff"), fmt::format("rupture events ({})", events));
  plot.write(path, overwrite);
}

std::string replica_section(const PlaneRecord& rec) {
  const PlaneAnalysis& a = rec.a;
  std::string s = fmt::format("\n{}: {} rows; {}; force noise {} pN raw, {} pN smoothed; peak drop ≥ {} pN{}\n",
                              rec.replica.name, a.rows, a.smoothing.description, g(a.smoothing.noise_raw, 3),
                              g(a.smoothing.noise_smoothed, 3), g(a.smoothing.min_peak_drop, 3),
                              a.smoothing.min_peak_drop_automatic ? " (automatic)" : "");
  if (a.rows == 0) return s + "  no rows\n";
  if (!a.plane_moves) return s + "  the plane does not move (plane[nm] is constant): no events, no work\n";
  s += few_windows_note(a.smoothing);
  if (a.rows >= 4) s += slow_wander_note(a.smoothing);  // fewer rows: no noise estimate
  s += unloaded_maxima_note(a.unloaded, "the plane springs load (N κ·Δp + the peak criterion)",
                            "thermal wander, not a rupture");
  if (a.events.empty()) {
    s += "  no rupture events\n";
  } else {
    s += fmt::format("  {:>5} {:>14} {:>11} {:>10} {:>10} {:>9}\n", "event", "step", "time[ns]", "force[pN]",
                     "plane[nm]", "drop[pN]");
    for (std::size_t k = 0; k < a.events.size(); ++k) {
      const PlaneEvent& e = a.events[k];
      s += fmt::format("  {:>5} {:>14} {:>11} {:>10} {:>10} {:>9}\n", k, e.step, g(e.time_ns, 6), g(e.peak.force),
                       g(e.peak.position), g(e.peak.drop));
    }
  }
  s += fmt::format("  largest force {} pN at plane {} nm (step {}); force at the end {} pN: {}\n", g(a.max_force_pN),
                   g(a.max_force_plane_nm), a.max_force_step, g(a.end_force_pN),
                   a.detached ? fmt::format("detached (|F| ≤ {} pN after the last event)", g(a.detach_threshold_pN, 3))
                   : a.events.empty()
                       ? std::string("no event, not detached")
                       : fmt::format("still attached (|F| > {} pN)", g(a.detach_threshold_pN, 3)));
  s += fmt::format("  work W = ∫F dp = {} pN·nm = {} kcal/mol", g(a.work_pN_nm), g(a.work_kcal_per_mol));
  if (!a.events.empty())
    s += fmt::format(" ({} kcal/mol up to the end of the last event)", g(a.work_to_last_event_kcal_per_mol));
  return s + "\n";
}

}  // namespace

std::vector<fs::path> plane_report_files(const fs::path& out, const std::vector<PlaneReplica>& replicas) {
  std::vector<fs::path> files;
  if (replicas.empty()) return files;
  for (const char* f : {"plane_peaks.tsv", "plane_replicas.tsv", "force_plane.svg", "plane_forces_histogram.tsv",
                        "plane_peak_force_histogram.svg"})
    files.push_back(out / f);
  for (const PlaneReplica& r : replicas) {  // selected by --replica-files or not (analyze_run.cpp)
    files.push_back(out / (r.name + "_plane_curve.tsv"));
    files.push_back(out / (r.name + "_force_plane.svg"));
  }
  return files;
}

void check_plane_group(const std::vector<PlaneReplica>& replicas, int group) {
  const std::string column = plane_force_column(group);
  for (const PlaneReplica& r : replicas) {
    std::ifstream in(r.table);
    std::string header;
    if (!in || !std::getline(in, header)) continue;  // TsvTable::read reports it
    int groups = 0;
    bool found = false;
    std::size_t at = header.rfind("# ", 0) == 0 ? 2 : 0;
    while (at <= header.size()) {
      std::size_t end = header.find('\t', at);
      if (end == std::string::npos) end = header.size();
      const std::string name = header.substr(at, end - at);
      found = found || name == column;
      groups += name.rfind("force_plane", 0) == 0;
      at = end + 1;
    }
    if (!found) throw Error(r.table.string(), 1, "--plane-group", missing_plane_group_message(group, groups));
  }
}

PlaneReport write_plane_report(const std::vector<PlaneReplica>& replicas, const PlaneReportOptions& options,
                               const fs::path& out, std::vector<fs::path>& files) {
  PlaneReport report;
  if (replicas.empty()) return report;
  const bool overwrite = options.overwrite;
  const int group = options.group;
  const std::optional<PlaneLoading> loading = group_loading(options.planes, group);

  std::vector<PlaneRecord> records;
  std::size_t overlay_curves = 0;  // curves kept for the overlay (kOverlayCurves)
  AnalysisProgress progress("plane tables", replicas.size());
  for (const PlaneReplica& r : replicas) {
    progress.update(records.size());
    const TsvTable table = TsvTable::read(r.table);
    table.require_rising_steps();
    for (const auto& w : table.warnings()) report.warnings.push_back(w);
    PlaneRecord rec{r, analyze_plane(table, group, options.settings, loading), {}, 0.0};
    const PlaneAnalysis& a = rec.a;
    if (a.rows == 0) report.warnings.push_back(table.source() + ": no rows");
    else if (!a.plane_moves) report.warnings.push_back(table.source() + ": the plane does not move: no events, no work");
    if (r.own_files) {
      const fs::path curve = out / (r.name + "_plane_curve.tsv");
      write_curve(a, curve, overwrite);
      files.push_back(curve);
    }
    if (a.rows > 0 && r.own_files) {
      const fs::path svg = out / (r.name + "_force_plane.svg");
      plot_replica(a, r.name, svg, overwrite);
      files.push_back(svg);
    }
    if (a.rows > 0 && a.plane_moves && overlay_curves < kOverlayCurves) {
      rec.curve = decimated_line(a.plane_nm, a.force_pN);
      ++overlay_curves;
    }
    rec.last_step = a.step.empty() ? 0.0 : a.step.back();
    drop_series(rec.a);
    records.push_back(std::move(rec));
  }

  {
    TsvWriter w = TsvWriter::create(out / "plane_peaks.tsv",
                                    {"step", "replica", "event", "time[ns]", "force[pN]", "plane[nm]", "drop[pN]"},
                                    overwrite);
    for (const auto& rec : records)
      for (std::size_t k = 0; k < rec.a.events.size(); ++k) {
        const PlaneEvent& e = rec.a.events[k];
        const double rest[] = {double(rec.replica.index), double(k), e.time_ns, e.peak.force, e.peak.position,
                               e.peak.drop};
        w.row(e.step, rest);
      }
    w.flush();
  }
  files.push_back(out / "plane_peaks.tsv");
  {
    TsvWriter w = TsvWriter::create(out / "plane_replicas.tsv",
                                    {"replica", "rows", "events", "first_force[pN]", "largest_event_force[pN]",
                                     "max_force[pN]", "max_force_plane[nm]", "end_force[pN]", "detached",
                                     "work[pN*nm]", "work[kcal/mol]", "work_to_last_event[kcal/mol]"},
                                    overwrite);
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    for (const auto& rec : records) {
      const PlaneAnalysis& a = rec.a;
      double largest = nan;
      for (const PlaneEvent& e : a.events) largest = std::isnan(largest) ? e.peak.force : std::max(largest, e.peak.force);
      const double v[] = {double(rec.replica.index), double(a.rows), double(a.events.size()),
                          a.events.empty() ? nan : a.events.front().peak.force, largest, a.max_force_pN,
                          a.max_force_plane_nm, a.end_force_pN, a.detached ? 1.0 : 0.0, a.work_pN_nm,
                          a.work_kcal_per_mol, a.work_to_last_event_kcal_per_mol};
      w.row(v);
    }
    w.flush();
  }
  files.push_back(out / "plane_replicas.tsv");
  plot_overlay(records, group, out / "force_plane.svg", overwrite);
  files.push_back(out / "force_plane.svg");
  report.produced = {"plane_peaks.tsv", "plane_replicas.tsv", "force_plane.svg"};

  // --- summary -------------------------------------------------------------------------------
  std::string& s = report.summary;
  const std::string title =
      fmt::format("\nPlane pulling: {}; group {} ({} against plane[nm]); detached when |F_end| ≤ {} after an event\n",
                  plural(records.size(), "replica"), group, plane_force_column(group),
                  options.settings.detach_force_pN ? g(*options.settings.detach_force_pN) + " pN"
                                                   : std::string("the peak criterion"));
  s += title;
  if (options.replica_blocks_apart) report.replica_blocks += title;
  if (!options.group_given && group != 0)
    s += fmt::format("  group {} is the first moving plane (run.log); --plane-group chooses another\n", group);
  const bool any_moves =
      std::any_of(records.begin(), records.end(), [](const PlaneRecord& r) { return r.a.plane_moves; });
  if (any_moves && loading && loading->travel_scale == 0.0)
    s += fmt::format("  note: group {}'s plane is static: its force is the anchor's load, and it does no work (W = 0)\n",
                     group);
  else if (!loading && group != 0)
    s += fmt::format("  note: plane[nm] is the travel of the first moving plane; W = ∫F dp integrates group {}'s force "
                     "over it, which is group {}'s work only if it is that plane (a static plane does no work; run.log, "
                     "which says, was not found)\n",
                     group, group);
  if (std::any_of(records.begin(), records.end(),
                  [](const PlaneRecord& r) { return r.a.plane_moves && r.a.orientation < 0.0; }))
    s += fmt::format("  note: group {}'s force is loaded negative (against its normal{}): events are found on its "
                     "magnitude; forces keep the table's sign, drops are magnitudes\n",
                     group, loading && loading->travel_scale < 0.0 ? ": its plane moves against it" : " or held back");
  std::vector<double> first, largest, all, max_force, work_pN_nm, work_kcal, end_force;
  std::size_t detached = 0, moving = 0;
  std::vector<TableEnd> ends;
  if (options.replica_blocks_apart)
    s += "  per replica (smoothing, noise, events, detachment, work, notes): replicas.txt\n";
  for (const auto& rec : records) {
    (options.replica_blocks_apart ? report.replica_blocks : s) += replica_section(rec);
    ends.push_back({rec.replica.name, rec.last_step});
    const PlaneAnalysis& a = rec.a;
    if (!a.plane_moves || a.rows == 0) continue;
    ++moving;
    double fmax = -std::numeric_limits<double>::infinity();
    for (const PlaneEvent& e : a.events) {
      all.push_back(e.peak.force);
      fmax = std::max(fmax, e.peak.force);
    }
    if (!a.events.empty()) {
      first.push_back(a.events.front().peak.force);
      largest.push_back(fmax);
    }
    max_force.push_back(a.max_force_pN);
    end_force.push_back(a.end_force_pN);
    work_pN_nm.push_back(a.work_pN_nm);
    work_kcal.push_back(a.work_kcal_per_mol);
    detached += a.detached;
  }
  s += cut_short_notes(ends, "the plane pulling", options.run_steps, options.run_error, options.running);
  s += "\nPlane pulling over replicas\n";
  s += fmt::format("  replicas with a rupture event: {} of {}; detached at the end: {} of {}\n", first.size(), moving,
                   detached, moving);
  s += stats_block("first rupture", describe(first), "pN");
  s += stats_block("largest rupture", describe(largest), "pN");
  s += stats_block("all ruptures", describe(all), "pN");
  s += stats_block("largest force", describe(max_force), "pN");
  s += stats_block("force at the end", describe(end_force), "pN");
  s += stats_block("work", describe(work_pN_nm), "pN·nm");
  s += stats_block("work", describe(work_kcal), "kcal/mol");
  if (!first.empty()) {
    s += "\nHistogram of rupture forces\n";
    s += write_force_histogram(out, "plane_", first, largest, all, "rupture", options.bins, overwrite, files);
    report.produced.insert(report.produced.end(), {"plane_forces_histogram.tsv", "plane_peak_force_histogram.svg"});
  }

  report.brief = fmt::format("plane pulling: {}{}, {}", plural(records.size(), "replica"),
                             cut_short_brief(ends, options.run_steps, options.run_error.has_value(), options.running),
                             plural(all.size(), "rupture event"));
  if (!first.empty()) report.brief += "; first rupture " + mean_sd(describe(first), "pN");
  if (!work_kcal.empty()) report.brief += "; work " + mean_sd(describe(work_kcal), "kcal/mol");
  report.brief += "\n";
  auto describe_file = [&](const std::string& name, const std::string& what) {
    if (std::find(report.produced.begin(), report.produced.end(), name) != report.produced.end())
      report.files += fmt::format("  {:<28} {}\n", name, what);
  };
  describe_file("plane_peaks.tsv", "plane pulling: rupture events: step, replica, force, plane travel, drop");
  describe_file("plane_replicas.tsv", "plane pulling per replica: first / largest / end force, detached, work");
  describe_file("force_plane.svg",
                moving > kOverlayCurves
                    ? fmt::format("plane pulling: force against plane travel of the first {} replicas, events of all",
                                  kOverlayCurves)
                    : "plane pulling: force against plane travel of all replicas, events");
  describe_file("plane_forces_histogram.tsv", "histogram of first / largest / all rupture forces over replicas");
  describe_file("plane_peak_force_histogram.svg", "histogram plot of the rupture forces");
  return report;
}

}  // namespace ermak::analysis
