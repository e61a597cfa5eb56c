#include "report/html/svg_chart.hpp"

#include "report/html/html_page.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>

#include <bench/statistics.hpp>

#include "json/json_writer.hpp"
#include "util/text_table.hpp"

namespace benchhost::svg {
namespace {

constexpr int palette_size = 8;  // classes c0 ... c7 in the page's style sheet
constexpr double char_width = 0.58;  // of the font size: an estimate for a sans-serif font

std::string color_class(int color) {
    std::string name = "c";  // (not "c" + to_string: GCC 12 warns wrongly about that, -Wrestrict)
    name += std::to_string(((color % palette_size) + palette_size) % palette_size);
    return name;
}

// A coordinate: one decimal, no trailing ".0".
std::string num(double value) {
    if (!std::isfinite(value)) return "0";
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.1f", value);
    std::string text = buffer;
    if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) text.resize(text.size() - 2);
    if (text == "-0") text = "0";
    return text;
}

// Appends a path command with its point to `d`: "M12.5 40".
void path_to(std::string& d, char command, double x, double y) {
    d += command;
    d += num(x);
    d += ' ';
    d += num(y);
}

// A data value for an attribute: enough digits to read it back.
std::string value_text(double value) {
    if (!std::isfinite(value)) return "NaN";
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.6g", value);
    return buffer;
}

double text_width(std::string_view text, double font_px) {
    return static_cast<double>(display_width(text)) * font_px * char_width;
}

// Cuts `text` to fit `width` pixels at `font_px`, with "..." at the end.
std::string fit(std::string_view text, double width, double font_px) {
    const auto limit = static_cast<std::size_t>(std::max(4.0, width / (font_px * char_width)));
    return one_line(text, limit);
}

// An axis' domain and ticks.
struct Scaled {
    Scale scale = Scale::linear;
    double low = 0, high = 1;
    std::vector<double> ticks;
    std::vector<std::string> labels;  // of the ticks, when the axis names them

    double t(double v) const { return scale == Scale::log ? std::log10(v) : v; }
    std::string label(std::size_t tick) const { return tick < labels.size() ? labels[tick] : tick_label(ticks[tick]); }
    bool drawable(double v) const { return std::isfinite(v) && (scale == Scale::linear || v > 0); }
};

double nice_step(double span, int target) {
    const double raw = span / target;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double norm = raw / magnitude;
    const double factor = norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10;
    return factor * magnitude;
}

Scaled scaled(const Axis& axis, double low, double high) {
    Scaled s;
    s.scale = axis.scale;
    const bool log = axis.scale == Scale::log;
    if (!std::isfinite(low) || !std::isfinite(high) || (log && (low <= 0 || high <= 0))) {
        low = log ? 1 : 0;
        high = log ? 10 : 1;
    }
    if (low > high) std::swap(low, high);
    for (const double tick : axis.ticks) {
        if (!std::isfinite(tick) || (log && tick <= 0)) continue;
        low = std::min(low, tick);
        high = std::max(high, tick);
    }

    if (log) {
        if (low == high) {
            low /= 2;
            high *= 2;
        }
        const double pad = std::max(0.04 * (std::log10(high) - std::log10(low)), 0.02);
        s.low = std::pow(10.0, std::log10(low) - pad);
        s.high = std::pow(10.0, std::log10(high) + pad);
        if (!axis.ticks.empty()) {
            for (std::size_t i = 0; i < axis.ticks.size(); ++i) {
                if (!(axis.ticks[i] > 0)) continue;
                s.ticks.push_back(axis.ticks[i]);
                if (axis.tick_labels.size() == axis.ticks.size()) s.labels.push_back(axis.tick_labels[i]);
            }
        } else {
            // Powers of ten when the axis spans many decades, else 1-2-5 steps, finer until
            // there are at least three ticks.
            const int first = static_cast<int>(std::floor(std::log10(s.low)));
            const int last = static_cast<int>(std::ceil(std::log10(s.high)));
            const double decades = std::log10(s.high / s.low);
            const std::vector<std::vector<double>> steps = {{1}, {1, 2, 5}, {1, 1.5, 2, 3, 4, 5, 6, 8}};
            const int every = decades > 8 ? 2 : 1;
            for (std::size_t level = decades > 2.5 ? 0 : 1; level < steps.size(); ++level) {
                s.ticks.clear();
                for (int k = first; k <= last; ++k) {
                    if (level == 0 && (k - first) % every != 0) continue;
                    for (const double m : steps[level]) {
                        const double tick = m * std::pow(10.0, k);
                        if (tick >= s.low && tick <= s.high) s.ticks.push_back(tick);
                    }
                }
                if (s.ticks.size() >= 3) break;
            }
            if (s.ticks.empty()) s.ticks = {std::sqrt(s.low * s.high)};
        }
        return s;
    }

    if (axis.include_zero) {
        low = std::min(low, 0.0);
        high = std::max(high, 0.0);
    }
    if (low == high) {
        const double d = low == 0 ? 1 : std::abs(low) * 0.1;
        low = axis.include_zero && low >= 0 ? 0 : low - d;
        high += d;
    }
    if (!axis.ticks.empty()) {
        const double pad = 0.05 * (high - low);
        s.low = low - pad;
        s.high = high + pad;
        s.ticks = axis.ticks;
        if (axis.tick_labels.size() == axis.ticks.size()) s.labels = axis.tick_labels;
        return s;
    }
    // Pad by 5% (not past zero), then widen to whole steps.
    const double pad = 0.05 * (high - low);
    double padded_low = low - pad, padded_high = high + pad;
    if (low >= 0 && padded_low < 0) padded_low = 0;
    if (high <= 0 && padded_high > 0) padded_high = 0;
    const double step = nice_step(padded_high - padded_low, 5);
    s.low = std::floor(padded_low / step + 1e-9) * step;
    s.high = std::ceil(padded_high / step - 1e-9) * step;
    for (double v = s.low; v <= s.high + step * 1e-6; v += step) s.ticks.push_back(std::round(v / step) * step);
    return s;
}

// Maps data values on an axis to pixels between p0 (at low) and p1 (at high).
struct Mapper {
    const Scaled* s;
    double p0, p1;
    double operator()(double v) const {
        const double a = s->t(s->low), b = s->t(s->high);
        const double f = b == a ? 0.5 : (s->t(v) - a) / (b - a);
        return p0 + f * (p1 - p0);
    }
};

std::string open_svg(const std::string& id, int width, int height, const std::string& title,
                     const std::string& description, const std::string& kind) {
    std::string out;
    out += "<svg class=\"chart " + kind + "\" role=\"img\" viewBox=\"0 0 " + std::to_string(width) + " " +
           std::to_string(height) + "\" width=\"" + std::to_string(width) + "\" height=\"" + std::to_string(height) +
           "\" aria-labelledby=\"" + escape(id) + "-title " + escape(id) + "-desc\" id=\"" + escape(id) + "\">";
    out += "<title id=\"" + escape(id) + "-title\">" + escape(title) + "</title>";
    out += "<desc id=\"" + escape(id) + "-desc\">" + escape(description) + "</desc>";
    return out;
}

std::string text_element(double x, double y, const std::string& klass, std::string_view content,
                         const char* anchor = "start", const std::string& extra = "") {
    return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" class=\"" + klass + "\" text-anchor=\"" + anchor + "\"" +
           extra + ">" + escape(content) + "</text>";
}

/// How much lower than a one-line title's chart the rest of a chart with a two-line
/// title is drawn.
constexpr double title_second_line = 17;

/// The chart's title, centred: one line, or, when it does not fit, two: a scenario id's
/// axes ("[variant=...]") on the second line, else broken after the last space, comma
/// or slash that leaves the first line fitting; the second line is cut with "..." if it
/// still does not fit. Adds title_second_line to `below` for two.
std::string chart_title(int width, const std::string& title, double& below) {
    const double room = width - 20, middle = width / 2.0;
    const auto fits = static_cast<std::size_t>(std::max(4.0, room / (14 * char_width)));
    const std::string_view head = std::string_view(title).substr(0, fits);
    std::size_t cut = head.find('[');  // a scenario's axes start the second line
    if (cut == std::string::npos || cut < fits / 3) {
        cut = head.find_last_of(" ,/");  // else the last space, comma or slash ends the first
        if (cut != std::string::npos) ++cut;
    }
    if (text_width(title, 14) <= room || cut == std::string::npos || cut < fits / 3)
        return text_element(middle, 20, "chart-title", fit(title, room, 14), "middle");
    std::string_view first = std::string_view(title).substr(0, cut), second = std::string_view(title).substr(cut);
    first = first.substr(0, first.find_last_not_of(' ') + 1);
    second = second.substr(std::min(second.size(), second.find_first_not_of(' ')));
    below += title_second_line;
    return text_element(middle, 20, "chart-title", first, "middle") +
           text_element(middle, 20 + title_second_line, "chart-title", fit(second, room, 14), "middle");
}

struct LegendItem {
    std::string name;
    std::string swatch;  // "line", "dot", "band", "ref"
    int color = 0;
};

// Lays legend items out in lines from x0 to x1, starting at baseline y; returns the SVG
// and sets `height` to the space it took.
std::string legend(const std::vector<LegendItem>& items, double x0, double x1, double y, double& height) {
    std::string out = "<g class=\"legend\">";
    double x = x0;
    int lines = items.empty() ? 0 : 1;
    for (const LegendItem& item : items) {
        const std::string label = fit(item.name, x1 - x0 - 30, 12);
        const double w = 22 + text_width(label, 12) + 16;
        if (x > x0 && x + w > x1) {
            x = x0;
            y += 18;
            ++lines;
        }
        const std::string c = color_class(item.color);
        if (item.swatch == "band") {
            out += "<rect class=\"band\" x=\"" + num(x) + "\" y=\"" + num(y - 9) + "\" width=\"16\" height=\"10\"/>";
        } else if (item.swatch == "marker") {
            out += "<path class=\"marker\" d=\"M" + num(x + 8) + " " + num(y - 11) + "v13\"/>";
        } else if (item.swatch == "ref") {
            out += "<path class=\"ref\" d=\"M" + num(x) + " " + num(y - 4) + "h16\"/>";
        } else {
            out += "<path class=\"line " + c + "\" d=\"M" + num(x) + " " + num(y - 4) + "h16\"/>";
            out += "<circle class=\"swatch " + c + "\" cx=\"" + num(x + 8) + "\" cy=\"" + num(y - 4) + "\" r=\"3.5\"/>";
        }
        out += text_element(x + 22, y, "legend-text", label);
        x += w;
    }
    out += "</g>";
    height = lines * 18.0;
    return out;
}

std::string x_axis(const Scaled& s, const Mapper& map, double top, double bottom, const std::string& title,
                   double title_x, double title_y) {
    std::string out = "<g class=\"x-axis\">";
    for (std::size_t i = 0; i < s.ticks.size(); ++i) {
        if (!s.drawable(s.ticks[i])) continue;
        const double x = map(s.ticks[i]);
        out += "<path class=\"grid\" d=\"M" + num(x) + " " + num(top) + "V" + num(bottom) + "\"/>";
        out += "<path class=\"tick\" d=\"M" + num(x) + " " + num(bottom) + "v5\"/>";
        out += text_element(x, bottom + 18, "tick-label", s.label(i), "middle");
    }
    out += "<path class=\"axis\" d=\"M" + num(map.p0) + " " + num(bottom) + "H" + num(map.p1) + "\"/>";
    out += text_element(title_x, title_y, "axis-title", title, "middle");
    out += "</g>";
    return out;
}

std::string y_axis(const Scaled& s, const Mapper& map, double left, double right, const std::string& title,
                   double title_x) {
    std::string out = "<g class=\"y-axis\">";
    for (std::size_t i = 0; i < s.ticks.size(); ++i) {
        if (!s.drawable(s.ticks[i])) continue;
        const double y = map(s.ticks[i]);
        out += "<path class=\"grid\" d=\"M" + num(left) + " " + num(y) + "H" + num(right) + "\"/>";
        out += "<path class=\"tick\" d=\"M" + num(left - 5) + " " + num(y) + "h5\"/>";
        out += text_element(left - 8, y + 4, "tick-label", s.label(i), "end");
    }
    out += "<path class=\"axis\" d=\"M" + num(left) + " " + num(map.p0) + "V" + num(map.p1) + "\"/>";
    const double middle = (map.p0 + map.p1) / 2;
    out += text_element(title_x, middle, "axis-title", title, "middle",
                        " transform=\"rotate(-90 " + num(title_x) + " " + num(middle) + ")\"");
    out += "</g>";
    return out;
}

double max_tick_label_width(const Scaled& s, double font_px) {
    double width = 0;
    for (std::size_t i = 0; i < s.ticks.size(); ++i) width = std::max(width, text_width(s.label(i), font_px));
    return width;
}

/// Whether a value can be drawn on an axis of `scale`: finite, and positive on a
/// logarithmic one.
bool drawable_on(double value, Scale scale) { return std::isfinite(value) && (scale == Scale::linear || value > 0); }

}  // namespace

std::string escape(std::string_view text) { return html_escape(text); }

Scale scale_for(double low, double high, double wide) {
    if (!(low > 0) || !(high > 0) || !std::isfinite(low) || !std::isfinite(high)) return Scale::linear;
    return std::max(low, high) / std::min(low, high) >= wide ? Scale::log : Scale::linear;
}

std::vector<double> ticks_for(const Axis& axis, double low, double high) { return scaled(axis, low, high).ticks; }

std::string tick_label(double value) {
    if (!std::isfinite(value)) return "";
    if (value == 0) return "0";
    const double magnitude = std::abs(value);
    char buffer[32];
    if (magnitude >= 1e6 || magnitude < 1e-3) {
        std::snprintf(buffer, sizeof(buffer), "%.3g", value);
    } else {
        std::snprintf(buffer, sizeof(buffer), "%.4g", value);
    }
    std::string text = buffer;
    if (magnitude >= 1e4 && magnitude < 1e6) {  // 12000 -> 12k
        std::snprintf(buffer, sizeof(buffer), "%.4gk", value / 1000);
        text = buffer;
    }
    return text;
}

std::string no_data(std::string_view title, std::string_view why) {
    std::string out = "<p class=\"no-data\"><strong>" + escape(title) + "</strong>: no data";
    if (!why.empty()) out += " (" + escape(why) + ")";
    return out + "</p>\n";
}

std::string xy_chart(const XYChart& chart) {
    // The data's extent.
    double x_low = std::numeric_limits<double>::infinity(), x_high = -x_low;
    double y_low = x_low, y_high = -x_low;
    std::size_t drawable = 0;
    const auto usable = drawable_on;
    for (const XYSeries& series : chart.series) {
        for (const XYPoint& p : series.points) {
            if (!usable(p.x, chart.x.scale) || !usable(p.y, chart.y.scale)) continue;
            ++drawable;
            x_low = std::min(x_low, p.x);
            x_high = std::max(x_high, p.x);
            y_low = std::min(y_low, p.y);
            y_high = std::max(y_high, p.y);
            for (const double bound : {p.low, p.high}) {
                if (!usable(bound, chart.y.scale)) continue;
                y_low = std::min(y_low, bound);
                y_high = std::max(y_high, bound);
            }
        }
    }
    if (drawable == 0) return no_data(chart.title, "nothing to plot");
    for (const auto& [from, to] : chart.bands) {
        if (usable(from, chart.x.scale)) x_low = std::min(x_low, from);
        if (usable(to, chart.x.scale)) x_high = std::max(x_high, to);
    }

    const Scaled sx = scaled(chart.x, x_low, x_high);
    const Scaled sy = scaled(chart.y, y_low, y_high);
    const double width = chart.width, height = chart.height;

    std::vector<LegendItem> items;
    for (const XYSeries& series : chart.series) {
        items.push_back({series.name, series.line ? "line" : "dot", series.color});
        if (!series.band.empty()) items.push_back({series.band, "band", series.color});
    }
    if (!chart.bands.empty() && !chart.band_label.empty()) items.push_back({chart.band_label, "band", 0});
    if (!chart.markers.empty() && !chart.marker_label.empty()) items.push_back({chart.marker_label, "marker", 0});

    const double left = 30 + max_tick_label_width(sy, 11) + 10;
    const double right = width - 18;
    double title_below = 0;
    const std::string title_svg = chart_title(chart.width, chart.title, title_below);
    double legend_height = 0;
    const std::string legend_svg = legend(items, left, right, 42 + title_below, legend_height);
    const double top = 30 + title_below + legend_height + 8;
    const double bottom = height - 46;

    const Mapper mx{&sx, left, right};
    const Mapper my{&sy, bottom, top};

    std::string out = open_svg(chart.id, chart.width, chart.height, chart.title, chart.description, "xy");
    out += title_svg;
    out += legend_svg;
    out += "<g class=\"bands\">";
    for (const auto& [from, to] : chart.bands) {
        if (!usable(from, chart.x.scale) || !usable(to, chart.x.scale)) continue;
        const double x0 = std::clamp(mx(from), left, right), x1 = std::clamp(mx(to), left, right);
        out += "<rect class=\"band\" x=\"" + num(x0) + "\" y=\"" + num(top) + "\" width=\"" +
               num(std::max(x1 - x0, 1.0)) + "\" height=\"" + num(bottom - top) + "\"/>";
    }
    out += "</g>";
    out += x_axis(sx, mx, top, bottom, chart.x.title, (left + right) / 2, height - 10);
    out += y_axis(sy, my, left, right, chart.y.title, 14);

    // The series' interval bands: from low to high along the points, back along their
    // lows; a point without both breaks the band.
    for (const XYSeries& series : chart.series) {
        if (series.band.empty()) continue;
        std::string d;
        std::vector<const XYPoint*> run;
        const auto close_run = [&] {
            if (run.size() >= 2) {
                for (std::size_t i = 0; i < run.size(); ++i)
                    path_to(d, i == 0 ? 'M' : 'L', mx(run[i]->x), my(run[i]->high));
                for (auto it = run.rbegin(); it != run.rend(); ++it) path_to(d, 'L', mx((*it)->x), my((*it)->low));
                d += 'Z';
            }
            run.clear();
        };
        for (const XYPoint& p : series.points) {
            if (usable(p.x, chart.x.scale) && usable(p.low, chart.y.scale) && usable(p.high, chart.y.scale))
                run.push_back(&p);
            else close_run();
        }
        close_run();
        if (!d.empty())
            out += "<path class=\"band interval " + color_class(series.color) + "\" data-series=\"" +
                   escape(series.name) + "\" d=\"" + d + "\"><title>" + escape(series.band) + "</title></path>";
    }

    // The markers, their labels in up to three rows at the top, each in the first row
    // where it does not run into the label before it.
    if (!chart.markers.empty()) {
        out += "<g class=\"markers\">";
        std::vector<double> row_end(3, -std::numeric_limits<double>::infinity());
        for (const XMarker& marker : chart.markers) {
            if (!usable(marker.x, chart.x.scale)) continue;
            const double x = std::clamp(mx(marker.x), left, right);
            const std::string label = fit(marker.label, 160, 11);
            const double label_width = text_width(label, 11);
            std::size_t row = 0;
            while (row < row_end.size() && x + 3 < row_end[row] + 6) ++row;
            if (row == row_end.size()) row = 0;
            const bool flip = x + 3 + label_width > right;  // near the right edge: left of the line
            row_end[row] = flip ? x : x + 3 + label_width;
            out += "<g class=\"step-marker\" data-x=\"" + value_text(marker.x) + "\"><title>" + escape(marker.tip) +
                   "</title><path class=\"marker\" d=\"M" + num(x) + " " + num(top) + "V" + num(bottom) + "\"/>" +
                   text_element(flip ? x - 3 : x + 3, top + 11 + 13 * static_cast<double>(row), "marker-label", label,
                                flip ? "end" : "start") +
                   "</g>";
        }
        out += "</g>";
    }

    for (const XYSeries& series : chart.series) {
        const std::string c = color_class(series.color);
        out += "<g class=\"series " + c + "\" data-series=\"" + escape(series.name) + "\">";
        if (series.line) {
            std::string d;
            bool pen_down = false;
            for (const XYPoint& p : series.points) {
                if (!usable(p.x, chart.x.scale) || !usable(p.y, chart.y.scale)) {
                    pen_down = false;
                    continue;
                }
                d += (pen_down ? "L" : "M") + num(mx(p.x)) + " " + num(my(p.y));
                pen_down = true;
            }
            if (!d.empty()) out += "<path class=\"line " + c + "\" d=\"" + d + "\"/>";
        }
        for (const XYPoint& p : series.points) {
            if (!usable(p.x, chart.x.scale) || !usable(p.y, chart.y.scale)) continue;
            const double x = mx(p.x), y = my(p.y);
            if (series.band.empty() && usable(p.low, chart.y.scale) && usable(p.high, chart.y.scale)) {
                const double y0 = my(p.low), y1 = my(p.high);
                out += "<path class=\"err " + c + "\" d=\"M" + num(x) + " " + num(y0) + "V" + num(y1) + "M" +
                       num(x - 4) + " " + num(y0) + "h8M" + num(x - 4) + " " + num(y1) + "h8\"/>";
            }
            if (!series.markers || !p.marker) continue;
            const std::string tip =
                p.tip.empty() ? series.name + ": " + tick_label(p.x) + ", " + tick_label(p.y) : p.tip;
            out += "<circle class=\"pt " + c + "\" cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"4\" data-x=\"" +
                   value_text(p.x) + "\" data-y=\"" + value_text(p.y) + "\"><title>" + escape(tip) +
                   "</title></circle>";
        }
        out += "</g>";
    }
    out += "</svg>\n";
    return out;
}

std::string sparkline(const Sparkline& spark) {
    // The points drawn: all of them, or each pixel's lowest and highest in their order.
    const std::size_t n = spark.values.size();
    const auto pixels = static_cast<std::size_t>(std::max(spark.width, 1));
    std::vector<std::size_t> drawn;
    double low = std::numeric_limits<double>::infinity(), high = -low;
    std::size_t bucket_low = n, bucket_high = n, bucket = 0;
    const auto flush = [&] {
        if (bucket_low == n) return;
        drawn.push_back(std::min(bucket_low, bucket_high));
        if (bucket_high != bucket_low) drawn.push_back(std::max(bucket_low, bucket_high));
        bucket_low = bucket_high = n;
    };
    for (std::size_t i = 0; i < n; ++i) {
        const double v = spark.values[i];
        if (!std::isfinite(v)) continue;
        low = std::min(low, v);
        high = std::max(high, v);
        if (n <= 2 * pixels) {
            drawn.push_back(i);
            continue;
        }
        if (const std::size_t b = i * pixels / n; b != bucket) {
            flush();
            bucket = b;
        }
        if (bucket_low == n || v < spark.values[bucket_low]) bucket_low = i;
        if (bucket_high == n || v > spark.values[bucket_high]) bucket_high = i;
    }
    flush();
    if (drawn.empty()) return "<span class=\"no-data\">no data</span>";
    Scaled sx, sy;
    sx.low = 0;
    sx.high = n > 1 ? static_cast<double>(n - 1) : 1;
    sy.low = low == high ? low - 1 : low;
    sy.high = low == high ? high + 1 : high;
    const double pad = 3;
    const Mapper mx{&sx, pad, spark.width - pad}, my{&sy, spark.height - pad, pad};
    const std::string c = color_class(spark.color);
    std::string out = "<svg class=\"spark\" role=\"img\" viewBox=\"0 0 " + std::to_string(spark.width) + " " +
                      std::to_string(spark.height) + "\" width=\"" + std::to_string(spark.width) + "\" height=\"" +
                      std::to_string(spark.height) + "\"><title>" + escape(spark.title) + "</title>";
    if (spark.marked < n) {
        const double x = mx(static_cast<double>(spark.marked));
        out += "<path class=\"marker\" d=\"M" + num(x) + " 0V" + std::to_string(spark.height) + "\"/>";
    }
    std::string d;
    for (const std::size_t i : drawn)
        path_to(d, d.empty() ? 'M' : 'L', mx(static_cast<double>(i)), my(spark.values[i]));
    out += "<path class=\"line " + c + "\" d=\"" + d + "\"/>";
    out += "<circle class=\"pt " + c + "\" cx=\"" + num(mx(static_cast<double>(drawn.back()))) + "\" cy=\"" +
           num(my(spark.values[drawn.back()])) + "\" r=\"2.5\"/></svg>";
    return out;
}

std::string flame_graph(const FlameChart& chart) {
    struct Node {
        std::string name;
        double value = 0;
        std::vector<std::size_t> children;  // indices into nodes, in the order first seen
    };
    std::vector<Node> nodes{{chart.root, 0, {}}};
    for (const auto& [stack, value] : chart.stacks) {
        if (!(value > 0) || !std::isfinite(value)) continue;
        nodes[0].value += value;
        std::size_t at = 0;
        std::size_t start = 0;
        while (start <= stack.size()) {
            std::size_t end = stack.find(';', start);
            if (end == std::string::npos) end = stack.size();
            const std::string frame = stack.substr(start, end - start);
            std::size_t child = nodes.size();
            for (const std::size_t c : nodes[at].children)
                if (nodes[c].name == frame) child = c;
            if (child == nodes.size()) {
                nodes.push_back({frame, 0, {}});
                nodes[at].children.push_back(child);
            }
            nodes[child].value += value;
            at = child;
            start = end + 1;
        }
    }
    const double total = nodes[0].value;
    if (!(total > 0)) return no_data(chart.title, "no stacks");

    // Boxes, widest first within a caller, laid out depth by depth.
    struct Box {
        std::size_t node;
        int depth;
        double x;
    };
    std::vector<Box> boxes;
    int depth_drawn = 0;
    std::vector<Box> todo{{0, 0, 0}};
    while (!todo.empty()) {
        const Box box = todo.back();
        todo.pop_back();
        boxes.push_back(box);
        depth_drawn = std::max(depth_drawn, box.depth);
        if (box.depth + 1 >= chart.max_depth) continue;
        std::vector<std::size_t> children = nodes[box.node].children;
        std::stable_sort(children.begin(), children.end(),
                         [&](std::size_t a, std::size_t b) { return nodes[a].value > nodes[b].value; });
        double x = box.x;
        for (const std::size_t c : children) {
            if (nodes[c].value / total >= chart.min_share) todo.push_back({c, box.depth + 1, x});
            x += nodes[c].value / total;
        }
    }

    double title_below = 0;
    const std::string title_svg = chart_title(chart.width, chart.title, title_below);
    const double row = 17, top = 34 + title_below, left = 10;
    const double plot = chart.width - 2 * left;
    const int height = static_cast<int>(top + (depth_drawn + 1) * row + 10);
    std::string out = open_svg(chart.id, chart.width, height, chart.title, chart.description, "flame-graph");
    out += title_svg;
    for (const Box& box : boxes) {
        const Node& node = nodes[box.node];
        const double share = node.value / total;
        const double x = left + box.x * plot, w = share * plot;
        const double y = top + (depth_drawn - box.depth) * row;
        // Colour by the name's namespace ("aten::", "c10::"), so that a family reads as one.
        const auto colon = node.name.find("::");
        const std::string family = colon == std::string::npos ? node.name : node.name.substr(0, colon);
        const int color = box.node == 0 ? 6 : static_cast<int>(std::hash<std::string>{}(family) % 6);
        const std::string share_text = format_share(share);
        out += "<g class=\"frame " + color_class(color) + "\" data-frame=\"" + escape(node.name) + "\" data-share=\"" +
               value_text(share) + "\"><title>" + escape(node.name) + ": " +
               escape(format_figure(node.value, chart.unit)) + ", " + share_text + " of " + escape(chart.root) +
               "</title>";
        out += "<rect class=\"box\" x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(w, 0.5)) +
               "\" height=\"" + num(row - 1) + "\"/>";
        if (w > 24) out += text_element(x + 3, y + row - 5, "frame-label", fit(node.name, w - 6, 11));
        out += "</g>";
    }
    out += "</svg>";
    return out;
}

std::string interval_chart(const IntervalChart& chart) {
    double low = std::numeric_limits<double>::infinity(), high = -low;
    std::size_t marks = 0;
    const auto usable = [&](double v) { return drawable_on(v, chart.x.scale); };
    for (const IntervalRow& row : chart.rows) {
        for (const IntervalMark& mark : row.marks) {
            if (!usable(mark.value)) continue;
            ++marks;
            for (const double v : {mark.value, mark.low, mark.high}) {
                if (!usable(v)) continue;
                low = std::min(low, v);
                high = std::max(high, v);
            }
        }
    }
    if (marks == 0) return no_data(chart.title, "nothing to plot");
    if (usable(chart.reference)) {
        low = std::min(low, chart.reference);
        high = std::max(high, chart.reference);
    }
    const Scaled sx = scaled(chart.x, low, high);

    const double width = chart.width;
    double label_width = 0;
    for (const IntervalRow& row : chart.rows) label_width = std::max(label_width, text_width(row.label, 12));
    label_width = std::min(label_width, width * 0.5);
    const double left = 16 + label_width + 12, right = width - 24;

    std::vector<LegendItem> items;
    for (const auto& [name, color] : chart.legend) items.push_back({name, "dot", color});
    if (usable(chart.reference) && !chart.reference_label.empty()) items.push_back({chart.reference_label, "ref", 0});
    double title_below = 0;
    const std::string title_svg = chart_title(chart.width, chart.title, title_below);
    double legend_height = 0;
    const std::string legend_svg = legend(items, left, right, 42 + title_below, legend_height);
    const double top = 30 + title_below + legend_height + 10;

    std::vector<double> row_heights;
    double rows_height = 0;
    for (const IntervalRow& row : chart.rows) {
        row_heights.push_back(std::max(26.0, 10.0 + 13.0 * static_cast<double>(row.marks.size())));
        rows_height += row_heights.back();
    }
    const double bottom = top + rows_height;
    const double height = bottom + 46;
    const Mapper mx{&sx, left, right};

    std::string out = open_svg(chart.id, chart.width, static_cast<int>(std::ceil(height)), chart.title,
                               chart.description, "intervals");
    out += title_svg;
    out += legend_svg;
    double y = top;
    for (std::size_t i = 0; i < chart.rows.size(); ++i) {
        if (i % 2 == 1)
            out += "<rect class=\"rowband\" x=\"" + num(left) + "\" y=\"" + num(y) + "\" width=\"" + num(right - left) +
                   "\" height=\"" + num(row_heights[i]) + "\"/>";
        y += row_heights[i];
    }
    out += x_axis(sx, mx, top, bottom, chart.x.title, (left + right) / 2, height - 10);
    if (usable(chart.reference)) {
        const double x = mx(chart.reference);
        out += "<path class=\"ref\" d=\"M" + num(x) + " " + num(top) + "V" + num(bottom) + "\"/>";
    }
    y = top;
    for (std::size_t i = 0; i < chart.rows.size(); ++i) {
        const IntervalRow& row = chart.rows[i];
        const double row_height = row_heights[i];
        out += "<g class=\"row\">";
        out += text_element(left - 10, y + row_height / 2 + 4, "row-label", fit(row.label, label_width, 12), "end", "");
        const double step = 13;
        double mark_y = y + row_height / 2 - step * (static_cast<double>(row.marks.size()) - 1) / 2;
        for (const IntervalMark& mark : row.marks) {
            const std::string c = color_class(mark.color);
            if (usable(mark.value)) {
                if (usable(mark.low) && usable(mark.high)) {
                    const double x0 = mx(mark.low), x1 = mx(mark.high);
                    out += "<path class=\"err " + c + "\" d=\"M" + num(x0) + " " + num(mark_y) + "H" + num(x1) + "M" +
                           num(x0) + " " + num(mark_y - 4) + "v8M" + num(x1) + " " + num(mark_y - 4) + "v8\"/>";
                }
                out += "<circle class=\"pt " + c + "\" cx=\"" + num(mx(mark.value)) + "\" cy=\"" + num(mark_y) +
                       "\" r=\"4.5\" data-x=\"" + value_text(mark.value) + "\" data-low=\"" + value_text(mark.low) +
                       "\" data-high=\"" + value_text(mark.high) + "\"><title>" + escape(mark.tip) +
                       "</title></circle>";
            }
            mark_y += step;
        }
        out += "</g>";
        y += row_height;
    }
    out += "<path class=\"axis\" d=\"M" + num(left) + " " + num(top) + "V" + num(bottom) + "\"/>";
    out += "</svg>\n";
    return out;
}

std::string distribution_chart(const DistributionChart& chart) {
    double low = std::numeric_limits<double>::infinity(), high = -low;
    std::size_t rows_with_data = 0;
    const auto usable = [&](double v) { return drawable_on(v, chart.x.scale); };
    std::vector<std::vector<double>> sorted_rows;
    for (const DistributionRow& row : chart.rows) {
        std::vector<double> sorted;
        for (const double v : row.samples)
            if (usable(v)) sorted.push_back(v);
        std::sort(sorted.begin(), sorted.end());
        if (!sorted.empty()) {
            ++rows_with_data;
            low = std::min(low, sorted.front());
            high = std::max(high, sorted.back());
        }
        sorted_rows.push_back(std::move(sorted));
    }
    if (rows_with_data == 0) return no_data(chart.title, "no samples");
    const Scaled sx = scaled(chart.x, low, high);

    const double width = chart.width;
    double label_width = 0;
    for (const DistributionRow& row : chart.rows) label_width = std::max(label_width, text_width(row.label, 12));
    label_width = std::min(label_width, width * 0.4);
    const double left = 16 + label_width + 12, right = width - 24;
    double title_below = 0;
    const std::string title_svg = chart_title(chart.width, chart.title, title_below);
    const double top = 36 + title_below, row_height = 34;
    const double bottom = top + row_height * static_cast<double>(chart.rows.size());
    const double height = bottom + 46;
    const Mapper mx{&sx, left, right};

    std::string out = open_svg(chart.id, chart.width, static_cast<int>(std::ceil(height)), chart.title,
                               chart.description, "distribution");
    out += title_svg;
    for (std::size_t i = 1; i < chart.rows.size(); i += 2)
        out += "<rect class=\"rowband\" x=\"" + num(left) + "\" y=\"" + num(top + row_height * static_cast<double>(i)) +
               "\" width=\"" + num(right - left) + "\" height=\"" + num(row_height) + "\"/>";
    out += x_axis(sx, mx, top, bottom, chart.x.title, (left + right) / 2, height - 10);

    for (std::size_t i = 0; i < chart.rows.size(); ++i) {
        const DistributionRow& row = chart.rows[i];
        const std::vector<double>& sorted = sorted_rows[i];
        const double middle = top + row_height * (static_cast<double>(i) + 0.5);
        const std::string c = color_class(row.color);
        out += "<g class=\"dist " + c + "\" data-n=\"" + std::to_string(sorted.size()) + "\">";
        out += text_element(left - 10, middle + 4, "row-label", fit(row.label, label_width, 12), "end");
        if (sorted.empty()) {
            out += text_element(left + 8, middle + 4, "note", "no samples");
            out += "</g>";
            continue;
        }
        // The strip: at most max_strip_points samples, evenly over the sorted ones.
        const std::size_t n = sorted.size();
        const std::size_t shown = std::min(n, DistributionChart::max_strip_points);
        for (std::size_t k = 0; k < shown; ++k) {
            const std::size_t index = shown == 1 ? 0 : (k * (n - 1) + (shown - 1) / 2) / (shown - 1);
            const double jitter = (static_cast<double>((k * 2654435761u) % 1000) / 1000.0 - 0.5) * 20;
            out += "<circle class=\"dot " + c + "\" cx=\"" + num(mx(sorted[index])) + "\" cy=\"" +
                   num(middle + jitter) + "\" r=\"1.8\"/>";
        }
        // The box and its whiskers.
        const double q1 = bench::percentile_of_sorted(sorted, 25), q3 = bench::percentile_of_sorted(sorted, 75);
        const double median = bench::percentile_of_sorted(sorted, 50);
        const double iqr = q3 - q1;
        double whisker_low = sorted.front(), whisker_high = sorted.back();
        for (const double v : sorted)
            if (v >= q1 - 1.5 * iqr) {
                whisker_low = v;
                break;
            }
        for (auto it = sorted.rbegin(); it != sorted.rend(); ++it)
            if (*it <= q3 + 1.5 * iqr) {
                whisker_high = *it;
                break;
            }
        const double box_half = 8;
        const std::string tip = row.label + ": " + std::to_string(n) + " samples; median " + tick_label(median) +
                                ", quartiles " + tick_label(q1) + " to " + tick_label(q3) + ", min " +
                                tick_label(sorted.front()) + ", max " + tick_label(sorted.back());
        out += "<path class=\"whisker\" d=\"M" + num(mx(whisker_low)) + " " + num(middle) + "H" + num(mx(q1)) + "M" +
               num(mx(q3)) + " " + num(middle) + "H" + num(mx(whisker_high)) + "M" + num(mx(whisker_low)) + " " +
               num(middle - 5) + "v10M" + num(mx(whisker_high)) + " " + num(middle - 5) + "v10\"/>";
        out += "<rect class=\"box " + c + "\" x=\"" + num(mx(q1)) + "\" y=\"" + num(middle - box_half) + "\" width=\"" +
               num(std::max(mx(q3) - mx(q1), 1.0)) + "\" height=\"" + num(2 * box_half) + "\" data-median=\"" +
               value_text(median) + "\"><title>" + escape(tip) + "</title></rect>";
        out += "<path class=\"median\" d=\"M" + num(mx(median)) + " " + num(middle - box_half) + "v" +
               num(2 * box_half) + "\"/>";
        out += "</g>";
    }
    out += "<path class=\"axis\" d=\"M" + num(left) + " " + num(top) + "V" + num(bottom) + "\"/>";
    out += "</svg>\n";
    return out;
}

}  // namespace benchhost::svg
