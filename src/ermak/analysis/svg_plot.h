#pragma once
// A small x–y plot written as a standalone SVG file: framed axes with "nice" ticks and
// grid lines, axis labels, a title, lines, markers, histogram bars and a legend to the
// right of the plot area. No dependencies; any browser, Inkscape or rsvg-convert shows it.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ermak::analysis {

struct PlotStyle {
  std::string color = "#1f77b4";
  double width = 1.5;      // line or marker-edge width, px
  std::string dash;        // SVG stroke-dasharray, e.g. "6,4"; empty: solid
  double opacity = 1.0;
  std::string fill;        // markers and bars; empty: the color
  double fill_opacity = 1.0;
};

enum class Marker { circle, triangle, square, diamond, cross };

// The i-th colour of a ten-colour qualitative palette (cycles).
const char* palette_color(std::size_t i);

class SvgPlot {
 public:
  SvgPlot(std::string title, std::string x_label, std::string y_label);

  void set_size(int width, int height);
  void set_x_range(double lo, double hi) { x_range_ = {lo, hi}; }
  void set_y_range(double lo, double hi) { y_range_ = {lo, hi}; }
  void include_zero_y(bool on) { zero_y_ = on; }
  // The automatic y range ends at most at this value (what lies above is clipped).
  void cap_y(double y_max) { y_cap_ = y_max; }
  // Counts: y ticks at whole numbers only.
  void integer_y(bool on) { integer_y_ = on; }

  // A polyline through (x_i, y_i); a non-finite point breaks it. Points closer than
  // half a pixel to the last drawn one are dropped.
  void line(std::span<const double> x, std::span<const double> y, const PlotStyle& style,
            std::string legend = {});
  void markers(std::span<const double> x, std::span<const double> y, Marker marker, double size,
               const PlotStyle& style, std::string legend = {});
  // Histogram bars: bin k spans [edges[k], edges[k+1]] with height heights[k].
  void bars(std::span<const double> edges, std::span<const double> heights, const PlotStyle& style,
            std::string legend = {});
  // A text line in the legend without a symbol (e.g. "n = 12").
  void legend_note(std::string text);

  std::string render() const;
  // Writes render() to path; refuses to replace an existing file unless overwrite.
  void write(const std::filesystem::path& path, bool overwrite) const;

 private:
  enum class Kind { line, markers, bars };
  struct Series {
    Kind kind;
    std::vector<double> x, y;  // bars: x = edges, y = heights
    PlotStyle style;
    Marker marker = Marker::circle;
    double size = 5.0;
  };
  struct LegendEntry {
    std::optional<std::size_t> series;  // which series' symbol; none for a note
    std::string text;
  };
  std::pair<double, double> data_range(bool x_axis) const;

  std::string title_, x_label_, y_label_;
  int width_ = 960, height_ = 600;
  std::optional<std::pair<double, double>> x_range_, y_range_;
  bool zero_y_ = false;
  bool integer_y_ = false;
  std::optional<double> y_cap_;
  std::vector<Series> series_;
  std::vector<LegendEntry> legend_;
};

// Tick positions for [lo, hi]: multiples of 1, 2, 2.5 or 5 × 10^k, about `target` of them,
// and, when min_step > 0, whole multiples of min_step (1 for counts).
std::vector<double> nice_ticks(double lo, double hi, int target = 7, double min_step = 0.0);
// Shortest "%.*f" text of a tick value for the tick spacing `step`.
std::string tick_label(double value, double step);

// Writes text to a file; refuses to replace an existing one unless overwrite (ermak::Error).
void write_text_file(const std::filesystem::path& path, const std::string& text, bool overwrite);

}  // namespace ermak::analysis
