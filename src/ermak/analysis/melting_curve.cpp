#include "ermak/analysis/melting_curve.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <system_error>

#include "ermak/analysis/report_common.h"
#include "ermak/analysis/statistics.h"
#include "ermak/analysis/svg_plot.h"
#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/io/tsv_writer.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The pooled variance of U over several replicas' rows of one stair, from each replica's
// count, mean and sd (the sum of squares about the grand mean, split by replica): the
// variance of all those rows taken together, as describe() would give it. NaN below 2 rows.
double pooled_variance(std::span<const MeltingReplicaStair* const> stairs) {
  double n = 0.0, sum = 0.0;
  for (const MeltingReplicaStair* s : stairs) {
    n += double(s->energies);
    sum += double(s->energies) * s->energy_mean_kcal_per_mol;
  }
  if (n < 2.0) return kNaN;
  const double grand = sum / n;
  double squares = 0.0;
  for (const MeltingReplicaStair* s : stairs) {
    if (s->energies == 0) continue;
    const double d = s->energy_mean_kcal_per_mol - grand;
    squares += double(s->energies) * d * d;
    if (s->energies >= 2) squares += double(s->energies - 1) * s->energy_sd_kcal_per_mol * s->energy_sd_kcal_per_mol;
  }
  return squares / (n - 1.0);
}

void add_once(std::vector<double>& list, double value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// Where the mean Q of the stairs (in the order visited) first falls through `level` on
// heating, rises through it on cooling: linear between the two stairs; unset when it never does.
std::optional<double> q_crossing(std::span<const double> temperatures, std::span<const double> q, bool cooling,
                                 double level) {
  for (std::size_t k = 1; k < q.size(); ++k) {
    const bool through = cooling ? q[k - 1] < level && q[k] >= level : q[k - 1] >= level && q[k] < level;
    if (through)
      return temperatures[k - 1] + (level - q[k - 1]) / (q[k] - q[k - 1]) * (temperatures[k] - temperatures[k - 1]);
  }
  return std::nullopt;
}

std::optional<double> half_q_crossing(std::span<const double> temperatures, std::span<const double> q, bool cooling) {
  return q_crossing(temperatures, q, cooling, 0.5);
}

}  // namespace

MeltingReplica reduce_melting_replica(const TsvTable& t, const MeltingSchedule& schedule) {
  const auto step = t.column("step"), temperature = t.column("T[K]"), q = t.column("Q"), rg = t.column("Rg[A]"),
             u = t.column("U_total[kcal/mol]");
  MeltingReplica out;
  // The step-0 row is the input structure, not a state at any temperature of the schedule.
  std::size_t a = t.rows() > 0 && step[0] == 0.0 ? 1 : 0;
  const double spacing = t.rows() > 2 ? step[2] - step[1] : 0.0;
  while (a < t.rows()) {
    std::size_t b = a;
    while (b < t.rows() && temperature[b] == temperature[a]) ++b;
    const double temp = temperature[a];
    // The stair the run stopped in: shorter than a scheduled stair, unless it is the hold
    // at the stop temperature (which runs to the end of the run).
    const bool last = b == t.rows();
    const bool at_stop = schedule.stop_K && std::abs(temp - *schedule.stop_K) < 1e-6 * std::max(1.0, temp);
    if (last && schedule.every_steps && !at_stop && step[b - 1] - step[a] + spacing < double(*schedule.every_steps)) {
      out.cut_short_K.push_back(temp);
      break;
    }
    // The second half of the stair: the first half lets the chain settle at the new
    // temperature.
    const std::size_t from = a + (b - a) / 2;
    if (b - from < 2) {
      out.too_few_rows_K.push_back(temp);
      a = b;
      continue;
    }
    MeltingReplicaStair st;
    st.temperature_K = temp;
    st.rows = b - from;
    for (std::size_t i = from; i < b; ++i) {
      st.q += q[i];
      st.rg_A += rg[i];
    }
    st.q /= double(st.rows);
    st.rg_A /= double(st.rows);
    const SampleStatistics us = describe(u.subspan(from, st.rows));
    st.energies = us.n;
    st.energy_mean_kcal_per_mol = us.mean;
    st.energy_sd_kcal_per_mol = us.sd;
    out.stairs.push_back(st);
    a = b;
  }
  return out;
}

MeltingAnalysis analyze_melting(std::span<const TsvTable> replicas, const MeltingSchedule& schedule) {
  std::vector<MeltingReplica> reduced;
  for (const TsvTable& t : replicas) reduced.push_back(reduce_melting_replica(t, schedule));
  return analyze_melting(reduced);
}

MeltingAnalysis analyze_melting(std::span<const MeltingReplica> replicas) {
  MeltingAnalysis m;
  // Stairs by temperature, in the order the first replica visits them.
  std::vector<double> order;
  std::map<double, std::vector<const MeltingReplicaStair*>> by_temperature;
  std::vector<std::map<double, double>> q_of_replica;  // each replica's stair means of Q, by temperature
  for (const MeltingReplica& r : replicas) {
    for (double k : r.cut_short_K) add_once(m.cut_short_K, k);
    for (double k : r.too_few_rows_K) add_once(m.too_few_rows_K, k);
    q_of_replica.emplace_back();
    for (const MeltingReplicaStair& s : r.stairs) {
      add_once(order, s.temperature_K);
      q_of_replica.back()[s.temperature_K] = s.q;
      by_temperature[s.temperature_K].push_back(&s);
    }
  }
  const double k_B = units::kBoltzmann_kcal_per_mol_K;
  for (double temperature : order) {
    const auto& list = by_temperature[temperature];
    MeltingStair st;
    st.temperature_K = temperature;
    st.replicas = list.size();
    std::vector<double> q, rg, u, cv;
    for (const MeltingReplicaStair* s : list) {
      st.rows += s->rows;
      q.push_back(s->q);
      rg.push_back(s->rg_A);
      u.push_back(s->energy_mean_kcal_per_mol);
      // Configurational heat capacity: var(U)/(k_B·T²).
      cv.push_back(s->energy_sd_kcal_per_mol * s->energy_sd_kcal_per_mol / (k_B * temperature * temperature));
    }
    const SampleStatistics sq = describe(q), srg = describe(rg), scv = describe(cv);
    st.q_mean = sq.mean;
    st.q_sem = sq.sem;
    st.rg_mean_A = srg.mean;
    st.rg_sem_A = srg.sem;
    st.energy_mean_kcal_per_mol = describe(u).mean;
    st.heat_capacity_kcal_per_mol_K = scv.mean;
    st.heat_capacity_sem = scv.sem;
    st.heat_capacity_pooled = pooled_variance(list) / (k_B * temperature * temperature);
    m.stairs.push_back(st);
  }
  m.cooling = m.stairs.size() >= 2 && m.stairs.back().temperature_K < m.stairs.front().temperature_K;
  // Q falls through 1/2 on heating, rises through it on cooling.
  std::vector<double> temperatures, q_means;
  for (const MeltingStair& st : m.stairs) {
    temperatures.push_back(st.temperature_K);
    q_means.push_back(st.q_mean);
  }
  // A replica whose table stops early (a copy cut short, a replica that lost its last rows)
  // leaves the later stairs averaged over the others: the mean Q would step where the replica
  // set changes, not where the chains melt. The crossing then uses the replicas that hold
  // every stair, when there are at least two of them.
  std::vector<std::size_t> complete;
  for (std::size_t r = 0; r < q_of_replica.size(); ++r)
    if (q_of_replica[r].size() == temperatures.size()) complete.push_back(r);
    else m.replicas_missing_stairs.push_back(r);
  if (!m.replicas_missing_stairs.empty() && complete.size() >= 2) {
    std::vector<std::map<double, double>> kept;
    for (std::size_t r : complete) kept.push_back(q_of_replica[r]);
    q_of_replica = std::move(kept);
    for (std::size_t j = 0; j < temperatures.size(); ++j) {
      double sum = 0.0;
      for (const auto& replica : q_of_replica) sum += replica.at(temperatures[j]);
      q_means[j] = sum / double(q_of_replica.size());
    }
    m.half_q_replicas = q_of_replica.size();
  }
  m.half_q_temperature_K = half_q_crossing(temperatures, q_means, m.cooling);
  if (q_means.size() >= 2) {
    m.first_stair_q = q_means.front();
    m.last_stair_q = q_means.back();
    m.midpoint_temperature_K = q_crossing(temperatures, q_means, m.cooling, *m.midpoint_q());
  }
  // Its spread over the replicas: the crossing of resampled replicas' mean Q. A resample that
  // does not cross lies beyond the stairs on the side its Q says (still folded at the last
  // stair: beyond it).
  if (m.half_q_temperature_K && q_of_replica.size() >= 2) {
    std::vector<double> crossings;
    std::vector<double> q(temperatures.size());
    const double beyond_last = m.cooling ? -std::numeric_limits<double>::infinity()
                                         : std::numeric_limits<double>::infinity();
    for (std::size_t b = 0; b < kMeltingBootstrapResamples; ++b) {
      std::mt19937_64 generator(1 + b);
      std::uniform_int_distribution<std::size_t> pick(0, q_of_replica.size() - 1);
      std::vector<double> sum(q.size(), 0.0), count(q.size(), 0.0);
      for (std::size_t k = 0; k < q_of_replica.size(); ++k) {
        const auto& replica = q_of_replica[pick(generator)];
        for (std::size_t j = 0; j < temperatures.size(); ++j)
          if (const auto it = replica.find(temperatures[j]); it != replica.end()) sum[j] += it->second, count[j] += 1;
      }
      std::vector<double> kept_t, kept_q;
      for (std::size_t j = 0; j < temperatures.size(); ++j)
        if (count[j] > 0) kept_t.push_back(temperatures[j]), kept_q.push_back(sum[j] / count[j]);
      if (kept_q.empty()) continue;
      const auto crossing = half_q_crossing(kept_t, kept_q, m.cooling);
      const bool folded_at_start = m.cooling ? kept_q.front() < 0.5 : kept_q.front() >= 0.5;
      crossings.push_back(crossing ? *crossing : folded_at_start ? beyond_last : -beyond_last);
    }
    m.half_q_interval_K = percentile_interval(crossings);
  }
  // d⟨U⟩/dT over the stairs by temperature, and where the fluctuations fall well short of it.
  {
    std::vector<MeltingStair*> sorted;
    for (MeltingStair& s : m.stairs) sorted.push_back(&s);
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->temperature_K < b->temperature_K; });
    for (std::size_t k = 0; sorted.size() >= 2 && k < sorted.size(); ++k) {
      const MeltingStair* lo = sorted[k == 0 ? 0 : k - 1];
      const MeltingStair* hi = sorted[k + 1 == sorted.size() ? k : k + 1];
      sorted[k]->energy_slope_kcal_per_mol_K = (hi->energy_mean_kcal_per_mol - lo->energy_mean_kcal_per_mol) /
                                               (hi->temperature_K - lo->temperature_K);
      const double slope = sorted[k]->energy_slope_kcal_per_mol_K, c = sorted[k]->heat_capacity_kcal_per_mol_K;
      if (k > 0 && k + 1 < sorted.size() && slope > 0 && c < 0.5 * slope)
        m.undersampled_K.push_back(sorted[k]->temperature_K);
    }
  }
  // The heat capacity's peak, by temperature (a cooling run visits the stairs downwards).
  std::vector<const MeltingStair*> by_t;
  for (const MeltingStair& s : m.stairs)
    if (std::isfinite(s.heat_capacity_kcal_per_mol_K)) by_t.push_back(&s);
  std::sort(by_t.begin(), by_t.end(), [](auto* a, auto* b) { return a->temperature_K < b->temperature_K; });
  if (by_t.size() >= 3) {
    const auto top = std::max_element(by_t.begin(), by_t.end(), [](auto* a, auto* b) {
      return a->heat_capacity_kcal_per_mol_K < b->heat_capacity_kcal_per_mol_K;
    });
    // More than 3 sem (of the top stair and of each end, combined) above both ends.
    auto clear_of = [&](const MeltingStair* end) {
      const double se = std::hypot((*top)->heat_capacity_sem, end->heat_capacity_sem);
      return std::isfinite(se) && (*top)->heat_capacity_kcal_per_mol_K - end->heat_capacity_kcal_per_mol_K > 3.0 * se;
    };
    if (top != by_t.begin() && top != by_t.end() - 1 && clear_of(by_t.front()) && clear_of(by_t.back()))
      m.heat_capacity_peak_K = (*top)->temperature_K;
  }
  return m;
}

AnalyzeResult analyze_melting_run(const AnalyzeOptions& options, const std::vector<fs::path>& paths,
                                  const MeltingSchedule& schedule) {
  AnalyzeResult result;
  result.out_dir = options.out_dir.empty() ? options.run_dir / "analysis" : options.out_dir;
  const fs::path& out = result.out_dir;
  const std::vector<fs::path> planned = {out / "summary.txt", out / "melting.tsv", out / "melting_curve.svg",
                                         out / "heat_capacity.svg"};
  // A table at a time, kept as its stairs only (reduce_melting_replica).
  std::vector<MeltingReplica> replicas;
  std::set<double> seen_K;  // every temperature of the tables, for the message below
  for (const fs::path& p : paths) {
    const TsvTable table = TsvTable::read(p);
    table.require_rising_steps();
    // Values no run writes (an audit's Q of −1 moved the melting temperature by 110 K).
    table.require_within("Q", 0.0, 1.0);
    table.require_within("T[K]", 0.0, std::numeric_limits<double>::infinity());
    table.require_within("Rg[A]", 0.0, std::numeric_limits<double>::infinity());
    for (const auto& w : table.warnings()) result.warnings.push_back(w);
    if (table.has("T[K]")) {  // a stair's rows share one temperature: one insert per stair
      const auto temperature = table.column("T[K]");
      for (std::size_t i = 0; i < temperature.size(); ++i)
        if (i == 0 || temperature[i] != temperature[i - 1]) seen_K.insert(temperature[i]);
    }
    replicas.push_back(reduce_melting_replica(table, schedule));
  }
  const MeltingAnalysis m = analyze_melting(replicas);
  if (m.stairs.size() < 2) {
    // Why: the run never left its first stair, or its rows are too sparse per stair.
    throw Error(options.run_dir.string(), 0, "",
                seen_K.size() < 2
                    ? std::string("the energy tables hold one temperature: the run ended within its first stair "
                                  "(run.steps at most [heating] every_steps), so there is no melting curve")
                    : fmt::format("the energy tables hold {} temperatures, but fewer than two stairs have 2 rows per "
                                  "replica in their second half: no melting curve; write energies more often "
                                  "([output] energy_every well below [heating] every_steps)",
                                  seen_K.size()));
  }
  std::vector<fs::path> every_planned = planned;
  add_every_analysis_file(out, every_planned);  // a pulling analysis's or spectrum's files too
  prepare_output_directory(out, every_planned, options.overwrite);

  {
    TsvWriter w = TsvWriter::create(out / "melting.tsv",
                                    {"T[K]", "replicas", "rows", "Q", "Q_sem", "Rg[A]", "Rg_sem[A]",
                                     "U_total[kcal/mol]", "heat_capacity[kcal/mol/K]", "heat_capacity_sem",
                                     "heat_capacity_pooled[kcal/mol/K]", "dU_dT[kcal/mol/K]"},
                                    options.overwrite);
    for (const MeltingStair& s : m.stairs) {
      const double row[] = {s.temperature_K, double(s.replicas), double(s.rows), s.q_mean, s.q_sem, s.rg_mean_A,
                            s.rg_sem_A, s.energy_mean_kcal_per_mol, s.heat_capacity_kcal_per_mol_K,
                            s.heat_capacity_sem, s.heat_capacity_pooled, s.energy_slope_kcal_per_mol_K};
      w.row(row);
    }
    w.flush();
  }
  result.files.push_back(out / "melting.tsv");

  Line q, q_err, cv;
  for (const MeltingStair& s : m.stairs) {
    q.x.push_back(s.temperature_K);
    q.y.push_back(s.q_mean);
    if (std::isfinite(s.q_sem)) {
      q_err.x.insert(q_err.x.end(), {s.temperature_K, s.temperature_K, kNaN});
      q_err.y.insert(q_err.y.end(), {s.q_mean - s.q_sem, s.q_mean + s.q_sem, kNaN});
    }
    cv.x.push_back(s.temperature_K);
    cv.y.push_back(s.heat_capacity_kcal_per_mol_K);
  }
  {
    SvgPlot plot(m.cooling ? "Folding curve (cooling)" : "Melting curve", "temperature [K]",
                 "fraction of native contacts Q");
    plot.set_y_range(0.0, 1.05);
    if (m.half_q_interval_K) {
      // The 95 % interval over the replicas as a shaded band; an end beyond the stairs is drawn
      // at the outermost stair (the summary says "above/below the stairs").
      const auto [t_min, t_max] = std::minmax_element(q.x.begin(), q.x.end());
      const double lo = std::clamp(m.half_q_interval_K->lo, *t_min, *t_max);
      const double hi = std::clamp(m.half_q_interval_K->hi, *t_min, *t_max);
      if (hi > lo) {
        const double edges[] = {lo, hi}, heights[] = {1.0};
        PlotStyle band = style(palette_color(1), 0.0);
        band.fill_opacity = 0.18;
        plot.bars(edges, heights, band, "95 % interval of Q = 1/2 over the replicas");
      }
    }
    plot.line(q_err.x, q_err.y, style(palette_color(0), 1.5), "± sem over replicas");
    plot.markers(q.x, q.y, Marker::circle, 5.0, marker_style(palette_color(0)), "Q, second half of each stair");
    if (m.half_q_temperature_K) {
      const double x[] = {*m.half_q_temperature_K, *m.half_q_temperature_K}, y[] = {0.0, 1.0};
      plot.line(x, y, style(palette_color(1), 1.5, "6,4"), fmt::format("Q = 1/2 at {} K", g(*m.half_q_temperature_K)));
    }
    plot.write(out / "melting_curve.svg", options.overwrite);
    result.files.push_back(out / "melting_curve.svg");
  }
  {
    Line pooled, slope;
    for (const MeltingStair& s : m.stairs) {
      pooled.x.push_back(s.temperature_K);
      pooled.y.push_back(s.heat_capacity_pooled);
    }
    std::vector<const MeltingStair*> by_temperature;
    for (const MeltingStair& s : m.stairs) by_temperature.push_back(&s);
    std::sort(by_temperature.begin(), by_temperature.end(),
              [](auto* a, auto* b) { return a->temperature_K < b->temperature_K; });
    for (const MeltingStair* s : by_temperature) {
      slope.x.push_back(s->temperature_K);
      slope.y.push_back(s->energy_slope_kcal_per_mol_K);
    }
    SvgPlot plot("Configurational heat capacity", "temperature [K]", "var(U)/(k_B T²) [kcal/mol/K]");
    plot.include_zero_y(true);
    plot.markers(cv.x, cv.y, Marker::square, 5.0, marker_style(palette_color(2)), "within replicas (mean)");
    plot.markers(pooled.x, pooled.y, Marker::diamond, 5.0, marker_style(palette_color(3)), "all replicas' rows pooled");
    plot.line(slope.x, slope.y, style(palette_color(4), 1.5, "6,4"), "d⟨U⟩/dT between stairs");
    if (m.heat_capacity_peak_K) plot.legend_note(fmt::format("peak at {} K", g(*m.heat_capacity_peak_K)));
    plot.write(out / "heat_capacity.svg", options.overwrite);
    result.files.push_back(out / "heat_capacity.svg");
  }

  const char* kind = m.cooling ? "cooling" : "heating";
  std::string summary = fmt::format("ermak analyze: {} curve of a {} run\n\n", m.cooling ? "folding" : "melting", kind);
  summary += fmt::format("run: {} ({} replica{}, energies.tsv each)\n", options.run_dir.string(), replicas.size(),
                         replicas.size() == 1 ? "" : "s");
  summary += "per temperature stair: the rows of its second half (the first lets the chain settle; the step-0 row, "
             "the input structure, is never used), averaged per replica, then over replicas (± sem); heat capacity "
             "var(U_total)/(k_B·T²) within each replica's rows, averaged over replicas (± sem), and of all "
             "replicas' rows pooled\n\n";
  summary += fmt::format("  {:>9} {:>8} {:>6} {:>18} {:>18} {:>14} {:>20} {:>12}\n", "T[K]", "replicas", "rows",
                         "Q ± sem", "Rg[A] ± sem", "U[kcal/mol]", "C[kcal/mol/K]", "C pooled");
  for (const MeltingStair& s : m.stairs)
    summary += fmt::format("  {:>9} {:>8} {:>6} {:>18} {:>18} {:>14} {:>20} {:>12}\n", g(s.temperature_K, 6),
                           s.replicas, s.rows, g(s.q_mean, 3) + " ± " + g(s.q_sem, 2),
                           g(s.rg_mean_A, 4) + " ± " + g(s.rg_sem_A, 2), g(s.energy_mean_kcal_per_mol, 5),
                           g(s.heat_capacity_kcal_per_mol_K, 3) + " ± " + g(s.heat_capacity_sem, 2),
                           g(s.heat_capacity_pooled, 3));
  auto temperatures = [](const std::vector<double>& list) {
    std::string text;
    for (double t : list) text += (text.empty() ? "" : ", ") + g(t) + " K";
    return text;
  };
  if (!m.cut_short_K.empty())
    summary += schedule.running
                   ? fmt::format("  left out: {} — the stair the run is in now (shorter than every_steps so far): the "
                                 "run is still running ({}; its lock is checkpoint.ckpt.lock); analyse it again once "
                                 "it has ended\n",
                                 temperatures(m.cut_short_K), *schedule.running)
               : schedule.run_error
                   ? fmt::format("  left out: {} — the stair the run stopped in (shorter than every_steps): the run "
                                 "ended with an error (run.log: \"{}\"), which --resume would repeat; {}\n",
                                 temperatures(m.cut_short_K), *schedule.run_error, kAfterAnError)
                   : fmt::format("  left out: {} — the stair the run stopped in (shorter than every_steps); resume "
                                 "the run to complete it\n",
                                 temperatures(m.cut_short_K));
  if (!m.too_few_rows_K.empty())
    summary += fmt::format("  left out: {} — fewer than 2 rows per replica in the stair's second half; write "
                           "energies more often (output.energy_every ≤ every_steps/4)\n",
                           temperatures(m.too_few_rows_K));
  if (!m.replicas_missing_stairs.empty()) {
    std::string names;
    for (std::size_t k = 0; k < m.replicas_missing_stairs.size() && k < 8; ++k)
      names += (k ? ", " : "") + paths[m.replicas_missing_stairs[k]].parent_path().filename().string();
    if (m.replicas_missing_stairs.size() > 8) names += fmt::format(" and {} more", m.replicas_missing_stairs.size() - 8);
    summary += fmt::format("  {} of {} replicas lack stairs the others hold ({}: tables cut short?): the table's "
                           "'replicas' column shows how many each stair averages; {}\n",
                           m.replicas_missing_stairs.size(), replicas.size(), names,
                           m.half_q_replicas ? fmt::format("the Q = 1/2 crossing uses the {} replicas that hold every "
                                                           "stair", m.half_q_replicas)
                                             : std::string("fewer than 2 replicas hold every stair, so the Q = 1/2 "
                                                           "crossing mixes replica sets: read it with care"));
  }
  // The crossing of the baselines' midpoint, with Q = 1/2 or without it: a protein whose
  // unfolded Q stays above 1/2 (Q_N + Q_U > 1) has only this one.
  const std::string midway_line =
      m.midpoint_temperature_K
          ? fmt::format("  midway between the first and last stairs' Q (({} + {})/2 = {}): {} K — T_m where "
                        "those stairs lie on the native and unfolded baselines\n",
                        g(*m.first_stair_q, 3), g(*m.last_stair_q, 3), g(*m.midpoint_q(), 3),
                        g(*m.midpoint_temperature_K))
          : std::string();
  std::string brief;
  const char* through = m.cooling ? "rises through" : "falls through";
  const std::string name = m.cooling ? "folding" : "melting";
  if (m.half_q_temperature_K) {
    summary += fmt::format("\n{} temperature (Q {} 1/2): {} K\n", name, through, g(*m.half_q_temperature_K));
    summary += "  (a two-state T_m is where Q crosses (Q_N + Q_U)/2, midway between the native and unfolded "
               "baselines: 1/2 only where Q_N + Q_U = 1; the heat-capacity peak estimates T_m)\n";
    summary += midway_line;
    std::string spread;
    if (m.half_q_interval_K) {
      const PercentileInterval& p = *m.half_q_interval_K;
      auto end = [&](double v) {
        return std::isinf(v) ? std::string(v > 0 ? "above the highest stair" : "below the lowest stair")
                             : g(v, 4) + " K";
      };
      spread = fmt::format("{} to {}", end(p.lo), end(p.hi));
      const std::size_t resampled = m.half_q_replicas ? m.half_q_replicas : replicas.size();
      summary += fmt::format("  95 % interval over the replicas: {} (the crossing of {} resamples of the {} "
                             "replicas, drawn with replacement{})\n",
                             spread, kMeltingBootstrapResamples, resampled,
                             resampled < 30 ? "; with fewer than ~30 replicas it is too narrow" : "");
    } else {
      summary += "  (one replica: no spread over replicas to give)\n";
    }
    brief = fmt::format("{} curve of {} temperatures: Q = 1/2 at {} K{}", name, m.stairs.size(),
                        g(*m.half_q_temperature_K), spread.empty() ? "" : " (95 %: " + spread + ")");
  } else {
    summary += fmt::format("\nQ does not {} 1/2 between {} and {} K (from {} at the first stair to {} at the last): "
                           "no {} temperature in this range\n",
                           m.cooling ? "rise through" : "fall through", g(m.stairs.front().temperature_K),
                           g(m.stairs.back().temperature_K), g(m.stairs.front().q_mean, 3),
                           g(m.stairs.back().q_mean, 3), name);
    brief = fmt::format("{} curve of {} temperatures: Q does not {} 1/2", name, m.stairs.size(),
                        m.cooling ? "rise through" : "fall through");
    summary += midway_line;
    if (m.midpoint_temperature_K)
      brief += fmt::format("; midway between its first and last stairs' Q at {} K", g(*m.midpoint_temperature_K));
  }
  if (m.heat_capacity_peak_K) {
    summary += fmt::format("heat capacity peak (within replicas): {} K\n", g(*m.heat_capacity_peak_K));
    brief += fmt::format("; heat capacity peak at {} K", g(*m.heat_capacity_peak_K));
  } else if (replicas.size() < 2) {
    summary += "heat capacity peak: needs 2 or more replicas (its test uses the sem over replicas)\n";
  } else {
    summary += "heat capacity: no stair inside the range lies more than 3 combined sem above both ends (a few rows "
               "per stair leave var(U) noisy: write energies more often or run longer stairs)\n";
  }
  if (!m.undersampled_K.empty())
    summary += fmt::format("note: the within-replica heat capacity is under half of d⟨U⟩/dT at {}: at equilibrium "
                           "the two agree, so U did not sample its fluctuations within those stairs (stairs too "
                           "short, or a change slower than a stair): run longer stairs before reading C\n",
                           temperatures(m.undersampled_K));
  summary += "\nNotes:\n- Q counts the native contacts within output.contact_formed_ratio × r0 (1.5 by default); "
             "a stair too short for the chain to settle shifts the curve (compare runs with other [heating] "
             "every_steps)\n"
             "- near the transition replicas may sit folded or unfolded for a whole stair: the within-replica heat "
             "capacity misses that difference, the pooled one holds it\n";
  summary += "\nFiles:\n";
  result.files.push_back(out / "summary.txt");
  for (const fs::path& p : result.files) summary += "  " + p.filename().string() + "\n";
  write_text_file(out / "summary.txt", summary, options.overwrite);
  result.brief = brief + "\n";
  return result;
}

}  // namespace ermak::analysis
