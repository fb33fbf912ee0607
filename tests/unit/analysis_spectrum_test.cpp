// `ermak analyze RUN_DIR RUN_DIR …` (analysis/force_spectrum): the dynamic force spectrum of
// synthetic runs whose rupture forces and lifetimes are drawn from Bell's law with known
// x_β and k0 — each run a directory as `ermak run` leaves it (run.log with the loading rate
// and temperature, replica_NNN/pulling.tsv) — found through the whole analysis (peak finder,
// clamp first passage) and fitted back within the fit's standard errors; and the errors for
// mixed, incomplete or mistaken input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <span>
#include <string>
#include <vector>

#include "ermak/analysis/bell_evans.h"
#include "ermak/analysis/force_spectrum.h"
#include "ermak/analysis/report_common.h"
#include "ermak/analysis/run_directory.h"
#include "ermak/analysis/run_pool.h"
#include "ermak/analysis/statistics.h"
#include "ermak/analysis/tsv_table.h"
#include "ermak/analysis/wlc.h"
#include "ermak/core/error.h"
#include "ermak/io/topology_file.h"
#include "support/test_paths.h"
#include "support/test_systems.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;
const double kT = kT_pN_nm(300.0);
constexpr double kSpring_pN_per_nm = 40.0;

void write_run_log(const fs::path& dir, double rate_pN_per_s) {
  std::ofstream log(dir / "run.log");
  log << "[run]\ntemperature_K = 300\n";
  if (rate_pN_per_s > 0) log << "pulling: loading rate κv = " << rate_pN_per_s << " pN/s\n";
}

std::ofstream pulling_table(const fs::path& run, int replica) {
  char name[32];
  std::snprintf(name, sizeof name, "replica_%03d", replica);
  fs::create_directories(run / name);
  std::ofstream t(run / name / "pulling.tsv");
  t << "# step\ttime[ns]\tbase[nm]\tend_to_end[nm]\textension[nm]\tforce[pN]\tforce_along[pN]\n";
  return t;
}

// A ramp: the base travels 10 nm in 1000 rows; the force rises as κ·base until the rupture
// force, then drops to the chain's slack (it rises again only past 8 nm of travel, to
// ≤ 80 pN, below every rupture force drawn here), with 0.3 pN of noise.
void write_ramp_replica(const fs::path& run, int replica, double rate, double rupture, std::mt19937_64& rng,
                        double travel_nm = 10.0) {
  std::normal_distribution<double> noise(0.0, 0.3);
  std::ofstream t = pulling_table(run, replica);
  const double v_nm_per_ns = rate / kSpring_pN_per_nm * 1e-9;
  bool broken = false;
  for (int i = 0; i <= 1000; ++i) {
    const double base = travel_nm * 0.001 * i;
    double f = kSpring_pN_per_nm * base;
    if (f >= rupture) broken = true;
    if (broken) f = kSpring_pN_per_nm * std::max(0.0, base - 8.0);
    const double x = base - f / kSpring_pN_per_nm;
    f += noise(rng);
    t << i * 100 << '\t' << base / v_nm_per_ns << '\t' << base << '\t' << x + 2.0 << '\t' << x << '\t' << std::abs(f)
      << '\t' << f << '\n';
  }
}

double fitted(const std::string& summary, const std::string& what) {
  std::smatch m;
  if (!std::regex_search(summary, m, std::regex(what + " = ([-0-9.e+]+) ± ([0-9.e+-]+)")))
    ADD_FAILURE() << what << " not in the summary:\n" << summary;
  return m.empty() ? NAN : std::stod(m[1]);
}
double fitted_se(const std::string& summary, const std::string& what) {
  std::smatch m;
  std::regex_search(summary, m, std::regex(what + " = [-0-9.e+]+ ± ([0-9.e+-]+)"));
  return m.empty() ? NAN : std::stod(m[1]);
}

// The rupture forces of the spectrum tests: x_β = 0.5 nm, k0 = 0.05 /s.
BellFit ramp_truth() {
  BellFit truth;
  truth.ok = true;
  truth.x_nm = 0.5;
  truth.k0_per_s = 0.05;
  return truth;
}

// A pulling run at `rate` in `run` of `replicas` replicas, their rupture forces drawn from
// `truth`, their ramps `travel_nm` long; the forces drawn go to `drawn`.
void ramp_run(const fs::path& run, double rate, const BellFit& truth, std::mt19937_64& rng, double travel_nm,
              std::vector<double>* drawn, int replicas) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  fs::create_directories(run);
  write_run_log(run, rate);
  for (int r = 0; r < replicas; ++r) {
    const double f = bell_evans_force_at_survival(truth, 1.0 - uniform(rng), rate, kT);
    if (drawn) drawn->push_back(f);
    write_ramp_replica(run, r, rate, f, rng, travel_nm);
  }
}

// Three pulling runs at 10⁴, 10⁵ and 10⁶ pN/s of `replicas` replicas each (ramp_run).
std::vector<fs::path> ramp_runs(const fs::path& root, const BellFit& truth, std::mt19937_64& rng, double travel_nm,
                                std::vector<double>* drawn = nullptr, int replicas = 80) {
  std::vector<fs::path> runs;
  for (double rate : {1e4, 1e5, 1e6}) {
    runs.push_back(root / ("v" + std::to_string(runs.size())));
    ramp_run(runs.back(), rate, truth, rng, travel_nm, drawn, replicas);
  }
  return runs;
}

// Three ramp runs of the truth (10 nm of travel, seed 42) in a fresh `name` directory, and
// the options of their spectrum on the raw rows (no smoothing to round off the sawtooth's
// corners).
SpectrumOptions ramp_spectrum(const std::string& name, const BellFit& truth) {
  const fs::path root = test::fresh_directory(name);
  std::mt19937_64 rng(42);
  SpectrumOptions o;
  o.run_dirs = ramp_runs(root, truth, rng, 10.0);
  o.out_dir = root / "spectrum";
  o.settings.points = 1;
  return o;
}

TEST(ForceSpectrum, RampRunsGiveBackBellEvansParameters) {
  const BellFit truth = ramp_truth();
  SpectrumOptions o = ramp_spectrum("spectrum_ramps", truth);
  const AnalyzeResult r = analyze_force_spectrum(o);
  const std::string summary = test::read_file(o.out_dir / "summary.txt");
  EXPECT_NE(r.brief.find("x_β"), std::string::npos) << r.brief;
  const double x = fitted(summary, "x_β"), se = fitted_se(summary, "x_β");
  EXPECT_NEAR(x, truth.x_nm, 4.0 * se) << summary;
  EXPECT_LT(se, 0.15 * truth.x_nm);
  const double ln_k0 = fitted(summary, "ln k0"), ln_se = fitted_se(summary, "ln k0");
  // The peak finder reads the noisy maximum (≈ +0.5 pN): a bias far below the spread.
  EXPECT_NEAR(ln_k0, std::log(truth.k0_per_s), 4.0 * ln_se) << summary;
  // Every replica has its peak, each run's row in spectrum.tsv, each force in rupture_forces.tsv.
  const auto spectrum = test::read_file(o.out_dir / "spectrum.tsv");
  EXPECT_EQ(std::count(spectrum.begin(), spectrum.end(), '\n'), 4) << spectrum;
  const auto forces = test::read_file(o.out_dir / "rupture_forces.tsv");
  EXPECT_EQ(std::count(forces.begin(), forces.end(), '\n'), 241);
  EXPECT_TRUE(fs::exists(o.out_dir / "force_loading_rate.svg"));
  EXPECT_EQ(summary.find("show no unfolding peak"), std::string::npos) << summary;

  // Nothing is replaced without overwrite; the first peak is the largest here.
  EXPECT_THROW(analyze_force_spectrum(o), Error);
  o.overwrite = true;
  o.peak = SpectrumPeak::first;
  analyze_force_spectrum(o);
  EXPECT_NEAR(fitted(test::read_file(o.out_dir / "summary.txt"), "x_β"), x, 1e-9);

  // Each force at the slope of its own rise: these sawtooths rise at exactly κv, so the
  // rates at the peaks are the nominal ones (to the 0.3 pN noise) and the fit is the same.
  o.rate_at_peak = true;
  analyze_force_spectrum(o);
  const std::string own = test::read_file(o.out_dir / "summary.txt");
  EXPECT_NEAR(fitted(own, "x_β"), x, 0.2 * se) << own;
  EXPECT_NE(own.find("--loading-rate peak): 1 of the nominal κv"), std::string::npos) << own;
  const TsvTable table = TsvTable::read(o.out_dir / "rupture_forces.tsv");
  const auto nominal = table.column("loading_rate[pN/s]"), at_peak = table.column("rate_at_peak[pN/s]");
  ASSERT_EQ(at_peak.size(), 240u);
  for (std::size_t i = 0; i < at_peak.size(); ++i) EXPECT_NEAR(at_peak[i], nominal[i], 0.02 * nominal[i]) << i;
  // The table shows the rate each force enters the fits at: with --loading-rate peak its own
  // rate, not the κv of `loading_rate` — Bell's fit of the table's forces at `fit_rate` is the
  // summary's.
  const auto fit_rate = table.column("fit_rate[pN/s]");
  for (std::size_t i = 0; i < at_peak.size(); ++i) EXPECT_EQ(fit_rate[i], at_peak[i]) << i;
  {
    const auto table_forces = table.column("force[pN]");
    const std::vector<double> f(table_forces.begin(), table_forces.end()), rates(fit_rate.begin(), fit_rate.end());
    const BellFit refit = fit_bell_evans_ramps(f, rates, kT);
    ASSERT_TRUE(refit.ok) << refit.why_not;
    EXPECT_NEAR(fitted(own, "x_β"), refit.x_nm, 1e-3 * refit.x_nm) << own;
  }

  // --bootstrap: a table of the refits and their percentile intervals in the summary; the
  // profile intervals are there without it.
  EXPECT_NE(own.find("x_β = "), std::string::npos);
  EXPECT_NE(own.find(" nm, 95 % interval "), std::string::npos) << own;
  EXPECT_FALSE(fs::exists(o.out_dir / "bootstrap.tsv"));
  o.rate_at_peak = false;
  o.bootstrap_resamples = 12;
  analyze_force_spectrum(o);
  const std::string booted = test::read_file(o.out_dir / "summary.txt");
  {  // At the nominal rates `fit_rate` is the level's κv.
    const TsvTable nominal_table = TsvTable::read(o.out_dir / "rupture_forces.tsv");
    const auto kv = nominal_table.column("loading_rate[pN/s]"), fit = nominal_table.column("fit_rate[pN/s]");
    ASSERT_EQ(fit.size(), 240u);
    for (std::size_t i = 0; i < fit.size(); ++i) EXPECT_EQ(fit[i], kv[i]) << i;
  }
  EXPECT_NE(booted.find("Bootstrap, 12 resamples of each loading rate's forces (seed 1)"), std::string::npos) << booted;
  EXPECT_NE(booted.find("  Bell: x_β "), std::string::npos) << booted;
  const TsvTable boot = TsvTable::read(o.out_dir / "bootstrap.tsv");
  EXPECT_EQ(boot.column("bell_x[nm]").size(), 12u);
  for (double resampled : boot.column("bell_x[nm]")) EXPECT_NEAR(resampled, x, 5.0 * se);
  // Every file of a spectrum is one that each analysis plans (and --force replaces).
  for (const auto& entry : fs::directory_iterator(o.out_dir))
    EXPECT_NE(std::find(analysis_file_names().begin(), analysis_file_names().end(),
                        entry.path().filename().string()),
              analysis_file_names().end())
        << entry.path();
  EXPECT_EQ(booted.find("note: a loading rate has only"), std::string::npos) << booted;
  // Without --bootstrap again, --force removes the earlier bootstrap.tsv (no stale refits
  // beside a new fit); and an existing spectrum is refused before any run is read.
  o.bootstrap_resamples = 0;
  analyze_force_spectrum(o);
  EXPECT_FALSE(fs::exists(o.out_dir / "bootstrap.tsv"));
  o.overwrite = false;
  SpectrumOptions unreadable = o;
  unreadable.run_dirs.push_back(o.out_dir.parent_path() / "no-such-run");
  try {
    analyze_force_spectrum(unreadable);
    ADD_FAILURE() << "an existing spectrum was not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--force"), std::string::npos) << e.what();
  }
  // With overwrite, a spectrum refused for a run it cannot read leaves the earlier one whole.
  const std::string before = test::read_file(o.out_dir / "summary.txt");
  unreadable.overwrite = true;
  EXPECT_THROW(analyze_force_spectrum(unreadable), Error);
  EXPECT_EQ(test::read_file(o.out_dir / "summary.txt"), before);
  EXPECT_TRUE(fs::exists(o.out_dir / "rupture_forces.tsv"));
  EXPECT_FALSE(fs::exists(o.out_dir / ".ermak-analysis-partial"));
  o.overwrite = true;

  // One replica per run: every resample is the data, each interval a point, and the
  // summary says so.
  const fs::path single = test::fresh_directory("spectrum_ramps_single");
  std::mt19937_64 rng(7);
  SpectrumOptions one;
  one.run_dirs = ramp_runs(single, truth, rng, 10.0, nullptr, 1);
  one.out_dir = single / "spectrum";
  one.settings.points = 1;
  one.bootstrap_resamples = 5;
  analyze_force_spectrum(one);
  const std::string pointed = test::read_file(one.out_dir / "summary.txt");
  EXPECT_NE(pointed.find("note: a loading rate has only 1 force: resampled within each loading rate, these intervals "
                         "are too narrow (every resample is the data itself: each interval is a point)"),
            std::string::npos)
      << pointed;
}

// Levels of unequal sizes, one of them a single force (an audit: 4, 1 and 2 forces): the note
// names the levels of few forces and says that the single one is the same in every resample,
// not that every interval is a point, which holds only when every level has one force.
TEST(ForceSpectrum, TheBootstrapNamesTheLevelsOfFewForces) {
  const fs::path root = test::fresh_directory("spectrum_ramps_uneven");
  std::mt19937_64 rng(11);
  SpectrumOptions o;
  const double rates[] = {1e4, 1e5, 1e6};
  const int replicas[] = {4, 1, 2};
  for (int k = 0; k < 3; ++k) {
    o.run_dirs.push_back(root / ("v" + std::to_string(k)));
    ramp_run(o.run_dirs.back(), rates[k], ramp_truth(), rng, 10.0, nullptr, replicas[k]);
  }
  o.out_dir = root / "spectrum";
  o.settings.points = 1;
  o.bootstrap_resamples = 5;
  analyze_force_spectrum(o);
  const std::string summary = test::read_file(o.out_dir / "summary.txt");
  const std::string v0 = o.run_dirs[0].string(), v1 = o.run_dirs[1].string(), v2 = o.run_dirs[2].string();
  EXPECT_NE(summary.find("note: 3 of 3 loading rates have fewer than 5 forces: level 0 (" + v0 +
                         ", κv = 1e+04 pN/s): 4 forces; level 1 (" + v1 + ", κv = 1e+05 pN/s): 1 force; level 2 (" +
                         v2 + ", κv = 1e+06 pN/s): 2 forces; resampled within each loading rate, these intervals are "
                         "too narrow (a handful of values cannot show their spread); level 1 has one force, the same "
                         "in every resample: only the other loading rates' forces vary"),
            std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("each interval is a point"), std::string::npos) << summary;
}

// A run that ended with an error, or stopped before its steps (run.log), enters with the part
// it ran, and the summary and warnings say so (an audit's spectrum took a 5 nN clamp that broke
// a bond, and a run stopped at 4 % of its steps, without a word).
TEST(ForceSpectrum, RunsThatEndedEarlyAreNamed) {
  const BellFit truth = ramp_truth();
  SpectrumOptions o = ramp_spectrum("spectrum_cut_runs", truth);
  {
    std::ofstream log(o.run_dirs[1] / "run.log");
    log << "[run]\ntemperature_K = 300\nsteps = 999999999999\npulling: loading rate κv = 100000 pN/s\n"
        << "[2026-11-29 10:00:00] error: a FENE bond broke between steps 5 and 6: …\n";
    std::ofstream(o.run_dirs[2] / "run.log") << "[run]\ntemperature_K = 300\nsteps = 999999999999\n"
                                             << "pulling: loading rate κv = 1000000 pN/s\n";
  }
  const AnalyzeResult r = analyze_force_spectrum(o);
  const std::string summary = test::read_file(o.out_dir / "summary.txt");
  EXPECT_NE(summary.find("v1: its tables end at step"), std::string::npos) << summary;
  EXPECT_NE(summary.find("the run ended with an error (run.log: \"a FENE bond broke between steps 5 and 6: …\")"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("v2: its tables end at step"), std::string::npos) << summary;
  EXPECT_NE(summary.find("a run stopped early (--resume continues it)"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("v0: its tables end"), std::string::npos) << summary;
  std::size_t named = 0;
  for (const std::string& w : r.warnings) named += w.find("its tables end at step") != std::string::npos;
  EXPECT_EQ(named, 2u);
}

// A run that pulled two beads, each on a spring loading at κv: the table's force is their
// sum, loaded at 2κv, which the spectrum takes as the run's rate (the same fit as a run.log
// stating 2κv for one bead).
TEST(ForceSpectrum, SeveralPulledBeadsLoadTheForceAtTheirSummedRate) {
  SpectrumOptions o = ramp_spectrum("spectrum_two_beads", ramp_truth());
  analyze_force_spectrum(o);
  const std::string one = test::read_file(o.out_dir / "summary.txt");
  std::ofstream(o.run_dirs[0] / "run.log") << "[run]\ntemperature_K = 300\npulling: beads [33, 32] on springs; "
                                              "loading rate κv = 5000 pN/s\n";  // the run's 1e4 pN/s
  o.overwrite = true;
  analyze_force_spectrum(o);
  const std::string two = test::read_file(o.out_dir / "summary.txt");
  EXPECT_EQ(TsvTable::read(o.out_dir / "spectrum.tsv").column("loading_rate[pN/s]").front(), 1e4);
  EXPECT_NEAR(fitted(two, "x_β"), fitted(one, "x_β"), 1e-9) << two;
}

// The part of a summary from Bell's fit to the notes — the fits, the mean forces' line and
// the bootstrap — which names no directory.
std::string fit_section(const std::string& summary) {
  const auto from = summary.find("\nBell's rate"), to = summary.find("\nNotes:");
  if (from == std::string::npos || to == std::string::npos) {
    ADD_FAILURE() << "no fit section in\n" << summary;
    return {};
  }
  return summary.substr(from, to - from);
}

// The replicas of `runs` copied, in order, into one run directory `merged` at `rate`: those of
// the first run, then of the next.
void merge_runs(const std::vector<fs::path>& runs, const fs::path& merged, double rate) {
  fs::create_directories(merged);
  write_run_log(merged, rate);
  int next = 0;
  for (const fs::path& run : runs)
    for (const Replica& r : discover_replicas(run)) {
      char name[32];
      std::snprintf(name, sizeof name, "replica_%03d", next++);
      fs::create_directories(merged / name);
      fs::copy_file(r.dir / "pulling.tsv", merged / name / "pulling.tsv");
    }
}

std::vector<double> values(std::span<const double> column) { return {column.begin(), column.end()}; }

// A batch of replicas at one pulling speed split over two run directories (two GPUs, or a
// batch resumed with another seed) is one loading rate of the spectrum: one row whose
// statistics are over both runs' replicas, one level of the mean forces' line, one group of
// the bootstrap — the spectrum of one directory holding them all.
TEST(ForceSpectrum, RunsAtOneLoadingRateArePooled) {
  const BellFit truth = ramp_truth();
  const fs::path root = test::fresh_directory("spectrum_pooled");
  std::mt19937_64 rng(17);
  // a and b at 10⁵ pN/s, given apart; c and d at 10⁶ and 10⁴.
  const fs::path a = root / "a", b = root / "b", c = root / "c", d = root / "d";
  std::vector<double> drawn;
  ramp_run(a, 1e5, truth, rng, 10.0, &drawn, 30);
  ramp_run(c, 1e6, truth, rng, 10.0, nullptr, 30);
  ramp_run(b, 1e5, truth, rng, 10.0, &drawn, 50);
  ramp_run(d, 1e4, truth, rng, 10.0, nullptr, 30);
  SpectrumOptions o;
  o.run_dirs = {a, c, b, d};
  o.out_dir = root / "pooled";
  o.settings.points = 1;
  o.bootstrap_resamples = 3;
  analyze_force_spectrum(o);
  const std::string summary = test::read_file(o.out_dir / "summary.txt");

  // One row per rate, in the order of each rate's first run; 10⁵ holds a's and b's 80 replicas.
  const TsvTable spectrum = TsvTable::read(o.out_dir / "spectrum.tsv");
  ASSERT_EQ(spectrum.rows(), 3u) << summary;
  EXPECT_EQ(values(spectrum.column("loading_rate[pN/s]")), (std::vector<double>{1e5, 1e6, 1e4}));
  EXPECT_EQ(values(spectrum.column("replicas")), (std::vector<double>{80, 30, 30}));
  EXPECT_EQ(values(spectrum.column("with_peak")), (std::vector<double>{80, 30, 30}));
  EXPECT_EQ(values(spectrum.column("runs")), (std::vector<double>{2, 1, 1}));
  // Its statistics are those of a's and b's rupture forces together (runs 0 and 2 of the
  // per-force table, which names each force's run and level).
  const TsvTable forces = TsvTable::read(o.out_dir / "rupture_forces.tsv");
  ASSERT_EQ(forces.rows(), 140u);
  std::vector<double> pooled;
  for (std::size_t i = 0; i < forces.rows(); ++i) {
    const double run = forces.column("run")[i], level = forces.column("level")[i];
    EXPECT_EQ(level, run == 0 || run == 2 ? 0.0 : run == 1 ? 1.0 : 2.0) << i;
    if (level == 0) pooled.push_back(forces.column("force[pN]")[i]);
  }
  ASSERT_EQ(pooled.size(), 80u);
  const SampleStatistics expected = describe(pooled);
  EXPECT_NEAR(spectrum.column("force_mean[pN]")[0], expected.mean, 1e-6 * expected.mean);
  EXPECT_NEAR(spectrum.column("force_sd[pN]")[0], expected.sd, 1e-6 * expected.sd);
  EXPECT_NEAR(spectrum.column("force_sem[pN]")[0], expected.sem, 1e-6 * expected.sem);
  EXPECT_NEAR(spectrum.column("force_median[pN]")[0], expected.median, 1e-6 * expected.median);
  // …which are the forces drawn, read at the noisy maximum (≈ +0.5 pN).
  EXPECT_NEAR(expected.mean, describe(drawn).mean, 1.0);
  // The summary names the runs pooled; the mean forces' line has three rates, not four.
  EXPECT_NE(summary.find("runs: 4 (constant-velocity pulling at 3 loading rates)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("κv = 100000 pN/s: runs " + a.string() + ", " + b.string() + " (80 replicas)\n"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("least squares against ln κv, 3 rates"), std::string::npos) << summary;

  // The fits, the line and the bootstrap (each rate's forces resampled together) are those of
  // one directory holding a's replicas and then b's, to the last digit.
  merge_runs({a, b}, root / "ab", 1e5);
  SpectrumOptions one = o;
  one.run_dirs = {root / "ab", c, d};
  one.out_dir = root / "merged";
  analyze_force_spectrum(one);
  const std::string merged = test::read_file(one.out_dir / "summary.txt");
  EXPECT_EQ(fitted(summary, "x_β"), fitted(merged, "x_β"));
  EXPECT_EQ(fit_section(summary), fit_section(merged));
  const TsvTable merged_spectrum = TsvTable::read(one.out_dir / "spectrum.tsv");
  for (const std::string& column : spectrum.columns())
    if (column != "runs")
      for (std::size_t i = 0; i < spectrum.rows(); ++i) {
        const double x = spectrum.column(column)[i], y = merged_spectrum.column(column)[i];
        EXPECT_TRUE(x == y || (std::isnan(x) && std::isnan(y))) << column << " row " << i << ": " << x << " " << y;
      }
  EXPECT_EQ(TsvTable::read(o.out_dir / "bootstrap.tsv").column("bell_x[nm]")[2],
            TsvTable::read(one.out_dir / "bootstrap.tsv").column("bell_x[nm]")[2]);
}

// A rate whose replicas show no peak (the ramp ends at 20 pN, below every rupture) is a row
// of the table but no level of the fit: the reason says so, not "1 loading rate".
TEST(ForceSpectrum, ARateWithoutPeaksIsNamedInTheReason) {
  const fs::path root = test::fresh_directory("spectrum_rate_without_peaks");
  std::mt19937_64 rng(5);
  const BellFit truth = ramp_truth();
  ramp_run(root / "ruptures", 1e5, truth, rng, 10.0, nullptr, 20);
  ramp_run(root / "short", 1e6, truth, rng, 0.5, nullptr, 20);
  SpectrumOptions o;
  o.run_dirs = {root / "ruptures", root / "short"};
  o.out_dir = root / "spectrum";
  o.settings.points = 1;
  analyze_force_spectrum(o);
  const std::string summary = test::read_file(o.out_dir / "summary.txt");
  EXPECT_NE(summary.find("needs runs at 2 or more loading rates κv with a rupture force (these runs have 2 loading "
                         "rates, 1 with one: no replica shows an unfolding peak at the other)"),
            std::string::npos)
      << summary;
}

// Runs whose run.logs state models of other sizes are named (a spectrum is of one protein);
// runs of one model are not.
TEST(ForceSpectrum, RunsOfAnotherModelAreNamed) {
  const fs::path root = test::fresh_directory("spectrum_other_model");
  std::mt19937_64 rng(6);
  const std::vector<fs::path> runs = ramp_runs(root, ramp_truth(), rng, 10.0, nullptr, 10);
  const std::string model_line[] = {"34 beads, 33 bonds, 75 native contacts", "34 beads, 33 bonds, 75 native contacts",
                                    "34 beads, 33 bonds, 61 native contacts"};
  for (std::size_t k = 0; k < runs.size(); ++k)
    std::ofstream(runs[k] / "run.log", std::ios::app)
        << "[2026-11-30 01:00:00] model: " << model_line[k] << ", 10 replicas\n";
  EXPECT_EQ(read_run_log(runs[2]).model_size, model_line[2]);
  SpectrumOptions o;
  o.run_dirs = runs;
  o.out_dir = root / "spectrum";
  o.settings.points = 1;
  AnalyzeResult r = analyze_force_spectrum(o);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], runs[2].string() + ": its model (34 beads, 33 bonds, 61 native contacts) is not that of " +
                               runs[0].string() + " (34 beads, 33 bonds, 75 native contacts): a spectrum fits the "
                               "runs of one protein as one");
  const std::string summary = test::read_file(o.out_dir / "summary.txt");
  EXPECT_NE(summary.find("\nWarnings\n  " + r.warnings[0] + "\n"), std::string::npos) << summary;
  o.overwrite = true;
  // The first run's log states no model: the others are compared with the first that does.
  {
    std::ifstream in(runs[0] / "run.log");
    std::string kept;
    for (std::string line; std::getline(in, line);)
      if (line.find("] model: ") == std::string::npos) kept += line + "\n";
    in.close();
    std::ofstream(runs[0] / "run.log") << kept;
  }
  r = analyze_force_spectrum(o);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].rfind(runs[2].string() + ": its model (34 beads, 33 bonds, 61 native contacts) is not that of " +
                                    runs[1].string(),
                                0),
            0u)
      << r.warnings[0];
  o.run_dirs.pop_back();
  EXPECT_TRUE(analyze_force_spectrum(o).warnings.empty());
}

// Two runs of one batch, and nothing else: no spectrum (one loading rate), but their pooled
// row; a rate 10⁻⁵ off is another rate. `ermak analyze` pools runs of one condition into one
// analysis instead (run_pool.h, analysis_run_pool_test.cpp); these logs echo no resolved
// configuration, which tells the condition, so the command still gives them this spectrum.
TEST(ForceSpectrum, RunsAtOnlyOneLoadingRateGiveTheirPooledRow) {
  const BellFit truth = ramp_truth();
  const fs::path root = test::fresh_directory("spectrum_one_rate");
  std::mt19937_64 rng(23);
  const fs::path a = root / "a", b = root / "b";
  ramp_run(a, 1e5, truth, rng, 10.0, nullptr, 20);
  ramp_run(b, 1e5, truth, rng, 10.0, nullptr, 30);
  // Equal within 10⁻⁶ (5·10⁻⁷): one rate, the first run's.
  std::ofstream(b / "run.log") << "[run]\ntemperature_K = 300\npulling: loading rate κv = 100000.05 pN/s\n";
  EXPECT_FALSE(judge_runs_for_pooling({a, b}).pooled);
  SpectrumOptions o;
  o.run_dirs = {a, b};
  o.out_dir = root / "s";
  o.settings.points = 1;
  const AnalyzeResult r = analyze_force_spectrum(o);
  EXPECT_NE(r.brief.find("of 2 pulling runs (1 loading rate, runs pooled) at 300 K: Bell's rate not fitted: needs "
                         "runs at 2 or more loading rates κv (these runs have 1)"),
            std::string::npos)
      << r.brief;
  const std::string summary = test::read_file(o.out_dir / "summary.txt");
  EXPECT_NE(summary.find("(every run is at one loading rate: the table above gives their 50 replicas pooled)"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("runs: 2 (constant-velocity pulling at 1 loading rate)"), std::string::npos) << summary;
  const TsvTable spectrum = TsvTable::read(o.out_dir / "spectrum.tsv");
  ASSERT_EQ(spectrum.rows(), 1u);
  EXPECT_EQ(spectrum.column("loading_rate[pN/s]")[0], 1e5);
  EXPECT_EQ(spectrum.column("replicas")[0], 50.0);
  EXPECT_EQ(spectrum.column("runs")[0], 2.0);
  EXPECT_TRUE(std::isnan(spectrum.column("model_mean[pN]")[0]));
  const TsvTable forces = TsvTable::read(o.out_dir / "rupture_forces.tsv");
  const auto force = forces.column("force[pN]");
  ASSERT_EQ(force.size(), 50u);
  EXPECT_NEAR(spectrum.column("force_mean[pN]")[0], describe(values(force)).mean, 1e-6 * 150.0);
  for (double rate : forces.column("loading_rate[pN/s]")) EXPECT_EQ(rate, 1e5);
  EXPECT_EQ(values(forces.column("run")), [] {
    std::vector<double> runs(20, 0.0);
    runs.resize(50, 1.0);
    return runs;
  }());

  std::ofstream(b / "run.log") << "[run]\ntemperature_K = 300\npulling: loading rate κv = 100001 pN/s\n";
  o.overwrite = true;
  analyze_force_spectrum(o);
  EXPECT_EQ(TsvTable::read(o.out_dir / "spectrum.tsv").rows(), 2u);
}

// Ramps that end at 120 pN (3 nm of travel), before the stronger replicas rupture: with
// --no-peak censored those enter through their survival and the fit finds the truth.
TEST(ForceSpectrum, RampsEndingBeforeEveryRuptureAreCensored) {
  const BellFit truth = ramp_truth();
  const fs::path root = test::fresh_directory("spectrum_censored");
  std::mt19937_64 rng(8);
  SpectrumOptions o;
  std::vector<double> drawn;
  o.run_dirs = ramp_runs(root, truth, rng, 3.0, &drawn);
  ASSERT_GT(std::count_if(drawn.begin(), drawn.end(), [](double f) { return f > 118.0; }), 30)
      << "most of the fastest ramp's forces lie beyond its end";
  o.out_dir = root / "spectrum";
  o.settings.points = 1;
  o.censor_without_peak = true;
  analyze_force_spectrum(o);
  const std::string summary = test::read_file(o.out_dir / "summary.txt");
  const double x = fitted(summary, "x_β"), se = fitted_se(summary, "x_β");
  EXPECT_NEAR(x, truth.x_nm, 4.0 * se) << summary;
  EXPECT_NEAR(fitted(summary, "ln k0"), std::log(truth.k0_per_s), 4.0 * fitted_se(summary, "ln k0")) << summary;
  EXPECT_NE(summary.find("enter the fits as censored at the largest force they reached"), std::string::npos)
      << summary;
  const TsvTable table = TsvTable::read(o.out_dir / "rupture_forces.tsv");
  const auto ruptured = table.column("ruptured");
  EXPECT_EQ(table.rows(), 240u);
  const auto censored = std::count(ruptured.begin(), ruptured.end(), 0.0);
  EXPECT_GT(censored, 30);
  // The censored replicas are counted as such, not as rupture forces (as a clamp's are).
  EXPECT_NE(summary.find("maximum likelihood over " + std::to_string(240 - censored) + " rupture forces and " +
                         std::to_string(censored) + " censored:"),
            std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("maximum likelihood over 240 rupture forces"), std::string::npos) << summary;
  // Not with per-peak rates, nor for clamps.
  o.rate_at_peak = true;
  o.overwrite = true;
  EXPECT_THROW(analyze_force_spectrum(o), Error);
}

// A level with replicas censored at the end of its ramps shows only the ruptures below that
// force: compared with Bell's untruncated mean it lies many sem low on exact Bell data (an
// audit's −5.7 sem), so it is compared with Bell's mean of the ruptures below the force its
// censored replicas reached, and no note calls it "not Bell".
TEST(ForceSpectrum, ACensoredLevelIsComparedWithBellsTruncatedMean) {
  const BellFit truth = ramp_truth();
  const fs::path root = test::fresh_directory("spectrum_censored_mean");
  std::mt19937_64 rng(8);
  SpectrumOptions o;
  o.run_dirs = ramp_runs(root, truth, rng, 3.0);
  o.out_dir = root / "spectrum";
  o.settings.points = 1;
  o.censor_without_peak = true;
  analyze_force_spectrum(o);
  const std::string summary = test::read_file(o.out_dir / "summary.txt");
  // The fastest level: most of its replicas censored near 120 pN; its ruptures' mean lies far
  // below Bell's untruncated mean (the old comparison's note would name it).
  const TsvTable table = TsvTable::read(o.out_dir / "rupture_forces.tsv");
  const auto force = table.column("force[pN]"), rate = table.column("loading_rate[pN/s]"),
             ruptured = table.column("ruptured");
  std::vector<double> fast;
  for (std::size_t i = 0; i < force.size(); ++i)
    if (rate[i] > 5e5 && ruptured[i] == 1.0) fast.push_back(force[i]);
  const SampleStatistics d = describe(fast);
  ASSERT_GT(d.n, 5u);
  EXPECT_GT(bell_evans_mean_pN(truth, 1e6, kT) - d.mean, 3.0 * d.sem) << "the untruncated mean would misjudge it";
  EXPECT_EQ(summary.find("does not describe this rate"), std::string::npos) << summary;
}

// A clamp: extension 1 nm until the unfolding time, then 10 nm; 500 rows over the run.
void write_clamp_replica(const fs::path& run, int replica, double force, double unfold_s, double run_s,
                         std::mt19937_64& rng) {
  std::normal_distribution<double> noise(0.0, 0.05);
  std::ofstream t = pulling_table(run, replica);
  for (int i = 0; i <= 500; ++i) {
    const double time_s = run_s * i / 500.0;
    const double x = (time_s >= unfold_s ? 10.0 : 1.0) + noise(rng);
    t << i * 1000 << '\t' << time_s * 1e9 << '\t' << 0.0 << '\t' << x + 2.0 << '\t' << x << '\t' << force << '\t'
      << force << '\n';
  }
}

TEST(ForceSpectrum, ClampRunsGiveBackBellsLawWithCensoredTrajectories) {
  const double x_true = 0.6, k125 = 2e4;  // τ(125 pN) = 50 µs
  const double k0 = k125 * std::exp(-125.0 * x_true / kT);
  const std::vector<double> forces = {105.0, 115.0, 125.0};
  const double run_s = 1.5e-3;
  const fs::path root = test::fresh_directory("spectrum_clamps");
  std::mt19937_64 rng(5);
  SpectrumOptions o;
  int censored = 0;
  for (std::size_t k = 0; k < forces.size(); ++k) {
    const fs::path run = root / ("f" + std::to_string(k));
    fs::create_directories(run);
    write_run_log(run, 0.0);  // a clamp states no loading rate
    std::exponential_distribution<double> lifetime(k0 * std::exp(forces[k] * x_true / kT));
    for (int r = 0; r < 80; ++r) {
      const double t = lifetime(rng);
      censored += t > run_s;
      write_clamp_replica(run, r, forces[k], t, run_s, rng);
    }
    o.run_dirs.push_back(run);
  }
  ASSERT_GT(censored, 5);
  o.out_dir = root / "spectrum";
  // Without the threshold a clamp spectrum is refused, naming the option.
  try {
    analyze_force_spectrum(o);
    ADD_FAILURE() << "no error without --unfolded-extension-nm";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--unfolded-extension-nm"), std::string::npos) << e.what();
  }
  o.unfolded_extension_nm = 5.0;
  analyze_force_spectrum(o);
  const std::string summary = test::read_file(o.out_dir / "summary.txt");
  const double x = fitted(summary, "x_β"), se = fitted_se(summary, "x_β");
  EXPECT_NEAR(x, x_true, 4.0 * se) << summary;
  EXPECT_LT(se, 0.15 * x_true);
  EXPECT_NEAR(fitted(summary, "ln k0"), std::log(k0), 4.0 * fitted_se(summary, "ln k0")) << summary;
  EXPECT_NE(summary.find(std::to_string(240 - censored) + " unfolded, the rest censored"), std::string::npos)
      << summary;
  const auto lifetimes = test::read_file(o.out_dir / "lifetimes.tsv");
  EXPECT_EQ(std::count(lifetimes.begin(), lifetimes.end(), '\n'), 241);
  EXPECT_TRUE(fs::exists(o.out_dir / "lifetime_force.svg"));
}

// A force clamp's run.log line (run/protocol_log_lines.cpp), with the force on each of the
// pulled beads.
void write_clamp_log(const fs::path& run, const std::string& beads, const std::string& each) {
  std::ofstream(run / "run.log") << "[run]\ntemperature_K = 300\n[2026-12-01 10:00:00] force clamp: beads [" << beads
                                 << "], each pulled with " << each
                                 << ", along (1, 0, 0); ends 0 33; output every 1000 steps (pulling.tsv)\n";
}

// Clamps at one force are pooled as ramps at one rate are: by the force their run.log
// states, else by measured forces within 1 %.
TEST(ForceSpectrum, ClampRunsAtOneForceArePooled) {
  const double x_true = 0.6, k125 = 2e4;
  const double k0 = k125 * std::exp(-125.0 * x_true / kT);
  const double run_s = 1.5e-3;
  const fs::path root = test::fresh_directory("spectrum_clamps_pooled");
  std::mt19937_64 rng(9);
  // A 105 pN clamp in two runs, the second stating it per bead of two and its rows reading
  // 105.2 pN; a 106 pN clamp, within 1 % of it but another force by its run.log; 125 pN.
  // "g": clamps whose run.log states no force, 115 and 115.5 pN.
  struct Setting {
    std::string name, beads, each;
    double force_pN;
  };
  const std::vector<Setting> settings = {{"f105a", "33", "105 pN", 105.0}, {"f106", "33", "106 pN", 106.0},
                                         {"f105b", "33, 32", "52.5 pN", 105.2}, {"f125", "33", "125 pN", 125.0},
                                         {"g115a", "", "", 115.0},         {"g115b", "", "", 115.5}};
  std::map<std::string, fs::path> dir;
  for (const Setting& s : settings) {
    dir[s.name] = root / s.name;
    fs::create_directories(dir[s.name]);
    if (s.beads.empty()) write_run_log(dir[s.name], 0.0);
    else write_clamp_log(dir[s.name], s.beads, s.each);
    std::exponential_distribution<double> lifetime(k0 * std::exp(s.force_pN * x_true / kT));
    for (int r = 0; r < 40; ++r) write_clamp_replica(dir[s.name], r, s.force_pN, lifetime(rng), run_s, rng);
  }
  EXPECT_EQ(read_run_log(dir["f105b"]).clamp_force_pN, 105.0);
  EXPECT_FALSE(read_run_log(dir["g115a"]).clamp_force_pN);

  SpectrumOptions o;
  o.run_dirs = {dir["f105a"], dir["f106"], dir["f105b"], dir["f125"]};
  o.out_dir = root / "s";
  o.unfolded_extension_nm = 5.0;
  analyze_force_spectrum(o);
  const std::string summary = test::read_file(o.out_dir / "summary.txt");
  const TsvTable spectrum = TsvTable::read(o.out_dir / "spectrum.tsv");
  ASSERT_EQ(spectrum.rows(), 3u) << summary;
  EXPECT_EQ(values(spectrum.column("replicas")), (std::vector<double>{80, 40, 40}));
  EXPECT_EQ(values(spectrum.column("runs")), (std::vector<double>{2, 1, 1}));
  // The level's force is the mean over its 80 replicas; its lifetime Σt / unfolded over them.
  const double pooled_force = (40 * 105.0 + 40 * 105.2) / 80;
  EXPECT_NEAR(spectrum.column("force[pN]")[0], pooled_force, 1e-6);
  EXPECT_NEAR(spectrum.column("force[pN]")[1], 106.0, 1e-6);
  const TsvTable lifetimes = TsvTable::read(o.out_dir / "lifetimes.tsv");
  ASSERT_EQ(lifetimes.rows(), 160u);
  double sum_t = 0.0, unfolded = 0.0;
  for (std::size_t i = 0; i < lifetimes.rows(); ++i) {
    const double run = lifetimes.column("run")[i];
    if (run != 0 && run != 2) continue;
    EXPECT_EQ(lifetimes.column("level")[i], 0.0);
    EXPECT_EQ(lifetimes.column("force[pN]")[i], spectrum.column("force[pN]")[0]) << "fitted at the level's force";
    sum_t += lifetimes.column("time[s]")[i];
    unfolded += lifetimes.column("unfolded")[i];
  }
  ASSERT_GT(unfolded, 0.0);
  EXPECT_NEAR(spectrum.column("lifetime[s]")[0], sum_t / unfolded, 1e-6 * sum_t / unfolded);
  EXPECT_EQ(spectrum.column("unfolded")[0], unfolded);
  EXPECT_NE(summary.find("F = 105.1 pN: runs " + dir["f105a"].string() + ", " + dir["f105b"].string() +
                         " (80 replicas); the clamp force their run.logs state\n"),
            std::string::npos)
      << summary;
  const double x = fitted(summary, "x_β");
  EXPECT_NEAR(x, x_true, 4.0 * fitted_se(summary, "x_β")) << summary;

  // Without a force in run.log: measured forces within 1 % pooled, and the summary says so.
  o.run_dirs = {dir["g115a"], dir["g115b"], dir["f125"]};
  o.overwrite = true;
  analyze_force_spectrum(o);
  const std::string measured = test::read_file(o.out_dir / "summary.txt");
  EXPECT_EQ(TsvTable::read(o.out_dir / "spectrum.tsv").rows(), 2u) << measured;
  EXPECT_NE(measured.find("F = 115.25 pN: runs " + dir["g115a"].string() + ", " + dir["g115b"].string() +
                          " (80 replicas); the run.logs of " + dir["g115a"].string() + ", " +
                          dir["g115b"].string() + " state no clamp force: the runs' measured forces agree within 1 %\n"),
            std::string::npos)
      << measured;
  // One run.log of two without the force (a log cut, or from elsewhere): that one is named.
  const fs::path unstated = dir["f105b"].parent_path() / "f105_unstated";
  fs::remove_all(unstated);
  fs::copy(dir["f105b"], unstated, fs::copy_options::recursive);
  {
    std::string log = test::read_file(unstated / "run.log"), kept;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);)
      if (line.find("force clamp: beads") == std::string::npos) kept += line + "\n";
    std::ofstream(unstated / "run.log") << kept;
  }
  o.run_dirs = {dir["f105a"], unstated, dir["f125"]};
  analyze_force_spectrum(o);
  const std::string one_unstated = test::read_file(o.out_dir / "summary.txt");
  EXPECT_NE(one_unstated.find("; the run.log of " + unstated.string() +
                              " states no clamp force: the runs' measured forces agree within 1 %\n"),
            std::string::npos)
      << one_unstated;
}

TEST(ForceSpectrum, MistakenInputIsNamed) {
  const fs::path root = test::fresh_directory("spectrum_errors");
  std::mt19937_64 rng(1);
  const fs::path ramp = root / "ramp", clamp = root / "clamp", no_log = root / "no_log";
  for (const fs::path& d : {ramp, clamp, no_log}) fs::create_directories(d);
  write_run_log(ramp, 1e5);
  write_ramp_replica(ramp, 0, 1e5, 150.0, rng);
  write_run_log(clamp, 0.0);
  write_clamp_replica(clamp, 0, 120.0, 1e-4, 1e-3, rng);
  write_ramp_replica(no_log, 0, 1e6, 170.0, rng);
  std::string out;
  EXPECT_EQ(test::run_ermak_in(root, "analyze clamp ramp -o s --unfolded-extension-nm 5", &out), 1);
  EXPECT_NE(out.find("a spectrum takes runs of one kind"), std::string::npos) << out;
  // The pulling run first and no threshold: the two kinds are named, not the clamp's missing
  // threshold — which, given, the pulling run refuses (a user went round in that loop).
  EXPECT_EQ(test::run_ermak_in(root, "analyze ramp clamp -o s", &out), 1);
  EXPECT_NE(out.find("a force-clamp run, but ramp is a constant-velocity run: a spectrum takes runs of one kind"),
            std::string::npos)
      << out;
  // The clamp run first and no threshold: with run.logs that say their protocols the kinds are
  // named before any option (an audit was told to give the threshold, then that the pulling
  // run refuses it); a refused analysis leaves no empty output directory behind.
  {
    const fs::path logged_clamp = root / "logged_clamp", logged_ramp = root / "logged_ramp";
    fs::copy(clamp, logged_clamp, fs::copy_options::recursive);
    fs::copy(ramp, logged_ramp, fs::copy_options::recursive);
    std::ofstream(logged_clamp / "run.log", std::ios::app) << "[force_clamp]\npulled_beads = [33]\n";
    std::ofstream(logged_ramp / "run.log", std::ios::app) << "[pulling]\npulled_beads = [33]\n";
    EXPECT_EQ(test::run_ermak_in(root, "analyze logged_clamp logged_ramp -o refused/spectrum", &out), 1);
    EXPECT_NE(out.find("logged_ramp: a constant-velocity run, but logged_clamp is a force-clamp run (their run.logs): "
                       "a spectrum takes runs of one kind"),
              std::string::npos)
        << out;
    EXPECT_FALSE(fs::exists(root / "refused")) << "an empty output directory left behind";
    // A plane-pulling run among them is named as one.
    const fs::path plane = root / "plane";
    fs::create_directories(plane / "replica_000");
    std::ofstream(plane / "run.log") << "[run]\ntemperature_K = 300\n[plane_pulling]\n";
    std::ofstream(plane / "replica_000" / "plane.tsv") << "# step\ttime[ns]\n0\t0\n";
    EXPECT_EQ(test::run_ermak_in(root, "analyze ramp plane -o s2", &out), 1);
    EXPECT_NE(out.find("plane: a plane-pulling run ([plane_pulling] in its run.log): runs analysed together"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("analyse it on its own: ermak analyze plane"), std::string::npos) << out;
  }
  EXPECT_EQ(test::run_ermak_in(root, "analyze ramp no_log -o s", &out), 1);
  EXPECT_NE(out.find("no_log/run.log: not found"), std::string::npos) << out;
  EXPECT_EQ(test::run_ermak_in(root, "analyze ramp no_log", &out), 1);
  EXPECT_NE(out.find("name the directory for the spectrum"), std::string::npos) << out;
  EXPECT_EQ(test::run_ermak_in(root, "analyze ramp --spectrum-peak first", &out), 1);
  EXPECT_NE(out.find("applies to the spectrum of several run directories"), std::string::npos) << out;
  EXPECT_EQ(test::run_ermak_in(root, "analyze ramp --bootstrap 10", &out), 1);
  EXPECT_NE(out.find("--bootstrap: applies to the spectrum of several run directories"), std::string::npos) << out;
  EXPECT_EQ(test::run_ermak_in(root, "analyze ramp ramp -o s --linear-fraction 0.5 --contact-force-pN 3", &out), 1);
  EXPECT_NE(out.find("--contact-force-pN: applies to the analysis of one run directory"), std::string::npos) << out;
  EXPECT_EQ(test::run_ermak_in(root, "analyze ramp no_log -o s --plane-group 1", &out), 1);
  EXPECT_NE(out.find("--plane-group: applies to the analysis of one run directory"), std::string::npos) << out;
  // A run given twice would enter the fit twice.
  EXPECT_EQ(test::run_ermak_in(root, "analyze ramp ./ramp/ -o s", &out), 1);
  EXPECT_NE(out.find("given twice (also as ramp)"), std::string::npos) << out;
  // Options of the other kind of run are refused, not ignored.
  const fs::path ramp2 = root / "ramp2";
  fs::create_directories(ramp2);
  write_run_log(ramp2, 1e5);
  write_ramp_replica(ramp2, 0, 1e5, 150.0, rng);
  EXPECT_EQ(test::run_ermak_in(root, "analyze ramp ramp2 -o s --unfolded-extension-nm 5", &out), 1);
  EXPECT_NE(out.find("--unfolded-extension-nm: applies to force-clamp runs"), std::string::npos) << out;
  // One rate twice is no spectrum: written, with the reason instead of a fit.
  EXPECT_EQ(test::run_ermak_in(root, "analyze ramp ramp2 -o s", &out), 0) << out;
  EXPECT_NE(out.find("Bell's rate not fitted: needs runs at 2 or more loading rates κv (these runs have 1)"),
            std::string::npos)
      << out;
  // Each force at its own rate does not make two runs at one κv a spectrum.
  EXPECT_EQ(test::run_ermak_in(root, "analyze ramp ramp2 -o s --force --loading-rate peak", &out), 0) << out;
  EXPECT_NE(out.find("needs runs at 2 or more loading rates κv (these runs have 1)"), std::string::npos) << out;
  // The curve options are checked here as for one run.
  EXPECT_EQ(test::run_ermak_in(root, "analyze ramp ramp2 -o s --force --min-peak-drop-pN -3", &out), 1) << out;
  EXPECT_NE(out.find("--min-peak-drop-pN: must be > 0 and finite"), std::string::npos) << out;
  // A run without its run.log says so.
  fs::remove(ramp2 / "run.log");
  EXPECT_EQ(test::run_ermak_in(root, "analyze ramp ramp2 -o s --force", &out), 1);
  EXPECT_NE(out.find("ramp2/run.log: not found"), std::string::npos) << out;
}

// A force schedule holds the base still too, but is no clamp at one force: refused. Clamp
// times far less spread than exponential lifetimes (a lag, a chain dragged open) are fitted
// with a note saying what they are.
TEST(ForceSpectrum, SchedulesAreRefusedAndLagTimesAreNoted) {
  const fs::path root = test::fresh_directory("spectrum_schedules");
  std::mt19937_64 rng(2);
  SpectrumOptions o;
  o.unfolded_extension_nm = 5.0;
  o.out_dir = root / "s";
  for (int k = 0; k < 2; ++k) {
    const fs::path run = root / ("f" + std::to_string(k));
    fs::create_directories(run);
    write_run_log(run, 0.0);
    for (int r = 0; r < 6; ++r) write_clamp_replica(run, r, 140.0 + 10 * k, (10 + r % 2) * 1e-6, 1e-4, rng);
    o.run_dirs.push_back(run);
  }
  analyze_force_spectrum(o);
  const std::string summary = test::read_file(o.out_dir / "summary.txt");
  EXPECT_NE(summary.find("vary far less than exponential lifetimes do (CV 0.0"), std::string::npos) << summary;
  const fs::path ramped = root / "ramped";
  fs::create_directories(ramped);
  write_run_log(ramped, 0.0);
  {
    std::ofstream t = pulling_table(ramped, 0);
    for (int i = 0; i <= 100; ++i)
      t << i * 100 << '\t' << i * 2.0 << '\t' << 0.0 << '\t' << 3.0 << '\t' << 1.0 << '\t' << 3.0 * i << '\t'
        << 3.0 * i << '\n';
  }
  o.run_dirs.push_back(ramped);
  o.overwrite = true;
  try {
    analyze_force_spectrum(o);
    ADD_FAILURE() << "a force schedule was fitted as a clamp";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("force_along[pN]: the clamp force runs from 0 to 300 pN: a force schedule"),
              std::string::npos)
        << e.what();
  }
}

// A heating run is no level of a spectrum: one without a force protocol has its melting
// curve, analysed on its own, and is named as such (an audit's error called it a run "at one
// temperature (no [heating] in its run.log)"); a pulling or clamp run that heats measures its
// forces or lifetimes over a changing temperature, and is refused as a force schedule is.
TEST(ForceSpectrum, HeatingRunsAreRefusedWithTheirReason) {
  const fs::path root = test::fresh_directory("spectrum_heating");
  std::mt19937_64 rng(3);
  const std::string heating = "[run]\n# temperature: the [heating] start\n[heating]\nstart_K = 300.0\nstop_K = "
                              "500.0\nevery_steps = 1000\n";
  const fs::path melt = root / "melt", ramp = root / "ramp";
  fs::create_directories(melt / "replica_000");
  std::ofstream(melt / "run.log") << heating;
  std::ofstream(melt / "replica_000" / "energies.tsv") << "# step\ttime[ns]\tQ\n0\t0\t1\n1000\t19.84\t0.9\n";
  fs::create_directories(ramp);
  write_run_log(ramp, 1e5);
  write_ramp_replica(ramp, 0, 1e5, 150.0, rng);
  auto refusal = [&](const std::vector<fs::path>& runs, bool clamps) {
    SpectrumOptions o;
    o.run_dirs = runs;
    o.out_dir = root / "s";
    if (clamps) o.unfolded_extension_nm = 5.0;
    try {
      analyze_force_spectrum(o);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("not refused");
  };
  const std::string melt_reason = "a heating run without a force protocol ([heating] in its run.log): a dynamic force "
                                  "spectrum takes constant-velocity pulling or force-clamp runs; a heating run's "
                                  "melting curve is analysed on its own: ermak analyze " + melt.string();
  for (const auto& runs : {std::vector<fs::path>{melt, ramp}, std::vector<fs::path>{ramp, melt}}) {
    const std::string why = refusal(runs, false);
    EXPECT_NE(why.find(melt.string() + ": " + melt_reason), std::string::npos) << why;
    EXPECT_EQ(why.find("no [heating]"), std::string::npos) << why;
  }
  // The same directory named by a caller of discover_replicas.
  try {
    discover_replicas(melt);
    ADD_FAILURE() << "a heating run's directory gave replicas";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a heating run without a force protocol ([heating] in its run.log): no force "
                                         "curve; its melting curve is analysed on its own: ermak analyze"),
              std::string::npos)
        << e.what();
  }
  // A clamp and a pulling run that heat.
  const fs::path hot_clamp = root / "hot_clamp", hot_ramp = root / "hot_ramp", clamp = root / "clamp";
  for (const fs::path& d : {hot_clamp, hot_ramp, clamp}) fs::create_directories(d);
  std::ofstream(hot_clamp / "run.log") << heating << "[force_clamp]\nforce_pN = 140.0\n";
  std::ofstream(hot_ramp / "run.log") << heating << "[pulling]\npulled_beads = [33]\n"
                                      << "pulling: loading rate κv = 100000 pN/s\n";
  write_run_log(clamp, 0.0);
  for (int r = 0; r < 2; ++r) {
    write_clamp_replica(hot_clamp, r, 140.0, 2e-5, 1e-4, rng);
    write_clamp_replica(clamp, r, 160.0, 1e-5, 1e-4, rng);
    write_ramp_replica(hot_ramp, r, 1e5, 150.0, rng);
  }
  std::string why = refusal({clamp, hot_clamp}, true);
  EXPECT_NE(why.find(hot_clamp.string() + ": a force-clamp run that heats ([heating] in its run.log: 300 K to 500 K): "
                     "its lifetimes are measured over a changing temperature, and the spectrum fits Bell's law at one "
                     "temperature"),
            std::string::npos)
      << why;
  why = refusal({ramp, hot_ramp}, false);
  EXPECT_NE(why.find(hot_ramp.string() + ": a pulling run that heats ([heating] in its run.log: 300 K to 500 K): its "
                     "rupture forces are measured over a changing temperature"),
            std::string::npos)
      << why;
}

// A threshold that no trajectory reaches is said with the fits' reasons — beyond the chain's
// contour length (model.etop, the ends of run.log's clamp line) no force or run length
// reaches it — and each fit states its own requirement: DHS on clamps needs 4 unfolding
// events at 3 forces, not Bell's 3 at 2 (an audit's summary repeated Bell's).
TEST(ForceSpectrum, AnUnreachedThresholdAndEachFitsRequirementAreSaid) {
  const fs::path root = test::fresh_directory("spectrum_unreached");
  std::mt19937_64 rng(4);
  SpectrumOptions o;
  o.out_dir = root / "s";
  for (int k = 0; k < 2; ++k) {
    const fs::path run = root / ("f" + std::to_string(k));
    fs::create_directories(run);
    write_clamp_log(run, "33", std::to_string(140 + 20 * k) + " pN");
    write_topology_file(test::linear_chain(34, 3.8f), run / "model.etop");  // 12.54 nm from bead 0 to 33
    for (int r = 0; r < 2; ++r) write_clamp_replica(run, r, 140.0 + 20 * k, r == 0 ? 2e-5 : 1.0, 1e-4, rng);
    o.run_dirs.push_back(run);
  }
  // X = 8 nm: 2 unfolding events at 2 forces; Bell and DHS each say what they need.
  o.unfolded_extension_nm = 8.0;
  analyze_force_spectrum(o);
  std::string summary = test::read_file(o.out_dir / "summary.txt");
  EXPECT_NE(summary.find("Bell's rate not fitted: needs at least 3 unfolding events at 2 or more forces\n"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("ν = 2/3 (linear-cubic barrier): not fitted: needs at least 4 unfolding events at 3 or more "
                         "forces\n"),
            std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("no trajectory reached"), std::string::npos) << summary;
  // X = 20 nm, beyond the contour length: out of reach.
  o.unfolded_extension_nm = 20.0;
  o.overwrite = true;
  analyze_force_spectrum(o);
  summary = test::read_file(o.out_dir / "summary.txt");
  const std::string beyond = "; no trajectory reached --unfolded-extension-nm 20 nm (the largest extension recorded: ";
  EXPECT_NE(summary.find("Bell's rate not fitted: needs at least 3 unfolding events at 2 or more forces" + beyond),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("nm), and it lies beyond the chain's contour length between beads 0 and 33 (12.5 nm, its "
                         "native bond lengths summed, model.etop), which the chain passes only by stretching its "
                         "bonds: larger forces or longer runs will not measure it"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("ν = 1/2 (cusp barrier): not fitted: needs at least 4 unfolding events at 3 or more forces" +
                         beyond),
            std::string::npos)
      << summary;
  // X = 12 nm, below it but above every extension recorded: larger forces or longer runs.
  o.unfolded_extension_nm = 12.0;
  analyze_force_spectrum(o);
  summary = test::read_file(o.out_dir / "summary.txt");
  EXPECT_NE(summary.find("nm): larger forces or longer runs, or the extension of the unfolded state the trajectories "
                         "do reach"),
            std::string::npos)
      << summary;
  // Runs at one force: Bell needs 2 forces, DHS on clamps 3.
  o.run_dirs.pop_back();
  o.run_dirs.push_back(root / "f0b");
  fs::create_directories(o.run_dirs.back());
  write_clamp_log(o.run_dirs.back(), "33", "140 pN");
  write_clamp_replica(o.run_dirs.back(), 0, 140.0, 2e-5, 1e-4, rng);
  o.unfolded_extension_nm = 8.0;
  analyze_force_spectrum(o);
  summary = test::read_file(o.out_dir / "summary.txt");
  EXPECT_NE(summary.find("Bell's rate not fitted: needs runs at 2 or more forces (these runs have 1)"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("not fitted: needs runs at 3 or more forces (these runs have 1)"), std::string::npos)
      << summary;
}

}  // namespace
}  // namespace ermak::analysis
