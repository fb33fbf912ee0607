// analysis/melting_curve: the melting curve of a heating run from synthetic energy tables
// with a known two-state Q(T), a known heat capacity and a transient at the start of every
// stair that the analysis must leave out; and `ermak analyze` on such a run directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ermak/analysis/melting_curve.h"
#include "ermak/analysis/tsv_table.h"
#include "ermak/core/units.h"
#include "ermak/run/run_lock.h"
#include "support/test_paths.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;

// From 0.95 (native) to unfolded_q about a centre at 410 K (+ shift_K); Q = 1/2 at 416.1 K
// (+ shift_K) with the default unfolded baseline, never with one above 1/2.
double q_of(double t, double shift_K = 0.0, double unfolded_q = 0.2) {
  return unfolded_q + (0.95 - unfolded_q) / (1.0 + std::exp((t - 410.0 - shift_K) / 15.0));
}
double c_of(double t) { return 0.05 + 0.5 * std::exp(-std::pow((t - 420.0) / 20.0, 2)); }  // kcal/mol/K

// Stairs 300, 320, …, 500 K of 400 rows; the first half of each stair holds a transient
// (Q = 1, U offset by +50) that the analysis must not see.
std::string energies_table(std::mt19937_64& rng, double shift_K = 0.0, double unfolded_q = 0.2) {
  std::normal_distribution<double> unit(0.0, 1.0);
  std::string text = "# step\ttime[ns]\tT[K]\tU_FENE[kcal/mol]\tU_native[kcal/mol]\tU_repulsive[kcal/mol]\t"
                     "U_protocol[kcal/mol]\tU_total[kcal/mol]\tQ\tRg[A]\tend_to_end[A]\n";
  long step = 0;
  for (double t = 300.0; t <= 500.0; t += 20.0)
    for (int i = 0; i < 400; ++i, step += 100) {
      const bool settling = i < 200;
      const double sd_u = std::sqrt(c_of(t) * units::kBoltzmann_kcal_per_mol_K * t * t);
      const double u = -100.0 + 0.2 * t + sd_u * unit(rng) + (settling ? 50.0 : 0.0);
      // Q is a fraction: the noise is kept within [0, 1], as a run's is (the analysis refuses
      // other values as a damaged table).
      const double q = settling ? 1.0 : std::clamp(q_of(t, shift_K, unfolded_q) + 0.02 * unit(rng), 0.0, 1.0);
      text += std::to_string(step) + "\t0\t" + std::to_string(t) + "\t0\t0\t0\t0\t" + std::to_string(u) + "\t" +
              std::to_string(q) + "\t10\t20\n";
    }
  return text;
}

TEST(MeltingCurve, StairsGiveTheTwoStateCurveAndTheHeatCapacity) {
  std::mt19937_64 rng(4);
  std::vector<TsvTable> replicas;
  for (int r = 0; r < 3; ++r) replicas.push_back(TsvTable::parse(energies_table(rng), "replica_00" + std::to_string(r)));
  const MeltingAnalysis m = analyze_melting(replicas);
  ASSERT_EQ(m.stairs.size(), 11u);
  for (const MeltingStair& s : m.stairs) {
    EXPECT_EQ(s.replicas, 3u);
    EXPECT_EQ(s.rows, 600u);  // the second half of 400 rows, three replicas
    // The transient (Q = 1) is left out: Q is the curve's to its noise (0.02/√600).
    EXPECT_NEAR(s.q_mean, q_of(s.temperature_K), 0.01) << s.temperature_K;
    // var(U)/(k_B T²) from 3 × 200 rows: within 25 % (the estimate's sd is ~6 %).
    EXPECT_NEAR(s.heat_capacity_kcal_per_mol_K, c_of(s.temperature_K), 0.25 * c_of(s.temperature_K))
        << s.temperature_K;
  }
  ASSERT_TRUE(m.half_q_temperature_K);
  EXPECT_NEAR(*m.half_q_temperature_K, 416.1, 1.5);  // linear between the 400 and 420 K stairs: 416.2
  // The baselines' midpoint: the first and last stairs' Q (0.9495 and 0.2019, within the noise)
  // average 0.5757, which the curve passes at its centre, 410 K (409.94 K linear between the
  // 400 and 420 K stairs) — the two-state T_m that Q = 1/2 (Q_N + Q_U ≠ 1 here) misses by 6 K.
  ASSERT_TRUE(m.first_stair_q && m.last_stair_q && m.midpoint_temperature_K);
  EXPECT_NEAR(*m.first_stair_q, q_of(300.0), 0.01);
  EXPECT_NEAR(*m.last_stair_q, q_of(500.0), 0.01);
  EXPECT_NEAR(*m.midpoint_q(), 0.5757, 0.01);
  EXPECT_NEAR(*m.midpoint_temperature_K, 409.94, 1.5);
  ASSERT_TRUE(m.heat_capacity_peak_K);
  EXPECT_EQ(*m.heat_capacity_peak_K, 420.0);
  // d⟨U⟩/dT of U = −100 + 0.2·T: 0.2 at every stair, within 5 sd of the difference of two stair
  // means (each sd_u/√600, sd_u from c_of) over 40 K (20 K at the ends).
  for (const MeltingStair& s : m.stairs) {
    const double t = s.temperature_K, span = t == 300.0 || t == 500.0 ? 20.0 : 40.0;
    const double sem = std::sqrt(c_of(t) * units::kBoltzmann_kcal_per_mol_K * t * t / 600.0);
    EXPECT_NEAR(s.energy_slope_kcal_per_mol_K, 0.2, 5.0 * std::sqrt(2.0) * sem / span) << t;
  }
  // These tables' fluctuations are set apart from their slope on purpose: C = 0.05 + … is under
  // 0.1 = half the slope more than 30 K from 420 K, which the analysis flags (ends excepted).
  EXPECT_EQ(m.undersampled_K, (std::vector<double>{320, 340, 360, 380, 460, 480}));
  // Replicas of one curve: the crossing hardly moves between resamples of them.
  ASSERT_TRUE(m.half_q_interval_K);
  EXPECT_EQ(m.half_q_interval_K->finite, kMeltingBootstrapResamples);
  EXPECT_LE(m.half_q_interval_K->lo, *m.half_q_temperature_K);
  EXPECT_GE(m.half_q_interval_K->hi, *m.half_q_temperature_K);
  EXPECT_LT(m.half_q_interval_K->hi - m.half_q_interval_K->lo, 3.0);
}

// The pooled heat capacity, now combined from each replica's count, mean and sd of U (the
// analysis keeps no rows), is the variance of all replicas' rows of a stair taken together:
// here against that variance computed from the rows themselves (the second half of each
// stair, the step-0 row left out), to 1e-9 relative, with one table's row of U made NaN
// (left out of both).
TEST(MeltingCurve, PooledHeatCapacityIsTheVarianceOfAllRowsTogether) {
  std::mt19937_64 rng(17);
  std::vector<TsvTable> replicas;
  for (int r = 0; r < 3; ++r) {
    std::string table = energies_table(rng, 10.0 * r);
    if (r == 1) {  // U_total of row 2300, step 230000 (the 400 K stair's second half): NaN
      const std::size_t at = table.find("\n230000\t");
      ASSERT_NE(at, std::string::npos);
      std::size_t field = at + 1;
      for (int k = 0; k < 7; ++k) field = table.find('\t', field) + 1;
      table.replace(field, table.find('\t', field) - field, "nan");
    }
    replicas.push_back(TsvTable::parse(table, "replica_00" + std::to_string(r)));
  }
  const MeltingAnalysis m = analyze_melting(replicas);
  ASSERT_EQ(m.stairs.size(), 11u);
  std::size_t nan_rows = 0;
  for (const MeltingStair& stair : m.stairs) {
    std::vector<double> pooled;
    for (const TsvTable& t : replicas) {
      const auto step = t.column("step"), temperature = t.column("T[K]"), u = t.column("U_total[kcal/mol]");
      std::size_t a = step[0] == 0.0 ? 1 : 0;
      while (a < t.rows()) {
        std::size_t b = a;
        while (b < t.rows() && temperature[b] == temperature[a]) ++b;
        if (temperature[a] == stair.temperature_K)
          for (std::size_t i = a + (b - a) / 2; i < b; ++i)
            if (std::isfinite(u[i])) pooled.push_back(u[i]);
            else ++nan_rows;
        a = b;
      }
    }
    double mean = 0.0, squares = 0.0;
    for (double v : pooled) mean += v / double(pooled.size());
    for (double v : pooled) squares += (v - mean) * (v - mean);
    const double expected = squares / double(pooled.size() - 1) /
                            (units::kBoltzmann_kcal_per_mol_K * stair.temperature_K * stair.temperature_K);
    EXPECT_NEAR(stair.heat_capacity_pooled, expected, 1e-9 * expected) << stair.temperature_K;
    EXPECT_EQ(stair.rows, 600u);  // rows, NaN or not
  }
  EXPECT_EQ(nan_rows, 1u);
}

// Replicas that melt 60 K apart (Q = 1/2 at 386, 406, 426 and 446 K): the crossing of their
// mean is uncertain by tens of kelvin, which the interval over resampled replicas shows; the
// extreme resamples (all four draws of one replica) bound it. One replica has no spread.
TEST(MeltingCurve, TheHalfQTemperatureSpreadsOverTheReplicas) {
  std::mt19937_64 rng(9);
  std::vector<TsvTable> replicas;
  for (double shift : {-30.0, -10.0, 10.0, 30.0})
    replicas.push_back(TsvTable::parse(energies_table(rng, shift), "replica"));
  const MeltingAnalysis m = analyze_melting(replicas);
  ASSERT_TRUE(m.half_q_temperature_K);
  EXPECT_NEAR(*m.half_q_temperature_K, 416.0, 4.0);
  ASSERT_TRUE(m.half_q_interval_K);
  const PercentileInterval& p = *m.half_q_interval_K;
  EXPECT_LT(p.lo, *m.half_q_temperature_K - 10.0);
  EXPECT_GT(p.hi, *m.half_q_temperature_K + 10.0);
  EXPECT_GT(p.lo, 380.0);
  EXPECT_LT(p.hi, 452.0);
  const MeltingAnalysis one = analyze_melting(std::span<const TsvTable>(replicas.data(), 1));
  ASSERT_TRUE(one.half_q_temperature_K);
  EXPECT_FALSE(one.half_q_interval_K);
}

// A replica whose table stops early (here after the 400 K stair, before its chain melts) would
// leave the later stairs averaged over the others only; the crossing and its interval then
// come from the replicas that hold every stair, as if the short one were absent.
TEST(MeltingCurve, AReplicaCutShortDoesNotMoveTheCrossing) {
  std::mt19937_64 rng(12);
  std::vector<TsvTable> whole;
  for (double shift : {-20.0, -10.0, 0.0}) whole.push_back(TsvTable::parse(energies_table(rng, shift), "replica"));
  std::string late = energies_table(rng, 60.0);
  std::size_t end = 0;
  for (int line = 0; line < 1 + 6 * 400; ++line) end = late.find('\n', end) + 1;  // header + 300..400 K
  std::vector<TsvTable> with_short = whole;
  with_short.insert(with_short.begin() + 1, TsvTable::parse(late.substr(0, end), "replica"));
  const MeltingAnalysis m = analyze_melting(with_short), reference = analyze_melting(whole);
  EXPECT_EQ(m.replicas_missing_stairs, std::vector<std::size_t>{1});
  EXPECT_EQ(m.half_q_replicas, 3u);
  EXPECT_EQ(m.stairs.front().replicas, 4u);  // the table still shows every replica's stairs
  EXPECT_EQ(m.stairs.back().replicas, 3u);
  ASSERT_TRUE(m.half_q_temperature_K && reference.half_q_temperature_K);
  EXPECT_DOUBLE_EQ(*m.half_q_temperature_K, *reference.half_q_temperature_K);
  ASSERT_TRUE(m.half_q_interval_K && reference.half_q_interval_K);
  EXPECT_DOUBLE_EQ(m.half_q_interval_K->lo, reference.half_q_interval_K->lo);
  EXPECT_DOUBLE_EQ(m.half_q_interval_K->hi, reference.half_q_interval_K->hi);
  // Mixing the sets (the stairs' means over whichever replicas hold them) would have put the
  // crossing elsewhere: the late replica's Q ≈ 0.95 lifts the stairs up to 400 K only.
  double mixed = 0.0;
  for (std::size_t k = 1; k < m.stairs.size(); ++k)
    if (m.stairs[k - 1].q_mean >= 0.5 && m.stairs[k].q_mean < 0.5) {
      const MeltingStair &a = m.stairs[k - 1], &b = m.stairs[k];
      mixed = a.temperature_K + (0.5 - a.q_mean) / (b.q_mean - a.q_mean) * (b.temperature_K - a.temperature_K);
      break;
    }
  EXPECT_GT(std::abs(mixed - *m.half_q_temperature_K), 3.0) << mixed;
  EXPECT_TRUE(reference.replicas_missing_stairs.empty());
  EXPECT_EQ(reference.half_q_replicas, 0u);
}

// A run stopped during a stair, energies written too rarely, and a cooling schedule.
TEST(MeltingCurve, IncompleteStairsAreLeftOutAndCoolingRisesThroughAHalf) {
  auto table = [](const std::vector<std::pair<double, int>>& stairs, double q_from, double q_step) {
    std::string text = "# step\ttime[ns]\tT[K]\tU_total[kcal/mol]\tQ\tRg[A]\n";
    long step = 0;
    double q = q_from;
    for (const auto& [t, rows] : stairs) {
      for (int i = 0; i < rows; ++i, step += 1000)
        text += std::to_string(step) + "\t0\t" + std::to_string(t) + "\t" + std::to_string(-50.0 + (i % 2)) +
                "\t" + std::to_string(q) + "\t10\n";
      q += q_step;
    }
    return TsvTable::parse(text, "energies.tsv");
  };
  // Stairs of 10 rows (10 000 steps); the run stopped 4 rows into the 340 K stair.
  std::vector<TsvTable> stopped = {table({{300, 10}, {320, 10}, {340, 4}}, 0.9, -0.3)};
  MeltingAnalysis m = analyze_melting(stopped, {10000, 400.0});
  ASSERT_EQ(m.stairs.size(), 2u);
  EXPECT_EQ(m.cut_short_K, std::vector<double>{340.0});
  EXPECT_EQ(m.stairs[0].rows, 5u);  // the step-0 row left out: rows 1..9, their second half 5..9
  // Without the schedule the short stair is kept; at the stop temperature it is the hold.
  EXPECT_EQ(analyze_melting(stopped).stairs.size(), 3u);
  EXPECT_EQ(analyze_melting(stopped, {10000, 340.0}).stairs.size(), 3u);
  // Two rows per stair leave one in the second half: too few.
  std::vector<TsvTable> sparse = {table({{300, 2}, {320, 2}, {340, 10}, {360, 10}}, 0.9, -0.1)};
  m = analyze_melting(sparse, {2000, 360.0});
  EXPECT_EQ(m.too_few_rows_K, (std::vector<double>{300.0, 320.0}));
  EXPECT_EQ(m.stairs.size(), 2u);
  // Cooling: Q rises through 1/2 between 340 and 320 K.
  std::vector<TsvTable> cooling = {table({{360, 10}, {340, 10}, {320, 10}, {300, 10}}, 0.2, 0.2)};
  m = analyze_melting(cooling, {10000, 300.0});
  EXPECT_TRUE(m.cooling);
  ASSERT_TRUE(m.half_q_temperature_K);
  EXPECT_NEAR(*m.half_q_temperature_K, 330.0, 1e-9);  // Q 0.4 at 340 K, 0.6 at 320 K
}

TEST(MeltingCurve, AnalyzeWritesTheCurveOfAHeatingRun) {
  const fs::path run = test::fresh_directory("melting_run");
  {
    std::ofstream log(run / "run.log");
    log << "[heating]\nstart_K = 300\nstop_K = 500\nincrement_K = 20\nevery_steps = 40000\n";
  }
  std::mt19937_64 rng(9);
  for (int r = 0; r < 2; ++r) {
    fs::create_directories(run / ("replica_00" + std::to_string(r)));
    std::ofstream(run / ("replica_00" + std::to_string(r)) / "energies.tsv") << energies_table(rng);
  }
  std::string out;
  ASSERT_EQ(test::run_ermak_in(run, "analyze .", &out), 0) << out;
  EXPECT_NE(out.find("melting curve of 11 temperatures: Q = 1/2 at 416"), std::string::npos) << out;
  for (const char* f : {"summary.txt", "melting.tsv", "melting_curve.svg", "heat_capacity.svg"})
    EXPECT_TRUE(fs::exists(run / "analysis" / f)) << f;
  const std::string summary = test::read_file(run / "analysis" / "summary.txt");
  EXPECT_NE(summary.find("  midway between the first and last stairs' Q ((0.95 + 0.202)/2 = 0.576): 40"),
            std::string::npos)
      << summary;
  const TsvTable t = TsvTable::read(run / "analysis" / "melting.tsv");
  EXPECT_EQ(t.rows(), 11u);
  EXPECT_EQ(t.column("T[K]")[0], 300.0);
  // The curve options of a pulling analysis do not apply, and are refused rather than ignored.
  EXPECT_EQ(test::run_ermak_in(run, "analyze . -o other --smooth-points 5", &out), 1) << out;
  EXPECT_NE(out.find("--smooth-points: does not apply to the melting curve of a heating run"), std::string::npos)
      << out;
  // A damaged table's Q (−1, which would move the melting temperature) stops the analysis at
  // its line (the fuzzing audit's: 835 K became 725 K without a word).
  {
    std::string text = test::read_file(run / "replica_001" / "energies.tsv");
    std::size_t line_start = 0;
    for (int k = 0; k < 98; ++k) line_start = text.find('\n', line_start) + 1;  // line 99
    const std::size_t q_end = text.rfind('\t', text.rfind('\t', text.find('\n', line_start) - 1) - 1);
    const std::size_t q_start = text.rfind('\t', q_end - 1) + 1;
    text.replace(q_start, q_end - q_start, "-1");
    fs::create_directories(run / "damaged");
    fs::copy_file(run / "run.log", run / "damaged" / "run.log");
    fs::create_directories(run / "damaged" / "replica_000");
    std::ofstream(run / "damaged" / "replica_000" / "energies.tsv") << text;
  }
  EXPECT_EQ(test::run_ermak_in(run / "damaged", "analyze .", &out), 1) << out;
  EXPECT_NE(out.find("energies.tsv:99: Q: -1 is outside 0 to 1, which no run writes there (a damaged table)"),
            std::string::npos)
      << out;
  // Not replaced without --force; a run without [heating] is no melting curve (no tables).
  EXPECT_EQ(test::run_ermak_in(run, "analyze .", &out), 1) << out;
  EXPECT_NE(out.find("output files exist"), std::string::npos) << out;
  // A replica directory whose table is lost is named, not dropped in silence.
  fs::create_directories(run / "replica_002");
  ASSERT_EQ(test::run_ermak_in(run, "analyze . --force", &out), 0) << out;
  EXPECT_NE(out.find("replica_002: no energies.tsv, which the other replicas have; replica left out of the melting "
                     "curve"),
            std::string::npos)
      << out;
  std::ofstream(run / "run.log") << "[run]\ntemperature_K = 300\n";
  EXPECT_EQ(test::run_ermak_in(run, "analyze . -o other", &out), 1) << out;
  EXPECT_NE(out.find("no replica_NNN/pulling.tsv, indentation.tsv or plane.tsv here"), std::string::npos) << out;
}

// An unfolded baseline above 1/2 (Q from 0.95 to 0.6, as in a protein whose unfolded chain
// keeps many contacts within 1.5 r0): Q never falls through 1/2, yet the curve has its
// two-state midpoint, where Q crosses (0.95 + 0.6)/2 — at 410 K (409.94 linear between the
// 400 and 420 K stairs) — which the summary gives in place of the missing crossing.
TEST(MeltingCurve, AnUnfoldedBaselineAboveOneHalfStillGivesTheMidpoint) {
  const fs::path run = test::fresh_directory("melting_high_baseline");
  std::ofstream(run / "run.log") << "[heating]\nstart_K = 300\nstop_K = 500\nincrement_K = 20\nevery_steps = 40000\n";
  std::mt19937_64 rng(21);
  std::vector<TsvTable> replicas;
  for (int r = 0; r < 2; ++r) {
    const std::string table = energies_table(rng, 0.0, 0.6);
    replicas.push_back(TsvTable::parse(table, "replica"));
    fs::create_directories(run / ("replica_00" + std::to_string(r)));
    std::ofstream(run / ("replica_00" + std::to_string(r)) / "energies.tsv") << table;
  }
  const MeltingAnalysis m = analyze_melting(replicas);
  EXPECT_FALSE(m.half_q_temperature_K);
  ASSERT_TRUE(m.midpoint_temperature_K);
  EXPECT_NEAR(*m.midpoint_q(), (q_of(300.0, 0.0, 0.6) + q_of(500.0, 0.0, 0.6)) / 2.0, 0.01);
  EXPECT_NEAR(*m.midpoint_temperature_K, 409.94, 2.0);
  std::string out;
  ASSERT_EQ(test::run_ermak_in(run, "analyze .", &out), 0) << out;
  EXPECT_NE(out.find("Q does not fall through 1/2; midway between its first and last stairs' Q at 4"),
            std::string::npos)
      << out;
  const std::string summary = test::read_file(run / "analysis" / "summary.txt");
  EXPECT_NE(summary.find("no melting temperature in this range\n  midway between the first and last stairs' Q ("),
            std::string::npos)
      << summary;
}

// Two replicas' energies.tsv of a run that got 300 rows into its 480 K stair: the stairs up to
// 460 K and 300 rows of 480 K, 9 · 400 + 300 rows after the header.
void write_tables_ending_in_the_480_K_stair(const fs::path& run, unsigned seed) {
  std::mt19937_64 rng(seed);
  for (int r = 0; r < 2; ++r) {
    std::string table = energies_table(rng);
    std::size_t at = 0;
    for (int line = 0; line < 1 + 9 * 400 + 300; ++line) at = table.find('\n', at) + 1;
    table.resize(at);
    fs::create_directories(run / ("replica_00" + std::to_string(r)));
    std::ofstream(run / ("replica_00" + std::to_string(r)) / "energies.tsv") << table;
  }
}

// A stair cut short by an error (a bond broke at 480 K): a resume would repeat the error, so the
// summary quotes it and says what can be done, not "resume the run to complete it".
TEST(MeltingCurve, AStairCutShortByAnErrorIsNotOneAResumeCompletes) {
  const fs::path run = test::fresh_directory("melting_error");
  write_tables_ending_in_the_480_K_stair(run, 9);
  const std::string heating = "[heating]\nstart_K = 300\nstop_K = 500\nincrement_K = 20\nevery_steps = 40000\n";
  std::ofstream(run / "run.log") << "[2026-11-29 10:00:00] ermak 0.1.0 starting run.toml\n[run]\nsteps = 440000\n"
                                 << heating << "[2026-11-29 10:00:01] running steps 0 .. 440000 on backend cpu\n"
                                 << "[2026-11-29 10:00:03] error: a FENE bond broke between steps 389500 and 390000: …\n";
  std::string out;
  ASSERT_EQ(test::run_ermak_in(run, "analyze .", &out), 0) << out;
  const std::string summary = test::read_file(run / "analysis" / "summary.txt");
  EXPECT_NE(summary.find("left out: 480 K — the stair the run stopped in (shorter than every_steps): the run ended "
                         "with an error (run.log: \"a FENE bond broke between steps 389500 and 390000: …\"), which "
                         "--resume would repeat; to close it at its last checkpoint"),
            std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("resume the run to complete it"), std::string::npos) << summary;
  // Stopped without an error (Ctrl-C): a resume completes the stair.
  std::ofstream(run / "run.log") << "[run]\nsteps = 440000\n" << heating;
  ASSERT_EQ(test::run_ermak_in(run, "analyze . --force", &out), 0) << out;
  EXPECT_NE(test::read_file(run / "analysis" / "summary.txt").find("480 K — the stair the run stopped in (shorter "
                                                                   "than every_steps); resume the run to complete it"),
            std::string::npos);
}

// A heating run still running (its lock held: run/run_lock.h) is in its last stair, not stopped in
// it: the summary says so instead of "resume the run to complete it", and a run.log.new (a --force
// run killed in its start) is warned as in a pulling run's analysis.
TEST(MeltingCurve, ARunStillRunningIsInItsLastStairNotStoppedInIt) {
  const fs::path run = test::fresh_directory("melting_running");
  write_tables_ending_in_the_480_K_stair(run, 11);
  std::ofstream(run / "run.log") << "[run]\nsteps = 440000\n[heating]\nstart_K = 300\nstop_K = 500\n"
                                 << "increment_K = 20\nevery_steps = 40000\n";
  std::ofstream(run / "run.log.new") << "[2026-11-30 10:00:00] ermak 0.1.0 starting run.toml\n";
  std::string out;
  {
    const RunLock lock(run_lock_file(run / "checkpoint.ckpt"));  // as the running run holds it
    ASSERT_EQ(test::run_ermak_in(run, "analyze .", &out), 0) << out;
  }
  const std::string summary = test::read_file(run / "analysis" / "summary.txt");
  EXPECT_NE(summary.find("left out: 480 K — the stair the run is in now (shorter than every_steps so far): the run is "
                         "still running (pid "),
            std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("resume the run to complete it"), std::string::npos) << summary;
  EXPECT_NE(out.find("run.log.new: the log of a --force run that has not replaced this run"), std::string::npos)
      << out;
  // Once it has ended (no lock held), the stair is one it stopped in.
  ASSERT_EQ(test::run_ermak_in(run, "analyze . --force", &out), 0) << out;
  EXPECT_NE(test::read_file(run / "analysis" / "summary.txt").find("480 K — the stair the run stopped in (shorter "
                                                                   "than every_steps); resume the run to complete it"),
            std::string::npos);
}

// Too little for a curve: the error says why — one temperature (the run ended within its first
// stair) or stairs too sparse.
TEST(MeltingCurve, TooLittleForACurveSaysWhy) {
  const fs::path run = test::fresh_directory("melting_too_little");
  std::ofstream(run / "run.log") << "[heating]\nstart_K = 300\nstop_K = 500\nincrement_K = 20\nevery_steps = 40000\n";
  fs::create_directories(run / "replica_000");
  std::ofstream(run / "replica_000" / "energies.tsv")
      << "# step\ttime[ns]\tT[K]\tU_total[kcal/mol]\tQ\tRg[A]\n0\t0\t300\t-100\t1\t9\n1000\t1\t300\t-99\t1\t9\n";
  std::string out;
  EXPECT_EQ(test::run_ermak_in(run, "analyze .", &out), 1) << out;
  EXPECT_NE(out.find("the energy tables hold one temperature: the run ended within its first stair"),
            std::string::npos)
      << out;
  std::ofstream(run / "replica_000" / "energies.tsv")
      << "# step\ttime[ns]\tT[K]\tU_total[kcal/mol]\tQ\tRg[A]\n0\t0\t300\t-100\t1\t9\n40000\t1\t320\t-99\t1\t9\n"
         "80000\t2\t340\t-98\t1\t9\n";
  EXPECT_EQ(test::run_ermak_in(run, "analyze .", &out), 1) << out;
  EXPECT_NE(out.find("the energy tables hold 3 temperatures, but fewer than two stairs have 2 rows per replica"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace ermak::analysis
