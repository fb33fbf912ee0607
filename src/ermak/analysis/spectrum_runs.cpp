#include "ermak/analysis/spectrum_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "ermak/analysis/analysis_progress.h"
#include "ermak/analysis/chain_contour.h"
#include "ermak/analysis/clamp_lifetimes.h"
#include "ermak/analysis/report_common.h"
#include "ermak/analysis/run_directory.h"
#include "ermak/analysis/run_pool.h"
#include "ermak/analysis/statistics.h"
#include "ermak/analysis/tsv_table.h"
#include "ermak/analysis/wlc.h"
#include "ermak/core/error.h"
#include "ermak/core/units.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;

// One run directory's replicas, analysed as `ermak analyze RUN_DIR` analyses them.
RunSpectrum read_run(const fs::path& dir, const SpectrumOptions& options, std::vector<std::string>& warnings,
                     AnalysisProgress& progress) {
  RunSpectrum run;
  run.dir = dir;
  const RunLogFacts facts = read_run_log(dir);
  run.model_size = facts.model_size;
  if (options.temperature_K) {
    run.temperature_K = *options.temperature_K;
    run.temperature_source = "--temperature-K";
  } else if (facts.temperature_error) {
    throw *facts.temperature_error;
  } else if (facts.temperature_K) {
    run.temperature_K = *facts.temperature_K;
    run.temperature_source = facts.heating ? "start of its heating schedule, run.log" : "run.log";
  } else {
    run.temperature_source = "default; run.log gives none";
  }
  CurveSettings settings = options.settings;
  settings.wlc.kT = kT_pN_nm(run.temperature_K);
  settings.loading_rate_pN_per_s = facts.summed_loading_rate_pN_per_s();
  bool kind_known = false;
  // A heating run without a force protocol has a melting curve, which is no level of a
  // spectrum: said as a plane or indentation run is (docs/analysis.md#dynamic-force-spectrum).
  if (facts.heating && !energy_tables_of_a_run_without_protocol(dir).empty())
    throw Error(dir.string(), 0, "",
                "a heating run without a force protocol ([heating] in its run.log): a dynamic force spectrum takes "
                "constant-velocity pulling or force-clamp runs; a heating run's melting curve is analysed on its "
                "own: ermak analyze " + dir.string());
  std::vector<std::string> without_table;
  const std::vector<Replica> replicas = discover_replicas(dir, &without_table);
  // A pulling or clamp run that also heats: its forces or lifetimes are over a temperature
  // that changes while they are measured, which Bell's law at one kT does not describe —
  // refused as a force schedule is (docs/analysis.md#dynamic-force-spectrum).
  if (facts.temperature_changes() &&
      std::any_of(replicas.begin(), replicas.end(), [](const Replica& r) { return r.pulling; }))
    throw Error(dir.string(), 0, "",
                fmt::format("a {} run that heats ([heating] in its run.log: {}): its {} are measured over a "
                            "changing temperature, and the spectrum fits Bell's law at one temperature; give runs "
                            "at one temperature ([run] temperature_K, no [heating])",
                            facts.protocol_table == "[force_clamp]" ? "force-clamp"
                            : facts.protocol_table == "[pulling]"   ? "pulling"
                                                                    : "pulling or clamp",
                            facts.heating_text(),
                            facts.protocol_table == "[force_clamp]" ? "lifetimes"
                            : facts.protocol_table == "[pulling]"   ? "rupture forces"
                                                                    : "forces or lifetimes"));
  for (const std::string& name : without_table)
    warnings.push_back((dir / name).string() + ": no pulling.tsv, which the other replicas have; replica left out of "
                                               "the spectrum");
  double last_step = -1.0;
  for (const Replica& r : replicas) {
    progress.advance();
    if (!r.pulling) continue;
    const TsvTable table = TsvTable::read(r.dir / "pulling.tsv");
    table.require_rising_steps();
    for (const auto& w : table.warnings()) warnings.push_back(w);
    const PullingAnalysis a = analyze_pulling(table, settings);
    if (!a.step.empty()) last_step = std::max(last_step, a.step.back());
    if (a.rows < 2) {
      warnings.push_back(table.source() + ": fewer than two rows; replica left out of the spectrum");
      continue;
    }
    if (kind_known && a.force_clamp != run.clamp)
      throw Error(table.source(), 0, "",
                  "this run mixes force-clamp and constant-velocity replicas; a spectrum takes runs of one kind");
    run.clamp = a.force_clamp;
    kind_known = true;
    ++run.replicas;
    if (!run.clamp) {
      if (a.peaks.empty()) {
        ++run.without_peak;
        if (options.censor_without_peak) {
          run.censored_replica.push_back(r.index);
          run.censored_force_pN.push_back(*std::max_element(a.force_pN.begin(), a.force_pN.end()));
        }
        continue;
      }
      std::size_t k = 0;
      if (options.peak == SpectrumPeak::largest)
        for (std::size_t j = 1; j < a.peaks.size(); ++j)
          if (a.peaks[j].peak.force > a.peaks[k].peak.force) k = j;
      if (options.rate_at_peak && !(a.peaks[k].loading_rate_pN_per_s > 0.0)) {
        ++run.without_rate;  // left out of every statistic alike
        continue;
      }
      run.replica.push_back(r.index);
      run.force_pN.push_back(a.peaks[k].peak.force);
      run.peak.push_back(int(k));
      run.peak_rate_pN_per_s.push_back(a.peaks[k].loading_rate_pN_per_s);
      continue;
    }
    // First passage of the recorded extension: a running average would let a trajectory
    // that unfolds within half a window of the start look unfolded from its first row.
    // A force schedule also holds the base still, but its force changes: Bell's lifetime at
    // one force does not describe it.
    const auto [f_lo, f_hi] = std::minmax_element(a.force_raw_pN.begin(), a.force_raw_pN.end());
    if (is_force_schedule(*f_lo, *f_hi, a.mean_force_pN))
      throw Error(table.source(), 0, "force_along[pN]",
                  fmt::format("the clamp force runs from {} to {} pN: a force schedule, not a clamp at one force; "
                              "the spectrum fits lifetimes at constant forces",
                              g(*f_lo), g(*f_hi)));
    const double threshold = *options.unfolded_extension_nm;
    const std::vector<double>& x = a.extension_raw_nm;
    run.extension_max_nm = std::max(run.extension_max_nm, largest_extension_nm(a));
    if (x.front() >= threshold) {
      ++run.starts_unfolded;
      warnings.push_back(fmt::format("{}: the extension starts at {} nm, at or beyond --unfolded-extension-nm {}: "
                                     "replica left out of the lifetimes",
                                     table.source(), g(x.front()), g(threshold)));
      continue;
    }
    std::size_t i = 0;
    while (i < a.rows && x[i] < threshold) ++i;
    const bool unfolded = i < a.rows;
    run.replica.push_back(r.index);
    run.force_pN.push_back(a.mean_force_pN);
    run.time_s.push_back((a.time_ns[unfolded ? i : a.rows - 1] - a.time_ns.front()) * 1e-9);
    run.unfolded.push_back(unfolded ? 1 : 0);
  }
  if (!kind_known) {
    // A run of another protocol is named as what it is (docs/analysis.md#dynamic-force-spectrum).
    const std::string kind = facts.protocol_table == "[plane_pulling]" ? "a plane-pulling run"
                             : facts.protocol_table == "[indentation]" ? "an indentation run"
                                                                       : "";
    throw Error(dir.string(), 0, "",
                (kind.empty() ? std::string("no replica_NNN/pulling.tsv with rows here") : kind + " (" +
                                    facts.protocol_table + " in its run.log)") +
                    ": runs analysed together — a dynamic force spectrum, or a pool of runs of one condition — "
                    "are constant-velocity pulling or force-clamp runs" +
                    (kind.empty() ? std::string() : "; analyse it on its own: ermak analyze " + dir.string()));
  }
  if (!run.clamp) {
    if (!fs::exists(dir / "run.log"))
      throw Error((dir / "run.log").string(), 0, "",
                  "not found: the spectrum takes each pulling run's loading rate κv from its run.log");
    if (!facts.loading_rate_pN_per_s)
      throw Error((dir / "run.log").string(), 0, "",
                  "states no loading rate (\"loading rate κv = … pN/s\"), which the spectrum needs for each run: "
                  "analyse output directories of `ermak run` with their run.log");
    run.rate_pN_per_s = *facts.summed_loading_rate_pN_per_s();  // the rupture force is the springs' sum
  } else {
    run.clamp_force_pN = describe(run.force_pN).mean;
    run.nominal_clamp_force_pN = facts.clamp_force_pN;
    if (facts.extension_ends) {
      run.ends = *facts.extension_ends;
      run.contour_nm = contour_length_between_nm(dir, run.ends.first, run.ends.second);
    }
  }
  // A run that ended with an error, or stopped early, enters with the part it ran: say so
  // (its forces, or a clamp's censored times, cover only that part).
  if (facts.run_steps && last_step >= 0 && last_step < double(*facts.run_steps)) {
    run.cut_note = facts.run_error
                       ? fmt::format("{}: its tables end at step {} of its {}: the run ended with an error (run.log: "
                                     "\"{}\"); it enters with that part",
                                     dir.string(), g(last_step, 12), *facts.run_steps, *facts.run_error)
                       : fmt::format("{}: its tables end at step {} of its {}: a run stopped early (--resume continues "
                                     "it); it enters with that part",
                                     dir.string(), g(last_step, 12), *facts.run_steps);
    warnings.push_back(run.cut_note);
  }
  return run;
}

// A spectrum is of one protein: runs whose logs state models of other sizes (another
// protein, a mutant's contacts, another topology) are named — a warning, since run.log
// holds no fingerprint of the model itself.
void warn_of_other_models(const std::vector<RunSpectrum>& runs, std::vector<std::string>& warnings) {
  // Compared with the first run whose log states its model.
  const auto stated = std::find_if(runs.begin(), runs.end(), [](const RunSpectrum& r) { return r.model_size; });
  for (const RunSpectrum& r : runs)
    if (stated != runs.end() && r.model_size && *r.model_size != *stated->model_size) {
      warnings.push_back(fmt::format("{}: its model ({}) is not that of {} ({}): a spectrum fits the runs of "
                                     "one protein as one",
                                     r.dir.string(), *r.model_size, stated->dir.string(), *stated->model_size));
    }
}

}  // namespace

void refuse_spectrum_option(const std::string& option, const std::string& what) {
  throw Error(option + ": " + what);
}

std::vector<RunSpectrum> read_spectrum_runs(const SpectrumOptions& options, std::vector<std::string>& warnings) {
  const auto bad = refuse_spectrum_option;
  // One progress count over the replicas of every run (an unreadable run directory counts
  // none here and is named by read_run).
  std::size_t all_replicas = 0;
  for (const fs::path& dir : options.run_dirs) {
    try {
      all_replicas += discover_replicas(dir).size();
    } catch (const Error&) {
    }
  }
  // The runs' kinds from their logs first (cheap): runs of two kinds are named before an
  // option that one kind needs and the other refuses sends the user round in a loop, in
  // either order of the runs (an audit's clamp run first).
  std::optional<std::pair<fs::path, std::string>> first_kind;
  for (const fs::path& dir : options.run_dirs) {
    const std::string kind = read_run_log(dir).protocol_table;
    if (kind != "[pulling]" && kind != "[force_clamp]") continue;
    if (!first_kind) {
      first_kind = {dir, kind};
    } else if (kind != first_kind->second) {
      auto words = [](const std::string& k) { return k == "[force_clamp]" ? "force-clamp" : "constant-velocity"; };
      throw Error(dir.string(), 0, "",
                  std::string("a ") + words(kind) + " run, but " + first_kind->first.string() + " is a " +
                      words(first_kind->second) + " run (their run.logs): a spectrum takes runs of one kind");
    }
  }
  AnalysisProgress progress("replicas", all_replicas);
  std::vector<RunSpectrum> runs;
  std::vector<fs::path> seen;
  for (const fs::path& dir : options.run_dirs) {
    std::error_code canonical_error;
    const fs::path same = fs::weakly_canonical(dir, canonical_error);
    for (std::size_t k = 0; k < seen.size(); ++k)
      if (!canonical_error && same == seen[k])
        throw Error(dir.string(), 0, "",
                    "given twice (also as " + options.run_dirs[k].string() +
                        "): each run's replicas may enter the fit once");
    seen.push_back(same);
    // Clamp runs need the threshold; find out the kind first with a placeholder, which is
    // only used when the run is a clamp and the option was given.
    SpectrumOptions o = options;
    if (!o.unfolded_extension_nm) o.unfolded_extension_nm = std::numeric_limits<double>::infinity();
    RunSpectrum run = read_run(dir, o, warnings, progress);
    // Runs of two kinds first: asked for the threshold instead, a user who gives it is then
    // told it does not apply to the pulling run — round in a loop.
    if (!runs.empty() && run.clamp != runs.front().clamp)
      throw Error(dir.string(), 0, "",
                  std::string("a ") + (run.clamp ? "force-clamp" : "constant-velocity") + " run, but " +
                      runs.front().dir.string() + " is a " + (run.clamp ? "constant-velocity" : "force-clamp") +
                      " run: a spectrum takes runs of one kind");
    if (run.clamp && !options.unfolded_extension_nm)
      bad("--unfolded-extension-nm",
          "force-clamp runs need the extension at which a trajectory counts as unfolded, nm (for example 8 for "
          "the WW domain pulled by its ends; docs/analysis.md#dynamic-force-spectrum)");
    if (!run.clamp && options.unfolded_extension_nm)
      bad("--unfolded-extension-nm", "applies to force-clamp runs; " + dir.string() + " is a pulling run");
    if (run.clamp && options.peak_given)
      bad("--spectrum-peak", "applies to pulling runs; " + dir.string() + " is a force-clamp run");
    if (run.clamp && options.rate_at_peak)
      bad("--loading-rate", "applies to pulling runs; " + dir.string() + " is a force-clamp run");
    if (run.clamp && options.censor_without_peak)
      bad("--no-peak", "applies to pulling runs (a clamp censors its own trajectories); " + dir.string() +
                           " is a force-clamp run");
    if (!runs.empty() && std::abs(run.temperature_K - runs.front().temperature_K) > kSameTemperature_K)
      throw Error(dir.string(), 0, "",
                  fmt::format("the run is at {} K ({}), {} at {} K ({}): Bell's law is fitted at one temperature "
                              "(give --temperature-K to analyse them as one)",
                              g(run.temperature_K), run.temperature_source, runs.front().dir.string(),
                              g(runs.front().temperature_K), runs.front().temperature_source));
    runs.push_back(std::move(run));
  }
  warn_of_other_models(runs, warnings);
  return runs;
}

}  // namespace ermak::analysis
