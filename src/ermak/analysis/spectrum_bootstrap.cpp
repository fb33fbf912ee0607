#include "ermak/analysis/spectrum_bootstrap.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <random>

#include "ermak/analysis/analysis_progress.h"
#include "ermak/analysis/bell_evans.h"
#include "ermak/analysis/dudko_hummer_szabo.h"

namespace ermak::analysis {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

BootstrapFits bootstrap_spectrum(const SpectrumSample& s, std::size_t resamples, std::uint64_t seed, bool with_dhs) {
  BootstrapFits out;
  out.bell_x_nm.assign(resamples, kNaN);
  out.bell_ln_k0.assign(resamples, kNaN);
  for (std::size_t k = 0; k < kBootstrapNu.size(); ++k) {
    out.dhs_x_nm[k].assign(with_dhs ? resamples : 0, kNaN);
    out.dhs_barrier_kT[k].assign(with_dhs ? resamples : 0, kNaN);
  }
  // The items of each level.
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < s.force_pN.size(); ++i) {
    if (s.level[i] >= groups.size()) groups.resize(s.level[i] + 1);
    groups[s.level[i]].push_back(i);
  }
  // A resample of 10³ censored forces takes seconds (docs/benchmarks.md): the first thread
  // says how far they are.
  AnalysisProgress progress("bootstrap resamples", resamples);
  std::atomic<std::size_t> finished{0};
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t b = 0; b < std::int64_t(resamples); ++b) {
    if (omp_get_thread_num() == 0) progress.update(finished.load(std::memory_order_relaxed));
    std::mt19937_64 generator(seed + std::uint64_t(b));
    std::vector<double> force, rate, time;
    std::vector<std::uint8_t> event;
    for (const std::vector<std::size_t>& items : groups) {
      if (items.empty()) continue;
      std::uniform_int_distribution<std::size_t> pick(0, items.size() - 1);
      for (std::size_t k = 0; k < items.size(); ++k) {
        const std::size_t i = items[pick(generator)];
        force.push_back(s.force_pN[i]);
        event.push_back(s.event[i]);
        if (s.clamp) time.push_back(s.time_s[i]);
        else rate.push_back(s.rate_pN_per_s[i]);
      }
    }
    const BellFit bell = s.clamp ? fit_bell_lifetimes(force, time, event, s.kT_pN_nm, false)
                                 : fit_bell_evans_ramps(force, rate, s.kT_pN_nm, event, false);
    if (bell.ok) {
      out.bell_x_nm[b] = bell.x_nm;
      out.bell_ln_k0[b] = std::log(bell.k0_per_s);
    }
    for (std::size_t k = 0; with_dhs && k < kBootstrapNu.size(); ++k) {
      const DhsFit dhs = s.clamp ? fit_dhs_lifetimes(force, time, event, s.kT_pN_nm, kBootstrapNu[k], false)
                                 : fit_dhs_ramps(force, rate, s.kT_pN_nm, kBootstrapNu[k], event, false);
      if (dhs.ok) {
        out.dhs_x_nm[k][b] = dhs.x_nm;
        out.dhs_barrier_kT[k][b] = dhs.barrier_kT;
      } else if (dhs.bell_limit && bell.ok) {
        // The resample prefers Bell's rate, DHS's limit ΔG‡ → ∞ with x‡ = x_β: left out, it
        // would cut the top off ΔG‡'s interval.
        out.dhs_x_nm[k][b] = bell.x_nm;
        out.dhs_barrier_kT[k][b] = std::numeric_limits<double>::infinity();
      }
    }
    finished.fetch_add(1, std::memory_order_relaxed);
  }
  return out;
}

}  // namespace ermak::analysis
