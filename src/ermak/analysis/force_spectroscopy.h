#pragma once
// Analysis of one replica's force-spectroscopy table (docs/analysis.md): the
// constant-velocity pulling / force-clamp series `pulling.tsv` and the nano-indentation
// series `indentation.tsv` written by the protocols (docs/protocols.md); the settings
// shared with the plane-pulling analysis (plane_analysis.h).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ermak/analysis/force_curve.h"
#include "ermak/analysis/statistics.h"
#include "ermak/analysis/tsv_table.h"
#include "ermak/analysis/wlc.h"

namespace ermak::analysis {

// A force maximum left out because the protocol's springs could not have loaded it
// (curve_smoothing.h keep_loaded_peaks).
struct UnloadedMaximum {
  std::size_t index = 0;  // row of the smoothed curve
  std::int64_t step = 0;
  double force_pN = 0.0, rise_pN = 0.0, loadable_pN = 0.0;
};

struct CurveSettings {
  // Smoothing: a centred running average over `window_nm` of cantilever-base travel
  // (path length, so v·Δt at constant speed), or over `points` rows. Neither: 0.2 nm;
  // when the base does not move (force clamp) the window is counted in rows, 1 % of them.
  std::optional<double> window_nm;
  std::optional<std::size_t> points;
  // Peaks: drop after the maximum, pN. Unset: max(10 pN, 8 σ_s) with σ_s the noise of
  // the smoothed force (block_mean_noise_sd of the raw force, blocks of one window).
  std::optional<double> min_peak_drop_pN;
  double min_peak_separation_nm = 0.5;
  // Worm-like chain fits (kT from the temperature, P fixed or fitted).
  WlcFitOptions wlc;
  // Indentation: contact when the smoothed molecule force first reaches this (unset:
  // max(5 pN, 3 σ_s of the molecule force)); the linear regime from the contact to the
  // first force ≥ linear_fraction × the first peak force (or the largest approach force
  // without a peak), or the indentation window linear_range_nm when given.
  std::optional<double> contact_force_pN;
  std::optional<std::pair<double, double>> linear_range_nm;
  double linear_fraction = 0.7;
  // Plane pulling: the layer has detached when, after an event, the smoothed force at
  // the end is within this of zero (unset: the replica's peak criterion).
  std::optional<double> detach_force_pN;
  // Pulling: the rate at which the run's springs load the table's force, m·κv for m pulled
  // beads (κv and the beads from run.log). A force maximum whose rise from its
  // trough outruns what the base can load in that time, κv·Δt, by more than the peak
  // criterion was not made by the cantilever (docs/analysis.md#unfolding-events-force-peaks):
  // it is left out of the peaks. Unset: no such check.
  std::optional<double> loading_rate_pN_per_s;
};

// Throws ermak::Error naming the option (`--smooth-window-nm`, …) for settings out of range:
// the checks both `ermak analyze` paths (one run, a spectrum of several) make.
void check_curve_settings(const CurveSettings& settings);

// How a curve was smoothed and how large the noise is; for the summary.
struct SmoothingInfo {
  std::string description;     // e.g. "running average over 0.2 nm of base travel"
  double rows_per_window = 1.0;
  double windows_in_record = 0.0;  // rows of the force the noise was measured on / rows_per_window
  double noise_raw = 0.0;       // pN, a row's noise: robust spread about the smoothed curve (set_peak_criterion)
  double noise_smoothed = 0.0;  // pN, noise of window averages (block_mean_noise_sd)
  double min_peak_drop = 0.0;   // pN, the criterion used
  bool min_peak_drop_automatic = false;
  double smoothed_force_range_pN = 0.0;  // highest − lowest finite smoothed force (set_peak_criterion)
};

struct PullingPeak {
  ForcePeak peak;                // rows of the smoothed curve
  std::int64_t step = 0;
  std::int64_t drop_end_step = 0;  // where its drop ends (drop_end_row)
  double time_ns = 0.0;
  WlcFit fit;                    // WLC fit to the rising edge [peak.trough_before, peak.index]
  double delta_contour_length = std::numeric_limits<double>::quiet_NaN();  // Lc − Lc of the previous peak
  double fit_from_nm = 0.0, fit_to_nm = 0.0;  // extension range of the fitted edge
  // The rate at which the force rose just before the peak, pN/s: the least-squares slope of
  // the raw force against time over the upper half of the smoothed rising edge — the rows after
  // the last one below (F_trough + F_peak)/2, up to the peak; below the nominal κv where the
  // molecule gives. NaN with fewer than 3 such rows (docs/analysis.md#unfolding-events-force-peaks).
  double loading_rate_pN_per_s = std::numeric_limits<double>::quiet_NaN();
};

struct PullingAnalysis {
  bool force_clamp = false;      // the base never moves: force clamp (no peaks, no WLC fits)
  std::size_t rows = 0;
  // The curve, one entry per row; the series marked smoothed are running averages.
  std::vector<double> step, time_ns, base_nm;
  std::vector<double> extension_raw_nm, force_raw_pN;            // raw extension, force_along
  std::vector<double> extension_nm, end_to_end_nm, force_pN, force_magnitude_pN;  // smoothed
  SmoothingInfo smoothing;
  std::vector<PullingPeak> peaks;
  // Force maxima left out because they rose faster than the cantilever loads
  // (CurveSettings::loading_rate_pN_per_s): their rows and rises, for the summary.
  std::vector<UnloadedMaximum> unloaded;
  // The first row whose base travel is below the row before's (a pulling base only moves
  // forward: a table joined from runs, or edited): its step, and the two travels.
  struct BaseTurn {
    double step = 0.0, from_nm = 0.0, to_nm = 0.0;
  };
  std::optional<BaseTurn> base_turns_back;
  // Rows whose extension or force is nan or inf (written where a run blew up): the running
  // averages skip them; the summary counts them.
  std::size_t non_finite_rows = 0;
  // WLC fit to the rising edge after the last peak (the chain after the last event), when
  // the force rises there by more than the peak criterion; its Lc − the last peak's Lc.
  std::optional<WlcFit> final_fit;
  double final_fit_from_nm = 0.0, final_fit_to_nm = 0.0;
  double final_delta_contour_length = std::numeric_limits<double>::quiet_NaN();
  // Force clamp: mean force along the direction, smoothed extension at start and end,
  // and the first time the smoothed extension covers half of its change — only when the
  // change is a transition: at least max(1 nm, 8 σ_x), σ_x the rms of the raw extension
  // about the smoothed one (docs/analysis.md#force-clamp); NaN otherwise.
  double mean_force_pN = 0.0;
  double extension_start_nm = 0.0, extension_end_nm = 0.0;
  double extension_noise_nm = 0.0;  // σ_x
  // The spread of the raw extension over the run's first tenth (at least its first 20 rows;
  // with a transition, only the rows before it covers a quarter of its change), robust
  // (robust_sd): the folded state's thermal fluctuations, which an unfolding threshold
  // must lie beyond. σ_x above misses them — a running mean follows the slow ones, and a
  // window of one row (short tables) leaves none.
  double extension_start_spread_nm = 0.0;
  bool clamp_transition = false;
  double half_extension_time_ns = std::numeric_limits<double>::quiet_NaN();
  // How much the smoothed extension still changed over the last tenth of the run: a
  // transition whose end is no plateau (> 5 % of the change) has a half-way time that
  // grows with the run's length.
  double extension_change_last_tenth_nm = 0.0;
};

// Reads columns step, time[ns], base[nm], end_to_end[nm], extension[nm], force[pN],
// force_along[pN] by name (other columns are ignored).
PullingAnalysis analyze_pulling(const TsvTable& table, const CurveSettings& settings);

// Where peak `p`'s drop ends: the first row after the peak where the smoothed force has come
// to within 10 % of the drop from the lowest force before the next peak (or the curve's end)
// — not the row after the maximum, since a rupture may hold the force on a plateau before it
// falls (an audit's dimer held ~500 pN for 3.5·10⁵ steps). The contacts a peak broke are those
// that let go by then (contact_report.h).
std::size_t drop_end_row(const PullingAnalysis& a, std::size_t p);

// The contour length a replica's unfolding released in all: the Lc of its last fitted edge
// (the edge after the last peak when that fit succeeded, else the last peak's edge that was
// fitted) minus the Lc of its first fitted edge — what compares with an experiment's total
// ΔLc, where the per-event increments split it at intermediates
// (docs/analysis.md#worm-like-chain-fits-lc-and-δlc). Edges are numbered as in wlc_fits.tsv:
// peak k's edge is k, the edge after the last peak is peaks.size().
struct TotalContourIncrement {
  std::size_t first_edge = 0, last_edge = 0;
  double first_Lc_nm = 0.0, last_Lc_nm = 0.0;
  double delta_nm = 0.0;  // last_Lc_nm − first_Lc_nm
  bool ends_at_final_edge = false;  // the last fitted edge is the one after the last peak
};
// Unset for a replica with fewer than two fitted edges (a force clamp, no peak, failed fits).
std::optional<TotalContourIncrement> total_contour_increment(const PullingAnalysis& a);

// The largest finite extension the table recorded (extension_raw_nm), nm; −∞ for none: how
// far a clamp's trajectories got, against --unfolded-extension-nm (docs/analysis.md#force-clamp).
double largest_extension_nm(const PullingAnalysis& a);

struct IndentationPeak {
  ForcePeak peak;  // position = indentation, nm
  std::int64_t step = 0;
  double time_ns = 0.0;
  double tip_nm = 0.0;
};

struct IndentationAnalysis {
  std::size_t rows = 0;
  std::size_t turnaround = 0;  // last row of the approach (largest base displacement)
  double turnaround_step = 0.0;  // its step; the base turned there when it is not the last row
  std::vector<double> step, time_ns, base_nm;
  std::vector<double> tip_raw_nm, spring_force_raw_pN;
  std::vector<double> tip_nm, spring_force_pN, molecule_force_pN;  // smoothed
  std::vector<double> indentation_nm;      // smoothed tip − tip at contact
  std::vector<double> indentation_raw_nm;  // raw tip − tip at contact
  SmoothingInfo smoothing;
  bool contact_found = false;
  bool contact_at_start = false;  // the tip pressed on the molecule from the first row
  double molecule_force_first_pN = 0.0;  // the smoothed molecule force at the first row
  std::size_t contact_row = 0;
  std::int64_t contact_step = 0;
  double contact_tip_nm = 0.0;
  double contact_threshold_pN = 0.0;
  std::vector<IndentationPeak> peaks;  // on the approach, after the contact
  // Maxima the peak search found before the contact (none count: the tip touched nothing),
  // and those after it that rose faster than the cantilever loads, κ·Δbase + the criterion,
  // with κ = cantilever_pN_per_nm fitted from the table (spring_force against base − tip;
  // NaN when the table cannot tell it, and then no such check).
  std::size_t maxima_before_contact = 0;
  std::vector<UnloadedMaximum> unloaded;
  double cantilever_pN_per_nm = std::numeric_limits<double>::quiet_NaN();
  // The linear regime and the fit spring_force = k·indentation + b on the smoothed curve
  // (smoothing also removes most of the tip's thermal noise from the regressor, which would
  // otherwise bias the slope low); linear.slope_se is scaled by √(rows per window) for the
  // correlation of smoothed points.
  LinearFit linear;
  double linear_from_nm = 0.0, linear_to_nm = 0.0;
  std::string linear_rule;  // how the window was chosen
  // Without a peak the window ends at a fraction of the largest approach force: when that is
  // far beyond a protein's (a tip pressed onto the substrate), the window holds the wall.
  double linear_reference_pN = 0.0;
  bool linear_reference_is_peak = false;
  double contact_extrapolated_nm = std::numeric_limits<double>::quiet_NaN();  // −b/k
};

// Reads columns step, time[ns], base[nm], tip[nm], spring_force[pN], molecule_force[pN].
IndentationAnalysis analyze_indentation(const TsvTable& table, const CurveSettings& settings);

}  // namespace ermak::analysis
