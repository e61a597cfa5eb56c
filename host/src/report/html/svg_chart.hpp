// Charts as inline SVG, for report.html: drawn here in C++, so that the report is one
// self-contained file that works offline (no script, no font, nothing fetched).
//
// Every chart is an <svg role="img"> with a <title> and a <desc>, axes with ticks and
// titles, and a legend; each data point carries its figures in a <title> (the
// browser's tooltip) and in data-x / data-y attributes. Colours come from CSS classes
// (c0, c1, ...; axis, grid, band, ...) that the page's style sheet defines, so that one
// chart suits a light and a dark page. A chart without data is not drawn: no_data()
// says so in words instead.
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchhost::svg {

/// `text` for HTML or SVG, as element text or inside a quoted attribute: & < > " '
/// replaced with entities, bytes that are not valid UTF-8 with U+FFFD, and control
/// characters other than tab and newline dropped.
std::string escape(std::string_view text);

enum class Scale { linear, log };

struct Axis {
    std::string title;  // with its unit: "median latency (ms)"
    Scale scale = Scale::linear;
    /// Where to put ticks; empty: chosen from the data (1-2-5 steps, or powers of ten).
    std::vector<double> ticks;
    bool include_zero = false;  // a linear axis starts at 0 (or ends there)
    /// With `ticks`, the label of each (a commit under a run's position); empty: the value.
    std::vector<std::string> tick_labels{};
};

/// The scale an axis over positive values from `low` to `high` should have: log when
/// they span a factor of `wide` or more, else linear.
Scale scale_for(double low, double high, double wide = 8);

/// Tick positions and their labels for a domain; used by the charts, exposed for tests.
std::vector<double> ticks_for(const Axis& axis, double low, double high);
std::string tick_label(double value);

struct XYPoint {
    double x = NAN, y = NAN;
    double low = NAN, high = NAN;  // an error bar on y, when both are finite
    std::string tip;  // the point's tooltip; empty: "x, y"
    bool marker = true;  // with XYSeries::markers: a circle here
};

struct XYSeries {
    std::string name;
    int color = 0;  // class c<color>
    std::vector<XYPoint> points;
    bool line = true;  // join the points (a NaN y breaks the line)
    bool markers = true;  // a circle at each point (whose `marker` is set)
    /// Not empty: the points' low..high drawn as a shaded band (named so in the legend)
    /// instead of error bars.
    std::string band{};
};

/// A vertical line across the plot at x, labelled at its top (where a series steps).
struct XMarker {
    double x = NAN;
    std::string label;  // short: it is drawn beside the line
    std::string tip;  // the line's tooltip
};

/// A line chart: y against x, one line per series.
struct XYChart {
    std::string id;  // unique in the page: ids of the title and desc derive from it
    std::string title, description;
    Axis x, y;
    std::vector<XYSeries> series;
    /// Shaded spans of x (e.g. the measurement windows of a monitor timeline), named in
    /// the legend as `band_label`.
    std::vector<std::pair<double, double>> bands;
    std::string band_label;
    /// Vertical lines (class "marker"), named in the legend as `marker_label`.
    std::vector<XMarker> markers;
    std::string marker_label;
    int width = 640, height = 360;
};

std::string xy_chart(const XYChart& chart);

/// A small line chart without axes, for a table cell: the values in order, the last one
/// as a dot, and `marked` (a position in `values`, when below its size) as a vertical
/// line. Longer series than 2 * width are drawn from each pixel's lowest and highest
/// value, so that the line keeps its spikes at any length.
struct Sparkline {
    std::string title;  // its <title>: the browser's tooltip
    std::vector<double> values;
    std::size_t marked = static_cast<std::size_t>(-1);
    int color = 0;
    int width = 160, height = 32;
};

std::string sparkline(const Sparkline& spark);

/// A flame graph of folded stacks ("a;b;c" and a value; e.g. a profile's, <bench/profile.hpp>):
/// the stacks become a tree, and each frame a box as wide as its share of the whole,
/// above its caller (the root at the bottom), coloured by its name. Its <title> (the
/// tooltip) gives the frame, its value with `unit` and its share of the whole; each box
/// is a <g class="frame"> with data-frame and data-share. Frames narrower than
/// `min_share` of the whole, or deeper than `max_depth`, are not drawn (their time stays
/// in their caller's width). No stack with a positive value: no_data.
struct FlameChart {
    std::string id, title, description;
    std::vector<std::pair<std::string, double>> stacks;
    std::string unit = "ms";
    std::string root = "all";  // the bottom box: every stack
    int width = 1200;
    double min_share = 0.001;
    int max_depth = 80;
};

std::string flame_graph(const FlameChart& chart);

/// A value with its interval, drawn as a dot with whiskers.
struct IntervalMark {
    int color = 0;
    double value = NAN, low = NAN, high = NAN;
    std::string tip;
};

struct IntervalRow {
    std::string label;
    std::vector<IntervalMark> marks;  // side by side within the row
};

/// Rows of values with intervals against one horizontal axis (speedups with their CIs),
/// with an optional reference line (1x: as fast as eager).
struct IntervalChart {
    std::string id, title, description;
    Axis x;
    std::vector<IntervalRow> rows;
    std::vector<std::pair<std::string, int>> legend;  // name, colour
    double reference = NAN;
    std::string reference_label;
    int width = 900;
};

std::string interval_chart(const IntervalChart& chart);

struct DistributionRow {
    std::string label;
    int color = 0;
    std::vector<double> samples;  // finite values only
};

/// One row per sample set: a box (quartiles, median, Tukey whiskers at 1.5 IQR) over
/// a strip of the samples themselves (at most max_strip_points of them, evenly over
/// the sorted samples, so that the strip keeps the distribution's shape).
struct DistributionChart {
    std::string id, title, description;
    Axis x;
    std::vector<DistributionRow> rows;
    int width = 900;
    static constexpr std::size_t max_strip_points = 300;
};

std::string distribution_chart(const DistributionChart& chart);

/// What stands in for a chart without data: <p class="no-data">title: no data (why)</p>.
std::string no_data(std::string_view title, std::string_view why);

}  // namespace benchhost::svg
