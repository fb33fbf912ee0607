// `ermak analyze --contacts` (analysis/contact_rupture, analysis/contact_report): a synthetic run
// directory as `ermak run` leaves it — model.etop, run.log, replica_NNN/trajectory.dcd and
// pulling.tsv — whose contacts break at known frames: the rupture frames and steps, the
// censoring of a contact formed at the end, the rule that a contact which breaks and forms
// again ruptures only at its last break, the statistics and order of contacts.tsv, the
// contacts of a peak, and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ermak/analysis/analyze_run.h"
#include "ermak/analysis/contact_report.h"
#include "ermak/analysis/force_spectroscopy.h"
#include "ermak/analysis/report_common.h"
#include "ermak/analysis/contact_rupture.h"
#include "ermak/analysis/run_directory.h"
#include "ermak/analysis/tsv_table.h"
#include "ermak/core/error.h"
#include "ermak/io/dcd_writer.h"
#include "ermak/io/topology_file.h"
#include "support/synthetic_pulling.h"
#include "support/test_paths.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;

// 8 beads of chain A, residues 11 to 18; native contacts k = 0..3 between beads k and k + 4,
// r0 = 5 Å (formed while r < 7.5 Å). Each pair lies on its own line, 20 Å from the others,
// so that a frame sets each contact's distance alone.
Topology four_contacts() {
  Topology t;
  for (int b = 0; b < 8; ++b) {
    BeadInfo info;
    info.chain_id = "A";
    info.residue_number = 11 + b;
    t.beads.push_back(info);
  }
  for (int b = 0; b < 7; ++b) t.bonds.push_back({b, b + 1, 3.8f});
  for (int k = 0; k < 4; ++k) t.native_contacts.push_back({k, k + 4, 5.0f, 1.0f});
  return t;
}

// distances[frame][contact], Å; frames at steps 0, stride, 2 stride, …; time step 10 ps.
void write_trajectory(const fs::path& file, const std::vector<std::vector<float>>& distances,
                      std::int64_t stride = 100) {
  DcdWriter w = DcdWriter::create(file, 8, 0, stride, 10.0, true);
  for (const auto& d : distances) {
    std::vector<float> x(8, 0.0f), y(8), z(8, 0.0f);
    for (int k = 0; k < 4; ++k) {
      y[k] = y[k + 4] = 20.0f * float(k);
      x[k + 4] = d[k];
    }
    w.write_frame(x.data(), y.data(), z.data());
  }
  w.flush();
}

// Replica 0: contact 0 pulled apart at frame 2; contact 1 formed throughout (censored);
// contact 2 breaks at frame 1, forms again at frame 3 and breaks for good at frame 4;
// contact 3 reaches exactly 1.5 r0 at frame 4 (broken: formed needs r < 1.5 r0).
const std::vector<std::vector<float>> kReplica0 = {
    {5, 5, 5, 5}, {5, 5, 9, 5}, {9, 5, 9, 5}, {12, 5, 5, 5}, {15, 5, 9, 7.5f}, {18, 5, 9, 10}};
// Replica 1: contact 0 breaks at frame 1; contact 1 at the last frame; contact 2 never;
// contact 3 is broken in every frame (it ruptures at frame 0).
const std::vector<std::vector<float>> kReplica1 = {
    {5, 5, 5, 9}, {9, 5, 5, 9}, {9, 5, 5, 9}, {9, 5, 5, 9}, {9, 5, 5, 9}, {9, 9, 5, 9}};

// pulling.tsv every 150 steps: base = step / 1000 nm, extension = 2 + step / 100 nm.
void write_pulling(const fs::path& file) {
  std::ofstream t(file);
  t << "# step\ttime[ns]\tbase[nm]\tend_to_end[nm]\textension[nm]\tforce[pN]\tforce_along[pN]\n";
  for (int step = 0; step <= 450; step += 150)
    t << step << "\t" << step * 0.01 << "\t" << step / 1000.0 << "\t" << 2 + step / 100.0 << "\t" << 2 + step / 100.0
      << "\t" << 10 << "\t" << 10 << "\n";
}

void write_run_log(const fs::path& dir, int trajectory_every) {
  std::ofstream log(dir / "run.log");
  log << "[2026-11-30 08:11:49] ermak 0.1.0 starting run.toml\n"
      << "[2026-11-30 08:11:49] resolved configuration:\n"
      << "# ermak resolved configuration\n\n[output]\ndirectory = \"out\"\ntrajectory_every = " << trajectory_every
      << "\ncontact_formed_ratio = 1.5\n\n"
      << "[2026-11-30 08:11:49] running steps 0 to 500\n";
}

fs::path synthetic_run(const std::string& name, int trajectory_every = 100, bool trajectories = true) {
  const fs::path dir = test::fresh_directory(name);
  write_topology_file(four_contacts(), dir / "model.etop");
  write_run_log(dir, trajectory_every);
  for (int r = 0; r < 2; ++r) {
    const fs::path rd = dir / ("replica_00" + std::to_string(r));
    fs::create_directories(rd);
    write_pulling(rd / "pulling.tsv");
    if (trajectories) write_trajectory(rd / "trajectory.dcd", r == 0 ? kReplica0 : kReplica1);
  }
  return dir;
}

std::vector<std::vector<std::string>> rows_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::stringstream s(line);
    for (std::string f; std::getline(s, f, '\t');) fields.push_back(f);
    rows.push_back(fields);
  }
  return rows;
}

TEST(ContactRupture, FirstFrameOfThePermanentBreakCensoredAtTheEnd) {
  const fs::path dir = test::fresh_directory("contacts-one-replica");
  write_trajectory(dir / "t.dcd", kReplica0);
  const ContactRuptures r = find_contact_ruptures(four_contacts(), dir / "t.dcd", 1.5);
  EXPECT_EQ(r.frame_step, (std::vector<std::int64_t>{0, 100, 200, 300, 400, 500}));
  EXPECT_EQ(r.native_fraction, (std::vector<double>{1.0, 0.75, 0.5, 0.75, 0.25, 0.25}));
  ASSERT_EQ(r.rupture_frame.size(), 4u);
  EXPECT_EQ(r.rupture_frame[0], 2);
  EXPECT_FALSE(r.rupture_frame[1].has_value());  // formed in the last frame
  EXPECT_EQ(r.rupture_frame[2], 4);              // not frame 1: it formed again at frame 3
  EXPECT_EQ(r.rupture_frame[3], 4);              // r = 1.5 r0 exactly is broken
  EXPECT_EQ(r.rupture_step(0), 200);
  EXPECT_EQ(r.rupture_step(2), 400);
  EXPECT_DOUBLE_EQ(r.timestep_ps, 10.0);
  // Another ratio moves the breaks: formed while r < 2 r0 = 10 Å, contact 0 stays formed up to
  // frame 2 (9 Å), contact 2 never breaks, and contact 3 breaks at frame 5 (10 Å).
  const ContactRuptures wide = find_contact_ruptures(four_contacts(), dir / "t.dcd", 2.0);
  EXPECT_EQ(wide.rupture_frame[0], 3);
  EXPECT_FALSE(wide.rupture_frame[2].has_value());
  EXPECT_EQ(wide.rupture_frame[3], 5);
}

// A complex: beads 6 and 7 on chain B make contacts 2 and 3 join the chains. Q within chains
// counts contacts 0 and 1, Q between chains 2 and 3, frame by frame (kReplica0: contact 2
// breaks at frames 1, 2, 4 and 5, contact 3 at frames 4 and 5, contact 0 from frame 2).
TEST(ContactRupture, QWithinAndBetweenChains) {
  const fs::path dir = test::fresh_directory("contacts-two-chains");
  write_trajectory(dir / "t.dcd", kReplica0);
  Topology complex = four_contacts();
  complex.beads[6].chain_id = complex.beads[7].chain_id = "B";
  const ContactRuptures r = find_contact_ruptures(complex, dir / "t.dcd", 1.5);
  EXPECT_EQ(r.between_chains_contacts, 2);
  EXPECT_EQ(r.native_fraction, (std::vector<double>{1.0, 0.75, 0.5, 0.75, 0.25, 0.25}));
  EXPECT_EQ(r.within_chains_fraction, (std::vector<double>{1.0, 1.0, 0.5, 0.5, 0.5, 0.5}));
  EXPECT_EQ(r.between_chains_fraction, (std::vector<double>{1.0, 0.5, 0.5, 1.0, 0.0, 0.0}));
  // One chain: no contact between chains, NaN at every frame; within is Q.
  const ContactRuptures one = find_contact_ruptures(four_contacts(), dir / "t.dcd", 1.5);
  EXPECT_EQ(one.between_chains_contacts, 0);
  EXPECT_EQ(one.within_chains_fraction, one.native_fraction);
  for (double q : one.between_chains_fraction) EXPECT_TRUE(std::isnan(q));
  // Chains are runs of one id: beads 6, 7 named A again after B (a SOP-GPU .top's A, B, A, …)
  // are a third chain, so contacts 2 and 3 still join chains.
  Topology abab = four_contacts();
  abab.beads[4].chain_id = abab.beads[5].chain_id = "B";
  const ContactRuptures again = find_contact_ruptures(abab, dir / "t.dcd", 1.5);
  EXPECT_EQ(again.between_chains_contacts, 4);
  // The model summaries (`ermak topology`, the run log) count them alike.
  EXPECT_EQ(count_contacts_between_chains(abab), 4u);
  EXPECT_EQ(count_contacts_between_chains(complex), 2u);
}

TEST(ContactRupture, ATrajectoryOfAnotherModelIsRefused) {
  const fs::path dir = test::fresh_directory("contacts-other-model");
  DcdWriter w = DcdWriter::create(dir / "t.dcd", 3, 0, 10, 1.0, true);
  const float c[3] = {0, 1, 2};
  w.write_frame(c, c, c);
  w.flush();
  try {
    find_contact_ruptures(four_contacts(), dir / "t.dcd", 1.5);
    FAIL() << "a trajectory of 3 atoms was read for a model of 8 beads";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "t.dcd").string() + ": the trajectory holds 3 atoms, the model "
                                         "(model.etop) 8 beads"),
              std::string::npos)
        << e.what();
  }
}

TEST(ContactReport, TablesOfRupturesAndTheirOrderOverReplicas) {
  const fs::path run = synthetic_run("contacts-run");
  const RunLogFacts log = read_run_log(run);
  EXPECT_EQ(log.contact_formed_ratio, 1.5);
  EXPECT_EQ(log.trajectory_every_steps, 100);
  const ContactInputs in = find_contact_inputs(run, discover_replicas(run), log);
  EXPECT_EQ(in.replicas.size(), 2u);
  EXPECT_EQ(in.formed_ratio_source, "the run's [output] contact_formed_ratio, from run.log");
  ContactReportOptions options;
  options.peaks[0] = {{150, 180}, {380, 390}};  // replica 0's peaks and the ends of their drops (synthetic)
  const fs::path out = test::fresh_directory("contacts-run-out");
  std::vector<fs::path> files;
  const ContactReport report = write_contact_report(in, options, out, files);
  EXPECT_EQ(files, (std::vector<fs::path>{out / "contact_ruptures.tsv", out / "contact_fractions.tsv",
                                          out / "contacts.tsv", out / "peak_contacts.tsv"}));
  // Every file it writes is one an analysis knows as its own: checked before writing, and
  // removed by a --force analysis that does not write it again (a review found
  // contact_fractions.tsv left beside a later analysis's results).
  const std::vector<std::string>& known = analysis_file_names();
  for (const std::string& name : report.produced)
    EXPECT_NE(std::find(known.begin(), known.end(), name), known.end()) << name;
  // Q at every frame of every replica; one chain: no contact between chains (NA), and Q within
  // chains is Q.
  const auto fractions = rows_of(out / "contact_fractions.tsv");
  ASSERT_EQ(fractions.size(), 13u);
  EXPECT_EQ(fractions[0],
            (std::vector<std::string>{"# replica", "step", "time[ns]", "Q", "Q_within_chains", "Q_between_chains"}));
  EXPECT_EQ(fractions[2], (std::vector<std::string>{"0", "100", "1", "0.75", "0.75", "NA"}));
  EXPECT_EQ(fractions[12], (std::vector<std::string>{"1", "500", "5", "0.25", "0.25", "NA"}));  // contact 2 formed
  EXPECT_EQ(report.summary.find("between chains:"), std::string::npos) << report.summary;

  // Rupture step, time (step × 10 ps), and pulling.tsv's row at or before it (rows every 150 steps).
  const auto ruptures = rows_of(out / "contact_ruptures.tsv");
  ASSERT_EQ(ruptures.size(), 9u);
  EXPECT_EQ(ruptures[0], (std::vector<std::string>{"# replica", "contact", "bead_i", "bead_j", "residue_i", "residue_j",
                                                   "r0[A]", "rupture_step", "rupture_time[ns]", "base[nm]",
                                                   "extension[nm]"}));
  EXPECT_EQ(ruptures[1], (std::vector<std::string>{"0", "0", "0", "4", "A:11", "A:15", "5", "200", "2", "0.15", "3.5"}));
  EXPECT_EQ(ruptures[2], (std::vector<std::string>{"0", "1", "1", "5", "A:12", "A:16", "5", "NA", "NA", "NA", "NA"}));
  EXPECT_EQ(ruptures[3], (std::vector<std::string>{"0", "2", "2", "6", "A:13", "A:17", "5", "400", "4", "0.3", "5"}));
  EXPECT_EQ(ruptures[4], (std::vector<std::string>{"0", "3", "3", "7", "A:14", "A:18", "5", "400", "4", "0.3", "5"}));
  EXPECT_EQ(ruptures[5], (std::vector<std::string>{"1", "0", "0", "4", "A:11", "A:15", "5", "100", "1", "0", "2"}));
  EXPECT_EQ(ruptures[6], (std::vector<std::string>{"1", "1", "1", "5", "A:12", "A:16", "5", "500", "5", "0.45", "6.5"}));
  EXPECT_EQ(ruptures[7], (std::vector<std::string>{"1", "2", "2", "6", "A:13", "A:17", "5", "NA", "NA", "NA", "NA"}));
  EXPECT_EQ(ruptures[8], (std::vector<std::string>{"1", "3", "3", "7", "A:14", "A:18", "5", "0", "0", "0", "2"}));

  // Fractional ranks per replica — replica 0: c0 1, c2 and c3 2.5 (one frame), c1 4 (censored);
  // replica 1: c3 1, c0 2, c1 3, c2 4 — mean c0 1.5, c3 1.75, c2 3.25, c1 3.5.
  const auto contacts = rows_of(out / "contacts.tsv");
  ASSERT_EQ(contacts.size(), 5u);
  EXPECT_EQ(contacts[0][0], "# order");
  EXPECT_EQ(contacts[1], (std::vector<std::string>{"1", "0", "0", "4", "A:11", "A:15", "5", "2", "2", "1", "1.5", "1.5",
                                                   "0.707107", "2.75", "1.06066"}));
  EXPECT_EQ(contacts[2], (std::vector<std::string>{"2", "3", "3", "7", "A:14", "A:18", "5", "2", "2", "1", "1.75", "2",
                                                   "2.82843", "3.5", "2.12132"}));
  EXPECT_EQ(contacts[3], (std::vector<std::string>{"3", "2", "2", "6", "A:13", "A:17", "5", "2", "1", "0.5", "3.25", "4",
                                                   "NA", "5", "NA"}));
  EXPECT_EQ(contacts[4], (std::vector<std::string>{"4", "1", "1", "5", "A:12", "A:16", "5", "2", "1", "0.5", "3.5", "5",
                                                   "NA", "6.5", "NA"}));

  // Peak 0 at step 150: up to the first frame after it (200) — contact 0. Peak 1 at step 380:
  // after 200, up to 400 — contacts 2 and 3.
  const auto peaks = rows_of(out / "peak_contacts.tsv");
  ASSERT_EQ(peaks.size(), 3u);
  EXPECT_EQ(peaks[1], (std::vector<std::string>{"0", "0", "150", "NA", "200", "1", "0", "A:11-A:15"}));
  EXPECT_EQ(peaks[2], (std::vector<std::string>{"0", "1", "380", "200", "400", "2", "0", "A:13-A:17 A:14-A:18"}));
  EXPECT_NE(report.summary.find("replica_000 peak 1 (step 380): 2 contacts, A:13–A:14 with A:17–A:18"),
            std::string::npos)
      << report.summary;
  EXPECT_NE(report.summary.find("contacts ruptured per replica: 3 ± 0 contacts"), std::string::npos) << report.summary;
  EXPECT_NE(report.summary.find("1. A:11-A:15 (contact 0): ruptured in 2 of 2 replicas, at 2.75 nm extension"),
            std::string::npos)
      << report.summary;
  EXPECT_EQ(report.brief, "contacts: 3 of 4 native contacts ruptured per replica (mean, 2 replicas); first to break: "
                          "A:11-A:15\n");

  // A peak whose force holds on a plateau and drops only at step 350: its contacts are those
  // broken by the first frame after the drop (400), not by the frame after its maximum (200) —
  // an audit's dimer dissociation got none of the 48 contacts it broke.
  ContactReportOptions plateau;
  plateau.peaks[0] = {{150, 350}};
  const fs::path out2 = test::fresh_directory("contacts-run-plateau");
  std::vector<fs::path> files2;
  write_contact_report(in, plateau, out2, files2);
  const auto held = rows_of(out2 / "peak_contacts.tsv");
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[1], (std::vector<std::string>{"0", "0", "150", "NA", "400", "3", "0", "A:11-A:15 A:13-A:17 A:14-A:18"}));
}

// A complex's interface in the summary: how many contacts join the chains and how many of
// them the replicas' last frames hold (replica 0: neither of contacts 2, 3; replica 1:
// contact 2), with its course in contact_fractions.tsv.
TEST(ContactReport, AComplexsInterfaceIsSummarised) {
  const fs::path run = synthetic_run("contacts-complex");
  Topology complex = four_contacts();
  complex.beads[6].chain_id = complex.beads[7].chain_id = "B";
  write_topology_file(complex, run / "model.etop");
  const ContactInputs in = find_contact_inputs(run, discover_replicas(run), read_run_log(run));
  const fs::path out = test::fresh_directory("contacts-complex-out");
  std::vector<fs::path> files;
  const ContactReport report = write_contact_report(in, {}, out, files);
  EXPECT_NE(report.summary.find("between chains: 2 of the 4 contacts; the fraction formed at the last frame, "
                                  "Q_between_chains: 0.25 ± 0.3536 of them"),
            std::string::npos)
      << report.summary;
  const auto fractions = rows_of(out / "contact_fractions.tsv");
  ASSERT_EQ(fractions.size(), 13u);
  EXPECT_EQ(fractions[2], (std::vector<std::string>{"0", "100", "1", "0.75", "1", "0.5"}));
  EXPECT_EQ(fractions[12], (std::vector<std::string>{"1", "500", "5", "0.25", "0", "0.5"}));

  // Peaks: the first breaks contact 0 (within chain A), the second contacts 2 and 3, both
  // between the chains — the complex coming apart, which the summary does not call unfolding.
  ContactReportOptions options;
  options.peaks[0] = {{150, 180}, {380, 390}};
  const fs::path out2 = test::fresh_directory("contacts-complex-peaks");
  std::vector<fs::path> files2;
  const ContactReport peaks_report = write_contact_report(in, options, out2, files2);
  const auto peaks = rows_of(out2 / "peak_contacts.tsv");
  ASSERT_EQ(peaks.size(), 3u);
  EXPECT_EQ(peaks[0][6], "between_chains");
  EXPECT_EQ(peaks[1], (std::vector<std::string>{"0", "0", "150", "NA", "200", "1", "0", "A:11-A:15"}));
  EXPECT_EQ(peaks[2], (std::vector<std::string>{"0", "1", "380", "200", "400", "2", "2", "A:13-B:17 A:14-B:18"}));
  EXPECT_NE(peaks_report.summary.find("replica_000 peak 0 (step 150): 1 contact, A:11 with A:15\n"), std::string::npos)
      << peaks_report.summary;
  EXPECT_NE(peaks_report.summary.find("(2 between chains: the chains coming apart, not an unfolding)"),
            std::string::npos)
      << peaks_report.summary;
}

// Ends on two chains (a complex pulled apart): the pulling summary says that no chain of
// bonds joins them, so its peaks are ruptures between the chains and a WLC fit's Lc is no
// chain's contour length (a complex audit's dimer got ΔLc and "Lc after the last peak 13.95
// nm" without a word); a single chain between the same ends gets no such note.
TEST(ContactReport, EndsOnTwoChainsAreNamedInThePullingSummary) {
  auto summary_for = [](const std::string& name, const Topology& t) {
    const fs::path run = test::fresh_directory(name);
    write_topology_file(t, run / "model.etop");
    std::ofstream(run / "run.log") << "[2026-11-30 08:11:49] ermak 0.1.0 starting run.toml\n"
                                   << "[2026-11-30 08:11:49] pulling: beads [7] on springs κ = 35 pN/nm; ends 0 7; "
                                      "output every 1000 steps (pulling.tsv)\n"
                                   << "[2026-11-30 08:11:49] running steps 0 to 6000000\n";
    fs::create_directories(run / "replica_000");
    std::ofstream t_out(run / "replica_000" / "pulling.tsv");
    t_out << "# step\ttime[ns]\tbase[nm]\tend_to_end[nm]\textension[nm]\tforce[pN]\tforce_along[pN]\n";
    for (const test::SyntheticPullingRow& row : test::synthetic_wlc_pulling({100.0, 140.0}, 10))
      t_out << row.step << "\t" << row.time_ns << "\t" << row.base_nm << "\t" << row.extension_nm << "\t"
            << row.extension_nm << "\t" << std::abs(row.force_pN) << "\t" << row.force_pN << "\n";
    t_out.close();
    AnalyzeOptions o;
    o.run_dir = run;
    analyze_run(o);
    return test::read_file(run / "analysis" / "summary.txt");
  };
  Topology two = four_contacts();
  two.bonds.erase(two.bonds.begin() + 3);  // 0-1-2-3 and 4-5-6-7: two chains
  for (int b = 4; b < 8; ++b) two.beads[std::size_t(b)].chain_id = "B";
  const std::string note = "note: no chain of bonds joins the ends (beads 0 and 7: two chains, or a chain break)";
  const std::string apart = summary_for("contacts-two-chains", two);
  EXPECT_NE(apart.find(note), std::string::npos) << apart;
  const std::string one = summary_for("contacts-one-chain", four_contacts());
  EXPECT_EQ(one.find("no chain of bonds joins the ends"), std::string::npos) << one;
}

// Where a peak's drop ends: the first row after it within 10 % of the drop from the lowest
// force before the next peak (or the end), after a plateau too.
TEST(ContactReport, APeaksDropEndsWhereTheForceHasFallen) {
  PullingAnalysis a;
  a.force_pN = {0, 50, 100, 90, 95, 92, 20, 12, 10, 11, 60, 80, 30, 31, 30};
  a.peaks.resize(2);
  a.peaks[0].peak.index = 2;
  a.peaks[1].peak.index = 11;
  EXPECT_EQ(drop_end_row(a, 0), 7u) << "100 → lowest 10: within 19 pN at row 7, after the plateau";
  EXPECT_EQ(drop_end_row(a, 1), 12u) << "80 → lowest 30: within 35 pN at row 12";
}

AnalyzeOptions contacts_options(const fs::path& run, const fs::path& out) {
  AnalyzeOptions o;
  o.run_dir = run;
  o.out_dir = out;
  o.contacts = true;
  return o;
}

std::string refusal(const AnalyzeOptions& o) {
  try {
    analyze_run(o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ContactReport, AnalyzeWritesTheTablesAndRefusesARunWithoutTrajectories) {
  const fs::path run = synthetic_run("contacts-analyze");
  const fs::path out = run / "analysis";
  const AnalyzeResult result = analyze_run(contacts_options(run, out));
  for (const char* f : {"contact_ruptures.tsv", "contacts.tsv", "summary.txt"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
  EXPECT_NE(result.brief.find("contacts: 3 of 4 native contacts ruptured per replica"), std::string::npos)
      << result.brief;
  const std::string summary = test::read_file(out / "summary.txt");
  EXPECT_NE(summary.find("Which contacts break (--contacts)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("  contacts.tsv "), std::string::npos) << summary;
  // Not overwritten without --force.
  EXPECT_NE(refusal(contacts_options(run, out)).find("exist"), std::string::npos);

  // trajectory_every = 0 in run.log: refused with the reason, nothing written.
  const fs::path none = synthetic_run("contacts-no-trajectory", 0, false);
  std::string why = refusal(contacts_options(none, none / "analysis"));
  EXPECT_NE(why.find("--contacts: " + none.string() + " wrote no trajectories ([output] trajectory_every = 0"),
            std::string::npos)
      << why;
  EXPECT_FALSE(fs::exists(none / "analysis" / "summary.txt"));
  // No trajectory.dcd although run.log asks for them (deleted, or a run.log of another kind).
  const fs::path lost = synthetic_run("contacts-lost-trajectory", 100, false);
  why = refusal(contacts_options(lost, lost / "analysis"));
  EXPECT_NE(why.find("--contacts: no replica has a trajectory"), std::string::npos) << why;
  // One replica's lost: it is left out with a warning.
  fs::remove(run / "replica_001" / "trajectory.dcd");
  AnalyzeOptions again = contacts_options(run, out);
  again.overwrite = true;
  const AnalyzeResult one = analyze_run(again);
  bool warned = false;
  for (const auto& w : one.warnings) warned |= w.find("replica_001/trajectory.dcd: missing") != std::string::npos;
  EXPECT_TRUE(warned);
  EXPECT_EQ(rows_of(out / "contact_ruptures.tsv").size(), 5u);  // the header and replica 0's 4 contacts
}

TEST(ContactReport, TheOptionIsRefusedForASpectrumOfSeveralRuns) {
  int status = 0;
  const std::string said = test::run_ermak("analyze /nonexistent/run-a /nonexistent/run-b --contacts", &status);
  EXPECT_NE(status, 0);
  EXPECT_NE(said.find("--contacts: applies to the analysis of one run directory (or of runs of one condition, pooled "
                      "into one), not to the spectrum of several"),
            std::string::npos)
      << said;
}

// Through analyze_run: the peaks of peak_contacts.tsv are those of peaks.tsv (pulling_report's,
// not found again), each with the contacts that ruptured up to the first frame after it.
TEST(ContactReport, ThePeaksAreThoseOfPeaksTsv) {
  const fs::path run = test::fresh_directory("contacts-peaks");
  write_topology_file(four_contacts(), run / "model.etop");
  write_run_log(run, 50000);
  const fs::path rd = run / "replica_000";
  fs::create_directories(rd);
  {
    // A WLC pulled through ruptures at 100 and 140 pN (support/synthetic_pulling.h), rows 1000 steps apart.
    std::ofstream t(rd / "pulling.tsv");
    t << "# step\ttime[ns]\tbase[nm]\tend_to_end[nm]\textension[nm]\tforce[pN]\tforce_along[pN]\n";
    for (const test::SyntheticPullingRow& row : test::synthetic_wlc_pulling({100.0, 140.0}, 10))
      t << row.step << "\t" << row.time_ns << "\t" << row.base_nm << "\t" << row.extension_nm << "\t"
        << row.extension_nm << "\t" << std::abs(row.force_pN) << "\t" << row.force_pN << "\n";
  }
  // Frames every 50000 steps to step 6·10⁶; contact k breaks for good at frame 20 (k + 1).
  const std::int64_t stride = 50000;
  std::vector<std::vector<float>> frames;
  for (int f = 0; f <= 120; ++f) {
    std::vector<float> d(4);
    for (int k = 0; k < 4; ++k) d[k] = f >= 20 * (k + 1) ? 12.0f : 5.0f;
    frames.push_back(d);
  }
  write_trajectory(rd / "trajectory.dcd", frames, stride);
  AnalyzeOptions o;
  o.run_dir = run;
  o.contacts = true;
  analyze_run(o);
  const TsvTable peaks = TsvTable::read(run / "analysis" / "peaks.tsv");
  ASSERT_EQ(peaks.rows(), 2u);
  const auto rows = rows_of(run / "analysis" / "peak_contacts.tsv");
  ASSERT_EQ(rows.size(), 3u);
  const std::int64_t rupture_steps[] = {1000000, 2000000, 3000000, 4000000};
  std::int64_t after = -1;
  for (std::size_t p = 0; p < 2; ++p) {
    const auto peak_step = std::int64_t(peaks.column("step")[p]);
    // The window ends at the first frame at or after the end of the peak's drop: the smoothed
    // force of a sudden rupture falls over about half a smoothing window (0.2 nm at 0.005 nm
    // per 1000 steps: 2·10⁴ steps), so at the first or second frame after the peak.
    const std::int64_t first_after = (peak_step / stride + 1) * stride;
    const std::int64_t to = std::stoll(rows[p + 1][4]);
    EXPECT_GE(to, first_after) << "peak " << p;
    EXPECT_LE(to, first_after + stride) << "peak " << p;
    EXPECT_EQ(to % stride, 0) << "a frame's step";
    std::size_t broke = 0;
    for (std::int64_t s : rupture_steps) broke += s <= to && s > after;
    EXPECT_EQ(rows[p + 1][1], std::to_string(p));
    EXPECT_EQ(rows[p + 1][2], std::to_string(peak_step));
    EXPECT_EQ(rows[p + 1][3], p == 0 ? std::string("NA") : std::to_string(after));
    EXPECT_EQ(rows[p + 1][5], std::to_string(broke));
    after = to;
  }
  EXPECT_NE(test::read_file(run / "analysis" / "summary.txt").find("replica_000 peak 1 (step "), std::string::npos);
}

}  // namespace
}  // namespace ermak::analysis
