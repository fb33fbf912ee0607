// Plane-pulling analysis (docs/analysis.md#plane-pulling): analyze_plane on synthetic
// plane.tsv tables with known rupture forces, positions and work, and `ermak analyze` on
// a synthetic plane-pulling run directory (files, tables, summary, errors).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "ermak/analysis/plane_analysis.h"
#include "ermak/analysis/report_common.h"
#include "ermak/analysis/tsv_table.h"
#include "ermak/core/error.h"
#include "support/test_paths.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;

// A layer peeled off by a plane moving ds = 0.005 nm per row (100 steps, 0.002 ns): the
// group force rises at κ = 20 pN/nm of travel from 0 until it reaches rupture[k] and then
// drops to 0 (the next bond takes over, relaxed); after the last rupture it stays 0
// (detached), or with `reattach` rises again until the end. Rupture rows fall on the grid.
// Gaussian noise sigma on the force; group 1 (a static anchor plane) is pure noise.
constexpr double kKappa = 20.0, kDs = 0.005;

struct PlaneTable {
  std::string text;
  std::vector<double> rupture_plane_nm;  // true positions of the ruptures
  double work_pN_nm = 0.0;               // ∫F dp of the noise-free force (instantaneous drops)
};

PlaneTable plane_table(const std::vector<double>& rupture, double end_nm, double sigma, unsigned seed,
                       bool reattach = false) {
  PlaneTable t;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::vector<long> rows;  // the row of each rupture
  long start = 0;
  for (double f : rupture) {
    start += std::lround(f / kKappa / kDs);
    rows.push_back(start);
    t.rupture_plane_nm.push_back(double(start) * kDs);
    t.work_pN_nm += 0.5 * f * f / kKappa;
  }
  const long n = std::lround(end_nm / kDs);
  if (reattach) t.work_pN_nm += 0.5 * kKappa * std::pow(double(n - rows.back()) * kDs, 2);
  t.text = "# step\ttime[ns]\tplane[nm]\tforce_plane0[pN]\tforce_plane1[pN]\n";
  std::size_t k = 0;
  long from = 0;
  for (long i = 0; i <= n; ++i) {
    while (k < rows.size() && i > rows[k]) from = rows[k++];
    const bool after_last = k == rows.size();
    const double f = after_last && !reattach ? 0.0 : kKappa * kDs * double(i - from);
    char line[160];
    std::snprintf(line, sizeof line, "%ld\t%.6f\t%.6f\t%.6f\t%.6f\n", 100 * i, 0.002 * double(i), kDs * double(i),
                  f + sigma * gauss(rng), sigma * gauss(rng));
    t.text += line;
  }
  return t;
}

// The trapezoidal rule is exact on the ramps; each drop interval adds f_k·ds/2 (the row
// before a drop holds f_k, the next ~0). Noise adds σ·ds·√rows (sd).
double work_tolerance(const std::vector<double>& rupture, double end_nm, double sigma) {
  double drops = 0.0;
  for (double f : rupture) drops += 0.5 * f * kDs;
  return drops + 5.0 * sigma * kDs * std::sqrt(end_nm / kDs);
}

TEST(AnalysisPlane, SawtoothGivesRupturesWorkAndDetachment) {
  const std::vector<double> rupture = {120.0, 80.0, 150.0};
  const PlaneTable t = plane_table(rupture, 25.0, 3.0, 7);
  const TsvTable table = TsvTable::parse(t.text, "run/replica_000/plane.tsv");
  CurveSettings settings;  // 0.2 nm window, automatic criterion
  const PlaneAnalysis a = analyze_plane(table, 0, settings);
  EXPECT_EQ(a.groups, 2);
  EXPECT_EQ(a.force_column, "force_plane0[pN]");
  EXPECT_TRUE(a.plane_moves);
  EXPECT_EQ(a.rows, 5001u);
  EXPECT_DOUBLE_EQ(a.smoothing.min_peak_drop, 10.0);  // 8 σ_s ≈ 8·3/√40 < 10 pN
  // Smoothing over W = 0.2 nm puts the maximum half a window before the rupture, lowered by
  // κ·W/2 = 2 pN; the smoothed noise is ~0.5 pN.
  ASSERT_EQ(a.events.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE(k);
    const PlaneEvent& e = a.events[k];
    EXPECT_NEAR(e.peak.force, rupture[k] - kKappa * 0.1, 3.0);
    EXPECT_NEAR(e.peak.position, t.rupture_plane_nm[k] - 0.1, 0.1);
    EXPECT_GT(e.peak.drop, 0.9 * rupture[k] - 5.0);
    EXPECT_EQ(e.step, 100 * std::lround(e.peak.position / kDs));  // step and time of the event's row
    EXPECT_NEAR(e.time_ns, 0.002 * double(e.step / 100), 1e-9);
  }
  EXPECT_NEAR(a.max_force_pN, 150.0 - 2.0, 3.0);
  EXPECT_NEAR(a.max_force_plane_nm, 17.4, 0.1);
  EXPECT_NEAR(a.end_force_pN, 0.0, 2.0);
  EXPECT_DOUBLE_EQ(a.detach_threshold_pN, 10.0);
  EXPECT_TRUE(a.detached);
  // W = Σ f_k²/(2κ) = 1082.5 pN·nm = 155.81 kcal/mol.
  const double tol = work_tolerance(rupture, 25.0, 3.0);
  EXPECT_NEAR(t.work_pN_nm, 1082.5, 1e-9);
  EXPECT_NEAR(a.work_pN_nm, t.work_pN_nm, tol);
  EXPECT_NEAR(a.work_kcal_per_mol, a.work_pN_nm / 6.947695, 1e-9 * a.work_pN_nm);
  EXPECT_NEAR(a.work_to_last_event_pN_nm, t.work_pN_nm, tol);

  // Group 1 is noise only: no events, no work beyond the noise, not detached.
  const PlaneAnalysis b = analyze_plane(table, 1, settings);
  EXPECT_EQ(b.force_column, "force_plane1[pN]");
  EXPECT_TRUE(b.events.empty());
  EXPECT_NEAR(b.work_pN_nm, 0.0, 5.0 * 3.0 * kDs * std::sqrt(5000.0));
  EXPECT_FALSE(b.detached);
  EXPECT_TRUE(std::isnan(b.work_to_last_event_pN_nm));
}

TEST(AnalysisPlane, StillAttachedWhenTheForceRisesAgain) {
  const PlaneTable t = plane_table({120.0}, 14.0, 2.0, 3, /*reattach=*/true);
  const PlaneAnalysis a = analyze_plane(TsvTable::parse(t.text, "p.tsv"), 0, CurveSettings{});
  ASSERT_EQ(a.events.size(), 1u);  // the rise at the end has no drop: not an event
  EXPECT_NEAR(a.events[0].peak.position, 5.9, 0.1);
  EXPECT_NEAR(a.end_force_pN, kKappa * 8.0 - kKappa * 0.05, 2.0);  // end cut window: −κW/4
  EXPECT_NEAR(a.max_force_pN, a.end_force_pN, 1e-12);
  EXPECT_FALSE(a.detached);
  EXPECT_NEAR(t.work_pN_nm, 360.0 + 640.0, 1e-9);
  EXPECT_NEAR(a.work_pN_nm, t.work_pN_nm, work_tolerance({120.0}, 14.0, 2.0));
  // A threshold above the end force calls it detached.
  CurveSettings loose;
  loose.detach_force_pN = 170.0;
  EXPECT_TRUE(analyze_plane(TsvTable::parse(t.text, "p.tsv"), 0, loose).detached);
}

TEST(AnalysisPlane, StaticPlaneAndMissingGroup) {
  std::string text = "# step\ttime[ns]\tplane[nm]\tforce_plane0[pN]\n";
  for (int i = 0; i < 300; ++i) text += std::to_string(i) + "\t" + std::to_string(0.01 * i) + "\t0\t" + std::to_string(i % 7) + "\n";
  const TsvTable table = TsvTable::parse(text, "run/replica_004/plane.tsv");
  const PlaneAnalysis a = analyze_plane(table, 0, CurveSettings{});
  EXPECT_FALSE(a.plane_moves);
  EXPECT_TRUE(a.events.empty());
  EXPECT_EQ(a.work_pN_nm, 0.0);
  EXPECT_NE(a.smoothing.description.find("the plane does not move"), std::string::npos);
  try {
    analyze_plane(table, 1, CurveSettings{});
    FAIL() << "no error for a missing group";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("run/replica_004/plane.tsv"), std::string::npos) << m;
    EXPECT_NE(m.find("--plane-group"), std::string::npos) << m;
    EXPECT_NE(m.find("force_plane1[pN]"), std::string::npos) << m;
    EXPECT_NE(m.find("group 0 only"), std::string::npos) << m;
  }
}

TEST(AnalysisPlane, TrapezoidAndUnits) {
  const std::vector<double> x = {0, 1, 3, 4}, y = {0, 2, 2, 0};
  EXPECT_DOUBLE_EQ(trapezoid(x, y, 3), 1.0 + 4.0 + 1.0);
  EXPECT_DOUBLE_EQ(trapezoid(x, y, 1), 1.0);
  EXPECT_DOUBLE_EQ(trapezoid(x, y, 0), 0.0);
  // 1 kcal/mol = 4184 J / N_A = 6.947695e-21 J = 6.947695 pN·nm.
  EXPECT_NEAR(pN_nm_per_kcal_per_mol(), 4184.0 / 6.02214076e23 * 1e21, 1e-6);
}

// A plane moving against its normal loads its group negative: the same ruptures, found on the
// force's magnitude, with the table's (negative) sign kept and the same work ∫F dp.
TEST(AnalysisPlane, APlaneMovingAgainstItsNormalGivesTheSameRuptures) {
  const std::vector<double> rupture = {120.0, 80.0, 150.0};
  const PlaneTable t = plane_table(rupture, 25.0, 3.0, 7);
  const TsvTable table = TsvTable::parse(t.text, "run/replica_000/plane.tsv");
  // The mirror image: plane[nm] and both forces negated.
  std::string mirrored = "# step\ttime[ns]\tplane[nm]\tforce_plane0[pN]\tforce_plane1[pN]\n";
  for (std::size_t i = 0; i < table.rows(); ++i) {
    char line[160];
    std::snprintf(line, sizeof line, "%.0f\t%.6f\t%.6f\t%.6f\t%.6f\n", table.column("step")[i],
                  table.column("time[ns]")[i], -table.column("plane[nm]")[i], -table.column("force_plane0[pN]")[i],
                  -table.column("force_plane1[pN]")[i]);
    mirrored += line;
  }
  CurveSettings settings;
  const PlaneAnalysis a = analyze_plane(table, 0, settings);
  const PlaneAnalysis m = analyze_plane(TsvTable::parse(mirrored, "run/replica_000/plane.tsv"), 0, settings);
  EXPECT_EQ(a.orientation, 1.0);
  EXPECT_EQ(m.orientation, -1.0);
  ASSERT_EQ(m.events.size(), a.events.size());
  ASSERT_EQ(m.events.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(m.events[k].step, a.events[k].step);
    EXPECT_NEAR(m.events[k].peak.force, -a.events[k].peak.force, 1e-5);
    EXPECT_NEAR(m.events[k].peak.drop, a.events[k].peak.drop, 1e-5);
  }
  EXPECT_NEAR(m.max_force_pN, -a.max_force_pN, 1e-5);
  EXPECT_NEAR(m.work_pN_nm, a.work_pN_nm, 1e-6 * a.work_pN_nm);
  EXPECT_TRUE(m.detached);
}

// With the run's planes known (run.log): a static (anchor) group does no work, a plane at
// half the first one's speed does half the work over its own travel, and a maximum that
// rose faster than the springs load (N κ·Δp + the criterion) is no rupture.
TEST(AnalysisPlane, TheRunsPlanesGiveEachGroupsWorkAndLoading) {
  const PlaneTable t = plane_table({120.0, 80.0, 150.0}, 25.0, 3.0, 7);
  const TsvTable table = TsvTable::parse(t.text, "run/replica_000/plane.tsv");
  CurveSettings settings;
  const PlaneAnalysis anchor = analyze_plane(table, 1, settings, PlaneLoading{0.0, kKappa});
  EXPECT_EQ(anchor.work_pN_nm, 0.0);
  const PlaneAnalysis plain = analyze_plane(table, 0, settings);
  const PlaneAnalysis half = analyze_plane(table, 0, settings, PlaneLoading{0.5, 0.5 * kKappa});
  EXPECT_NEAR(half.work_pN_nm, 0.5 * plain.work_pN_nm, 1e-9 * plain.work_pN_nm);
  // The table's springs load at κ = 20 pN/nm of travel: every rupture's rise is loadable.
  const PlaneAnalysis loaded = analyze_plane(table, 0, settings, PlaneLoading{1.0, kKappa});
  EXPECT_EQ(loaded.events.size(), 3u);
  EXPECT_TRUE(loaded.unloaded.empty());
  // Springs 10 times softer could not have made these rises: no ruptures, three left out.
  const PlaneAnalysis soft = analyze_plane(table, 0, settings, PlaneLoading{1.0, 0.1 * kKappa});
  EXPECT_TRUE(soft.events.empty());
  EXPECT_EQ(soft.unloaded.size(), 3u);
}

// --- `ermak analyze` on a synthetic plane-pulling run -----------------------------------------

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

int analyze(const std::string& args, std::string* output) {
  return test::run_command(test::ermak_binary().string() + " analyze " + args, output);
}

const std::vector<std::vector<double>> kPlaneRuptures = {{120.0, 80.0, 150.0}, {100.0, 90.0, 140.0}, {130.0, 70.0, 160.0}};

TEST(AnalysisPlaneCommand, PlanePullingRunEndToEnd) {
  const fs::path run = test::fresh_directory("analyze-plane");
  std::vector<double> work;
  for (std::size_t r = 0; r < kPlaneRuptures.size(); ++r) {
    const PlaneTable t = plane_table(kPlaneRuptures[r], 25.0, 3.0, unsigned(20 + r));
    char dir[32];
    std::snprintf(dir, sizeof dir, "replica_%03zu", r);
    write_text(run / dir / "plane.tsv", t.text);
    work.push_back(t.work_pN_nm);
  }
  std::string out;
  ASSERT_EQ(analyze(run.string(), &out), 0) << out;
  EXPECT_NE(out.find("plane pulling: 3 replicas, 9 rupture events"), std::string::npos) << out;
  const fs::path a = run / "analysis";
  for (const char* f : {"summary.txt", "plane_peaks.tsv", "plane_replicas.tsv", "force_plane.svg",
                        "plane_forces_histogram.tsv", "plane_peak_force_histogram.svg", "replica_000_plane_curve.tsv",
                        "replica_002_plane_curve.tsv", "replica_001_force_plane.svg"})
    EXPECT_TRUE(fs::exists(a / f)) << f;
  for (const char* f : {"peaks.tsv", "forces_histogram.tsv", "force_extension.svg"}) EXPECT_FALSE(fs::exists(a / f)) << f;
  // Every file besides the replicas' own is one that each analysis plans (and --force replaces).
  for (const auto& entry : fs::directory_iterator(a)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("replica_", 0) != 0)
      EXPECT_NE(std::find(analysis_file_names().begin(), analysis_file_names().end(), name),
                analysis_file_names().end())
          << name;
  }
  for (const char* f : {"force_plane.svg", "replica_000_force_plane.svg", "plane_peak_force_histogram.svg"}) {
    const std::string svg = read_text(a / f);
    EXPECT_EQ(svg.rfind("<svg", 0), 0u) << f;
    EXPECT_NE(svg.find("</svg>"), std::string::npos) << f;
    EXPECT_EQ(svg.find("nan"), std::string::npos) << f;
  }
  const TsvTable peaks = TsvTable::read(a / "plane_peaks.tsv");
  ASSERT_EQ(peaks.rows(), 9u);
  for (std::size_t i = 0; i < 9; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(peaks.column("replica")[i], double(i / 3));
    EXPECT_EQ(peaks.column("event")[i], double(i % 3));
    EXPECT_NEAR(peaks.column("force[pN]")[i], kPlaneRuptures[i / 3][i % 3] - 2.0, 3.0);
  }
  const TsvTable reps = TsvTable::read(a / "plane_replicas.tsv");
  ASSERT_EQ(reps.rows(), 3u);
  for (std::size_t r = 0; r < 3; ++r) {
    SCOPED_TRACE(r);
    EXPECT_NEAR(reps.column("work[pN*nm]")[r], work[r], work_tolerance(kPlaneRuptures[r], 25.0, 3.0));
    EXPECT_NEAR(reps.column("work[kcal/mol]")[r], reps.column("work[pN*nm]")[r] / 6.947695,
                2e-7 * reps.column("work[kcal/mol]")[r]);  // %.8g in the table
    EXPECT_EQ(reps.column("detached")[r], 1.0);
    EXPECT_EQ(reps.column("events")[r], 3.0);
    EXPECT_NEAR(reps.column("first_force[pN]")[r], kPlaneRuptures[r][0] - 2.0, 3.0);
  }
  // The curve's cumulative work ends at the replica's work.
  const TsvTable curve = TsvTable::read(a / "replica_001_plane_curve.tsv");
  ASSERT_EQ(curve.rows(), 5001u);
  EXPECT_TRUE(curve.has("force_plane0[pN]") && curve.has("plane[nm]") && curve.has("step"));
  EXPECT_NEAR(curve.column("work[kcal/mol]")[5000], reps.column("work[kcal/mol]")[1],
              2e-7 * reps.column("work[kcal/mol]")[1]);
  const TsvTable hist = TsvTable::read(a / "plane_forces_histogram.tsv");
  double first = 0, all = 0;
  for (std::size_t i = 0; i < hist.rows(); ++i) {
    first += hist.column("first_peak")[i];
    all += hist.column("all_peaks")[i];
  }
  EXPECT_EQ(first, 3.0);
  EXPECT_EQ(all, 9.0);
  const std::string summary = read_text(a / "summary.txt");
  for (const char* s : {"Plane pulling: 3 replicas; group 0", "first rupture: n = 3", "largest rupture: n = 3",
                        "work: n = 3", "kcal/mol", "detached at the end: 3 of 3", "plane_peaks.tsv"})
    EXPECT_NE(summary.find(s), std::string::npos) << s;

  // Its files are checked before writing: nothing replaced without --force.
  fs::remove(a / "summary.txt");
  ASSERT_NE(analyze(run.string(), &out), 0);
  EXPECT_NE(out.find("--force"), std::string::npos) << out;
  EXPECT_NE(out.find("plane_peaks.tsv"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(a / "summary.txt"));
  // Group 1 (a static anchor here): no events, no histogram.
  const fs::path other = test::fresh_directory("analyze-plane-g1") / "g1";
  ASSERT_EQ(analyze(run.string() + " --plane-group 1 -o " + other.string(), &out), 0) << out;
  EXPECT_EQ(TsvTable::read(other / "plane_peaks.tsv").rows(), 0u);
  EXPECT_FALSE(fs::exists(other / "plane_forces_histogram.tsv"));
  EXPECT_NE(read_text(other / "summary.txt").find("group 1 (force_plane1[pN]"), std::string::npos);
  EXPECT_NE(read_text(other / "summary.txt").find("which is group 1's work only if it is that plane"),
            std::string::npos);
}

// A plane-pulling run of more than 100 replicas: the overlay draws the first 100 curves and
// every event, the first 100 replicas get their own files (--replica-files), and each
// replica's block goes to replicas.txt while the summary keeps the statistics of all.
TEST(AnalysisPlaneCommand, AManyReplicaRunDrawsAHundredCurvesAndKeepsItsBlocksApart) {
  const fs::path run = test::fresh_directory("analyze-plane-many");
  const PlaneTable t = plane_table(kPlaneRuptures[0], 20.0, 3.0, 20);
  for (int r = 0; r < 101; ++r) {
    char dir[32];
    std::snprintf(dir, sizeof dir, "replica_%03d", r);
    write_text(run / dir / "plane.tsv", t.text);
  }
  std::string out;
  ASSERT_EQ(analyze(run.string(), &out), 0) << out;
  const fs::path a = run / "analysis";
  const std::string svg = read_text(a / "force_plane.svg");
  EXPECT_NE(svg.find("curves of the first 100 of 101 replicas; events of all"), std::string::npos);
  std::size_t curves = 0;
  for (auto at = svg.find("stroke-width=\"1.4\""); at != std::string::npos; at = svg.find("stroke-width=\"1.4\"", at + 1))
    ++curves;
  EXPECT_EQ(curves, 100u);
  EXPECT_TRUE(fs::exists(a / "replica_099_force_plane.svg"));
  EXPECT_FALSE(fs::exists(a / "replica_100_plane_curve.tsv"));
  EXPECT_FALSE(fs::exists(a / "replica_100_force_plane.svg"));
  EXPECT_EQ(TsvTable::read(a / "plane_replicas.tsv").rows(), 101u);
  const std::string summary = read_text(a / "summary.txt");
  EXPECT_NE(summary.find("first rupture: n = 101"), std::string::npos) << summary;
  EXPECT_NE(summary.find("per replica (smoothing, noise, events, detachment, work, notes): replicas.txt"),
            std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("\nreplica_000: "), std::string::npos);
  EXPECT_NE(summary.find("force against plane travel of the first 100 replicas, events of all"), std::string::npos)
      << summary;
  const std::string replicas = read_text(a / "replicas.txt");
  EXPECT_NE(replicas.find("Plane pulling: 101 replicas; group 0"), std::string::npos);
  EXPECT_NE(replicas.find("\nreplica_100: "), std::string::npos);
}

// run.log's plane lines: without --plane-group the first moving plane's group is analysed (a
// static anchor listed first is not), its own work; a table that stops before the run's steps
// (a stopped run) is noted, in the summary and on the terminal.
TEST(AnalysisPlaneCommand, TheFirstMovingPlaneIsTheDefaultGroup) {
  const fs::path run = test::fresh_directory("analyze-plane-default-group");
  // Columns swapped: group 0 the anchor (noise), group 1 the pulled layer.
  const PlaneTable t = plane_table({120.0, 80.0, 150.0}, 25.0, 3.0, 7);
  const TsvTable table = TsvTable::parse(t.text, "x");
  std::string swapped = "# step\ttime[ns]\tplane[nm]\tforce_plane0[pN]\tforce_plane1[pN]\n";
  for (std::size_t i = 0; i < table.rows(); ++i) {
    char line[160];
    std::snprintf(line, sizeof line, "%.0f\t%.6f\t%.6f\t%.6f\t%.6f\n", table.column("step")[i],
                  table.column("time[ns]")[i], table.column("plane[nm]")[i], table.column("force_plane1[pN]")[i],
                  table.column("force_plane0[pN]")[i]);
    swapped += line;
  }
  write_text(run / "replica_000" / "plane.tsv", swapped);
  write_text(run / "run.log",
             "[run]\nsteps = 600000\n\n"
             "[2026-11-29 10:03:46] plane 0: 5 beads, normal (0, 0, 1), speed 0 µm/s, κ = 50 pN/nm per bead; output "
             "every 100 steps (plane.tsv)\n"
             "[2026-11-29 10:03:46] plane 1: 7 beads, normal (0, 0, 1), speed 2000 µm/s, κ = 50 pN/nm per bead; output "
             "every 100 steps (plane.tsv)\n");
  std::string out;
  ASSERT_EQ(analyze(run.string(), &out), 0) << out;
  // The stop is said on the terminal too, after the count of replicas.
  EXPECT_NE(out.find("plane pulling: 1 replica (the run stopped at step 500000 of 600000), 3 rupture events"),
            std::string::npos)
      << out;
  const std::string summary = read_text(run / "analysis" / "summary.txt");
  EXPECT_NE(summary.find("group 1 is the first moving plane (run.log)"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("only if it is that plane"), std::string::npos) << summary;
  EXPECT_NE(summary.find("note: the table ends at step 500000 of the run's 600000 (run.log): a run stopped early"),
            std::string::npos)
      << summary;
  // The anchor, asked for: its load, and no work.
  ASSERT_EQ(analyze(run.string() + " --plane-group 0 --force", &out), 0) << out;
  const std::string anchor = read_text(run / "analysis" / "summary.txt");
  EXPECT_NE(anchor.find("group 0's plane is static: its force is the anchor's load, and it does no work (W = 0)"),
            std::string::npos)
      << anchor;
  EXPECT_EQ(TsvTable::read(run / "analysis" / "plane_replicas.tsv").column("work[pN*nm]")[0], 0.0);
}

TEST(AnalysisPlaneCommand, MissingGroupNamesTheFileAndOption) {
  const fs::path run = test::fresh_directory("analyze-plane-errors");
  write_text(run / "replica_000" / "plane.tsv", plane_table({100.0}, 6.0, 1.0, 1).text);
  std::string out;
  EXPECT_EQ(analyze(run.string() + " --plane-group 2", &out), 1);
  EXPECT_NE(out.find((run / "replica_000" / "plane.tsv").string() + ":1: --plane-group: no plane group 2 "
                                                                      "(column force_plane2[pN]): the table has groups 0 to 1"),
            std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(run / "analysis" / "summary.txt"));  // nothing written
  EXPECT_EQ(analyze(run.string() + " --plane-group -1", &out), 1);
  EXPECT_NE(out.find("--plane-group"), std::string::npos) << out;
  EXPECT_EQ(analyze(run.string() + " --detach-force-pN -3", &out), 1);
  EXPECT_NE(out.find("--detach-force-pN"), std::string::npos) << out;
}

}  // namespace
}  // namespace ermak::analysis
