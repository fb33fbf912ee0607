#include "ermak/analysis/contact_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <set>

#include "ermak/analysis/contact_rupture.h"
#include "ermak/analysis/report_common.h"
#include "ermak/analysis/statistics.h"
#include "ermak/analysis/svg_plot.h"
#include "ermak/analysis/tsv_table.h"
#include "ermak/core/error.h"
#include "ermak/io/topology_file.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kNever = "NA";  // a value of a contact that did not rupture (docs/analysis.md)
// Replicas whose peaks summary.txt names one line each; peak_contacts.tsv has them all.
constexpr std::size_t kPeakReplicasInSummary = 10;

std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : std::string(kNever); }

// A pulling replica's table, for the base travel and extension at a rupture step.
struct PullingRows {
  std::vector<double> step, base_nm, extension_nm;
  // The row at `step` or the nearest before it; none before the first row.
  std::optional<std::size_t> at(std::int64_t s) const {
    const auto it = std::upper_bound(step.begin(), step.end(), double(s));
    if (it == step.begin()) return std::nullopt;
    return std::size_t(it - step.begin()) - 1;
  }
};

// Unset for a table without base and extension columns (they are not this analysis's to require).
std::optional<PullingRows> read_pulling_rows(const fs::path& table) {
  const TsvTable t = TsvTable::read(table);
  if (!t.has("step") || !t.has("base[nm]") || !t.has("extension[nm]")) return std::nullopt;
  PullingRows rows;
  const auto step = t.column("step"), base = t.column("base[nm]"), extension = t.column("extension[nm]");
  rows.step.assign(step.begin(), step.end());
  rows.base_nm.assign(base.begin(), base.end());
  rows.extension_nm.assign(extension.begin(), extension.end());
  return rows;
}

// What is kept of one replica's ruptures for the statistics (one number per contact).
struct ReplicaRuptures {
  Replica replica;
  std::vector<std::optional<std::int64_t>> step;   // per contact
  std::vector<double> time_ns, extension_nm;       // per contact; NaN: none
  std::vector<std::int64_t> frame_step;            // for the peaks' windows (a replica with peaks only)
};

// "A:6–A:20" for a set of residue labels' beads, chain by chain in bead order: each chain's
// lowest and highest bead of the set.
std::string residue_ranges(const Topology& topology, const std::set<std::int32_t>& beads) {
  std::vector<std::pair<std::int32_t, std::int32_t>> ranges;  // first, last bead of a chain
  for (std::int32_t b : beads) {
    if (!ranges.empty() && topology.beads[std::size_t(ranges.back().second)].chain_id == topology.beads[std::size_t(b)].chain_id)
      ranges.back().second = b;
    else
      ranges.push_back({b, b});
  }
  std::string text;
  for (const auto& [first, last] : ranges) {
    if (!text.empty()) text += ", ";
    text += first == last ? residue_label(topology, first)
                          : residue_label(topology, first) + "–" + residue_label(topology, last);
  }
  return text;
}

std::string pair_label(const Topology& topology, const NativeContact& c) {
  return residue_label(topology, c.i) + "-" + residue_label(topology, c.j);
}

}  // namespace

std::string residue_label(const Topology& topology, std::int32_t bead) {
  const BeadInfo& b = topology.beads[std::size_t(bead)];
  std::string label = b.chain_id + ":" + std::to_string(b.residue_number);
  if (b.insertion_code != ' ') label += b.insertion_code;
  if (b.atom_name != "CA") label += ":" + b.atom_name;
  return label;
}

ContactInputs find_contact_inputs(const fs::path& run_dir, const std::vector<Replica>& replicas,
                                  const RunLogFacts& run_log) {
  auto refuse = [](const std::string& why) { throw Error("--contacts: " + why); };
  if (run_log.trajectory_every_steps && *run_log.trajectory_every_steps == 0)
    refuse(run_dir.string() + " wrote no trajectories ([output] trajectory_every = 0 in its run.log): the contacts are "
                              "read from replica_NNN/trajectory.dcd");
  ContactInputs in;
  for (const Replica& r : replicas)
    if (fs::exists(r.dir / "trajectory.dcd")) in.replicas.push_back(r);
    else in.without_trajectory.push_back((r.dir / "trajectory.dcd").string());
  if (in.replicas.empty())
    refuse("no replica has a trajectory (" + (replicas.empty() ? run_dir : replicas.front().dir).string() +
           "/trajectory.dcd and the others are missing): the contacts are read from the trajectories, which a run "
           "writes with [output] trajectory_every > 0");
  in.model_file = run_dir / "model.etop";
  if (!fs::exists(in.model_file))
    refuse(in.model_file.string() + " is missing: the native contacts are those of the run's model, which ermak run "
                                    "writes there");
  in.topology = read_topology_file(in.model_file);
  if (in.topology.native_contacts.empty()) refuse(in.model_file.string() + " has no native contacts");
  in.formed_ratio = run_log.contact_formed_ratio.value_or(kDefaultContactFormedRatio);
  in.formed_ratio_source = run_log.contact_formed_ratio ? "the run's [output] contact_formed_ratio, from run.log"
                                                        : "the default; run.log gives none";
  return in;
}

ContactReport write_contact_report(const ContactInputs& in, const ContactReportOptions& options, const fs::path& out,
                                   std::vector<fs::path>& files) {
  ContactReport report;
  const Topology& top = in.topology;
  const std::size_t contacts = top.native_contacts.size();
  for (const std::string& p : in.without_trajectory)
    report.warnings.push_back(p + ": missing, which other replicas have; replica left out of the contacts analysis");

  // --- per replica: its ruptures, one row per contact -------------------------------------
  std::string ruptures_text =
      "# replica\tcontact\tbead_i\tbead_j\tresidue_i\tresidue_j\tr0[A]\trupture_step\trupture_time[ns]\tbase[nm]\t"
      "extension[nm]\n";
  // Q at every frame, within chains and between them (a complex's interface): written replica
  // by replica (10⁴ replicas of 10³ frames are ~450 MB of text).
  const fs::path fractions_file = out / "contact_fractions.tsv";
  write_text_file(fractions_file, "# replica\tstep\ttime[ns]\tQ\tQ_within_chains\tQ_between_chains\n",
                  options.overwrite);
  std::ofstream fractions_out(fractions_file, std::ios::binary | std::ios::app);
  std::string fractions_text;
  std::vector<double> last_between;  // each replica's Q between chains at its last frame
  std::int64_t between_contacts = 0;
  std::vector<ReplicaRuptures> kept;
  std::set<std::int64_t> frame_strides;  // one per run; pooled runs may differ
  for (const Replica& r : in.replicas) {
    const fs::path dcd = r.dir / "trajectory.dcd";
    const ContactRuptures cr = find_contact_ruptures(top, dcd, in.formed_ratio);
    if (cr.trailing_bytes > 0)
      report.warnings.push_back(fmt::format("{}: ends {} bytes into a frame (cut short); its {} whole frames are read",
                                            dcd.string(), cr.trailing_bytes, cr.frames()));
    if (cr.frames() > 1) frame_strides.insert(cr.frame_step[1] - cr.frame_step[0]);
    for (std::int64_t f = 0; f < cr.frames(); ++f) {
      const std::size_t k = std::size_t(f);
      const double time_ns = cr.timestep_ps > 0.0 ? double(cr.frame_step[k]) * cr.timestep_ps * 1e-3 : kNaN;
      fractions_text += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\n", r.index, cr.frame_step[k], number(time_ns),
                                    number(cr.native_fraction[k]), number(cr.within_chains_fraction[k]),
                                    number(cr.between_chains_fraction[k]));
    }
    fractions_out << fractions_text;
    fractions_text.clear();
    between_contacts = cr.between_chains_contacts;
    if (between_contacts > 0) last_between.push_back(cr.between_chains_fraction.back());
    std::optional<PullingRows> pulling;
    if (r.pulling) pulling = read_pulling_rows(r.dir / "pulling.tsv");
    ReplicaRuptures rr;
    rr.replica = r;
    if (options.peaks.count(r.index)) rr.frame_step = cr.frame_step;  // only the peaks' windows need them
    for (std::size_t k = 0; k < contacts; ++k) {
      const NativeContact& c = top.native_contacts[k];
      const std::optional<std::int64_t> step = cr.rupture_step(k);
      double time_ns = kNaN, base = kNaN, extension = kNaN;
      if (step && cr.timestep_ps > 0.0) time_ns = double(*step) * cr.timestep_ps * 1e-3;
      if (step && pulling)
        if (const auto row = pulling->at(*step)) {
          base = pulling->base_nm[*row];
          extension = pulling->extension_nm[*row];
        }
      rr.step.push_back(step);
      rr.time_ns.push_back(time_ns);
      rr.extension_nm.push_back(extension);
      ruptures_text += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{:.6g}\t{}\t{}\t{}\t{}\n", r.index, k, c.i, c.j,
                                   residue_label(top, c.i), residue_label(top, c.j), double(c.r0_A),
                                   step ? std::to_string(*step) : std::string(kNever), number(time_ns), number(base),
                                   number(extension));
    }
    kept.push_back(std::move(rr));
  }
  write_text_file(out / "contact_ruptures.tsv", ruptures_text, options.overwrite);
  files.push_back(out / "contact_ruptures.tsv");
  report.produced.push_back("contact_ruptures.tsv");
  fractions_out.close();
  if (!fractions_out) throw Error(fractions_file.string(), 0, "", "cannot write file");
  files.push_back(fractions_file);
  report.produced.push_back("contact_fractions.tsv");
  const bool pulling = std::any_of(kept.begin(), kept.end(), [](const ReplicaRuptures& r) { return r.replica.pulling; });

  // --- over the replicas: each contact's rank in each replica's rupture order --------------
  // Fractional ranks: contacts that rupture at one frame share the mean of their places, and
  // those that do not rupture share the places after every one that does — they break, if
  // ever, later than all of them.
  std::vector<double> rank_sum(contacts, 0.0);
  std::vector<std::size_t> ruptured_in(contacts, 0);
  std::vector<std::size_t> ruptured_per_replica;
  for (const ReplicaRuptures& rr : kept) {
    std::vector<std::size_t> order(contacts);
    std::iota(order.begin(), order.end(), 0);
    // Ruptured first by step; unruptured after, as one tie.
    auto key = [&](std::size_t k) {
      return rr.step[k] ? *rr.step[k] : std::numeric_limits<std::int64_t>::max();
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    std::size_t n_ruptured = 0;
    for (std::size_t from = 0; from < contacts;) {
      std::size_t to = from;
      while (to < contacts && key(order[to]) == key(order[from])) ++to;
      const double mean_place = 0.5 * double(from + 1 + to);  // places from+1 … to, 1-based
      for (std::size_t p = from; p < to; ++p) rank_sum[order[p]] += mean_place;
      from = to;
    }
    for (std::size_t k = 0; k < contacts; ++k)
      if (rr.step[k]) {
        ++ruptured_in[k];
        ++n_ruptured;
      }
    ruptured_per_replica.push_back(n_ruptured);
  }
  const double replicas = double(kept.size());
  std::vector<std::size_t> by_order(contacts);
  std::iota(by_order.begin(), by_order.end(), 0);
  std::stable_sort(by_order.begin(), by_order.end(),
                   [&](std::size_t a, std::size_t b) { return rank_sum[a] < rank_sum[b]; });
  std::string contacts_text =
      "# order\tcontact\tbead_i\tbead_j\tresidue_i\tresidue_j\tr0[A]\treplicas\truptured\tfraction_ruptured\tmean_rank\t"
      "rupture_time_mean[ns]\trupture_time_sd[ns]\trupture_extension_mean[nm]\trupture_extension_sd[nm]\n";
  std::vector<SampleStatistics> time_stats(contacts), extension_stats(contacts);
  for (std::size_t place = 0; place < contacts; ++place) {
    const std::size_t k = by_order[place];
    const NativeContact& c = top.native_contacts[k];
    std::vector<double> times, extensions;
    for (const ReplicaRuptures& rr : kept) {
      if (std::isfinite(rr.time_ns[k])) times.push_back(rr.time_ns[k]);
      if (std::isfinite(rr.extension_nm[k])) extensions.push_back(rr.extension_nm[k]);
    }
    time_stats[k] = describe(times);
    extension_stats[k] = describe(extensions);
    contacts_text += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{:.6g}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", place + 1, k, c.i,
                                 c.j, residue_label(top, c.i), residue_label(top, c.j), double(c.r0_A), kept.size(),
                                 ruptured_in[k], number(double(ruptured_in[k]) / replicas),
                                 number(rank_sum[k] / replicas), number(time_stats[k].mean), number(time_stats[k].sd),
                                 number(extension_stats[k].mean), number(extension_stats[k].sd));
  }
  write_text_file(out / "contacts.tsv", contacts_text, options.overwrite);
  files.push_back(out / "contacts.tsv");
  report.produced.push_back("contacts.tsv");

  // --- the contacts that broke at each unfolding peak --------------------------------------
  // Peak p's contacts are those whose rupture step s lies in (e(p−1), e(p)], where e(p) is the
  // step of the first frame at or after the end of the peak's drop (the drop is where its
  // contacts let go, and it may follow a plateau) or the last frame when none follows, and
  // e(−1) is before the first frame.
  // A peak that breaks mostly contacts between chains is the complex coming apart, not a
  // chain unfolding: its between_chains column and summary line say so.
  const std::vector<char> between_chains = contacts_between_chains(top);
  std::string peak_text =
      "# replica\tpeak\tpeak_step\tafter_step\tto_step\tcontacts\tbetween_chains\tresidue_pairs\n";
  std::string peak_lines;
  std::size_t peak_rows = 0, replicas_named = 0;
  for (const ReplicaRuptures& rr : kept) {
    const auto found = options.peaks.find(rr.replica.index);
    if (found == options.peaks.end() || found->second.empty() || rr.frame_step.empty()) continue;
    const bool named = replicas_named++ < kPeakReplicasInSummary;
    std::optional<std::int64_t> after;
    for (std::size_t p = 0; p < found->second.size(); ++p) {
      const std::int64_t peak_step = found->second[p].peak_step;
      const std::int64_t drop_end = std::max(found->second[p].drop_end_step, peak_step + 1);
      const auto next = std::lower_bound(rr.frame_step.begin(), rr.frame_step.end(), drop_end);
      const std::int64_t to = next == rr.frame_step.end() ? rr.frame_step.back() : *next;
      std::vector<std::size_t> broke;
      for (std::size_t k = 0; k < contacts; ++k)
        if (rr.step[k] && *rr.step[k] <= to && (!after || *rr.step[k] > *after)) broke.push_back(k);
      std::stable_sort(broke.begin(), broke.end(), [&](std::size_t a, std::size_t b) { return *rr.step[a] < *rr.step[b]; });
      std::string pairs;
      std::set<std::int32_t> lower, upper;
      std::size_t broke_between = 0;
      for (std::size_t k : broke) {
        broke_between += between_chains[k] ? 1 : 0;
        if (!pairs.empty()) pairs += ' ';
        pairs += pair_label(top, top.native_contacts[k]);
        lower.insert(std::min(top.native_contacts[k].i, top.native_contacts[k].j));
        upper.insert(std::max(top.native_contacts[k].i, top.native_contacts[k].j));
      }
      peak_text += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", rr.replica.index, p, peak_step,
                               after ? std::to_string(*after) : std::string(kNever), to, broke.size(), broke_between,
                               pairs);
      ++peak_rows;
      if (named)
        peak_lines += fmt::format(
            "  {} peak {} (step {}): {} contact{}{}{}\n", rr.replica.name, p, peak_step, broke.size(),
            broke.size() == 1 ? "" : "s",
            broke.empty() ? std::string()
                          : fmt::format(", {} with {}", residue_ranges(top, lower), residue_ranges(top, upper)),
            broke_between == 0 ? std::string()
            : 2 * broke_between > broke.size()
                ? fmt::format(" ({} between chains: the chains coming apart, not an unfolding)", broke_between)
                : fmt::format(" ({} between chains)", broke_between));
      after = to;
    }
  }
  if (peak_rows > 0) {
    write_text_file(out / "peak_contacts.tsv", peak_text, options.overwrite);
    files.push_back(out / "peak_contacts.tsv");
    report.produced.push_back("peak_contacts.tsv");
  }

  // --- summary, files, brief ---------------------------------------------------------------
  std::vector<double> per_replica(ruptured_per_replica.begin(), ruptured_per_replica.end());
  const SampleStatistics ruptured = describe(per_replica);
  std::string& s = report.summary;
  s += "\nWhich contacts break (--contacts)\n";
  s += fmt::format("  formed: r < {} × r0 ({}); a contact's rupture is the first frame from which it stays broken to "
                   "the end of its trajectory\n",
                   g(in.formed_ratio), in.formed_ratio_source);
  std::string strides;
  for (const std::int64_t every : frame_strides) strides += (strides.empty() ? "" : " or ") + std::to_string(every);
  s += fmt::format("  native contacts: {} (model.etop); replicas with a trajectory: {}; frames every {}\n", contacts,
                   kept.size(),
                   frame_strides.empty()       ? std::string("n/a (one frame)")
                   : frame_strides.size() == 1 ? strides + " steps"
                                               : strides + " steps (the pooled runs differ)");
  s += fmt::format("  contacts ruptured per replica: {} of {}\n", mean_sd(ruptured, "contacts"), contacts);
  if (between_contacts > 0)
    s += fmt::format("  between chains: {} of the {} contacts; the fraction formed at the last frame, Q_between_chains: "
                     "{} (its course in contact_fractions.tsv)\n",
                     between_contacts, contacts, mean_sd(describe(last_between), "of them"));
  s += "  first to break (mean rupture order; contacts.tsv):\n";
  for (std::size_t place = 0; place < std::min<std::size_t>(5, contacts); ++place) {
    const std::size_t k = by_order[place];
    if (ruptured_in[k] == 0) break;
    const SampleStatistics& at = pulling ? extension_stats[k] : time_stats[k];
    s += fmt::format("    {}. {} (contact {}): ruptured in {} of {} replicas, at {} {} (mean)\n", place + 1,
                     pair_label(top, top.native_contacts[k]), k, ruptured_in[k], kept.size(), g(at.mean),
                     pulling ? "nm extension" : "ns");
  }
  if (ruptured_in[by_order.front()] == 0) s += "    none ruptured\n";
  if (!peak_lines.empty()) {
    s += "  contacts broken at each force peak (up to the first frame after it; peak_contacts.tsv):\n" + peak_lines;
    if (replicas_named > kPeakReplicasInSummary)
      s += fmt::format("  … and the peaks of {} more replicas in peak_contacts.tsv\n",
                       replicas_named - kPeakReplicasInSummary);
  }
  report.files += "  contact_ruptures.tsv         each replica's native contacts: rupture step, time (and base, "
                  "extension), NA where none\n";
  report.files += "  contact_fractions.tsv        Q at every frame, over all contacts, within chains and between "
                  "them\n";
  report.files += "  contacts.tsv                 each native contact over the replicas: fraction ruptured, mean "
                  "rupture time (extension), in mean rupture order\n";
  if (peak_rows > 0)
    report.files += "  peak_contacts.tsv            the contacts that broke at each force peak, and how many of them "
                    "joined two chains\n";
  const std::size_t first = by_order.front();
  report.brief = fmt::format("contacts: {} of {} native contacts ruptured per replica (mean, {} replica{}); first to "
                             "break: {}\n",
                             g(ruptured.mean, 3), contacts, kept.size(), kept.size() == 1 ? "" : "s",
                             ruptured_in[first] ? pair_label(top, top.native_contacts[first]) : std::string("none"));
  return report;
}

}  // namespace ermak::analysis
