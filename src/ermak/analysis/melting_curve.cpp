#include "ermak/analysis/melting_curve.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
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

// One replica's rows at one temperature: the means over the second half of the stair.
struct ReplicaStair {
  double temperature_K = 0.0;
  std::size_t rows = 0;
  double q = 0.0, rg = 0.0, u = 0.0, u_variance = kNaN;
};

std::vector<ReplicaStair> replica_stairs(const TsvTable& t) {
  const auto temperature = t.column("T[K]"), q = t.column("Q"), rg = t.column("Rg[A]"),
             u = t.column("U_total[kcal/mol]");
  std::vector<ReplicaStair> out;
  for (std::size_t a = 0; a < t.rows();) {
    std::size_t b = a;
    while (b < t.rows() && temperature[b] == temperature[a]) ++b;
    // A lone last row at a new temperature is where the run stopped, not a stair it ran.
    if (b - a == 1 && b == t.rows() && a > 0) break;
    // The second half of the stair: the first half lets the chain settle at the new
    // temperature.
    const std::size_t from = a + (b - a) / 2;
    ReplicaStair s;
    s.temperature_K = temperature[a];
    s.rows = b - from;
    std::vector<double> us;
    for (std::size_t i = from; i < b; ++i) {
      s.q += q[i];
      s.rg += rg[i];
      us.push_back(u[i]);
    }
    s.q /= double(s.rows);
    s.rg /= double(s.rows);
    const SampleStatistics us_stats = describe(us);
    s.u = us_stats.mean;
    if (us.size() >= 2) s.u_variance = us_stats.sd * us_stats.sd;
    out.push_back(s);
    a = b;
  }
  return out;
}

}  // namespace

MeltingAnalysis analyze_melting(std::span<const TsvTable> replicas) {
  MeltingAnalysis m;
  // Stairs by temperature, in the order the first replica visits them.
  std::vector<double> order;
  std::map<double, std::vector<ReplicaStair>> by_temperature;
  for (const TsvTable& t : replicas)
    for (const ReplicaStair& s : replica_stairs(t)) {
      auto& list = by_temperature[s.temperature_K];
      if (list.empty() && std::find(order.begin(), order.end(), s.temperature_K) == order.end())
        order.push_back(s.temperature_K);
      list.push_back(s);
    }
  for (double temperature : order) {
    const auto& list = by_temperature[temperature];
    MeltingStair st;
    st.temperature_K = temperature;
    st.replicas = list.size();
    std::vector<double> q, rg, u, cv;
    for (const ReplicaStair& s : list) {
      st.rows += s.rows;
      q.push_back(s.q);
      rg.push_back(s.rg);
      u.push_back(s.u);
      // Configurational heat capacity: var(U)/(k_B·T²).
      cv.push_back(s.u_variance / (units::kBoltzmann_kcal_per_mol_K * temperature * temperature));
    }
    const SampleStatistics sq = describe(q), srg = describe(rg), scv = describe(cv);
    st.q_mean = sq.mean;
    st.q_sem = sq.sem;
    st.rg_mean_A = srg.mean;
    st.rg_sem_A = srg.sem;
    st.energy_mean_kcal_per_mol = describe(u).mean;
    st.heat_capacity_kcal_per_mol_K = scv.n ? scv.mean : kNaN;
    st.heat_capacity_sem = scv.sem;
    m.stairs.push_back(st);
  }
  for (std::size_t k = 1; k < m.stairs.size() && !m.half_q_temperature_K; ++k) {
    const MeltingStair &a = m.stairs[k - 1], &b = m.stairs[k];
    if ((a.q_mean - 0.5) * (b.q_mean - 0.5) <= 0.0 && a.q_mean != b.q_mean)
      m.half_q_temperature_K =
          a.temperature_K + (0.5 - a.q_mean) / (b.q_mean - a.q_mean) * (b.temperature_K - a.temperature_K);
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
    const double ends = std::max(by_t.front()->heat_capacity_kcal_per_mol_K, by_t.back()->heat_capacity_kcal_per_mol_K);
    if (top != by_t.begin() && top != by_t.end() - 1 && std::isfinite((*top)->heat_capacity_sem) &&
        (*top)->heat_capacity_kcal_per_mol_K - 3.0 * (*top)->heat_capacity_sem > ends)
      m.heat_capacity_peak_K = (*top)->temperature_K;
  }
  return m;
}

AnalyzeResult analyze_melting_run(const AnalyzeOptions& options, const std::vector<fs::path>& paths) {
  AnalyzeResult result;
  result.out_dir = options.out_dir.empty() ? options.run_dir / "analysis" : options.out_dir;
  const fs::path& out = result.out_dir;
  const std::vector<fs::path> planned = {out / "summary.txt", out / "melting.tsv", out / "melting_curve.svg",
                                         out / "heat_capacity.svg"};
  std::vector<TsvTable> tables;
  for (const fs::path& p : paths) {
    tables.push_back(TsvTable::read(p));
    tables.back().require_rising_steps();
    for (const auto& w : tables.back().warnings()) result.warnings.push_back(w);
  }
  const MeltingAnalysis m = analyze_melting(tables);
  if (m.stairs.size() < 2)
    throw Error(options.run_dir.string(), 0, "",
                "the energy tables hold fewer than two temperatures: no melting curve (a heating run's "
                "replica_NNN/energies.tsv, with energy_every well below [heating] every_steps)");
  prepare_output_directory(out, planned, options.overwrite);

  {
    TsvWriter w = TsvWriter::create(out / "melting.tsv",
                                    {"T[K]", "replicas", "rows", "Q", "Q_sem", "Rg[A]", "Rg_sem[A]",
                                     "U_total[kcal/mol]", "heat_capacity[kcal/mol/K]", "heat_capacity_sem"},
                                    options.overwrite);
    for (const MeltingStair& s : m.stairs) {
      const double row[] = {s.temperature_K, double(s.replicas), double(s.rows), s.q_mean, s.q_sem, s.rg_mean_A,
                            s.rg_sem_A, s.energy_mean_kcal_per_mol, s.heat_capacity_kcal_per_mol_K,
                            s.heat_capacity_sem};
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
    SvgPlot plot("Melting curve", "temperature [K]", "fraction of native contacts Q");
    plot.set_y_range(0.0, 1.05);
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
    SvgPlot plot("Configurational heat capacity", "temperature [K]", "var(U)/(k_B T²) [kcal/mol/K]");
    plot.include_zero_y(true);
    plot.markers(cv.x, cv.y, Marker::square, 5.0, marker_style(palette_color(2)), "each stair");
    if (m.heat_capacity_peak_K) plot.legend_note(fmt::format("peak at {} K", g(*m.heat_capacity_peak_K)));
    plot.write(out / "heat_capacity.svg", options.overwrite);
    result.files.push_back(out / "heat_capacity.svg");
  }

  std::string summary = "ermak analyze: melting curve of a heating run\n\n";
  summary += fmt::format("run: {} ({} replica{}, energies.tsv each)\n", options.run_dir.string(), tables.size(),
                         tables.size() == 1 ? "" : "s");
  summary += "per temperature stair: the rows of its second half (the first lets the chain settle), averaged per "
             "replica, then over replicas (± sem); heat capacity var(U_total)/(k_B·T²) within each replica's rows, "
             "averaged over replicas\n\n";
  summary += fmt::format("  {:>9} {:>8} {:>6} {:>18} {:>18} {:>14} {:>20}\n", "T[K]", "replicas", "rows", "Q ± sem",
                         "Rg[A] ± sem", "U[kcal/mol]", "C[kcal/mol/K]");
  for (const MeltingStair& s : m.stairs)
    summary += fmt::format("  {:>9} {:>8} {:>6} {:>18} {:>18} {:>14} {:>20}\n", g(s.temperature_K, 6), s.replicas,
                           s.rows, g(s.q_mean, 3) + " ± " + g(s.q_sem, 2), g(s.rg_mean_A, 4) + " ± " + g(s.rg_sem_A, 2),
                           g(s.energy_mean_kcal_per_mol, 5),
                           g(s.heat_capacity_kcal_per_mol_K, 3) + " ± " + g(s.heat_capacity_sem, 2));
  std::string brief;
  if (m.half_q_temperature_K) {
    summary += fmt::format("\nmelting temperature (Q falls through 1/2): {} K\n", g(*m.half_q_temperature_K));
    brief = fmt::format("melting curve of {} temperatures: Q = 1/2 at {} K", m.stairs.size(),
                        g(*m.half_q_temperature_K));
  } else {
    const auto [lo, hi] = std::minmax_element(m.stairs.begin(), m.stairs.end(), [](const auto& a, const auto& b) {
      return a.q_mean < b.q_mean;
    });
    summary += fmt::format("\nQ does not pass 1/2 between {} and {} K (it runs from {} to {}): no melting "
                           "temperature in this range\n",
                           g(m.stairs.front().temperature_K), g(m.stairs.back().temperature_K), g(hi->q_mean, 3),
                           g(lo->q_mean, 3));
    brief = fmt::format("melting curve of {} temperatures: Q stays {} 1/2", m.stairs.size(),
                        lo->q_mean > 0.5 ? "above" : "below");
  }
  if (m.heat_capacity_peak_K) {
    summary += fmt::format("heat capacity peak: {} K\n", g(*m.heat_capacity_peak_K));
    brief += fmt::format("; heat capacity peak at {} K", g(*m.heat_capacity_peak_K));
  } else {
    summary += "heat capacity: no peak inside the range more than 3 sem above both ends (a few rows per stair "
               "leave var(U) noisy: write energies more often or run longer stairs)\n";
  }
  summary += "\nNotes:\n- Q counts the native contacts within output.contact_formed_ratio × r0 (1.5 by default); "
             "a stair too short for the chain to settle shifts the curve to higher temperatures (compare a run "
             "with longer [heating] every_steps)\n";
  summary += "\nFiles:\n";
  result.files.push_back(out / "summary.txt");
  for (const fs::path& p : result.files) summary += "  " + p.filename().string() + "\n";
  write_text_file(out / "summary.txt", summary, options.overwrite);
  result.brief = brief + "\n";
  return result;
}

}  // namespace ermak::analysis
