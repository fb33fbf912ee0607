// `ermak analyze R1 R2 … -o OUT` with runs of one condition (analysis/run_pool): synthetic
// run directories as `ermak run` leaves them — a run.log that echoes its resolved
// configuration and states its protocol, replica_NNN/pulling.tsv — pooled into one analysis
// that equals the union of the runs' own analyses; the runs that are refused (one loading
// rate or force, another condition) with the field and directories named; and runs at
// several loading rates, which stay a spectrum.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ermak/analysis/analyze_run.h"
#include "ermak/analysis/report_common.h"
#include "ermak/analysis/run_directory.h"
#include "ermak/analysis/run_pool.h"
#include "ermak/analysis/statistics.h"
#include "ermak/analysis/tsv_table.h"
#include "ermak/analysis/wlc.h"
#include "ermak/core/error.h"
#include "support/synthetic_pulling.h"
#include "support/test_paths.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;

// A run's condition and batch, as its run.log states them (the lines `ermak run` writes:
// run/simulation.cpp, run/protocol_log_lines.cpp, config's resolved configuration).
struct Batch {
  bool clamp = false;
  double spring_pN_per_nm = 50.0;
  double speed_um_per_s = 5e5;  // 0.5 nm/ns, the tables' base speed
  double clamp_force_pN = 150.0;
  std::string temperature_K = "300.0";
  std::string timestep_ps = "19.84";
  std::string model = "34 beads, 33 bonds, 75 native contacts";
  std::string native_energy = "1.5";
  std::string model_fingerprint = "3c0ffee15ba5e001";
  int minimize_steps = 0;
  unsigned seed = 1;
  int replicas = 3;
  long long steps = 6000000;  // the tables' last step: the run went through
  int output_every = 1000;
};

void write_run_log(const fs::path& dir, const Batch& b) {
  fs::create_directories(dir);
  std::ofstream log(dir / "run.log");
  log << "[2026-11-30 08:11:49] ermak 0.1.0 starting run.toml\n"
      << "[2026-11-30 08:11:49] model: " << b.model << ", " << b.replicas << " replicas\n"
      << "[2026-11-30 08:11:49] model fingerprint: " << b.model_fingerprint
      << " (its beads, bonds and native contacts with their parameters)\n"
      << "[2026-11-30 08:11:49] resolved configuration:\n"
      << "# ermak resolved configuration: every key after defaults and unit conversion.\n# source: run.toml\n\n"
      << "[model]\nnative_cutoff_A = 8.0\nnative_energy_kcal_per_mol = " << b.native_energy << "\n\n"
      << "[run]\nsteps = " << b.steps << "\nreplicas = " << b.replicas << "\nseed = " << b.seed
      << "\ntimestep_ps = " << b.timestep_ps << "  # = 0.08 tau_H\ntemperature_K = " << b.temperature_K
      << "\nfriction = 50.0  # zeta, kcal/mol*tau_H/A^2\nbackend = \"auto\"\n\n"
      << "[minimize]\nsteps = " << b.minimize_steps
      << "\nforce_tolerance_pN = 6.947695  # = 0.1 kcal/mol/A\nmax_displacement_A = 0.1\n\n"
      << "[fixed]\nbeads = [0]\n\n";
  if (!b.clamp)
    log << "[pulling]\npulled_beads = [\"A:39\"]\nspeed_um_per_s = " << b.speed_um_per_s
        << "  # = 1.24 A/tau_H\nspring_pN_per_nm = " << b.spring_pN_per_nm
        << "\ndirection = \"end_to_end\"\n# ends: the first fixed bead (bead 0 without one) and the first pulled "
           "bead\noutput_every = "
        << b.output_every << "\n\n"
        << "[2026-11-30 08:11:49] pulling: beads [33] on springs κ = " << b.spring_pN_per_nm
        << " pN/nm, base speed v = " << b.speed_um_per_s << " µm/s; ends 0 33; loading rate κv = "
        << b.spring_pN_per_nm * b.speed_um_per_s * 1e3 << " pN/s; output every " << b.output_every
        << " steps (pulling.tsv)\n";
  else
    log << "[force_clamp]\npulled_beads = [33]\nforce_pN = " << b.clamp_force_pN
        << "\ndirection = \"end_to_end\"\nends = [0, 33]\noutput_every = " << b.output_every << "\n\n"
        << "[2026-11-30 08:11:49] force clamp: beads [33], each pulled with " << b.clamp_force_pN
        << " pN, along (1, 0, 0); ends 0 33; output every " << b.output_every << " steps (pulling.tsv)\n";
  log << "[2026-11-30 08:11:49] running steps 0 .. " << b.steps << " on backend cpu\n"
      << "[2026-11-30 08:11:50] finished: " << b.steps << " steps\n";
}

std::string replica_dir(int r) {
  char name[32];
  std::snprintf(name, sizeof name, "replica_%03d", r);
  return name;
}

// One replica of a constant-velocity pulling run (support/synthetic_pulling.h, as
// analysis_command_test.cpp's); `last_row`: fewer rows, a table that ends early.
void write_ramp_table(const fs::path& file, const std::vector<double>& rupture, unsigned seed, int last_row = 6000) {
  fs::create_directories(file.parent_path());
  std::ofstream t(file);
  t << "# step\ttime[ns]\tbase[nm]\tend_to_end[nm]\textension[nm]\tforce[pN]\tforce_along[pN]\n";
  for (const test::SyntheticPullingRow& row : test::synthetic_wlc_pulling(rupture, seed, last_row)) {
    char line[256];
    std::snprintf(line, sizeof line, "%lld\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\n", row.step, row.time_ns,
                  row.base_nm, row.extension_nm, row.extension_nm, std::abs(row.force_pN), row.force_pN);
    t << line;
  }
}

// A pulling run of `b.replicas` replicas whose rupture forces are drawn from b.seed.
void write_pulling_run(const fs::path& dir, const Batch& b) {
  write_run_log(dir, b);
  std::mt19937_64 rng(b.seed);
  std::uniform_real_distribution<double> first(90.0, 130.0), second(130.0, 170.0);
  for (int r = 0; r < b.replicas; ++r) {
    const double f1 = first(rng), f2 = second(rng);
    write_ramp_table(dir / replica_dir(r) / "pulling.tsv", {f1, f2}, unsigned(b.seed * 100 + r));
  }
}

// A force-clamp replica: the extension 1 nm, from `unfold_ns` on 10 nm (noise 0.05 nm); 501
// rows 1000 steps and 2 ns apart.
void write_clamp_table(const fs::path& file, double force, double unfold_ns, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.05);
  fs::create_directories(file.parent_path());
  std::ofstream t(file);
  t << "# step\ttime[ns]\tbase[nm]\tend_to_end[nm]\textension[nm]\tforce[pN]\tforce_along[pN]\n";
  for (int i = 0; i <= 500; ++i) {
    const double time_ns = 2.0 * i, x = (time_ns >= unfold_ns ? 10.0 : 1.0) + noise(rng);
    t << i * 1000 << '\t' << time_ns << '\t' << 0.0 << '\t' << x + 2.0 << '\t' << x << '\t' << force << '\t'
      << force << '\n';
  }
}

void write_clamp_run(const fs::path& dir, Batch b, const std::vector<double>& unfold_ns) {
  b.clamp = true;
  b.replicas = int(unfold_ns.size());
  b.steps = 500000;
  write_run_log(dir, b);
  for (std::size_t r = 0; r < unfold_ns.size(); ++r)
    write_clamp_table(dir / replica_dir(int(r)) / "pulling.tsv", b.clamp_force_pN, unfold_ns[r],
                      unsigned(b.seed * 100 + r));
}

AnalyzeOptions one_run(const fs::path& run, const fs::path& out) {
  AnalyzeOptions o;
  o.run_dir = run;
  o.out_dir = out;
  o.settings.window_nm = 0.25;
  o.temperature_from_run = true;
  return o;
}

AnalyzeOptions pooled(const std::vector<fs::path>& runs, const fs::path& out) {
  AnalyzeOptions o = one_run(runs.front(), out);
  o.pooled_run_dirs = runs;
  return o;
}

// A table's rows (header left off), the replica column (`column`) of each raised by `offset`.
std::string rows_renumbered(const std::string& table, std::size_t column, int offset) {
  std::istringstream in(table);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#", 0) == 0) continue;
    std::vector<std::string> fields;
    std::istringstream split(line);
    for (std::string f; std::getline(split, f, '\t');) fields.push_back(f);
    fields.at(column) = std::to_string(std::stoi(fields[column]) + offset);
    for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? "\t" : "") + fields[i];
    out += "\n";
  }
  return out;
}

std::string header_of(const std::string& table) { return table.substr(0, table.find('\n') + 1); }

// The first and the largest peak force of each replica in a peaks.tsv, appended.
void first_and_largest(const fs::path& peaks, std::vector<double>& first, std::vector<double>& largest) {
  const TsvTable t = TsvTable::read(peaks);
  const auto replica = t.column("replica"), force = t.column("force[pN]");
  for (std::size_t i = 0; i < t.rows(); ++i) {
    if (i == 0 || replica[i] != replica[i - 1]) {
      first.push_back(force[i]);
      largest.push_back(force[i]);
    }
    largest.back() = std::max(largest.back(), force[i]);
  }
}

// Two batches of one pulling experiment — other seeds, replica counts, run lengths and output
// intervals — analysed as one: every table is the union of their own analyses', B's replicas
// numbered on after A's 3, and the statistics are over all 5.
TEST(RunPool, APooledAnalysisIsTheUnionOfItsRuns) {
  const fs::path root = test::fresh_directory("run_pool_union");
  const fs::path a = root / "a", b = root / "b";
  Batch batch;
  write_pulling_run(a, batch);
  batch.seed = 2;
  batch.replicas = 2;
  batch.steps = 6000000;
  batch.output_every = 500;  // a reporting interval: not the condition
  write_pulling_run(b, batch);
  {
    // B ran longer than A (its log says so) but its tables are those of the same travel: its
    // [run] steps are its own and it is judged against them — here it stopped early.
    std::string log = test::read_file(b / "run.log");
    log.replace(log.find("steps = 6000000"), 15, "steps = 9000000");
    std::ofstream(b / "run.log") << log;
  }
  EXPECT_TRUE(judge_runs_for_pooling({a, b}).pooled) << judge_runs_for_pooling({a, b}).why_not;

  analyze_run(one_run(a, root / "ana"));
  analyze_run(one_run(b, root / "anb"));
  const AnalyzeResult r = analyze_run(pooled({a, b}, root / "pool"));
  const fs::path p = root / "pool";

  // peaks.tsv and wlc_fits.tsv: A's rows, then B's with their replica + 3.
  for (const auto& [table, replica_column] : std::vector<std::pair<std::string, std::size_t>>{
           {"peaks.tsv", 1}, {"wlc_fits.tsv", 0}}) {
    SCOPED_TRACE(table);
    const std::string ta = test::read_file(root / "ana" / table), tb = test::read_file(root / "anb" / table);
    ASSERT_FALSE(ta.empty());
    EXPECT_EQ(test::read_file(p / table), header_of(ta) + rows_renumbered(ta, replica_column, 0) +
                                               rows_renumbered(tb, replica_column, 3));
  }
  // The statistics are those of the 5 replicas together, written as one run's are.
  std::vector<double> first, largest;
  first_and_largest(root / "ana" / "peaks.tsv", first, largest);
  first_and_largest(root / "anb" / "peaks.tsv", first, largest);
  ASSERT_EQ(first.size(), 5u);
  const std::string summary = test::read_file(p / "summary.txt");
  EXPECT_NE(summary.find(stats_block("first peak", describe(first), "pN")), std::string::npos) << summary;
  EXPECT_NE(summary.find(stats_block("largest peak", describe(largest), "pN")), std::string::npos) << summary;
  EXPECT_NE(summary.find("  replicas with a peak: 5 of 5\n"), std::string::npos) << summary;
  EXPECT_NE(r.brief.find("pulling: 5 replicas of 2 runs pooled ("), std::string::npos) << r.brief;
  const TsvTable histogram = TsvTable::read(p / "forces_histogram.tsv");
  double counted = 0.0;
  for (double n : histogram.column("first_peak")) counted += n;
  EXPECT_EQ(counted, 5.0);

  // replicas.tsv maps the numbers; the summary names the runs and their ranges.
  EXPECT_EQ(test::read_file(p / "replicas.tsv"), "# replica\trun\trun_replica\n0\t" + a.string() + "\t0\n1\t" +
                                                     a.string() + "\t1\n2\t" + a.string() + "\t2\n3\t" +
                                                     b.string() + "\t0\n4\t" + b.string() + "\t1\n");
  EXPECT_NE(summary.find("run directories:  2 runs of one condition, pooled into this one analysis"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("  replicas 0 to 2: " + a.string() + " (its 0 to 2)\n  replicas 3 to 4: " + b.string() +
                         " (its 0 to 1)\n"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("  replicas.tsv "), std::string::npos) << summary;
  // Per-replica files under the pooled numbers: B's replica 1 is replica_004.
  EXPECT_EQ(test::read_file(p / "replica_004_curve.tsv"), test::read_file(root / "anb" / "replica_001_curve.tsv"));
  EXPECT_EQ(test::read_file(p / "replica_000_curve.tsv"), test::read_file(root / "ana" / "replica_000_curve.tsv"));
  EXPECT_TRUE(fs::exists(p / "replica_003_force_extension.svg"));
  EXPECT_FALSE(fs::exists(p / "replica_005_curve.tsv"));
  // B's tables end at step 6·10⁶ of its 9·10⁶: the note and the headline name B, not A.
  EXPECT_NE(summary.find("  note: " + b.string() + ": the tables end at step 6000000 of the run's 9000000"),
            std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("  note: " + a.string() + ":"), std::string::npos) << summary;
  EXPECT_NE(r.brief.find("of 2 runs pooled (" + b.string() + ": the run stopped at step 6000000 of 9000000)"),
            std::string::npos)
      << r.brief;

  // Nothing is replaced without overwrite; --replica-files takes the pooled numbers.
  EXPECT_THROW(analyze_run(pooled({a, b}, p)), Error);
  AnalyzeOptions again = pooled({a, b}, p);
  again.overwrite = true;
  again.replica_files = parse_replica_selection("3");
  analyze_run(again);
  EXPECT_TRUE(fs::exists(p / "replica_003_curve.tsv"));
  EXPECT_FALSE(fs::exists(p / "replica_000_curve.tsv"));
  EXPECT_EQ(test::read_file(p / "replica_003_curve.tsv"), test::read_file(root / "anb" / "replica_000_curve.tsv"));
  // A single run's analysis in the same directory with --force removes replicas.tsv (no map
  // of runs beside one run's results).
  AnalyzeOptions single = one_run(a, p);
  single.overwrite = true;
  analyze_run(single);
  EXPECT_FALSE(fs::exists(p / "replicas.tsv"));
  EXPECT_EQ(test::read_file(p / "peaks.tsv"), test::read_file(root / "ana" / "peaks.tsv"));
}

// A lost table is named with its run's directory, and the pooled numbers skip it.
TEST(RunPool, ALostTableIsNamedWithItsRun) {
  const fs::path root = test::fresh_directory("run_pool_lost");
  const fs::path a = root / "a", b = root / "b";
  Batch batch;
  batch.replicas = 2;
  write_pulling_run(a, batch);
  batch.seed = 2;
  write_pulling_run(b, batch);
  fs::remove(a / "replica_001" / "pulling.tsv");
  std::vector<std::string> lost;
  const std::vector<Replica> replicas = pool_replicas({a, b}, &lost);
  EXPECT_EQ(lost, std::vector<std::string>{(a / "replica_001").string()});
  ASSERT_EQ(replicas.size(), 3u);
  EXPECT_EQ(replicas[1].name, "replica_001");
  EXPECT_EQ(replicas[1].run, 1u);
  EXPECT_EQ(replicas[1].run_replica, 0);
  EXPECT_EQ(replicas[1].dir, b / "replica_000");
  const AnalyzeResult r = analyze_run(pooled({a, b}, root / "pool"));
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_EQ(r.warnings.front().rfind((a / "replica_001").string() + ": no pulling.tsv", 0), 0u) << r.warnings.front();
}

// The run.log facts the pooling compares: the resolved configuration's tables as echoed, a
// value without its comment, and the pulled beads as the protocol line resolves them.
TEST(RunPool, RunLogEchoIsRead) {
  const fs::path dir = test::fresh_directory("run_pool_log");
  write_run_log(dir, Batch{});
  const RunLogFacts log = read_run_log(dir);
  EXPECT_EQ(log.resolved_value("[run]", "timestep_ps"), "19.84");
  EXPECT_EQ(log.resolved_value("[pulling]", "direction"), "\"end_to_end\"");
  EXPECT_EQ(log.resolved_value("[pulling]", "pulled_beads"), "[\"A:39\"]");
  EXPECT_FALSE(log.resolved_value("[pulling]", "ends"));  // a default that follows from others: a comment
  EXPECT_FALSE(log.resolved_value("[heating]", "start_K"));
  EXPECT_EQ(log.pulled_bead_list, "[33]");
  EXPECT_EQ(log.resolved_tables.count("[fixed]"), 1u);
  EXPECT_EQ(log.resolved_tables.count("[2026-11-30 08:11:49]"), 0u) << "a log line is no table";
  EXPECT_EQ(log.run_steps, 6000000);
  // A second echo (a resumed run's) does not replace the first.
  std::ofstream(dir / "run.log", std::ios::app) << "[2026-11-30 09:00:00] ermak 0.1.0 resuming run.toml\n"
                                                   "[2026-11-30 09:00:00] resolved configuration:\n[run]\n"
                                                   "timestep_ps = 5.0\n";
  EXPECT_EQ(read_run_log(dir).resolved_value("[run]", "timestep_ps"), "19.84");
}

// The error of runs at one loading rate (or force) that are not of one condition: `field`
// and both directories and values named.
void expect_refused(const fs::path& a, const fs::path& b, const std::string& field, const std::string& b_value,
                    const std::string& a_value) {
  SCOPED_TRACE(field);
  try {
    judge_runs_for_pooling({a, b});
    ADD_FAILURE() << "not refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), b.string());
    EXPECT_EQ(e.field(), field);
    EXPECT_EQ(e.description().rfind(b_value + " here, " + a_value + " in " + a.string() + " (run.log)", 0), 0u)
        << e.what();
    EXPECT_NE(e.description().find("but not of one condition"), std::string::npos) << e.what();
  }
  // analyze_run refuses them alike, before writing anything.
  EXPECT_THROW(analyze_run(pooled({a, b}, a.parent_path() / "refused")), Error);
  EXPECT_FALSE(fs::exists(a.parent_path() / "refused" / "summary.txt"));
}

TEST(RunPool, RunsAtOneLevelOfAnotherConditionAreRefused) {
  const fs::path root = test::fresh_directory("run_pool_refused");
  const Batch base;
  const fs::path a = root / "a";
  write_pulling_run(a, base);
  auto variant = [&](const std::string& name, auto change) {
    Batch b = base;
    b.seed = 7;
    change(b);
    write_pulling_run(root / name, b);
    return root / name;
  };
  // Twice the spring at half the speed: one κv, another experiment.
  const fs::path spring = variant("spring", [](Batch& b) {
    b.spring_pN_per_nm = 100.0;
    b.speed_um_per_s = 2.5e5;
  });
  EXPECT_EQ(read_run_log(spring).loading_rate_pN_per_s, read_run_log(a).loading_rate_pN_per_s);
  expect_refused(a, spring, "[pulling] speed_um_per_s", "250000", "500000");
  try {
    judge_runs_for_pooling({a, spring});
  } catch (const Error& e) {
    EXPECT_NE(e.description().find("; [pulling] spring_pN_per_nm: 100 here, 50 there:"), std::string::npos)
        << e.what();
    EXPECT_NE(e.description().find("at one loading rate κv (2.5e+10 pN/s)"), std::string::npos) << e.what();
  }
  expect_refused(a, variant("model", [](Batch& b) { b.model = "34 beads, 33 bonds, 61 native contacts"; }), "model",
                 "34 beads, 33 bonds, 61 native contacts", "34 beads, 33 bonds, 75 native contacts");
  // Another model of the same size and [model] keys (a mutant, another topology file).
  expect_refused(a, variant("mutant", [](Batch& b) { b.model_fingerprint = "0123456789abcdef"; }),
                 "model (its beads, bonds or native contacts: another model of the same size)",
                 "fingerprint 0123456789abcdef", "fingerprint 3c0ffee15ba5e001");
  expect_refused(a, variant("epsilon", [](Batch& b) { b.native_energy = "1.2"; }),
                 "[model] native_energy_kcal_per_mol", "1.2", "1.5");
  expect_refused(a, variant("warm", [](Batch& b) { b.temperature_K = "310.0"; }), "[run] temperature", "310 K",
                 "300 K");
  expect_refused(a, variant("step", [](Batch& b) { b.timestep_ps = "9.92"; }), "[run] timestep_ps", "9.92", "19.84");
  // Pulled from a minimised start or from the input structure: other starts.
  expect_refused(a, variant("minimised", [](Batch& b) { b.minimize_steps = 500; }), "[minimize] steps", "500", "0");
  // Within 0.05 K, and another seed, replica count, length and output interval: one condition.
  const fs::path same = variant("same", [](Batch& b) {
    b.temperature_K = "300.01";
    b.replicas = 1;
    b.output_every = 100;
  });
  EXPECT_TRUE(judge_runs_for_pooling({a, same}).pooled);
  EXPECT_TRUE(judge_runs_for_pooling({same, a}).pooled);
  EXPECT_TRUE(judge_runs_for_pooling({a, same}).warnings.empty());
  // One seed (and noise generator) twice: the same trajectories — pooled, and named in a
  // warning of the analysis and its summary.
  const fs::path twin = variant("twin", [&](Batch& b) {
    b.seed = base.seed;
    b.replicas = 1;
  });
  const PoolVerdict twins = judge_runs_for_pooling({a, twin});
  EXPECT_TRUE(twins.pooled);
  const std::string warning = twin.string() + ": run with the seed of " + a.string() +
                              " (1, and its noise generator): their replicas of one number are the same trajectories, "
                              "which this analysis counts twice; give each batch its own run.seed";
  EXPECT_EQ(twins.warnings, std::vector<std::string>{warning});
  const AnalyzeResult r = analyze_run(pooled({a, twin}, root / "twins"));
  EXPECT_EQ(r.warnings, std::vector<std::string>{warning});
  EXPECT_NE(test::read_file(root / "twins" / "summary.txt").find("\nWarnings\n  " + warning + "\n"),
            std::string::npos);
}

// Runs at several loading rates are a spectrum (not pooled, no error); so are runs whose logs
// echo no configuration (the spectrum's tests write such logs), heating runs, runs of other
// kinds, and a directory given twice.
TEST(RunPool, RunsAtSeveralLevelsOrUnknownConditionsAreNotPooled) {
  const fs::path root = test::fresh_directory("run_pool_not");
  Batch base;
  const fs::path a = root / "a", faster = root / "faster", clamp = root / "clamp", bare = root / "bare";
  write_pulling_run(a, base);
  Batch fast = base;
  fast.speed_um_per_s = 1e6;
  fast.spring_pN_per_nm = 70.0;  // another spring too: a spectrum may pull with any
  write_pulling_run(faster, fast);
  const PoolVerdict rates = judge_runs_for_pooling({a, faster});
  EXPECT_FALSE(rates.pooled);
  EXPECT_NE(rates.why_not.find("their loading rates κv differ (" + a.string() + ": 2.5e+10 pN/s, " + faster.string() +
                               ": 7e+10 pN/s)"),
            std::string::npos)
      << rates.why_not;
  write_clamp_run(clamp, base, {100.0});
  EXPECT_FALSE(judge_runs_for_pooling({a, clamp}).pooled);
  fs::create_directories(bare);
  std::ofstream(bare / "run.log") << "[run]\ntemperature_K = 300\npulling: loading rate κv = 2.5e+10 pN/s\n";
  EXPECT_NE(judge_runs_for_pooling({a, bare}).why_not.find("echoes no resolved configuration"), std::string::npos);
  EXPECT_FALSE(judge_runs_for_pooling({a, a}).pooled);
  EXPECT_NE(judge_runs_for_pooling({a, root / "." / "a"}).why_not.find("given twice"), std::string::npos);
  const fs::path heats = root / "heats";
  write_pulling_run(heats, base);
  {
    std::string log = test::read_file(heats / "run.log");
    log.replace(log.find("[fixed]"), 7, "[heating]\nstart_K = 300.0\nstop_K = 400.0\n\n[fixed]");
    std::ofstream(heats / "run.log") << log;
  }
  EXPECT_NE(judge_runs_for_pooling({a, heats}).why_not.find("heating run"), std::string::npos);
  // analyze_run asked to pool them says why not.
  try {
    analyze_run(pooled({a, faster}, root / "out"));
    ADD_FAILURE() << "pooled";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("RUN_DIR: these runs are no batches of one condition"), std::string::npos)
        << e.what();
  }
  AnalyzeOptions no_out = pooled({a, a}, "");
  EXPECT_THROW(analyze_run(no_out), Error);
}

// Two force-clamp runs at one force: pooled, their unfolding times one table, the lifetime over
// both; another force is a spectrum, and one force on two beads (half each) another condition.
TEST(RunPool, ClampRunsAtOneForceArePooled) {
  const fs::path root = test::fresh_directory("run_pool_clamps");
  const fs::path a = root / "a", b = root / "b";
  Batch batch;
  write_clamp_run(a, batch, {100.0, 300.0, 2000.0});  // the last never unfolds in 1000 ns
  batch.seed = 2;
  write_clamp_run(b, batch, {500.0, 700.0});
  ASSERT_TRUE(judge_runs_for_pooling({a, b}).pooled);
  AnalyzeOptions o = pooled({a, b}, root / "pool");
  o.unfolded_extension_nm = 5.0;
  const AnalyzeResult r = analyze_run(o);
  EXPECT_NE(r.brief.find("force clamp: 5 replicas of 2 runs pooled, "), std::string::npos) << r.brief;
  const TsvTable times = TsvTable::read(root / "pool" / "unfolding_times.tsv");
  ASSERT_EQ(times.rows(), 5u);
  const std::vector<double> replica(times.column("replica").begin(), times.column("replica").end()),
      unfolded(times.column("unfolded").begin(), times.column("unfolded").end());
  EXPECT_EQ(replica, (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(unfolded, (std::vector<double>{1, 1, 0, 1, 1}));
  EXPECT_NEAR(times.column("time[ns]")[3], 500.0, 1e-9);
  EXPECT_NE(r.brief.find("unfolded (extension ≥ 5 nm): 4 of 5"), std::string::npos) << r.brief;
  EXPECT_TRUE(fs::exists(root / "pool" / "replicas.tsv"));

  Batch other = batch;
  other.clamp_force_pN = 120.0;
  write_clamp_run(root / "f120", other, {100.0});
  EXPECT_NE(judge_runs_for_pooling({a, root / "f120"}).why_not.find("their clamp forces differ"), std::string::npos);
  // 75 pN on each of two beads: the 150 pN of a's table, another experiment.
  const fs::path two = root / "two";
  write_clamp_run(two, batch, {100.0});
  {
    std::string log = test::read_file(two / "run.log");
    log.replace(log.find("beads [33], each pulled with 150 pN"), 35, "beads [33, 32], each pulled with 75 pN");
    std::ofstream(two / "run.log") << log;
  }
  EXPECT_EQ(read_run_log(two).clamp_force_pN, 150.0);
  expect_refused(a, two, "[force_clamp] pulled_beads", "[33, 32]", "[33]");
}

// Through the command: runs of one condition pooled, a spectrum-only option refused with the
// reason, single-run options taken; runs at two loading rates still the spectrum.
TEST(RunPool, TheCommandPoolsOrGivesTheSpectrum) {
  const fs::path root = test::fresh_directory("run_pool_command");
  const fs::path a = root / "a", b = root / "b", fast = root / "fast";
  Batch batch;
  batch.replicas = 2;
  write_pulling_run(a, batch);
  batch.seed = 2;
  write_pulling_run(b, batch);
  batch.speed_um_per_s = 1e6;
  write_pulling_run(fast, batch);
  const std::string ermak = test::ermak_binary().string() + " analyze ";
  std::string out;
  for (const std::string option : {"--spectrum-peak first", "--loading-rate peak", "--no-peak censored",
                                   "--bootstrap 5"}) {
    EXPECT_NE(test::run_command(ermak + a.string() + " " + b.string() + " -o " + (root / "p").string() + " " + option,
                                &out),
              0);
    EXPECT_NE(out.find(option.substr(0, option.find(' ')) +
                       ": applies to the spectrum of runs at several loading rates (or clamp forces); these runs are of "
                       "one condition and pooled into one analysis"),
              std::string::npos)
        << out;
  }
  EXPECT_FALSE(fs::exists(root / "p"));
  ASSERT_EQ(test::run_command(ermak + a.string() + " " + b.string() + " -o " + (root / "p").string() +
                                  " --smooth-window-nm 0.25 --bins 7 --replica-files 2-3",
                              &out),
            0)
      << out;
  EXPECT_NE(out.find("pulling: 4 replicas of 2 runs pooled, "), std::string::npos) << out;
  EXPECT_EQ(TsvTable::read(root / "p" / "forces_histogram.tsv").rows(), 7u);
  EXPECT_TRUE(fs::exists(root / "p" / "replica_002_curve.tsv"));
  EXPECT_FALSE(fs::exists(root / "p" / "replica_001_curve.tsv"));
  // -o is required, and nothing is replaced without --force.
  EXPECT_NE(test::run_command(ermak + a.string() + " " + b.string(), &out), 0);
  EXPECT_NE(out.find("-o,--output: with several run directories, name the directory"), std::string::npos) << out;
  EXPECT_NE(test::run_command(ermak + a.string() + " " + b.string() + " -o " + (root / "p").string(), &out), 0);
  EXPECT_NE(out.find("output files exist"), std::string::npos) << out;
  // Another loading rate: the spectrum, as before.
  ASSERT_EQ(test::run_command(ermak + a.string() + " " + b.string() + " " + fast.string() + " -o " +
                                  (root / "s").string() + " --smooth-window-nm 0.25",
                              &out),
            0)
      << out;
  EXPECT_NE(out.find("dynamic force spectrum of 3 pulling runs"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(root / "s" / "spectrum.tsv"));
  EXPECT_FALSE(fs::exists(root / "s" / "replicas.tsv"));
}

}  // namespace
}  // namespace ermak::analysis
