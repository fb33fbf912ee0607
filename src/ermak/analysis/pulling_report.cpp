#include "ermak/analysis/pulling_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "ermak/analysis/svg_plot.h"
#include "ermak/analysis/wlc.h"
#include "ermak/io/tsv_writer.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The rms of a WLC fit above which (and above 3 σ_s) the summary calls it rough.
constexpr double kRoughFit_pN = 10.0;

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

// The per-row series, once the replica's curve files and plots are written: the summary
// needs only the per-replica results.
void drop_series(PullingAnalysis& a) {
  release(a.step);
  release(a.time_ns);
  release(a.base_nm);
  release(a.extension_raw_nm);
  release(a.force_raw_pN);
  release(a.extension_nm);
  release(a.end_to_end_nm);
  release(a.force_pN);
  release(a.force_magnitude_pN);
}

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

// The unfolding times of a force-clamp run's replicas to X (--unfolded-extension-nm): their
// table unfolding_times.tsv, statistics and exponential lifetime, and the checks that say
// when the lifetime does not describe them (docs/analysis.md#force-clamp).
std::string clamp_lifetime_section(const std::vector<PullingRecord>& pulls, const PullingReportOptions& options,
                                   const fs::path& out, std::string& brief,
                                   const std::function<void(const fs::path&)>& written,
                                   std::vector<std::string>& produced) {
  const double x_unfolded = *options.unfolded_extension_nm;
  const bool overwrite = options.overwrite;
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
  double highest_start = -std::numeric_limits<double>::infinity(), largest_start_spread = 0.0;
  double reached_nm = -std::numeric_limits<double>::infinity();
  for (const auto& rec : pulls) {
    if (!rec.a.force_clamp) continue;
    highest_start = std::max(highest_start, rec.a.extension_start_nm);
    reached_nm = std::max(reached_nm, rec.extension_max_nm);
    largest_start_spread = std::max(largest_start_spread, rec.a.extension_start_spread_nm);
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
  if (!times.empty() && x_unfolded < highest_start + 3.0 * largest_start_spread)
    s += fmt::format("  note: {} nm lies within the starting extensions' fluctuations (up to {} nm + 3 × {} nm, the "
                     "largest spread of a replica's raw extension over the run's first tenth): "
                     "a replica reaches it by fluctuation, or is there from its first rows, without unfolding; give the "
                     "extension of the unfolded state\n",
                     g(x_unfolded), g(highest_start), g(largest_start_spread, 3));
  // Without the censored replicas these are biased short; τ below counts them.
  s += stats_block(unfolded_times.size() < times.size()
                       ? fmt::format("unfolding time of the {} that unfolded (the {} censored are left out, so these "
                                     "are biased short: quote τ below, which counts them)",
                                     unfolded_times.size(), times.size() - unfolded_times.size())
                       : std::string("unfolding time"),
                   describe(unfolded_times), "ns");
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
    s += fmt::format("  lifetime τ: no replica unfolded in {} ns at risk in all, so τ > {} ns (95 %, T/ln 20)",
                     g(total_ns, 4), g(total_ns / std::log(20.0), 3));
    // X beyond the chain's contour length is reached by no force or run length: said instead
    // of asking for them (docs/analysis.md#force-clamp).
    if (options.contour_nm && x_unfolded >= *options.contour_nm) {
      lifetime += fmt::format(" — {} nm lies beyond the chain's contour length, {} nm: no force or run reaches it",
                              g(x_unfolded), g(*options.contour_nm, 3));
      s += fmt::format("; but {} nm lies beyond the chain's contour length between beads {} and {} ({} nm, its "
                       "native bond lengths summed, model.etop), which the chain passes only by stretching its "
                       "bonds: a larger force or longer runs will not reach it (the largest extension recorded: {} "
                       "nm); give the extension of the unfolded state, below both\n",
                       g(x_unfolded), options.ends.first, options.ends.second, g(*options.contour_nm, 3),
                       g(reached_nm, 4));
    } else {
      s += fmt::format("; the largest extension recorded is {} nm, below {} nm: a larger force or longer runs "
                       "measure it, or give the extension of the unfolded state the replicas reach\n",
                       g(reached_nm, 4), g(x_unfolded));
    }
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
  // A temperature that changes while the clamp holds (a [heating] schedule) changes the rate
  // as a force schedule's force does: the times are kept, and the lifetime is said to be at
  // no one temperature (the spectrum refuses such runs).
  if (!options.heating.empty() && !times.empty())
    s += fmt::format("  note: the run heats ({}, [heating] in run.log) while the clamp holds: these times are over a "
                     "changing temperature, and τ is the lifetime at no one temperature (an exponential lifetime "
                     "assumes one rate); clamp at one temperature for a lifetime\n",
                     options.heating);
  brief += fmt::format("  unfolded (extension ≥ {} nm): {} of {}; lifetime τ = {}{}\n", g(x_unfolded), life.events,
                       times.size(), lifetime,
                       options.heating.empty() || times.empty()
                           ? std::string()
                           : fmt::format(" — over a changing temperature ({}, [heating]): at no one temperature",
                                         options.heating));
  return s;
}

// The summary's notes on tables that end before the run's steps (cut_short_notes) and the
// headline's words on them (cut_short_brief), for the constant-velocity (`clamp` false) or
// the force-clamp replicas: of the one run, or run by run for runs pooled, each note and the
// headline naming its run (a run stopped early is one run's matter, and the runs may differ
// in length).
struct TableEndReport {
  std::string notes, brief;
};
TableEndReport table_end_report(const std::vector<PullingRecord>& pulls, bool clamp, const std::string& covered,
                                const PullingReportOptions& options) {
  auto ends_of = [&](std::optional<std::size_t> run) {
    std::vector<TableEnd> ends;
    for (const auto& rec : pulls)
      if (rec.a.force_clamp == clamp && (!run || rec.replica.run == *run))
        ends.push_back({rec.replica.name, rec.last_step});
    return ends;
  };
  TableEndReport report;
  if (options.pooled_runs.empty()) {
    const std::vector<TableEnd> ends = ends_of(std::nullopt);
    report.notes = cut_short_notes(ends, covered, options.run_steps, options.run_error, options.running);
    report.brief = cut_short_brief(ends, options.run_steps, options.run_error.has_value(), options.running);
    return report;
  }
  const std::string note = "  note: ";
  std::vector<std::string> briefs;
  for (std::size_t k = 0; k < options.pooled_runs.size(); ++k) {
    const PullingReportOptions::PooledRun& run = options.pooled_runs[k];
    const std::vector<TableEnd> ends = ends_of(k);
    std::string notes = cut_short_notes(ends, covered, run.run_steps, run.run_error, run.running);
    for (std::size_t at = notes.find(note); at != std::string::npos; at = notes.find(note, at + 1)) {
      notes.insert(at + note.size(), run.dir + ": ");
      at += run.dir.size();
    }
    report.notes += notes;
    // " (the run stopped at step … of …)": its words, within the one bracket of every run's.
    const std::string b = cut_short_brief(ends, run.run_steps, run.run_error.has_value(), run.running);
    if (b.size() > 3) briefs.push_back(run.dir + ": " + b.substr(2, b.size() - 3));
  }
  if (!briefs.empty()) {
    report.brief = " (";
    for (std::size_t k = 0; k < briefs.size(); ++k) report.brief += (k ? "; " : "") + briefs[k];
    report.brief += ")";
  }
  return report;
}

// " of 2 runs pooled" for the headlines of runs pooled into one analysis; "" for one run.
std::string pooled_runs_words(const PullingReportOptions& options) {
  return options.pooled_runs.empty() ? std::string() : fmt::format(" of {} runs pooled", options.pooled_runs.size());
}

}  // namespace

std::optional<PullingRecord> read_pulling_replica(const Replica& r, bool own, const PullingReportOptions& options,
                                                  const fs::path& out, PullingOverlayCurves& overlay,
                                                  std::vector<fs::path>& files, std::vector<std::string>& warnings) {
  const CurveSettings& st = options.settings;
  const double kT = st.wlc.kT;
  const bool overwrite = options.overwrite;
  auto written = [&](const fs::path& p) { files.push_back(p); };
  const TsvTable table = TsvTable::read(r.dir / "pulling.tsv");
  table.require_rising_steps();
  for (const auto& w : table.warnings()) warnings.push_back(w);
  PullingRecord rec;
  rec.replica = r;
  rec.a = analyze_pulling(table, st);
  const PullingAnalysis& a = rec.a;
  if (a.rows < 2) {
    // No curve to analyse (and one row cannot tell a ramp from a clamp): left out.
    warnings.push_back(table.source() + (a.rows == 0 ? ": no rows" : ": one row only") +
                       "; replica left out of the analysis");
    return std::nullopt;
  }
  {
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
      if (overlay.ramps++ < kOverlayCurves) {
        const auto idx = decimate(a.force_pN, kPlotPoints);
        rec.curve = {pick(a.extension_nm, idx), pick(a.force_pN, idx)};
      }
    } else if (overlay.clamps++ < kOverlayCurves) {
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
      rec.extension_max_nm = largest_extension_nm(a);
    }
    drop_series(rec.a);
  }
  return rec;
}

PullingReport write_pulling_report(const std::vector<PullingRecord>& pulls, const PullingReportOptions& options,
                                   const fs::path& out, std::vector<fs::path>& files) {
  PullingReport report;
  std::string& summary = report.summary;
  std::string& brief = report.brief;
  std::vector<std::string>& produced = report.produced;
  const CurveSettings& st = options.settings;
  const double kT = st.wlc.kT;
  const bool overwrite = options.overwrite;
  const bool blocks_apart = options.replica_blocks_apart;
  auto written = [&](const fs::path& p) { files.push_back(p); };
  auto section = [&](const std::string& title, const char* what) -> std::string& {
    return open_replica_section(summary, report.replica_blocks, blocks_apart, title, what);
  };
  std::size_t n_ramp = 0, n_clamp = 0;
  for (const auto& rec : pulls) (rec.a.force_clamp ? n_clamp : n_ramp) += 1;

  std::vector<double>& first_forces = report.first_forces;
  std::vector<double>& max_forces = report.max_forces;
  std::vector<double>& all_forces = report.all_forces;
  std::vector<double> delta_lcs, final_lcs;
  // Per replica: the total ΔLc (last − first fitted edge), and how many of those end before
  // the edge after the last peak (its fit failed, or the force did not rise there).
  std::vector<double> total_dlcs;
  std::size_t totals_without_final_edge = 0;
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
                                       "fit_points", "extension_from[nm]", "extension_to[nm]", "ok", "total_dLc[nm]"},
                                      overwrite);
      // total_dLc, appended last so that readers of the earlier columns by position still
      // work: on the replica's last fitted edge, its Lc − the first fitted edge's; nan elsewhere.
      auto row = [&](int replica, std::size_t edge, bool before_peak, const WlcFit& f, double dlc, double from,
                     double to, const std::optional<TotalContourIncrement>& total) {
        const double total_dlc = total && total->last_edge == edge ? total->delta_nm : kNaN;
        const double v[] = {double(replica), double(edge), before_peak ? 1.0 : 0.0,
                            f.ok ? f.contour_length : kNaN, f.ok ? f.persistence_length : kNaN, dlc,
                            f.ok ? f.rms_residual : kNaN, double(f.points), from, to, f.ok ? 1.0 : 0.0, total_dlc};
        w.row(v);
      };
      for (const auto& rec : pulls) {
        const std::optional<TotalContourIncrement> total = total_contour_increment(rec.a);
        for (std::size_t k = 0; k < rec.a.peaks.size(); ++k) {
          const PullingPeak& p = rec.a.peaks[k];
          row(rec.replica.index, k, true, p.fit, p.delta_contour_length, p.fit_from_nm, p.fit_to_nm, total);
        }
        if (rec.a.final_fit)
          row(rec.replica.index, rec.a.peaks.size(), false, *rec.a.final_fit, rec.a.final_delta_contour_length,
              rec.a.final_fit_from_nm, rec.a.final_fit_to_nm, total);
      }
      w.flush();
    }
    written(out / "wlc_fits.tsv");

    std::string& block = section(fmt::format("\nConstant-velocity pulling: {} replica{}\n", n_ramp, n_ramp == 1 ? "" : "s"),
                                 "smoothing, noise, peaks, WLC fits, notes");
    // A pull during heating sees a rising temperature (docs/analysis.md#worm-like-chain-fits-lc-and-δlc):
    // its forces are at no one temperature, and the WLC fits take one kT.
    if (!options.heating.empty() && n_ramp > 0)
      block += fmt::format("  note: the run heats ({}, [heating] in run.log) while it pulls: its forces are over a "
                           "changing temperature, and the WLC fits use kT = {} pN·nm (T = {} K); give "
                           "--temperature-K for the stretch you fit, or pull at one temperature\n",
                           options.heating, g(st.wlc.kT, 4), g(st.wlc.kT / boltzmann_pN_nm_per_K, 4));
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
      if (!a.force_clamp && noise_known) block += slow_wander_note(a.smoothing);
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
      // The contour length released in all (docs/analysis.md#worm-like-chain-fits-lc-and-δlc).
      if (!a.peaks.empty()) {
        if (const auto total = total_contour_increment(a)) {
          block += fmt::format("  total ΔLc (last − first fitted edge) = {} nm (Lc {} nm of edge {} − {} nm of edge "
                               "{}){}\n",
                               g(total->delta_nm), g(total->last_Lc_nm), total->last_edge, g(total->first_Lc_nm),
                               total->first_edge,
                               total->ends_at_final_edge ? "" : "; the edge after the last peak is not fitted: it "
                                                                "misses the last event's ΔLc");
          total_dlcs.push_back(total->delta_nm);
          if (!total->ends_at_final_edge) ++totals_without_final_edge;
        } else {
          block += "  total ΔLc (last − first fitted edge): n/a (fewer than two fitted edges)\n";
        }
      }
    }
    const SampleStatistics sfirst = describe(first_forces), smax = describe(max_forces), sdl = describe(delta_lcs);
    summary += "\nUnfolding forces over replicas\n";
    // The rate at which the tabulated force — the sum over the pulled beads' springs — is
    // loaded, as the spectrum plots it (run_directory.h, summed_loading_rate_pN_per_s).
    if (options.loading_rate_pN_per_s && options.pulled_beads > 1)
      summary += fmt::format("  loading rate m·κv = {} pN/s ({} pulled beads, each on a spring loaded at κv = {} pN/s, "
                             "from run.log; the forces are their sum)\n",
                             g(*options.loading_rate_pN_per_s * options.pulled_beads), options.pulled_beads,
                             g(*options.loading_rate_pN_per_s));
    else if (options.loading_rate_pN_per_s)
      summary += fmt::format("  loading rate κv = {} pN/s (the cantilever's spring times its speed, from run.log)\n",
                             g(*options.loading_rate_pN_per_s));
    summary += fmt::format("  replicas with a peak: {} of {}{}\n", first_forces.size(), n_ramp,
                           first_forces.size() < n_ramp ? " (the statistics below are over these)" : "");
    if (options.ends_on_separate_chains)
      summary += fmt::format("  note: no chain of bonds joins the ends (beads {} and {}: two chains, or a chain break): "
                             "the peaks are ruptures between them, and the worm-like-chain fits' Lc and ΔLc measure "
                             "no chain's contour length\n",
                             options.ends.first, options.ends.second);
    if (!first_forces.empty())
      summary += "  peak forces are maxima of the smoothed curves: below the raw force's peaks by up to κ·W/2 for a "
                 "spring κ and a window W (docs/analysis.md#smoothing)\n";
    const TableEndReport ramp_ends = table_end_report(pulls, false, "the pulling", options);
    summary += ramp_ends.notes;
    summary += stats_block("first peak", sfirst, "pN");
    summary += stats_block("largest peak", smax, "pN");
    summary += stats_block("all peaks", describe(all_forces), "pN");
    summary += stats_block("ΔLc (successive edges)", sdl, "nm");
    if (all_forces.size() > first_forces.size())
      summary += "  (all peaks and ΔLc (successive edges) pool several events per replica, of different transitions: "
                 "their sem treats the events as independent; per replica, quote the first or largest peak and the "
                 "total ΔLc)\n";
    // The one to compare with experiment: per replica, not per event (an intermediate splits
    // an unfolding into several increments above).
    const SampleStatistics stotal = describe(total_dlcs);
    summary += stats_block("total ΔLc (last − first fitted edge), per replica", stotal, "nm");
    if (total_dlcs.size() < first_forces.size())
      summary += fmt::format("  ({} of the {} replicas with a peak have two or more fitted edges: the total ΔLc is "
                             "over these)\n",
                             total_dlcs.size(), first_forces.size());
    if (totals_without_final_edge > 0)
      summary += fmt::format("  note: in {} of them the edge after the last peak is not fitted (its fit failed, or the "
                             "force did not rise there): their total ends at the last fitted peak's edge and misses "
                             "the last event's ΔLc\n",
                             totals_without_final_edge);
    if (rough_fits > 0)
      summary += fmt::format("  note: {} of {} WLC fits have an rms above max({} pN, 3 × their replica's smoothed "
                             "force noise), marked (rough) {}: their edges are no worm-like chain (the first edge "
                             "of a folded protein, mostly its native stiffness, always is), and their Lc and ΔLc (in "
                             "the statistics above) are effective values; fit_rms in wlc_fits.tsv says which\n",
                             rough_fits, fits, g(kRoughFit_pN), blocks_apart ? "in replicas.txt" : "above");
    if (!final_lcs.empty()) summary += stats_block("Lc after the last peak", describe(final_lcs), "nm");

    // A run stopped early is said on the terminal too: its missing peaks are no evidence of none.
    const std::string cut_short = pooled_runs_words(options) + ramp_ends.brief;
    if (all_forces.empty())
      brief += fmt::format("pulling: {} replica{}{}, no unfolding peaks\n", n_ramp, n_ramp == 1 ? "" : "s", cut_short);
    else
      brief += fmt::format("pulling: {} replica{}{}, {} unfolding peak{}; first peak {}\n", n_ramp,
                           n_ramp == 1 ? "" : "s", cut_short, all_forces.size(), all_forces.size() == 1 ? "" : "s",
                           mean_sd(sfirst, "pN"));
    if (sdl.n > 0)
      brief += fmt::format("  ΔLc per event (successive edges) {}{}\n", mean_sd(sdl, "nm"),
                           rough_fits > 0 ? fmt::format(" — {} of {} WLC fits rough: effective values (summary.txt)",
                                                        rough_fits, fits)
                                          : std::string());
    if (stotal.n > 0)
      brief += fmt::format("  total ΔLc (last − first fitted edge) {}\n", mean_sd(stotal, "nm"));

    plot_pulling_overlay(pulls, kT, out / "force_extension.svg", overwrite);
    written(out / "force_extension.svg");
    produced.insert(produced.end(), {"peaks.tsv", "wlc_fits.tsv", "force_extension.svg"});
  }
  if (options.unfolded_extension_nm && n_clamp == 0)
    report.warnings.push_back("--unfolded-extension-nm applies to force-clamp runs, and this run has no clamp "
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
      report.replica_blocks += no_plateau;
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
    const TableEndReport clamp_ends =
        table_end_report(pulls, true, "the clamp (a replica not unfolded there may unfold later)", options);
    summary += clamp_ends.notes;
    plot_clamp_overlay(pulls, out / "extension_time.svg", overwrite);
    written(out / "extension_time.svg");
    produced.push_back("extension_time.svg");
    brief += fmt::format("force clamp: {} replica{}{}, {} with a transition (the extension grew by max(1 nm, 8 σ_x) "
                         "or more); half-way time {}\n",
                         n_clamp, n_clamp == 1 ? "" : "s", pooled_runs_words(options) + clamp_ends.brief,
                         half_times.size(),
                         mean_sd(describe(half_times), "ns"));
    if (!options.unfolded_extension_nm)
      brief += "  (unfolding times to the extension of the unfolded state: --unfolded-extension-nm X)\n";
    if (options.unfolded_extension_nm)
      summary += clamp_lifetime_section(pulls, options, out, brief, written, produced);
  }
  return report;
}

std::string no_pulling_curve_notes(const PullingReportOptions& options, std::string& summary) {
  summary += "\nPulling\n  no replica has a curve: every pulling table holds one row or none (see Warnings)\n";
  std::vector<std::pair<std::string, std::string>> errors;  // (the run's directory where pooled, its error)
  if (options.pooled_runs.empty()) {
    if (options.run_error) errors.emplace_back("", *options.run_error);
  } else {
    for (const PullingReportOptions::PooledRun& run : options.pooled_runs)
      if (run.run_error) errors.emplace_back(run.dir + ": ", *run.run_error);
  }
  for (const auto& [where, error] : errors)
    summary += fmt::format("  note: {}the run ended with an error before its tables' second row (run.log: \"{}\"), "
                           "which --resume would repeat; {}\n",
                           where, error, kAfterAnError);
  if (errors.empty()) {
    summary += "  note: a run stopped before its tables' second row, or still starting: --resume continues it, and "
               "an analysis after its next rows has curves\n";
    return "pulling: no replica has a curve yet (one row or none in every table: summary.txt)\n";
  }
  return "pulling: no replica has a curve: the run ended with an error before its tables' second row (summary.txt)\n";
}

}  // namespace ermak::analysis
