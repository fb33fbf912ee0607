#include "ermak/analysis/spectrum_levels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ermak/analysis/run_pool.h"
#include "ermak/analysis/statistics.h"

namespace ermak::analysis {
namespace {

bool within(double a, double b, double relative) {
  return std::abs(a - b) <= relative * std::max(std::abs(a), std::abs(b));  // false for NaN
}

// Whether run b belongs to the level whose first run is a; `by_nominal` says which forces
// decided it for a clamp.
bool same_level(const RunSpectrum& a, const RunSpectrum& b, bool& by_nominal) {
  by_nominal = false;
  if (!a.clamp) return within(a.rate_pN_per_s, b.rate_pN_per_s, kSameLevelRelative);
  if (a.nominal_clamp_force_pN && b.nominal_clamp_force_pN) {
    by_nominal = true;
    return within(*a.nominal_clamp_force_pN, *b.nominal_clamp_force_pN, kSameLevelRelative);
  }
  return within(a.clamp_force_pN, b.clamp_force_pN, kSameMeasuredClampForceRelative);
}

}  // namespace

std::vector<Level> pool_levels(const std::vector<RunSpectrum>& runs, bool rate_at_peak) {
  std::vector<Level> levels;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const RunSpectrum& r = runs[k];
    Level* level = nullptr;
    for (Level& l : levels) {
      bool by_nominal = false;
      if (same_level(runs[l.runs.front()], r, by_nominal)) {
        level = &l;
        level->by_nominal_force = level->by_nominal_force && by_nominal;
        break;
      }
    }
    if (!level) {
      levels.emplace_back();
      level = &levels.back();
      level->by_nominal_force = true;
      level->pooled = r;  // its rate, temperature, kind; the items are appended below
      RunSpectrum& p = level->pooled;
      p.replicas = p.without_peak = p.without_rate = p.starts_unfolded = 0;
      p.replica.clear(), p.force_pN.clear(), p.peak.clear(), p.peak_rate_pN_per_s.clear();
      p.censored_replica.clear(), p.censored_force_pN.clear(), p.time_s.clear(), p.unfolded.clear();
      p.cut_note.clear();
      p.extension_max_nm = -std::numeric_limits<double>::infinity();
    }
    level->runs.push_back(k);
    level->directories += (level->directories.empty() ? "" : ", ") + r.dir.string();
    RunSpectrum& p = level->pooled;
    p.replicas += r.replicas;
    p.without_peak += r.without_peak;
    p.without_rate += r.without_rate;
    p.starts_unfolded += r.starts_unfolded;
    p.extension_max_nm = std::max(p.extension_max_nm, r.extension_max_nm);
    auto append = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
    append(p.replica, r.replica);
    append(p.force_pN, r.force_pN);
    append(p.peak, r.peak);
    append(p.peak_rate_pN_per_s, r.peak_rate_pN_per_s);
    append(p.time_s, r.time_s);
    append(p.unfolded, r.unfolded);
    append(p.censored_replica, r.censored_replica);
    append(p.censored_force_pN, r.censored_force_pN);
  }
  for (Level& l : levels) {
    RunSpectrum& p = l.pooled;
    if (!p.clamp) {
      p.table_rate_pN_per_s = rate_at_peak ? describe(p.peak_rate_pN_per_s).median : p.rate_pN_per_s;
    } else {
      p.clamp_force_pN = describe(p.force_pN).mean;
      for (double& f : p.force_pN) f = p.clamp_force_pN;
    }
  }
  return levels;
}

std::size_t levels_with_items(const std::vector<Level>& levels) {
  std::size_t n = 0;
  for (const Level& l : levels) n += !l.pooled.force_pN.empty();
  return n;
}

SpectrumItems spectrum_items(const std::vector<Level>& levels, double kT_pN_nm, bool rate_at_peak) {
  SpectrumItems items;
  SpectrumSample& s = items.sample;
  s.clamp = levels.front().pooled.clamp;
  s.kT_pN_nm = kT_pN_nm;
  for (std::size_t k = 0; k < levels.size(); ++k) {
    const RunSpectrum& r = levels[k].pooled;
    for (std::size_t i = 0; i < r.force_pN.size(); ++i) {
      s.level.push_back(k);
      s.force_pN.push_back(r.force_pN[i]);
      if (s.clamp) {
        s.time_s.push_back(r.time_s[i]);
        s.event.push_back(r.unfolded[i]);
      } else {
        s.rate_pN_per_s.push_back(rate_at_peak ? r.peak_rate_pN_per_s[i] : r.rate_pN_per_s);
        s.event.push_back(1);
      }
    }
    // Replicas without a peak (--no-peak censored): survival up to their largest force.
    for (double f : r.censored_force_pN) {
      if (!(f > 0.0)) continue;
      s.level.push_back(k);
      s.force_pN.push_back(f);
      s.rate_pN_per_s.push_back(r.rate_pN_per_s);
      s.event.push_back(0);
      ++items.censored;
    }
  }
  return items;
}

}  // namespace ermak::analysis
