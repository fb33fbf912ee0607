#include "ermak/analysis/spectrum_tables.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "ermak/analysis/clamp_lifetimes.h"
#include "ermak/analysis/statistics.h"
#include "ermak/io/tsv_writer.h"

namespace ermak::analysis {
namespace {

namespace fs = std::filesystem;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Segments (x, lo)–(x, hi) as one polyline broken by NaN points.
void add_segment(Line& line, double x, double lo, double hi) {
  line.x.insert(line.x.end(), {x, x, kNaN});
  line.y.insert(line.y.end(), {lo, hi, kNaN});
}

}  // namespace

LevelTable write_level_table(const fs::path& path, const std::vector<Level>& levels, const SpectrumFits& fits,
                             double kT, const SpectrumOptions& options) {
  const bool clamp = levels.front().pooled.clamp;
  const BellFit& fit = fits.bell;
  const DhsFit& cubic = fits.dhs.front();
  LevelTable table;
  Line& spread_lines = table.points.spread_lines;
  Line& observed_x = table.points.observed_x;
  Line& points_x = table.points.points_x;
  std::vector<std::string> columns =
      clamp ? std::vector<std::string>{"level", "force[pN]", "replicas", "unfolded", "lifetime[s]",
                                       "lifetime_se[s]", "median_time[s]", "cv", "model_lifetime[s]",
                                       "dhs_lifetime[s]", "runs"}
            : std::vector<std::string>{"level", "loading_rate[pN/s]", "replicas", "with_peak", "force_mean[pN]",
                                       "force_sd[pN]", "force_sem[pN]", "force_median[pN]", "model_mean[pN]",
                                       "model_mode[pN]", "dhs_mean[pN]", "runs", "model_mean_below_censoring[pN]"};
  TsvWriter w = TsvWriter::create(path, columns, options.overwrite);
  if (clamp)
    table.text += fmt::format("\n  {:>5} {:>10} {:>8} {:>9} {:>20} {:>12} {:>6} {:>14}  {}\n", "level", "force[pN]",
                              "replicas", "unfolded", "lifetime[s]", "median[s]", "CV", "Bell τ[s]", "directories");
  else
    table.text += fmt::format("\n  {:>5} {:>12} {:>8} {:>9} {:>22} {:>10} {:>10} {:>10}  {}\n", "level",
                              options.rate_at_peak ? "dF/dt[pN/s]" : "κv[pN/s]",
                              "replicas", "with peak", "force mean ± sd (sem)", "median", "Bell mean", "Bell mode",
                              "directories");
  std::string censored_footnotes;
  for (std::size_t k = 0; k < levels.size(); ++k) {
    const RunSpectrum& r = levels[k].pooled;
    const std::string& directories = levels[k].directories;
    const double runs_pooled = double(levels[k].runs.size());
    if (clamp) {
      const SampleStatistics f = describe(r.force_pN);
      double sum_t = 0.0;
      std::size_t events = 0;
      std::vector<double> unfolded_times;
      for (std::size_t i = 0; i < r.time_s.size(); ++i) {
        sum_t += r.time_s[i];
        if (r.unfolded[i]) ++events, unfolded_times.push_back(r.time_s[i]);
      }
      // The exponential lifetime's maximum-likelihood estimate with censoring.
      const double tau = events ? sum_t / double(events) : kNaN;
      const double tau_se = events ? tau / std::sqrt(double(events)) : kNaN;
      // The median of all times is a lifetime statistic only when more than half unfolded
      // (the censored times all lie above it).
      const double median = 2 * events > r.time_s.size() ? describe(r.time_s).median : kNaN;
      // Exponential lifetimes have a coefficient of variation of 1; far less says a lag
      // or a chain dragged open rather than one barrier crossed (computed over the
      // unfolded times when none is censored, where it means that).
      const SampleStatistics unfolded_stats = describe(unfolded_times);
      const double cv = events == r.time_s.size() && events >= 2 ? unfolded_stats.sd / unfolded_stats.mean : kNaN;
      if (far_less_varied_than_exponential(cv, events))
        table.few_spread_notes += fmt::format(
            "- {} pN ({}): the unfolding times vary far less than exponential lifetimes do (CV {}, "
            "1 for one barrier): a lag before unfolding or a chain dragged open, which Bell's law does not "
            "describe; use lower forces\n",
            g(f.mean), directories, g(cv, 2));
      const double model = fit.ok ? 1.0 / (fit.k0_per_s * std::exp(f.mean * fit.x_nm / kT)) : kNaN;
      const double dhs_model = cubic.ok ? 1.0 / dhs_rate_per_s(cubic, f.mean, kT) : kNaN;
      if (fit.ok && events >= 2 && std::abs(tau - model) > 3.0 * tau_se)
        table.off_model_notes += fmt::format(
            "- {} ({} pN): lifetime {} s, {} se from Bell's {} s: one barrier with a fixed x_β does not describe "
            "this force (a lag or a chain dragged open at high forces, other pathways at any)\n",
            directories, g(f.mean), g(tau), g((tau - model) / tau_se, 2), g(model));
      const double row[] = {f.mean, double(r.replicas), double(events), tau, tau_se, median, cv, model, dhs_model,
                            runs_pooled};
      w.row(std::int64_t(k), row);
      table.text += fmt::format("  {:>5} {:>10} {:>8} {:>9} {:>20} {:>12} {:>6} {:>14}  {}\n", k, g(f.mean),
                                r.replicas, events, events ? g(tau) + " ± " + g(tau_se, 2) : "n/a", g(median),
                                g(cv, 2), g(model), directories);
      if (events) {
        add_segment(spread_lines, f.mean, std::log10(tau - tau_se > 0 ? tau - tau_se : tau / 10),
                    std::log10(tau + tau_se));
        observed_x.x.push_back(f.mean);
        observed_x.y.push_back(std::log10(tau));
      }
      for (double t : unfolded_times) {
        points_x.x.push_back(f.mean);
        points_x.y.push_back(std::log10(t));
      }
    } else {
      // The model's values are those at the level's table rate.
      const double rate = r.table_rate_pN_per_s;
      const SampleStatistics s = describe(r.force_pN);
      const double model_mean = fit.ok ? bell_evans_mean_pN(fit, rate, kT) : kNaN;
      const double model_mode = fit.ok ? bell_evans_mode_pN(fit, rate, kT) : kNaN;
      const double dhs_mean = cubic.ok ? dhs_mean_force_pN(cubic, rate, kT) : kNaN;
      // With replicas censored at the end of their record (--no-peak censored), the ruptures seen
      // are those below the record's end: Bell's mean of those is the comparison, not the
      // untruncated mean (an audit's exact Bell data, half censored, was called "not Bell").
      const double censored_at = r.censored_force_pN.empty() ? kNaN : describe(r.censored_force_pN).median;
      const double mean_below = std::isnan(censored_at) || !fit.ok ? kNaN
                                                                   : bell_evans_mean_below_pN(fit, rate, kT, censored_at);
      const double compared_mean = std::isnan(censored_at) ? model_mean : mean_below;
      const double row[] = {rate, double(r.replicas), double(r.force_pN.size()), s.mean, s.sd,
                            s.sem, s.median, model_mean, model_mode, dhs_mean, runs_pooled, mean_below};
      w.row(std::int64_t(k), row);
      table.text += fmt::format("  {:>5} {:>12} {:>8} {:>9} {:>22} {:>10} {:>10} {:>10}  {}\n", k, g(rate),
                                r.replicas, r.force_pN.size(),
                                s.n ? g(s.mean) + " ± " + g(s.sd, 3) + " (" + g(s.sem, 2) + ")" : "n/a", g(s.median),
                                std::isnan(censored_at) ? g(model_mean) : g(mean_below) + "*", g(model_mode),
                                directories);
      if (!std::isnan(censored_at))
        censored_footnotes += fmt::format(
            "  * level {}: Bell's mean of the ruptures below {} pN, the median force its {} censored replicas "
            "reached, comparable with the mean of its ruptures (the untruncated mean: {} pN)\n",
            k, g(censored_at), r.censored_force_pN.size(), g(model_mean));
      const std::string compared =
          std::isnan(censored_at)
              ? fmt::format("Bell's {} pN", g(model_mean))
              : fmt::format("Bell's {} pN for ruptures below the {} pN its {} censored replicas reached (median)",
                            g(compared_mean), g(censored_at), r.censored_force_pN.size());
      if (fit.ok && s.n > 1 && std::abs(s.mean - compared_mean) > 3.0 * s.sem)
        table.off_model_notes += fmt::format(
            "- {} (rate {} pN/s): mean force {} pN, {} sem from {} (Dudko–Hummer–Szabo, ν = 2/3: {} "
            "pN): one barrier with a fixed x_β does not describe this rate (at high rates a chain dragged "
            "open; at any rate other transitions or pathways; with --spectrum-peak first, different "
            "transitions at different speeds)\n",
            directories, g(rate), g(s.mean), g((s.mean - compared_mean) / s.sem, 2), compared, g(dhs_mean));
      const double x = std::log10(rate);
      if (s.n > 1) add_segment(spread_lines, x, s.mean - s.sd, s.mean + s.sd);
      if (s.n) {
        observed_x.x.push_back(x);
        observed_x.y.push_back(s.mean);
      }
      for (std::size_t i = 0; i < r.force_pN.size(); ++i) {
        const double own_rate = options.rate_at_peak ? r.peak_rate_pN_per_s[i] : rate;
        if (!(own_rate > 0.0)) continue;
        points_x.x.push_back(std::log10(own_rate));
        points_x.y.push_back(r.force_pN[i]);
      }
    }
  }
  w.flush();
  table.text += censored_footnotes;
  return table;
}

void write_item_table(const fs::path& path, const std::vector<RunSpectrum>& runs, const std::vector<Level>& levels,
                      bool rate_at_peak, bool overwrite) {
  const bool clamp = runs.front().clamp;
  TsvWriter w = TsvWriter::create(path,
                                  clamp ? std::vector<std::string>{"run", "replica", "force[pN]", "time[s]", "unfolded",
                                                                   "level"}
                                        : std::vector<std::string>{"run", "replica", "loading_rate[pN/s]",
                                                                   "force[pN]", "peak", "rate_at_peak[pN/s]",
                                                                   "ruptured", "level", "fit_rate[pN/s]"},
                                  overwrite);
  // Row by row in the order of the runs given, each at its level's rate or force; a ramp's force
  // also at the rate the fits take it at (spectrum_items: with --loading-rate peak the slope
  // before its peak, not the level's κv; appended last, the earlier columns keep their places).
  std::vector<std::size_t> level_of(runs.size());
  for (std::size_t l = 0; l < levels.size(); ++l)
    for (const std::size_t k : levels[l].runs) level_of[k] = l;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const RunSpectrum& r = runs[k];
    const RunSpectrum& level = levels[level_of[k]].pooled;
    const double l = double(level_of[k]);
    for (std::size_t i = 0; i < r.force_pN.size(); ++i) {
      if (clamp) {
        const double row[] = {double(r.replica[i]), level.clamp_force_pN, r.time_s[i], double(r.unfolded[i]), l};
        w.row(std::int64_t(k), row);
      } else {
        const double fit_rate = rate_at_peak ? r.peak_rate_pN_per_s[i] : level.rate_pN_per_s;
        const double row[] = {double(r.replica[i]), level.rate_pN_per_s, r.force_pN[i], double(r.peak[i]),
                              r.peak_rate_pN_per_s[i], 1.0, l, fit_rate};
        w.row(std::int64_t(k), row);
      }
    }
    for (std::size_t i = 0; i < r.censored_force_pN.size(); ++i) {
      // Censored forces are refused with --loading-rate peak: they enter at the κv.
      const double row[] = {double(r.censored_replica[i]), level.rate_pN_per_s, r.censored_force_pN[i], -1.0, kNaN,
                            0.0, l, level.rate_pN_per_s};
      w.row(std::int64_t(k), row);
    }
  }
  w.flush();
}

void write_bootstrap_table(const fs::path& path, const BootstrapFits& boot, std::size_t resamples, bool overwrite) {
  TsvWriter w = TsvWriter::create(path,
                                  {"resample", "bell_x[nm]", "bell_ln_k0", "dhs_2/3_x[nm]", "dhs_2/3_barrier[kT]",
                                   "dhs_1/2_x[nm]", "dhs_1/2_barrier[kT]"},
                                  overwrite);
  for (std::size_t b = 0; b < resamples; ++b) {
    const double row[] = {boot.bell_x_nm[b],         boot.bell_ln_k0[b],         boot.dhs_x_nm[0][b],
                          boot.dhs_barrier_kT[0][b], boot.dhs_x_nm[1][b],        boot.dhs_barrier_kT[1][b]};
    w.row(std::int64_t(b), row);
  }
  w.flush();
}

}  // namespace ermak::analysis
