#include "ermak/analysis/analyze_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <regex>
#include <set>
#include <system_error>

#include "ermak/analysis/analysis_progress.h"
#include "ermak/analysis/clamp_lifetimes.h"
#include "ermak/analysis/melting_curve.h"
#include "ermak/analysis/plane_report.h"
#include "ermak/analysis/report_common.h"
#include "ermak/analysis/run_directory.h"
#include "ermak/analysis/svg_plot.h"
#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/io/tsv_writer.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The fitted WLC from x_from up to where it reaches 1.12 × f_top.
Line wlc_line(const WlcFit& fit, double x_from, double f_top, double kT) {
  Line l;
  if (!fit.ok) return l;
  const double x_to = marko_siggia_extension(1.12 * std::max(f_top, 1.0), fit.contour_length,
                                             fit.persistence_length, kT);
  x_from = std::max(0.0, std::min(x_from, x_to));
  for (int k = 0; k <= 120; ++k) {
    const double x = x_from + (x_to - x_from) * k / 120.0;
    l.x.push_back(x);
    l.y.push_back(marko_siggia_force(x, fit.contour_length, fit.persistence_length, kT));
  }
  return l;
}

// --- records kept per replica after its big series are written and dropped ----------------

// An indentation's largest approach force beyond which a window ending at a fraction of it
// holds the substrate's wall more than the molecule (its forces: hundreds of pN).
constexpr double kWallForce_pN = 1000.0;

struct PullingRecord {
  Replica replica;
  PullingAnalysis a;  // series cleared after the replica's files are written
  Line curve;         // decimated smoothed curve (extension, force) or (time, extension) for a clamp
  double last_step = 0.0;  // of the table
  double row_ns = 0.0;     // time between the table's first two rows
  // Force clamp with --unfolded-extension-nm X: the unfolding time (or censored); unset when
  // the extension starts at or beyond X. The recorded force's range tells a clamp from a
  // force schedule.
  std::optional<ClampUnfolding> unfolding;
  double force_min_pN = 0.0, force_max_pN = 0.0;
};

// A spring-constant fit below this R² describes noise more than the curve: shown, but left
// out of the statistics (docs/analysis.md#nano-indentation).
constexpr double kReliableSpringR2 = 0.5;

// Smoothing windows of a few rows average too little noise away for the noise estimates,
// the peak criterion and the contact to mean much: say so, and what to change.
std::string few_rows_note(const SmoothingInfo& smoothing, const char* output_key) {
  constexpr double kFewRows = 10.0;
  if (!(smoothing.rows_per_window < kFewRows)) return "";
  return fmt::format("  note: a smoothing window holds only {} rows on average (fewer than {}): the noise, the peak "
                     "criterion and the contact rest on too few rows; give a wider --smooth-window-nm or write rows "
                     "more often ({})\n",
                     g(smoothing.rows_per_window, 3), g(kFewRows), output_key);
}

// The rms of a WLC fit above which (and above 3 σ_s) the summary calls it rough.
constexpr double kRoughFit_pN = 10.0;

struct IndentationRecord {
  Replica replica;
  IndentationAnalysis a;
  Line approach, retraction;  // decimated smoothed (indentation, spring force)
  double last_step = 0.0;     // of the table
};

// The per-row series of a replica's analysis, once its curve files and plots are written:
// the summary needs only the per-replica results, and a run of many replicas need not hold
// every replica's series at once.
template <class T>
void drop_series(T& a) {
  release(a.step);
  release(a.time_ns);
  release(a.base_nm);
  if constexpr (std::is_same_v<T, PullingAnalysis>) {
    release(a.extension_raw_nm);
    release(a.force_raw_pN);
    release(a.extension_nm);
    release(a.end_to_end_nm);
    release(a.force_pN);
    release(a.force_magnitude_pN);
  } else {
    release(a.tip_raw_nm);
    release(a.spring_force_raw_pN);
    release(a.tip_nm);
    release(a.spring_force_pN);
    release(a.molecule_force_pN);
    release(a.indentation_nm);
    release(a.indentation_raw_nm);
  }
}

// --- plots ------------------------------------------------------------------------------

void plot_pulling_replica(const PullingAnalysis& a, const std::string& name, double kT, const fs::path& path,
                          bool overwrite) {
  SvgPlot plot(name + ": force–extension", "extension [nm]", "force along the pulling direction [pN]");
  plot.include_zero_y(true);
  const auto raw_idx = decimate(a.force_raw_pN, kPlotPoints);
  plot.line(pick(a.extension_raw_nm, raw_idx), pick(a.force_raw_pN, raw_idx), style("#9a9a9a", 0.7, "", 0.45),
            "raw data");
  const auto idx = decimate(a.force_pN, kPlotPoints);
  plot.line(pick(a.extension_nm, idx), pick(a.force_pN, idx), style(palette_color(0), 1.8), "smoothed");
  bool fit_legend = true;
  for (const PullingPeak& p : a.peaks) {
    const Line l = wlc_line(p.fit, p.fit_from_nm, p.peak.force, kT);
    if (l.x.empty()) continue;
    plot.line(l.x, l.y, style("#d62728", 1.6, "7,4"),
              fit_legend ? fmt::format("WLC fits (P = {} nm)", g(p.fit.persistence_length, 3)) : "");
    fit_legend = false;
  }
  if (a.final_fit && a.final_fit->ok) {
    double top = 0.0;
    for (std::size_t i = 0; i < a.extension_nm.size(); ++i)
      if (a.extension_nm[i] >= a.final_fit_from_nm && a.extension_nm[i] <= a.final_fit_to_nm)
        top = std::max(top, a.force_pN[i]);
    const Line l = wlc_line(*a.final_fit, a.final_fit_from_nm, top, kT);
    plot.line(l.x, l.y, style("#d62728", 1.6, "7,4"), fit_legend ? "WLC fit" : "");
  }
  std::vector<double> px, py;
  for (const PullingPeak& p : a.peaks) {
    px.push_back(p.peak.position);
    py.push_back(p.peak.force);
  }
  if (px.empty()) plot.legend_note("no unfolding peaks");
  else plot.markers(px, py, Marker::circle, 9.0, marker_style("#ffbf00"), fmt::format("unfolding peaks ({})", px.size()));
  for (std::size_t k = 0; k < a.peaks.size(); ++k) {
    const PullingPeak& p = a.peaks[k];
    std::string text = fmt::format("#{}: {} pN at {} nm", k + 1, g(p.peak.force), g(p.peak.position));
    if (p.fit.ok) text += fmt::format(", Lc {} nm", g(p.fit.contour_length));
    plot.legend_note(text);
  }
  if (a.final_fit && a.final_fit->ok)
    plot.legend_note(fmt::format("after last peak: Lc {} nm", g(a.final_fit->contour_length)));
  cap_force_axis(plot, py, *std::max_element(a.force_pN.begin(), a.force_pN.end()));
  plot.write(path, overwrite);
}

void plot_pulling_overlay(const std::vector<PullingRecord>& records, double kT, const fs::path& path,
                          bool overwrite) {
  std::size_t count = 0;
  for (const auto& r : records) count += !r.a.force_clamp;
  SvgPlot plot(fmt::format("Force–extension, {} replica{}", count, count == 1 ? "" : "s"), "extension [nm]",
               "force along the pulling direction [pN]");
  plot.include_zero_y(true);
  const bool per_replica_legend = count <= 10;
  std::size_t k = 0;
  for (const auto& r : records) {
    if (r.a.force_clamp || r.curve.x.empty()) continue;  // curves kept for the first kOverlayCurves
    const std::string color = palette_color(k++);
    plot.line(r.curve.x, r.curve.y, style(color, 1.4), per_replica_legend ? r.replica.name : "");
    for (const PullingPeak& p : r.a.peaks) {
      const Line l = wlc_line(p.fit, p.fit_from_nm, p.peak.force, kT);
      if (!l.x.empty()) plot.line(l.x, l.y, style(color, 1.3, "6,4", 0.9));
    }
  }
  if (count > kOverlayCurves)
    plot.legend_note(fmt::format("curves of the first {} of {} replicas; peaks of all", kOverlayCurves, count));
  else if (!per_replica_legend)
    plot.legend_note(fmt::format("{} replicas, one colour each", count));
  std::vector<double> px, py;
  k = 0;
  for (const auto& r : records) {
    if (r.a.force_clamp) continue;
    std::vector<double> x, y;
    for (const PullingPeak& p : r.a.peaks) {
      x.push_back(p.peak.position);
      y.push_back(p.peak.force);
    }
    plot.markers(x, y, Marker::circle, 8.0, marker_style(palette_color(k++ % kOverlayCurves)));
    px.insert(px.end(), x.begin(), x.end());
    py.insert(py.end(), y.begin(), y.end());
  }
  double top = 0.0;
  for (const auto& r : records)
    if (!r.a.force_clamp)
      for (double f : r.curve.y) top = std::max(top, f);
  cap_force_axis(plot, py, top);
  // Legend symbols for the peak markers and the fits (drawn off the data, empty series).
  if (px.empty()) {
    plot.legend_note("no unfolding peaks");
  } else {
    plot.markers({}, {}, Marker::circle, 8.0, marker_style("#ffffff"), fmt::format("unfolding peaks ({})", px.size()));
    plot.line({}, {}, style("#555555", 1.3, "6,4"), "WLC fits (Marko–Siggia)");
  }
  plot.write(path, overwrite);
}

void plot_clamp_overlay(const std::vector<PullingRecord>& records, const fs::path& path, bool overwrite) {
  std::size_t count = 0;
  for (const auto& r : records) count += r.a.force_clamp;
  SvgPlot plot(fmt::format("Force clamp: extension against time, {} replica{}", count, count == 1 ? "" : "s"),
               "time [ns]", "extension [nm]");
  std::size_t k = 0;
  std::vector<double> tx, ty;
  for (const auto& r : records) {
    if (!r.a.force_clamp) continue;
    const std::string label = fmt::format("{} ({} pN)", r.replica.name, g(r.a.mean_force_pN, 3));
    if (!r.curve.x.empty()) plot.line(r.curve.x, r.curve.y, style(palette_color(k++), 1.4), count <= 10 ? label : "");
    if (std::isfinite(r.a.half_extension_time_ns)) {
      tx.push_back(r.a.half_extension_time_ns);
      ty.push_back(0.5 * (r.a.extension_start_nm + r.a.extension_end_nm));
    }
  }
  plot.markers(tx, ty, Marker::diamond, 9.0, marker_style("#ffbf00"), "half of the extension change");
  if (count > kOverlayCurves)
    plot.legend_note(fmt::format("curves of the first {} of {} replicas; markers of all", kOverlayCurves, count));
  plot.write(path, overwrite);
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

// The unfolding times of a force-clamp run's replicas to X (--unfolded-extension-nm): their
// table unfolding_times.tsv, statistics and exponential lifetime, and the checks that say
// when the lifetime does not describe them (docs/analysis.md#force-clamp).
std::string clamp_lifetime_section(const std::vector<PullingRecord>& pulls, double x_unfolded, const fs::path& out,
                                   bool overwrite, std::string& brief,
                                   const std::function<void(const fs::path&)>& written,
                                   std::vector<std::string>& produced) {
  std::string s;
  // A force schedule holds the base still too, but its force changes: no lifetime at one force
  // (the spectrum refuses it the same way).
  for (const auto& rec : pulls)
    if (rec.a.force_clamp && is_force_schedule(rec.force_min_pN, rec.force_max_pN, rec.a.mean_force_pN)) {
      s += fmt::format("  unfolding times: none — {}'s force runs from {} to {} pN, a force schedule, not a clamp at "
                       "one force, and an exponential lifetime describes one force\n",
                       rec.replica.name, g(rec.force_min_pN), g(rec.force_max_pN));
      brief += "  no unfolding times: a force schedule, not a clamp at one force\n";
      return s;
    }
  TsvWriter w = TsvWriter::create(out / "unfolding_times.tsv", {"replica", "force[pN]", "time[ns]", "unfolded"},
                                  overwrite);
  std::vector<double> times, unfolded_times;
  std::vector<char> unfolded;
  std::string started_beyond;
  double highest_start = -std::numeric_limits<double>::infinity(), largest_noise = 0.0;
  for (const auto& rec : pulls) {
    if (!rec.a.force_clamp) continue;
    highest_start = std::max(highest_start, rec.a.extension_start_nm);
    largest_noise = std::max(largest_noise, rec.a.extension_noise_nm);
    if (!rec.unfolding) {
      started_beyond += (started_beyond.empty() ? "" : ", ") + rec.replica.name;
      continue;
    }
    const double rest[] = {rec.a.mean_force_pN, rec.unfolding->time_ns, rec.unfolding->unfolded ? 1.0 : 0.0};
    w.row(rec.replica.index, rest);
    times.push_back(rec.unfolding->time_ns);
    unfolded.push_back(rec.unfolding->unfolded ? 1 : 0);
    if (rec.unfolding->unfolded) unfolded_times.push_back(rec.unfolding->time_ns);
  }
  w.flush();
  written(out / "unfolding_times.tsv");
  produced.push_back("unfolding_times.tsv");
  s += fmt::format("  unfolding times: the first row whose extension reaches {} nm (--unfolded-extension-nm), from the "
                   "first row; {} of {} replicas unfolded, the others are censored at their last row\n",
                   g(x_unfolded), unfolded_times.size(), times.size());
  if (!started_beyond.empty())
    s += fmt::format("  note: left out, their extension starts at or beyond {} nm: {}\n", g(x_unfolded), started_beyond);
  // X within reach of the folded state's fluctuations times those, not unfolding.
  if (!times.empty() && x_unfolded < highest_start + 3.0 * largest_noise)
    s += fmt::format("  note: {} nm lies within the starting extensions' fluctuations (up to {} nm + 3 × {} nm): "
                     "thermal motion reaches it; give the extension of the unfolded state\n",
                     g(x_unfolded), g(highest_start), g(largest_noise, 3));
  s += stats_block("unfolding time", describe(unfolded_times), "ns");
  const ExponentialLifetime life = exponential_lifetime(times, unfolded);
  std::string lifetime;
  if (times.empty()) {
    lifetime = "n/a (every replica starts at or beyond it)";
  } else if (life.events == 0) {
    // No event in a total time T at risk: P(none | τ) = e^(−T/τ) ≥ 5 % bounds τ below by
    // T/ln 20 (≈ T/3), the one thing such a run says of the lifetime.
    double total_ns = 0.0;
    for (double t : times) total_ns += t;
    lifetime = fmt::format("n/a (no replica unfolded in {} ns in all: τ > {} ns at 95 %)", g(total_ns, 4),
                           g(total_ns / std::log(20.0), 3));
    s += fmt::format("  lifetime τ: no replica unfolded in {} ns at risk in all, so τ > {} ns (95 %, T/ln 20); a larger "
                     "force or longer runs measure it\n",
                     g(total_ns, 4), g(total_ns / std::log(20.0), 3));
  } else {
    lifetime = fmt::format("{} ± {} ns (95 %: {} to {} ns)", g(life.tau), g(life.tau_se, 2), g(life.tau_low, 3),
                           g(life.tau_high, 3));
    s += fmt::format("  lifetime τ (exponential, censored replicas included; interval by likelihood ratio) = {}; "
                     "k = 1/τ = {} s⁻¹\n",
                     lifetime, g(1e9 / life.tau));
    // Exponential lifetimes vary with a coefficient of variation of 1; far less says a lag or
    // a chain dragged open, not one barrier crossed (the spectrum's check, over all-unfolded runs).
    const SampleStatistics st = describe(unfolded_times);
    if (life.events == times.size() && far_less_varied_than_exponential(st.sd / st.mean, life.events))
      s += fmt::format("  note: the unfolding times vary far less than exponential lifetimes do (CV {}, 1 for an "
                       "exponential): τ then says little; look at the curves (a lag before unfolding, a chain "
                       "dragged open)\n",
                       g(st.sd / st.mean, 2));
  }
  brief += fmt::format("  unfolded (extension ≥ {} nm): {} of {}; lifetime τ = {}\n", g(x_unfolded), life.events,
                       times.size(), lifetime);
  return s;
}

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
  const RunLogFacts run_log = read_run_log(options.run_dir);
  std::string temperature_source = options.temperature_from_run ? "default; run.log gives none" : "--temperature-K";
  if (options.temperature_from_run && run_log.temperature_K) {
    options.temperature_K = *run_log.temperature_K;
    temperature_source = run_log.heating ? "the start of the run's heating schedule, from run.log"
                                         : "the run's, from run.log";
  }
  st.wlc.kT = kT_pN_nm(options.temperature_K);
  const double kT = st.wlc.kT;
  // A pulling run's maxima are checked against what its cantilever can load (κv, run.log).
  st.loading_rate_pN_per_s = run_log.summed_loading_rate_pN_per_s();
  // A heating or cooling run without protocol tables: its melting curve, which takes none of
  // the curve options.
  if (run_log.heating) {
    std::vector<std::string> lost;
    if (const auto tables = energy_tables_of_a_run_without_protocol(options.run_dir, &lost); !tables.empty()) {
      if (!options.given_options.empty())
        bad(options.given_options.front(), "does not apply to the melting curve of a heating run (" +
                                               options.run_dir.string() + " has no protocol tables)");
      AnalyzeResult melting =
          analyze_melting_run(options, tables, {run_log.heating_every_steps, run_log.heating_stop_K, run_log.run_error});
      for (const std::string& name : lost)
        melting.warnings.push_back((options.run_dir / name).string() +
                                   ": no energies.tsv, which the other replicas have; replica left out of the melting "
                                   "curve");
      return melting;
    }
  }
  const bool overwrite = options.overwrite;

  AnalyzeResult result;
  std::vector<std::string> without_table;
  const std::vector<Replica> replicas = discover_replicas(options.run_dir, &without_table);
  for (const std::string& name : without_table)
    result.warnings.push_back((options.run_dir / name).string() +
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
    for (std::string& w : options.replica_files.unmatched_warnings(numbers)) result.warnings.push_back(std::move(w));
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
  // Written into a staging directory, moved into OUT when everything has succeeded.
  StagedOutput staged(final_out, planned, overwrite);
  const fs::path& out = staged.dir();
  auto written = [&](const fs::path& p) { result.files.push_back(p); };

  // --- per replica: analyse, write its curve and plot, keep what the summary needs ---------
  std::vector<PullingRecord> pulls;
  std::vector<IndentationRecord> indents;
  std::size_t ramp_curves = 0, clamp_curves = 0, indentation_curves = 0;  // kept for the overlays (kOverlayCurves)
  AnalysisProgress progress("replicas", replicas.size());
  for (std::size_t position = 0; position < replicas.size(); ++position) {
    progress.update(position);
    const Replica& r = replicas[position];
    const bool own = own_files[position];
    if (r.pulling) {
      const TsvTable table = TsvTable::read(r.dir / "pulling.tsv");
      table.require_rising_steps();
      for (const auto& w : table.warnings()) result.warnings.push_back(w);
      PullingRecord rec;
      rec.replica = r;
      rec.a = analyze_pulling(table, st);
      const PullingAnalysis& a = rec.a;
      if (a.rows < 2) {
        // No curve to analyse (and one row cannot tell a ramp from a clamp): left out.
        result.warnings.push_back(table.source() + (a.rows == 0 ? ": no rows" : ": one row only") +
                                  "; replica left out of the analysis");
      } else {
        const fs::path curve = out / (r.name + "_curve.tsv");
        if (own) {
          TsvWriter w = TsvWriter::create(curve, {"step", "time[ns]", "base[nm]", "extension[nm]", "end_to_end[nm]",
                                                  "force_along[pN]", "force[pN]"}, overwrite);
          // A smoothed curve holds nothing between rows much closer than its window: a long
          // run's table (10⁷ rows over 10¹⁰ steps) gives every k-th row, at most
          // kCurveFileRows and the last, not a copy of the table's size.
          const std::size_t stride = (a.rows + kCurveFileRows - 1) / kCurveFileRows;
          auto write_row = [&](std::size_t i) {
            const double rest[] = {a.time_ns[i], a.base_nm[i], a.extension_nm[i], a.end_to_end_nm[i], a.force_pN[i],
                                   a.force_magnitude_pN[i]};
            w.row(std::int64_t(std::llround(a.step[i])), rest);
          };
          for (std::size_t i = 0; i < a.rows; i += stride) write_row(i);
          if ((a.rows - 1) % stride != 0) write_row(a.rows - 1);
          w.flush();
          written(curve);
        }
        if (!a.force_clamp) {
          if (own) {
            const fs::path svg = out / (r.name + "_force_extension.svg");
            plot_pulling_replica(a, r.name, kT, svg, overwrite);
            written(svg);
          }
          if (ramp_curves++ < kOverlayCurves) {
            const auto idx = decimate(a.force_pN, kPlotPoints);
            rec.curve = {pick(a.extension_nm, idx), pick(a.force_pN, idx)};
          }
        } else if (clamp_curves++ < kOverlayCurves) {
          const auto idx = decimate(a.extension_nm, kPlotPoints);
          rec.curve = {pick(a.time_ns, idx), pick(a.extension_nm, idx)};
        }
        rec.last_step = rec.a.step.empty() ? 0.0 : rec.a.step.back();
        rec.row_ns = rec.a.time_ns.size() >= 2 ? rec.a.time_ns[1] - rec.a.time_ns[0] : 0.0;
        if (a.force_clamp && options.unfolded_extension_nm && a.rows > 0) {
          // The recorded rows, as the spectrum's lifetimes: a running average would make a
          // trajectory that unfolds within half a window look unfolded from its first row.
          rec.unfolding = clamp_unfolding(a.time_ns, a.extension_raw_nm, *options.unfolded_extension_nm);
          const auto [lo, hi] = std::minmax_element(a.force_raw_pN.begin(), a.force_raw_pN.end());
          rec.force_min_pN = *lo;
          rec.force_max_pN = *hi;
        }
        drop_series(rec.a);
        pulls.push_back(std::move(rec));
      }
    }
    if (r.indentation) {
      const TsvTable table = TsvTable::read(r.dir / "indentation.tsv");
      table.require_rising_steps();
      for (const auto& w : table.warnings()) result.warnings.push_back(w);
      IndentationRecord rec{r, analyze_indentation(table, st), {}, {}, 0.0};
      const IndentationAnalysis& a = rec.a;
      if (a.rows == 0) result.warnings.push_back(table.source() + ": no rows");
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
      if (a.rows > 0 && !a.contact_found) result.warnings.push_back(table.source() + ": " + a.linear_rule);
      rec.last_step = a.step.empty() ? 0.0 : a.step.back();
      drop_series(rec.a);
      indents.push_back(std::move(rec));
    }
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
  auto section = [&](const std::string& title, const char* what) -> std::string& {
    summary += title;
    if (!blocks_apart) return summary;
    summary += fmt::format("  per replica ({}): replicas.txt\n", what);
    replica_blocks += title;
    return replica_blocks;
  };
  summary += "ermak analyze: force-spectroscopy analysis (docs/analysis.md)\n";
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
                              g(st.window_nm.value_or(0.2)),
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

  // --- pulling ----------------------------------------------------------------------------
  std::vector<double> first_forces, max_forces, all_forces, delta_lcs, final_lcs;
  if (n_ramp > 0) {
    {
      TsvWriter w = TsvWriter::create(out / "peaks.tsv",
                                      {"step", "replica", "peak", "time[ns]", "force[pN]", "extension[nm]", "drop[pN]",
                                       "Lc[nm]", "dLc[nm]", "P[nm]", "fit_rms[pN]", "fit_points",
                                       "loading_rate[pN/s]"},
                                      overwrite);
      for (const auto& rec : pulls)
        for (std::size_t k = 0; k < rec.a.peaks.size(); ++k) {
          const PullingPeak& p = rec.a.peaks[k];
          const bool ok = p.fit.ok;
          const double rest[] = {double(rec.replica.index), double(k), p.time_ns, p.peak.force, p.peak.position,
                                 p.peak.drop, ok ? p.fit.contour_length : kNaN, p.delta_contour_length,
                                 ok ? p.fit.persistence_length : kNaN, ok ? p.fit.rms_residual : kNaN,
                                 double(p.fit.points), p.loading_rate_pN_per_s};
          w.row(p.step, rest);
        }
      w.flush();
    }
    written(out / "peaks.tsv");
    {
      TsvWriter w = TsvWriter::create(out / "wlc_fits.tsv",
                                      {"replica", "edge", "before_peak", "Lc[nm]", "P[nm]", "dLc[nm]", "fit_rms[pN]",
                                       "fit_points", "extension_from[nm]", "extension_to[nm]", "ok"},
                                      overwrite);
      auto row = [&](int replica, std::size_t edge, bool before_peak, const WlcFit& f, double dlc, double from,
                     double to) {
        const double v[] = {double(replica), double(edge), before_peak ? 1.0 : 0.0,
                            f.ok ? f.contour_length : kNaN, f.ok ? f.persistence_length : kNaN, dlc,
                            f.ok ? f.rms_residual : kNaN, double(f.points), from, to, f.ok ? 1.0 : 0.0};
        w.row(v);
      };
      for (const auto& rec : pulls) {
        for (std::size_t k = 0; k < rec.a.peaks.size(); ++k) {
          const PullingPeak& p = rec.a.peaks[k];
          row(rec.replica.index, k, true, p.fit, p.delta_contour_length, p.fit_from_nm, p.fit_to_nm);
        }
        if (rec.a.final_fit)
          row(rec.replica.index, rec.a.peaks.size(), false, *rec.a.final_fit, rec.a.final_delta_contour_length,
              rec.a.final_fit_from_nm, rec.a.final_fit_to_nm);
      }
      w.flush();
    }
    written(out / "wlc_fits.tsv");

    std::string& block = section(fmt::format("\nConstant-velocity pulling: {} replica{}\n", n_ramp, n_ramp == 1 ? "" : "s"),
                                 "smoothing, noise, peaks, WLC fits, notes");
    // Fits whose residual is far above the smoothed force's noise: the edge is no WLC (the
    // native structure's stiffness, a lagging chain), and its Lc and dLc are uncertain.
    std::size_t fits = 0, rough_fits = 0;
    auto is_rough = [&](const WlcFit& f, const PullingAnalysis& a) {
      return f.ok && f.rms_residual > std::max(kRoughFit_pN, 3.0 * a.smoothing.noise_smoothed);
    };
    auto count_fit = [&](const WlcFit& f, const PullingAnalysis& a) {
      if (!f.ok) return;
      ++fits;
      if (is_rough(f, a)) ++rough_fits;
    };
    for (const auto& rec : pulls) {
      if (rec.a.force_clamp) continue;
      const PullingAnalysis& a = rec.a;
      for (const PullingPeak& p : a.peaks) count_fit(p.fit, a);
      if (a.final_fit) count_fit(*a.final_fit, a);
      // Fewer than 4 rows give fewer than 2 second differences: no noise estimate.
      const bool noise_known = a.rows >= 4;
      block += fmt::format("\n{}: {} rows; {}; force noise {} raw, {} smoothed; peak drop ≥ {} pN{}\n",
                           rec.replica.name, a.rows, a.smoothing.description,
                           noise_known ? g(a.smoothing.noise_raw, 3) + " pN" : std::string("n/a"),
                           noise_known ? g(a.smoothing.noise_smoothed, 3) + " pN" : std::string("n/a"),
                           g(a.smoothing.min_peak_drop, 3), a.smoothing.min_peak_drop_automatic ? " (automatic)" : "");
      block += few_rows_note(a.smoothing, "pulling.output_every");
      if (!a.force_clamp) block += few_windows_note(a.smoothing);
      if (a.non_finite_rows > 0)
        block += fmt::format("  note: {} row{} nan or inf in the extension or force (where a run blew up?): the "
                             "smoothed curves and peaks skip {}\n",
                             a.non_finite_rows, a.non_finite_rows == 1 ? " holds" : "s hold",
                             a.non_finite_rows == 1 ? "it" : "them");
      if (const auto& turn = a.base_turns_back)
        block += fmt::format("  note: the base goes back at step {} ({} → {} nm), where a pulling base only moves "
                             "forward: a table joined from several runs, or edited? A peak there is the turn, not "
                             "an unfolding\n",
                             g(turn->step, 12), g(turn->from_nm, 6), g(turn->to_nm, 6));
      if (!a.unloaded.empty())
        block += unloaded_maxima_note(a.unloaded, "the cantilever loads (κv·Δt + the peak criterion)",
                                      "thermal wandering or refolding against the spring, not unfolding under load");
      if (a.peaks.empty()) {
        block += "  no unfolding peaks\n";
      } else {
        block += fmt::format("  {:>4} {:>14} {:>11} {:>10} {:>14} {:>9} {:>9} {:>9} {:>7} {:>9}\n", "peak", "step",
                             "time[ns]", "force[pN]", "extension[nm]", "drop[pN]", "Lc[nm]", "dLc[nm]", "P[nm]",
                             "rms[pN]");
        double fmax = -std::numeric_limits<double>::infinity();
        for (std::size_t k = 0; k < a.peaks.size(); ++k) {
          const PullingPeak& p = a.peaks[k];
          block += fmt::format("  {:>4} {:>14} {:>11} {:>10} {:>14} {:>9} {:>9} {:>9} {:>7} {:>9}{}\n", k, p.step,
                               g(p.time_ns, 6), g(p.peak.force), g(p.peak.position), g(p.peak.drop),
                               p.fit.ok ? g(p.fit.contour_length) : "n/a", g(p.delta_contour_length),
                               p.fit.ok ? g(p.fit.persistence_length, 3) : "n/a",
                               p.fit.ok ? g(p.fit.rms_residual, 3) : "n/a",
                               !p.fit.ok ? "  (fit: " + p.fit.note + ")" : is_rough(p.fit, a) ? "  (rough)" : "");
          all_forces.push_back(p.peak.force);
          fmax = std::max(fmax, p.peak.force);
          if (std::isfinite(p.delta_contour_length)) delta_lcs.push_back(p.delta_contour_length);
        }
        first_forces.push_back(a.peaks.front().peak.force);
        max_forces.push_back(fmax);
      }
      if (a.final_fit) {
        const WlcFit& f = *a.final_fit;
        block += fmt::format("  after the last peak: Lc = {} nm{} (ΔLc from the last peak {}){}\n",
                             f.ok ? g(f.contour_length) : "n/a",
                             f.ok && st.wlc.fit_persistence ? ", P = " + g(f.persistence_length, 3) + " nm" : "",
                             std::isfinite(a.final_delta_contour_length)
                                 ? g(a.final_delta_contour_length) + " nm"
                                 : std::string("n/a"),
                             f.ok ? "" : "  (fit: " + f.note + ")");
        if (f.ok) final_lcs.push_back(f.contour_length);
        if (std::isfinite(a.final_delta_contour_length)) delta_lcs.push_back(a.final_delta_contour_length);
      }
    }
    const SampleStatistics sfirst = describe(first_forces), smax = describe(max_forces), sdl = describe(delta_lcs);
    summary += "\nUnfolding forces over replicas\n";
    if (run_log.loading_rate_pN_per_s)
      summary += fmt::format("  loading rate κv = {} pN/s (the cantilever's spring times its speed, from run.log)\n",
                             g(*run_log.loading_rate_pN_per_s));
    summary += fmt::format("  replicas with a peak: {} of {}{}\n", first_forces.size(), n_ramp,
                           first_forces.size() < n_ramp ? " (the statistics below are over these)" : "");
    {
      std::vector<TableEnd> ends;
      for (const auto& rec : pulls)
        if (!rec.a.force_clamp) ends.push_back({rec.replica.name, rec.last_step});
      summary += cut_short_notes(ends, "the pulling", run_log.run_steps, run_log.run_error);
    }
    summary += stats_block("first peak", sfirst, "pN");
    summary += stats_block("largest peak", smax, "pN");
    summary += stats_block("all peaks", describe(all_forces), "pN");
    summary += stats_block("ΔLc (successive edges)", sdl, "nm");
    if (rough_fits > 0)
      summary += fmt::format("  note: {} of {} WLC fits have an rms above max({} pN, 3 × their replica's smoothed "
                             "force noise), marked (rough) {}: their edges are no worm-like chain (the first edge "
                             "of a folded protein, mostly its native stiffness, always is), and their Lc and ΔLc (in "
                             "the statistics above) are effective values; fit_rms in wlc_fits.tsv says which\n",
                             rough_fits, fits, g(kRoughFit_pN), blocks_apart ? "in replicas.txt" : "above");
    if (!final_lcs.empty()) summary += stats_block("Lc after the last peak", describe(final_lcs), "nm");

    if (all_forces.empty())
      brief += fmt::format("pulling: {} replica{}, no unfolding peaks\n", n_ramp, n_ramp == 1 ? "" : "s");
    else
      brief += fmt::format("pulling: {} replica{}, {} unfolding peak{}; first peak {}\n", n_ramp, n_ramp == 1 ? "" : "s",
                           all_forces.size(), all_forces.size() == 1 ? "" : "s", mean_sd(sfirst, "pN"));
    if (sdl.n > 0)
      brief += fmt::format("  ΔLc {}{}\n", mean_sd(sdl, "nm"),
                           rough_fits > 0 ? fmt::format(" — {} of {} WLC fits rough: effective values (summary.txt)",
                                                        rough_fits, fits)
                                          : std::string());

    plot_pulling_overlay(pulls, kT, out / "force_extension.svg", overwrite);
    written(out / "force_extension.svg");
    produced.insert(produced.end(), {"peaks.tsv", "wlc_fits.tsv", "force_extension.svg"});
  }
  if (options.unfolded_extension_nm && n_clamp == 0)
    result.warnings.push_back("--unfolded-extension-nm applies to force-clamp runs, and this run has no clamp "
                              "replica: not used");
  if (n_clamp > 0) {
    std::string& block = section(fmt::format("\nForce clamp: {} replica{}\n", n_clamp, n_clamp == 1 ? "" : "s"),
                                 "rows, mean force, extension at the start and end, half-way time, notes");
    block += fmt::format("  {:<12} {:>9} {:>15} {:>13} {:>13} {:>16}\n", "replica", "rows", "mean force[pN]",
                         "x start[nm]", "x end[nm]", "t half-way[ns]");
    std::vector<double> half_times;
    std::string no_plateau;
    std::size_t shrinking = 0;
    for (const auto& rec : pulls) {
      if (!rec.a.force_clamp) continue;
      const PullingAnalysis& a = rec.a;
      const double change = a.extension_end_nm - a.extension_start_nm;
      // A transition that shortens the chain is folding or a collapse, not unfolding: named,
      // and not among the unfolding times.
      const bool folds = a.clamp_transition && change < 0.0;
      block += fmt::format("  {:<12} {:>9} {:>15} {:>13} {:>13} {:>16}\n", rec.replica.name, a.rows,
                           g(a.mean_force_pN), g(a.extension_start_nm), g(a.extension_end_nm),
                           !a.clamp_transition ? std::string("no transition")
                           : folds             ? g(a.half_extension_time_ns, 6) + " (shortens)"
                                               : g(a.half_extension_time_ns, 6));
      if (!a.clamp_transition) continue;
      if (folds) {
        ++shrinking;
        continue;
      }
      half_times.push_back(a.half_extension_time_ns);
      if (std::abs(a.extension_change_last_tenth_nm) > 0.05 * std::abs(change))
        no_plateau += fmt::format("  note: {}: the extension still changed by {} nm over the last tenth of the run: "
                                  "x end is no plateau, and t half-way grows with a longer run\n",
                                  rec.replica.name, g(a.extension_change_last_tenth_nm, 3));
    }
    summary += "  (t half-way: first time the smoothed extension has covered half of its change, for a change of at "
               "least max(1 nm, 8 σ_x), σ_x the extension's noise about its smoothed curve)\n";
    if (blocks_apart && !no_plateau.empty()) {
      replica_blocks += no_plateau;
      summary += fmt::format("  note: {} replica{}' extension still changed by more than 5 % of its change over the last "
                             "tenth of the run (replicas.txt names them): x end is no plateau there, and t half-way "
                             "grows with a longer run\n",
                             std::count(no_plateau.begin(), no_plateau.end(), '\n'),
                             std::count(no_plateau.begin(), no_plateau.end(), '\n') == 1 ? "" : "s");
    } else {
      summary += no_plateau;
    }
    if (shrinking > 0)
      summary += fmt::format("  note: {} replica{} shortened by more than that (folding or a collapse under the clamp, "
                             "not unfolding): not among the half-way times below\n",
                             shrinking, shrinking == 1 ? "" : "s");
    summary += fmt::format("  replicas with a transition that lengthens the chain (an intermediate, a creep or "
                           "unfolding: --unfolded-extension-nm X tells): {} of {}; t half-way over those\n",
                           half_times.size(), n_clamp);
    summary += stats_block("t half-way", describe(half_times), "ns");
    {
      std::vector<TableEnd> ends;
      for (const auto& rec : pulls)
        if (rec.a.force_clamp) ends.push_back({rec.replica.name, rec.last_step});
      summary += cut_short_notes(ends, "the clamp (a replica not unfolded there may unfold later)", run_log.run_steps, run_log.run_error);
    }
    plot_clamp_overlay(pulls, out / "extension_time.svg", overwrite);
    written(out / "extension_time.svg");
    produced.push_back("extension_time.svg");
    brief += fmt::format("force clamp: {} replica{}, {} with a transition (the extension grew by max(1 nm, 8 σ_x) or "
                         "more); half-way time {}\n",
                         n_clamp, n_clamp == 1 ? "" : "s", half_times.size(), mean_sd(describe(half_times), "ns"));
    if (!options.unfolded_extension_nm)
      brief += "  (unfolding times to the extension of the unfolded state: --unfolded-extension-nm X)\n";
    if (options.unfolded_extension_nm) summary += clamp_lifetime_section(pulls, *options.unfolded_extension_nm,
                                                                         out, overwrite, brief, written, produced);
  }

  // --- indentation ------------------------------------------------------------------------
  std::vector<double> i_first, i_max, i_all, springs;
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
    {
      std::vector<TableEnd> ends;
      for (const auto& rec : indents) ends.push_back({rec.replica.name, rec.last_step});
      summary += cut_short_notes(ends, "the indentation", run_log.run_steps, run_log.run_error);
    }
    summary += "\nIndentation over replicas\n";
    if (unreliable_springs > 0)
      summary += fmt::format("  spring constants: {} of {} fits unreliable and left out (see each replica {})\n",
                             unreliable_springs, unreliable_springs + springs.size(),
                             blocks_apart ? "in replicas.txt" : "above");
    summary += stats_block("spring constant k", describe(springs), "pN/nm");
    summary += stats_block("first breaking force", describe(i_first), "pN");
    summary += stats_block("largest breaking force", describe(i_max), "pN");
    plot_indentation_overlay(indents, out / "force_indentation.svg", overwrite);
    written(out / "force_indentation.svg");
    produced.insert(produced.end(), {ip + "peaks.tsv", "force_indentation.svg"});
    brief += fmt::format("indentation: {} replica{}; spring constant {}{}; {} breaking event{}\n", indents.size(),
                         indents.size() == 1 ? "" : "s",
                         springs.empty() ? std::string("n/a") : mean_sd(describe(springs), "pN/nm"),
                         unreliable_springs > 0 ? fmt::format(" ({} unreliable fit{} left out)", unreliable_springs,
                                                              unreliable_springs == 1 ? "" : "s")
                                                : std::string(),
                         i_all.size(), i_all.size() == 1 ? "" : "s");
  }

  // --- histograms -------------------------------------------------------------------------
  if (!first_forces.empty()) {
    summary += "\nHistogram of unfolding forces\n";
    summary += write_force_histogram(out, "", first_forces, max_forces, all_forces, "unfolding", options.bins,
                                     overwrite, result.files);
    produced.insert(produced.end(), {"forces_histogram.tsv", "peak_force_histogram.svg"});
  }
  if (!i_first.empty()) {
    summary += "\nHistogram of breaking forces\n";
    summary += write_force_histogram(out, ip, i_first, i_max, i_all, "breaking", options.bins, overwrite,
                                     result.files);
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

  // --- the list of files, the summary ------------------------------------------------------
  summary += "\nFiles\n";
  summary += "  summary.txt                  this summary\n";
  if (blocks_apart) {
    write_text_file(out / "replicas.txt",
                    fmt::format("ermak analyze: each replica of {} ({} replicas; their statistics are in "
                                "summary.txt)\n{}",
                                options.run_dir.string(), replicas.size(), replica_blocks),
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
