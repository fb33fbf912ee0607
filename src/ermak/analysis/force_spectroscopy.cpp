#include "ermak/analysis/force_spectroscopy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <optional>

#include "ermak/analysis/curve_smoothing.h"
#include "ermak/core/error.h"

namespace ermak::analysis {
namespace {

// The smallest change of a force clamp's extension taken for a transition (with 8 σ_x):
// a few residues released, well above the thermal wobble of a folded domain's ends.
constexpr double kClampTransitionMin_nm = 1.0;

double sq(double x) { return x * x; }

std::vector<double> copy(std::span<const double> v) { return {v.begin(), v.end()}; }

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

WlcFit fit_edge(const std::vector<double>& x, const std::vector<double>& f, std::size_t from,
                std::size_t to, const WlcFitOptions& options, double* x_from, double* x_to) {
  std::span<const double> xs(x.data() + from, to - from + 1), fs(f.data() + from, to - from + 1);
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  *x_from = *lo;
  *x_to = *hi;
  return fit_wlc(xs, fs, options);
}

}  // namespace

PullingAnalysis analyze_pulling(const TsvTable& table, const CurveSettings& settings) {
  // Values no run writes (an audit's force_along of 1e300 beside a force of 9.9 pN became a
  // curve at 4.8·10²⁹⁸ pN): the row is named instead.
  table.require_no_larger("force_along[pN]", "force[pN]");
  table.require_no_larger("extension[nm]", "end_to_end[nm]");
  const auto step = table.column("step");
  const auto time = table.column("time[ns]");
  const auto base = table.column("base[nm]");
  const auto end_to_end = table.column("end_to_end[nm]");
  const auto extension = table.column("extension[nm]");
  const auto force = table.column("force[pN]");
  const auto force_along = table.column("force_along[pN]");

  PullingAnalysis a;
  a.rows = table.rows();
  a.step = copy(step);
  a.time_ns = copy(time);
  a.base_nm = copy(base);
  a.extension_raw_nm = copy(extension);
  a.force_raw_pN = copy(force_along);
  for (std::size_t i = 0; i < a.rows; ++i)
    a.non_finite_rows += !(std::isfinite(a.extension_raw_nm[i]) && std::isfinite(a.force_raw_pN[i]));
  // One row has no base travel to tell a ramp from a clamp, and no curve: nothing to analyse.
  if (a.rows < 2) return a;

  const Smoother smooth = make_smoother(base, settings, table.source(), "cantilever-base");
  a.smoothing = smooth.info;
  a.force_clamp = smooth.s.back() <= 0.0;
  a.extension_nm = smooth(extension);
  a.end_to_end_nm = smooth(end_to_end);
  a.force_pN = smooth(force_along);
  a.force_magnitude_pN = smooth(force);
  set_peak_criterion(a.smoothing, force_along, a.force_pN, settings);

  if (a.force_clamp) {
    double sum = 0.0;
    for (double f : force_along) sum += f;
    a.mean_force_pN = sum / double(a.rows);
    a.extension_start_nm = a.extension_nm.front();
    a.extension_end_nm = a.extension_nm.back();
    double squares = 0.0;
    for (std::size_t i = 0; i < a.rows; ++i) squares += sq(a.extension_raw_nm[i] - a.extension_nm[i]);
    a.extension_noise_nm = std::sqrt(squares / double(a.rows));
    const double change = a.extension_end_nm - a.extension_start_nm;
    a.clamp_transition = std::abs(change) >= std::max(kClampTransitionMin_nm, 8.0 * a.extension_noise_nm);
    // The folded state's fluctuations: the raw extension's spread over the run's first tenth
    // (at least 20 rows), but only before a transition's smoothed curve covers a quarter of
    // its change — a transition inside the tenth is no thermal motion (an audit's 160 pN
    // clamp, which moved 0.9 → 3.1 nm there).
    std::size_t start_rows = std::min(a.rows, std::max<std::size_t>(20, a.rows / 10));
    if (a.clamp_transition) {
      const double quarter = a.extension_start_nm + 0.25 * change;
      for (std::size_t i = 0; i < start_rows; ++i)
        if (change >= 0.0 ? a.extension_nm[i] >= quarter : a.extension_nm[i] <= quarter) {
          start_rows = i;
          break;
        }
    }
    a.extension_start_spread_nm = robust_sd(std::span<const double>(a.extension_raw_nm).first(start_rows));
    const double last_tenth_start = a.time_ns.front() + 0.9 * (a.time_ns.back() - a.time_ns.front());
    std::size_t tenth = 0;
    while (tenth + 1 < a.rows && a.time_ns[tenth] < last_tenth_start) ++tenth;
    a.extension_change_last_tenth_nm = a.extension_end_nm - a.extension_nm[tenth];
    if (!a.clamp_transition) return a;
    const double half = 0.5 * (a.extension_start_nm + a.extension_end_nm);
    const bool up = change >= 0.0;
    for (std::size_t i = 0; i < a.rows; ++i)
      if (up ? a.extension_nm[i] >= half : a.extension_nm[i] <= half) {
        a.half_extension_time_ns = a.time_ns[i];
        break;
      }
    return a;
  }

  for (std::size_t i = 1; i < a.rows && !a.base_turns_back; ++i)
    if (a.base_nm[i] < a.base_nm[i - 1]) a.base_turns_back = PullingAnalysis::BaseTurn{a.step[i], a.base_nm[i - 1], a.base_nm[i]};
  std::vector<TimedPeak> peaks =
      find_timed_peaks(a.extension_nm, a.force_pN, a.step, a.time_ns, a.smoothing, settings);
  // A maximum the cantilever did not load: its rise from its trough exceeds κv·Δt by more
  // than the criterion (thermal wandering of a curve whose base hardly moves, a chain that
  // refolds against the spring). The next peak's edge then starts at the lowest point since
  // the last peak kept.
  if (settings.loading_rate_pN_per_s && *settings.loading_rate_pN_per_s > 0.0) {
    const double rate = *settings.loading_rate_pN_per_s;
    peaks = keep_loaded_peaks(
        std::move(peaks), a.force_pN, a.smoothing.min_peak_drop,
        [&](std::size_t from, std::size_t at) { return rate * (a.time_ns[at] - a.time_ns[from]) * 1e-9; },
        &a.unloaded);
  }
  for (std::size_t k = 0; k < peaks.size(); ++k) {
    PullingPeak p;
    p.peak = peaks[k].peak;
    p.step = peaks[k].step;
    p.time_ns = peaks[k].time_ns;
    p.fit = fit_edge(a.extension_nm, a.force_pN, p.peak.trough_before, p.peak.index, settings.wlc,
                     &p.fit_from_nm, &p.fit_to_nm);
    if (k > 0 && p.fit.ok && a.peaks.back().fit.ok)
      p.delta_contour_length = p.fit.contour_length - a.peaks.back().fit.contour_length;
    {
      // The last unbroken climb through the half-way force: from the last row below it to
      // the peak (an earlier climb that fell back below half-way is not this rise).
      const double half = 0.5 * (a.force_pN[p.peak.trough_before] + p.peak.force);
      std::size_t from = p.peak.trough_before;
      for (std::size_t i = p.peak.trough_before; i < p.peak.index; ++i)
        if (a.force_pN[i] < half) from = i + 1;
      // The rows are chosen on the smoothed curve, the slope fitted to the raw force: a
      // centred average reaches past the peak into the drop and flattens the top.
      std::vector<double> t_s, f;
      for (std::size_t i = from; i <= p.peak.index; ++i) {
        t_s.push_back(a.time_ns[i] * 1e-9);
        f.push_back(a.force_raw_pN[i]);
      }
      const LinearFit rise = fit_line(t_s, f);
      if (rise.ok) p.loading_rate_pN_per_s = rise.slope;
    }
    a.peaks.push_back(p);
  }
  for (std::size_t k = 0; k < a.peaks.size(); ++k)
    a.peaks[k].drop_end_step = std::int64_t(std::llround(a.step[drop_end_row(a, k)]));
  // The rising edge after the last peak, if the force rises there like before a peak: its
  // highest point after the trough (not the last row, which may have dipped) lies more than
  // the criterion above the trough.
  if (!peaks.empty()) {
    const std::size_t from = peaks.back().peak.trough_after;
    std::size_t to = from;  // the highest point after the trough
    for (std::size_t i = from; i < a.rows; ++i)
      if (a.force_pN[i] > a.force_pN[to]) to = i;
    const double rise = a.force_pN[to] - a.force_pN[from];
    if (from + 2 < a.rows && rise > a.smoothing.min_peak_drop) {
      a.final_fit = fit_edge(a.extension_nm, a.force_pN, from, to, settings.wlc, &a.final_fit_from_nm,
                             &a.final_fit_to_nm);
      if (a.final_fit->ok && a.peaks.back().fit.ok)
        a.final_delta_contour_length = a.final_fit->contour_length - a.peaks.back().fit.contour_length;
    }
  }
  return a;
}

std::size_t drop_end_row(const PullingAnalysis& a, std::size_t p) {
  const std::vector<double>& f = a.force_pN;
  const std::size_t peak = a.peaks[p].peak.index;
  const std::size_t next = p + 1 < a.peaks.size() ? a.peaks[p + 1].peak.index : f.size();
  double lowest = std::numeric_limits<double>::infinity();
  for (std::size_t i = peak + 1; i < next; ++i)
    if (std::isfinite(f[i])) lowest = std::min(lowest, f[i]);
  if (!std::isfinite(lowest)) return std::min(peak + 1, f.size() - 1);
  const double level = lowest + 0.1 * (f[peak] - lowest);
  for (std::size_t i = peak + 1; i < next; ++i)
    if (std::isfinite(f[i]) && f[i] <= level) return i;
  return next - 1;
}

double largest_extension_nm(const PullingAnalysis& a) {
  double largest = -std::numeric_limits<double>::infinity();
  for (const double x : a.extension_raw_nm)
    if (std::isfinite(x)) largest = std::max(largest, x);
  return largest;
}

std::optional<TotalContourIncrement> total_contour_increment(const PullingAnalysis& a) {
  // Every fitted edge in order: the peaks' rising edges, then the one after the last peak.
  std::vector<std::pair<std::size_t, const WlcFit*>> fitted;
  for (std::size_t k = 0; k < a.peaks.size(); ++k)
    if (a.peaks[k].fit.ok) fitted.emplace_back(k, &a.peaks[k].fit);
  if (a.final_fit && a.final_fit->ok) fitted.emplace_back(a.peaks.size(), &*a.final_fit);
  if (fitted.size() < 2) return std::nullopt;
  TotalContourIncrement t;
  t.first_edge = fitted.front().first;
  t.last_edge = fitted.back().first;
  t.first_Lc_nm = fitted.front().second->contour_length;
  t.last_Lc_nm = fitted.back().second->contour_length;
  t.delta_nm = t.last_Lc_nm - t.first_Lc_nm;
  t.ends_at_final_edge = t.last_edge == a.peaks.size();
  return t;
}

void check_curve_settings(const CurveSettings& st) {
  auto bad = [](const std::string& option, const std::string& what) { throw Error(option + ": " + what); };
  if (!(st.wlc.persistence_length > 0.0 && std::isfinite(st.wlc.persistence_length)))
    bad("--persistence-length-nm", "must be > 0 and finite");
  if (st.window_nm && !(*st.window_nm > 0.0 && std::isfinite(*st.window_nm)))
    bad("--smooth-window-nm", "must be > 0 and finite");
  if (st.points && *st.points < 1) bad("--smooth-points", "must be ≥ 1");
  if (st.window_nm && st.points) bad("--smooth-window-nm", "give either a window in nm or a number of points");
  if (st.min_peak_drop_pN && !(*st.min_peak_drop_pN > 0.0 && std::isfinite(*st.min_peak_drop_pN)))
    bad("--min-peak-drop-pN", "must be > 0 and finite");
  if (!(st.min_peak_separation_nm >= 0.0 && std::isfinite(st.min_peak_separation_nm)))
    bad("--min-peak-separation-nm", "must be ≥ 0 and finite");
}

IndentationAnalysis analyze_indentation(const TsvTable& table, const CurveSettings& settings) {
  const auto step = table.column("step");
  const auto time = table.column("time[ns]");
  const auto base = table.column("base[nm]");
  const auto tip = table.column("tip[nm]");
  const auto spring = table.column("spring_force[pN]");
  const auto molecule = table.column("molecule_force[pN]");

  IndentationAnalysis a;
  a.rows = table.rows();
  a.step = copy(step);
  a.time_ns = copy(time);
  a.base_nm = copy(base);
  a.tip_raw_nm = copy(tip);
  a.spring_force_raw_pN = copy(spring);
  if (a.rows == 0) return a;

  // The approach ends where the base is furthest in.
  a.turnaround = std::size_t(std::max_element(base.begin(), base.end()) - base.begin());
  if (base[a.turnaround] <= base.front()) a.turnaround = a.rows - 1;  // base does not move
  a.turnaround_step = a.step.empty() ? 0.0 : a.step[a.turnaround];

  const Smoother smooth = make_smoother(base, settings, table.source(), "cantilever-base");
  a.smoothing = smooth.info;
  a.tip_nm = smooth(tip);
  a.spring_force_pN = smooth(spring);
  a.molecule_force_pN = smooth(molecule);
  const std::span<const double> spring_approach(spring.data(), a.turnaround + 1);
  set_peak_criterion(a.smoothing, spring_approach,
                     std::span<const double>(a.spring_force_pN.data(), a.turnaround + 1), settings);

  // Contact: the smoothed molecule force first reaches the threshold on the approach. The
  // default threshold is 3 × the noise of the force *before* contact: the noise of the
  // whole approach is first used to find a contact, then the rows before it (less one
  // window) give the baseline's noise and the search is repeated. A short-ranged tip
  // (σ ≈ 1 Å) makes the force on a pressed molecule spiky, and that noise would otherwise
  // set the threshold at a large part of the force and the contact nanometres late.
  const std::size_t window_rows = std::size_t(std::llround(std::max(a.smoothing.rows_per_window, 1.0)));
  auto first_reaching = [&](double threshold) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i <= a.turnaround; ++i)
      if (a.molecule_force_pN[i] >= threshold) return i;
    return std::nullopt;
  };
  const double approach_noise =
      block_mean_noise_sd(std::span<const double>(molecule.data(), a.turnaround + 1), window_rows);
  a.contact_threshold_pN = settings.contact_force_pN.value_or(std::max(5.0, 3.0 * approach_noise));
  std::optional<std::size_t> contact = first_reaching(a.contact_threshold_pN);
  // Repeated while the threshold falls: a baseline that still held the first touches gives
  // a high threshold and a late contact once, not for good. However early the contact, as long
  // as its baseline holds the fewest rows whose noise can be measured (kMinBaselineRows: three
  // second differences); a contact nearer the start keeps the threshold it was found with. (It
  // used to need 4 windows of rows before the contact, which the docs never said: on the
  // λ-repressor example a first contact 3 windows in at 107 pN, set by the pressed molecule's
  // spikes, stayed there, where the baseline's noise gives 5 pN.)
  constexpr std::size_t kMinBaselineRows = 5;
  for (int round = 0;
       !settings.contact_force_pN && contact && *contact >= window_rows + kMinBaselineRows && round < 20; ++round) {
    const double baseline_noise =
        block_mean_noise_sd(std::span<const double>(molecule.data(), *contact - window_rows), window_rows);
    const double threshold = std::max(5.0, 3.0 * baseline_noise);
    if (!(threshold < a.contact_threshold_pN)) break;
    a.contact_threshold_pN = threshold;
    contact = first_reaching(threshold);
  }
  // A tip that presses from the first row (placed on the molecule, as SOP-GPU's PF8 example
  // does) makes the whole approach spiky and its noise a threshold the force never reaches:
  // the contact is then the first row, where the force already stands above the floor.
  if (!contact && !settings.contact_force_pN && a.molecule_force_pN.front() >= 5.0) {
    contact = 0;
    a.contact_threshold_pN = 5.0;
  }
  a.contact_at_start = contact && *contact == 0;
  a.molecule_force_first_pN = a.molecule_force_pN.front();
  if (contact) {
    a.contact_found = true;
    a.contact_row = *contact;
    a.contact_step = std::int64_t(std::llround(step[*contact]));
  }
  a.contact_tip_nm = a.tip_nm[a.contact_found ? a.contact_row : 0];
  a.indentation_nm.resize(a.rows);
  a.indentation_raw_nm.resize(a.rows);
  for (std::size_t i = 0; i < a.rows; ++i) {
    a.indentation_nm[i] = a.tip_nm[i] - a.contact_tip_nm;
    a.indentation_raw_nm[i] = tip[i] - a.contact_tip_nm;
  }

  // Breaking events on the approach.
  const std::size_t n_approach = a.turnaround + 1;
  const auto approach = [n_approach](const std::vector<double>& v) {
    return std::span<const double>(v.data(), n_approach);
  };
  std::vector<TimedPeak> events = find_timed_peaks(approach(a.indentation_nm), approach(a.spring_force_pN),
                                                   approach(a.step), approach(a.time_ns), a.smoothing, settings);
  // Before the contact the tip touches nothing: a maximum there is the free tip's wander.
  const std::size_t first_event_row = a.contact_found ? a.contact_row : n_approach;
  a.maxima_before_contact = std::size_t(std::count_if(
      events.begin(), events.end(), [&](const TimedPeak& tp) { return tp.peak.index < first_event_row; }));
  events.erase(std::remove_if(events.begin(), events.end(),
                              [&](const TimedPeak& tp) { return tp.peak.index < first_event_row; }),
               events.end());
  // The cantilever loads the tip by at most κ·Δbase between two rows; a larger rise is the
  // tip's thermal wander (the molecule only gives under it). κ is the table's own:
  // spring_force = κ (base − tip) + const, fitted over the raw rows.
  {
    std::vector<double> stretch(a.rows);
    for (std::size_t i = 0; i < a.rows; ++i) stretch[i] = base[i] - tip[i];
    const LinearFit spring_law = fit_line(stretch, spring);
    if (spring_law.ok && spring_law.slope > 0.0) {
      a.cantilever_pN_per_nm = spring_law.slope;
      events = keep_loaded_peaks(
          std::move(events), approach(a.spring_force_pN), a.smoothing.min_peak_drop,
          [&](std::size_t from, std::size_t at) {
            return a.cantilever_pN_per_nm * std::max(0.0, base[at] - base[from]);
          },
          &a.unloaded);
    }
  }
  for (const TimedPeak& tp : events) {
    IndentationPeak p;
    p.peak = tp.peak;
    p.step = tp.step;
    p.time_ns = tp.time_ns;
    p.tip_nm = a.tip_nm[tp.peak.index];
    a.peaks.push_back(p);
  }

  // The linear regime.
  std::vector<double> fx, fy;
  if (settings.linear_range_nm) {
    auto [lo, hi] = *settings.linear_range_nm;
    if (lo > hi) std::swap(lo, hi);
    for (std::size_t i = 0; i < n_approach; ++i)
      if (a.indentation_nm[i] >= lo && a.indentation_nm[i] <= hi) {
        fx.push_back(a.indentation_nm[i]);
        fy.push_back(a.spring_force_pN[i]);
      }
    a.linear_rule = "indentation window " + format("%g", lo) + " to " + format("%g", hi) + " nm (--linear-range-nm)";
  } else if (a.contact_found) {
    double reference = 0.0;
    std::string what;
    if (!a.peaks.empty()) {
      reference = a.peaks.front().peak.force;
      what = "the first peak force";
    } else {
      reference = *std::max_element(a.spring_force_pN.begin(), a.spring_force_pN.begin() + n_approach);
      what = "the largest approach force";
    }
    a.linear_reference_pN = reference;
    a.linear_reference_is_peak = !a.peaks.empty();
    const double limit = settings.linear_fraction * reference;
    for (std::size_t i = a.contact_row; i < n_approach; ++i) {
      fx.push_back(a.indentation_nm[i]);
      fy.push_back(a.spring_force_pN[i]);
      if (a.spring_force_pN[i] >= limit) break;
    }
    a.linear_rule = "from the contact to the first force ≥ " + format("%g", settings.linear_fraction) + " × " +
                    what + " (" + format("%g", settings.linear_fraction) + " × " + format("%.4g", reference) +
                    " = " + format("%.4g", limit) + " pN)";
  } else {
    a.linear_rule = "no contact found (molecule force never reached " +
                    format("%.3g", a.contact_threshold_pN) + " pN): no linear regime";
  }
  if (!fx.empty()) {
    const auto [lo, hi] = std::minmax_element(fx.begin(), fx.end());
    a.linear_from_nm = *lo;
    a.linear_to_nm = *hi;
  }
  a.linear = fit_line(fx, fy);
  // Neighbouring smoothed points share most of their rows: about one independent point per
  // window, so the standard error of the slope grows by √(rows per window).
  a.linear.slope_se *= std::sqrt(std::max(a.smoothing.rows_per_window, 1.0));
  if (a.linear.ok && a.linear.slope != 0.0) a.contact_extrapolated_nm = -a.linear.intercept / a.linear.slope;
  return a;
}

}  // namespace ermak::analysis
