// `ermak analyze` end to end: synthetic run directories (replica_NNN/pulling.tsv,
// indentation.tsv) → the command → its tables, plots and summary; plus the SVG writer.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ermak/analysis/report_common.h"
#include "ermak/analysis/statistics.h"
#include "ermak/analysis/svg_plot.h"
#include "ermak/analysis/tsv_table.h"
#include "ermak/analysis/wlc.h"
#include "ermak/io/topology_file.h"
#include "support/synthetic_pulling.h"
#include "support/test_paths.h"
#include "support/test_systems.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// Minimal XML well-formedness: every element closed in order, attributes quoted; returns
// "" when fine, else what is wrong.
std::string xml_problem(const std::string& s) {
  std::vector<std::string> stack;
  std::size_t i = 0;
  while ((i = s.find('<', i)) != std::string::npos) {
    const std::size_t end = s.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    std::string tag = s.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.empty()) return "empty tag";
    if (tag[0] == '?' || tag[0] == '!') continue;
    std::size_t quotes = 0;
    for (char c : tag) quotes += c == '"';
    if (quotes % 2) return "unbalanced quotes in <" + tag + ">";
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name) return "unexpected </" + name + ">";
      stack.pop_back();
      continue;
    }
    const bool self_closing = tag.back() == '/';
    const std::string name = tag.substr(0, tag.find_first_of(" \t\n/"));
    if (!self_closing) stack.push_back(name);
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  return {};
}

void expect_svg(const fs::path& p) {
  SCOPED_TRACE(p.string());
  ASSERT_TRUE(fs::exists(p));
  const std::string svg = read_text(p);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_TRUE(svg.find("<polyline") != std::string::npos || svg.find("<path") != std::string::npos ||
              svg.find("<rect x") != std::string::npos);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
}

// One replica of a constant-velocity pulling run (support/synthetic_pulling.h: a WLC pulled
// through a 50 pN/nm cantilever, ruptures at the given forces), as ermak writes pulling.tsv.
std::string pulling_table(const std::vector<double>& rupture, unsigned seed, bool with_force_along = true) {
  std::string text = "# step\ttime[ns]\tbase[nm]\tend_to_end[nm]\textension[nm]\tforce_x[pN]\tforce_y[pN]\tforce_z[pN]\tforce[pN]";
  text += with_force_along ? "\tforce_along[pN]\n" : "\n";
  for (const test::SyntheticPullingRow& row : test::synthetic_wlc_pulling(rupture, seed)) {
    char line[256];
    std::snprintf(line, sizeof line, "%lld\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t0\t0\t%.6f", row.step, row.time_ns,
                  row.base_nm, row.extension_nm, row.extension_nm, row.force_pN, std::abs(row.force_pN));
    text += line;
    if (with_force_along) text += "\t" + std::to_string(row.force_pN);
    text += "\n";
  }
  return text;
}

const std::vector<std::vector<double>> kRuptures = {{100.0, 140.0}, {120.0, 150.0}, {110.0, 130.0}};

fs::path make_pulling_run(const std::string& name) {
  const fs::path run = test::fresh_directory(name);
  for (std::size_t r = 0; r < kRuptures.size(); ++r) {
    char dir[32];
    std::snprintf(dir, sizeof dir, "replica_%03zu", r);
    write_text(run / dir / "pulling.tsv", pulling_table(kRuptures[r], unsigned(10 + r)));
    write_text(run / dir / "energies.tsv", "# step\ttime[ns]\n0\t0\n");  // other files are ignored
  }
  return run;
}

int analyze(const std::string& args, std::string* output) {
  return test::run_command(test::ermak_binary().string() + " analyze " + args, output);
}

// Every file an analysis wrote is one of analysis_file_names() or of the per-replica names
// (is_replica_file_name), which each analysis plans (and --force replaces): a new output
// must be added there.
void expect_known_outputs(const fs::path& dir) {
  const auto& known = analysis_file_names();
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("replica_", 0) == 0) {
      EXPECT_TRUE(is_replica_file_name(name)) << name << " ends in none of replica_file_suffixes()";
      continue;
    }
    EXPECT_NE(std::find(known.begin(), known.end(), name), known.end()) << name << " is not in analysis_file_names()";
  }
}

// A run analysed with 3 replicas, then run again with 1 (or its replica_001/002 deleted):
// `--force` removes the earlier analysis's replica_001_* and replica_002_* files, which no
// replica of the run plans now (an audit found them left beside the new results), in the
// run's analysis/ and in an -o directory alike; a user's own files there stay.
TEST(AnalysisCommand, ForceRemovesTheFilesOfReplicasTheRunNoLongerHas) {
  const fs::path run = make_pulling_run("analyze-fewer-replicas");
  const fs::path other = test::fresh_directory("analyze-fewer-replicas-out") / "out";
  std::string out;
  ASSERT_EQ(analyze(run.string() + " --smooth-window-nm 0.25", &out), 0) << out;
  ASSERT_EQ(analyze(run.string() + " --smooth-window-nm 0.25 -o " + other.string(), &out), 0) << out;
  const std::vector<std::string> stale = {"replica_001_curve.tsv", "replica_001_force_extension.svg",
                                          "replica_002_curve.tsv", "replica_002_force_extension.svg"};
  // Files of ermak's naming that this analysis never writes (another kind's, a replica
  // number of more digits) and a user's own files beside them.
  const std::vector<std::string> stale_other_kinds = {"replica_0007_force_plane.svg", "replica_3_indentation_curve.tsv"};
  const std::vector<std::string> users = {"notes.txt", "replica_001_curve.tsv.bak", "replica_001_mine.tsv",
                                          "replica_x_curve.tsv"};
  for (const fs::path& dir : {run / "analysis", other}) {
    for (const auto& f : stale) ASSERT_TRUE(fs::exists(dir / f)) << f;
    for (const auto& f : stale_other_kinds) write_text(dir / f, "# an earlier analysis's\n");
    for (const auto& f : users) write_text(dir / f, "mine\n");
  }
  fs::remove_all(run / "replica_001");
  fs::remove_all(run / "replica_002");
  for (const fs::path& dir : {run / "analysis", other}) {
    SCOPED_TRACE(dir.string());
    const std::string o = dir == other ? " -o " + other.string() : std::string();
    // Without --force the run's own files are refused as before.
    EXPECT_NE(analyze(run.string() + o, &out), 0);
    EXPECT_NE(out.find("output files exist"), std::string::npos) << out;
    ASSERT_EQ(analyze(run.string() + o + " --force --smooth-window-nm 0.25", &out), 0) << out;
    EXPECT_NE(out.find("pulling: 1 replica, 2 unfolding peaks"), std::string::npos) << out;
    for (const auto& f : stale) EXPECT_FALSE(fs::exists(dir / f)) << f << " of the earlier analysis is left";
    for (const auto& f : stale_other_kinds) EXPECT_FALSE(fs::exists(dir / f)) << f << " of the earlier analysis is left";
    for (const auto& f : users) EXPECT_EQ(read_text(dir / f), "mine\n") << f << " is the user's";
    for (const char* f : {"replica_000_curve.tsv", "replica_000_force_extension.svg", "summary.txt"})
      EXPECT_TRUE(fs::exists(dir / f)) << f;
    EXPECT_EQ(TsvTable::read(dir / "peaks.tsv").rows(), 2u);
  }
  // A directory of a per-replica name is refused, not removed.
  fs::create_directories(other / "replica_005_curve.tsv");
  EXPECT_NE(analyze(run.string() + " -o " + other.string() + " --force", &out), 0);
  EXPECT_NE(out.find("replica_005_curve.tsv: is not a regular file (a directory)"), std::string::npos) << out;
  EXPECT_TRUE(fs::is_directory(other / "replica_005_curve.tsv"));
}

// A run of more than 100 replicas: the overlay draws the first 100 curves and every peak
// (an audit's 10⁴ replicas made a 49–160 MB force_extension.svg and kept every curve).
TEST(AnalysisCommand, TheOverlayOfManyReplicasDrawsAHundredCurvesAndEveryPeak) {
  const fs::path run = test::fresh_directory("analyze-overlay-many");
  const std::string table = pulling_table(kRuptures[0], 10);
  for (int r = 0; r < 102; ++r) {
    char dir[32];
    std::snprintf(dir, sizeof dir, "replica_%03d", r);
    write_text(run / dir / "pulling.tsv", table);
  }
  std::string out;
  ASSERT_EQ(analyze(run.string() + " --smooth-window-nm 0.25", &out), 0) << out;
  const std::string svg = read_text(run / "analysis" / "force_extension.svg");
  EXPECT_NE(svg.find("curves of the first 100 of 102 replicas; peaks of all"), std::string::npos);
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("stroke-width=\"1.4\""), 100u) << "smoothed curves";
  // Two peaks in every replica's table, each a marker (stroke 0.7), and the legend's.
  EXPECT_EQ(count("stroke-width=\"0.7\""), 2u * 102u + 1u) << "peak markers";
}

// A run of more than 100 replicas: the first 100 get their own curve table and plot (the
// default of --replica-files), and each replica's block goes to replicas.txt, so that the
// summary's statistics come right after its settings (an audit's 10⁴ replicas wrote 2·10⁴
// per-replica files and a summary of ~30 000 lines before the statistics).
TEST(AnalysisCommand, AManyReplicaRunKeepsItsBlocksApartAndFilesForTheFirstHundred) {
  const fs::path run = test::fresh_directory("analyze-many-files");
  for (int r = 0; r < 102; ++r) {
    char dir[32];
    std::snprintf(dir, sizeof dir, "replica_%03d", r);
    write_text(run / dir / "pulling.tsv", pulling_table(kRuptures[std::size_t(r) % 3], unsigned(10 + r)));
  }
  std::string out;
  ASSERT_EQ(analyze(run.string() + " --smooth-window-nm 0.25", &out), 0) << out;
  const fs::path a = run / "analysis";
  for (const char* f : {"replica_000_curve.tsv", "replica_099_curve.tsv", "replica_099_force_extension.svg"})
    EXPECT_TRUE(fs::exists(a / f)) << f;
  for (const char* f : {"replica_100_curve.tsv", "replica_101_force_extension.svg"}) EXPECT_FALSE(fs::exists(a / f)) << f;
  const std::string summary = read_text(a / "summary.txt");
  const std::string replicas = read_text(a / "replicas.txt");
  EXPECT_NE(summary.find("per replica (smoothing, noise, peaks, WLC fits, notes): replicas.txt"), std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("\nreplica_050: "), std::string::npos) << "no replica block in the summary";
  // Every replica enters the statistics (two peaks each), and its block is in replicas.txt.
  EXPECT_NE(summary.find("replicas with a peak: 102 of 102"), std::string::npos) << summary;
  EXPECT_NE(summary.find("all peaks: n = 204,"), std::string::npos) << summary;
  EXPECT_NE(summary.find("smoothed curve of 100 of the 102 replicas (the first 100 replicas, numbered 0 to 99; --replica-files)"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("replicas.txt                 each replica's"), std::string::npos) << summary;
  for (const char* block : {"\nreplica_000: ", "\nreplica_050: ", "\nreplica_101: "})
    EXPECT_NE(replicas.find(block), std::string::npos) << block;
  EXPECT_NE(replicas.find("Constant-velocity pulling: 102 replicas"), std::string::npos);
  const TsvTable peaks = TsvTable::read(a / "peaks.tsv");
  EXPECT_EQ(peaks.rows(), 204u);
  EXPECT_EQ(peaks.column("replica").back(), 101.0);
  // The whole run's files on request; a second analysis without --force is refused.
  EXPECT_NE(analyze(run.string() + " --replica-files all", &out), 0);
  ASSERT_EQ(analyze(run.string() + " --force --replica-files all", &out), 0) << out;
  EXPECT_TRUE(fs::exists(a / "replica_101_force_extension.svg"));
  EXPECT_NE(read_text(a / "summary.txt").find("smoothed curve of each replica"), std::string::npos);
}

// --replica-files chooses the replicas with files of their own by number; none writes none;
// the tables and statistics still cover every replica, and a run of up to 100 replicas keeps
// its blocks in the summary. Bad selections are named.
TEST(AnalysisCommand, ReplicaFilesSelectsByNumber) {
  const fs::path run = make_pulling_run("analyze-replica-files");
  std::string out;
  ASSERT_EQ(analyze(run.string() + " --smooth-window-nm 0.25 --replica-files 0,2-7", &out), 0) << out;
  const fs::path a = run / "analysis";
  for (const char* f : {"replica_000_curve.tsv", "replica_000_force_extension.svg", "replica_002_curve.tsv"})
    EXPECT_TRUE(fs::exists(a / f)) << f;
  for (const char* f : {"replica_001_curve.tsv", "replica_001_force_extension.svg", "replicas.txt"})
    EXPECT_FALSE(fs::exists(a / f)) << f;
  std::string summary = read_text(a / "summary.txt");
  EXPECT_NE(summary.find("\nreplica_001: "), std::string::npos) << summary;
  // The replicas that have files, of the selection (2-7 names only replica 2 here).
  EXPECT_NE(summary.find("smoothed curve of 2 of the 3 replicas (replicas 0, 2 of replicas 0, 2-7; --replica-files)"),
            std::string::npos)
      << summary;
  EXPECT_NE(out.find("2 per-replica curves and 2 plots"), std::string::npos) << out;
  // Numbers beyond the run's replicas are said (a typo would otherwise give nothing).
  EXPECT_NE(out.find("warning: --replica-files: 2-7 names 1 replica of this run (its 3 replicas are numbered 0 to 2)"),
            std::string::npos)
      << out;
  ASSERT_EQ(analyze(run.string() + " --smooth-window-nm 0.25 --force --replica-files 200", &out), 0) << out;
  EXPECT_NE(out.find("warning: --replica-files: 200 names no replica of this run"), std::string::npos) << out;
  ASSERT_EQ(analyze(run.string() + " --smooth-window-nm 0.25 --force --replica-files none", &out), 0) << out;
  for (const char* f : {"replica_000_curve.tsv", "replica_002_force_extension.svg"}) EXPECT_FALSE(fs::exists(a / f)) << f;
  summary = read_text(a / "summary.txt");
  EXPECT_NE(summary.find("(no per-replica curve tables or plots: --replica-files selects no replica)"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("replicas with a peak: 3 of 3"), std::string::npos) << summary;
  EXPECT_EQ(TsvTable::read(a / "peaks.tsv").rows(), 6u);
  for (const auto& [bad, says] : std::vector<std::pair<std::string, std::string>>{
           {"7-2", "the range '7-2' runs backwards"},
           {"1,,2", "an empty entry in '1,,2'"},
           {"x", "'x' is not a replica number"},
           {"-3", "'-3' is a range without its start"}}) {
    EXPECT_NE(analyze(run.string() + " --force --replica-files=" + bad, &out), 0) << bad;
    EXPECT_NE(out.find("--replica-files: " + says), std::string::npos) << out;
  }
  EXPECT_NE(analyze(run.string() + " " + run.string() + "x -o " + (run / "spectrum").string() +
                        " --replica-files all",
                    &out),
            0);
  EXPECT_NE(out.find("--replica-files: applies to the analysis of one run directory"), std::string::npos) << out;
  // A selected replica left out of the analysis (one row) has no files, and the list of files
  // counts those written, of the replicas analysed.
  const std::string table = pulling_table(kRuptures[0], 13);
  write_text(run / "replica_003" / "pulling.tsv", table.substr(0, table.find('\n', table.find('\n') + 1) + 1));
  ASSERT_EQ(analyze(run.string() + " --smooth-window-nm 0.25 --force --replica-files 1,3", &out), 0) << out;
  EXPECT_NE(out.find("one row only; replica left out"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(a / "replica_003_curve.tsv"));
  EXPECT_NE(read_text(a / "summary.txt")
                .find("smoothed curve of 1 of the 3 replicas (replica 1 of replicas 1, 3; --replica-files)"),
            std::string::npos)
      << read_text(a / "summary.txt");
}

// A failed analysis (a table that cannot be read) leaves the earlier one as it was, even with
// --force: the outputs are written to a staging directory and moved into place at the end.
// A name that holds no regular file (a FIFO would block the writer) is refused before any
// table is read; and --force removes an earlier spectrum's files from the directory.
TEST(AnalysisCommand, AFailedAnalysisLeavesTheEarlierOneAsItWas) {
  const fs::path run = make_pulling_run("analyze-staged");
  std::string out;
  ASSERT_EQ(analyze(run.string() + " --smooth-window-nm 0.25", &out), 0) << out;
  const fs::path a = run / "analysis";
  const std::string summary = read_text(a / "summary.txt"), curve = read_text(a / "replica_002_curve.tsv");
  // replica_001's table broken in a row: the analysis stops there.
  std::string broken = pulling_table(kRuptures[1], 11);
  broken.insert(broken.find('\n', broken.find('\n', 2000) + 1) + 1, "1\t2\t3\n");
  write_text(run / "replica_001" / "pulling.tsv", broken);
  EXPECT_NE(analyze(run.string() + " --smooth-window-nm 0.3 --force", &out), 0) << out;
  EXPECT_NE(out.find("values for 10 columns"), std::string::npos) << out;
  EXPECT_EQ(read_text(a / "summary.txt"), summary);
  EXPECT_EQ(read_text(a / "replica_002_curve.tsv"), curve);
  EXPECT_TRUE(fs::exists(a / "replica_000_curve.tsv"));
  EXPECT_FALSE(fs::exists(a / ".ermak-analysis-partial"));
  write_text(run / "replica_001" / "pulling.tsv", pulling_table(kRuptures[1], 11));
  // A FIFO where an output goes: refused at once, naming it.
  fs::remove(a / "peaks.tsv");
  ASSERT_EQ(::mkfifo((a / "peaks.tsv").c_str(), 0600), 0);
  EXPECT_NE(analyze(run.string() + " --force", &out), 0);
  EXPECT_NE(out.find("peaks.tsv: is not a regular file (a FIFO)"), std::string::npos) << out;
  EXPECT_TRUE(fs::is_fifo(a / "peaks.tsv"));
  fs::remove(a / "peaks.tsv");
  // An earlier spectrum's table in the directory: named without --force, removed with it.
  const fs::path other = run / "other";
  write_text(other / "spectrum.tsv", "# level\n");
  EXPECT_NE(analyze(run.string() + " -o " + other.string(), &out), 0);
  EXPECT_NE(out.find("output files exist (spectrum.tsv)"), std::string::npos) << out;
  ASSERT_EQ(analyze(run.string() + " -o " + other.string() + " --force", &out), 0) << out;
  EXPECT_FALSE(fs::exists(other / "spectrum.tsv"));
  EXPECT_TRUE(fs::exists(other / "peaks.tsv"));
}

// A long run's table (here 250 001 rows) gives a curve file of every k-th row, at most
// kCurveFileRows and the last row, not a copy of the table's size (the long-run audit: 10⁷
// rows wrote a 689 MB curve file).
TEST(AnalysisCommand, ALongTablesCurveFileHoldsEveryKthRow) {
  const fs::path run = test::fresh_directory("analyze-long-table");
  std::string text = "# step\ttime[ns]\tbase[nm]\tend_to_end[nm]\textension[nm]\tforce_x[pN]\tforce_y[pN]\t"
                     "force_z[pN]\tforce[pN]\tforce_along[pN]\n";
  std::mt19937_64 rng(3);
  std::normal_distribution<double> gauss(0.0, 1.0);
  const int rows = 250001;
  for (int i = 0; i < rows; ++i) {
    const double b = 20.0 * i / (rows - 1), x = 0.5 * b, f = 50.0 * (b - x) + 3.0 * gauss(rng);
    char line[256];
    std::snprintf(line, sizeof line, "%d\t%.6f\t%.6f\t%.6f\t%.6f\t%.4f\t0\t0\t%.4f\t%.4f\n", 100 * i, 0.002 * i, b, x,
                  x, f, std::abs(f), f);
    text += line;
  }
  write_text(run / "replica_000/pulling.tsv", text);
  std::string out;
  ASSERT_EQ(analyze(run.string(), &out), 0) << out;
  const TsvTable curve = TsvTable::read(run / "analysis/replica_000_curve.tsv");
  ASSERT_EQ(curve.rows(), 83335u);  // rows 0, 3, …, 249 999 and the last, 250 000
  EXPECT_EQ(curve.column("step")[1], 300.0);
  EXPECT_EQ(curve.column("step")[curve.rows() - 2], 100.0 * 249999);
  EXPECT_EQ(curve.column("step").back(), 100.0 * 250000);
}

TEST(AnalysisCommand, PullingRunEndToEnd) {
  const fs::path run = make_pulling_run("analyze-pulling");
  std::string out;
  ASSERT_EQ(analyze(run.string() + " --smooth-window-nm 0.25", &out), 0) << out;
  const fs::path a = run / "analysis";
  EXPECT_NE(out.find("pulling: 3 replicas, 6 unfolding peaks"), std::string::npos) << out;
  EXPECT_NE(out.find(a.string()), std::string::npos) << out;
  for (const char* f : {"summary.txt", "peaks.tsv", "wlc_fits.tsv", "forces_histogram.tsv", "force_extension.svg",
                        "peak_force_histogram.svg", "replica_000_curve.tsv", "replica_002_curve.tsv",
                        "replica_001_force_extension.svg"})
    EXPECT_TRUE(fs::exists(a / f)) << f;
  EXPECT_FALSE(fs::exists(a / "extension_time.svg"));  // no force-clamp replica
  EXPECT_NE(out.find("3 per-replica curves and 3 plots"), std::string::npos) << out;
  expect_known_outputs(a);
  EXPECT_NE(read_text(a / "summary.txt").find("replica_NNN_force_*.svg"), std::string::npos);

  // peaks.tsv: two peaks per replica at the rupture forces (smoothing lowers them by a
  // few pN), WLC contour lengths 10 and 20 nm, ΔLc = 10 nm.
  const TsvTable peaks = TsvTable::read(a / "peaks.tsv");
  ASSERT_EQ(peaks.rows(), 6u);
  const auto replica = peaks.column("replica"), index = peaks.column("peak"), force = peaks.column("force[pN]"),
             lc = peaks.column("Lc[nm]"), dlc = peaks.column("dLc[nm]"), ext = peaks.column("extension[nm]"),
             step = peaks.column("step"), time = peaks.column("time[ns]");
  for (std::size_t i = 0; i < 6; ++i) {
    SCOPED_TRACE(i);
    const std::size_t r = i / 2, k = i % 2;
    EXPECT_EQ(replica[i], double(r));
    EXPECT_EQ(index[i], double(k));
    EXPECT_NEAR(force[i], kRuptures[r][k], 9.0);
    EXPECT_NEAR(lc[i], 10.0 * double(k + 1), 0.2);
    if (k == 0) EXPECT_TRUE(std::isnan(dlc[i]));
    else EXPECT_NEAR(dlc[i], 10.0, 0.3);
    EXPECT_LT(ext[i], lc[i]);
    EXPECT_NEAR(time[i], step[i] / 1000.0 * 0.005 / 0.5, 1e-6);  // step and time of one row
  }
  // wlc_fits.tsv keeps its columns in their order and gains total_dLc[nm] last: on each
  // replica's last fitted edge (the one after its last peak, Lc 30 nm) its Lc − the first
  // edge's (10 nm), the 20 nm the two events released in all; nan on the other rows.
  const TsvTable fits = TsvTable::read(a / "wlc_fits.tsv");
  const std::vector<std::string> columns = {"replica", "edge", "before_peak", "Lc[nm]", "P[nm]", "dLc[nm]",
                                            "fit_rms[pN]", "fit_points", "extension_from[nm]", "extension_to[nm]",
                                            "ok", "total_dLc[nm]"};
  const std::string fits_header = read_text(a / "wlc_fits.tsv").substr(0, read_text(a / "wlc_fits.tsv").find('\n'));
  std::string expected_header = "#";
  for (std::size_t c = 0; c < columns.size(); ++c) expected_header += (c ? "\t" : " ") + columns[c];
  EXPECT_EQ(fits_header, expected_header);
  ASSERT_EQ(fits.rows(), 9u);  // two peaks' edges and the edge after the last, per replica
  std::vector<double> totals;
  for (std::size_t i = 0; i < fits.rows(); ++i) {
    SCOPED_TRACE(i);
    const double total = fits.column("total_dLc[nm]")[i];
    if (fits.column("edge")[i] == 2.0) {
      EXPECT_EQ(fits.column("before_peak")[i], 0.0);
      EXPECT_NEAR(fits.column("Lc[nm]")[i], 30.0, 0.4);
      EXPECT_NEAR(total, 20.0, 0.5);
      EXPECT_NEAR(total, fits.column("Lc[nm]")[i] - fits.column("Lc[nm]")[i - 2], 1e-6);
      totals.push_back(total);
    } else {
      EXPECT_TRUE(std::isnan(total));
    }
  }
  ASSERT_EQ(totals.size(), 3u);
  const SampleStatistics total_stats = describe(totals);
  {
    const std::string summary = read_text(a / "summary.txt");
    EXPECT_NE(summary.find("total ΔLc (last − first fitted edge), per replica: n = 3, mean = " + g(total_stats.mean)),
              std::string::npos)
        << summary;
    EXPECT_NE(summary.find("  total ΔLc (last − first fitted edge) = " + g(totals[1]) + " nm (Lc "), std::string::npos)
        << summary;
    // The headline gives it beside the per-event increments (10 nm each), named apart.
    EXPECT_NE(out.find("\n  total ΔLc (last − first fitted edge) " + mean_sd(total_stats, "nm") + "\n"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("\n  ΔLc per event (successive edges) "), std::string::npos) << out;
  }
  // The histogram counts every replica once for its first and its largest peak.
  const TsvTable hist = TsvTable::read(a / "forces_histogram.tsv");
  double first = 0, largest = 0, all = 0;
  for (std::size_t i = 0; i < hist.rows(); ++i) {
    first += hist.column("first_peak")[i];
    largest += hist.column("max_peak")[i];
    all += hist.column("all_peaks")[i];
  }
  EXPECT_EQ(hist.rows(), 5u);
  EXPECT_EQ(first, 3.0);
  EXPECT_EQ(largest, 3.0);
  EXPECT_EQ(all, 6.0);
  const TsvTable curve = TsvTable::read(a / "replica_001_curve.tsv");
  EXPECT_EQ(curve.rows(), 6001u);
  EXPECT_TRUE(curve.has("force_along[pN]") && curve.has("extension[nm]") && curve.has("step"));
  const std::string summary = read_text(a / "summary.txt");
  for (const char* s : {"first peak: n = 3", "ΔLc", "replica_002", "force_extension.svg"})
    EXPECT_NE(summary.find(s), std::string::npos) << s;
  EXPECT_NE(summary.find("T = 300 K (default; run.log gives none)"), std::string::npos) << summary;
  for (const char* f : {"force_extension.svg", "peak_force_histogram.svg", "replica_000_force_extension.svg"})
    expect_svg(a / f);
  EXPECT_NE(read_text(a / "force_extension.svg").find("<circle"), std::string::npos);  // peak markers

  // Existing outputs are not replaced without --force; with it they are; -o elsewhere.
  ASSERT_NE(analyze(run.string(), &out), 0);
  EXPECT_NE(out.find("--force"), std::string::npos) << out;
  EXPECT_NE(out.find("summary.txt"), std::string::npos) << out;
  ASSERT_EQ(analyze(run.string() + " --force --min-peak-drop-pN 30 --fit-persistence-length", &out), 0) << out;
  const fs::path other = test::fresh_directory("analyze-pulling-out") / "here";
  ASSERT_EQ(analyze(run.string() + " -o " + other.string() + " --smooth-points 41 --bins 3", &out), 0) << out;
  EXPECT_EQ(TsvTable::read(other / "forces_histogram.tsv").rows(), 3u);
  EXPECT_EQ(TsvTable::read(other / "peaks.tsv").rows(), 6u);
}

TEST(AnalysisCommand, ErrorsAreClear) {
  const fs::path run = test::fresh_directory("analyze-errors");
  std::string out;
  EXPECT_EQ(analyze(run.string(), &out), 1);
  EXPECT_NE(out.find("no replica_NNN/pulling.tsv"), std::string::npos) << out;
  write_text(run / "replica_000" / "pulling.tsv", pulling_table({100.0, 140.0}, 1, false));
  EXPECT_EQ(analyze(run.string(), &out), 1);
  EXPECT_NE(out.find("replica_000/pulling.tsv"), std::string::npos) << out;
  EXPECT_NE(out.find("force_along[pN]"), std::string::npos) << out;
  EXPECT_NE(out.find("not found"), std::string::npos) << out;
  write_text(run / "replica_000" / "pulling.tsv", pulling_table({100.0, 140.0}, 1));
  EXPECT_NE(analyze(run.string() + " --smooth-window-nm 1 --smooth-points 5", &out), 0);
  // Counts below 1 are refused (-1 was read as 18446744073709551615 rows).
  EXPECT_EQ(analyze(run.string() + " --smooth-points -1", &out), 1);
  EXPECT_NE(out.find("--smooth-points: must be a whole number >= 1, got -1"), std::string::npos) << out;
  EXPECT_EQ(analyze(run.string() + " --bins -1", &out), 1);
  EXPECT_NE(out.find("--bins: must be a whole number >= 1, got -1"), std::string::npos) << out;
  EXPECT_EQ(analyze(run.string() + " --persistence-length-nm -1", &out), 1);
  EXPECT_NE(out.find("--persistence-length-nm"), std::string::npos) << out;
  EXPECT_EQ(analyze(run.string() + " --temperature-K inf", &out), 1);
  EXPECT_NE(out.find("--temperature-K: must be finite"), std::string::npos) << out;
  EXPECT_EQ(analyze(run.string() + " --linear-range-nm 5,1", &out), 1);
  EXPECT_NE(out.find("--linear-range-nm: must be two indentations a,b with 0 ≤ a < b"), std::string::npos) << out;
  EXPECT_EQ(analyze(run.string() + " --contact-force-pN -1", &out), 1);
  // A table appended to itself.
  const std::string table = pulling_table({100.0, 140.0}, 1);
  write_text(run / "replica_000" / "pulling.tsv", table + table.substr(table.find('\n') + 1));
  EXPECT_EQ(analyze(run.string() + " --force", &out), 1);
  EXPECT_NE(out.find("does not follow step"), std::string::npos) << out;
  // A directory where a table belongs.
  fs::remove(run / "replica_000" / "pulling.tsv");
  fs::create_directories(run / "replica_000" / "pulling.tsv");
  EXPECT_EQ(analyze(run.string() + " --force", &out), 1);
  EXPECT_NE(out.find("is a directory, not a table"), std::string::npos) << out;
  // One row: left out with a warning, not taken for a force clamp.
  fs::remove(run / "replica_000" / "pulling.tsv");
  write_text(run / "replica_000" / "pulling.tsv", table.substr(0, table.find('\n', table.find('\n') + 1) + 1));
  EXPECT_EQ(analyze(run.string() + " --force", &out), 0) << out;
  EXPECT_NE(out.find("one row only; replica left out"), std::string::npos) << out;
  EXPECT_EQ(out.find("force clamp"), std::string::npos) << out;
}

// An indentation.tsv of rows i = 0 … last (step 100 i, 0.01 i ns): the base at base(i), the tip
// at tip(b), where the cantilever (40 pN/nm) balances the molecule; the spring and molecule
// forces both 40·(b − t) plus Gaussian noise of spring_sd and molecule_sd.
std::string indentation_rows(int last, std::mt19937_64& rng, const std::function<double(int)>& base,
                             const std::function<double(double)>& tip, double spring_sd, double molecule_sd) {
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::string text = "# step\ttime[ns]\tbase[nm]\ttip[nm]\ttip_x[nm]\ttip_y[nm]\ttip_z[nm]\tspring_force[pN]\tmolecule_force[pN]\n";
  for (int i = 0; i <= last; ++i) {
    const double b = base(i), t = tip(b), f = 40.0 * (b - t);
    char line[256];
    std::snprintf(line, sizeof line, "%d\t%.4f\t%.6f\t%.6f\t0\t0\t%.6f\t%.6f\t%.6f\n", 100 * i, 0.01 * i, b, t, -t,
                  f + spring_sd * gauss(rng), f + molecule_sd * gauss(rng));
    text += line;
  }
  return text;
}

// An approach pressed on into the substrate without a peak (molecule 25 pN/nm from tip = 4 nm,
// the wall 2000 pN/nm from 6 nm; base to 40 nm): the automatic window up to 0.7 × the largest
// force holds the wall, which the summary says.
TEST(AnalysisCommand, AnIndentationPressedIntoTheWallIsNoted) {
  const fs::path run = test::fresh_directory("analyze-indentation-wall");
  // The tip where the spring balances the molecule, then molecule + wall.
  auto tip = [](double b) {
    const double t = b <= 4.0 ? b : (40.0 * b + 25.0 * 4.0) / 65.0;
    return t > 6.0 ? (40.0 * b + 25.0 * 4.0 + 2000.0 * 6.0) / 2065.0 : t;
  };
  std::mt19937_64 rng(6);
  write_text(run / "replica_000" / "indentation.tsv",
             indentation_rows(8000, rng, [](int i) { return 0.005 * i; }, tip, 2.0, 2.0));
  std::string out;
  ASSERT_EQ(analyze(run.string(), &out), 0) << out;
  const std::string summary = read_text(run / "analysis" / "summary.txt");
  EXPECT_NE(summary.find("note: the approach reached"), std::string::npos) << summary;
  EXPECT_NE(summary.find("without a peak, far past a protein's forces"), std::string::npos) << summary;
  // Given the molecule's range, the fit is the molecule's 25 pN/nm and the note goes.
  ASSERT_EQ(analyze(run.string() + " --force --linear-range-nm 0.2,1.5", &out), 0) << out;
  const std::string given = read_text(run / "analysis" / "summary.txt");
  EXPECT_EQ(given.find("note: the approach reached"), std::string::npos) << given;
}

// An indentation run of more than 100 replicas: the overlay draws the first 100 approaches
// and every breaking event, the first 100 replicas get their own files, each replica's
// block goes to replicas.txt, and the statistics cover all.
TEST(AnalysisCommand, AManyReplicaIndentationDrawsAHundredCurves) {
  const fs::path run = test::fresh_directory("analyze-indentation-many");
  // Molecule 25 pN/nm from tip = 4 nm (as above, without the wall); base to 8 nm.
  auto tip = [](double b) { return b <= 4.0 ? b : (40.0 * b + 25.0 * 4.0) / 65.0; };
  std::mt19937_64 rng(9);
  const std::string table = indentation_rows(1600, rng, [](int i) { return 0.005 * i; }, tip, 2.0, 2.0);
  for (int r = 0; r < 101; ++r) {
    char dir[32];
    std::snprintf(dir, sizeof dir, "replica_%03d", r);
    write_text(run / dir / "indentation.tsv", table);
  }
  std::string out;
  ASSERT_EQ(analyze(run.string(), &out), 0) << out;
  const fs::path a = run / "analysis";
  const std::string svg = read_text(a / "force_indentation.svg");
  EXPECT_NE(svg.find("curves and fits of the first 100 of 101 replicas; events of all"), std::string::npos);
  std::size_t curves = 0;
  for (auto at = svg.find("stroke-width=\"1.5\""); at != std::string::npos; at = svg.find("stroke-width=\"1.5\"", at + 1))
    ++curves;
  EXPECT_EQ(curves, 100u);
  EXPECT_TRUE(fs::exists(a / "replica_099_force_indentation.svg"));
  EXPECT_FALSE(fs::exists(a / "replica_100_curve.tsv"));
  const std::string summary = read_text(a / "summary.txt");
  EXPECT_NE(summary.find("spring constant k: n = 101"), std::string::npos) << summary;
  EXPECT_NE(summary.find("per replica (contact, linear regime, spring constant, breaking events, notes): replicas.txt"),
            std::string::npos)
      << summary;
  EXPECT_NE(read_text(a / "replicas.txt").find("\nreplica_100: 1601 rows"), std::string::npos);
  EXPECT_NE(summary.find("force–indentation curves and linear fits of the first 100 replicas, breaking events of all"),
            std::string::npos)
      << summary;
}

// A base that turned before the tip touched anything (a force trigger on the free tip's noise):
// no contact, and the summary says where the base turned.
TEST(AnalysisCommand, ATurnBeforeContactIsNamed) {
  const fs::path run = test::fresh_directory("analyze-indentation-no-contact");
  // A free tip (on the base): no molecule force, the spring's noise alone.
  std::mt19937_64 rng(8);
  const std::string text = indentation_rows(
      2000, rng, [](int i) { return i <= 1200 ? 0.005 * i : 0.005 * (2400 - i); }, [](double b) { return b; }, 20.0, 0.01);
  write_text(run / "replica_000" / "indentation.tsv", text);
  std::string out;
  ASSERT_EQ(analyze(run.string(), &out), 0) << out;
  const std::string summary = read_text(run / "analysis" / "summary.txt");
  EXPECT_NE(summary.find("contact: not found"), std::string::npos) << summary;
  EXPECT_NE(summary.find("the base turned at step 120000 before any contact"), std::string::npos) << summary;
}

TEST(AnalysisCommand, IndentationAndForceClamp) {
  const fs::path run = test::fresh_directory("analyze-indentation");
  // Indentation: contact at tip = 4 nm, molecule stiffness 25 pN/nm until 120 pN, then a
  // softer 10 pN/nm branch; cantilever 40 pN/nm; base in to 15 nm and back.
  bool broken = false;
  auto tip = [&broken](double b) {
    auto on = [b](double k, double tc) { return b <= tc ? b : (40.0 * b + k * tc) / (40.0 + k); };
    double t = broken ? on(10.0, 7.0) : on(25.0, 4.0);
    if (!broken && 40.0 * (b - t) >= 120.0) {
      broken = true;
      t = on(10.0, 7.0);
    }
    return t;
  };
  std::mt19937_64 rng(4);
  std::normal_distribution<double> gauss(0.0, 1.0);  // for the tables below
  const std::string text = indentation_rows(
      6000, rng, [](int i) { return i <= 3000 ? 0.005 * i : 0.005 * (6000 - i); }, tip, 2.0, 2.0);
  write_text(run / "replica_000" / "indentation.tsv", text);
  std::string out;
  ASSERT_EQ(analyze(run.string(), &out), 0) << out;
  EXPECT_NE(out.find("indentation: 1 replica; spring constant"), std::string::npos) << out;
  const fs::path a = run / "analysis";
  for (const char* f : {"force_indentation.svg", "replica_000_force_indentation.svg"}) expect_svg(a / f);
  const TsvTable peaks = TsvTable::read(a / "peaks.tsv");
  ASSERT_EQ(peaks.rows(), 1u);
  EXPECT_NEAR(peaks.column("force[pN]")[0], 120.0, 8.0);
  const std::string summary = read_text(a / "summary.txt");
  EXPECT_EQ(summary.find("no rows in it"), std::string::npos) << "one linear-regime line: " << summary;
  const std::size_t at = summary.find("spring constant k = ");
  ASSERT_NE(at, std::string::npos) << summary;
  EXPECT_NEAR(std::stod(summary.substr(at + 20)), 25.0, 0.6) << summary.substr(at, 80);
  expect_known_outputs(a);
  const TsvTable curve = TsvTable::read(a / "replica_000_curve.tsv");
  EXPECT_EQ(curve.column("retraction")[6000], 1.0);
  EXPECT_EQ(curve.column("retraction")[3000], 0.0);

  // A curve that is mostly noise (a spiky tip force, rows every 0.1 nm: three per smoothing
  // window, the row and one either side within ±0.1 nm): the fitted k is shown but flagged and
  // kept out of the statistics and the headline, and the summary says the windows hold too few
  // rows.
  const fs::path noisy = test::fresh_directory("analyze-indentation-noisy");
  std::string rough = text.substr(0, text.find('\n') + 1);
  for (int i = 0; i <= 300; ++i) {
    const double b = i <= 150 ? 0.1 * i : 0.1 * (300 - i);
    const double f = 0.5 * std::max(0.0, b - 2.0) + 60.0 * gauss(rng);
    char line[256];
    std::snprintf(line, sizeof line, "%d\t%.4f\t%.6f\t%.6f\t0\t0\t%.6f\t%.6f\t%.6f\n", 100 * i, 0.01 * i, b, b, -b, f,
                  f + 5.0 * gauss(rng));
    rough += line;
  }
  write_text(noisy / "replica_000" / "indentation.tsv", rough);
  ASSERT_EQ(analyze(noisy.string() + " --contact-force-pN 20", &out), 0) << out;
  EXPECT_NE(out.find("indentation: 1 replica; spring constant n/a (1 unreliable fit left out)"), std::string::npos)
      << out;
  const std::string noisy_summary = read_text(noisy / "analysis" / "summary.txt");
  EXPECT_NE(noisy_summary.find("    unreliable ("), std::string::npos) << noisy_summary;
  EXPECT_NE(noisy_summary.find("note: a smoothing window holds only 3"), std::string::npos) << noisy_summary;
  EXPECT_EQ(summary.find("note: a smoothing window holds only"), std::string::npos) << "41 rows a window above";

  // Force clamp: the base never moves; extension against time.
  const fs::path clamp = test::fresh_directory("analyze-clamp");
  std::string c = "# step\ttime[ns]\tbase[nm]\tend_to_end[nm]\textension[nm]\tforce_x[pN]\tforce_y[pN]\tforce_z[pN]\tforce[pN]\tforce_along[pN]\n";
  for (int i = 0; i < 2000; ++i) {
    const double x = i < 700 ? 2.0 + 0.1 * gauss(rng) : 12.0 + 0.1 * gauss(rng);
    c += std::to_string(i) + "\t" + std::to_string(0.05 * i) + "\t0\t" + std::to_string(x) + "\t" + std::to_string(x) +
         "\t80\t0\t0\t80\t80\n";
  }
  write_text(clamp / "replica_000" / "pulling.tsv", c);
  ASSERT_EQ(analyze(clamp.string(), &out), 0) << out;
  EXPECT_NE(out.find("force clamp: 1 replica"), std::string::npos) << out;
  expect_svg(clamp / "analysis" / "extension_time.svg");
  EXPECT_NE(read_text(clamp / "analysis" / "summary.txt").find("Force clamp"), std::string::npos);
  // A force clamp's replica gets its curve table, no plot of its own: the summary and the
  // brief list only what was written.
  EXPECT_TRUE(fs::exists(clamp / "analysis" / "replica_000_curve.tsv"));
  EXPECT_FALSE(fs::exists(clamp / "analysis" / "replica_000_force_extension.svg"));
  EXPECT_NE(out.find("extension_time.svg and 1 per-replica curve\n"), std::string::npos) << out;
  EXPECT_EQ(read_text(clamp / "analysis" / "summary.txt").find("replica_NNN_force_*.svg"), std::string::npos);
  EXPECT_NE(out.find("force clamp: 1 replica, 1 with a transition (the extension grew by max(1 nm, 8 σ_x) or more); "
                     "half-way time "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("--unfolded-extension-nm X"), std::string::npos) << out;

  // A replica whose extension only wobbles (no transition) has no half-way time and is
  // left out of its statistics; one still rising at its end is noted.
  std::string flat = c.substr(0, c.find('\n') + 1), rising = flat;
  for (int i = 0; i < 2000; ++i) {
    const double wobble = 2.0 + 0.1 * gauss(rng), ramp = 2.0 + 0.01 * i + 0.1 * gauss(rng);
    flat += std::to_string(i) + "\t" + std::to_string(0.05 * i) + "\t0\t" + std::to_string(wobble) + "\t" +
            std::to_string(wobble) + "\t80\t0\t0\t80\t80\n";
    rising += std::to_string(i) + "\t" + std::to_string(0.05 * i) + "\t0\t" + std::to_string(ramp) + "\t" +
              std::to_string(ramp) + "\t80\t0\t0\t80\t80\n";
  }
  write_text(clamp / "replica_001" / "pulling.tsv", flat);
  write_text(clamp / "replica_002" / "pulling.tsv", rising);
  ASSERT_EQ(analyze(clamp.string() + " --force", &out), 0) << out;
  EXPECT_NE(out.find("force clamp: 3 replicas, 2 with a transition"), std::string::npos) << out;
  const std::string clamps = read_text(clamp / "analysis" / "summary.txt");
  EXPECT_NE(clamps.find("no transition"), std::string::npos) << clamps;
  EXPECT_NE(clamps.find("replicas with a transition that lengthens the chain (an intermediate, a creep or unfolding: "
                        "--unfolded-extension-nm X tells): 2 of 3"),
            std::string::npos)
      << clamps;
  EXPECT_NE(clamps.find("note: replica_002: the extension still changed by"), std::string::npos) << clamps;
  EXPECT_EQ(clamps.find("note: replica_000:"), std::string::npos) << clamps;

  // Unfolding times to an extension of 10 nm, from the recorded rows: replica 0 jumps at row
  // 700 (35 ns), replica 2 passes 10 nm near row 800 (40 ns), replica 1 never (censored at its
  // last row, 99.95 ns); the exponential lifetime τ = total time at risk / unfoldings.
  ASSERT_EQ(analyze(clamp.string() + " --force --unfolded-extension-nm 10", &out), 0) << out;
  const TsvTable times = TsvTable::read(clamp / "analysis" / "unfolding_times.tsv");
  ASSERT_EQ(times.rows(), 3u);
  EXPECT_NEAR(times.column("time[ns]")[0], 35.0, 1e-9);
  EXPECT_EQ(times.column("unfolded")[0], 1.0);
  EXPECT_NEAR(times.column("time[ns]")[1], 99.95, 1e-9);
  EXPECT_EQ(times.column("unfolded")[1], 0.0);
  EXPECT_NEAR(times.column("time[ns]")[2], 40.0, 1.0);
  EXPECT_EQ(times.column("force[pN]")[2], 80.0);
  const double tau = (times.column("time[ns]")[0] + times.column("time[ns]")[1] + times.column("time[ns]")[2]) / 2.0;
  EXPECT_NE(out.find("unfolded (extension ≥ 10 nm): 2 of 3; lifetime τ = " + g(tau)), std::string::npos) << out;
  expect_known_outputs(clamp / "analysis");
  // None unfolded: the lower bound T/ln 20 on τ, T = 3 × 99.95 ns at risk.
  ASSERT_EQ(analyze(clamp.string() + " --force --unfolded-extension-nm 100", &out), 0) << out;
  EXPECT_NE(out.find("lifetime τ = n/a (no replica unfolded in 299.9 ns in all: τ > 100 ns at 95 %)"), std::string::npos)
      << out;
  // A threshold within the folded state's thermal motion is noted, also where that motion is
  // slow: a wobble of ±0.5 nm over 100 rows, which a running mean of 21 rows follows (the rms
  // about it, σ_x ~ 0.03 nm, missed it: an audit's WW clamp at 20 pN was "unfolded" by 1.2 nm).
  {
    const fs::path wobbly = test::fresh_directory("analyze-clamp-threshold");
    std::string w = c.substr(0, c.find('\n') + 1);
    for (int i = 0; i < 2000; ++i) {
      const double x = 2.0 + 0.5 * std::sin(2.0 * M_PI * i / 100.0) + 0.02 * gauss(rng);
      w += std::to_string(i) + "\t" + std::to_string(0.05 * i) + "\t0\t" + std::to_string(x) + "\t" +
           std::to_string(x) + "\t20\t0\t0\t20\t20\n";
    }
    write_text(wobbly / "replica_000" / "pulling.tsv", w);
    ASSERT_EQ(analyze(wobbly.string() + " --unfolded-extension-nm 3", &out), 0) << out;
    const std::string noted = read_text(wobbly / "analysis" / "summary.txt");
    EXPECT_NE(noted.find("note: 3 nm lies within the starting extensions' fluctuations"), std::string::npos) << noted;
    // Beyond the wobble's reach (2 nm + 3 × ~0.52 nm): no note.
    ASSERT_EQ(analyze(wobbly.string() + " --force --unfolded-extension-nm 4", &out), 0) << out;
    EXPECT_EQ(read_text(wobbly / "analysis" / "summary.txt").find("starting extensions' fluctuations"),
              std::string::npos);
  }
  // A clamp is smoothed over 1 % of its rows, at most 101: the summary gives them in rows and ns
  // (these tables: 2000 rows every 0.05 ns → 21 rows, 20 intervals: 1 ns).
  EXPECT_NE(read_text(clamp / "analysis" / "summary.txt")
                .find("smoothing: centred running average over 1 % of the rows, at most 101 (a force clamp's base "
                      "does not move): 21 rows, 1 ns in replica_000"),
            std::string::npos)
      << read_text(clamp / "analysis" / "summary.txt");
  // A table that stops before the run's steps: a stopped run, whose censored replicas may
  // still unfold.
  write_text(clamp / "run.log", "[run]\nsteps = 5000\n");
  ASSERT_EQ(analyze(clamp.string() + " --force --unfolded-extension-nm 10", &out), 0) << out;
  EXPECT_NE(read_text(clamp / "analysis" / "summary.txt")
                .find("note: the tables end at step 1999 of the run's 5000 (run.log): a run stopped early"),
            std::string::npos)
      << read_text(clamp / "analysis" / "summary.txt");
  // …and the terminal's line says so too, not only the summary (a user audit).
  EXPECT_NE(out.find("force clamp: 3 replicas (the run stopped at step 1999 of 5000), 2 with a transition"),
            std::string::npos)
      << out;
  // One that ended with an error: --resume would repeat it, and the note says so. An error of
  // an earlier start that a resume got past does not count.
  write_text(clamp / "run.log",
             "[2026-11-29 10:00:00] ermak 0.1.0 starting run.toml\n[run]\nsteps = 5000\n"
             "[2026-11-29 10:00:01] running steps 0 .. 5000 on backend cpu\n"
             "[2026-11-29 10:00:01] error: an earlier start's error\n"
             "[2026-11-29 10:00:02] ermak 0.1.0 resuming run.toml\n[run]\nsteps = 5000\n"
             "[2026-11-29 10:00:02] running steps 1000 .. 5000 on backend cpu\n"
             "[2026-11-29 10:00:03] error: a FENE bond broke between steps 1999 and 2000: …\n");
  ASSERT_EQ(analyze(clamp.string() + " --force --unfolded-extension-nm 10", &out), 0) << out;
  std::string ended = read_text(clamp / "analysis" / "summary.txt");
  EXPECT_NE(ended.find("note: the tables end at step 1999 of the run's 5000: the run ended with an error (run.log: "
                         "\"a FENE bond broke between steps 1999 and 2000: …\"), which --resume would repeat"),
            std::string::npos)
      << ended;
  EXPECT_NE(out.find("force clamp: 3 replicas (the run ended with an error at step 1999 of 5000: summary.txt), 2 "
                     "with a transition"),
            std::string::npos)
      << out;
  write_text(clamp / "run.log",
             "[2026-11-29 10:00:00] ermak 0.1.0 starting run.toml\n[run]\nsteps = 5000\n"
             "[2026-11-29 10:00:01] running steps 0 .. 5000 on backend cpu\n"
             "[2026-11-29 10:00:01] error: an earlier start's error\n"
             "[2026-11-29 10:00:02] ermak 0.1.0 resuming run.toml\n"
             "[2026-11-29 10:00:02] running steps 1000 .. 5000 on backend cpu\n");
  ASSERT_EQ(analyze(clamp.string() + " --force --unfolded-extension-nm 10", &out), 0) << out;
  ended = read_text(clamp / "analysis" / "summary.txt");
  EXPECT_NE(ended.find("a run stopped early (--resume continues it)"), std::string::npos) << ended;
  // A --resume refused before its steps (another configuration, here 9000 steps and its error)
  // changed nothing: the run is still the one that stopped at 1999 of 5000.
  write_text(clamp / "run.log",
             "[2026-11-29 10:00:00] ermak 0.1.0 starting run.toml\n[run]\nsteps = 5000\n"
             "[2026-11-29 10:00:01] running steps 0 .. 5000 on backend cpu\n"
             "[2026-11-29 10:00:05] ermak 0.1.0 resuming run.toml\n[run]\nsteps = 9000\n"
             "[2026-11-29 10:00:05] error: checkpoint.ckpt: the configuration differs …\n");
  ASSERT_EQ(analyze(clamp.string() + " --force --unfolded-extension-nm 10", &out), 0) << out;
  ended = read_text(clamp / "analysis" / "summary.txt");
  EXPECT_NE(ended.find("note: the tables end at step 1999 of the run's 5000 (run.log): a run stopped early"),
            std::string::npos)
      << ended;
  // A force schedule is no clamp at one force: no lifetime.
  std::string ramp = c.substr(0, c.find('\n') + 1);
  for (int i = 0; i < 2000; ++i)
    ramp += std::to_string(i) + "\t" + std::to_string(0.05 * i) + "\t0\t2\t2\t0\t0\t0\t" + std::to_string(0.1 * i) +
            "\t" + std::to_string(0.1 * i) + "\n";
  write_text(clamp / "replica_001" / "pulling.tsv", ramp);
  ASSERT_EQ(analyze(clamp.string() + " --force --unfolded-extension-nm 10", &out), 0) << out;
  EXPECT_NE(out.find("no unfolding times: a force schedule, not a clamp at one force"), std::string::npos) << out;
  // --force removed the earlier analysis's unfolding_times.tsv, which this one does not write.
  EXPECT_FALSE(fs::exists(clamp / "analysis" / "unfolding_times.tsv"));
  // Not a clamp run: the option is named and not used.
  ASSERT_EQ(analyze(make_pulling_run("analyze-unfolded-on-pulling").string() +
                        " --smooth-window-nm 0.25 --unfolded-extension-nm 10 --contact-force-pN 5 --plane-group 1",
                    &out),
            0)
      << out;
  EXPECT_NE(out.find("--unfolded-extension-nm applies to force-clamp runs"), std::string::npos) << out;
  // Nor are options of the other protocols dropped in silence.
  EXPECT_NE(out.find("--contact-force-pN applies to indentation, and this run has none: not used"), std::string::npos)
      << out;
  EXPECT_NE(out.find("--plane-group applies to plane pulling, and this run has none: not used"), std::string::npos)
      << out;
}

// A pulling table damaged into values no run writes stops the analysis at its line: a
// force_along larger than the force's magnitude in its row (a fuzzing audit's 1e300 became a
// curve at 10²⁹⁸ pN), an extension longer than the end-to-end distance.
TEST(AnalysisCommand, ADamagedPullingTableIsNamedAtItsLine) {
  const fs::path run = make_pulling_run("analyze-damaged-pulling");
  const fs::path table = run / "replica_001" / "pulling.tsv";
  const std::string whole = read_text(table);
  const TsvTable parsed = TsvTable::read(table);
  const std::size_t along = *parsed.find("force_along[pN]");
  // Line 19: its force_along column replaced.
  auto damaged = [&](std::size_t column, const std::string& value) {
    std::string text;
    std::istringstream lines(whole);
    int number = 0;
    for (std::string line; std::getline(lines, line);) {
      if (++number == 19) {
        std::vector<std::string> fields;
        std::istringstream f(line);
        for (std::string v; std::getline(f, v, '\t');) fields.push_back(v);
        fields.at(column) = value;
        line.clear();
        for (std::size_t k = 0; k < fields.size(); ++k) line += (k ? "\t" : "") + fields[k];
      }
      text += line + "\n";
    }
    return text;
  };
  write_text(table, damaged(along, "1e300"));
  std::string out;
  EXPECT_EQ(analyze(run.string(), &out), 1) << out;
  EXPECT_NE(out.find("pulling.tsv:19: force_along[pN]: 1e+300 is larger than force[pN] ="), std::string::npos) << out;
  write_text(table, damaged(*parsed.find("extension[nm]"), "1e300"));
  EXPECT_EQ(analyze(run.string(), &out), 1) << out;
  EXPECT_NE(out.find("pulling.tsv:19: extension[nm]: 1e+300 is larger than end_to_end[nm] ="), std::string::npos)
      << out;
}

// A run at one temperature without a force protocol has no curve to analyse: the error says
// what the directory is rather than what it is not.
TEST(AnalysisCommand, ARunAtOneTemperatureIsNamedAsSuch) {
  const fs::path run = test::fresh_directory("analyze-equilibrium");
  write_text(run / "run.log", "[run]\nsteps = 1000\ntemperature_K = 300\n");
  write_text(run / "replica_000" / "energies.tsv", "# step\ttime[ns]\tQ\n0\t0\t1\n1000\t19.84\t0.98\n");
  std::string out;
  EXPECT_EQ(analyze(run.string(), &out), 1) << out;
  EXPECT_NE(out.find("a run without a force protocol at one temperature (no [heating] in its run.log)"),
            std::string::npos)
      << out;
  EXPECT_EQ(analyze((run / "replica_000").string(), &out), 1) << out;
  EXPECT_NE(out.find("one replica's directory without a protocol table"), std::string::npos) << out;
  // A temperature no run writes is a damaged run.log, named at its line (it was taken as no
  // temperature, and the analysis went on at a default 300 K).
  write_text(run / "run.log", "[run]\nsteps = 1000\ntemperature_K = -5\n");
  EXPECT_EQ(analyze(run.string(), &out), 1) << out;
  EXPECT_NE(out.find("run.log:3: run.temperature_K: '-5' is no temperature a run writes (a damaged run.log); "
                     "--temperature-K gives the analysis one"),
            std::string::npos)
      << out;
  // With --temperature-K the run.log's temperature is not needed: the analysis goes on (to
  // the error of a run without a protocol).
  EXPECT_EQ(analyze(run.string() + " --temperature-K 300", &out), 1) << out;
  EXPECT_EQ(out.find("no temperature a run writes"), std::string::npos) << out;
  EXPECT_NE(out.find("a run without a force protocol at one temperature"), std::string::npos) << out;
  // A pulling run whose tables are gone is not called a run without a protocol.
  write_text(run / "run.log", "[run]\nsteps = 1000\n[pulling]\npulled_beads = [33]\n");
  EXPECT_EQ(analyze(run.string(), &out), 1) << out;
  EXPECT_NE(out.find("its run.log names [pulling], but no replica directory holds that protocol's table"),
            std::string::npos)
      << out;
}

// A clamp that heats ([heating] with [force_clamp]) gives its times with a note that they
// are over a changing temperature (the spectrum refuses such runs); a threshold no replica
// reached is said with the largest extension recorded, and one beyond the chain's contour
// length between the ends (model.etop, run.log's "ends 0 33") is said to be out of any
// force's or run's reach, not left to "a larger force or longer runs" (an audit's WW clamp
// at --unfolded-extension-nm 20, contour length 12.5 nm).
TEST(AnalysisCommand, AClampThatHeatsOrCannotReachItsThresholdIsNoted) {
  const fs::path run = test::fresh_directory("analyze-clamp-heating");
  write_topology_file(test::linear_chain(34, 3.8f), run / "model.etop");  // 12.54 nm from bead 0 to 33
  const std::string clamp_line = "[2026-12-01 10:00:00] force clamp: beads [33], each pulled with 80 pN, along (1, 0, "
                                 "0); ends 0 33; output every 1 steps (pulling.tsv)\n";
  write_text(run / "run.log", "[run]\nsteps = 1999\n# temperature: the [heating] start\n[heating]\nstart_K = 300.0\n"
                              "stop_K = 500.0\nevery_steps = 1000\n\n[force_clamp]\nforce_pN = 80.0\n" +
                                  clamp_line);
  const std::string header = "# step\ttime[ns]\tbase[nm]\tend_to_end[nm]\textension[nm]\tforce_x[pN]\tforce_y[pN]\t"
                             "force_z[pN]\tforce[pN]\tforce_along[pN]\n";
  // Replica 0 unfolds to 11 nm at row 700, replica 1 stays folded at 1 nm.
  for (int r = 0; r < 2; ++r) {
    std::string t = header;
    for (int i = 0; i < 2000; ++i) {
      const double x = r == 0 && i >= 700 ? 11.0 + 0.01 * (i % 3) : 1.0 + 0.01 * (i % 3);
      t += std::to_string(i) + "\t" + std::to_string(0.05 * i) + "\t0\t" + std::to_string(x) + "\t" +
           std::to_string(x) + "\t80\t0\t0\t80\t80\n";
    }
    write_text(run / ("replica_00" + std::to_string(r)) / "pulling.tsv", t);
  }
  std::string out;
  ASSERT_EQ(analyze(run.string() + " --unfolded-extension-nm 8", &out), 0) << out;
  std::string summary = read_text(run / "analysis" / "summary.txt");
  EXPECT_NE(summary.find("note: the run heats (300 K to 500 K, [heating] in run.log) while the clamp holds: these "
                         "times are over a changing temperature, and τ is the lifetime at no one temperature"),
            std::string::npos)
      << summary;
  EXPECT_NE(out.find("unfolded (extension ≥ 8 nm): 1 of 2; lifetime τ = "), std::string::npos) << out;
  EXPECT_NE(out.find(" — over a changing temperature (300 K to 500 K, [heating]): at no one temperature"),
            std::string::npos)
      << out;
  // Beyond the contour length: out of reach, whatever the force or the run's length.
  ASSERT_EQ(analyze(run.string() + " --force --unfolded-extension-nm 20", &out), 0) << out;
  summary = read_text(run / "analysis" / "summary.txt");
  EXPECT_NE(summary.find("(95 %, T/ln 20); but 20 nm lies beyond the chain's contour length "
                         "between beads 0 and 33 (12.5 nm, its native bond lengths summed, model.etop), which the "
                         "chain passes only by stretching its bonds: a larger force or longer runs will not reach it "
                         "(the largest extension recorded: 11.02 nm)"),
            std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("a larger force or longer runs measure it"), std::string::npos) << summary;
  EXPECT_NE(out.find("τ > 66.7 ns at 95 %) — 20 nm lies beyond the chain's contour length, 12.5 nm: no force or run "
                     "reaches it"),
            std::string::npos)
      << out;
  // Below the contour length but above every extension recorded: a larger force or longer runs.
  ASSERT_EQ(analyze(run.string() + " --force --unfolded-extension-nm 12", &out), 0) << out;
  summary = read_text(run / "analysis" / "summary.txt");
  EXPECT_NE(summary.find("; the largest extension recorded is 11.02 nm, below 12 nm: a larger force or longer runs "
                         "measure it, or give the extension of the unfolded state the replicas reach"),
            std::string::npos)
      << summary;
  // At one temperature, no note of a changing one.
  write_text(run / "run.log", "[run]\nsteps = 1999\ntemperature_K = 300\n" + clamp_line);
  ASSERT_EQ(analyze(run.string() + " --force --unfolded-extension-nm 8", &out), 0) << out;
  EXPECT_EQ(read_text(run / "analysis" / "summary.txt").find("changing temperature"), std::string::npos);
}

// The loading rate the run log states is repeated in the summary; a replica whose table
// stops early is named; statistics over fewer replicas than ran say so.
// A replica directory whose table is gone is named, not silently dropped.
TEST(AnalysisCommand, AReplicaWithoutItsTableIsNamed) {
  const fs::path run = make_pulling_run("analyze-missing-table");
  fs::remove(run / "replica_001" / "pulling.tsv");
  std::string out;
  ASSERT_EQ(analyze(run.string() + " --smooth-window-nm 0.25", &out), 0) << out;
  EXPECT_NE(out.find("replica_001: no pulling.tsv, indentation.tsv or plane.tsv, which the other replicas have; "
                     "replica left out of the analysis"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("pulling: 2 replicas"), std::string::npos) << out;
}

// The table's force sums the springs of all pulled beads: with four, it loads at 4κv, and
// the maxima are checked against that (the tables load at 2.5·10¹⁰ pN/s: 4κv = 8·10⁹ pN/s
// loads every rise of these WLC edges, κv = 2·10⁹ pN/s does not).
TEST(AnalysisCommand, SeveralPulledBeadsLoadAtTheirSpringsSummedRate) {
  const fs::path run = make_pulling_run("analyze-four-beads");
  write_text(run / "run.log", "[info] pulling: beads [33, 32, 31, 30] on springs κ = 25 pN/nm; ends 0 33; loading "
                              "rate κv = 2e+09 pN/s; output every 1000 steps (pulling.tsv)\n");
  std::string out;
  ASSERT_EQ(analyze(run.string() + " --smooth-window-nm 0.25", &out), 0) << out;
  EXPECT_NE(out.find("pulling: 3 replicas, 6 unfolding peaks"), std::string::npos) << out;
  const std::string summary = read_text(run / "analysis" / "summary.txt");
  EXPECT_EQ(summary.find("left out: "), std::string::npos);
  // The summary's rate is the one the summed force rises at, as the spectrum's (an audit
  // found κv of one spring there, m times below the spectrum's rate for the same run).
  EXPECT_NE(summary.find("loading rate m·κv = 8e+09 pN/s (4 pulled beads, each on a spring loaded at κv = 2e+09 pN/s"),
            std::string::npos)
      << summary;
  // One bead on the same spring would not load these rises: maxima are left out.
  write_text(run / "run.log", "[info] pulling: beads [33] on springs κ = 25 pN/nm; ends 0 33; loading rate κv = "
                              "2e+09 pN/s; output every 1000 steps (pulling.tsv)\n");
  ASSERT_EQ(analyze(run.string() + " --force --smooth-window-nm 0.25", &out), 0) << out;
  EXPECT_NE(read_text(run / "analysis" / "summary.txt").find("left out: "), std::string::npos);
}

// A constant-velocity pull during heating: its forces are over a changing temperature and the
// WLC fits take the schedule's start kT (docs/analysis.md#worm-like-chain-fits-lc-and-δlc).
TEST(AnalysisCommand, APullThatHeatsIsNoted) {
  const fs::path run = make_pulling_run("analyze-pulling-heating");
  write_text(run / "run.log", "[run]\nsteps = 6000000\n# temperature: the [heating] start\n[heating]\nstart_K = 300.0\n"
                              "stop_K = 400.0\nevery_steps = 1000000\n\n[output]\n"
                              "[info] pulling: beads 33 ends 0 33; loading rate κv = 2.5e+10 pN/s; output every "
                              "1000 steps (pulling.tsv)\n");
  std::string out;
  ASSERT_EQ(analyze(run.string(), &out), 0) << out;
  const std::string summary = read_text(run / "analysis" / "summary.txt");
  EXPECT_NE(summary.find("note: the run heats (300 K to 400 K, [heating] in run.log) while it pulls: its forces are "
                         "over a changing temperature, and the WLC fits use kT = 4.142 pN·nm (T = 300 K)"),
            std::string::npos)
      << summary;
  // At one temperature: no such note.
  write_text(run / "run.log", "[run]\nsteps = 6000000\ntemperature_K = 300\n\n[output]\n"
                              "[info] pulling: beads 33 ends 0 33; loading rate κv = 2.5e+10 pN/s; output every "
                              "1000 steps (pulling.tsv)\n");
  ASSERT_EQ(analyze(run.string() + " --force", &out), 0) << out;
  EXPECT_EQ(read_text(run / "analysis" / "summary.txt").find("while it pulls"), std::string::npos);
}

TEST(AnalysisCommand, PullingSummaryNotesLoadingRateAndShortTables) {
  const fs::path run = make_pulling_run("analyze-pulling-notes");
  // κv as the tables are made: 50 pN/nm at 0.5 nm/ns (a maximum that rises faster is left out).
  write_text(run / "run.log", "[run]\nsteps = 6000000\ntemperature_kcal_per_mol = 0.6  # = 301.93 K\n\n[output]\n"
                              "[info] pulling: beads 33 ends 0 33; loading rate κv = 2.5e+10 pN/s; output every "
                              "1000 steps (pulling.tsv)\n");
  // Replica 2 cut (after 1000 rows, step 999000) before its first rupture: no peak, and a
  // table shorter than the others'..
  const std::string table = read_text(run / "replica_002" / "pulling.tsv");
  std::size_t cut = 0;
  for (int line = 0; line < 1001; ++line) cut = table.find('\n', cut) + 1;
  write_text(run / "replica_002" / "pulling.tsv", table.substr(0, cut));
  std::string out;
  ASSERT_EQ(analyze(run.string() + " --smooth-window-nm 0.25", &out), 0) << out;
  const std::string summary = read_text(run / "analysis" / "summary.txt");
  EXPECT_NE(summary.find("loading rate κv = 2.5e+10 pN/s"), std::string::npos) << summary;
  // The WLC's kT at the run's temperature, unless --temperature-K says otherwise.
  EXPECT_NE(summary.find("T = 301.932 K (the run's, from run.log)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("note: replica_002's table ends at step 999000, before the run's 6000000"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("replicas with a peak: 2 of 3 (the statistics below are over these)"), std::string::npos)
      << summary;
  EXPECT_NE(out.find("pulling: 3 replicas (1 of 3 tables ends before step 6000000: summary.txt), 4 unfolding peaks"),
            std::string::npos)
      << out;
  EXPECT_NE(summary.find("give one --min-peak-drop-pN"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("WLC fits have an rms above"), std::string::npos) << "the edges are worm-like chains";
  // A persistence length far from the edges' 0.4 nm: the fits cannot follow them.
  ASSERT_EQ(analyze(run.string() + " --force --smooth-window-nm 0.25 --persistence-length-nm 20 --temperature-K 310",
                    &out),
            0)
      << out;
  const std::string rough = read_text(run / "analysis" / "summary.txt");
  EXPECT_NE(rough.find("T = 310 K (--temperature-K)"), std::string::npos) << rough;
  EXPECT_NE(rough.find("WLC fits have an rms above max(10 pN, 3 × their replica's smoothed force noise)"),
            std::string::npos)
      << rough;
  // A heating run's [run] table has no temperature: the start of its schedule is taken.
  write_text(run / "run.log", "[run]\nsteps = 6000000\n# temperature: the [heating] start\n\n[heating]\n"
                              "start_K = 310.0  # = 0.616033333 kcal/mol\nstop_K = 400.0\n");
  ASSERT_EQ(analyze(run.string() + " --force --smooth-window-nm 0.25", &out), 0) << out;
  const std::string heated = read_text(run / "analysis" / "summary.txt");
  EXPECT_NE(heated.find("T = 310 K (the start of the run's heating schedule, from run.log)"), std::string::npos)
      << heated;
}

// A run stopped early (every table ends at one step before run.log's [run] steps): the
// terminal's headline says so, not only summary.txt — its missing peaks are no evidence of
// none (a user audit); a run that reached its end says nothing of it.
TEST(AnalysisCommand, TheHeadlineSaysARunStoppedEarly) {
  const fs::path run = make_pulling_run("analyze-stopped-headline");
  write_text(run / "run.log", "[run]\nsteps = 6000000\n");
  std::string out;
  ASSERT_EQ(analyze(run.string() + " --smooth-window-nm 0.25", &out), 0) << out;
  EXPECT_NE(out.find("pulling: 3 replicas, 6 unfolding peaks"), std::string::npos) << out;
  EXPECT_EQ(out.find("the run stopped"), std::string::npos) << out;
  // Every table cut after 1000 rows (step 999000), before the first rupture.
  for (const char* r : {"replica_000", "replica_001", "replica_002"}) {
    const std::string table = read_text(run / r / "pulling.tsv");
    std::size_t cut = 0;
    for (int line = 0; line < 1001; ++line) cut = table.find('\n', cut) + 1;
    write_text(run / r / "pulling.tsv", table.substr(0, cut));
  }
  ASSERT_EQ(analyze(run.string() + " --force --smooth-window-nm 0.25", &out), 0) << out;
  EXPECT_NE(out.find("pulling: 3 replicas (the run stopped at step 999000 of 6000000), no unfolding peaks\n"),
            std::string::npos)
      << out;
  EXPECT_NE(read_text(run / "analysis" / "summary.txt").find("a run stopped early (--resume continues it)"),
            std::string::npos);
}

// A pulling run that failed at its first check (a time step far too large) leaves each
// replica's table with its step-0 row only: no curve, and the summary and the headline say
// why, quoting run.log's error — not a summary of warnings alone (a user audit, 2026-11-30).
// Without an error it is a run stopped or still starting.
TEST(AnalysisCommand, APullingRunWithoutCurvesSaysWhy) {
  const fs::path run = make_pulling_run("analyze-no-curves");
  for (const char* r : {"replica_000", "replica_001", "replica_002"}) {
    const std::string table = read_text(run / r / "pulling.tsv");
    const std::size_t header = table.find('\n') + 1;
    write_text(run / r / "pulling.tsv", table.substr(0, table.find('\n', header) + 1));  // header and step 0
  }
  write_text(run / "run.log",
             "[2026-11-30 10:00:00] ermak 0.1.0 starting run.toml\n[run]\nsteps = 100000\n"
             "[2026-11-30 10:00:01] running steps 0 .. 100000 on backend cpu\n"
             "[2026-11-30 10:00:01] error: a FENE bond broke between steps 0 and 1000: …\n");
  std::string out;
  ASSERT_EQ(analyze(run.string(), &out), 0) << out;
  EXPECT_NE(out.find("pulling: no replica has a curve: the run ended with an error before its tables' second row "
                     "(summary.txt)"),
            std::string::npos)
      << out;
  const std::string summary = read_text(run / "analysis" / "summary.txt");
  EXPECT_NE(summary.find("\nPulling\n  no replica has a curve: every pulling table holds one row or none"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("note: the run ended with an error before its tables' second row (run.log: \"a FENE bond "
                         "broke between steps 0 and 1000: …\"), which --resume would repeat"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("replica_002/pulling.tsv: one row only; replica left out"), std::string::npos) << summary;

  write_text(run / "run.log",
             "[2026-11-30 10:00:00] ermak 0.1.0 starting run.toml\n[run]\nsteps = 100000\n"
             "[2026-11-30 10:00:01] running steps 0 .. 100000 on backend cpu\n");
  ASSERT_EQ(analyze(run.string() + " --force", &out), 0) << out;
  EXPECT_NE(out.find("pulling: no replica has a curve yet (one row or none in every table: summary.txt)"),
            std::string::npos)
      << out;
  EXPECT_NE(read_text(run / "analysis" / "summary.txt").find("--resume continues it"), std::string::npos);
}

TEST(AnalysisSvg, TicksLabelsAndEscaping) {
  EXPECT_EQ(nice_ticks(0.0, 10.0, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(nice_ticks(-3.0, 47.0, 6), (std::vector<double>{0, 10, 20, 30, 40}));
  const auto t = nice_ticks(0.0, 1.0, 4);
  ASSERT_EQ(t.size(), 5u);
  EXPECT_DOUBLE_EQ(t[1], 0.25);
  EXPECT_EQ(nice_ticks(0.0, 13.0, 5, 1.0), (std::vector<double>{0, 5, 10}));  // counts: no 2.5
  EXPECT_EQ(nice_ticks(0.0, 2.2, 7, 1.0), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(tick_label(0.25, 0.25), "0.25");
  EXPECT_EQ(tick_label(20.0, 10.0), "20");
  EXPECT_EQ(tick_label(-0.0, 1.0), "0");
  EXPECT_EQ(tick_label(-5.0, 5.0), "\u22125");
  SvgPlot plot("a < b & c", "x [nm]", "F [pN]");
  const std::vector<double> x = {0, 1, 2, NAN, 3, 4}, y = {0, 1, 4, 0, 9, 16};
  plot.line(x, y, {}, "parabola");
  plot.markers(std::vector<double>{2}, std::vector<double>{4}, Marker::triangle, 8, {}, "point");
  plot.bars(std::vector<double>{0, 1, 2}, std::vector<double>{3, 5}, {}, "bars");
  plot.legend_note("note");
  const std::string svg = plot.render();
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_NE(svg.find("a &lt; b &amp; c"), std::string::npos);
  std::size_t polylines = 0;
  for (std::size_t i = 0; (i = svg.find("<polyline", i)) != std::string::npos; ++i) ++polylines;
  EXPECT_EQ(polylines, 2u);  // broken at the NaN
  EXPECT_NE(svg.find("<polygon"), std::string::npos);
  EXPECT_NE(svg.find(">parabola<"), std::string::npos);
  const fs::path dir = test::fresh_directory("analysis-svg");
  plot.write(dir / "p.svg", false);
  EXPECT_THROW(plot.write(dir / "p.svg", false), std::exception);
  plot.write(dir / "p.svg", true);
}

}  // namespace
}  // namespace ermak::analysis
