#pragma once
// Pieces shared by the writers of `ermak analyze` (analyze_run for pulling and
// indentation, plane_report for plane pulling; docs/analysis.md#output-files): thinning
// curves for drawing, number formatting for summary.txt, plot styles, and the histogram
// of peak forces over replicas (table + plot).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ermak/analysis/force_spectroscopy.h"
#include "ermak/analysis/statistics.h"
#include "ermak/analysis/svg_plot.h"

namespace ermak::analysis {

inline constexpr std::size_t kPlotPoints = 4000;  // per curve in the SVG files
// Rows of a smoothed curve file (replica_NNN_curve.tsv) at most, and the last: a longer table
// gives every k-th row (its smoothing window spans far more rows than that spacing).
inline constexpr std::size_t kCurveFileRows = 100000;
// The overlays draw the curves (and fits) of a run's first kOverlayCurves replicas of a
// kind, and the markers of all: beyond that the curves are a tangle, and a run of 10⁴
// replicas made a 50–160 MB SVG and kept every curve in memory (1.6 GB). Each replica's own
// plot and curve file show the rest.
inline constexpr std::size_t kOverlayCurves = 100;
// A run of more replicas than this gets its per-replica blocks (smoothing, peaks, fits,
// notes) in replicas.txt beside summary.txt, so that the summary's statistics are not
// buried under ~3 lines per replica (30 000 lines at 10⁴ replicas).
inline constexpr std::size_t kReplicaBlocksInSummary = 100;

// Rows to draw: at most ~max_points, keeping in each bucket of consecutive rows the ones
// with the lowest and highest y, so that peaks and drops survive.
std::vector<std::size_t> decimate(std::span<const double> y, std::size_t max_points);
std::vector<double> pick(const std::vector<double>& v, const std::vector<std::size_t>& idx);

struct Line {
  std::vector<double> x, y;
};
// (x, y) thinned by decimate(y, kPlotPoints).
Line decimated_line(const std::vector<double>& x, const std::vector<double>& y);

// Before writing anything: unless overwrite, none of `planned` may exist (ermak::Error naming
// up to five of those that do); none may be anything but a regular file (a FIFO or device
// would block or swallow the output; a directory, fail it late); with overwrite those that
// do are removed (no stale result of an earlier analysis stays beside the new ones); then
// OUT is created.
void prepare_output_directory(const std::filesystem::path& out, const std::vector<std::filesystem::path>& planned,
                              bool overwrite);

// The fixed file names of every kind of analysis (one run, a spectrum, a melting curve; not
// the per-replica replica_NNN_* files): each plans them all, so that --force leaves no other
// kind's results beside its own in a directory used for both.
const std::vector<std::string>& analysis_file_names();
// The ends of the per-replica files' names after "replica_NNN" (replica_NNN_curve.tsv,
// replica_NNN_force_plane.svg, …) of every kind of analysis.
const std::vector<std::string>& replica_file_suffixes();
// Whether `name` is one of ermak's per-replica file names: "replica_", 1–9 digits (a replica
// directory's number, run_directory.cpp) and one of replica_file_suffixes(). A user's own
// file in OUT (notes.txt, replica_000_mine.tsv) is none.
bool is_replica_file_name(const std::string& name);
// `planned` with every name of analysis_file_names() in `out` added (once), and every file
// already in `out` whose name is_replica_file_name: an earlier analysis's per-replica files
// of replicas this one does not have (a run re-run with fewer replicas, another run's
// analysis in the same -o directory) are checked and with --force removed too
// (docs/analysis.md#options).
void add_every_analysis_file(const std::filesystem::path& out, std::vector<std::filesystem::path>& planned);

// An analysis that reads many tables writes into a staging directory inside OUT and moves
// its files into OUT only once it has succeeded: a refused or failed analysis (a table that
// cannot be read, a run of another kind) leaves an earlier analysis in OUT as it was.
class StagedOutput {
 public:
  // Checks `planned` (paths in OUT) as prepare_output_directory does, without removing
  // anything yet; creates OUT and a fresh, empty staging directory.
  StagedOutput(const std::filesystem::path& out, std::vector<std::filesystem::path> planned, bool overwrite);
  ~StagedOutput();  // unless committed: removes the staging directory, and OUT if it made it and it is empty
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;
  const std::filesystem::path& dir() const { return stage_; }  // write the outputs here
  // Removes the planned files that exist in OUT (an earlier analysis's), moves every file of
  // the staging directory into OUT, and rewrites `files` (paths in dir()) to their paths in OUT.
  void commit(std::vector<std::filesystem::path>& files);

 private:
  std::filesystem::path out_, stage_;
  std::vector<std::filesystem::path> planned_;
  std::vector<std::filesystem::path> created_;  // OUT and the parents this made, deepest first
  bool committed_ = false;
};

// A number for summary.txt with `digits` significant digits; "n/a" when not finite.
std::string g(double v, int digits = 4);
// "m ± sd unit (mean ± sd; sem …, n = …, range … to …)", for the terminal.
std::string mean_sd(const SampleStatistics& s, const char* unit);
// "  title: n = …, mean = …, sd = …, sem = …, median = …, min = …, max = …\n".
std::string stats_block(const std::string& title, const SampleStatistics& s, const char* unit);

// Frees a series' memory (assigning {} would keep its capacity).
inline void release(std::vector<double>& v) { std::vector<double>().swap(v); }

// "  left out: 2 force maxima that rose faster than {loader} — {what}: 41.5 pN at step 1000
// (rose 46.3 pN, the springs load 0 pN in that time); …\n", or "" for none.
std::string unloaded_maxima_note(const std::vector<UnloadedMaximum>& unloaded, const std::string& loader,
                                 const std::string& what);

// A record of fewer than 8 smoothing windows: its σ_s comes from 16 shorter blocks
// (force_curve.h block_mean_noise_sd), blind to wander slower than a sixteenth of it — say
// so and what tells them apart; "" otherwise.
std::string few_windows_note(const SmoothingInfo& smoothing);
// With the automatic peak criterion: a note when σ_s is above the raw noise (the force wanders
// over more than a smoothing window, which σ_s counts as noise), saying whether the criterion
// is larger than the replica's whole range of smoothed force, where no event can be found (a
// complex audit's separated dimer read "no event, not detached"); "" otherwise.
std::string slow_wander_note(const SmoothingInfo& smoothing);

// Smoothing windows of a few rows average too little noise away for the noise estimates,
// the peak criterion and the contact to mean much: a note saying so and what to change
// (`output_key`: the run's key for the table's row interval), "" otherwise.
std::string few_rows_note(const SmoothingInfo& smoothing, const char* output_key);

// Opens a kind's section of summary.txt: appends `title` to `summary` and returns where the
// kind's per-replica blocks go — the summary itself, or, for a run of many replicas
// (`blocks_apart`: more than kReplicaBlocksInSummary), `replica_blocks` (replicas.txt)
// under the same title, with a line in the summary naming `what` they hold.
std::string& open_replica_section(std::string& summary, std::string& replica_blocks, bool blocks_apart,
                                  const std::string& title, const char* what);

// For tables that end before the run's planned steps (run.log's [run] steps: a run stopped
// early) or well before the longest one's (a replica that crashed, a table cut by hand): a
// note naming them, since a missing event there is no evidence of none (up to 5 one by
// one, more in one note with their count and steps); `covered` says what the results cover
// ("the pulling", "the indentation").
struct TableEnd {
  std::string replica;
  double last_step = 0.0;
};
// What a run that ended with an error can still do (docs/outputs.md#after-an-error): its
// configuration is fixed for --resume, so a changed one is a new run.
inline constexpr const char* kAfterAnError =
    "to close it at its last checkpoint (tables and final.pdb as they stand there), resume it with --set run.steps= "
    "that checkpoint's step (--resume --dry-run names it); to go on, change what the message says and start the run "
    "again with --force";
// `run_error`: run.log's error line of the run's last start, when it ended with one (a bond
// that broke): --resume would repeat it, so the note says so instead of "--resume continues it".
// `running`: the lock holder's note ("pid 4242 on node7, started …") of a run still running
// (AnalyzeOptions::run_in_progress): its tables end early because it has not got further
// yet, so the note says so instead of "stopped early".
std::string cut_short_notes(const std::vector<TableEnd>& ends, const std::string& covered,
                            std::optional<std::int64_t> run_steps, const std::optional<std::string>& run_error = {},
                            const std::optional<std::string>& running = {});
// The same for the terminal's headline of a kind (docs/analysis.md#unfolding-forces-over-replicas),
// inserted after its count of replicas: " (the run stopped at step 210000 of 600000)",
// " (the run ended with an error at step … of …: summary.txt)", " (1 of 3 tables ends before
// step …: summary.txt)", " (the run is still running, pid …: its tables end at step … of …
// so far)", or "" when every table reaches the run's end.
std::string cut_short_brief(const std::vector<TableEnd>& ends, std::optional<std::int64_t> run_steps,
                            bool run_error, const std::optional<std::string>& running = {});

PlotStyle style(const std::string& color, double width, const std::string& dash = "", double opacity = 1.0);
PlotStyle marker_style(const std::string& color);

// When the curve rises far above the peaks (more than twice the largest), the force
// axis ends at 1.5 × the largest peak, so the peaks stay readable.
void cap_force_axis(SvgPlot& plot, std::span<const double> peak_forces, double curve_max);

// The histogram of the first / largest / all peak forces over replicas:
// out/<prefix>forces_histogram.tsv and out/<prefix>peak_force_histogram.svg (`what`:
// "unfolding", "breaking", "rupture"). Bins: `bins` or default_bin_count(first.size())
// over histogram_range(all). Appends the two paths to `files`; returns the summary line.
std::string write_force_histogram(const std::filesystem::path& out, const std::string& prefix,
                                  std::span<const double> first, std::span<const double> maximum,
                                  std::span<const double> all, const std::string& what,
                                  std::optional<std::size_t> bins, bool overwrite,
                                  std::vector<std::filesystem::path>& files);

}  // namespace ermak::analysis
