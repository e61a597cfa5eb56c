// The sections of report.html that put models side by side (model_comparison.hpp): one
// model across frameworks (a table per configuration, the fastest's row marked, and its
// medians with their CIs drawn), the accuracy table with a chart of accuracy against
// latency per benchmark, the dtypes beside float32, and throughput against the parameter
// count across models.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "report/html/html_page.hpp"
#include "report/html/svg_chart.hpp"
#include "report/model_comparison.hpp"
#include "util/append_unique.hpp"
#include "util/text_table.hpp"
#include "util/units.hpp"

namespace benchhost {
namespace {

/// The table; the row `marked` (when one of them) has the class "fastest".
std::string comparison_table_html(const ComparisonTable& table, std::size_t marked = SIZE_MAX) {
    std::string out = "<table class=\"scenarios\"><thead><tr>";
    for (const std::string& column : table.header) out += "<th>" + html_escape(column) + "</th>";
    out += "</tr></thead><tbody>\n";
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
        const auto& row = table.rows[r];
        out += r == marked ? "<tr class=\"fastest\">" : "<tr>";
        for (const std::string& cell : row) out += "<td>" + html_escape(cell) + "</td>";
        out += "</tr>\n";
    }
    return out + "</tbody></table>\n";
}

std::string in_figure(const std::string& chart) { return "<figure>" + chart + "</figure>\n"; }

/// Where a point sits among its scenario's axes: "eager, float32, batch 4".
std::string point_name(const MeasuredModel& model) {
    const bench::ScenarioConfig& config = model.scenario->outcome->config;
    return model.scenario->variant + ", " + config.dtype + ", batch " + std::to_string(config.batch_size);
}

double median_or_nan(const SeriesStatistics* series) {
    return series != nullptr && series->analysis.summary.count > 0 ? series->analysis.summary.median : NAN;
}

/// Top-1 accuracy against median latency, one chart per benchmark, one series per model.
std::string accuracy_charts(const ModelComparison& comparison,
                            const std::function<std::string(std::string_view)>& next_id) {
    std::vector<std::string> benchmarks;
    std::map<std::string, std::vector<const MeasuredModel*>> by_benchmark;
    for (const MeasuredModel& model : comparison.models) {
        if (model.accuracy == nullptr || !std::isfinite(median_or_nan(model.latency)) ||
            !is_time_unit(model.latency->unit))
            continue;
        const std::string benchmark = model.scenario->outcome->config.benchmark_id();
        if (by_benchmark[benchmark].empty()) benchmarks.push_back(benchmark);
        by_benchmark[benchmark].push_back(&model);
    }
    std::string out;
    for (const std::string& benchmark : benchmarks) {
        const std::vector<const MeasuredModel*>& members = by_benchmark[benchmark];
        double max_ms = 0, low = INFINITY, high = 0;
        for (const MeasuredModel* m : members)
            max_ms = std::max(max_ms, median_or_nan(m->latency) * to_ms_factor(m->latency->unit));
        const auto [unit, factor] = time_display_unit(max_ms);
        svg::XYChart chart;
        chart.id = next_id("accuracy-" + benchmark);
        chart.title = benchmark + ": top-1 accuracy against median latency";
        chart.description = "For each model and scenario of " + benchmark +
                            ", its top-1 accuracy over the data set against the median latency of a batch, one colour "
                            "per model; the tooltips give the top-5 accuracy and the scenario.";
        std::vector<std::string> labels;
        for (const MeasuredModel* m : members) append_unique(labels, m->label);
        for (std::size_t i = 0; i < labels.size(); ++i) {
            svg::XYSeries series{labels[i], static_cast<int>(i % 8), {}, false, true};
            for (const MeasuredModel* m : members) {
                if (m->label != labels[i]) continue;
                const double x = median_or_nan(m->latency) * to_ms_factor(m->latency->unit) * factor;
                const bench::Accuracy& a = *m->accuracy;
                char tip[256];
                std::snprintf(tip, sizeof tip, "%s, %s: top-1 %.1f%%, top-5 %.1f%% of %lld, median %s",
                              m->label.c_str(), point_name(*m).c_str(), 100 * a.top1(), 100 * a.top5(), a.inputs,
                              format_figure(median_or_nan(m->latency), m->latency->unit).c_str());
                series.points.push_back({x, 100 * a.top1(), NAN, NAN, tip});
                low = std::min(low, x);
                high = std::max(high, x);
            }
            chart.series.push_back(std::move(series));
        }
        chart.x = {"median latency of a batch (" + unit + ")", svg::scale_for(low, high, 10), {}, true};
        chart.y = {"top-1 accuracy (%)", svg::Scale::linear, {0, 20, 40, 60, 80, 100}, true};
        out += in_figure(svg::xy_chart(chart));
    }
    return out;
}

/// A group's medians with their CIs, a row per framework and variant (coloured by
/// framework), against a line at the fastest's median.
std::string framework_chart(const FrameworkTable& table, const std::function<std::string(std::string_view)>& next_id) {
    const ModelGroup& group = *table.group;
    double max_median = 0;  // in the series' unit
    for (const ScenarioFigures* f : table.scenarios) max_median = std::max(max_median, f->analysis.summary.median);
    const double to_ms = to_ms_factor(group.unit);
    const auto [unit, factor] = time_display_unit(max_median * to_ms);
    const double scale = to_ms * factor;  // from the series' unit to the axis'
    svg::IntervalChart chart;
    chart.id = next_id("frameworks-" + group.model);
    chart.title = table.table.title + ": median " + group.series + " by framework and variant, with 95% CIs";
    chart.description = "For " + group.model + " in each framework and variant, the median " + group.series +
                        " with its 95% bootstrap confidence interval as whiskers; one colour per framework, the "
                        "line at the fastest's median.";
    chart.width = 900;
    double low = INFINITY, high = 0;
    for (std::size_t i = 0; i < group.entries.size(); ++i) {
        const FrameworkEntry& entry = group.entries[i];
        const ScenarioFigures& f = *table.scenarios[i];
        const auto color = static_cast<int>(
            (std::find(group.frameworks.begin(), group.frameworks.end(), entry.framework) - group.frameworks.begin()) %
            8);
        const bench::Interval& ci = f.analysis.median_ci;
        const double median = f.analysis.summary.median * scale;
        svg::IntervalRow row{table.table.rows[i][0] + " " + table.table.rows[i][2], {}};
        row.marks.push_back({color, median, ci.valid() ? ci.low * scale : NAN, ci.valid() ? ci.high * scale : NAN,
                             row.label + ": " + median_with_ci(f) + " (" + table.table.rows[i][4] + ")"});
        low = std::min({low, median, ci.valid() ? ci.low * scale : median});
        high = std::max({high, median, ci.valid() ? ci.high * scale : median});
        chart.rows.push_back(std::move(row));
    }
    for (std::size_t i = 0; i < group.frameworks.size(); ++i)
        chart.legend.emplace_back(group.frameworks[i], static_cast<int>(i % 8));
    chart.reference = group.entries[group.fastest].series->analysis.summary.median * scale;
    chart.reference_label = "the fastest";
    chart.x = {"median " + group.series + " (" + unit + ")", svg::scale_for(low, high, 8), {}, true};
    return in_figure(svg::interval_chart(chart));
}

bool has_size_and_throughput(const MeasuredModel& model) {
    return std::isfinite(model.parameters) && model.parameters > 0 && std::isfinite(median_or_nan(model.throughput));
}

/// The throughput units in which models of two sizes or more have a throughput: a
/// chart of throughput against parameters compares them (one model alone is one point).
std::vector<std::string> scaling_units(const ModelComparison& comparison) {
    std::map<std::string, std::set<double>> sizes;  // unit -> parameter counts
    std::vector<std::string> units;
    for (const MeasuredModel& model : comparison.models) {
        if (!has_size_and_throughput(model)) continue;
        const std::string& unit = model.throughput->unit;
        if (sizes[unit].insert(model.parameters).second && sizes[unit].size() == 2) units.push_back(unit);
    }
    return units;
}

/// Median throughput against parameters, across every model of the run with both; one
/// chart per throughput unit with models of two sizes or more, one series per model.
std::string scaling_charts(const ModelComparison& comparison,
                           const std::function<std::string(std::string_view)>& next_id) {
    std::string out;
    for (const std::string& unit : scaling_units(comparison)) {
        std::vector<std::string> names;  // "resnet50", "torchscript_model/original"
        std::map<std::string, std::vector<const MeasuredModel*>> by_name;
        double x_low = INFINITY, x_high = 0, y_low = INFINITY, y_high = 0;
        for (const MeasuredModel& model : comparison.models) {
            if (!has_size_and_throughput(model) || model.throughput->unit != unit) continue;
            const bench::ScenarioConfig& config = model.scenario->outcome->config;
            const std::string name = model.prefix.empty() ? config.plugin : config.plugin + "/" + model.label;
            if (by_name[name].empty()) names.push_back(name);
            by_name[name].push_back(&model);
            x_low = std::min(x_low, model.parameters);
            x_high = std::max(x_high, model.parameters);
            y_low = std::min(y_low, median_or_nan(model.throughput));
            y_high = std::max(y_high, median_or_nan(model.throughput));
        }
        svg::XYChart chart;
        chart.id = next_id("scaling-" + unit);
        chart.title = "Throughput against parameters (" + unit + ")";
        chart.description =
            "For each model of the run, the median throughput of each of its scenarios against its "
            "parameter count, one colour per model: how throughput scales with the size of the model.";
        for (std::size_t i = 0; i < names.size(); ++i) {
            svg::XYSeries series{names[i], static_cast<int>(i % 8), {}, false, true};
            for (const MeasuredModel* m : by_name[names[i]]) {
                const double y = median_or_nan(m->throughput);
                series.points.push_back(
                    {m->parameters, y, m->throughput->analysis.median_ci.low, m->throughput->analysis.median_ci.high,
                     names[i] + ", " + point_name(*m) + ": " + format_figure(m->parameters, "parameters") + ", " +
                         format_figure(y, unit)});
            }
            chart.series.push_back(std::move(series));
        }
        chart.x = {"parameters", svg::scale_for(x_low, x_high, 8), {}, false};
        chart.y = {"median throughput (" + unit + ")", svg::scale_for(y_low, y_high, 10), {}, true};
        out += in_figure(svg::xy_chart(chart));
    }
    return out;
}

bool has_scaling(const ModelComparison& comparison) { return !scaling_units(comparison).empty(); }

}  // namespace

std::string model_comparison_nav(const ModelComparison& comparison) {
    std::string out;
    if (!comparison.frameworks.empty()) out += "<li><a href=\"#frameworks\">Frameworks</a></li>";
    if (!comparison.accuracy.rows.empty()) out += "<li><a href=\"#accuracy\">Accuracy</a></li>";
    if (!comparison.precision.rows.empty()) out += "<li><a href=\"#precision\">Precision</a></li>";
    if (has_scaling(comparison)) out += "<li><a href=\"#scaling\">Scaling</a></li>";
    return out;
}

std::string model_comparison_html(const ModelComparison& comparison,
                                  const std::function<std::string(std::string_view)>& next_id) {
    std::string out;
    if (!comparison.frameworks.empty()) {
        out += "<section id=\"frameworks\"><h2>" + html_escape(frameworks_title) + "</h2>\n<p>" +
               html_escape(frameworks_intro) + "</p>\n";
        for (const FrameworkTable& table : comparison.frameworks)
            out += "<h3 id=\"" + table.table.id + "\">" + html_escape(table.table.title) + "</h3>\n<p>" +
                   html_escape(table.table.intro) + "</p>\n<div class=\"scroll\">" +
                   comparison_table_html(table.table, table.fastest_row) + "</div>\n<div class=\"figures\">\n" +
                   framework_chart(table, next_id) + "</div>\n";
        if (!comparison.one_framework.empty())
            out += "<p class=\"muted\">" + html_escape(comparison.one_framework) + "</p>\n";
        out += "</section>\n";
    }
    if (!comparison.accuracy.rows.empty()) {
        const ComparisonTable& table = comparison.accuracy;
        out += "<section id=\"" + table.id + "\"><h2>" + html_escape(table.title) + "</h2>\n<p>" +
               html_escape(table.intro) + "</p>\n" + comparison_table_html(table) + "<div class=\"figures\">\n" +
               accuracy_charts(comparison, next_id) + "</div>\n</section>\n";
    }
    if (!comparison.precision.rows.empty()) {
        const ComparisonTable& table = comparison.precision;
        out += "<section id=\"" + table.id + "\"><h2>" + html_escape(table.title) + "</h2>\n<p>" +
               html_escape(table.intro) + "</p>\n" + comparison_table_html(table) + "</section>\n";
    }
    if (has_scaling(comparison)) {
        out +=
            "<section id=\"scaling\"><h2>Throughput against parameters</h2>\n<p>Each model's median throughput "
            "against its parameter count, a point per scenario (variant, dtype, batch size).</p>\n"
            "<div class=\"figures\">\n" +
            scaling_charts(comparison, next_id) + "</div>\n</section>\n";
    }
    return out;
}

}  // namespace benchhost
