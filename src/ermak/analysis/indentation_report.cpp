#include "ermak/analysis/indentation_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ermak/analysis/svg_plot.h"
#include "ermak/io/tsv_writer.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;

// An indentation's largest approach force beyond which a window ending at a fraction of it
// holds the substrate's wall more than the molecule (its forces: hundreds of pN).
constexpr double kWallForce_pN = 1000.0;

// A spring-constant fit below this R² describes noise more than the curve: shown, but left
// out of the statistics (docs/analysis.md#nano-indentation).
constexpr double kReliableSpringR2 = 0.5;

// The per-row series, once the replica's curve files and plots are written: the summary
// needs only the per-replica results.
void drop_series(IndentationAnalysis& a) {
  release(a.step);
  release(a.time_ns);
  release(a.base_nm);
  release(a.tip_raw_nm);
  release(a.spring_force_raw_pN);
  release(a.tip_nm);
  release(a.spring_force_pN);
  release(a.molecule_force_pN);
  release(a.indentation_nm);
  release(a.indentation_raw_nm);
}

void plot_indentation_replica(const IndentationAnalysis& a, const std::string& name, const fs::path& path,
                              bool overwrite) {
  SvgPlot plot(name + ": force–indentation", "indentation [nm]", "cantilever spring force [pN]");
  const std::size_t n_app = a.turnaround + 1;
  std::vector<double> ri(a.indentation_raw_nm.begin(), a.indentation_raw_nm.end());
  const auto raw_idx = decimate(a.spring_force_raw_pN, kPlotPoints);
  plot.line(pick(ri, raw_idx), pick(a.spring_force_raw_pN, raw_idx), style("#9a9a9a", 0.7, "", 0.45), "raw data");
  const std::vector<double> ax(a.indentation_nm.begin(), a.indentation_nm.begin() + n_app),
      ay(a.spring_force_pN.begin(), a.spring_force_pN.begin() + n_app);
  const auto ia = decimate(ay, kPlotPoints);
  plot.line(pick(ax, ia), pick(ay, ia), style(palette_color(0), 1.8), "approach (smoothed)");
  if (n_app < a.rows) {
    const std::vector<double> rx(a.indentation_nm.begin() + n_app - 1, a.indentation_nm.end()),
        ry(a.spring_force_pN.begin() + n_app - 1, a.spring_force_pN.end());
    const auto ir = decimate(ry, kPlotPoints);
    plot.line(pick(rx, ir), pick(ry, ir), style(palette_color(3), 1.6, "6,3"), "retraction (smoothed)");
  }
  if (a.linear.ok) {
    const double pad = 0.1 * (a.linear_to_nm - a.linear_from_nm);
    const double lx[2] = {a.linear_from_nm - pad, a.linear_to_nm + pad};
    const double ly[2] = {a.linear.slope * lx[0] + a.linear.intercept, a.linear.slope * lx[1] + a.linear.intercept};
    plot.line(lx, ly, style("#111111", 2.0, "8,4"), fmt::format("linear fit: k = {} pN/nm", g(a.linear.slope)));
  }
  std::vector<double> px, py;
  for (const auto& p : a.peaks) {
    px.push_back(p.peak.position);
    py.push_back(p.peak.force);
  }
  if (px.empty()) plot.legend_note("no breaking events");
  else plot.markers(px, py, Marker::circle, 9.0, marker_style("#ffbf00"), fmt::format("breaking events ({})", px.size()));
  if (a.contact_found) {
    const double cx[1] = {0.0}, cy[1] = {a.spring_force_pN[a.contact_row]};
    plot.markers(cx, cy, Marker::triangle, 9.0, marker_style("#2ca02c"), "contact");
  }
  plot.write(path, overwrite);
}

void plot_indentation_overlay(const std::vector<IndentationRecord>& records, const fs::path& path, bool overwrite) {
  SvgPlot plot(fmt::format("Force–indentation, {} replica{}", records.size(), records.size() == 1 ? "" : "s"),
               "indentation [nm]", "cantilever spring force [pN]");
  const bool legend = records.size() <= 10;
  std::size_t k = 0;
  std::size_t peaks = 0;
  for (const auto& r : records) {
    const std::string color = palette_color(k++ % kOverlayCurves);
    std::string label = r.replica.name;
    if (r.a.linear.ok) label += fmt::format(" (k = {} pN/nm)", g(r.a.linear.slope, 3));
    const bool curve_kept = !r.approach.x.empty();  // for the first kOverlayCurves
    if (curve_kept) plot.line(r.approach.x, r.approach.y, style(color, 1.5), legend ? label : "");
    if (!r.retraction.x.empty()) plot.line(r.retraction.x, r.retraction.y, style(color, 1.2, "5,3", 0.7));
    if (r.a.linear.ok && curve_kept) {
      const double pad = 0.1 * (r.a.linear_to_nm - r.a.linear_from_nm);
      const double lx[2] = {r.a.linear_from_nm - pad, r.a.linear_to_nm + pad};
      const double ly[2] = {r.a.linear.slope * lx[0] + r.a.linear.intercept,
                            r.a.linear.slope * lx[1] + r.a.linear.intercept};
      plot.line(lx, ly, style("#111111", 1.6, "8,4"));
    }
    std::vector<double> px, py;
    for (const auto& p : r.a.peaks) {
      px.push_back(p.peak.position);
      py.push_back(p.peak.force);
    }
    peaks += px.size();
    plot.markers(px, py, Marker::circle, 8.0, marker_style(color));
  }
  if (records.size() > kOverlayCurves)
    plot.legend_note(fmt::format("curves and fits of the first {} of {} replicas; events of all", kOverlayCurves,
                                 records.size()));
  else if (!legend)
    plot.legend_note(fmt::format("{} replicas, one colour each", records.size()));
  if (std::any_of(records.begin(), records.end(), [](const IndentationRecord& r) { return !r.retraction.x.empty(); }))
    plot.line({}, {}, style("#555555", 1.2, "5,3"), "retraction");
  plot.line({}, {}, style("#111111", 1.6, "8,4"), "linear fits");
  if (peaks == 0) plot.legend_note("no breaking events");
  else plot.markers({}, {}, Marker::circle, 8.0, marker_style("#ffffff"), fmt::format("breaking events ({})", peaks));
  plot.write(path, overwrite);
}
}  // namespace

IndentationRecord read_indentation_replica(const Replica& r, bool own, const IndentationReportOptions& options,
                                           const fs::path& out, std::size_t& indentation_curves,
                                           std::vector<fs::path>& files, std::vector<std::string>& warnings) {
  const CurveSettings& st = options.settings;
  const bool overwrite = options.overwrite;
  const std::string& ip = options.file_prefix;
  auto written = [&](const fs::path& p) { files.push_back(p); };
  const TsvTable table = TsvTable::read(r.dir / "indentation.tsv");
  table.require_rising_steps();
  for (const auto& w : table.warnings()) warnings.push_back(w);
  IndentationRecord rec{r, analyze_indentation(table, st), {}, {}, 0.0};
  const IndentationAnalysis& a = rec.a;
  if (a.rows == 0) warnings.push_back(table.source() + ": no rows");
  const fs::path curve = out / (r.name + "_" + ip + "curve.tsv");
  if (own) {
    TsvWriter w = TsvWriter::create(curve, {"step", "time[ns]", "base[nm]", "tip[nm]", "indentation[nm]",
                                            "spring_force[pN]", "molecule_force[pN]", "retraction"}, overwrite);
    for (std::size_t i = 0; i < a.rows; ++i) {
      const double rest[] = {a.time_ns[i], a.base_nm[i], a.tip_nm[i], a.indentation_nm[i],
                             a.spring_force_pN[i], a.molecule_force_pN[i], i > a.turnaround ? 1.0 : 0.0};
      w.row(std::int64_t(std::llround(a.step[i])), rest);
    }
    w.flush();
    written(curve);
  }
  if (a.rows > 0 && own) {
    const fs::path svg = out / (r.name + "_force_indentation.svg");
    plot_indentation_replica(a, r.name, svg, overwrite);
    written(svg);
  }
  if (a.rows > 0 && indentation_curves++ < kOverlayCurves) {
    const std::size_t n_app = a.turnaround + 1;
    const std::vector<double> ax(a.indentation_nm.begin(), a.indentation_nm.begin() + n_app),
        ay(a.spring_force_pN.begin(), a.spring_force_pN.begin() + n_app);
    const auto ia = decimate(ay, kPlotPoints);
    rec.approach = {pick(ax, ia), pick(ay, ia)};
    if (n_app < a.rows) {
      const std::vector<double> rx(a.indentation_nm.begin() + n_app - 1, a.indentation_nm.end()),
          ry(a.spring_force_pN.begin() + n_app - 1, a.spring_force_pN.end());
      const auto ir = decimate(ry, kPlotPoints);
      rec.retraction = {pick(rx, ir), pick(ry, ir)};
    }
  }
  if (a.rows > 0 && !a.contact_found) warnings.push_back(table.source() + ": " + a.linear_rule);
  rec.last_step = a.step.empty() ? 0.0 : a.step.back();
  drop_series(rec.a);
  return rec;
}

IndentationReport write_indentation_report(const std::vector<IndentationRecord>& indents,
                                           const IndentationReportOptions& options, const fs::path& out,
                                           std::vector<fs::path>& files) {
  IndentationReport report;
  std::string& summary = report.summary;
  std::string& brief = report.brief;
  std::vector<std::string>& produced = report.produced;
  const CurveSettings& st = options.settings;
  const bool overwrite = options.overwrite;
  const bool blocks_apart = options.replica_blocks_apart;
  const std::string& ip = options.file_prefix;
  auto written = [&](const fs::path& p) { files.push_back(p); };
  auto section = [&](const std::string& title, const char* what) -> std::string& {
    return open_replica_section(summary, report.replica_blocks, blocks_apart, title, what);
  };
  std::vector<double>& i_first = report.first_forces;
  std::vector<double>& i_max = report.max_forces;
  std::vector<double>& i_all = report.all_forces;
  std::vector<double> springs;
  std::size_t unreliable_springs = 0;
  if (!indents.empty()) {
    {
      TsvWriter w = TsvWriter::create(out / (ip + "peaks.tsv"),
                                      {"step", "replica", "peak", "time[ns]", "force[pN]", "indentation[nm]", "tip[nm]",
                                       "drop[pN]"},
                                      overwrite);
      for (const auto& rec : indents)
        for (std::size_t k = 0; k < rec.a.peaks.size(); ++k) {
          const IndentationPeak& p = rec.a.peaks[k];
          const double rest[] = {double(rec.replica.index), double(k), p.time_ns, p.peak.force, p.peak.position,
                                 p.tip_nm, p.peak.drop};
          w.row(p.step, rest);
        }
      w.flush();
    }
    written(out / (ip + "peaks.tsv"));
    std::string& block =
        section(fmt::format("\nNano-indentation: {} replica{}\n", indents.size(), indents.size() == 1 ? "" : "s"),
                "contact, linear regime, spring constant, breaking events, notes");
    for (const auto& rec : indents) {
      const IndentationAnalysis& a = rec.a;
      if (a.rows == 0) {
        block += fmt::format("\n{}: no rows in its indentation.tsv: nothing to analyse\n", rec.replica.name);
        continue;
      }
      const bool noise_known = a.turnaround + 1 >= 4;
      block += fmt::format("\n{}: {} rows ({} approach); {}; force noise {} raw, {} smoothed; peak drop ≥ {} pN{}\n",
                           rec.replica.name, a.rows, a.turnaround + 1, a.smoothing.description,
                           noise_known ? g(a.smoothing.noise_raw, 3) + " pN" : std::string("n/a"),
                           noise_known ? g(a.smoothing.noise_smoothed, 3) + " pN" : std::string("n/a"),
                           g(a.smoothing.min_peak_drop, 3), a.smoothing.min_peak_drop_automatic ? " (automatic)" : "");
      block += few_rows_note(a.smoothing, "indentation.output_every");
      block += few_windows_note(a.smoothing);
      if (a.contact_at_start)
        block += fmt::format("  contact: from the first row (step {}): the tip presses on the molecule from the start "
                             "(molecule force {} pN there); the indentation counts from it\n",
                             a.contact_step, g(a.molecule_force_first_pN, 3));
      else if (a.contact_found)
        block += fmt::format("  contact: step {}, tip at {} nm (molecule force ≥ {} pN)\n",
                             a.contact_step, g(a.contact_tip_nm, 4), g(a.contact_threshold_pN, 3));
      else
        block += fmt::format("  contact: not found (molecule force never reached {} pN); indentation = tip displacement{}\n",
                             g(a.contact_threshold_pN, 3),
                             a.turnaround + 1 < a.rows
                                 ? fmt::format("; the base turned at step {} before any contact (a retraction trigger "
                                               "set short, or a retract_at_force reached on the free tip's noise: "
                                               "run.log notes both)",
                                               g(a.turnaround_step, 12))
                                 : std::string());
      if (a.linear.n > 0)
        block += fmt::format("  linear regime: {}; indentation {} to {} nm\n", a.linear_rule, g(a.linear_from_nm),
                             g(a.linear_to_nm));
      else if (a.contact_found || st.linear_range_nm)
        block += fmt::format("  linear regime: {}; no rows in it\n", a.linear_rule);
      // No peak, and an approach far past a protein's forces: the tip pressed the molecule onto
      // the substrate, and the window's upper part is that wall, not the molecule's response.
      if (a.linear.n > 0 && !a.linear_reference_is_peak && !st.linear_range_nm &&
          a.linear_reference_pN > kWallForce_pN)
        block += fmt::format("  note: the approach reached {} pN without a peak, far past a protein's forces (the "
                             "tip pressed onto the substrate?): the window up to {} × that holds the wall, and k "
                             "grows with how far the run pushed; give --linear-range-nm (or a smaller "
                             "--linear-fraction) for the molecule's own response\n",
                             g(a.linear_reference_pN, 4), g(st.linear_fraction));
      if (a.linear.ok) {
        // A fit that does not describe the curve (the regime holds mostly noise) is shown but
        // kept out of the statistics and the headline.
        std::string unreliable;
        if (!(a.linear.slope > 0.0))
          unreliable = "not positive";
        else if (!(a.linear.r_squared >= kReliableSpringR2))
          unreliable = "R² below " + g(kReliableSpringR2);
        else if (!(a.linear.slope_se < a.linear.slope))
          unreliable = "its standard error exceeds it";
        block += fmt::format("  spring constant k = {} ± {} pN/nm (R² = {}, {} points; zero-force intercept at {} "
                             "nm){}\n",
                             g(a.linear.slope), g(a.linear.slope_se, 2), g(a.linear.r_squared, 4), a.linear.n,
                             g(a.contact_extrapolated_nm),
                             unreliable.empty() ? ""
                                                : "\n    unreliable (" + unreliable +
                                                      "): left out of the statistics; give --linear-range-nm or "
                                                      "--contact-force-pN, or a wider --smooth-window-nm");
        if (unreliable.empty())
          springs.push_back(a.linear.slope);
        else
          ++unreliable_springs;
      } else if (!a.contact_found && !st.linear_range_nm) {
        block += "  spring constant: no fit (no contact)\n";
      } else {
        block += fmt::format("  spring constant: no fit ({} of the 3 points it needs in the linear regime)\n",
                             a.linear.n);
      }
      if (a.maxima_before_contact > 0)
        block += fmt::format("  left out: {} force maxim{} before the contact — the free tip's thermal wander, not "
                             "breaking events\n",
                             a.maxima_before_contact, a.maxima_before_contact == 1 ? "um" : "a");
      if (!a.unloaded.empty())
        block += unloaded_maxima_note(a.unloaded, "the cantilever loads (κ·Δbase + the peak criterion, κ = " +
                                                            g(a.cantilever_pN_per_nm, 4) + " pN/nm from the table)",
                                      "the tip's thermal wander, not a breaking event");
      if (a.peaks.empty()) block += "  no breaking events on the approach\n";
      double fmax = -std::numeric_limits<double>::infinity();
      for (std::size_t k = 0; k < a.peaks.size(); ++k) {
        const IndentationPeak& p = a.peaks[k];
        block += fmt::format("  event {}: {} pN at indentation {} nm (step {}, {} ns), drop {} pN\n", k, g(p.peak.force),
                             g(p.peak.position), p.step, g(p.time_ns, 6), g(p.peak.drop));
        i_all.push_back(p.peak.force);
        fmax = std::max(fmax, p.peak.force);
      }
      if (!a.peaks.empty()) {
        i_first.push_back(a.peaks.front().peak.force);
        i_max.push_back(fmax);
      }
    }
    std::vector<TableEnd> ends;
    for (const auto& rec : indents) ends.push_back({rec.replica.name, rec.last_step});
    summary += cut_short_notes(ends, "the indentation", options.run_steps, options.run_error, options.running);
    summary += "\nIndentation over replicas\n";
    if (unreliable_springs > 0)
      summary += fmt::format("  spring constants: {} of {} fits unreliable and left out (see each replica {})\n",
                             unreliable_springs, unreliable_springs + springs.size(),
                             blocks_apart ? "in replicas.txt" : "above");
    summary += stats_block("spring constant k", describe(springs), "pN/nm");
    summary += stats_block("first breaking force", describe(i_first), "pN");
    summary += stats_block("largest breaking force", describe(i_max), "pN");
    if (!i_first.empty())
      summary += "  breaking forces are maxima of the smoothed curves: below the raw force's by up to κ·W/2 for the "
                 "cantilever's spring κ and a window W (docs/analysis.md#smoothing)\n";
    plot_indentation_overlay(indents, out / "force_indentation.svg", overwrite);
    written(out / "force_indentation.svg");
    produced.insert(produced.end(), {ip + "peaks.tsv", "force_indentation.svg"});
    brief += fmt::format("indentation: {} replica{}{}; spring constant {}{}; {} breaking event{}\n", indents.size(),
                         indents.size() == 1 ? "" : "s",
                         cut_short_brief(ends, options.run_steps, options.run_error.has_value(), options.running),
                         springs.empty() ? std::string("n/a") : mean_sd(describe(springs), "pN/nm"),
                         unreliable_springs > 0 ? fmt::format(" ({} unreliable fit{} left out)", unreliable_springs,
                                                              unreliable_springs == 1 ? "" : "s")
                                                : std::string(),
                         i_all.size(), i_all.size() == 1 ? "" : "s");
  }
  return report;
}

}  // namespace ermak::analysis
