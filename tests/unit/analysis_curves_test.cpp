// analysis/: TSV reading by column name, smoothing, the force-peak finder, the Marko–Siggia
// WLC and its fit, sample statistics and histograms, indentation spring constants — each
// against synthetic data with known parameters (seeded noise).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ermak/analysis/curve_smoothing.h"
#include "ermak/analysis/force_curve.h"
#include "ermak/analysis/force_spectroscopy.h"
#include "ermak/analysis/statistics.h"
#include "ermak/analysis/tsv_table.h"
#include "ermak/analysis/wlc.h"
#include "ermak/core/error.h"
#include "support/test_paths.h"

namespace ermak::analysis {
namespace {

const double kT300 = kT_pN_nm(300.0);

// --- a synthetic constant-velocity pulling experiment ----------------------------------------
// A cantilever (spring kappa, base at b) pulls a WLC of contour length Lc[k] (P fixed); when
// the force reaches rupture[k] the chain lengthens to Lc[k+1]. For every base position the
// extension x solves kappa·(b − x) = F_WLC(x) exactly (equilibrium); noise is then added to
// the recorded force and extension.
struct Sawtooth {
  std::vector<double> base, x, f;     // recorded (noisy)
  std::vector<double> x_true, f_true;
  std::vector<double> peak_x, peak_f;  // the last point before each rupture
};

double equilibrium_extension(double b, double kappa, double lc, double p) {
  double lo = 0.0, hi = std::min(b, lc * (1.0 - 1e-12));
  if (hi <= 0.0) return 0.0;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    (kappa * (b - mid) - marko_siggia_force(mid, lc, p, kT300) > 0.0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

Sawtooth make_sawtooth(const std::vector<double>& lc, const std::vector<double>& rupture, double kappa,
                       double p, double b_end, double db, double sigma_f, double sigma_x, unsigned seed) {
  Sawtooth s;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::size_t k = 0;
  for (double b = 0.0; b <= b_end; b += db) {
    double x = equilibrium_extension(b, kappa, lc[k], p);
    double f = kappa * (b - x);
    while (k < rupture.size() && f >= rupture[k]) {  // rupture: the chain lengthens
      s.peak_x.push_back(s.x_true.back());
      s.peak_f.push_back(s.f_true.back());
      ++k;
      x = equilibrium_extension(b, kappa, lc[k], p);
      f = kappa * (b - x);
    }
    s.base.push_back(b);
    s.x_true.push_back(x);
    s.f_true.push_back(f);
    s.x.push_back(x + sigma_x * gauss(rng));
    s.f.push_back(f + sigma_f * gauss(rng));
  }
  return s;
}

// --- TSV --------------------------------------------------------------------------------

TEST(AnalysisTsv, ColumnsByNameWithOrWithoutUnit) {
  const TsvTable t = TsvTable::parse(
      "# step\ttime[ns]\textra[1]\tforce_along[pN]\n0\t0\t9\t1.5\n10\t0.2\t9\t-2e1\n\n20\t0.4\t9\tnan\n", "mem.tsv");
  ASSERT_EQ(t.rows(), 3u);
  EXPECT_EQ(t.columns().size(), 4u);
  EXPECT_EQ(*t.find("force_along[pN]"), 3u);
  EXPECT_EQ(*t.find("force_along"), 3u);
  EXPECT_FALSE(t.find("force_along[nN]").has_value());
  EXPECT_DOUBLE_EQ(t.column("force_along")[1], -20.0);
  EXPECT_TRUE(std::isnan(t.column("force_along[pN]")[2]));
  EXPECT_DOUBLE_EQ(t.column("step")[2], 20.0);
}

TEST(AnalysisTsv, MissingColumnNamesFileAndColumn) {
  const TsvTable t = TsvTable::parse("# step\ttime[ns]\tforce[pN]\n1\t2\t3\n", "run/replica_000/pulling.tsv");
  try {
    t.column("force_along[pN]");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "run/replica_000/pulling.tsv");
    EXPECT_EQ(e.field(), "force_along[pN]");
    const std::string m = e.what();
    EXPECT_NE(m.find("run/replica_000/pulling.tsv"), std::string::npos) << m;
    EXPECT_NE(m.find("force_along[pN]"), std::string::npos) << m;
    EXPECT_NE(m.find("not found"), std::string::npos) << m;
    EXPECT_NE(m.find("step, time[ns], force[pN]"), std::string::npos) << m;  // lists what is there
  }
  try {
    t.column("force[nN]");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unit [pN], expected [nN]"), std::string::npos) << e.what();
  }
}

TEST(AnalysisTsv, MalformedInputIsAnErrorWithLine) {
  auto message = [](const std::string& text) -> std::string {
    try {
      TsvTable::parse(text, "t.tsv");
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message("step\tforce\n1\t2\n").find("t.tsv:1"), std::string::npos);
  EXPECT_NE(message("# a\tb\n1\t2\n3\n4\t5\n").find("t.tsv:3"), std::string::npos);
  const std::string bad = message("# a\tb[pN]\n1\t2\n3\tx7\n");
  EXPECT_NE(bad.find("t.tsv:3"), std::string::npos) << bad;
  EXPECT_NE(bad.find("b[pN]"), std::string::npos) << bad;
  EXPECT_NE(message("").find("no '# ' header"), std::string::npos);
  // A last line cut short by a writer still at work is dropped with a warning.
  const TsvTable t = TsvTable::parse("# a\tb\n1\t2\n3\t4\n5", "t.tsv");
  EXPECT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.warnings().size(), 1u);
  // Also where every field parses: "3" may be the start of 39.55 (a full disk cut it there).
  const TsvTable cut = TsvTable::parse("# a\tb\n1\t2\n3\t4\n5\t3", "t.tsv");
  EXPECT_EQ(cut.rows(), 2u);
  ASSERT_EQ(cut.warnings().size(), 1u);
  EXPECT_NE(cut.warnings()[0].find("t.tsv:4: incomplete last line left out"), std::string::npos);
}

TEST(AnalysisTsv, TimeSeriesStepsMustRise) {
  // Rising steps, with a blank line and a comment between rows: accepted.
  TsvTable::parse("# step\tf[pN]\n0\t1\n\n# note\n10\t2\n20\t3\n", "t.tsv").require_rising_steps();
  // A table appended to itself: the error names the line where the steps fall back.
  const TsvTable twice = TsvTable::parse("# step\tf[pN]\n0\t1\n10\t2\n# comment\n0\t1\n10\t2\n", "t.tsv");
  try {
    twice.require_rising_steps();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.line(), 5);
    EXPECT_EQ(e.field(), "step");
    EXPECT_NE(std::string(e.what()).find("step 0 does not follow step 10"), std::string::npos) << e.what();
  }
  EXPECT_THROW(TsvTable::parse("# step\tf\n5\t1\n5\t2\n", "t.tsv").require_rising_steps(), Error);
}

// Values no run writes name their row (a fuzzing audit's damaged tables were analysed: a Q of
// −1 moved a melting temperature by 110 K, a force_along of 1e300 beside a force of 9.9 pN
// became a curve at 10²⁹⁸ pN); non-finite values pass, as the analyses count those rows.
TEST(AnalysisTsv, ValuesNoRunWritesNameTheirRow) {
  const TsvTable q = TsvTable::parse("# step\tQ\tforce[pN]\tforce_along[pN]\n0\t1\t9.9\t-9.9\n10\tnan\t9.9\tnan\n"
                                     "20\t-1\t9.9\t1e300\n",
                                     "t.tsv");
  try {
    q.require_within("Q", 0.0, 1.0);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_EQ(e.field(), "Q");
    EXPECT_NE(std::string(e.what()).find("-1 is outside 0 to 1, which no run writes there (a damaged table)"),
              std::string::npos)
        << e.what();
  }
  try {
    q.require_no_larger("force_along[pN]", "force[pN]");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_EQ(e.field(), "force_along[pN]");
    EXPECT_NE(std::string(e.what()).find("1e+300 is larger than force[pN] = 9.9 in the same row"), std::string::npos)
        << e.what();
  }
  try {
    TsvTable::parse("# step\tRg[A]\n0\t-3\n", "t.tsv").require_within("Rg[A]", 0.0, std::numeric_limits<double>::infinity());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("t.tsv:2: Rg[A]: -3 is below 0, which no run writes there"), std::string::npos)
        << e.what();
  }
  // Within the tables' 8 digits of rounding: no error.
  TsvTable::parse("# a\tb\n1\t1.0000001\n", "t.tsv").require_no_larger("b", "a");
  TsvTable::parse("# a\tb\n1\t-1.0000001\n", "t.tsv").require_no_larger("b", "a");
  EXPECT_THROW(TsvTable::parse("# a\tb\n1\t1.0001\n", "t.tsv").require_no_larger("b", "a"), Error);
}

TEST(AnalysisTsv, ADirectoryIsNotATable) {
  const auto dir = ermak::test::fresh_directory("tsv-directory");
  try {
    TsvTable::read(dir);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory, not a table"), std::string::npos) << e.what();
  }
}

// read() parses a file a block at a time, carrying a cut line over to the next block: at any
// block size it must give what parse() gives from the whole text — rows, values, the lines
// that messages name, warnings and errors.
class AnalysisTsvBlocks : public ::testing::Test {
 protected:
  std::filesystem::path write(const std::string& name, const std::string& text) {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  static std::string error_of(const std::function<void()>& read) {
    try {
      read();
    } catch (const Error& e) {
      return std::to_string(e.line()) + " " + e.field() + " " + e.what();
    }
    return "no error";
  }
  // Block sizes below, at and around the lines' lengths, and read()'s own.
  const std::vector<std::size_t> blocks_ = {1, 2, 3, 5, 7, 8, 13, 64, 1000, std::size_t(1) << 20};
  std::filesystem::path dir_ = ermak::test::fresh_directory("tsv-blocks");
};

TEST_F(AnalysisTsvBlocks, LinesAcrossBlocksReadAsParsed) {
  // Rows of many lengths, a comment, a blank line, CRLF line ends, blanks instead of a tab,
  // a row longer than most blocks, and a last line cut before its line break.
  std::string text = "# step\ttime[ns]\tforce_along[pN]\r\n0\t0\t1.5\n# note\n\n10\t0.25\t-2e1\r\n";
  text += "20   0.5\t+3\n30\t0.75\t" + std::string(40, '1') + ".5\n";
  for (int i = 4; i < 60; ++i) text += fmt::format("{}\t{}\t{:.8g}\n", 10 * i, 0.25 * i, std::sin(i) * 1e3);
  text += "600\t15\t39";
  const std::filesystem::path p = write("t.tsv", text);
  const TsvTable whole = TsvTable::parse(text, p.string());
  ASSERT_EQ(whole.rows(), 60u);
  ASSERT_EQ(whole.warnings().size(), 1u);
  for (const std::size_t block : blocks_) {
    SCOPED_TRACE(block);
    const TsvTable t = TsvTable::read_in_blocks(p, block);
    EXPECT_EQ(t.columns(), whole.columns());
    ASSERT_EQ(t.rows(), whole.rows());
    for (std::size_t c = 0; c < t.columns().size(); ++c)
      for (std::size_t r = 0; r < t.rows(); ++r) EXPECT_EQ(t.column(c)[r], whole.column(c)[r]) << c << " " << r;
    // The warning names the file and the cut line as parse() names its text's.
    EXPECT_EQ(t.warnings(), whole.warnings());
    EXPECT_EQ(t.warnings()[0], p.string() + ":64: incomplete last line left out (table still being written?)");
    t.require_rising_steps();
  }
  // With its last line whole (and a CRLF end split across blocks), nothing is left out.
  const std::filesystem::path whole_file = write("whole.tsv", text + "1\r\n");
  for (const std::size_t block : blocks_) {
    const TsvTable t = TsvTable::read_in_blocks(whole_file, block);
    EXPECT_EQ(t.rows(), 61u) << block;
    EXPECT_TRUE(t.warnings().empty()) << block;
    EXPECT_EQ(t.column("force_along")[60], 391.0) << block;
  }
  EXPECT_EQ(TsvTable::read(whole_file).rows(), 61u);
  // A header alone, without its line break: a table of no rows.
  const std::filesystem::path header_only = write("header.tsv", "# step\tf[pN]");
  for (const std::size_t block : blocks_) {
    const TsvTable t = TsvTable::read_in_blocks(header_only, block);
    EXPECT_EQ(t.columns(), (std::vector<std::string>{"step", "f[pN]"})) << block;
    EXPECT_EQ(t.rows(), 0u) << block;
    EXPECT_TRUE(t.warnings().empty()) << block;
  }
}

TEST_F(AnalysisTsvBlocks, ErrorsNameTheSameLinesAsParse) {
  const std::string long_header = "# step\t" + std::string(100, 'f') + "[pN]\n";
  const std::vector<std::string> texts = {
      "",                                             // no header
      "step\tf\n0\t1\n",                              // no '# '
      "# step\t\tf\n0\t1\t2\n",                       // an empty column name
      "# step\tf[pN]\n0\t1\n10\t2\n20\tx7\n30\t4\n",  // not a number, in a later block
      long_header + "0\t1\n10\n",                     // a value missing, after a header longer than the blocks
      "# step\tf\n0\t1\n10\t2\n# again\n0\t1\n",      // appended to itself
  };
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::filesystem::path p = write("e.tsv", texts[i]);
    auto checked = [](const TsvTable& t) { t.require_rising_steps(); };
    const std::string expected = error_of([&] { checked(TsvTable::parse(texts[i], p.string())); });
    EXPECT_NE(expected, "no error") << i;
    for (const std::size_t block : blocks_)
      EXPECT_EQ(error_of([&] { checked(TsvTable::read_in_blocks(p, block)); }), expected) << i << " " << block;
  }
}

// --- smoothing and noise ---------------------------------------------------------------------

TEST(AnalysisSmoothing, RunningAveragesAreCentredAndKeepLinearTrends) {
  std::vector<double> s, y;
  for (int i = 0; i < 101; ++i) {
    s.push_back(0.1 * i);
    y.push_back(3.0 + 2.0 * 0.1 * i);
  }
  const auto w = running_average_window(s, y, 1.0);  // ±0.5 → 11 rows inside
  const auto p = running_average_points(y, 10);       // rounded up to 11
  for (std::size_t i = 5; i + 5 < y.size(); ++i) {
    EXPECT_NEAR(w[i], y[i], 1e-12) << i;  // centred: a linear trend is kept
    EXPECT_NEAR(p[i], y[i], 1e-12) << i;
  }
  // At the ends the window is cut: row 0 averages rows 0..5, the last row the last six.
  EXPECT_NEAR(w[0], 3.0 + 0.2 * 2.5, 1e-12);
  EXPECT_NEAR(p[0], 3.0 + 0.2 * 2.5, 1e-12);
  EXPECT_NEAR(w[100], 3.0 + 0.2 * 97.5, 1e-12);
  EXPECT_NEAR(p[100], 3.0 + 0.2 * 97.5, 1e-12);
  EXPECT_NEAR(mean_rows_per_window(s, 1.0), 11.0, 1e-9);  // the 11 rows inside, not W/Δs = 10
  // A step is spread over the window: the mean of the rows within ±0.5.
  std::vector<double> step(101, 0.0);
  for (int i = 50; i < 101; ++i) step[i] = 11.0;
  const auto ws = running_average_window(s, step, 1.0);
  EXPECT_NEAR(ws[50], 6.0 * 11.0 / 11.0, 1e-12);  // rows 45..55: six at 11
  EXPECT_NEAR(ws[44], 0.0, 1e-12);
  EXPECT_NEAR(ws[56], 11.0, 1e-12);
  // path length of a base that goes in and comes back
  const std::vector<double> b = {0, 1, 2, 3, 2, 1};
  EXPECT_EQ(path_length(b), (std::vector<double>{0, 1, 2, 3, 4, 5}));
}

// The rows on average of a window are the rows |s_j − s_i| ≤ W/2 holds, as the running average
// takes them (2·⌊W/2Δs⌋ + 1 at constant spacing Δs), not W/Δs: the WW example's 0.2 nm at
// Δs = 0.00992 nm holds 21 rows (W/Δs = 20.2), the λ-repressor's at 0.0198 nm 11 (10.1).
TEST(AnalysisSmoothing, RowsPerWindowAreTheRowsTheWindowHolds) {
  for (const auto& [ds, rows] : {std::pair{0.00992, 21.0}, {0.0198, 11.0}, {0.00496, 41.0}, {0.01, 21.0}}) {
    std::vector<double> s, impulse;
    for (int i = 0; i < 2000; ++i) s.push_back(ds * i);
    EXPECT_NEAR(mean_rows_per_window(s, 0.2), rows, 1e-9) << ds;
    // The running average of a unit impulse at an inner row is 1/(the rows its window holds).
    impulse.assign(s.size(), 0.0);
    impulse[1000] = 1.0;
    EXPECT_NEAR(1.0 / running_average_window(s, impulse, 0.2)[1000], rows, 1e-9) << ds;
  }
  // Uneven spacing: the mean over the inner rows of what each window holds.
  std::vector<double> s;
  for (int i = 0; i < 1000; ++i) s.push_back(i < 500 ? 0.01 * i : 5.0 + 0.02 * (i - 500));
  const double m = mean_rows_per_window(s, 0.2);
  EXPECT_GT(m, 11.0);
  EXPECT_LT(m, 21.0);
  // A window wider than the travel holds every row.
  EXPECT_NEAR(mean_rows_per_window(std::vector<double>{0.0, 0.1, 0.2}, 5.0), 3.0, 1e-12);
}

TEST(AnalysisSmoothing, NoiseEstimateOnATrend) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::vector<double> y;
  for (int i = 0; i < 20000; ++i) y.push_back(0.01 * i + 4.0 * gauss(rng) + (i == 5000 ? 500.0 : 0.0));
  // 20000 samples: the MAD-based estimate has a relative sd of about 1.1 %.
  EXPECT_NEAR(noise_sd(y), 4.0, 4.0 * 0.05);
}

// --- peaks -----------------------------------------------------------------------------------

TEST(AnalysisPeaks, RecoversTheRupturesOfANoisySawtooth) {
  const std::vector<double> lc = {12.0, 24.0, 36.0, 48.0}, rupture = {120.0, 150.0, 110.0};
  const double kappa = 50.0;
  const Sawtooth s = make_sawtooth(lc, rupture, kappa, 0.4, 52.0, 0.005, 4.0, 0.03, 1);
  ASSERT_EQ(s.peak_f.size(), 3u);
  // Smoothing over 0.3 nm of base travel (60 rows): the force noise drops to about 0.5 pN.
  const auto xs = running_average_window(s.base, s.x, 0.3);
  const auto fs = running_average_window(s.base, s.f, 0.3);
  const auto peaks = find_force_peaks(xs, fs, {20.0, 0.5});
  ASSERT_EQ(peaks.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE(k);
    // The smoothed maximum lies where the window just reaches the rupture: lower than the
    // true rupture force by about (dF/db)·W/2 ≤ kappa·0.15 nm = 7.5 pN, and earlier by
    // at most W/2 of base travel (less in extension).
    EXPECT_LT(peaks[k].force, s.peak_f[k] + 1.5);
    EXPECT_GT(peaks[k].force, s.peak_f[k] - 7.5 - 1.5);
    EXPECT_NEAR(peaks[k].position, s.peak_x[k], 0.2);
    EXPECT_LE(peaks[k].trough_before, peaks[k].index);
    EXPECT_GT(peaks[k].trough_after, peaks[k].index);
    EXPECT_GT(peaks[k].drop, 20.0);
  }
  // The first edge starts at the lowest point before the first peak: in the flat start.
  EXPECT_LT(fs[peaks[0].trough_before], 2.0);
  EXPECT_LT(s.base[peaks[0].trough_before], 2.0);
  EXPECT_EQ(peaks[1].trough_before, peaks[0].trough_after);
  // Raw data with a criterion above its noise finds the same three peaks.
  const auto raw = find_force_peaks(s.x, s.f, {40.0, 0.5});
  ASSERT_EQ(raw.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(raw[k].force, s.peak_f[k], 4.0 * 4.0);
}

TEST(AnalysisPeaks, HysteresisAndSeparationRules) {
  // 0 → 100 → 50 → 95 → 0: with a 30 pN criterion two peaks, with 60 pN one.
  std::vector<double> f, x;
  auto ramp = [&](double a, double b, int n) {
    for (int i = 0; i < n; ++i) f.push_back(a + (b - a) * i / n);
  };
  ramp(0, 100, 50);
  ramp(100, 50, 10);
  ramp(50, 95, 30);
  ramp(95, 0, 20);
  f.push_back(0.0);
  for (std::size_t i = 0; i < f.size(); ++i) x.push_back(0.1 * double(i));
  auto two = find_force_peaks(x, f, {30.0, 0.0});
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].index, 50u);
  EXPECT_EQ(two[1].index, 90u);
  EXPECT_DOUBLE_EQ(two[0].force, 100.0);
  EXPECT_DOUBLE_EQ(two[0].drop, 50.0);
  EXPECT_EQ(two[1].trough_before, 60u);
  auto one = find_force_peaks(x, f, {60.0, 0.0});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].index, 50u);
  // The two peaks are 4 nm apart: a 5 nm separation merges them into the higher one.
  auto merged = find_force_peaks(x, f, {30.0, 5.0});
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].index, 50u);
  EXPECT_EQ(merged[0].trough_after, f.size() - 1);
  // A rise at the end without a drop is not a peak; neither is a flat line.
  std::vector<double> rising(100), flat(100, 3.0);
  for (int i = 0; i < 100; ++i) rising[i] = i;
  EXPECT_TRUE(find_force_peaks(x, rising, {10.0, 0.0}).empty());
  EXPECT_TRUE(find_force_peaks(x, flat, {10.0, 0.0}).empty());
}

// Every peak needs a rise of the criterion from the lowest point before it, the first too: a
// series that starts high and falls (a table cut after its first rows, a tip still
// settling) has no peak at its first row.
TEST(AnalysisPeaks, TheFirstPeakNeedsARiseToo) {
  std::vector<double> f, x;
  auto ramp = [&](double a, double b, int n) {
    for (int i = 0; i < n; ++i) f.push_back(a + (b - a) * i / n);
  };
  ramp(100, 0, 20);  // falls from its first row
  ramp(0, 50, 30);   // then a real peak: rise 50, drop 50
  ramp(50, 0, 20);
  f.push_back(0.0);
  for (std::size_t i = 0; i < f.size(); ++i) x.push_back(0.1 * double(i));
  const auto peaks = find_force_peaks(x, f, {30.0, 0.0});
  ASSERT_EQ(peaks.size(), 1u);
  EXPECT_EQ(peaks[0].index, 50u);
  EXPECT_EQ(peaks[0].trough_before, 20u);
  EXPECT_EQ(peaks[0].trough_after, f.size() - 1);
  // A rise smaller than the criterion makes no peak however far the force falls after it.
  std::vector<double> small = {0, 10, 20, 25, 20, 0, -40, -40};
  EXPECT_TRUE(find_force_peaks(std::vector<double>(small.size(), 0.0), small, {30.0, 0.0}).empty());
}

// With fewer than 8 smoothing windows in a record, σ_s comes from the means of 16 shorter
// blocks scaled to a window: on a slowly wandering force (correlation time ≫ a row) white
// noise's σ/√m from single rows would be far too small and the criterion would fall to its
// 10 pN floor; and a curve's own shape (a ramp and a drop) does not count as noise.
TEST(AnalysisSmoothing, BlockNoiseOfAShortRecordFollowsSlowWanderNotTheCurve) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> gauss(0.0, 1.0);
  // An Ornstein–Uhlenbeck force of sd 5 pN and correlation time 30 rows, 1200 rows, windows
  // of 200 rows (6 windows in the record): window means wander by 5·√(2·30/200) ≈ 2.7 pN.
  const double a = std::exp(-1.0 / 30.0);
  std::vector<double> y(1200);
  double v = 0.0;
  for (double& yi : y) {
    v = a * v + 5.0 * std::sqrt(1.0 - a * a) * gauss(rng);
    yi = v;
  }
  const double white_scaling = noise_sd(y) / std::sqrt(200.0);
  const double blocks = block_mean_noise_sd(y, 200);
  EXPECT_LT(white_scaling, 0.2);  // second differences see only the per-row steps
  EXPECT_GT(blocks, 1.3);
  EXPECT_LT(blocks, 5.4);
  EXPECT_GT(blocks, 8.0 * white_scaling);
  // White noise of sd 1.6 on a sawtooth (a 300 pN ramp, a drop, another ramp): the window
  // means' noise 1.6/√200 = 0.11, not the ramps' or the drop's size.
  std::vector<double> saw(1340);
  for (std::size_t i = 0; i < saw.size(); ++i)
    saw[i] = (i < 700 ? 0.43 * double(i) : 0.43 * double(i - 700)) + 1.6 * gauss(rng);
  EXPECT_LT(block_mean_noise_sd(saw, 200), 0.4);
  EXPECT_GT(block_mean_noise_sd(saw, 200), 0.04);
}

// σ_s before it took every block offset: noise_sd of the means of the successive disjoint
// blocks from row 0 (the branch of 8 windows or more), kept here to compare with.
double disjoint_block_noise_sd(const std::vector<double>& y, std::size_t block) {
  std::vector<double> means(y.size() / block);
  for (std::size_t b = 0; b < means.size(); ++b) {
    double sum = 0.0;
    for (std::size_t i = b * block; i < (b + 1) * block; ++i) sum += y[i];
    means[b] = sum / double(block);
  }
  return noise_sd(means);
}

// Mean and sd over seeds of an estimate.
struct SeedStats {
  double mean = 0.0, sd = 0.0;
  double relative_sd() const { return sd / mean; }
};
SeedStats seed_stats(const std::vector<double>& v) {
  SeedStats s;
  for (double x : v) s.mean += x;
  s.mean /= double(v.size());
  for (double x : v) s.sd += (x - s.mean) * (x - s.mean);
  s.sd = std::sqrt(s.sd / double(v.size() - 1));
  return s;
}

// AR(1) noise of sd 1 and correlation ρ per row (ρ = 0: white), stationary from the first row.
std::vector<double> ar1_noise(std::size_t n, double rho, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::vector<double> y(n);
  double v = gauss(rng);
  for (double& yi : y) {
    yi = v;
    v = rho * v + std::sqrt(1.0 - rho * rho) * gauss(rng);
  }
  return y;
}

constexpr std::size_t kSeeds = 200, kRows = 4000, kBlock = 21;

// σ_s takes the blocks at every offset: on white noise of sd 1 (4000 rows, blocks of 21, 200
// seeds) it is 1/√21 on average and scatters far less than the disjoint blocks from row 0
// did (~0.10 relative sd: a block one row longer moved σ_s by −26 % to +49 % on real replicas).
TEST(AnalysisSmoothing, BlockNoiseOverEveryOffsetIsRightAndScattersLess) {
  std::vector<double> every, disjoint;
  for (std::size_t seed = 0; seed < kSeeds; ++seed) {
    const auto y = ar1_noise(kRows, 0.0, 1000 + seed);
    every.push_back(block_mean_noise_sd(y, kBlock));
    disjoint.push_back(disjoint_block_noise_sd(y, kBlock));
  }
  const SeedStats e = seed_stats(every), d = seed_stats(disjoint);
  const double exact = 1.0 / std::sqrt(double(kBlock));
  // The mean's standard error is 0.057/√200 ≈ 0.4 % of it: 3 % is ~7 standard errors (the
  // MAD's small-sample bias at ~3900 second differences is ≲ 0.3 %).
  EXPECT_NEAR(e.mean / exact, 1.0, 0.03);
  EXPECT_NEAR(d.mean / exact, 1.0, 0.04);  // the old one was right on average too (SE 0.7 %)
  // Relative sd 0.057 against 0.097 (measured, seeds 1000–1199): a ratio of 1.71. Each
  // relative sd has a standard error of ~5 % of it (1/√(2·199)), the ratio ≲ 7 % (less: both
  // come from the same noise): 1.5 is 12 % below, ≳ 2 standard errors.
  EXPECT_LT(e.relative_sd(), 0.065);
  EXPECT_GT(d.relative_sd() / e.relative_sd(), 1.5)
      << "relative sd: every offset " << e.relative_sd() << ", disjoint " << d.relative_sd();
}

// Correlated rows (AR(1), ρ = 0.8 per row, correlation time 4.5 rows): σ_s follows the noise
// of a 21-row mean, 0.582 — σ/√21 = 0.218 treats the rows as independent (their correlation
// raises it by √(Σ_{i,j} ρ^|i−j| / 21) ≈ 2.7). Second differences of *adjacent* block means see that sd
// times √((6V − 8C₁ + 2C₂)/(6V)) — V the variance of a block mean, C_k its covariance with the
// k-th next block, which the rows across their boundary correlate — 0.908 here: the estimate
// is 9 % low, at every offset as at the disjoint blocks alone.
TEST(AnalysisSmoothing, BlockNoiseOfCorrelatedRowsFollowsTheBlockMeans) {
  const double rho = 0.8;
  const int m = int(kBlock);
  // Cov(M_0, M_k) of the means of rows [0, m) and [km, km + m): (1/m²) Σ_{i,j} ρ^|km + j − i|.
  auto block_cov = [&](int k) {
    double s = 0.0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) s += std::pow(rho, std::abs(k * m + j - i));
    return s / double(m * m);
  };
  const double block_sd = std::sqrt(block_cov(0));  // exact sd of a 21-row mean: 0.582
  const double second_difference_sd =
      std::sqrt((6.0 * block_cov(0) - 8.0 * block_cov(1) + 2.0 * block_cov(2)) / 6.0);
  std::vector<double> every, disjoint;
  for (std::size_t seed = 0; seed < kSeeds; ++seed) {
    const auto y = ar1_noise(kRows, rho, 2000 + seed);
    every.push_back(block_mean_noise_sd(y, kBlock));
    disjoint.push_back(disjoint_block_noise_sd(y, kBlock));
  }
  const SeedStats e = seed_stats(every), d = seed_stats(disjoint);
  // The mean's standard error is ~0.066/√200 ≈ 0.5 %: 3 % is ~6 of them.
  EXPECT_NEAR(e.mean / second_difference_sd, 1.0, 0.03);
  // Hence, against the block mean's sd itself: 0.908 expected, within ±5 % (10 standard errors).
  EXPECT_NEAR(e.mean / block_sd, second_difference_sd / block_sd, 0.05);
  EXPECT_GT(e.mean / block_sd, 0.85);
  EXPECT_GT(e.mean, 2.0 * noise_sd(ar1_noise(kRows, rho, 2000)) / std::sqrt(double(kBlock)));
  // The disjoint blocks had the same bias and more scatter (SE of the mean 0.7 %; relative
  // sd 0.097 against 0.067, measured: a ratio of 1.46).
  EXPECT_NEAR(d.mean / second_difference_sd, 1.0, 0.04);
  EXPECT_GT(d.relative_sd() / e.relative_sd(), 1.3);
}

// A drop of 30 (and 300) σ_s in the middle of the record (a rupture) hardly moves σ_s: the MAD
// ignores the 3·21 second differences across it, ~1.6 % of the 3938.
TEST(AnalysisSmoothing, BlockNoiseOverEveryOffsetIgnoresADrop) {
  const double sigma_s = 1.0 / std::sqrt(double(kBlock));
  for (double drop : {30.0, 300.0}) {
    std::vector<double> flat, stepped;
    for (std::size_t seed = 0; seed < kSeeds; ++seed) {
      auto y = ar1_noise(kRows, 0.0, 3000 + seed);
      flat.push_back(block_mean_noise_sd(y, kBlock));
      for (std::size_t i = kRows / 2; i < kRows; ++i) y[i] -= drop * sigma_s;
      stepped.push_back(block_mean_noise_sd(y, kBlock));
    }
    // The same noise with and without the drop: the ratio of the means is 1.017 (1.019 for
    // the tenfold drop — the MAD is bounded: 1.6 % of second differences, however large, move
    // its quantile by ~2 %); its standard error is ≲ 0.5 %, so 10 % is ≫ 10 of them.
    const double ratio = seed_stats(stepped).mean / seed_stats(flat).mean;
    EXPECT_GT(ratio, 0.99) << drop;
    EXPECT_LT(ratio, 1.10) << drop;
  }
}

// A non-finite row spoils only the blocks that hold it: σ_s stays that of the rest.
TEST(AnalysisSmoothing, BlockNoiseSkipsBlocksWithANonFiniteRow) {
  auto y = ar1_noise(kRows, 0.0, 4000);
  const double clean = block_mean_noise_sd(y, kBlock);
  y[1000] = std::numeric_limits<double>::quiet_NaN();
  y[3000] = std::numeric_limits<double>::infinity();
  const double spoiled = block_mean_noise_sd(y, kBlock);
  EXPECT_TRUE(std::isfinite(spoiled));
  EXPECT_NEAR(spoiled / clean, 1.0, 0.03);
}

// A row's noise (the summary's "raw") on correlated rows: an Ornstein–Uhlenbeck force of sd
// 5 pN and correlation time 10 rows on a ramp with one rupture, smoothed over 101 rows. Its
// spread about the smoothed curve is near the 5 pN a row scatters by; second differences see
// only ~5·√(1 − e^(−1/10)) ≈ 1.5 pN (an audit read "1.9 pN raw, 3.1 pN smoothed").
TEST(AnalysisSmoothing, ARowsNoiseIsItsSpreadAboutTheCurve) {
  std::mt19937_64 rng(8);
  std::normal_distribution<double> gauss(0.0, 1.0);
  const double a = std::exp(-1.0 / 10.0);
  std::vector<double> base(20000), force(20000);
  double v = 0.0;
  for (std::size_t i = 0; i < force.size(); ++i) {
    v = a * v + 5.0 * std::sqrt(1.0 - a * a) * gauss(rng);
    base[i] = 0.001 * double(i);
    force[i] = (i < 12000 ? 0.02 * double(i) : 0.02 * double(i - 12000)) + v;
  }
  CurveSettings settings;
  settings.points = 101;
  const Smoother smooth = make_smoother(base, settings, "test", "cantilever-base");
  SmoothingInfo info = smooth.info;
  set_peak_criterion(info, force, smooth(force), settings);
  EXPECT_LT(noise_sd(force), 2.0);
  // The running mean of 101 rows takes ~20 % of an OU's variance at this correlation time
  // (the part slower than the window stays on the curve): 5·√0.8 ≈ 4.5 pN, within 10 %.
  EXPECT_NEAR(info.noise_raw, 4.5, 0.45);
  EXPECT_GT(info.noise_raw, info.noise_smoothed);
  // A window of one row smooths nothing: second differences.
  settings.points = 1;
  const Smoother none = make_smoother(base, settings, "test", "cantilever-base");
  SmoothingInfo single = none.info;
  set_peak_criterion(single, force, none(force), settings);
  EXPECT_DOUBLE_EQ(single.noise_raw, noise_sd(force));
}

// A `nan` row (written where a run blew up) spoils only itself: the running averages take
// the finite values of each window.
TEST(AnalysisSmoothing, ANanRowSpoilsOnlyItself) {
  std::vector<double> y(100, 5.0), s(100);
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = 0.1 * double(i);
  y[50] = std::numeric_limits<double>::quiet_NaN();
  for (const auto& smoothed : {running_average_window(s, y, 1.0), running_average_points(y, 11)})
    for (std::size_t i = 0; i < smoothed.size(); ++i) EXPECT_DOUBLE_EQ(smoothed[i], 5.0) << i;
}

// --- WLC ---------------------------------------------------------------------------------

TEST(AnalysisWlc, MarkoSiggiaValuesAndInverse) {
  // kT/P · (1/(4·0.25) − 1/4 + 1/2) at x = Lc/2: 1.25 kT/P.
  EXPECT_NEAR(marko_siggia_force(15.0, 30.0, 0.4, kT300), 1.25 * kT300 / 0.4, 1e-12);
  EXPECT_DOUBLE_EQ(marko_siggia_force(0.0, 30.0, 0.4, kT300), 0.0);
  EXPECT_TRUE(std::isinf(marko_siggia_force(30.0, 30.0, 0.4, kT300)));
  EXPECT_NEAR(kT300, 4.141947, 1e-6);
  for (double f : {-5.0, 0.0, 0.1, 1.0, 10.0, 100.0, 1000.0}) {
    const double x = marko_siggia_extension(f, 30.0, 0.4, kT300);
    EXPECT_LT(x, 30.0);
    EXPECT_NEAR(marko_siggia_force(x, 30.0, 0.4, kT300), f, 1e-7 * std::max(1.0, f)) << f;
  }
}

TEST(AnalysisWlc, FitRecoversContourLengthWithPersistenceFixed) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::vector<double> x, f;
  // 200 points from 5 to 250 pN along a chain of Lc = 31.7 nm, force noise 3 pN.
  for (int i = 0; i < 200; ++i) {
    const double ft = 5.0 + 245.0 * i / 199.0;
    x.push_back(marko_siggia_extension(ft, 31.7, 0.4, kT300));
    f.push_back(ft + 3.0 * gauss(rng));
  }
  const WlcFit fit = fit_wlc(x, f, {kT300, 0.4, false});
  ASSERT_TRUE(fit.ok) << fit.note;
  EXPECT_NEAR(fit.contour_length, 31.7, 0.02);  // sd of the estimate ≈ 0.005 nm here
  EXPECT_DOUBLE_EQ(fit.persistence_length, 0.4);
  EXPECT_NEAR(fit.rms_residual, 3.0, 0.5);
  EXPECT_EQ(fit.points, 200u);
  // Exact data: exact Lc.
  std::vector<double> fe;
  for (int i = 0; i < 200; ++i) fe.push_back(5.0 + 245.0 * i / 199.0);
  const WlcFit exact = fit_wlc(x, fe, {kT300, 0.4, false});
  EXPECT_NEAR(exact.contour_length, 31.7, 1e-6);
}

TEST(AnalysisWlc, FitRecoversContourAndPersistenceLength) {
  std::mt19937_64 rng(6);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::vector<double> x, f;
  for (int i = 0; i < 400; ++i) {
    const double ft = 2.0 + 298.0 * i / 399.0;
    x.push_back(marko_siggia_extension(ft, 45.0, 0.65, kT300));
    f.push_back(ft + 2.0 * gauss(rng));
  }
  WlcFitOptions o{kT300, 0.4, true};
  const WlcFit fit = fit_wlc(x, f, o);
  ASSERT_TRUE(fit.ok) << fit.note;
  EXPECT_NEAR(fit.contour_length, 45.0, 0.1);
  EXPECT_NEAR(fit.persistence_length, 0.65, 0.65 * 0.05);
  // Too few points, or nothing to fit, is reported, not thrown.
  EXPECT_FALSE(fit_wlc(std::vector<double>{1, 2}, std::vector<double>{1, 2}, {kT300, 0.4, false}).ok);
  EXPECT_FALSE(fit_wlc(std::vector<double>{1, 2, 3}, std::vector<double>{0, 0, 0}, {kT300, 0.4, false}).ok);
}

TEST(AnalysisWlc, SawtoothGivesContourLengthsAndIncrements) {
  const std::vector<double> lc = {12.0, 24.0, 36.0, 48.0}, rupture = {120.0, 150.0, 110.0};
  const Sawtooth s = make_sawtooth(lc, rupture, 50.0, 0.4, 52.0, 0.005, 4.0, 0.03, 2);
  // Through the whole pipeline, as `ermak analyze` runs it, from a table in memory.
  std::string text = "# step\ttime[ns]\tbase[nm]\tend_to_end[nm]\textension[nm]\tforce[pN]\tforce_along[pN]\n";
  for (std::size_t i = 0; i < s.base.size(); ++i)
    text += std::to_string(i * 100) + "\t" + std::to_string(i * 0.002) + "\t" + std::to_string(s.base[i]) + "\t" +
            std::to_string(s.x[i]) + "\t" + std::to_string(s.x[i]) + "\t" + std::to_string(std::abs(s.f[i])) + "\t" +
            std::to_string(s.f[i]) + "\n";
  const TsvTable table = TsvTable::parse(text, "sawtooth.tsv");
  CurveSettings settings;
  settings.window_nm = 0.3;
  const PullingAnalysis a = analyze_pulling(table, settings);
  EXPECT_FALSE(a.force_clamp);
  EXPECT_NEAR(a.smoothing.noise_raw, 4.0, 0.4);
  ASSERT_EQ(a.peaks.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE(k);
    ASSERT_TRUE(a.peaks[k].fit.ok) << a.peaks[k].fit.note;
    // Smoothing a curved relation biases the fit a little; 1 % of Lc is well above it.
    EXPECT_NEAR(a.peaks[k].fit.contour_length, lc[k], 0.01 * lc[k]);
    EXPECT_NEAR(a.peaks[k].peak.force, rupture[k], 9.0);
    EXPECT_EQ(a.peaks[k].step, std::int64_t(a.peaks[k].peak.index) * 100);
    if (k > 0) EXPECT_NEAR(a.peaks[k].delta_contour_length, 12.0, 0.3);
  }
  EXPECT_TRUE(std::isnan(a.peaks[0].delta_contour_length));
  ASSERT_TRUE(a.final_fit.has_value());
  ASSERT_TRUE(a.final_fit->ok);
  EXPECT_NEAR(a.final_fit->contour_length, 48.0, 0.5);
  EXPECT_NEAR(a.final_delta_contour_length, 12.0, 0.5);
  // Three events of 12 nm: the contour length released in all is 48 − 12 = 36 nm (the last
  // fitted edge's Lc − the first's), not the 12 nm mean of the per-event increments.
  const auto total = total_contour_increment(a);
  ASSERT_TRUE(total.has_value());
  EXPECT_EQ(total->first_edge, 0u);
  EXPECT_EQ(total->last_edge, 3u);
  EXPECT_TRUE(total->ends_at_final_edge);
  EXPECT_NEAR(total->delta_nm, 36.0, 0.6);
  EXPECT_DOUBLE_EQ(total->delta_nm, a.final_fit->contour_length - a.peaks[0].fit.contour_length);
  // With the run's κv (50 pN/nm × 0.005 nm per 0.002 ns) every rise is the cantilever's.
  settings.loading_rate_pN_per_s = 50.0 * 0.005 / 0.002e-9;
  const PullingAnalysis loaded = analyze_pulling(table, settings);
  EXPECT_EQ(loaded.peaks.size(), 3u);
  EXPECT_TRUE(loaded.unloaded.empty());
}

// Which edges the total ΔLc spans: the first and the last whose fit succeeded, the edge after
// the last peak included; fewer than two fitted edges give none
// (docs/analysis.md#worm-like-chain-fits-lc-and-δlc).
TEST(AnalysisWlc, TotalContourIncrementSpansTheFirstAndLastFittedEdges) {
  auto fit = [](double lc) {
    WlcFit f;
    f.ok = true;
    f.contour_length = lc;
    return f;
  };
  PullingAnalysis a;
  EXPECT_FALSE(total_contour_increment(a).has_value()) << "no peak";
  a.peaks.resize(3);
  a.peaks[0].fit = fit(6.5);
  EXPECT_FALSE(total_contour_increment(a).has_value()) << "one fitted edge";
  a.peaks[1].fit = fit(22.8);
  a.peaks[2].fit = fit(29.2);
  a.final_fit = fit(35.4);
  auto t = total_contour_increment(a);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->first_edge, 0u);
  EXPECT_EQ(t->last_edge, 3u);
  EXPECT_TRUE(t->ends_at_final_edge);
  EXPECT_DOUBLE_EQ(t->delta_nm, 35.4 - 6.5);
  // A failed first fit: the total starts at the first edge that was fitted.
  a.peaks[0].fit.ok = false;
  t = total_contour_increment(a);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->first_edge, 1u);
  EXPECT_DOUBLE_EQ(t->delta_nm, 35.4 - 22.8);
  // The edge after the last peak not fitted (failed, or no rise there): it ends at the last
  // peak's edge, and says so.
  a.peaks[0].fit.ok = true;
  a.final_fit->ok = false;
  t = total_contour_increment(a);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->last_edge, 2u);
  EXPECT_FALSE(t->ends_at_final_edge);
  EXPECT_DOUBLE_EQ(t->delta_nm, 29.2 - 6.5);
  a.final_fit.reset();
  EXPECT_DOUBLE_EQ(total_contour_increment(a)->delta_nm, 29.2 - 6.5);
}

// A base that hardly moves (0.002 nm in all) under a force that wanders by ±25 pN on a time
// scale of hundreds of rows, as a folded chain's slow modes make it: the smoothed noise
// measured over one window misses the wander, and maxima pass the drop criterion. None rose
// by what the base loads (κv·Δt ≈ 0): with the run's κv they are left out and named.
TEST(AnalysisPeaks, MaximaTheCantileverDidNotLoadAreLeftOut) {
  std::mt19937_64 rng(12);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::string text = "# step\ttime[ns]\tbase[nm]\tend_to_end[nm]\textension[nm]\tforce[pN]\tforce_along[pN]\n";
  for (int i = 0; i < 3000; ++i) {
    const double f = 25.0 * std::sin(i / 150.0) + 10.0 * std::sin(i / 37.0) + 1.0 * gauss(rng);
    text += std::to_string(i * 100) + "\t" + std::to_string(i * 2.0) + "\t" + std::to_string(i * 6.67e-7) +
            "\t3\t3\t" + std::to_string(std::abs(f)) + "\t" + std::to_string(f) + "\n";
  }
  const TsvTable table = TsvTable::parse(text, "wander.tsv");
  CurveSettings settings;
  settings.points = 11;
  const PullingAnalysis free = analyze_pulling(table, settings);
  ASSERT_FALSE(free.peaks.empty()) << "the wander passes the drop criterion";
  settings.loading_rate_pN_per_s = 35.0 * 6.67e-7 / 2.0e-9;  // 35 pN/nm at the base's speed
  const PullingAnalysis checked = analyze_pulling(table, settings);
  EXPECT_TRUE(checked.peaks.empty());
  EXPECT_EQ(checked.unloaded.size(), free.peaks.size());
  for (const auto& u : checked.unloaded) EXPECT_LT(u.loadable_pN, 0.1);
}

// --- statistics ----------------------------------------------------------------------------

TEST(AnalysisStatistics, ExactOnKnownData) {
  const std::vector<double> v = {4, 1, 3, 2, 3, 4, 4, 2, 3, 4};
  const SampleStatistics s = describe(v);
  EXPECT_EQ(s.n, 10u);
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
  EXPECT_DOUBLE_EQ(s.sd, std::sqrt(10.0 / 9.0));
  EXPECT_DOUBLE_EQ(s.sem, std::sqrt(10.0 / 9.0) / std::sqrt(10.0));
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 4.0);
  const Histogram h = histogram(v, 4, 1.0, 4.0);
  EXPECT_EQ(h.edges, (std::vector<double>{1.0, 1.75, 2.5, 3.25, 4.0}));
  EXPECT_EQ(h.counts, (std::vector<std::size_t>{1, 2, 3, 4}));  // the top value joins the last bin
  EXPECT_EQ(count_in_bins(std::vector<double>{0.5, 1.0, 1.75, 4.0, 4.5, NAN}, h.edges),
            (std::vector<std::size_t>{1, 1, 0, 1}));
  const SampleStatistics one = describe(std::vector<double>{7.0});
  EXPECT_EQ(one.n, 1u);
  EXPECT_DOUBLE_EQ(one.mean, 7.0);
  EXPECT_TRUE(std::isnan(one.sd));
  EXPECT_EQ(describe(std::vector<double>{}).n, 0u);
  EXPECT_EQ(default_bin_count(10), 5u);
  EXPECT_EQ(default_bin_count(400), 20u);
  const auto [lo, hi] = histogram_range(std::vector<double>{150.0, 150.0});
  EXPECT_DOUBLE_EQ(lo, 142.5);
  EXPECT_DOUBLE_EQ(hi, 157.5);
}

TEST(AnalysisStatistics, LineFit) {
  std::vector<double> x = {0, 1, 2, 3, 4}, y = {1, 3, 5, 7, 9};
  LinearFit f = fit_line(x, y);
  ASSERT_TRUE(f.ok);
  EXPECT_DOUBLE_EQ(f.slope, 2.0);
  EXPECT_DOUBLE_EQ(f.intercept, 1.0);
  EXPECT_DOUBLE_EQ(f.r_squared, 1.0);
  EXPECT_NEAR(f.slope_se, 0.0, 1e-12);
  y = {1, 3, 5, 7, 10};  // residuals known: slope 2.2, intercept 0.8
  f = fit_line(x, y);
  EXPECT_NEAR(f.slope, 2.2, 1e-12);
  EXPECT_NEAR(f.intercept, 0.8, 1e-12);
  EXPECT_FALSE(fit_line(std::vector<double>{1, 1, 1}, std::vector<double>{1, 2, 3}).ok);
}

// --- indentation -------------------------------------------------------------------------------

// The tip (overdamped, in equilibrium) between the cantilever spring kappa·(b − t) and a
// molecule that pushes back with k1·(t − t_contact) until the force reaches f_break, then
// with k2·(t − t_contact2) (a softer state after a break); the base goes in to b_max
// and comes back.
std::string indentation_table(double kappa, double t_contact, double k1, double f_break, double k2,
                              double t_contact2, double b_max, double db, double sigma, unsigned seed,
                              double molecule_sigma_in_contact = -1.0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::string text = "# step\ttime[ns]\tbase[nm]\ttip[nm]\ttip_x[nm]\ttip_y[nm]\ttip_z[nm]\tspring_force[pN]\tmolecule_force[pN]\n";
  bool broken = false;
  std::vector<double> bases;
  for (double b = 0.0; b <= b_max + 1e-9; b += db) bases.push_back(b);
  for (std::size_t i = bases.size(); i-- > 1;) bases.push_back(bases[i - 1]);  // retraction
  for (std::size_t i = 0; i < bases.size(); ++i) {
    const double b = bases[i];
    auto solve = [&](double k, double tc) { return b <= tc ? b : (kappa * b + k * tc) / (kappa + k); };
    double t = broken ? solve(k2, t_contact2) : solve(k1, t_contact);
    double f = kappa * (b - t);
    if (!broken && f >= f_break) {
      broken = true;
      t = solve(k2, t_contact2);
      f = kappa * (b - t);
    }
    const double fm = f;  // molecule force balances the spring in equilibrium
    text += std::to_string(i * 10) + "\t" + std::to_string(i * 0.01) + "\t" + std::to_string(b) + "\t" +
            std::to_string(t) + "\t0\t0\t" + std::to_string(-t) + "\t" + std::to_string(f + sigma * gauss(rng)) +
            "\t" + std::to_string(fm + (molecule_sigma_in_contact >= 0.0 && t > t_contact ? molecule_sigma_in_contact : sigma) *
                                             gauss(rng)) +
            "\n";
  }
  return text;
}

TEST(AnalysisIndentation, SpringConstantContactAndBreakingEvent) {
  // Contact at tip = 5 nm, molecule stiffness 20 pN/nm up to 150 pN, then 8 pN/nm from a
  // contact at 9 nm; cantilever 50 pN/nm; base to 20 nm in 0.005 nm steps; noise 3 pN.
  const std::string text = indentation_table(50.0, 5.0, 20.0, 150.0, 8.0, 9.0, 20.0, 0.005, 3.0, 3);
  const TsvTable table = TsvTable::parse(text, "indentation.tsv");
  CurveSettings settings;
  settings.window_nm = 0.2;
  const IndentationAnalysis a = analyze_indentation(table, settings);
  EXPECT_EQ(a.turnaround, 4000u);
  ASSERT_TRUE(a.contact_found);
  // The threshold (5 pN or 3σ of the smoothed noise) is crossed within a fraction of a nm.
  EXPECT_NEAR(a.contact_tip_nm, 5.0, 0.4);
  ASSERT_TRUE(a.linear.ok);
  EXPECT_NEAR(a.linear.slope, 20.0, 0.4);
  EXPECT_NEAR(a.contact_extrapolated_nm + a.contact_tip_nm, 5.0, 0.1);  // the line crosses 0 at contact
  ASSERT_EQ(a.peaks.size(), 1u);
  EXPECT_NEAR(a.peaks[0].peak.force, 150.0, 8.0);
  EXPECT_NEAR(a.peaks[0].tip_nm, 5.0 + 150.0 / 20.0, 0.3);
  // A user window over the second, softer branch gives its stiffness.
  settings.linear_range_nm = std::make_pair(15.0 - a.contact_tip_nm, 18.0 - a.contact_tip_nm);
  const IndentationAnalysis b = analyze_indentation(table, settings);
  ASSERT_TRUE(b.linear.ok);
  EXPECT_NEAR(b.linear.slope, 8.0, 0.3);
}

// A short-ranged tip makes the molecule's force spiky once it presses (λ repressor under a
// tip of σ = 1 Å: spikes of ~100 pN), while before contact it is zero: the default
// threshold follows the noise before contact, not the spikes (it used to land at ~180 pN
// and the contact ~1 nm late).
TEST(AnalysisIndentation, ContactFromTheNoiseBeforeIt) {
  // As above, but 0.3 pN of noise before contact and 150 pN (per row) in contact.
  const std::string text = indentation_table(50.0, 5.0, 20.0, 150.0, 8.0, 9.0, 20.0, 0.005, 0.3, 5, 150.0);
  const TsvTable table = TsvTable::parse(text, "indentation.tsv");
  CurveSettings settings;
  settings.window_nm = 0.2;
  const IndentationAnalysis a = analyze_indentation(table, settings);
  ASSERT_TRUE(a.contact_found);
  EXPECT_LT(a.contact_threshold_pN, 10.0);
  EXPECT_NEAR(a.contact_tip_nm, 5.0, 0.4);
  // A threshold given by the user is kept as given.
  settings.contact_force_pN = 60.0;
  const IndentationAnalysis b = analyze_indentation(table, settings);
  EXPECT_EQ(b.contact_threshold_pN, 60.0);
  EXPECT_GT(b.contact_tip_nm, a.contact_tip_nm);
}

// The search for the contact is repeated while the threshold falls however early the first
// contact lies: a stiff molecule (600 pN/nm under a 200 pN/nm cantilever) reached 25 rows
// (2.5 windows) into the approach, whose pressed force is spiky (30 pN per row). The noise of the
// whole approach sets the first threshold at ~40 pN, crossed a few rows after the contact; the
// rows before that, less one window, are the quiet baseline (0.3 pN), which gives 5 pN. (The
// search used to be repeated only for a first contact beyond 4 windows: the threshold stayed at
// ~40 pN (38.6), as the λ-repressor example's replica 1 stayed at 107 pN.)
TEST(AnalysisIndentation, ContactSearchIsRepeatedForAnEarlyContact) {
  const double t_contact = 0.5, db = 0.02;  // the contact at row 25; windows of 0.2 nm: 11 rows
  const std::string text =
      indentation_table(200.0, t_contact, 600.0, 1e9, 600.0, t_contact, 6.0, db, 0.3, 7, 30.0);
  CurveSettings settings;
  settings.window_nm = 0.2;
  const IndentationAnalysis a = analyze_indentation(TsvTable::parse(text, "indentation.tsv"), settings);
  ASSERT_TRUE(a.contact_found);
  EXPECT_EQ(a.contact_threshold_pN, 5.0);
  // Within half a window of the first pressed row (the smoothed force reaches 5 pN as the
  // window takes in the first spikes), not several rows into the pressing.
  EXPECT_GE(a.contact_row, 20u);
  EXPECT_LE(a.contact_row, 30u);
  // A contact within a window (and 5 rows) of the first row has no baseline to measure: its
  // threshold stands, and nothing reads before the first row.
  const std::string early = indentation_table(200.0, 0.05, 600.0, 1e9, 600.0, 0.05, 6.0, db, 0.3, 7, 30.0);
  const IndentationAnalysis b = analyze_indentation(TsvTable::parse(early, "indentation.tsv"), settings);
  ASSERT_TRUE(b.contact_found);
  EXPECT_LT(b.contact_row, 16u);
}

// A table of an indentation whose base moves by db per row to b_max: the tip follows the base
// (t = b − f/κ) with a spring force `before(b)` until the tip reaches t_contact, then presses
// on a molecule of stiffness k1; the molecule force is 0 before the contact (noise sigma).
std::string indentation_table_with(double kappa, double t_contact, double k1, double b_max, double db, double sigma,
                                   unsigned seed, const std::function<double(double)>& before) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::string text = "# step\ttime[ns]\tbase[nm]\ttip[nm]\tspring_force[pN]\tmolecule_force[pN]\n";
  int i = 0;
  for (double b = 0.0; b <= b_max + 1e-9; b += db, ++i) {
    const double free_force = before(b);
    const double pressed_tip = (kappa * b + k1 * t_contact) / (kappa + k1);
    const bool contact = b - free_force / kappa > t_contact;
    const double t = contact ? pressed_tip : b - free_force / kappa;
    const double f = kappa * (b - t);
    char line[200];
    std::snprintf(line, sizeof line, "%d\t%.6f\t%.6f\t%.8f\t%.6f\t%.6f\n", 10 * i, 0.01 * i, b, t,
                  f + sigma * gauss(rng), (contact ? f : 0.0) + sigma * gauss(rng));
    text += line;
  }
  return text;
}

// Before the contact the tip touches nothing: a maximum of its spring force there (the free
// tip's wander) is no breaking event; nor is, after it, a rise faster than the cantilever
// loads (κ·Δbase + the criterion, κ fitted from the table's own spring law).
TEST(AnalysisIndentation, MaximaBeforeTheContactOrUnloadedAreNoEvents) {
  CurveSettings settings;
  settings.window_nm = 0.2;
  // A 40 pN excursion of the free tip at base 2 nm (over ±0.1 nm), contact at tip 5 nm.
  const auto wander = [](double b) { return 40.0 * std::exp(-0.5 * std::pow((b - 2.0) / 0.05, 2)); };
  const std::string text = indentation_table_with(50.0, 5.0, 20.0, 10.0, 0.005, 0.3, 9, wander);
  const IndentationAnalysis a = analyze_indentation(TsvTable::parse(text, "indentation.tsv"), settings);
  ASSERT_TRUE(a.contact_found);
  EXPECT_NEAR(a.contact_tip_nm, 5.0, 0.3);
  EXPECT_EQ(a.maxima_before_contact, 1u);
  EXPECT_TRUE(a.peaks.empty());
  EXPECT_NEAR(a.cantilever_pN_per_nm, 50.0, 0.02);  // spring_force = κ (base − tip), 0.3 pN of noise
  // The same excursion after the contact, on a base that no longer moves: the cantilever
  // loads nothing there, so the rise is the tip's wander.
  std::string held = "# step\ttime[ns]\tbase[nm]\ttip[nm]\tspring_force[pN]\tmolecule_force[pN]\n";
  for (int i = 0; i < 2000; ++i) {
    const double f = 30.0 + 60.0 * std::exp(-0.5 * std::pow((i - 1000) / 40.0, 2));
    const double t = -f / 50.0;
    char line[200];
    std::snprintf(line, sizeof line, "%d\t%.6f\t0\t%.8f\t%.6f\t%.6f\n", 10 * i, 0.01 * i, t, f, f);
    held += line;
  }
  const IndentationAnalysis h = analyze_indentation(TsvTable::parse(held, "indentation.tsv"), settings);
  ASSERT_TRUE(h.contact_found);
  EXPECT_TRUE(h.peaks.empty());
  ASSERT_EQ(h.unloaded.size(), 1u);
  EXPECT_EQ(h.unloaded[0].loadable_pN, 0.0);
  EXPECT_GT(h.unloaded[0].rise_pN, 50.0);
}

// A tip placed on the molecule presses from the first row (SOP-GPU's PF8 example): the
// contact is that row, not "never reached" a threshold set by the pressed force's spikes.
TEST(AnalysisIndentation, ATipPressingFromTheStartIsInContactAtTheFirstRow) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::string text = "# step\ttime[ns]\tbase[nm]\ttip[nm]\tspring_force[pN]\tmolecule_force[pN]\n";
  for (int i = 0; i <= 400; ++i) {
    const double b = 0.005 * i, f = 60.0 + 20.0 * b, t = b - f / 50.0;
    char line[200];
    std::snprintf(line, sizeof line, "%d\t%.6f\t%.6f\t%.8f\t%.6f\t%.6f\n", 10 * i, 0.01 * i, b, t, f,
                  f + 80.0 * gauss(rng));
    text += line;
  }
  CurveSettings settings;
  settings.window_nm = 0.2;
  const IndentationAnalysis a = analyze_indentation(TsvTable::parse(text, "indentation.tsv"), settings);
  ASSERT_TRUE(a.contact_found);
  EXPECT_TRUE(a.contact_at_start);
  EXPECT_EQ(a.contact_row, 0u);
  EXPECT_GT(a.molecule_force_first_pN, 5.0);
}

TEST(AnalysisIndentation, MissingColumnIsAClearError) {
  const TsvTable table = TsvTable::parse("# step\ttime[ns]\tbase[nm]\ttip[nm]\tspring_force[pN]\n0\t0\t0\t0\t0\n", "x/indentation.tsv");
  try {
    analyze_indentation(table, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x/indentation.tsv"), std::string::npos);
    EXPECT_EQ(e.field(), "molecule_force[pN]");
  }
}

TEST(AnalysisPulling, ForceClampIsRecognisedAndTimed) {
  // The base never moves; the extension jumps from 3 to 13 nm at t = 6 ns.
  std::string text = "# step\ttime[ns]\tbase[nm]\tend_to_end[nm]\textension[nm]\tforce_x[pN]\tforce_y[pN]\tforce_z[pN]\tforce[pN]\tforce_along[pN]\n";
  for (int i = 0; i < 1000; ++i) {
    const double t = 0.01 * i, x = t < 6.0 ? 3.0 : 13.0;
    text += std::to_string(i) + "\t" + std::to_string(t) + "\t0\t" + std::to_string(x) + "\t" + std::to_string(x) +
            "\t100\t0\t0\t100\t100\n";
  }
  const PullingAnalysis a = analyze_pulling(TsvTable::parse(text, "clamp.tsv"), {});
  EXPECT_TRUE(a.force_clamp);
  EXPECT_TRUE(a.peaks.empty());
  EXPECT_DOUBLE_EQ(a.mean_force_pN, 100.0);
  EXPECT_NEAR(a.extension_start_nm, 3.0, 1e-12);
  EXPECT_NEAR(a.extension_end_nm, 13.0, 1e-12);
  EXPECT_NEAR(a.half_extension_time_ns, 6.0, 0.011);
  EXPECT_TRUE(a.clamp_transition);
  EXPECT_NEAR(a.extension_change_last_tenth_nm, 0.0, 1e-12);  // a plateau
}

// A base that goes back (a table joined from two runs) is told with its step and travels;
// a base that only moves forward is not.
TEST(AnalysisPulling, ABaseThatGoesBackIsNamed) {
  const std::string header =
      "# step\ttime[ns]\tbase[nm]\tend_to_end[nm]\textension[nm]\tforce_x[pN]\tforce_y[pN]\tforce_z[pN]\tforce[pN]\t"
      "force_along[pN]\n";
  auto table = [&](bool back) {
    std::string text = header;
    for (int i = 0; i < 200; ++i) {
      const double base = back && i >= 100 ? 0.05 * (i - 20) : 0.05 * i, x = 0.8 * base, f = 35.0 * (base - x);
      text += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t0\t0\t{}\t{}\n", 100 * i, 0.01 * i, base, x + 1, x, f, f, f);
    }
    return analyze_pulling(TsvTable::parse(text, "pulling.tsv"), {});
  };
  const PullingAnalysis joined = table(true);
  ASSERT_TRUE(joined.base_turns_back.has_value());
  EXPECT_DOUBLE_EQ(joined.base_turns_back->step, 10000.0);
  EXPECT_NEAR(joined.base_turns_back->from_nm, 4.95, 1e-12);
  EXPECT_NEAR(joined.base_turns_back->to_nm, 4.0, 1e-12);
  EXPECT_FALSE(table(false).base_turns_back.has_value());
  EXPECT_EQ(table(false).non_finite_rows, 0u);
  // A nan row is counted (and skipped by the smoothing: AnalysisSmoothing.ANanRowSpoilsOnlyItself).
  std::string text = header;
  for (int i = 0; i < 50; ++i)
    text += fmt::format("{}\t{}\t{}\t1\t{}\t1\t0\t0\t1\t1\n", 100 * i, 0.01 * i, 0.05 * i, i == 20 ? "nan" : "0.5");
  EXPECT_EQ(analyze_pulling(TsvTable::parse(text, "pulling.tsv"), {}).non_finite_rows, 1u);
}

}  // namespace
}  // namespace ermak::analysis
