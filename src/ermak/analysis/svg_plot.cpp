#include "ermak/analysis/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "ermak/core/error.h"

namespace ermak::analysis {
namespace {

constexpr const char* kFont = "DejaVu Sans, Helvetica, Arial, sans-serif";
constexpr int kMarginLeft = 84, kMarginBottom = 62, kMarginTop = 46;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  if (std::string_view(buf) == "-0.0") return "0.0";
  return buf;
}

std::string fraction(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", std::clamp(v, 0.0, 1.0));
  return buf;
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string stroke_attributes(const PlotStyle& s) {
  std::string out = " stroke=\"" + s.color + "\" stroke-width=\"" + num(s.width) + "\"";
  if (!s.dash.empty()) out += " stroke-dasharray=\"" + s.dash + "\"";
  if (s.opacity < 1.0) out += " stroke-opacity=\"" + fraction(s.opacity) + "\"";
  return out;
}

std::string fill_attributes(const PlotStyle& s) {
  std::string out = " fill=\"" + (s.fill.empty() ? s.color : s.fill) + "\"";
  if (s.fill_opacity < 1.0) out += " fill-opacity=\"" + fraction(s.fill_opacity) + "\"";
  return out;
}

// Text width estimate for layout (DejaVu Sans at 13 px: about 7.4 px per character).
double text_width(const std::string& text, double font_px) {
  std::size_t chars = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++chars;  // count UTF-8 code points
  return double(chars) * font_px * 0.58;
}

std::string marker_svg(Marker m, double cx, double cy, double size, const PlotStyle& s) {
  const double r = 0.5 * size;
  const std::string stroke = " stroke=\"" + std::string("#222222") + "\" stroke-width=\"" +
                             num(std::max(0.6, 0.5 * s.width)) + "\"";
  switch (m) {
    case Marker::circle:
      return "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"" + num(r) + "\"" +
             fill_attributes(s) + stroke + "/>";
    case Marker::square:
      return "<rect x=\"" + num(cx - r) + "\" y=\"" + num(cy - r) + "\" width=\"" + num(size) +
             "\" height=\"" + num(size) + "\"" + fill_attributes(s) + stroke + "/>";
    case Marker::triangle:
      return "<polygon points=\"" + num(cx) + "," + num(cy - 1.15 * r) + " " + num(cx - r) + "," +
             num(cy + 0.85 * r) + " " + num(cx + r) + "," + num(cy + 0.85 * r) + "\"" +
             fill_attributes(s) + stroke + "/>";
    case Marker::diamond:
      return "<polygon points=\"" + num(cx) + "," + num(cy - 1.2 * r) + " " + num(cx + r) + "," +
             num(cy) + " " + num(cx) + "," + num(cy + 1.2 * r) + " " + num(cx - r) + "," + num(cy) +
             "\"" + fill_attributes(s) + stroke + "/>";
    case Marker::cross:
      return "<path d=\"M" + num(cx - r) + "," + num(cy - r) + "L" + num(cx + r) + "," + num(cy + r) +
             "M" + num(cx - r) + "," + num(cy + r) + "L" + num(cx + r) + "," + num(cy - r) +
             "\" fill=\"none\"" + stroke_attributes(s) + "/>";
  }
  return {};
}

}  // namespace

const char* palette_color(std::size_t i) {
  static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                 "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
  return colors[i % 10];
}

std::vector<double> nice_ticks(double lo, double hi, int target, double min_step) {
  std::vector<double> ticks;
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return ticks;
  const double raw = (hi - lo) / std::max(target, 2);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 0.0;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0, 20.0}) {
    const double c = m * mag;
    const bool whole = min_step <= 0.0 ||
                       (c >= min_step * (1 - 1e-9) && std::abs(c / min_step - std::round(c / min_step)) < 1e-9);
    if (c >= raw && whole) {
      step = c;
      break;
    }
  }
  if (step == 0.0) step = std::max(min_step, 1e-300) * std::ceil(raw / std::max(min_step, 1e-300));
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step; k += 1.0) {
    double t = k * step;
    if (std::abs(t) < 1e-12 * step) t = 0.0;
    ticks.push_back(t);
  }
  return ticks;
}

std::string tick_label(double value, double step) {
  int decimals = 0;
  step = std::abs(step);
  while (decimals < 10) {
    const double scaled = step * std::pow(10.0, decimals);
    if (std::abs(scaled - std::round(scaled)) < 1e-6 * std::max(scaled, 1.0)) break;
    ++decimals;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  std::string s = buf;
  if (s.find_first_not_of("-0.") == std::string::npos && s[0] == '-') s.erase(0, 1);  // "-0"
  if (s[0] == '-') s = "\u2212" + s.substr(1);  // typographic minus
  return s;
}

void write_text_file(const std::filesystem::path& path, const std::string& text, bool overwrite) {
  if (!overwrite && std::filesystem::exists(path))
    throw Error(path.string(), 0, "", "file exists (use --force to replace it)");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(path.string(), 0, "", "cannot create file");
  out << text;
  out.close();
  if (!out) throw Error(path.string(), 0, "", "cannot write file");
}

SvgPlot::SvgPlot(std::string title, std::string x_label, std::string y_label)
    : title_(std::move(title)), x_label_(std::move(x_label)), y_label_(std::move(y_label)) {}

void SvgPlot::set_size(int width, int height) {
  width_ = std::max(width, 300);
  height_ = std::max(height, 200);
}

void SvgPlot::line(std::span<const double> x, std::span<const double> y, const PlotStyle& style,
                   std::string legend) {
  series_.push_back({Kind::line, {x.begin(), x.end()}, {y.begin(), y.end()}, style});
  if (!legend.empty()) legend_.push_back({series_.size() - 1, std::move(legend)});
}

void SvgPlot::markers(std::span<const double> x, std::span<const double> y, Marker marker,
                      double size, const PlotStyle& style, std::string legend) {
  series_.push_back({Kind::markers, {x.begin(), x.end()}, {y.begin(), y.end()}, style, marker, size});
  if (!legend.empty()) legend_.push_back({series_.size() - 1, std::move(legend)});
}

void SvgPlot::bars(std::span<const double> edges, std::span<const double> heights,
                   const PlotStyle& style, std::string legend) {
  series_.push_back({Kind::bars, {edges.begin(), edges.end()}, {heights.begin(), heights.end()}, style});
  if (!legend.empty()) legend_.push_back({series_.size() - 1, std::move(legend)});
}

void SvgPlot::legend_note(std::string text) { legend_.push_back({std::nullopt, std::move(text)}); }

std::pair<double, double> SvgPlot::data_range(bool x_axis) const {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  auto take = [&](double v) {
    if (std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  };
  for (const Series& s : series_) {
    if (s.kind == Kind::bars) {
      if (x_axis) {
        for (double v : s.x) take(v);
      } else {
        take(0.0);
        for (double v : s.y) take(v);
      }
      continue;
    }
    const auto& v = x_axis ? s.x : s.y;
    const auto& other = x_axis ? s.y : s.x;
    for (std::size_t i = 0; i < v.size() && i < other.size(); ++i)
      if (std::isfinite(other[i])) take(v[i]);
  }
  if (!std::isfinite(lo)) return {0.0, 1.0};
  return {lo, hi};
}

std::string SvgPlot::render() const {
  // Layout.
  double legend_width = 0.0;
  for (const LegendEntry& e : legend_) legend_width = std::max(legend_width, text_width(e.text, 13.0));
  legend_width = legend_.empty() ? 0.0 : std::clamp(legend_width + 52.0, 120.0, 380.0);
  const double left = kMarginLeft, top = kMarginTop;
  const double right = width_ - (legend_.empty() ? 28.0 : legend_width + 40.0);
  const double bottom = height_ - kMarginBottom;

  // Ranges: the data padded by a few per cent; with include_zero_y a non-negative y range
  // starts exactly at 0.
  auto [xlo, xhi] = x_range_ ? *x_range_ : data_range(true);
  auto [ylo, yhi] = y_range_ ? *y_range_ : data_range(false);
  if (!y_range_ && y_cap_ && yhi > *y_cap_ && *y_cap_ > ylo) yhi = *y_cap_;
  bool y_from_zero = false;
  bool bars_present = std::any_of(series_.begin(), series_.end(), [](const Series& s) { return s.kind == Kind::bars; });
  if (!y_range_ && (zero_y_ || bars_present)) {
    if (ylo >= 0.0) {
      ylo = 0.0;
      y_from_zero = true;
    }
    yhi = std::max(yhi, 0.0);
  }
  if (!(xhi > xlo)) {
    xlo -= 1.0;
    xhi += 1.0;
  }
  if (!(yhi > ylo)) {
    ylo = y_from_zero ? 0.0 : ylo - 1.0;
    yhi += 1.0;
  }
  if (!x_range_) {
    const double pad = 0.03 * (xhi - xlo);
    xlo -= pad;
    xhi += pad;
  }
  if (!y_range_) {
    const double pad = 0.05 * (yhi - ylo);
    if (!y_from_zero) ylo -= pad;
    yhi += pad;
  }
  auto px = [&](double x) { return std::clamp(left + (x - xlo) / (xhi - xlo) * (right - left), -1e5, 1e5); };
  auto py = [&](double y) { return std::clamp(bottom - (y - ylo) / (yhi - ylo) * (bottom - top), -1e5, 1e5); };

  std::string o;
  o.reserve(1 << 16);
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width_) + "\" height=\"" +
       std::to_string(height_) + "\" viewBox=\"0 0 " + std::to_string(width_) + " " +
       std::to_string(height_) + "\" font-family=\"" + kFont + "\">\n";
  o += "<title>" + escape(title_) + "</title>\n";
  o += "<rect x=\"0\" y=\"0\" width=\"" + std::to_string(width_) + "\" height=\"" + std::to_string(height_) +
       "\" fill=\"white\"/>\n";
  o += "<defs><clipPath id=\"plot-area\"><rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" +
       num(right - left) + "\" height=\"" + num(bottom - top) + "\"/></clipPath></defs>\n";

  // Grid and ticks.
  const std::vector<double> xt = nice_ticks(xlo, xhi), yt = nice_ticks(ylo, yhi, 7, integer_y_ ? 1.0 : 0.0);
  const double xstep = xt.size() > 1 ? xt[1] - xt[0] : 1.0, ystep = yt.size() > 1 ? yt[1] - yt[0] : 1.0;
  o += "<g stroke=\"#e4e4e4\" stroke-width=\"1\">\n";
  for (double t : xt)
    o += "<line x1=\"" + num(px(t)) + "\" y1=\"" + num(top) + "\" x2=\"" + num(px(t)) + "\" y2=\"" + num(bottom) + "\"/>\n";
  for (double t : yt)
    o += "<line x1=\"" + num(left) + "\" y1=\"" + num(py(t)) + "\" x2=\"" + num(right) + "\" y2=\"" + num(py(t)) + "\"/>\n";
  o += "</g>\n";
  if (ylo < 0.0 && yhi > 0.0)  // the zero line, a little darker
    o += "<line x1=\"" + num(left) + "\" y1=\"" + num(py(0.0)) + "\" x2=\"" + num(right) + "\" y2=\"" +
         num(py(0.0)) + "\" stroke=\"#b0b0b0\" stroke-width=\"1\"/>\n";

  // Series.
  o += "<g clip-path=\"url(#plot-area)\" fill=\"none\" stroke-linejoin=\"round\" stroke-linecap=\"round\">\n";
  for (const Series& s : series_) {
    if (s.kind == Kind::bars) {
      o += "<g" + fill_attributes(s.style) + stroke_attributes(s.style) + ">\n";
      for (std::size_t k = 0; k + 1 < s.x.size() && k < s.y.size(); ++k) {
        if (!(s.y[k] > 0.0)) continue;
        const double x0 = px(s.x[k]), x1 = px(s.x[k + 1]), y0 = py(0.0), y1 = py(s.y[k]);
        o += "<rect x=\"" + num(x0) + "\" y=\"" + num(y1) + "\" width=\"" + num(x1 - x0) + "\" height=\"" +
             num(y0 - y1) + "\"/>\n";
      }
      o += "</g>\n";
    } else if (s.kind == Kind::markers) {
      for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
        if (std::isfinite(s.x[i]) && std::isfinite(s.y[i]))
          o += marker_svg(s.marker, px(s.x[i]), py(s.y[i]), s.size, s.style) + "\n";
    } else {
      std::string points;
      std::size_t count = 0;
      double last_x = 0, last_y = 0, pend_x = 0, pend_y = 0;
      bool pending = false;
      auto flush = [&]() {
        if (pending) {
          points += num(pend_x) + "," + num(pend_y) + " ";
          ++count;
          pending = false;
        }
        if (count >= 2)
          o += "<polyline points=\"" + points.substr(0, points.size() - 1) + "\"" + stroke_attributes(s.style) + "/>\n";
        points.clear();
        count = 0;
      };
      for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
        if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) {
          flush();
          continue;
        }
        const double X = px(s.x[i]), Y = py(s.y[i]);
        if (count > 0 && std::abs(X - last_x) < 0.5 && std::abs(Y - last_y) < 0.5) {
          pend_x = X;  // keep the last of a run of close points
          pend_y = Y;
          pending = true;
          continue;
        }
        pending = false;
        points += num(X) + "," + num(Y) + " ";
        ++count;
        last_x = X;
        last_y = Y;
      }
      flush();
    }
  }
  o += "</g>\n";

  // Frame, tick marks and labels.
  o += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(right - left) + "\" height=\"" +
       num(bottom - top) + "\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1.2\"/>\n";
  o += "<g stroke=\"#333333\" stroke-width=\"1.2\">\n";
  for (double t : xt)
    o += "<line x1=\"" + num(px(t)) + "\" y1=\"" + num(bottom) + "\" x2=\"" + num(px(t)) + "\" y2=\"" + num(bottom + 6) + "\"/>\n";
  for (double t : yt)
    o += "<line x1=\"" + num(left - 6) + "\" y1=\"" + num(py(t)) + "\" x2=\"" + num(left) + "\" y2=\"" + num(py(t)) + "\"/>\n";
  o += "</g>\n";
  o += "<g font-size=\"13\" fill=\"#222222\">\n";
  for (double t : xt)
    o += "<text x=\"" + num(px(t)) + "\" y=\"" + num(bottom + 22) + "\" text-anchor=\"middle\">" +
         escape(tick_label(t, xstep)) + "</text>\n";
  for (double t : yt)
    o += "<text x=\"" + num(left - 10) + "\" y=\"" + num(py(t) + 4.5) + "\" text-anchor=\"end\">" +
         escape(tick_label(t, ystep)) + "</text>\n";
  o += "</g>\n";
  o += "<text x=\"" + num(0.5 * (left + right)) + "\" y=\"" + num(height_ - 16.0) +
       "\" text-anchor=\"middle\" font-size=\"15\" fill=\"#111111\">" + escape(x_label_) + "</text>\n";
  o += "<text transform=\"translate(22," + num(0.5 * (top + bottom)) +
       ") rotate(-90)\" text-anchor=\"middle\" font-size=\"15\" fill=\"#111111\">" + escape(y_label_) + "</text>\n";
  o += "<text x=\"" + num(0.5 * (left + right)) + "\" y=\"" + num(top - 16.0) +
       "\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\" fill=\"#111111\">" + escape(title_) + "</text>\n";

  // Legend, to the right of the plot area.
  if (!legend_.empty()) {
    const double lx = right + 16.0, ly = top;
    const double row = 21.0;
    o += "<rect x=\"" + num(lx) + "\" y=\"" + num(ly) + "\" width=\"" + num(legend_width) + "\" height=\"" +
         num(row * double(legend_.size()) + 10.0) + "\" fill=\"white\" stroke=\"#cccccc\"/>\n";
    o += "<g font-size=\"13\" fill=\"#222222\">\n";
    for (std::size_t k = 0; k < legend_.size(); ++k) {
      const LegendEntry& e = legend_[k];
      const double cy = ly + 5.0 + row * (double(k) + 0.5);
      const double sx = lx + 8.0;
      if (e.series) {
        const Series& s = series_[*e.series];
        if (s.kind == Kind::line) {
          o += "<line x1=\"" + num(sx) + "\" y1=\"" + num(cy) + "\" x2=\"" + num(sx + 28.0) + "\" y2=\"" + num(cy) +
               "\"" + stroke_attributes(s.style) + "/>\n";
        } else if (s.kind == Kind::markers) {
          o += marker_svg(s.marker, sx + 14.0, cy, s.size, s.style) + "\n";
        } else {
          o += "<rect x=\"" + num(sx + 4.0) + "\" y=\"" + num(cy - 6.0) + "\" width=\"20\" height=\"12\"" +
               fill_attributes(s.style) + stroke_attributes(s.style) + "/>\n";
        }
      }
      o += "<text x=\"" + num(e.series ? sx + 36.0 : sx) + "\" y=\"" + num(cy + 4.5) + "\">" + escape(e.text) + "</text>\n";
    }
    o += "</g>\n";
  }
  o += "</svg>\n";
  return o;
}

void SvgPlot::write(const std::filesystem::path& path, bool overwrite) const {
  write_text_file(path, render(), overwrite);
}

}  // namespace ermak::analysis
