#include "ermak/analysis/force_spectrum.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "ermak/analysis/analysis_progress.h"
#include "ermak/analysis/bell_evans.h"
#include "ermak/analysis/chain_contour.h"
#include "ermak/analysis/clamp_lifetimes.h"
#include "ermak/analysis/dudko_hummer_szabo.h"
#include "ermak/analysis/report_common.h"
#include "ermak/analysis/run_directory.h"
#include "ermak/analysis/run_pool.h"
#include "ermak/analysis/spectrum_bootstrap.h"
#include "ermak/analysis/statistics.h"
#include "ermak/analysis/svg_plot.h"
#include "ermak/analysis/tsv_table.h"
#include "ermak/analysis/wlc.h"
#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/io/tsv_writer.h"

namespace ermak::analysis {
namespace {

// "lo to hi" of a 95 % profile-likelihood interval; an open end (the likelihood does not fall
// far enough before the search bound) is written as the given text.
std::string interval_text(const ProfileInterval& interval, std::string_view open_lo, std::string_view open_hi) {
  if (!interval.ok) return "not found";
  return fmt::format("{} to {}",
                     interval.lo_open     ? std::string(open_lo)
                     : interval.lo_beyond ? "< " + g(interval.lo, 3)
                                          : g(interval.lo, 3),
                     interval.hi_open     ? std::string(open_hi)
                     : interval.hi_beyond ? "> " + g(interval.hi, 3)
                                          : g(interval.hi, 3));
}

ProfileInterval exp_of(ProfileInterval interval) {
  interval.lo = std::exp(interval.lo);
  interval.hi = std::exp(interval.hi);
  return interval;
}

namespace fs = std::filesystem;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// The bootstrap's resample b draws from a generator seeded by kBootstrapSeed + b: the same
// intervals on every run of the analysis (docs/analysis.md#confidence-intervals).
constexpr std::uint64_t kBootstrapSeed = 1;

// One run: its replicas' rupture forces (ramps) or lifetimes (clamps).
struct RunSpectrum {
  fs::path dir;
  double temperature_K = 300.0;
  std::string temperature_source;
  std::optional<std::string> model_size;  // run.log's "34 beads, 33 bonds, 75 native contacts"
  bool clamp = false;
  std::size_t replicas = 0;  // analysed
  // ramps
  double rate_pN_per_s = kNaN;
  std::vector<int> replica;      // per force or trajectory
  std::vector<double> force_pN;  // the chosen peak's force; a clamp's mean force
  std::vector<int> peak;         // ramps: which peak of its replica (0 = first)
  std::vector<double> peak_rate_pN_per_s;  // ramps: dF/dt before that peak (NaN: too few rows)
  // Clamps: the run's force, the mean over its replicas (force_pN holds each replica's own
  // mean until runs are pooled into levels, then the level's force).
  double clamp_force_pN = kNaN;
  std::optional<double> nominal_clamp_force_pN;  // clamps: the force run.log states
  std::string cut_note;  // the run ended with an error or stopped before its steps (run.log)
  // A level's rate in the tables (set when runs are pooled): κv, or with --loading-rate peak
  // the median of its forces' own rates.
  double table_rate_pN_per_s = kNaN;
  std::size_t without_peak = 0;
  std::vector<int> censored_replica;       // --no-peak censored: the replicas without a peak,
  std::vector<double> censored_force_pN;   // and the largest smoothed force each reached
  std::size_t without_rate = 0;  // --loading-rate peak: a chosen peak whose rise gives no rate
  // clamps
  std::vector<double> time_s;           // to unfolding, or the run's length when censored
  std::vector<std::uint8_t> unfolded;
  std::size_t starts_unfolded = 0;      // left out: already past the threshold at the first row
  double extension_max_nm = -std::numeric_limits<double>::infinity();  // the largest recorded
  // The chain's contour length between the ends the extension is measured from (model.etop
  // and run.log's "ends i j"), where the run directory tells it.
  std::optional<double> contour_nm;
  std::pair<int, int> ends{0, 0};
};

RunSpectrum read_run(const fs::path& dir, const SpectrumOptions& options, std::vector<std::string>& warnings,
                     AnalysisProgress& progress) {
  RunSpectrum run;
  run.dir = dir;
  const RunLogFacts facts = read_run_log(dir);
  run.model_size = facts.model_size;
  if (options.temperature_K) {
    run.temperature_K = *options.temperature_K;
    run.temperature_source = "--temperature-K";
  } else if (facts.temperature_K) {
    run.temperature_K = *facts.temperature_K;
    run.temperature_source = facts.heating ? "start of its heating schedule, run.log" : "run.log";
  } else {
    run.temperature_source = "default; run.log gives none";
  }
  CurveSettings settings = options.settings;
  settings.wlc.kT = kT_pN_nm(run.temperature_K);
  settings.loading_rate_pN_per_s = facts.summed_loading_rate_pN_per_s();
  bool kind_known = false;
  // A heating run without a force protocol has a melting curve, which is no level of a
  // spectrum: said as a plane or indentation run is (docs/analysis.md#dynamic-force-spectrum).
  if (facts.heating && !energy_tables_of_a_run_without_protocol(dir).empty())
    throw Error(dir.string(), 0, "",
                "a heating run without a force protocol ([heating] in its run.log): a dynamic force spectrum takes "
                "constant-velocity pulling or force-clamp runs; a heating run's melting curve is analysed on its "
                "own: ermak analyze " + dir.string());
  std::vector<std::string> without_table;
  const std::vector<Replica> replicas = discover_replicas(dir, &without_table);
  // A pulling or clamp run that also heats: its forces or lifetimes are over a temperature
  // that changes while they are measured, which Bell's law at one kT does not describe —
  // refused as a force schedule is (docs/analysis.md#dynamic-force-spectrum).
  if (facts.temperature_changes() &&
      std::any_of(replicas.begin(), replicas.end(), [](const Replica& r) { return r.pulling; }))
    throw Error(dir.string(), 0, "",
                fmt::format("a {} run that heats ([heating] in its run.log: {}): its {} are measured over a "
                            "changing temperature, and the spectrum fits Bell's law at one temperature; give runs "
                            "at one temperature ([run] temperature_K, no [heating])",
                            facts.protocol_table == "[force_clamp]" ? "force-clamp"
                            : facts.protocol_table == "[pulling]"   ? "pulling"
                                                                    : "pulling or clamp",
                            facts.heating_text(),
                            facts.protocol_table == "[force_clamp]" ? "lifetimes"
                            : facts.protocol_table == "[pulling]"   ? "rupture forces"
                                                                    : "forces or lifetimes"));
  for (const std::string& name : without_table)
    warnings.push_back((dir / name).string() + ": no pulling.tsv, which the other replicas have; replica left out of "
                                               "the spectrum");
  double last_step = -1.0;
  for (const Replica& r : replicas) {
    progress.advance();
    if (!r.pulling) continue;
    const TsvTable table = TsvTable::read(r.dir / "pulling.tsv");
    table.require_rising_steps();
    for (const auto& w : table.warnings()) warnings.push_back(w);
    const PullingAnalysis a = analyze_pulling(table, settings);
    if (!a.step.empty()) last_step = std::max(last_step, a.step.back());
    if (a.rows < 2) {
      warnings.push_back(table.source() + ": fewer than two rows; replica left out of the spectrum");
      continue;
    }
    if (kind_known && a.force_clamp != run.clamp)
      throw Error(table.source(), 0, "",
                  "this run mixes force-clamp and constant-velocity replicas; a spectrum takes runs of one kind");
    run.clamp = a.force_clamp;
    kind_known = true;
    ++run.replicas;
    if (!run.clamp) {
      if (a.peaks.empty()) {
        ++run.without_peak;
        if (options.censor_without_peak) {
          run.censored_replica.push_back(r.index);
          run.censored_force_pN.push_back(*std::max_element(a.force_pN.begin(), a.force_pN.end()));
        }
        continue;
      }
      std::size_t k = 0;
      if (options.peak == SpectrumPeak::largest)
        for (std::size_t j = 1; j < a.peaks.size(); ++j)
          if (a.peaks[j].peak.force > a.peaks[k].peak.force) k = j;
      if (options.rate_at_peak && !(a.peaks[k].loading_rate_pN_per_s > 0.0)) {
        ++run.without_rate;  // left out of every statistic alike
        continue;
      }
      run.replica.push_back(r.index);
      run.force_pN.push_back(a.peaks[k].peak.force);
      run.peak.push_back(int(k));
      run.peak_rate_pN_per_s.push_back(a.peaks[k].loading_rate_pN_per_s);
      continue;
    }
    // First passage of the recorded extension: a running average would let a trajectory
    // that unfolds within half a window of the start look unfolded from its first row.
    // A force schedule also holds the base still, but its force changes: Bell's lifetime at
    // one force does not describe it.
    const auto [f_lo, f_hi] = std::minmax_element(a.force_raw_pN.begin(), a.force_raw_pN.end());
    if (is_force_schedule(*f_lo, *f_hi, a.mean_force_pN))
      throw Error(table.source(), 0, "force_along[pN]",
                  fmt::format("the clamp force runs from {} to {} pN: a force schedule, not a clamp at one force; "
                              "the spectrum fits lifetimes at constant forces",
                              g(*f_lo), g(*f_hi)));
    const double threshold = *options.unfolded_extension_nm;
    const std::vector<double>& x = a.extension_raw_nm;
    run.extension_max_nm = std::max(run.extension_max_nm, largest_extension_nm(a));
    if (x.front() >= threshold) {
      ++run.starts_unfolded;
      warnings.push_back(fmt::format("{}: the extension starts at {} nm, at or beyond --unfolded-extension-nm {}: "
                                     "replica left out of the lifetimes",
                                     table.source(), g(x.front()), g(threshold)));
      continue;
    }
    std::size_t i = 0;
    while (i < a.rows && x[i] < threshold) ++i;
    const bool unfolded = i < a.rows;
    run.replica.push_back(r.index);
    run.force_pN.push_back(a.mean_force_pN);
    run.time_s.push_back((a.time_ns[unfolded ? i : a.rows - 1] - a.time_ns.front()) * 1e-9);
    run.unfolded.push_back(unfolded ? 1 : 0);
  }
  if (!kind_known)
    throw Error(dir.string(), 0, "",
                "no replica_NNN/pulling.tsv with rows here: a dynamic force spectrum takes constant-velocity "
                "pulling or force-clamp runs");
  if (!run.clamp) {
    if (!fs::exists(dir / "run.log"))
      throw Error((dir / "run.log").string(), 0, "",
                  "not found: the spectrum takes each pulling run's loading rate κv from its run.log");
    if (!facts.loading_rate_pN_per_s)
      throw Error((dir / "run.log").string(), 0, "",
                  "states no loading rate (\"loading rate κv = … pN/s\"), which the spectrum needs for each run: "
                  "analyse output directories of `ermak run` with their run.log");
    run.rate_pN_per_s = *facts.summed_loading_rate_pN_per_s();  // the rupture force is the springs' sum
  } else {
    run.clamp_force_pN = describe(run.force_pN).mean;
    run.nominal_clamp_force_pN = facts.clamp_force_pN;
    if (facts.extension_ends) {
      run.ends = *facts.extension_ends;
      run.contour_nm = contour_length_between_nm(dir, run.ends.first, run.ends.second);
    }
  }
  // A run that ended with an error, or stopped early, enters with the part it ran: say so
  // (its forces, or a clamp's censored times, cover only that part).
  if (facts.run_steps && last_step >= 0 && last_step < double(*facts.run_steps)) {
    run.cut_note = facts.run_error
                       ? fmt::format("{}: its tables end at step {} of its {}: the run ended with an error (run.log: "
                                     "\"{}\"); it enters with that part",
                                     dir.string(), g(last_step, 12), *facts.run_steps, *facts.run_error)
                       : fmt::format("{}: its tables end at step {} of its {}: a run stopped early (--resume continues "
                                     "it); it enters with that part",
                                     dir.string(), g(last_step, 12), *facts.run_steps);
    warnings.push_back(run.cut_note);
  }
  return run;
}

// Segments (x, lo)–(x, hi) as one polyline broken by NaN points.
void add_segment(Line& line, double x, double lo, double hi) {
  line.x.insert(line.x.end(), {x, x, kNaN});
  line.y.insert(line.y.end(), {lo, hi, kNaN});
}

// Runs at one level — one loading rate κv, or one clamp force — are one point of the
// spectrum: a batch of replicas split over several directories (several GPUs, or a batch
// resumed with another seed) is one sample (docs/analysis.md#dynamic-force-spectrum).
struct Level {
  std::vector<std::size_t> runs;  // indices of the runs, in the order given
  // Their replicas together: the forces (or trajectories) of the first run, then of the next…,
  // so that the pooled items are in the order one directory holding them all would give.
  RunSpectrum pooled;
  std::string directories;        // "v125a, v125b"
  bool by_nominal_force = false;  // clamps: pooled by the force their run.logs state
};

// Equal to a relative kSameLevelRelative (run_pool.h), as runs pooled into one analysis are.
// Clamps whose run.log states no force (a log without the clamp's line: an older ermak, a
// table converted from elsewhere) are compared by their measured forces, the means of
// force_along over their replicas. ermak's own rows hold the clamp's force to their 8
// digits, but a table whose force is measured (a spring's, a feedback clamp's) scatters
// about it: 1 % holds such runs of one setting together and still parts the forces of a
// spectrum, which differ by several %. Forces closer than that are pooled: give run.logs.
constexpr double kSameMeasuredClampForceRelative = 1e-2;

bool within(double a, double b, double relative) {
  return std::abs(a - b) <= relative * std::max(std::abs(a), std::abs(b));  // false for NaN
}

// Whether run b belongs to the level whose first run is a; `by_nominal` says which forces
// decided it for a clamp.
bool same_level(const RunSpectrum& a, const RunSpectrum& b, bool& by_nominal) {
  by_nominal = false;
  if (!a.clamp) return within(a.rate_pN_per_s, b.rate_pN_per_s, kSameLevelRelative);
  if (a.nominal_clamp_force_pN && b.nominal_clamp_force_pN) {
    by_nominal = true;
    return within(*a.nominal_clamp_force_pN, *b.nominal_clamp_force_pN, kSameLevelRelative);
  }
  return within(a.clamp_force_pN, b.clamp_force_pN, kSameMeasuredClampForceRelative);
}

// The runs grouped into levels, in the order of each level's first run. A level's rate is its
// first run's κv; a clamp level's force is the mean force over all its replicas, which every
// trajectory of the level is fitted at (their own means differ only by the rows' float
// rounding), so that the fits count forces, not trajectories.
std::vector<Level> pool_levels(const std::vector<RunSpectrum>& runs, bool rate_at_peak) {
  std::vector<Level> levels;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const RunSpectrum& r = runs[k];
    Level* level = nullptr;
    for (Level& l : levels) {
      bool by_nominal = false;
      if (same_level(runs[l.runs.front()], r, by_nominal)) {
        level = &l;
        level->by_nominal_force = level->by_nominal_force && by_nominal;
        break;
      }
    }
    if (!level) {
      levels.emplace_back();
      level = &levels.back();
      level->by_nominal_force = true;
      level->pooled = r;  // its rate, temperature, kind; the items are appended below
      RunSpectrum& p = level->pooled;
      p.replicas = p.without_peak = p.without_rate = p.starts_unfolded = 0;
      p.replica.clear(), p.force_pN.clear(), p.peak.clear(), p.peak_rate_pN_per_s.clear();
      p.censored_replica.clear(), p.censored_force_pN.clear(), p.time_s.clear(), p.unfolded.clear();
      p.cut_note.clear();
      p.extension_max_nm = -std::numeric_limits<double>::infinity();
    }
    level->runs.push_back(k);
    level->directories += (level->directories.empty() ? "" : ", ") + r.dir.string();
    RunSpectrum& p = level->pooled;
    p.replicas += r.replicas;
    p.without_peak += r.without_peak;
    p.without_rate += r.without_rate;
    p.starts_unfolded += r.starts_unfolded;
    p.extension_max_nm = std::max(p.extension_max_nm, r.extension_max_nm);
    auto append = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
    append(p.replica, r.replica);
    append(p.force_pN, r.force_pN);
    append(p.peak, r.peak);
    append(p.peak_rate_pN_per_s, r.peak_rate_pN_per_s);
    append(p.time_s, r.time_s);
    append(p.unfolded, r.unfolded);
    append(p.censored_replica, r.censored_replica);
    append(p.censored_force_pN, r.censored_force_pN);
  }
  for (Level& l : levels) {
    RunSpectrum& p = l.pooled;
    if (!p.clamp) {
      p.table_rate_pN_per_s = rate_at_peak ? describe(p.peak_rate_pN_per_s).median : p.rate_pN_per_s;
    } else {
      p.clamp_force_pN = describe(p.force_pN).mean;
      for (double& f : p.force_pN) f = p.clamp_force_pN;
    }
  }
  return levels;
}

}  // namespace

AnalyzeResult analyze_force_spectrum(const SpectrumOptions& options) {
  auto bad = [](const std::string& option, const std::string& what) { throw Error(option + ": " + what); };
  if (options.run_dirs.size() < 2) bad("RUN_DIR", "a dynamic force spectrum needs two or more runs");
  if (options.out_dir.empty())
    bad("-o,--output", "with several run directories, name the directory for the spectrum");
  check_curve_settings(options.settings);
  if (options.censor_without_peak && options.rate_at_peak)
    bad("--no-peak", "censored needs the runs' nominal κv: a replica without a peak has no rate of its own "
                     "(leave out --loading-rate peak)");
  if (options.temperature_K && !(*options.temperature_K > 0.0 && std::isfinite(*options.temperature_K)))
    bad("--temperature-K", "must be > 0 and finite");
  if (options.unfolded_extension_nm &&
      !(*options.unfolded_extension_nm > 0.0 && std::isfinite(*options.unfolded_extension_nm)))
    bad("--unfolded-extension-nm", "must be > 0 and finite");

  AnalyzeResult result;
  result.out_dir = options.out_dir;

  // --- the files; none may exist unless overwrite --------------------------------------------
  // Checked before the runs are read (which takes minutes for 10⁴ replicas): every kind of
  // analysis's files, so that --force leaves no earlier analysis's file beside this one's.
  // Written into a staging directory and moved into OUT once all has succeeded: a refused
  // or failed spectrum (a run of another kind, a table that cannot be read) leaves an earlier
  // one as it was.
  std::vector<fs::path> planned;
  add_every_analysis_file(result.out_dir, planned);
  StagedOutput staged(result.out_dir, planned, options.overwrite);
  const fs::path& out = staged.dir();

  // --- every run, analysed as `ermak analyze` does ------------------------------------------
  // One progress count over the replicas of every run (an unreadable run directory counts
  // none here and is named by read_run).
  std::size_t all_replicas = 0;
  for (const fs::path& dir : options.run_dirs) {
    try {
      all_replicas += discover_replicas(dir).size();
    } catch (const Error&) {
    }
  }
  AnalysisProgress progress("replicas", all_replicas);
  std::vector<RunSpectrum> runs;
  std::vector<fs::path> seen;
  for (const fs::path& dir : options.run_dirs) {
    std::error_code canonical_error;
    const fs::path same = fs::weakly_canonical(dir, canonical_error);
    for (std::size_t k = 0; k < seen.size(); ++k)
      if (!canonical_error && same == seen[k])
        throw Error(dir.string(), 0, "",
                    "given twice (also as " + options.run_dirs[k].string() +
                        "): each run's replicas may enter the fit once");
    seen.push_back(same);
    // Clamp runs need the threshold; find out the kind first with a placeholder, which is
    // only used when the run is a clamp and the option was given.
    SpectrumOptions o = options;
    if (!o.unfolded_extension_nm) o.unfolded_extension_nm = std::numeric_limits<double>::infinity();
    RunSpectrum run = read_run(dir, o, result.warnings, progress);
    if (run.clamp && !options.unfolded_extension_nm)
      bad("--unfolded-extension-nm",
          "force-clamp runs need the extension at which a trajectory counts as unfolded, nm (for example 8 for "
          "the WW domain pulled by its ends; docs/analysis.md#dynamic-force-spectrum)");
    if (!runs.empty() && run.clamp != runs.front().clamp)
      throw Error(dir.string(), 0, "",
                  std::string("a ") + (run.clamp ? "force-clamp" : "constant-velocity") + " run, but " +
                      runs.front().dir.string() + " is a " + (run.clamp ? "constant-velocity" : "force-clamp") +
                      " run: a spectrum takes runs of one kind");
    if (!run.clamp && options.unfolded_extension_nm)
      bad("--unfolded-extension-nm", "applies to force-clamp runs; " + dir.string() + " is a pulling run");
    if (run.clamp && options.peak_given)
      bad("--spectrum-peak", "applies to pulling runs; " + dir.string() + " is a force-clamp run");
    if (run.clamp && options.rate_at_peak)
      bad("--loading-rate", "applies to pulling runs; " + dir.string() + " is a force-clamp run");
    if (run.clamp && options.censor_without_peak)
      bad("--no-peak", "applies to pulling runs (a clamp censors its own trajectories); " + dir.string() +
                           " is a force-clamp run");
    if (!runs.empty() && std::abs(run.temperature_K - runs.front().temperature_K) > kSameTemperature_K)
      throw Error(dir.string(), 0, "",
                  fmt::format("the run is at {} K ({}), {} at {} K ({}): Bell's law is fitted at one temperature "
                              "(give --temperature-K to analyse them as one)",
                              g(run.temperature_K), run.temperature_source, runs.front().dir.string(),
                              g(runs.front().temperature_K), runs.front().temperature_source));
    runs.push_back(std::move(run));
  }
  // A spectrum is of one protein: runs whose logs state models of other sizes (another
  // protein, a mutant's contacts, another topology) are named — a warning, since run.log
  // holds no fingerprint of the model itself.
  // Compared with the first run whose log states its model.
  const auto stated = std::find_if(runs.begin(), runs.end(), [](const RunSpectrum& r) { return r.model_size; });
  for (const RunSpectrum& r : runs)
    if (stated != runs.end() && r.model_size && *r.model_size != *stated->model_size) {
      result.warnings.push_back(fmt::format("{}: its model ({}) is not that of {} ({}): a spectrum fits the runs of "
                                            "one protein as one",
                                            r.dir.string(), *r.model_size, stated->dir.string(), *stated->model_size));
    }
  const bool clamp = runs.front().clamp;
  const double temperature_K = runs.front().temperature_K;
  const double kT = kT_pN_nm(temperature_K);

  // --- the levels: runs at one κv (clamp force) pooled ------------------------------------------
  // The spectrum's levels are its runs' loading rates (κv, even where each force has its own
  // rate at its peak) or clamp forces: a fit needs two of them (DHS on clamps three).
  const std::vector<Level> levels = pool_levels(runs, options.rate_at_peak);
  std::size_t levels_with_items = 0;
  for (const Level& l : levels) levels_with_items += !l.pooled.force_pN.empty();

  // --- the fit over all replicas ----------------------------------------------------------------
  std::vector<double> all_force, all_rate, all_time;
  std::vector<std::uint8_t> all_unfolded, all_ruptured;
  std::vector<std::size_t> all_level;  // which level each item is of (the bootstrap's groups)
  std::size_t censored = 0;
  for (std::size_t k = 0; k < levels.size(); ++k) {
    const RunSpectrum& r = levels[k].pooled;
    for (std::size_t i = 0; i < r.force_pN.size(); ++i) {
      all_level.push_back(k);
      all_force.push_back(r.force_pN[i]);
      if (clamp) {
        all_time.push_back(r.time_s[i]);
        all_unfolded.push_back(r.unfolded[i]);
      } else {
        all_rate.push_back(options.rate_at_peak ? r.peak_rate_pN_per_s[i] : r.rate_pN_per_s);
        all_ruptured.push_back(1);
      }
    }
    // Replicas without a peak (--no-peak censored): survival up to their largest force.
    for (double f : r.censored_force_pN) {
      if (!(f > 0.0)) continue;
      all_level.push_back(k);
      all_force.push_back(f);
      all_rate.push_back(r.rate_pN_per_s);
      all_ruptured.push_back(0);
      ++censored;
    }
  }
  // Levels whose replicas gave nothing to fit (no peak at any of them) do not count. Bell's
  // rate needs 2 levels; DHS on clamps 3 (each force pins one rate), and each fit says its own.
  auto too_few_levels = [&](std::size_t needed) {
    return levels_with_items == levels.size()
               ? fmt::format("needs runs at {} or more {} (these runs have {})", needed,
                             clamp ? "forces" : "loading rates κv", levels.size())
           : levels_with_items == 0
               ? fmt::format("needs runs at {} or more {} with {} ({})", needed, clamp ? "forces" : "loading rates κv",
                             clamp ? "trajectories" : "a rupture force",
                             clamp ? "these runs have no trajectory" : "no replica of these runs shows an unfolding peak")
               : fmt::format("needs runs at {} or more {} with {} (these runs have {} {}{}, {} with {}: {} at the "
                             "other{})",
                             needed, clamp ? "forces" : "loading rates κv", clamp ? "trajectories" : "a rupture force",
                             levels.size(), clamp ? "force" : "loading rate", levels.size() == 1 ? "" : "s",
                             levels_with_items, clamp ? "trajectories" : "one",
                             clamp ? "no trajectory" : "no replica shows an unfolding peak",
                             levels.size() - levels_with_items == 1 ? "" : "s");
  };
  BellFit fit;
  if (levels_with_items >= 2) {
    fit = clamp ? fit_bell_lifetimes(all_force, all_time, all_unfolded, kT)
                : fit_bell_evans_ramps(all_force, all_rate, kT, all_ruptured);
  } else {
    fit.why_not = too_few_levels(2);
    fit.too_little_data = true;
  }
  // Dudko–Hummer–Szabo for a linear-cubic (ν = 2/3) and a cusp (ν = 1/2) barrier; the table
  // and the plot show the linear-cubic one.
  std::vector<DhsFit> dhs;
  for (double nu : {2.0 / 3.0, 0.5}) {
    if (levels_with_items < 2) {
      DhsFit none;
      none.nu = nu;
      none.why_not = too_few_levels(clamp ? 3 : 2);
      none.too_little_data = true;
      dhs.push_back(none);
      continue;
    }
    dhs.push_back(clamp ? fit_dhs_lifetimes(all_force, all_time, all_unfolded, kT, nu)
                        : fit_dhs_ramps(all_force, all_rate, kT, nu, all_ruptured));
  }
  // Clamps: a threshold beyond every extension recorded unfolds nothing, whatever the forces;
  // one beyond the chain's contour length is reached by no force or run length. Said with the
  // fits that lack events for it (docs/analysis.md#dynamic-force-spectrum).
  if (clamp) {
    double reached_nm = -std::numeric_limits<double>::infinity();
    std::optional<double> contour_nm;
    std::pair<int, int> ends;
    for (const RunSpectrum& r : runs) {
      reached_nm = std::max(reached_nm, r.extension_max_nm);
      if (r.contour_nm && !contour_nm) contour_nm = r.contour_nm, ends = r.ends;
    }
    const double x_unfolded = *options.unfolded_extension_nm;
    if (std::isfinite(reached_nm) && x_unfolded > reached_nm) {
      const std::string unreached =
          contour_nm && x_unfolded >= *contour_nm
              ? fmt::format("; no trajectory reached --unfolded-extension-nm {} nm (the largest extension recorded: {} "
                            "nm), and it lies beyond the chain's contour length between beads {} and {} ({} nm, its "
                            "native bond lengths summed, model.etop), which the chain passes only by stretching its "
                            "bonds: larger forces or longer runs will not measure it; give the extension of the "
                            "unfolded state, below both",
                            g(x_unfolded), g(reached_nm, 4), ends.first, ends.second, g(*contour_nm, 3))
              : fmt::format("; no trajectory reached --unfolded-extension-nm {} nm (the largest extension recorded: {} "
                            "nm): larger forces or longer runs, or the extension of the unfolded state the "
                            "trajectories do reach",
                            g(x_unfolded), g(reached_nm, 4));
      if (!fit.ok && fit.too_little_data) fit.why_not += unreached;
      for (DhsFit& d : dhs)
        if (!d.ok && d.too_little_data) d.why_not += unreached;
    }
  }
  const DhsFit& cubic = dhs.front();
  // The bootstrap: each level's items resampled (docs/analysis.md#confidence-intervals).
  std::optional<BootstrapFits> boot;
  if (options.bootstrap_resamples > 0 && levels_with_items >= 2) {
    SpectrumSample sample;
    sample.clamp = clamp;
    sample.kT_pN_nm = kT;
    sample.force_pN = all_force;
    sample.rate_pN_per_s = all_rate;
    sample.time_s = all_time;
    sample.event = clamp ? all_unfolded : all_ruptured;
    sample.level = all_level;
    boot = bootstrap_spectrum(sample, options.bootstrap_resamples, kBootstrapSeed);
  }

  std::string summary = "ermak analyze: dynamic force spectrum\n\n";
  const char* level_name = clamp ? "force" : "loading rate";
  const char* levels_name = clamp ? "forces" : "loading rates";
  summary += fmt::format("runs: {} ({}{}), at {} K (kT = {} pN·nm; {})\n", runs.size(),
                         clamp ? "force clamps" : "constant-velocity pulling",
                         levels.size() < runs.size() ? fmt::format(" at {} {}", levels.size(),
                                                                   levels.size() == 1 ? level_name : levels_name)
                                                     : std::string(),
                         g(temperature_K), g(kT), runs.front().temperature_source);
  if (!clamp)
    summary += fmt::format("rupture force of a replica: its {} unfolding peak (--spectrum-peak), found as `ermak "
                           "analyze RUN_DIR` finds it with the same options; loading rate: {}\n",
                           options.peak == SpectrumPeak::first ? "first" : "largest",
                           options.rate_at_peak ? "the slope before each peak (--loading-rate peak)"
                                                : "the run's nominal κv (--loading-rate nominal)");
  else
    summary += fmt::format("lifetime of a replica: the time until its extension (as recorded) first reaches {} nm "
                           "(--unfolded-extension-nm); a replica that never does is censored at its last row\n",
                           g(*options.unfolded_extension_nm));
  if (levels.size() < runs.size()) {
    // A batch split over several directories is one sample: say which runs went together.
    summary += fmt::format("runs at one {} are pooled: one row, one point and one level of the fits, their replicas "
                           "together in every statistic (and resampled together by --bootstrap)\n",
                           level_name);
    for (const Level& l : levels) {
      if (l.runs.size() < 2) continue;
      const RunSpectrum& p = l.pooled;
      // The runs whose run.log states no clamp force, which made the level's test the measured forces.
      std::string without_stated;
      std::size_t n_without_stated = 0;
      for (std::size_t k : l.runs)
        if (!runs[k].nominal_clamp_force_pN) {
          without_stated += (without_stated.empty() ? "" : ", ") + runs[k].dir.string();
          ++n_without_stated;
        }
      summary += fmt::format("  {} = {} pN{}: runs {} ({} replicas){}\n", clamp ? "F" : "κv",
                             g(clamp ? p.clamp_force_pN : p.rate_pN_per_s, 6), clamp ? "" : "/s", l.directories,
                             p.replicas,
                             !clamp ? std::string()
                             : l.by_nominal_force
                                 ? std::string("; the clamp force their run.logs state")
                                 : fmt::format("; the run.log{} of {} state{} no clamp force: the runs' measured "
                                               "forces agree within {} %",
                                               n_without_stated == 1 ? "" : "s", without_stated,
                                               n_without_stated == 1 ? "s" : "",
                                               g(100.0 * kSameMeasuredClampForceRelative)));
    }
  }

  // --- per level: spectrum.tsv and the table of the summary -----------------------------------
  std::string few_spread_notes, off_model_notes;
  Line spread_lines, observed_x, points_x;
  {
    std::vector<std::string> columns =
        clamp ? std::vector<std::string>{"level", "force[pN]", "replicas", "unfolded", "lifetime[s]",
                                         "lifetime_se[s]", "median_time[s]", "cv", "model_lifetime[s]",
                                         "dhs_lifetime[s]", "runs"}
              : std::vector<std::string>{"level", "loading_rate[pN/s]", "replicas", "with_peak", "force_mean[pN]",
                                         "force_sd[pN]", "force_sem[pN]", "force_median[pN]", "model_mean[pN]",
                                         "model_mode[pN]", "dhs_mean[pN]", "runs"};
    TsvWriter w = TsvWriter::create(out / "spectrum.tsv", columns, options.overwrite);
    if (clamp)
      summary += fmt::format("\n  {:>5} {:>10} {:>8} {:>9} {:>20} {:>12} {:>6} {:>14}  {}\n", "level", "force[pN]",
                             "replicas", "unfolded", "lifetime[s]", "median[s]", "CV", "Bell τ[s]", "directories");
    else
      summary += fmt::format("\n  {:>5} {:>12} {:>8} {:>9} {:>22} {:>10} {:>10} {:>10}  {}\n", "level",
                             options.rate_at_peak ? "dF/dt[pN/s]" : "κv[pN/s]",
                             "replicas", "with peak", "force mean ± sd (sem)", "median", "Bell mean", "Bell mode",
                             "directories");
    for (std::size_t k = 0; k < levels.size(); ++k) {
      const RunSpectrum& r = levels[k].pooled;
      const std::string& directories = levels[k].directories;
      const double runs_pooled = double(levels[k].runs.size());
      if (clamp) {
        const SampleStatistics f = describe(r.force_pN);
        double sum_t = 0.0;
        std::size_t events = 0;
        std::vector<double> unfolded_times;
        for (std::size_t i = 0; i < r.time_s.size(); ++i) {
          sum_t += r.time_s[i];
          if (r.unfolded[i]) ++events, unfolded_times.push_back(r.time_s[i]);
        }
        // The exponential lifetime's maximum-likelihood estimate with censoring.
        const double tau = events ? sum_t / double(events) : kNaN;
        const double tau_se = events ? tau / std::sqrt(double(events)) : kNaN;
        // The median of all times is a lifetime statistic only when more than half unfolded
        // (the censored times all lie above it).
        const double median = 2 * events > r.time_s.size() ? describe(r.time_s).median : kNaN;
        // Exponential lifetimes have a coefficient of variation of 1; far less says a lag
        // or a chain dragged open rather than one barrier crossed (computed over the
        // unfolded times when none is censored, where it means that).
        const SampleStatistics unfolded_stats = describe(unfolded_times);
        const double cv = events == r.time_s.size() && events >= 2 ? unfolded_stats.sd / unfolded_stats.mean : kNaN;
        if (far_less_varied_than_exponential(cv, events))
          few_spread_notes += fmt::format(
              "- {} pN ({}): the unfolding times vary far less than exponential lifetimes do (CV {}, "
              "1 for one barrier): a lag before unfolding or a chain dragged open, which Bell's law does not "
              "describe; use lower forces\n",
              g(f.mean), directories, g(cv, 2));
        const double model = fit.ok ? 1.0 / (fit.k0_per_s * std::exp(f.mean * fit.x_nm / kT)) : kNaN;
        const double dhs_model = cubic.ok ? 1.0 / dhs_rate_per_s(cubic, f.mean, kT) : kNaN;
        if (fit.ok && events >= 2 && std::abs(tau - model) > 3.0 * tau_se)
          off_model_notes += fmt::format(
              "- {} ({} pN): lifetime {} s, {} se from Bell's {} s: one barrier with a fixed x_β does not describe "
              "this force (a lag or a chain dragged open at high forces, other pathways at any)\n",
              directories, g(f.mean), g(tau), g((tau - model) / tau_se, 2), g(model));
        const double row[] = {f.mean, double(r.replicas), double(events), tau, tau_se, median, cv, model, dhs_model,
                              runs_pooled};
        w.row(std::int64_t(k), row);
        summary += fmt::format("  {:>5} {:>10} {:>8} {:>9} {:>20} {:>12} {:>6} {:>14}  {}\n", k, g(f.mean),
                               r.replicas, events, events ? g(tau) + " ± " + g(tau_se, 2) : "n/a", g(median),
                               g(cv, 2), g(model), directories);
        if (events) {
          add_segment(spread_lines, f.mean, std::log10(tau - tau_se > 0 ? tau - tau_se : tau / 10),
                      std::log10(tau + tau_se));
          observed_x.x.push_back(f.mean);
          observed_x.y.push_back(std::log10(tau));
        }
        for (double t : unfolded_times) {
          points_x.x.push_back(f.mean);
          points_x.y.push_back(std::log10(t));
        }
      } else {
        // The model's values are those at the level's table rate.
        const double rate = r.table_rate_pN_per_s;
        const SampleStatistics s = describe(r.force_pN);
        const double model_mean = fit.ok ? bell_evans_mean_pN(fit, rate, kT) : kNaN;
        const double model_mode = fit.ok ? bell_evans_mode_pN(fit, rate, kT) : kNaN;
        const double dhs_mean = cubic.ok ? dhs_mean_force_pN(cubic, rate, kT) : kNaN;
        const double row[] = {rate, double(r.replicas), double(r.force_pN.size()), s.mean, s.sd,
                              s.sem, s.median, model_mean, model_mode, dhs_mean, runs_pooled};
        w.row(std::int64_t(k), row);
        summary += fmt::format("  {:>5} {:>12} {:>8} {:>9} {:>22} {:>10} {:>10} {:>10}  {}\n", k, g(rate),
                               r.replicas, r.force_pN.size(),
                               s.n ? g(s.mean) + " ± " + g(s.sd, 3) + " (" + g(s.sem, 2) + ")" : "n/a", g(s.median),
                               g(model_mean), g(model_mode), directories);
        if (fit.ok && s.n > 1 && std::abs(s.mean - model_mean) > 3.0 * s.sem)
          off_model_notes += fmt::format(
              "- {} (rate {} pN/s): mean force {} pN, {} sem from Bell's {} pN (Dudko–Hummer–Szabo, ν = 2/3: {} "
              "pN): one barrier with a fixed x_β does not describe this rate (at high rates a chain dragged "
              "open; at any rate other transitions or pathways; with --spectrum-peak first, different "
              "transitions at different speeds)\n",
              directories, g(rate), g(s.mean), g((s.mean - model_mean) / s.sem, 2), g(model_mean), g(dhs_mean));
        const double x = std::log10(rate);
        if (s.n > 1) add_segment(spread_lines, x, s.mean - s.sd, s.mean + s.sd);
        if (s.n) {
          observed_x.x.push_back(x);
          observed_x.y.push_back(s.mean);
        }
        for (std::size_t i = 0; i < r.force_pN.size(); ++i) {
          const double own_rate = options.rate_at_peak ? r.peak_rate_pN_per_s[i] : rate;
          if (!(own_rate > 0.0)) continue;
          points_x.x.push_back(std::log10(own_rate));
          points_x.y.push_back(r.force_pN[i]);
        }
      }
    }
    w.flush();
  }
  result.files.push_back(out / "spectrum.tsv");

  // --- every force or lifetime --------------------------------------------------------------------
  {
    const fs::path path = out / (clamp ? "lifetimes.tsv" : "rupture_forces.tsv");
    TsvWriter w = TsvWriter::create(path,
                                    clamp ? std::vector<std::string>{"run", "replica", "force[pN]", "time[s]", "unfolded",
                                                                     "level"}
                                          : std::vector<std::string>{"run", "replica", "loading_rate[pN/s]",
                                                                     "force[pN]", "peak", "rate_at_peak[pN/s]",
                                                                     "ruptured", "level"},
                                    options.overwrite);
    // Row by row in the order of the runs given, each at its level's rate or force (the fit's).
    std::vector<std::size_t> level_of(runs.size());
    for (std::size_t l = 0; l < levels.size(); ++l)
      for (const std::size_t k : levels[l].runs) level_of[k] = l;
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const RunSpectrum& r = runs[k];
      const RunSpectrum& level = levels[level_of[k]].pooled;
      const double l = double(level_of[k]);
      for (std::size_t i = 0; i < r.force_pN.size(); ++i) {
        if (clamp) {
          const double row[] = {double(r.replica[i]), level.clamp_force_pN, r.time_s[i], double(r.unfolded[i]), l};
          w.row(std::int64_t(k), row);
        } else {
          const double row[] = {double(r.replica[i]), level.rate_pN_per_s, r.force_pN[i], double(r.peak[i]),
                                r.peak_rate_pN_per_s[i], 1.0, l};
          w.row(std::int64_t(k), row);
        }
      }
      for (std::size_t i = 0; i < r.censored_force_pN.size(); ++i) {
        const double row[] = {double(r.censored_replica[i]), level.rate_pN_per_s, r.censored_force_pN[i], -1.0, kNaN,
                              0.0, l};
        w.row(std::int64_t(k), row);
      }
    }
    w.flush();
    result.files.push_back(path);
  }

  // --- the fit -------------------------------------------------------------------------------------
  std::string fit_text;
  if (fit.ok) {
    const double factor = std::exp(fit.ln_k0_se);
    fit_text = fmt::format("x_β = {} ± {} nm, k0 = {} /s (×/÷ {})", g(fit.x_nm), g(fit.x_se_nm, 2), g(fit.k0_per_s, 3),
                           g(factor, 3));
    summary += fmt::format("\nBell's rate k(F) = k0·exp(F·x_β/kT), maximum likelihood over {} {}:\n", fit.n,
                           clamp ? fmt::format("trajectories ({} unfolded, the rest censored)", fit.events)
                                 : std::string("rupture forces"));
    summary += fmt::format("  x_β = {} ± {} nm, 95 % interval {} nm (distance to the barrier along the force)\n",
                           g(fit.x_nm), g(fit.x_se_nm, 2), interval_text(fit.x_interval_nm, "< 0.001", "> 20"));
    const ProfileInterval& k = fit.ln_k0_interval;
    summary += fmt::format("  k0  = {} /s, ln k0 = {} ± {}, 95 % interval {} ({} /s; the rate at zero force; {})\n",
                           g(fit.k0_per_s, 3), g(std::log(fit.k0_per_s)), g(fit.ln_k0_se, 2),
                           interval_text(k, "−∞", "∞"), interval_text(exp_of(k), "0", "∞"),
                           clamp ? fmt::format("τ0 = 1/k0 = {} s", g(1.0 / fit.k0_per_s, 3))
                                 : std::string("extrapolated far below the forces measured"));
    summary += fmt::format("  correlation of x_β and ln k0: {}; log-likelihood {}\n", g(fit.correlation, 3),
                           g(fit.log_likelihood, 6));
    if (!clamp) {
      // The classic reading: the mean force against ln κv, slope kT/x_β, one point per level
      // (runs at one κv pooled: a batch split in two is not two rates).
      std::vector<double> lx, my;
      for (const Level& l : levels)
        if (const RunSpectrum& r = l.pooled; !r.force_pN.empty()) {
          lx.push_back(std::log(r.table_rate_pN_per_s));
          my.push_back(describe(r.force_pN).mean);
        }
      const LinearFit line = fit_line(lx, my);
      if (line.ok && line.slope > 0.0)
        summary += fmt::format("  from the mean forces alone (least squares against ln {}, {} rates): slope {} pN "
                               "per e-fold, x_β = kT/slope = {} nm\n",
                               options.rate_at_peak ? "the median rate at the peaks of each κv" : "κv", line.n,
                               g(line.slope), g(kT / line.slope));
      summary += "  compare each rate's force mean with the model's (Bell mean) in the table above: a mean far off "
                 "(several sem) says one barrier with a force-independent x_β does not describe that loading rate\n";
    } else {
      summary += "  compare each force's lifetime with the model's (Bell τ) in the table above\n";
    }
  } else {
    fit_text = "Bell's rate not fitted: " + fit.why_not;
    summary += "\n" + fit_text + "\n";
    // Runs of one batch split over several directories: the pooled row is what they give.
    if (levels.size() == 1 && runs.size() > 1)
      summary += fmt::format("  (every run is at one {}: the table above gives their {} replicas pooled)\n", level_name,
                             levels.front().pooled.replicas);
  }

  // Beyond Bell: the DHS fits, and which model the data favour (Akaike: 2 parameters vs 3).
  summary += "\nDudko–Hummer–Szabo, k(F) = k0·c^{1/ν−1}·exp(ΔG‡/kT·(1 − c^{1/ν})), c = 1 − ν·F·x‡/ΔG‡:\n";
  for (const DhsFit& d : dhs) {
    const std::string shape = d.nu > 0.6 ? "ν = 2/3 (linear-cubic barrier)" : "ν = 1/2 (cusp barrier)";
    if (!d.ok) {
      summary += fmt::format("  {}: not fitted: {}\n", shape, d.why_not);
      continue;
    }
    const double f_c = d.critical_force_pN(kT);
    summary += fmt::format("  {}: x‡ = {} ± {} nm (95 % interval {}), ΔG‡ = {} ± {} kT (95 % interval {}; {} "
                           "kcal/mol), k0 = {} /s (ln k0 ± {}), critical force {} pN; log-likelihood {}",
                           shape, g(d.x_nm), g(d.x_se_nm, 2), interval_text(d.x_interval_nm, "< 0.001", "> 20"),
                           g(d.barrier_kT), g(d.barrier_se_kT, 2), interval_text(d.barrier_interval_kT, "< " + g(d.barrier_interval_kT.lo, 3), "∞"),
                           g(d.barrier_kT * units::kelvin_to_kcal_per_mol(temperature_K), 3), g(d.k0_per_s, 3), g(d.ln_k0_se, 2),
                           g(f_c), g(d.log_likelihood, 6));
    if (fit.ok) {
      // Akaike's criterion, 2·(parameters) − 2·ln L: a difference below 2 prefers neither.
      const double delta_aic = 2.0 * (3 - d.log_likelihood) - 2.0 * (2 - fit.log_likelihood);
      summary += fmt::format(", {} than Bell's by {}; AIC {}", d.log_likelihood > fit.log_likelihood ? "higher" : "lower",
                             g(std::abs(d.log_likelihood - fit.log_likelihood), 3),
                             std::abs(delta_aic) < 2.0 ? fmt::format("prefers neither (difference {} < 2)",
                                                                     g(std::abs(delta_aic), 4))
                             : delta_aic < 0.0 ? fmt::format("prefers it by {}", g(-delta_aic, 3))
                                               : fmt::format("prefers Bell's law by {}", g(delta_aic, 3)));
    }
    summary += "\n";
    if (d.largest_force_pN > 0.98 * f_c)
      summary += fmt::format("    the critical force sits at the largest force measured ({} pN, {} % of it): the fit "
                             "is held by that bound, and its standard errors understate the uncertainty (quote the "
                             "95 % intervals)\n",
                             g(d.largest_force_pN), g(100.0 * d.largest_force_pN / f_c, 3));
  }

  if (boot) {
    const std::size_t n = options.bootstrap_resamples;
    auto line = [&](const char* name, const std::vector<double>& values, const char* unit) {
      const PercentileInterval p = percentile_interval(values);
      if (p.finite == 0) return fmt::format("{} not fitted in any resample", name);
      auto end = [](double v) { return std::isinf(v) ? std::string(v > 0 ? "∞" : "−∞") : g(v, 3); };
      return fmt::format("{} {} to {}{}{}", name, end(p.lo), end(p.hi), unit,
                         p.finite < n ? fmt::format(" ({} of {} resamples fitted)", p.finite, n) : std::string());
    };
    summary += fmt::format("\nBootstrap, {} resamples of each {}'s {} (seed {}): 95 % percentile intervals of the "
                           "refitted parameters\n",
                           n, level_name, clamp ? "trajectories" : "forces", kBootstrapSeed);
    summary += "  Bell: " + line("x_β", boot->bell_x_nm, " nm") + ", " + line("ln k0", boot->bell_ln_k0, "") + "\n";
    for (std::size_t k = 0; k < kBootstrapNu.size(); ++k)
      summary += fmt::format("  DHS {}: {}, {}\n", k == 0 ? "ν = 2/3" : "ν = 1/2", line("x‡", boot->dhs_x_nm[k], " nm"),
                             line("ΔG‡", boot->dhs_barrier_kT[k], " kT"));
    // Resampling within a level of one or a few items cannot show their spread: with one
    // force per level every resample is the data set itself, and the interval is a point;
    // where only some levels have one, that level's force is the same in every resample and
    // only the others move the refits (docs/analysis.md#confidence-intervals).
    std::vector<std::size_t> items_per_level(levels.size(), 0);
    for (const std::size_t l : all_level) ++items_per_level[l];
    std::size_t fewest = 0, most = 0;
    for (const std::size_t c : items_per_level) {
      if (c == 0) continue;
      fewest = fewest == 0 ? c : std::min(fewest, c);
      most = std::max(most, c);
    }
    const char* item = clamp ? "trajectory" : "force";
    const char* items = clamp ? "trajectories" : "forces";
    if (most == 1) {
      summary += fmt::format("  note: a {0} has only 1 {1}: resampled within each {0}, these intervals are too "
                             "narrow (every resample is the data itself: each interval is a point); quote the profile "
                             "intervals above, or give each {0} more replicas\n",
                             level_name, item);
    } else if (fewest > 0 && fewest < kBootstrapFewestItems) {
      // The levels of few items, by name: "level 1 (v1000, κv = 3.47e+07 pN/s): 1 force".
      std::string few, single;
      std::size_t n_few = 0, n_single = 0;
      for (std::size_t k = 0; k < levels.size(); ++k) {
        const std::size_t c = items_per_level[k];
        if (c == 0 || c >= kBootstrapFewestItems) continue;
        const RunSpectrum& p = levels[k].pooled;
        few += fmt::format("{}level {} ({}, {} = {} {}): {} {}", few.empty() ? "" : "; ", k, levels[k].directories,
                           clamp ? "F" : "κv", g(clamp ? p.clamp_force_pN : p.table_rate_pN_per_s, 4),
                           clamp ? "pN" : "pN/s", c, c == 1 ? item : items);
        ++n_few;
        if (c == 1) {
          single += fmt::format("{}level {}", single.empty() ? "" : ", ", k);
          ++n_single;
        }
      }
      summary += fmt::format(
          "  note: {} of {} {} {} fewer than {} {}: {}; resampled within each {}, these intervals are too narrow (a "
          "handful of values cannot show their spread){}; quote the profile intervals above, or give each {} more "
          "replicas\n",
          n_few, levels_with_items, levels_name, n_few == 1 ? "has" : "have", kBootstrapFewestItems, items, few,
          level_name,
          n_single == 0 ? std::string()
                        : fmt::format("; {} {} one {}, the same in every resample: only the other {}' {} vary", single,
                                      n_single == 1 ? "has" : "have", item, levels_name, items),
          level_name);
    }
    const fs::path path = out / "bootstrap.tsv";
    TsvWriter w = TsvWriter::create(path,
                                    {"resample", "bell_x[nm]", "bell_ln_k0", "dhs_2/3_x[nm]", "dhs_2/3_barrier[kT]",
                                     "dhs_1/2_x[nm]", "dhs_1/2_barrier[kT]"},
                                    options.overwrite);
    for (std::size_t b = 0; b < n; ++b) {
      const double row[] = {boot->bell_x_nm[b],         boot->bell_ln_k0[b],         boot->dhs_x_nm[0][b],
                            boot->dhs_barrier_kT[0][b], boot->dhs_x_nm[1][b],        boot->dhs_barrier_kT[1][b]};
      w.row(std::int64_t(b), row);
    }
    w.flush();
    result.files.push_back(path);
  }

  // --- notes ------------------------------------------------------------------------------------------
  std::string notes;
  if (!clamp) {
    std::size_t without = 0, analysed = 0;
    for (const RunSpectrum& r : runs) without += r.without_peak, analysed += r.replicas;
    if (without && options.censor_without_peak)
      notes += fmt::format("- {} of {} replicas show no unfolding peak: they enter the fits as censored at the "
                           "largest force they reached (--no-peak censored: they had not ruptured by then), {} "
                           "with a positive force; the force table's statistics are over the ruptures only. A "
                           "replica dragged open without a force drop is no survivor: check their curves\n",
                           without, analysed, censored);
    else if (without)
      notes += fmt::format("- {} of {} replicas show no unfolding peak and are not in the fit (a replica that "
                           "unfolds without a force drop above the peak criterion, or not at all, has no rupture "
                           "force; one that had not unfolded by the end of its run would have ruptured above every "
                           "force it reached, so leaving it out biases the fit towards lower forces)\n",
                           without, analysed);
    if (!options.rate_at_peak) {
      notes += "- the loading rate is the nominal κv of each run (run.log); the molecule's own compliance makes the "
               "rate at which the force rises before a peak lower, so x_β and k0 are those of the nominal rates "
               "(--loading-rate peak fits each force at the slope of its own rise)\n";
    } else {
      std::vector<double> ratio;
      for (const RunSpectrum& r : runs)
        for (double rate : r.peak_rate_pN_per_s) ratio.push_back(rate / r.rate_pN_per_s);
      const SampleStatistics q = describe(ratio);
      notes += fmt::format("- each force at its own loading rate, the slope of the force against time over the upper "
                           "half of the last climb to its peak (--loading-rate peak): {} of the nominal κv "
                           "(median; {} to {})\n",
                           g(q.median, 3), g(q.min, 3), g(q.max, 3));
      std::size_t without_rate = 0;
      for (const RunSpectrum& r : runs) without_rate += r.without_rate;
      if (without_rate)
        notes += fmt::format("- {} rupture force{} left out of everything (table, fit, notes): the rise before the "
                             "peak has fewer than 3 rows above its half-way force, or does not rise — the fastest "
                             "rises, so the rates kept lean low\n",
                             without_rate, without_rate == 1 ? " is" : "s are");
    }
    notes += "- each replica's peak criterion is automatic (8 × the noise of its smoothed force) unless "
             "--min-peak-drop-pN is given; for runs of very different speeds one --min-peak-drop-pN treats them "
             "alike\n";
  } else {
    std::size_t left = 0;
    for (const RunSpectrum& r : runs) left += r.starts_unfolded;
    if (left) notes += fmt::format("- {} replicas started beyond the threshold and are left out\n", left);
    notes += "- the lifetime of each force is Σt / (number unfolded), the exponential model's maximum-likelihood "
             "estimate with censoring, its standard error lifetime/√(number unfolded)\n";
  }
  for (const RunSpectrum& run : runs)
    if (!run.cut_note.empty()) notes += "- " + run.cut_note + "\n";
  summary += "\nNotes:\n" + off_model_notes + few_spread_notes + notes;

  // --- the plot ----------------------------------------------------------------------------------------
  {
    SvgPlot plot(clamp ? "Lifetime against force" : "Rupture force against loading rate",
                 clamp                 ? "force [pN]"
                 : options.rate_at_peak ? "log10 loading rate at the peak [pN/s]"
                                        : "log10 loading rate κv [pN/s]",
                 clamp ? "log10 lifetime [s]" : "rupture force [pN]");
    plot.markers(points_x.x, points_x.y, Marker::circle, 3.0, marker_style("#999999"),
                 clamp ? "unfolding times" : "replicas' rupture forces");
    plot.line(spread_lines.x, spread_lines.y, style(palette_color(0), 2.0), clamp ? "lifetime ± se" : "mean ± sd");
    plot.markers(observed_x.x, observed_x.y, Marker::square, 7.0, marker_style(palette_color(0)),
                 clamp ? "lifetime (censored MLE)" : "mean");
    if (fit.ok) {
      const auto [lo, hi] = std::minmax_element(observed_x.x.begin(), observed_x.x.end());
      if (lo != observed_x.x.end()) {
        const double pad = clamp ? 0.05 * (*hi - *lo + 10.0) : 0.3;
        Line mean_line, mode_line;
        for (int k = 0; k <= 100; ++k) {
          const double x = *lo - pad + (*hi - *lo + 2 * pad) * k / 100.0;
          mean_line.x.push_back(x);
          if (clamp) {
            mean_line.y.push_back(-std::log10(fit.k0_per_s) - x * fit.x_nm / kT / std::log(10.0));
          } else {
            mean_line.y.push_back(bell_evans_mean_pN(fit, std::pow(10.0, x), kT));
            mode_line.x.push_back(x);
            mode_line.y.push_back(bell_evans_mode_pN(fit, std::pow(10.0, x), kT));
          }
        }
        plot.line(mean_line.x, mean_line.y, style(palette_color(1), 2.0),
                  clamp ? "Bell: τ = 1/(k0·exp(F·x_β/kT))" : "Bell–Evans mean");
        if (cubic.ok) {
          Line dhs_line;
          for (double x : mean_line.x) {
            dhs_line.x.push_back(x);
            dhs_line.y.push_back(clamp ? -std::log10(dhs_rate_per_s(cubic, x, kT))
                                       : dhs_mean_force_pN(cubic, std::pow(10.0, x), kT));
          }
          plot.line(dhs_line.x, dhs_line.y, style(palette_color(2), 2.0, "2,3"),
                    clamp ? "Dudko–Hummer–Szabo (ν = 2/3) lifetime" : "Dudko–Hummer–Szabo (ν = 2/3) mean");
        }
        if (!clamp) plot.line(mode_line.x, mode_line.y, style(palette_color(1), 1.5, "6,4"), "Bell–Evans mode");
      }
      plot.legend_note(fmt::format("x_β = {} ± {} nm", g(fit.x_nm, 3), g(fit.x_se_nm, 2)));
      plot.legend_note(fmt::format("k0 = {} /s", g(fit.k0_per_s, 3)));
    } else {
      plot.legend_note("Bell's rate not fitted: " + fit.why_not);
    }
    const fs::path path = out / (clamp ? "lifetime_force.svg" : "force_loading_rate.svg");
    plot.write(path, options.overwrite);
    result.files.push_back(path);
  }

  if (!result.warnings.empty()) {
    summary += "\nWarnings\n";
    for (const std::string& w : result.warnings) summary += "  " + w + "\n";
  }
  summary += "\nFiles:\n";
  result.files.push_back(out / "summary.txt");
  for (const fs::path& p : result.files) summary += "  " + p.filename().string() + "\n";
  write_text_file(out / "summary.txt", summary, options.overwrite);
  staged.commit(result.files);

  result.brief = fmt::format("dynamic force spectrum of {} {} runs{} at {} K: {}\n", runs.size(),
                             clamp ? "force-clamp" : "pulling",
                             levels.size() < runs.size()
                                 ? fmt::format(" ({} {}, runs pooled)", levels.size(),
                                               levels.size() == 1 ? level_name : levels_name)
                                 : std::string(),
                             g(temperature_K), fit_text);
  return result;
}

}  // namespace ermak::analysis
