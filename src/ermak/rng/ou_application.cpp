#include "ermak/rng/ou_application.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <numbers>

#include "ermak/backend/cuda_rng.h"
#include "ermak/core/error.h"
#include "ermak/core/units.h"
#include "ermak/io/tsv_writer.h"
#include "ermak/rng/noise_source.h"
#include "ermak/rng/splitmix64.h"

namespace ermak::rng {
namespace {

constexpr std::int32_t kParallelOscillators = 4096;

// Uniform in (0, 1] with 53 bits, for the independent initial Boltzmann draw.
double uniform53(SplitMix64& s) { return (double(splitmix64_next(s) >> 11) + 1.0) * 0x1.0p-53; }

std::string fmt(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

}  // namespace

std::string OuResult::verdict() const {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer,
                "%s: %s, N = %d oscillators, %lld steps of %g ps, tau = %.6g ns: max |z| relaxation %.2f, "
                "autocorrelation %.2f; tolerance %g sigma + |discrete - exact| at each of %zu points",
                pass ? "PASS" : "FAIL", source_name.c_str(), options.oscillators, (long long)steps, options.dt_ps,
                tau_ns, max_z_mean, max_z_acf, options.tolerance_sigmas, points.size());
  return buffer;
}

OuResult run_ou_application(const OuOptions& o, NoiseSource* injected) {
  if (o.oscillators < 1) throw Error("rng ou: --oscillators must be at least 1");
  if (o.samples < 2) throw Error("rng ou: --samples must be at least 2");
  if (!(o.dt_ps > 0) || !(o.R0_nm > 0) || !(o.k_pN_per_nm > 0) || !(o.temperature_K > 0) || !(o.D_nm2_per_ns > 0))
    throw Error("rng ou: dt, R0, k_sp, T and D must be positive");
  const auto start_time = std::chrono::steady_clock::now();

  OuResult res;
  res.options = o;
  // k_B T in pN·nm: kcal/mol → pN·Å (units.h) → pN·nm.
  res.kT_pN_nm = units::kelvin_to_kcal_per_mol(o.temperature_K) * units::pN_per_kcal_per_mol_A / units::A_per_nm;
  res.tau_ns = res.kT_pN_nm / (o.D_nm2_per_ns * o.k_pN_per_nm);
  res.variance_nm2 = res.kT_pN_nm / o.k_pN_per_nm;
  const double dt_ns = o.dt_ps * 1e-3;
  const double eps = dt_ns / res.tau_ns;
  if (eps >= 1.0) throw Error("rng ou: the step must be shorter than the relaxation time tau = " + fmt("%.6g", res.tau_ns) + " ns");
  const double a = 1.0 - eps;                        // drift factor per step
  const double s = std::sqrt(2.0 * o.D_nm2_per_ns * dt_ns);  // noise amplitude per step
  const double v = res.variance_nm2;                 // continuous stationary variance
  const double vd = s * s / (1.0 - a * a);           // discrete stationary variance

  const std::int64_t span = o.steps > 0 ? o.steps : std::max<std::int64_t>(2, std::llround(2.0 * res.tau_ns / dt_ns));
  const std::int32_t m = std::int32_t(std::min<std::int64_t>(o.samples, span));  // samples 0 … m
  const std::int64_t every = (span + m - 1) / m;  // the curves cover at least `span` steps
  const std::int32_t origins = m / 2 + 1;  // t0 = j·every, j = 0 … m/2
  res.steps = std::int64_t(m) * every;
  res.sample_every = every;
  const std::int64_t total_steps = std::int64_t(m + origins - 1) * every;

  const std::int32_t n = o.oscillators;
  if (o.backend != "cpu" && o.backend != "cuda")
    throw Error("rng ou: unknown backend \"" + o.backend + "\" (cpu, cuda)");
  if (o.backend == "cuda" && injected) throw Error("rng ou: an injected noise source runs on the CPU only");
  std::unique_ptr<NoiseSource> owned;
  std::unique_ptr<CudaOscillators> gpu;
  if (o.backend == "cuda") {
    gpu = make_cuda_oscillators(o.generator, o.layout, o.seed, 2, n, a, s, 0);
    res.device = gpu->device_name();
  } else if (!injected) {
    owned = make_noise_source(o.generator, o.layout, o.seed, 2, n);
  }
  NoiseSource* source = injected ? injected : owned.get();
  res.source_name = gpu ? gpu->name() : source->name();

  // Replica 0: relaxation from R0·ê (ê = x). Replica 1: equilibrium.
  std::vector<double> rx(n, o.R0_nm), ry(n, 0.0), rz(n, 0.0), ex(n), ey(n), ez(n);
  {
    SplitMix64 init{mix64(o.seed ^ 0x4f55'696e'6974'4571ULL)};  // "OUinitEq"
    const double sd = std::sqrt(v);
    auto gauss_pair = [&](double& g0, double& g1) {
      const double radius = std::sqrt(-2.0 * std::log(uniform53(init)));
      const double angle = 2.0 * std::numbers::pi * uniform53(init);
      g0 = radius * std::cos(angle);
      g1 = radius * std::sin(angle);
    };
    for (std::int32_t i = 0; i < n; ++i) {
      double g0, g1, g2, g3;
      gauss_pair(g0, g1);
      gauss_pair(g2, g3);
      ex[i] = sd * g0;
      ey[i] = sd * g1;
      ez[i] = sd * g2;
    }
  }
  std::vector<float> gx(n), gy(n), gz(n);
  std::vector<double> mean_sum(m + 1, 0.0), acf_sum(m + 1, 0.0);
  std::vector<double> snapshots(std::size_t(origins) * 3 * std::size_t(n));
  const bool parallel = n >= kParallelOscillators;

  auto sample = [&](std::int32_t k) {
    if (k <= m) {
      double sum = 0;
      for (std::int32_t i = 0; i < n; ++i) sum += rx[i];
      mean_sum[k] = sum;
    }
    if (k < origins) {
      double* snap = &snapshots[std::size_t(k) * 3 * n];
      std::copy(ex.begin(), ex.end(), snap);
      std::copy(ey.begin(), ey.end(), snap + n);
      std::copy(ez.begin(), ez.end(), snap + 2 * n);
    }
    for (std::int32_t j = std::max(0, k - m); j <= std::min(k, origins - 1); ++j) {
      const double* snap = &snapshots[std::size_t(j) * 3 * n];
      double sum = 0;
#pragma omp parallel for reduction(+ : sum) if (parallel)
      for (std::int32_t i = 0; i < n; ++i) sum += snap[i] * ex[i] + snap[n + i] * ey[i] + snap[2 * n + i] * ez[i];
      acf_sum[k - j] += sum;
    }
  };
  auto advance = [&](std::vector<double>& x, std::vector<double>& y, std::vector<double>& z) {
#pragma omp parallel for if (parallel)
    for (std::int32_t i = 0; i < n; ++i) {
      x[i] = a * x[i] + s * double(gx[i]);
      y[i] = a * y[i] + s * double(gy[i]);
      z[i] = a * z[i] + s * double(gz[i]);
    }
  };

  sample(0);
  if (o.backend == "cuda") {
    // The GPU advances both ensembles between samples; they come back for the sums.
    gpu->set_positions(0, rx.data(), ry.data(), rz.data());
    gpu->set_positions(1, ex.data(), ey.data(), ez.data());
    for (std::int64_t step = 0; step < total_steps; step += every) {
      const std::int64_t relax = std::clamp<std::int64_t>(res.steps - step, 0, every);
      if (relax > 0) gpu->advance(0, step, relax);
      gpu->advance(1, step, every);
      gpu->positions(0, rx.data(), ry.data(), rz.data());
      gpu->positions(1, ex.data(), ey.data(), ez.data());
      sample(std::int32_t((step + every) / every));
    }
  }
  for (std::int64_t step = 0; step < total_steps && o.backend == "cpu"; ++step) {
    if (step < res.steps) {
      source->fill(0, step, gx.data(), gy.data(), gz.data());
      advance(rx, ry, rz);
    }
    source->fill(1, step, gx.data(), gy.data(), gz.data());
    advance(ex, ey, ez);
    if ((step + 1) % every == 0) sample(std::int32_t((step + 1) / every));
  }

  // Expectations. Relaxation: discrete R0 aⁿ, Var = v_d (1 − a^{2n}). Autocorrelation at
  // lag ℓ: a^ℓ times the mean over origins of E[x²(t0)] = a^{2 t0} v + v_d (1 − a^{2 t0});
  // its standard error from the covariance of the products over overlapping origins.
  double mean_x2_origins = 0;
  for (std::int32_t j = 0; j < origins; ++j) {
    const double a2 = std::pow(a, 2.0 * double(j) * double(every));
    mean_x2_origins += a2 * v + vd * (1.0 - a2);
  }
  mean_x2_origins /= origins;
  res.pass = true;
  for (std::int32_t k = 0; k <= m; ++k) {
    OuPoint p;
    const double steps_k = double(k) * double(every);
    p.t_ns = steps_k * dt_ns;
    const double ak = std::pow(a, steps_k);
    p.mean = mean_sum[k] / n;
    p.mean_exact = o.R0_nm * std::exp(-p.t_ns / res.tau_ns);
    p.mean_discrete = o.R0_nm * ak;
    p.mean_sigma = std::sqrt(vd * (1.0 - ak * ak) / n);
    p.acf = acf_sum[k] / (3.0 * n * origins);
    p.acf_exact = v * std::exp(-p.t_ns / res.tau_ns);
    p.acf_discrete = ak * mean_x2_origins;
    // Var of the origin-averaged estimator for a stationary Gaussian process with
    // C(k) = v_d a^|k| (Isserlis): (1/(3N J²)) Σ_{j,j'} [C(d)² + C(d + ℓ) C(d − ℓ)],
    // d = (j − j')·every, ℓ = lag in steps.
    double var_sum = 0;
    for (std::int32_t dj = -(origins - 1); dj <= origins - 1; ++dj) {
      const double d = std::abs(double(dj)) * double(every);
      const double weight = double(origins - std::abs(dj));
      var_sum += weight * (std::pow(a, 2.0 * d) + std::pow(a, std::abs(d + steps_k)) * std::pow(a, std::abs(d - steps_k)));
    }
    p.acf_sigma = vd * std::sqrt(var_sum / (double(origins) * double(origins) * 3.0 * n));
    // Rounding slack: float noise, double sums.
    const double slack_mean = 1e-9 * o.R0_nm, slack_acf = 1e-9 * v;
    if (p.mean_sigma > 0) res.max_z_mean = std::max(res.max_z_mean, std::abs(p.mean - p.mean_discrete) / p.mean_sigma);
    res.max_z_acf = std::max(res.max_z_acf, std::abs(p.acf - p.acf_discrete) / p.acf_sigma);
    if (std::abs(p.mean - p.mean_exact) >
        o.tolerance_sigmas * p.mean_sigma + std::abs(p.mean_discrete - p.mean_exact) + slack_mean)
      res.pass = false;
    if (std::abs(p.acf - p.acf_exact) > o.tolerance_sigmas * p.acf_sigma + std::abs(p.acf_discrete - p.acf_exact) + slack_acf)
      res.pass = false;
    if (!std::isfinite(p.mean) || !std::isfinite(p.acf)) res.pass = false;
    res.points.push_back(p);
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
  return res;
}

void write_ou_tsv(const OuResult& r, const std::filesystem::path& path) {
  TsvWriter tsv = TsvWriter::create(path,
                                    {"time[ns]", "R_mean[nm]", "R_exact[nm]", "R_discrete[nm]", "R_sigma[nm]",
                                     "acf[nm^2]", "acf_exact[nm^2]", "acf_discrete[nm^2]", "acf_sigma[nm^2]"},
                                    true);
  for (const OuPoint& p : r.points) {
    const double row[] = {p.t_ns, p.mean, p.mean_exact, p.mean_discrete, p.mean_sigma,
                          p.acf,  p.acf_exact, p.acf_discrete, p.acf_sigma};
    tsv.row(row);
  }
  tsv.flush();
}

namespace {

// A linear axis with "nice" ticks.
struct Axis {
  double lo, hi;
  std::vector<double> ticks;
};

Axis nice_axis(double lo, double hi) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double f : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (f * mag >= raw) { step = f * mag; break; }
  Axis axis{std::floor(lo / step) * step, std::ceil(hi / step) * step, {}};
  for (double t = axis.lo; t <= axis.hi + 1e-9 * step; t += step) axis.ticks.push_back(std::abs(t) < 1e-12 * step ? 0 : t);
  return axis;
}

std::string xml(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

struct Panel {
  double x0, y0, w, h;  // plot area in px
  Axis ax, ay;
  double px(double x) const { return x0 + (x - ax.lo) / (ax.hi - ax.lo) * w; }
  double py(double y) const { return y0 + h - (y - ay.lo) / (ay.hi - ay.lo) * h; }
};

void draw_panel(std::ofstream& out, const Panel& p, const std::string& title, const std::string& ylabel,
                const std::vector<double>& t, const std::vector<double>& measured, const std::vector<double>& exact,
                const std::vector<double>& band) {
  out << "<rect x='" << p.x0 << "' y='" << p.y0 << "' width='" << p.w << "' height='" << p.h
      << "' fill='none' stroke='#333'/>\n";
  for (double tick : p.ax.ticks) {
    out << "<line x1='" << p.px(tick) << "' y1='" << p.y0 + p.h << "' x2='" << p.px(tick) << "' y2='" << p.y0 + p.h + 5
        << "' stroke='#333'/>";
    out << "<text x='" << p.px(tick) << "' y='" << p.y0 + p.h + 18 << "' text-anchor='middle'>" << fmt("%g", tick)
        << "</text>\n";
  }
  for (double tick : p.ay.ticks) {
    out << "<line x1='" << p.x0 - 5 << "' y1='" << p.py(tick) << "' x2='" << p.x0 << "' y2='" << p.py(tick)
        << "' stroke='#333'/>";
    out << "<line x1='" << p.x0 << "' y1='" << p.py(tick) << "' x2='" << p.x0 + p.w << "' y2='" << p.py(tick)
        << "' stroke='#eee'/>";
    out << "<text x='" << p.x0 - 8 << "' y='" << p.py(tick) + 4 << "' text-anchor='end'>" << fmt("%g", tick)
        << "</text>\n";
  }
  out << "<text x='" << p.x0 + p.w / 2 << "' y='" << p.y0 - 10 << "' text-anchor='middle' font-weight='bold'>" << xml(title)
      << "</text>\n";
  out << "<text x='" << p.x0 + p.w / 2 << "' y='" << p.y0 + p.h + 38 << "' text-anchor='middle'>t [ns]</text>\n";
  out << "<text transform='translate(" << p.x0 - 55 << "," << p.y0 + p.h / 2
      << ") rotate(-90)' text-anchor='middle'>" << xml(ylabel) << "</text>\n";
  // Tolerance band around the exact curve, then the exact curve, then the data.
  out << "<polygon fill='#cfe3ff' stroke='none' points='";
  for (std::size_t k = 0; k < t.size(); ++k) out << p.px(t[k]) << "," << p.py(exact[k] + band[k]) << " ";
  for (std::size_t k = t.size(); k-- > 0;) out << p.px(t[k]) << "," << p.py(exact[k] - band[k]) << " ";
  out << "'/>\n<polyline fill='none' stroke='#1f5fbf' stroke-width='2' points='";
  for (std::size_t k = 0; k < t.size(); ++k) out << p.px(t[k]) << "," << p.py(exact[k]) << " ";
  out << "'/>\n";
  for (std::size_t k = 0; k < t.size(); ++k)
    out << "<circle cx='" << p.px(t[k]) << "' cy='" << p.py(measured[k]) << "' r='2.2' fill='#d62728'/>";
  out << "\n";
}

}  // namespace

void write_ou_svg(const OuResult& r, const std::filesystem::path& path) {
  std::ofstream out(path);
  if (!out) throw Error(path.string(), 0, "", "cannot write the plot");
  std::vector<double> t, mean, mean_exact, mean_band, acf, acf_exact, acf_band;
  double mean_lo = 0, mean_hi = 0, acf_lo = 0, acf_hi = 0;
  const double z = r.options.tolerance_sigmas;
  for (const OuPoint& p : r.points) {
    t.push_back(p.t_ns);
    mean.push_back(p.mean);
    mean_exact.push_back(p.mean_exact);
    mean_band.push_back(z * p.mean_sigma + std::abs(p.mean_discrete - p.mean_exact));
    acf.push_back(p.acf);
    acf_exact.push_back(p.acf_exact);
    acf_band.push_back(z * p.acf_sigma + std::abs(p.acf_discrete - p.acf_exact));
    mean_lo = std::min({mean_lo, p.mean, p.mean_exact - mean_band.back()});
    mean_hi = std::max({mean_hi, p.mean, p.mean_exact + mean_band.back()});
    acf_lo = std::min({acf_lo, p.acf, p.acf_exact - acf_band.back()});
    acf_hi = std::max({acf_hi, p.acf, p.acf_exact + acf_band.back()});
  }
  const Axis at = nice_axis(0, t.empty() ? 1 : t.back());
  const Panel left{90, 70, 380, 300, at, nice_axis(mean_lo, mean_hi)};
  const Panel right{590, 70, 380, 300, at, nice_axis(acf_lo, acf_hi)};
  out << "<svg xmlns='http://www.w3.org/2000/svg' width='1010' height='470' font-family='sans-serif' "
         "font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n";
  out << "<text x='505' y='22' text-anchor='middle' font-size='14'>ermak rng ou: " << xml(r.source_name) << ", N = "
      << r.options.oscillators << ", dt = " << fmt("%g", r.options.dt_ps) << " ps, tau = " << fmt("%.4g", r.tau_ns)
      << " ns, kT/k_sp = " << fmt("%.4g", r.variance_nm2) << " nm^2</text>\n";
  draw_panel(out, left, "relaxation from R0: <R(t)> along R(0)", "<R(t)> [nm]", t, mean, mean_exact, mean_band);
  draw_panel(out, right, "equilibrium: <R(t0+t).R(t0)>/3", "autocorrelation [nm^2]", t, acf, acf_exact, acf_band);
  out << "<text x='505' y='440' text-anchor='middle'>red: measured; blue: exact (R0 e^-t/tau, (kT/k_sp) e^-t/tau); "
         "shaded: tolerance "
      << fmt("%g", z) << " sigma + |discrete - exact|</text>\n";
  out << "<text x='505' y='460' text-anchor='middle' font-weight='bold' fill='" << (r.pass ? "#2a7d2a" : "#c00000")
      << "'>" << (r.pass ? "PASS" : "FAIL") << fmt(": max |z| relaxation %.2f", r.max_z_mean)
      << fmt(", autocorrelation %.2f", r.max_z_acf) << "</text>\n</svg>\n";
  if (!out) throw Error(path.string(), 0, "", "write failed");
}

}  // namespace ermak::rng
