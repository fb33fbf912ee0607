#include "ermak/analysis/spectrum_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ermak/analysis/report_common.h"
#include "ermak/analysis/svg_plot.h"

namespace ermak::analysis {

void write_spectrum_plot(const std::filesystem::path& path, const SpectrumPoints& points, const SpectrumFits& fits,
                         bool clamp, double kT, const SpectrumOptions& options) {
  const BellFit& fit = fits.bell;
  const DhsFit& cubic = fits.dhs.front();
  const Line& spread_lines = points.spread_lines;
  const Line& observed_x = points.observed_x;
  const Line& points_x = points.points_x;
  SvgPlot plot(clamp ? "Lifetime against force" : "Rupture force against loading rate",
               clamp                 ? "force [pN]"
               : options.rate_at_peak ? "log10 loading rate at the peak [pN/s]"
                                      : "log10 loading rate κv [pN/s]",
               clamp ? "log10 lifetime [s]" : "rupture force [pN]");
  plot.markers(points_x.x, points_x.y, Marker::circle, 3.0, marker_style("#999999"),
               clamp ? "unfolding times" : "replicas' rupture forces");
  plot.line(spread_lines.x, spread_lines.y, style(palette_color(0), 2.0), clamp ? "lifetime ± se" : "mean ± sd");
  plot.markers(observed_x.x, observed_x.y, Marker::square, 7.0, marker_style(palette_color(0)),
               clamp ? "lifetime (censored MLE)" : "mean");
  if (fit.ok) {
    const auto [lo, hi] = std::minmax_element(observed_x.x.begin(), observed_x.x.end());
    if (lo != observed_x.x.end()) {
      const double pad = clamp ? 0.05 * (*hi - *lo + 10.0) : 0.3;
      Line mean_line, mode_line;
      for (int k = 0; k <= 100; ++k) {
        const double x = *lo - pad + (*hi - *lo + 2 * pad) * k / 100.0;
        mean_line.x.push_back(x);
        if (clamp) {
          mean_line.y.push_back(-std::log10(fit.k0_per_s) - x * fit.x_nm / kT / std::log(10.0));
        } else {
          mean_line.y.push_back(bell_evans_mean_pN(fit, std::pow(10.0, x), kT));
          mode_line.x.push_back(x);
          mode_line.y.push_back(bell_evans_mode_pN(fit, std::pow(10.0, x), kT));
        }
      }
      plot.line(mean_line.x, mean_line.y, style(palette_color(1), 2.0),
                clamp ? "Bell: τ = 1/(k0·exp(F·x_β/kT))" : "Bell–Evans mean");
      if (cubic.ok) {
        Line dhs_line;
        for (double x : mean_line.x) {
          dhs_line.x.push_back(x);
          dhs_line.y.push_back(clamp ? -std::log10(dhs_rate_per_s(cubic, x, kT))
                                     : dhs_mean_force_pN(cubic, std::pow(10.0, x), kT));
        }
        plot.line(dhs_line.x, dhs_line.y, style(palette_color(2), 2.0, "2,3"),
                  clamp ? "Dudko–Hummer–Szabo (ν = 2/3) lifetime" : "Dudko–Hummer–Szabo (ν = 2/3) mean");
      }
      if (!clamp) plot.line(mode_line.x, mode_line.y, style(palette_color(1), 1.5, "6,4"), "Bell–Evans mode");
    }
    plot.legend_note(fmt::format("x_β = {} ± {} nm", g(fit.x_nm, 3), g(fit.x_se_nm, 2)));
    plot.legend_note(fmt::format("k0 = {} /s", g(fit.k0_per_s, 3)));
  } else {
    plot.legend_note("Bell's rate not fitted: " + fit.why_not);
  }
  plot.write(path, options.overwrite);
}

}  // namespace ermak::analysis
