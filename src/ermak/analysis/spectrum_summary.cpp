#include "ermak/analysis/spectrum_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "ermak/analysis/report_common.h"
#include "ermak/analysis/spectrum_fits.h"
#include "ermak/analysis/statistics.h"
#include "ermak/core/units.h"

namespace ermak::analysis {
namespace {


// "lo to hi" of a 95 % profile-likelihood interval; an open end (the likelihood does not fall
// far enough before the search bound) is written as the given text.
std::string interval_text(const ProfileInterval& interval, std::string_view open_lo, std::string_view open_hi) {
  if (!interval.ok) return "not found";
  return fmt::format("{} to {}",
                     interval.lo_open     ? std::string(open_lo)
                     : interval.lo_beyond ? "< " + g(interval.lo, 3)
                                          : g(interval.lo, 3),
                     interval.hi_open     ? std::string(open_hi)
                     : interval.hi_beyond ? "> " + g(interval.hi, 3)
                                          : g(interval.hi, 3));
}

ProfileInterval exp_of(ProfileInterval interval) {
  interval.lo = std::exp(interval.lo);
  interval.hi = std::exp(interval.hi);
  return interval;
}

const char* level_name_of(bool clamp) { return clamp ? "force" : "loading rate"; }
const char* levels_name_of(bool clamp) { return clamp ? "forces" : "loading rates"; }

}  // namespace

std::string spectrum_head_text(const std::vector<RunSpectrum>& runs, const std::vector<Level>& levels,
                               const SpectrumOptions& options, double kT) {
  const bool clamp = runs.front().clamp;
  const double temperature_K = runs.front().temperature_K;
  const char* level_name = level_name_of(clamp);
  const char* levels_name = levels_name_of(clamp);
  std::string summary = "ermak analyze: dynamic force spectrum\n\n";
  summary += fmt::format("runs: {} ({}{}), at {} K (kT = {} pN·nm; {})\n", runs.size(),
                         clamp ? "force clamps" : "constant-velocity pulling",
                         levels.size() < runs.size() ? fmt::format(" at {} {}", levels.size(),
                                                                   levels.size() == 1 ? level_name : levels_name)
                                                     : std::string(),
                         g(temperature_K), g(kT), runs.front().temperature_source);
  if (!clamp)
    summary += fmt::format("rupture force of a replica: its {} unfolding peak (--spectrum-peak), found as `ermak "
                           "analyze RUN_DIR` finds it with the same options; loading rate: {}\n",
                           options.peak == SpectrumPeak::first ? "first" : "largest",
                           options.rate_at_peak ? "the slope before each peak (--loading-rate peak)"
                                                : "the run's nominal κv (--loading-rate nominal)");
  else
    summary += fmt::format("lifetime of a replica: the time until its extension (as recorded) first reaches {} nm "
                           "(--unfolded-extension-nm); a replica that never does is censored at its last row\n",
                           g(*options.unfolded_extension_nm));
  if (levels.size() < runs.size()) {
    // A batch split over several directories is one sample: say which runs went together.
    summary += fmt::format("runs at one {} are pooled: one row, one point and one level of the fits, their replicas "
                           "together in every statistic (and resampled together by --bootstrap)\n",
                           level_name);
    for (const Level& l : levels) {
      if (l.runs.size() < 2) continue;
      const RunSpectrum& p = l.pooled;
      // The runs whose run.log states no clamp force, which made the level's test the measured forces.
      std::string without_stated;
      std::size_t n_without_stated = 0;
      for (std::size_t k : l.runs)
        if (!runs[k].nominal_clamp_force_pN) {
          without_stated += (without_stated.empty() ? "" : ", ") + runs[k].dir.string();
          ++n_without_stated;
        }
      summary += fmt::format("  {} = {} pN{}: runs {} ({} replicas){}\n", clamp ? "F" : "κv",
                             g(clamp ? p.clamp_force_pN : p.rate_pN_per_s, 6), clamp ? "" : "/s", l.directories,
                             p.replicas,
                             !clamp ? std::string()
                             : l.by_nominal_force
                                 ? std::string("; the clamp force their run.logs state")
                                 : fmt::format("; the run.log{} of {} state{} no clamp force: the runs' measured "
                                               "forces agree within {} %",
                                               n_without_stated == 1 ? "" : "s", without_stated,
                                               n_without_stated == 1 ? "s" : "",
                                               g(100.0 * kSameMeasuredClampForceRelative)));
    }
  }
  return summary;
}

BellText bell_fit_text(const BellFit& fit, const std::vector<RunSpectrum>& runs, const std::vector<Level>& levels,
                       double kT, bool rate_at_peak) {
  const bool clamp = runs.front().clamp;
  const char* level_name = level_name_of(clamp);
  std::string summary;
  std::string fit_text;
  if (fit.ok) {
    const double factor = std::exp(fit.ln_k0_se);
    fit_text = fmt::format("x_β = {} ± {} nm, k0 = {} /s (×/÷ {})", g(fit.x_nm), g(fit.x_se_nm, 2), g(fit.k0_per_s, 3),
                           g(factor, 3));
    // A replica censored with --no-peak censored enters the fit through its survival, not as a
    // rupture force: the count says so, as the clamp's does.
    summary += fmt::format("\nBell's rate k(F) = k0·exp(F·x_β/kT), maximum likelihood over {}:\n",
                           clamp ? fmt::format("{} trajectories ({} unfolded, the rest censored)", fit.n, fit.events)
                           : fit.events < fit.n
                               ? fmt::format("{} rupture forces and {} censored", fit.events, fit.n - fit.events)
                               : fmt::format("{} rupture forces", fit.n));
    summary += fmt::format("  x_β = {} ± {} nm, 95 % interval {} nm (distance to the barrier along the force)\n",
                           g(fit.x_nm), g(fit.x_se_nm, 2), interval_text(fit.x_interval_nm, "< 0.001", "> 20"));
    const ProfileInterval& k = fit.ln_k0_interval;
    summary += fmt::format("  k0  = {} /s, ln k0 = {} ± {}, 95 % interval {} ({} /s; the rate at zero force; {})\n",
                           g(fit.k0_per_s, 3), g(std::log(fit.k0_per_s)), g(fit.ln_k0_se, 2),
                           interval_text(k, "−∞", "∞"), interval_text(exp_of(k), "0", "∞"),
                           clamp ? fmt::format("τ0 = 1/k0 = {} s", g(1.0 / fit.k0_per_s, 3))
                                 : std::string("extrapolated far below the forces measured"));
    summary += fmt::format("  correlation of x_β and ln k0: {}; log-likelihood {}\n", g(fit.correlation, 3),
                           g(fit.log_likelihood, 6));
    if (!clamp) {
      // The classic reading: the mean force against ln κv, slope kT/x_β, one point per level
      // (runs at one κv pooled: a batch split in two is not two rates).
      std::vector<double> lx, my;
      for (const Level& l : levels)
        if (const RunSpectrum& r = l.pooled; !r.force_pN.empty()) {
          lx.push_back(std::log(r.table_rate_pN_per_s));
          my.push_back(describe(r.force_pN).mean);
        }
      const LinearFit line = fit_line(lx, my);
      if (line.ok && line.slope > 0.0)
        summary += fmt::format("  from the mean forces alone (least squares against ln {}, {} rates): slope {} pN "
                               "per e-fold, x_β = kT/slope = {} nm\n",
                               rate_at_peak ? "the median rate at the peaks of each κv" : "κv", line.n,
                               g(line.slope), g(kT / line.slope));
      summary += "  compare each rate's force mean with the model's (Bell mean; * for a level with censored replicas: "
                 "of the ruptures below the force they reached) in the table above: a mean far off (several sem) "
                 "says one barrier with a force-independent x_β does not describe that loading rate\n";
    } else {
      summary += "  compare each force's lifetime with the model's (Bell τ) in the table above\n";
    }
  } else {
    fit_text = "Bell's rate not fitted: " + fit.why_not;
    summary += "\n" + fit_text + "\n";
    // Runs of one batch split over several directories: the pooled row is what they give.
    if (levels.size() == 1 && runs.size() > 1)
      summary += fmt::format("  (every run is at one {}: the table above gives their {} replicas pooled)\n", level_name,
                             levels.front().pooled.replicas);
  }
  return {summary, fit_text};
}

std::string dhs_fits_text(const std::vector<DhsFit>& dhs, const BellFit& fit, double kT, double temperature_K) {
  std::string summary;
  // Beyond Bell: the DHS fits, and which model the data favour (Akaike: 2 parameters vs 3).
  summary += "\nDudko–Hummer–Szabo, k(F) = k0·c^{1/ν−1}·exp(ΔG‡/kT·(1 − c^{1/ν})), c = 1 − ν·F·x‡/ΔG‡:\n";
  for (const DhsFit& d : dhs) {
    const std::string shape = d.nu > 0.6 ? "ν = 2/3 (linear-cubic barrier)" : "ν = 1/2 (cusp barrier)";
    if (!d.ok) {
      summary += fmt::format("  {}: not fitted: {}\n", shape, d.why_not);
      continue;
    }
    const double f_c = d.critical_force_pN(kT);
    summary += fmt::format("  {}: x‡ = {} ± {} nm (95 % interval {}), ΔG‡ = {} ± {} kT (95 % interval {}; {} "
                           "kcal/mol), k0 = {} /s (ln k0 ± {}), critical force {} pN; log-likelihood {}",
                           shape, g(d.x_nm), g(d.x_se_nm, 2), interval_text(d.x_interval_nm, "< 0.001", "> 20"),
                           g(d.barrier_kT), g(d.barrier_se_kT, 2), interval_text(d.barrier_interval_kT, "< " + g(d.barrier_interval_kT.lo, 3), "∞"),
                           g(d.barrier_kT * units::kelvin_to_kcal_per_mol(temperature_K), 3), g(d.k0_per_s, 3), g(d.ln_k0_se, 2),
                           g(f_c), g(d.log_likelihood, 6));
    if (fit.ok) {
      // Akaike's criterion, 2·(parameters) − 2·ln L: a difference below 2 prefers neither.
      const double delta_aic = 2.0 * (3 - d.log_likelihood) - 2.0 * (2 - fit.log_likelihood);
      summary += fmt::format(", {} than Bell's by {}; AIC {}", d.log_likelihood > fit.log_likelihood ? "higher" : "lower",
                             g(std::abs(d.log_likelihood - fit.log_likelihood), 3),
                             std::abs(delta_aic) < 2.0 ? fmt::format("prefers neither (difference {} < 2)",
                                                                     g(std::abs(delta_aic), 4))
                             : delta_aic < 0.0 ? fmt::format("prefers it by {}", g(-delta_aic, 3))
                                               : fmt::format("prefers Bell's law by {}", g(delta_aic, 3)));
    }
    summary += "\n";
    if (d.largest_force_pN > 0.98 * f_c)
      summary += fmt::format("    the critical force sits at the largest force measured ({} pN, {} % of it): the fit "
                             "is held by that bound, and its standard errors understate the uncertainty (quote the "
                             "95 % intervals)\n",
                             g(d.largest_force_pN), g(100.0 * d.largest_force_pN / f_c, 3));
  }
  return summary;
}

std::string bootstrap_text(const BootstrapFits& boot, std::size_t resamples, const std::vector<Level>& levels,
                           const std::vector<std::size_t>& item_levels) {
  const bool clamp = levels.front().pooled.clamp;
  const char* level_name = level_name_of(clamp);
  const char* levels_name = levels_name_of(clamp);
  const std::size_t with_items = levels_with_items(levels);
  std::string summary;
  const std::size_t n = resamples;
  auto line = [&](const char* name, const std::vector<double>& values, const char* unit) {
    const PercentileInterval p = percentile_interval(values);
    if (p.finite == 0) return fmt::format("{} not fitted in any resample", name);
    auto end = [](double v) { return std::isinf(v) ? std::string(v > 0 ? "∞" : "−∞") : g(v, 3); };
    return fmt::format("{} {} to {}{}{}", name, end(p.lo), end(p.hi), unit,
                       p.finite < n ? fmt::format(" ({} of {} resamples fitted)", p.finite, n) : std::string());
  };
  summary += fmt::format("\nBootstrap, {} resamples of each {}'s {} (seed {}): 95 % percentile intervals of the "
                         "refitted parameters\n",
                         n, level_name, clamp ? "trajectories" : "forces", kBootstrapSeed);
  summary += "  Bell: " + line("x_β", boot.bell_x_nm, " nm") + ", " + line("ln k0", boot.bell_ln_k0, "") + "\n";
  for (std::size_t k = 0; k < kBootstrapNu.size(); ++k)
    summary += fmt::format("  DHS {}: {}, {}\n", k == 0 ? "ν = 2/3" : "ν = 1/2", line("x‡", boot.dhs_x_nm[k], " nm"),
                           line("ΔG‡", boot.dhs_barrier_kT[k], " kT"));
  // Resampling within a level of one or a few items cannot show their spread: with one
  // force per level every resample is the data set itself, and the interval is a point;
  // where only some levels have one, that level's force is the same in every resample and
  // only the others move the refits (docs/analysis.md#confidence-intervals).
  std::vector<std::size_t> items_per_level(levels.size(), 0);
  for (const std::size_t l : item_levels) ++items_per_level[l];
  std::size_t fewest = 0, most = 0;
  for (const std::size_t c : items_per_level) {
    if (c == 0) continue;
    fewest = fewest == 0 ? c : std::min(fewest, c);
    most = std::max(most, c);
  }
  const char* item = clamp ? "trajectory" : "force";
  const char* items = clamp ? "trajectories" : "forces";
  if (most == 1) {
    summary += fmt::format("  note: a {0} has only 1 {1}: resampled within each {0}, these intervals are too "
                           "narrow (every resample is the data itself: each interval is a point); quote the profile "
                           "intervals above, or give each {0} more replicas\n",
                           level_name, item);
  } else if (fewest > 0 && fewest < kBootstrapFewestItems) {
    // The levels of few items, by name: "level 1 (v1000, κv = 3.47e+07 pN/s): 1 force".
    std::string few, single;
    std::size_t n_few = 0, n_single = 0;
    for (std::size_t k = 0; k < levels.size(); ++k) {
      const std::size_t c = items_per_level[k];
      if (c == 0 || c >= kBootstrapFewestItems) continue;
      const RunSpectrum& p = levels[k].pooled;
      few += fmt::format("{}level {} ({}, {} = {} {}): {} {}", few.empty() ? "" : "; ", k, levels[k].directories,
                         clamp ? "F" : "κv", g(clamp ? p.clamp_force_pN : p.table_rate_pN_per_s, 4),
                         clamp ? "pN" : "pN/s", c, c == 1 ? item : items);
      ++n_few;
      if (c == 1) {
        single += fmt::format("{}level {}", single.empty() ? "" : ", ", k);
        ++n_single;
      }
    }
    summary += fmt::format(
        "  note: {} of {} {} {} fewer than {} {}: {}; resampled within each {}, these intervals are too narrow (a "
        "handful of values cannot show their spread){}; quote the profile intervals above, or give each {} more "
        "replicas\n",
        n_few, with_items, levels_name, n_few == 1 ? "has" : "have", kBootstrapFewestItems, items, few,
        level_name,
        n_single == 0 ? std::string()
                      : fmt::format("; {} {} one {}, the same in every resample: only the other {}' {} vary", single,
                                    n_single == 1 ? "has" : "have", item, levels_name, items),
        level_name);
  }
  return summary;
}

std::string spectrum_notes_text(const std::vector<RunSpectrum>& runs, const SpectrumOptions& options,
                                std::size_t censored) {
  const bool clamp = runs.front().clamp;
  std::string notes;
  if (!clamp) {
    std::size_t without = 0, analysed = 0;
    for (const RunSpectrum& r : runs) without += r.without_peak, analysed += r.replicas;
    if (without && options.censor_without_peak)
      notes += fmt::format("- {} of {} replicas show no unfolding peak: they enter the fits as censored at the "
                           "largest force they reached (--no-peak censored: they had not ruptured by then), {} "
                           "with a positive force; the force table's statistics are over the ruptures only. A "
                           "replica dragged open without a force drop is no survivor: check their curves\n",
                           without, analysed, censored);
    else if (without)
      notes += fmt::format("- {} of {} replicas show no unfolding peak and are not in the fit (a replica that "
                           "unfolds without a force drop above the peak criterion, or not at all, has no rupture "
                           "force; one that had not unfolded by the end of its run would have ruptured above every "
                           "force it reached, so leaving it out biases the fit towards lower forces)\n",
                           without, analysed);
    if (!options.rate_at_peak) {
      notes += "- the loading rate is the nominal κv of each run (run.log); the molecule's own compliance makes the "
               "rate at which the force rises before a peak lower, so x_β and k0 are those of the nominal rates "
               "(--loading-rate peak fits each force at the slope of its own rise)\n";
    } else {
      std::vector<double> ratio;
      for (const RunSpectrum& r : runs)
        for (double rate : r.peak_rate_pN_per_s) ratio.push_back(rate / r.rate_pN_per_s);
      const SampleStatistics q = describe(ratio);
      notes += fmt::format("- each force at its own loading rate, the slope of the force against time over the upper "
                           "half of the last climb to its peak (--loading-rate peak): {} of the nominal κv "
                           "(median; {} to {})\n",
                           g(q.median, 3), g(q.min, 3), g(q.max, 3));
      std::size_t without_rate = 0;
      for (const RunSpectrum& r : runs) without_rate += r.without_rate;
      if (without_rate)
        notes += fmt::format("- {} rupture force{} left out of everything (table, fit, notes): the rise before the "
                             "peak has fewer than 3 rows above its half-way force, or does not rise — the fastest "
                             "rises, so the rates kept lean low\n",
                             without_rate, without_rate == 1 ? " is" : "s are");
    }
    notes += "- each replica's peak criterion is automatic (8 × the noise of its smoothed force) unless "
             "--min-peak-drop-pN is given; for runs of very different speeds one --min-peak-drop-pN treats them "
             "alike\n";
  } else {
    std::size_t left = 0;
    for (const RunSpectrum& r : runs) left += r.starts_unfolded;
    if (left)
      notes += fmt::format("- {} replica{} started beyond the threshold and {} left out\n", left, left == 1 ? "" : "s",
                           left == 1 ? "is" : "are");
    notes += "- the lifetime of each force is Σt / (number unfolded), the exponential model's maximum-likelihood "
             "estimate with censoring, its standard error lifetime/√(number unfolded)\n";
  }
  for (const RunSpectrum& run : runs)
    if (!run.cut_note.empty()) notes += "- " + run.cut_note + "\n";
  return notes;
}

std::string spectrum_brief(const std::vector<RunSpectrum>& runs, const std::vector<Level>& levels,
                           const std::string& fit_text) {
  const bool clamp = runs.front().clamp;
  return fmt::format("dynamic force spectrum of {} {} runs{} at {} K: {}\n", runs.size(),
                     clamp ? "force-clamp" : "pulling",
                     levels.size() < runs.size()
                         ? fmt::format(" ({} {}, runs pooled)", levels.size(),
                                       levels.size() == 1 ? level_name_of(clamp) : levels_name_of(clamp))
                         : std::string(),
                     g(runs.front().temperature_K), fit_text);
}

}  // namespace ermak::analysis
