#include "ermak/analysis/report_common.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string_view>
#include <system_error>

#include "ermak/analysis/smoothing_defaults.h"
#include "ermak/core/error.h"
#include "ermak/io/file_kind.h"
#include "ermak/io/tsv_writer.h"

namespace ermak::analysis {

namespace fs = std::filesystem;

std::vector<std::size_t> decimate(std::span<const double> y, std::size_t max_points) {
  std::vector<std::size_t> idx;
  const std::size_t n = y.size();
  if (n <= max_points) {
    for (std::size_t i = 0; i < n; ++i) idx.push_back(i);
    return idx;
  }
  const std::size_t buckets = std::max<std::size_t>(max_points / 2, 1);
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t lo = b * n / buckets, hi = (b + 1) * n / buckets;
    if (lo >= hi) continue;
    std::size_t imin = lo, imax = lo;
    for (std::size_t i = lo; i < hi; ++i) {
      if (y[i] < y[imin]) imin = i;
      if (y[i] > y[imax]) imax = i;
    }
    idx.push_back(std::min(imin, imax));
    if (imin != imax) idx.push_back(std::max(imin, imax));
  }
  if (idx.back() != n - 1) idx.push_back(n - 1);
  return idx;
}

std::vector<double> pick(const std::vector<double>& v, const std::vector<std::size_t>& idx) {
  std::vector<double> out;
  out.reserve(idx.size());
  for (std::size_t i : idx) out.push_back(v[i]);
  return out;
}

std::string g(double v, int digits) {
  if (!std::isfinite(v)) return "n/a";
  return fmt::format("{:.{}g}", v, digits);
}

std::string mean_sd(const SampleStatistics& s, const char* unit) {
  if (s.n == 0) return "none";
  if (s.n == 1) return fmt::format("{} {} (n = 1)", g(s.mean), unit);
  return fmt::format("{} ± {} {} (mean ± sd; sem {}, n = {}, range {} to {})", g(s.mean), g(s.sd), unit,
                     g(s.sem, 3), s.n, g(s.min), g(s.max));
}

std::string stats_block(const std::string& title, const SampleStatistics& s, const char* unit) {
  if (s.n == 0) return fmt::format("  {}: none\n", title);
  if (s.n == 1) return fmt::format("  {}: n = 1, {} {}\n", title, g(s.mean), unit);
  return fmt::format("  {}: n = {}, mean = {} {}, sd = {} {}, sem = {} {}, median = {} {}, min = {} {}, max = {} {}\n",
                     title, s.n, g(s.mean), unit, g(s.sd), unit, g(s.sem), unit, g(s.median), unit,
                     g(s.min), unit, g(s.max), unit);
}

PlotStyle style(const std::string& color, double width, const std::string& dash, double opacity) {
  PlotStyle s;
  s.color = color;
  s.width = width;
  s.dash = dash;
  s.opacity = opacity;
  return s;
}

PlotStyle marker_style(const std::string& color) {
  PlotStyle s;
  s.color = color;
  s.fill = color;
  s.width = 1.4;
  return s;
}

void cap_force_axis(SvgPlot& plot, std::span<const double> peak_forces, double curve_max) {
  if (peak_forces.empty()) return;
  const double top = *std::max_element(peak_forces.begin(), peak_forces.end());
  if (top > 0.0 && curve_max > 2.0 * top) {
    plot.cap_y(1.5 * top);
    plot.legend_note(fmt::format("(force axis cut at {} pN)", g(1.5 * top, 3)));
  }
}

Line decimated_line(const std::vector<double>& x, const std::vector<double>& y) {
  const auto idx = decimate(y, kPlotPoints);
  return {pick(x, idx), pick(y, idx)};
}

namespace {

void plot_histogram(const Histogram& h, std::span<const double> first, std::span<const double> maximum,
                    std::span<const double> all, const std::string& what, const fs::path& path, bool overwrite) {
  // The all-peaks outline counts peaks, several per replica: the axis says so then.
  SvgPlot plot("Distribution of " + what + " forces over replicas", "force [pN]",
               all.size() > first.size() ? "count (bars, outline: replicas; dotted: peaks)" : "replicas");
  plot.integer_y(true);
  std::vector<double> first_counts, max_counts;
  const auto mc = count_in_bins(maximum, h.edges);
  for (std::size_t c : h.counts) first_counts.push_back(double(c));
  for (std::size_t c : mc) max_counts.push_back(double(c));
  PlotStyle bars;
  bars.color = "#1f5f99";
  bars.fill = "#1f77b4";
  bars.fill_opacity = 0.55;
  bars.width = 1.0;
  const SampleStatistics sf = describe(first), sm = describe(maximum);
  double top_count = 0.0;
  plot.bars(h.edges, first_counts, bars, fmt::format("first peak (n = {})", sf.n));
  // The maximum-peak histogram as an outline.
  std::vector<double> ox, oy;
  for (std::size_t k = 0; k < max_counts.size(); ++k) {
    ox.push_back(h.edges[k]);
    oy.push_back(k == 0 ? 0.0 : max_counts[k - 1]);
    ox.push_back(h.edges[k]);
    oy.push_back(max_counts[k]);
  }
  ox.push_back(h.edges.back());
  oy.push_back(max_counts.empty() ? 0.0 : max_counts.back());
  ox.push_back(h.edges.back());
  oy.push_back(0.0);
  plot.line(ox, oy, style("#ff7f0e", 2.2), fmt::format("largest peak (n = {})", sm.n));
  if (all.size() > first.size()) {  // some replica has more than one peak: all of them, thin
    const auto ac = count_in_bins(all, h.edges);
    std::vector<double> ax, ay;
    for (std::size_t k = 0; k < ac.size(); ++k) {
      ax.push_back(h.edges[k]);
      ay.push_back(k == 0 ? 0.0 : double(ac[k - 1]));
      ax.push_back(h.edges[k]);
      ay.push_back(double(ac[k]));
    }
    ax.push_back(h.edges.back());
    ay.push_back(ac.empty() ? 0.0 : double(ac.back()));
    ax.push_back(h.edges.back());
    ay.push_back(0.0);
    plot.line(ax, ay, style("#555555", 1.2, "3,3"), fmt::format("all peaks (n = {})", all.size()));
    for (std::size_t c : ac) top_count = std::max(top_count, double(c));
  }
  for (double c : first_counts) top_count = std::max(top_count, c);
  for (double c : max_counts) top_count = std::max(top_count, c);
  const double means_x[2] = {sf.mean, sf.mean}, means_y[2] = {0.0, top_count * 1.04};
  if (sf.n > 0) plot.line(means_x, means_y, style("#1f3f77", 1.6, "5,4"), "mean, first peak");
  plot.legend_note(fmt::format("first: {} ± {} pN", g(sf.mean), g(sf.sd, 3)));
  plot.legend_note(fmt::format("largest: {} ± {} pN", g(sm.mean), g(sm.sd, 3)));
  plot.legend_note("(mean ± sd)");
  plot.set_x_range(h.edges.front() - 0.04 * (h.edges.back() - h.edges.front()),
                   h.edges.back() + 0.04 * (h.edges.back() - h.edges.front()));
  plot.write(path, overwrite);
}

}  // namespace

std::string write_force_histogram(const fs::path& out, const std::string& prefix, std::span<const double> first,
                                  std::span<const double> maximum, std::span<const double> all,
                                  const std::string& what, std::optional<std::size_t> bins, bool overwrite,
                                  std::vector<fs::path>& files) {
  const auto [lo, hi] = histogram_range(all);
  const Histogram h = histogram(first, bins.value_or(default_bin_count(first.size())), lo, hi);
  const auto mc = count_in_bins(maximum, h.edges), ac = count_in_bins(all, h.edges);
  const fs::path table = out / (prefix + "forces_histogram.tsv");
  {
    TsvWriter w = TsvWriter::create(
        table, {"bin_from[pN]", "bin_to[pN]", "bin_center[pN]", "first_peak", "max_peak", "all_peaks"}, overwrite);
    for (std::size_t k = 0; k < h.counts.size(); ++k) {
      const double v[] = {h.edges[k], h.edges[k + 1], 0.5 * (h.edges[k] + h.edges[k + 1]), double(h.counts[k]),
                          double(mc[k]), double(ac[k])};
      w.row(v);
    }
    w.flush();
  }
  files.push_back(table);
  const fs::path svg = out / (prefix + "peak_force_histogram.svg");
  plot_histogram(h, first, maximum, all, what, svg, overwrite);
  files.push_back(svg);
  // The rule is said where it chose: a histogram's shape depends on its bins.
  const std::string rule = bins ? "--bins" : fmt::format("⌈√n⌉ within 5–50, n = {} replicas; --bins sets it", first.size());
  return fmt::format("  histogram: {} bins ({}) of {} pN from {} to {} pN, the smallest to the largest peak force "
                     "({}forces_histogram.tsv)\n",
                     h.counts.size(), rule, g((hi - lo) / double(h.counts.size())), g(lo), g(hi), prefix);
}

namespace {

void check_planned_outputs(const std::filesystem::path& out, const std::vector<std::filesystem::path>& planned,
                           bool overwrite) {
  std::error_code status_error;
  for (const auto& p : planned) {
    const auto status = std::filesystem::symlink_status(p, status_error);
    if (status_error || !std::filesystem::exists(status) || std::filesystem::is_regular_file(status) ||
        std::filesystem::is_symlink(status))
      continue;
    throw Error(p.string(), 0, "",
                std::string("is not a regular file (") + special_file_kind(status) +
                    "), where the analysis writes one of its outputs: remove it, or give -o another directory");
  }
  if (!overwrite) {
    std::vector<std::string> existing;
    for (const auto& p : planned)
      if (std::filesystem::exists(p)) existing.push_back(p.filename().string());
    if (!existing.empty()) {
      std::string list;
      for (std::size_t k = 0; k < existing.size() && k < 5; ++k) list += (k ? ", " : "") + existing[k];
      if (existing.size() > 5) list += fmt::format(" and {} more", existing.size() - 5);
      throw Error(out.string(), 0, "",
                  "output files exist (" + list + "); use --force to replace them or -o for another directory");
    }
  }
}

void remove_planned_outputs(const std::vector<std::filesystem::path>& planned) {
  std::error_code ec;
  for (const auto& p : planned)
    if (std::filesystem::is_regular_file(std::filesystem::symlink_status(p, ec)) ||
        std::filesystem::is_symlink(std::filesystem::symlink_status(p, ec)))
      std::filesystem::remove(p, ec);
}

void create_output_directory(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(dir.string(), 0, "", "cannot create the output directory: " + ec.message());
}

}  // namespace

void prepare_output_directory(const std::filesystem::path& out, const std::vector<std::filesystem::path>& planned,
                              bool overwrite) {
  check_planned_outputs(out, planned, overwrite);
  std::error_code ec;
  // --force: an earlier analysis's files go first, so that none it wrote and this one does
  // not (unfolding_times.tsv without --unfolded-extension-nm, a histogram without peaks) is
  // left beside this one's results.
  if (overwrite) remove_planned_outputs(planned);
  create_output_directory(out);
}

const std::vector<std::string>& analysis_file_names() {
  static const std::vector<std::string> names = {
      // one run, or runs pooled into one (analyze_run, plane_report)
      "summary.txt", "replicas.txt", "replicas.tsv", "peaks.tsv", "wlc_fits.tsv", "forces_histogram.tsv", "force_extension.svg",
      "peak_force_histogram.svg", "extension_time.svg", "unfolding_times.tsv", "indentation_peaks.tsv",
      "indentation_forces_histogram.tsv", "indentation_peak_force_histogram.svg", "force_indentation.svg",
      "plane_peaks.tsv", "plane_replicas.tsv", "force_plane.svg", "plane_forces_histogram.tsv",
      "plane_peak_force_histogram.svg",
      // --contacts (contact_report)
      "contact_ruptures.tsv", "contact_fractions.tsv", "contacts.tsv", "peak_contacts.tsv",
      // a spectrum (force_spectrum)
      "spectrum.tsv", "rupture_forces.tsv", "lifetimes.tsv", "force_loading_rate.svg", "lifetime_force.svg",
      "bootstrap.tsv",
      // a melting curve (melting_curve)
      "melting.tsv", "melting_curve.svg", "heat_capacity.svg"};
  return names;
}

const std::vector<std::string>& replica_file_suffixes() {
  static const std::vector<std::string> suffixes = {
      // pulling (pulling_report), indentation (indentation_report: "indentation_curve.tsv" in a
      // run that also pulls), plane pulling (plane_report)
      "_curve.tsv", "_force_extension.svg", "_indentation_curve.tsv", "_force_indentation.svg", "_plane_curve.tsv",
      "_force_plane.svg"};
  return suffixes;
}

bool is_replica_file_name(const std::string& name) {
  constexpr std::string_view prefix = "replica_";
  if (name.rfind(prefix, 0) != 0) return false;
  std::size_t digits = 0;
  while (prefix.size() + digits < name.size() &&
         std::isdigit(static_cast<unsigned char>(name[prefix.size() + digits])))
    ++digits;
  if (digits < 1 || digits > 9) return false;
  const std::string_view rest = std::string_view(name).substr(prefix.size() + digits);
  const auto& suffixes = replica_file_suffixes();
  return std::find(suffixes.begin(), suffixes.end(), rest) != suffixes.end();
}

void add_every_analysis_file(const std::filesystem::path& out, std::vector<std::filesystem::path>& planned) {
  auto add = [&](const std::filesystem::path& p) {
    if (std::find(planned.begin(), planned.end(), p) == planned.end()) planned.push_back(p);
  };
  for (const std::string& name : analysis_file_names()) add(out / name);
  // The names of replicas this analysis has are planned by it; those of replicas it has not
  // (an earlier analysis of more replicas) only show in the directory. Sorted, so that a
  // refusal names them in order.
  std::vector<std::filesystem::path> found;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(out, ec), end; !ec && it != end; it.increment(ec))
    if (is_replica_file_name(it->path().filename().string())) found.push_back(it->path());
  std::sort(found.begin(), found.end());
  for (const auto& p : found) add(p);
}

StagedOutput::StagedOutput(const std::filesystem::path& out, std::vector<std::filesystem::path> planned,
                           bool overwrite)
    : out_(out), stage_(out / ".ermak-analysis-partial"), planned_(std::move(planned)) {
  check_planned_outputs(out_, planned_, overwrite);
  std::error_code exists_error;
  for (std::filesystem::path d = out_; !d.empty() && !std::filesystem::exists(d, exists_error); d = d.parent_path())
    created_.push_back(d);
  create_output_directory(out_);
  std::error_code ec;
  std::filesystem::remove_all(stage_, ec);  // a crashed analysis's leftovers
  create_output_directory(stage_);
}

StagedOutput::~StagedOutput() {
  if (committed_) return;
  std::error_code ec;
  std::filesystem::remove_all(stage_, ec);
  // A refused analysis leaves no empty OUT it made (an audit found one per failed try); a
  // directory that holds anything stays (remove fails on it).
  for (const std::filesystem::path& d : created_) std::filesystem::remove(d, ec);
}

void StagedOutput::commit(std::vector<std::filesystem::path>& files) {
  remove_planned_outputs(planned_);
  for (auto& f : files) {
    if (f.parent_path() != stage_) continue;
    const std::filesystem::path target = out_ / f.filename();
    std::error_code ec;
    std::filesystem::rename(f, target, ec);
    if (ec) throw Error(target.string(), 0, "", "cannot move the analysis's output into place: " + ec.message());
    f = target;
  }
  std::error_code ec;
  std::filesystem::remove_all(stage_, ec);
  committed_ = true;
}

std::string unloaded_maxima_note(const std::vector<UnloadedMaximum>& unloaded, const std::string& loader,
                                 const std::string& what) {
  if (unloaded.empty()) return "";
  std::string list;
  for (const UnloadedMaximum& u : unloaded)
    list += fmt::format("{}{} pN at step {} (rose {} pN, the springs load {} pN in that time)", list.empty() ? "" : "; ",
                        g(u.force_pN, 4), u.step, g(u.rise_pN, 3), g(u.loadable_pN, 3));
  return fmt::format("  left out: {} force maxim{} that rose faster than {} — {}: {}\n", unloaded.size(),
                     unloaded.size() == 1 ? "um" : "a", loader, what, list);
}

std::string slow_wander_note(const SmoothingInfo& smoothing) {
  // Only where 8 σ_s sets the criterion (it is max(10 pN, 8 σ_s)).
  if (!smoothing.min_peak_drop_automatic || !(smoothing.noise_smoothed > smoothing.noise_raw) ||
      8.0 * smoothing.noise_smoothed < smoothing.min_peak_drop)
    return "";
  const bool beyond_range = smoothing.min_peak_drop > smoothing.smoothed_force_range_pN;
  return fmt::format("  note: σ_s ({} pN) is above the raw noise ({} pN): the force wanders over more than a "
                     "smoothing window, which σ_s counts as noise, and the automatic criterion 8 σ_s = {} pN{}; give "
                     "--min-peak-drop-pN (the smallest drop that is an event to you)\n",
                     g(smoothing.noise_smoothed, 3), g(smoothing.noise_raw, 3), g(smoothing.min_peak_drop, 3),
                     beyond_range ? fmt::format(" is larger than this replica's whole range of smoothed force ({} pN): "
                                                "no event can be found",
                                                g(smoothing.smoothed_force_range_pN, 3))
                                  : std::string(" may pass over events"));
}

std::string few_windows_note(const SmoothingInfo& smoothing) {
  if (!(smoothing.windows_in_record > 0.0 && smoothing.windows_in_record < 8.0)) return "";
  // A window as wide as the record or wider is counted as one (its rows are capped at the
  // record's): "1 smoothing windows" read as a count where it is at most one.
  const std::string spans = smoothing.windows_in_record <= 1.0
                                ? std::string("spans no more than one smoothing window")
                                : "spans only " + g(smoothing.windows_in_record, 3) + " smoothing windows";
  return fmt::format("  note: the record {} (fewer than 8): σ_s comes from 16 shorter "
                     "blocks, and force wander slower than a sixteenth of the record passes for the curve (and may "
                     "pass the criterion); a narrower --smooth-window-nm, a longer record or a given "
                     "--min-peak-drop-pN tells them apart\n",
                     spans);
}

std::string few_rows_note(const SmoothingInfo& smoothing, const char* output_key) {
  if (!(smoothing.rows_per_window < kFewRowsPerSmoothWindow)) return "";
  return fmt::format("  note: a smoothing window holds only {} rows on average (fewer than {}): the noise, the peak "
                     "criterion and the contact rest on too few rows; give a wider --smooth-window-nm or write rows "
                     "more often ({})\n",
                     g(smoothing.rows_per_window, 3), g(kFewRowsPerSmoothWindow), output_key);
}

std::string& open_replica_section(std::string& summary, std::string& replica_blocks, bool blocks_apart,
                                  const std::string& title, const char* what) {
  summary += title;
  if (!blocks_apart) return summary;
  summary += fmt::format("  per replica ({}): replicas.txt\n", what);
  replica_blocks += title;
  return replica_blocks;
}

namespace {

// What the tables' ends say of the run, for the summary's notes and the terminal's line alike.
struct TableEndsVerdict {
  double last = 0.0;           // the latest table end
  bool stopped_early = false;  // every table stops at `last`, before the run's planned steps
  double expected = 0.0;       // the step a complete table reaches
  std::vector<const TableEnd*> short_ends;  // those ending before it (when not stopped_early)
};

TableEndsVerdict judge_table_ends(const std::vector<TableEnd>& ends, std::optional<std::int64_t> run_steps) {
  TableEndsVerdict v;
  v.last = -std::numeric_limits<double>::infinity();
  bool all_equal = true;
  for (const TableEnd& e : ends) {
    v.last = std::max(v.last, e.last_step);
    all_equal = all_equal && e.last_step == ends.front().last_step;
  }
  // Every table stops at the same step before the planned end: a run stopped early.
  v.stopped_early = run_steps && v.last < double(*run_steps) && all_equal;
  if (v.stopped_early) return v;
  v.expected = run_steps ? std::max(v.last, double(*run_steps)) : v.last;
  for (const TableEnd& e : ends)
    if (e.last_step < (run_steps ? v.expected : 0.99 * v.expected)) v.short_ends.push_back(&e);
  return v;
}

// A run still running whose tables have not reached its end: "step 40000" or "steps 38000
// to 40000" (its replicas' tables a few rows apart), or "" when they have (it is writing its
// last files) and the usual verdict applies.
std::string steps_so_far(const std::vector<TableEnd>& ends, std::optional<std::int64_t> run_steps) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const TableEnd& e : ends) {
    lo = std::min(lo, e.last_step);
    hi = std::max(hi, e.last_step);
  }
  if (run_steps && lo >= double(*run_steps)) return "";
  return lo == hi ? "step " + g(hi, 12) : "steps " + g(lo, 12) + " to " + g(hi, 12);
}

}  // namespace

std::string cut_short_notes(const std::vector<TableEnd>& ends, const std::string& covered,
                            std::optional<std::int64_t> run_steps, const std::optional<std::string>& run_error,
                            const std::optional<std::string>& running) {
  if (ends.empty()) return "";
  if (running)
    if (const std::string at = steps_so_far(ends, run_steps); !at.empty())
      return fmt::format("  note: the run is still running ({}; its lock is checkpoint.ckpt.lock): the table{} end{} "
                         "at {}{} so far, and the results cover only that part of {}; analyse it again once it has "
                         "ended\n",
                         *running, ends.size() == 1 ? "" : "s", ends.size() == 1 ? "s" : "", at,
                         run_steps ? " of the run's " + std::to_string(*run_steps) : std::string(), covered);
  const TableEndsVerdict v = judge_table_ends(ends, run_steps);
  const double last = v.last;
  if (v.stopped_early) {
    if (run_error) {
      const std::string& shown = *run_error;  // whole: its end says what to change
      return fmt::format("  note: the table{} end{} at step {} of the run's {}: the run ended with an error (run.log: "
                         "\"{}\"), which --resume would repeat; {}; the results cover only that part of {}\n",
                         ends.size() == 1 ? "" : "s", ends.size() == 1 ? "s" : "", g(last, 12), *run_steps, shown,
                         kAfterAnError, covered);
    }
    return fmt::format("  note: the table{} end{} at step {} of the run's {} (run.log): a run stopped early "
                       "(--resume continues it); the results cover only that part of {}\n",
                       ends.size() == 1 ? "" : "s", ends.size() == 1 ? "s" : "", g(last, 12), *run_steps, covered);
  }
  const double expected = v.expected;
  const std::vector<const TableEnd*>& short_ends = v.short_ends;
  // A few are named one by one; more (a run of 10⁴ replicas read while it runs, whose
  // tables end a few rows apart) in one note, not one line per replica.
  constexpr std::size_t kNamedOneByOne = 5;
  std::string notes;
  if (short_ends.size() <= kNamedOneByOne) {
    for (const TableEnd* e : short_ends)
      notes += fmt::format("  note: {}'s table ends at step {}, before {} {}: its results (and any event missing "
                           "there) cover only that part of {}\n",
                           e->replica, g(e->last_step, 12), run_steps ? "the run's" : "the others'", g(expected, 12),
                           covered);
    return notes;
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const TableEnd* e : short_ends) {
    lo = std::min(lo, e->last_step);
    hi = std::max(hi, e->last_step);
  }
  const bool every_table = short_ends.size() == ends.size();
  return fmt::format("  note: {} of the {} tables end between steps {} and {} ({}, {}, {}, …), before {} {}{}: their "
                     "results (and any event missing there) cover only that part of {}\n",
                     short_ends.size(), ends.size(), g(lo, 12), g(hi, 12), short_ends[0]->replica,
                     short_ends[1]->replica, short_ends[2]->replica, run_steps ? "the run's" : "the others'",
                     g(expected, 12),
                     every_table && run_steps ? " — a run still going, or stopped early (--resume continues it)" : "",
                     covered);
}

std::string cut_short_brief(const std::vector<TableEnd>& ends, std::optional<std::int64_t> run_steps,
                            bool run_error, const std::optional<std::string>& running) {
  if (ends.empty()) return "";
  if (running)
    if (const std::string at = steps_so_far(ends, run_steps); !at.empty())
      return fmt::format(" (the run is still running, {}: its tables end at {}{} so far)", *running, at,
                         run_steps ? " of " + std::to_string(*run_steps) : std::string());
  const TableEndsVerdict v = judge_table_ends(ends, run_steps);
  if (v.stopped_early)
    return run_error ? fmt::format(" (the run ended with an error at step {} of {}: summary.txt)", g(v.last, 12),
                                   *run_steps)
                     : fmt::format(" (the run stopped at step {} of {})", g(v.last, 12), *run_steps);
  if (v.short_ends.empty()) return "";
  return fmt::format(" ({} of {} tables end{} before step {}: summary.txt)", v.short_ends.size(), ends.size(),
                     v.short_ends.size() == 1 ? "s" : "", g(v.expected, 12));
}

}  // namespace ermak::analysis
