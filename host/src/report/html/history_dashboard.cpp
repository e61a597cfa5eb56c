#include "report/html/history_dashboard.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "discover/discovery.hpp"
#include "history/history_table.hpp"
#include "report/html/html_page.hpp"
#include "report/html/svg_chart.hpp"
#include "util/atomic_file.hpp"
#include "util/fingerprint.hpp"
#include "util/text_table.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t x_ticks = 8;  // commits named under a page's chart

/// The first run a page (and the index's sparkline) shows: all, or the last `limit`.
std::size_t first_shown(const SeriesHistory& history, std::size_t limit) {
    return limit > 0 && history.points.size() > limit ? history.points.size() - limit : 0;
}

std::string status_class(const std::string& status) {
    return status == "success" ? "success" : status == "skipped" ? "skipped" : "bad";
}

/// How the change points were found, in a sentence.
std::string steps_method(const SeriesHistory& history) {
    std::string text = "Change points: E-divisive means over the medians";
    if (history.steps_from > 0)
        text += fmt::format(" of the last {} runs (a step before run {} is not marked)",
                            history.points.size() - history.steps_from, history.steps_from + 1);
    return text + ", at 5% significance, with at least 3 runs on either side of a step.";
}

/// The table `history show` prints, as HTML: numbers right-aligned, a step's row marked.
std::string table_html(const HistoryTable& table) {
    std::string out = "<table class=\"history\"><thead><tr><th>RUN</th>";
    for (const TableColumn& column : table.columns) out += "<th>" + html_escape(column.title) + "</th>";
    out += "</tr></thead><tbody>\n";
    const std::size_t status_column = 7, step_column = 8;
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
        const std::vector<std::string>& row = table.rows[r];
        out += row[step_column].empty() ? "<tr>" : "<tr class=\"step\">";
        out += "<td class=\"num\">" + std::to_string(table.first + r + 1) + "</td>";
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (c == status_column)
                out +=
                    "<td><span class=\"status " + status_class(row[c]) + "\">" + html_escape(row[c]) + "</span></td>";
            else
                out += (table.columns[c].align == Align::right ? "<td class=\"num\">" : "<td>") + html_escape(row[c]) +
                       "</td>";
        }
        out += "</tr>\n";
    }
    return out + "</tbody></table>\n";
}

/// The chart of a page: the medians over the runs shown, the interval as a band, the
/// steps as vertical lines.
std::string medians_chart(const SeriesHistory& history, std::size_t first, std::string& caption) {
    const std::vector<const HistoryPoint*>& points = history.points;
    const std::size_t n = points.size() - first;
    const std::string unit = points.back()->series.unit;

    // Dots: every `every`-th run, each step and the latest run.
    const std::size_t every = (n + dashboard_max_dots - 1) / dashboard_max_dots;
    svg::XYSeries medians;
    medians.name = "median of the run";
    medians.band = "95% interval of the median";
    medians.points.reserve(n);
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (std::size_t i = first; i < points.size(); ++i) {
        const HistoryPoint& point = *points[i];
        const HistorySeries& s = point.series;
        svg::XYPoint p;
        p.x = static_cast<double>(i + 1);
        p.y = s.summary.median;
        p.low = s.ci_low;
        p.high = s.ci_high;
        p.marker = (i - first) % every == 0 || i + 1 == points.size() || history.steps.count(i) > 0;
        if (p.marker)
            p.tip =
                fmt::format("run {}: commit {}, {}\nmedian {}, 95% CI {}", i + 1, short_commit(point.run->commit_id),
                            point.run->started_at, format_figure(s.summary.median, s.unit), interval_text(s));
        for (const double v : {p.y, p.low, p.high})
            if (std::isfinite(v) && v > 0) {
                low = std::min(low, v);
                high = std::max(high, v);
            }
        medians.points.push_back(std::move(p));
    }

    svg::XYChart chart;
    chart.id = "medians";
    chart.title = history.series + ": the median of each run";
    chart.description = fmt::format(
        "The median {} of each of the {} runs shown against the run's position in the history (oldest first), "
        "labelled with short commits; the shaded band is the median's 95% interval; a vertical line marks each "
        "change point, labelled with its commit and the change of the median.",
        history.series, n);
    chart.width = 1200;
    chart.height = 440;
    chart.x.title = "run (oldest first), by commit";
    const std::size_t ticks = std::min(n, x_ticks);
    for (std::size_t k = 0; k < ticks; ++k) {
        const std::size_t i = first + (ticks == 1 ? 0 : (k * (n - 1) + (ticks - 1) / 2) / (ticks - 1));
        chart.x.ticks.push_back(static_cast<double>(i + 1));
        chart.x.tick_labels.push_back(short_commit(points[i]->run->commit_id));
    }
    chart.y.title = "median " + history.series + (unit.empty() ? "" : " (" + unit + ")");
    chart.y.scale = svg::scale_for(low, high, 8);
    chart.series.push_back(std::move(medians));
    chart.marker_label = "change point";
    for (const auto& [index, step] : history.steps) {
        if (index < first) continue;
        const HistoryPoint& point = *points[index];
        const std::string change = format_change(1 + step.relative_change);
        chart.markers.push_back(
            {static_cast<double>(index + 1), short_commit(point.run->commit_id) + " " + change,
             fmt::format("change point at run {}, commit {} ({}): median {} -> {} ({}), p {:.3f}", index + 1,
                         short_commit(point.run->commit_id), point.run->started_at, format_figure(step.before, unit),
                         format_figure(step.after, unit), change, step.p_value)});
    }

    caption = steps_method(history);
    if (every > 1)
        caption += fmt::format(
            " A dot, with its figures as a tooltip, on every {}th run, each step and the latest run; "
            "the line and the band cover all {} runs, and the table lists them.",
            every, n);
    return svg::xy_chart(chart);
}

/// "abc1234567 +10.2% (p 0.005)", the latest step; "no step".
std::string latest_step_html(const SeriesHistory& history) {
    if (history.steps.empty()) return "<span class=\"muted\">no step</span>";
    const auto& [index, step] = *history.steps.rbegin();
    return "<code>" + html_escape(short_commit(history.points[index]->run->commit_id)) +
           "</code> <b class=\"stepped\">" + html_escape(format_change(1 + step.relative_change)) +
           "</b> <span class=\"ci\">" + html_escape(fmt::format("(p {:.3f})", step.p_value)) + "</span>";
}

std::string dates(const SeriesHistory& history, std::size_t first) {
    return html_escape(history.points[first]->run->started_at) + " to " +
           html_escape(history.points.back()->run->started_at);
}

}  // namespace

std::string history_page_name(const SeriesHistory& history) {
    const std::string ids = history.scenario_id + "\n" + history.series + "\n" + history.machine;
    std::string readable = safe_name(history.scenario_id + "--" + history.series + "--" + history.machine.substr(0, 8));
    if (readable.size() > 80) readable.resize(80);
    return readable + "-" + fingerprint(ids) + ".html";
}

std::string history_page_html(const SeriesHistory& history, const DashboardOptions& options) {
    const std::size_t first = first_shown(history, options.limit);
    const std::size_t n = history.points.size() - first;
    const std::string title = history.scenario_id + " " + history.series;
    std::string out = html_page_start(title + " - benchhost history");
    out +=
        "<header><nav aria-label=\"Dashboard\"><ul><li><a href=\"index.html\">All "
        "scenarios</a></li></ul></nav><h1><code>" +
        html_escape(history.scenario_id) + "</code> " + html_escape(history.series) +
        "</h1>\n<p class=\"subtitle\">On machine <code>" + html_escape(history.machine) + "</code> (" +
        html_escape(history.machine_text) + ") &middot; " + std::to_string(n) + (n == 1 ? " run" : " runs");
    if (first > 0) out += fmt::format(" (the last {} of {})", n, history.points.size());
    out += ", " + dates(history, first) + " &middot; from " + html_escape(options.source) + "</p></header>\n";

    std::string caption;
    out += "<section id=\"chart\"><figure>" + medians_chart(history, first, caption) + "<figcaption>" +
           html_escape(caption) + "</figcaption></figure></section>\n";

    const HistoryTable table = history_table(history, options.limit);
    out +=
        "<section id=\"runs\"><h2>Runs</h2>\n<p class=\"muted\">What <code>benchhost history show</code> prints: "
        "the oldest first; CHANGE is from the run before.</p>\n" +
        table_html(table);
    if (const std::string line = steps_line(history); !line.empty()) out += "<p>" + html_escape(line) + "</p>\n";
    if (const std::vector<std::string> bisects = bisect_lines(history); !bisects.empty()) {
        out +=
            "<p>To find the commit that made a step, in a checkout of the code (BUILD: the command that builds "
            "the plugins; DIR: the folder it makes them in, relative to the checkout):</p>\n<ul class=\"bisect\">";
        for (const std::string& line : bisects) out += "<li><code>" + html_escape(line) + "</code></li>";
        out += "</ul>\n";
    }
    out += "</section>\n<footer class=\"muted\"><p>Written by <code>benchhost history report</code>. " +
           html_escape(steps_method(history)) + "</p></footer>\n";
    out += html_page_end();
    return out;
}

std::string history_index_html(const std::vector<SeriesHistory>& histories, const DashboardOptions& options) {
    std::map<std::string, std::vector<const SeriesHistory*>> by_machine;
    std::set<std::string> scenarios;
    std::set<long long> runs;
    for (const SeriesHistory& history : histories) {
        by_machine[history.machine].push_back(&history);
        scenarios.insert(history.scenario_id);
        for (std::size_t i = first_shown(history, options.limit); i < history.points.size(); ++i)
            runs.insert(history.points[i]->run->id);
    }

    std::string out = html_page_start("benchhost history");
    out += "<header><h1>benchhost history</h1><p class=\"subtitle\">" +
           html_escape(fmt::format("{} series of {} scenario{} on {} machine{}, {} run{}, from {}", histories.size(),
                                   scenarios.size(), scenarios.size() == 1 ? "" : "s", by_machine.size(),
                                   by_machine.size() == 1 ? "" : "s", runs.size(), runs.size() == 1 ? "" : "s",
                                   options.source));
    if (!options.pattern.empty())
        out += " &middot; scenarios matching <code>" + html_escape(options.pattern) + "</code>";
    if (options.limit > 0) out += " &middot; " + html_escape(fmt::format("the last {} runs of each", options.limit));
    out += "</p></header>\n";
    if (by_machine.size() > 1) {
        out += "<nav aria-label=\"Machines\"><ul>";
        for (const auto& [machine, list] : by_machine)
            out += "<li><a href=\"#machine-" + html_escape(machine) + "\">" + html_escape(machine) + "</a></li>";
        out += "</ul></nav>\n";
    }

    // What a reader looks for first: the series that changed, as in a run's summary.
    const std::size_t stepped = static_cast<std::size_t>(
        std::count_if(histories.begin(), histories.end(), [](const SeriesHistory& h) { return !h.steps.empty(); }));
    out +=
        "<p>" + std::string(stepped > 0 ? "<b class=\"stepped\">" : "<b>") + std::to_string(stepped) + " of " +
        std::to_string(histories.size()) + "</b> series " + (stepped == 1 ? "has" : "have") +
        " a change point: a click on the last column's header sorts them by it.</p>\n<div id=\"filter-box\"></div>\n";
    for (const auto& [machine, list] : by_machine) {
        out += "<section id=\"machine-" + html_escape(machine) + "\"><h2>Machine <code>" + html_escape(machine) +
               "</code></h2>\n<p class=\"muted\">" + html_escape(list.front()->machine_text) + "</p>\n";
        out +=
            "<div class=\"scroll\"><table class=\"scenarios dashboard sortable "
            "filterable\"><thead><tr><th>Scenario</th>"
            "<th>Series</th><th>Runs</th><th>Medians over the runs</th><th>Latest median (95% CI)</th><th>Latest "
            "change "
            "point</th></tr></thead><tbody>\n";
        for (const SeriesHistory* history : list) {
            const std::size_t first = first_shown(*history, options.limit);
            const HistorySeries& latest = history->points.back()->series;
            svg::Sparkline spark;
            spark.values.reserve(history->points.size() - first);
            for (std::size_t i = first; i < history->points.size(); ++i)
                spark.values.push_back(history->points[i]->series.summary.median);
            if (!history->steps.empty() && history->steps.rbegin()->first >= first)
                spark.marked = history->steps.rbegin()->first - first;
            spark.title = fmt::format("{} {}: the medians of {} runs, {} to {}", history->scenario_id, history->series,
                                      spark.values.size(), history->points[first]->run->started_at,
                                      history->points.back()->run->started_at);
            const std::string page = history_page_name(*history);
            const std::string step_key =
                history->steps.empty()
                    ? ""
                    : fmt::format("{:.9g}", std::abs(history->steps.rbegin()->second.relative_change));
            out += "<tr data-id=\"" + html_escape(history->scenario_id) + "\"><td><a href=\"" + html_escape(page) +
                   "\"><code>" + html_escape(history->scenario_id) + "</code></a></td><td>" +
                   html_escape(history->series) + "</td><td class=\"num\" data-v=\"" +
                   std::to_string(spark.values.size()) + "\">" + std::to_string(spark.values.size()) +
                   "</td><td><a href=\"" + html_escape(page) + "\" aria-label=\"" + html_escape(spark.title) + "\">" +
                   svg::sparkline(spark) + "</a></td><td class=\"num\" data-v=\"" +
                   fmt::format("{:.9g}", latest.summary.median) + "\">" +
                   html_escape(format_figure(latest.summary.median, latest.unit)) + " <span class=\"ci\">" +
                   html_escape(interval_text(latest)) + "</span></td><td data-v=\"" + step_key + "\">" +
                   latest_step_html(*history) + "</td></tr>\n";
        }
        out += "</tbody></table></div>\n</section>\n";
    }
    out +=
        "<footer class=\"muted\"><p>Written by <code>benchhost history report</code>: a page per scenario, series and "
        "machine. Change points: E-divisive means over each series' medians (of its last " +
        std::to_string(change_point_runs) + " runs at most), at 5% significance.</p></footer>\n";
    out += html_page_script() + html_page_end();
    return out;
}

DashboardWritten write_history_dashboard(const std::vector<SeriesHistory>& histories, const fs::path& dir,
                                         const DashboardOptions& options) {
    DashboardWritten written;
    std::set<std::string> scenarios, machines;
    for (const SeriesHistory& history : histories) {
        write_file_atomically(dir / history_page_name(history), history_page_html(history, options));
        ++written.pages;
        scenarios.insert(history.scenario_id);
        machines.insert(history.machine);
    }
    write_file_atomically(dir / "index.html", history_index_html(histories, options));
    ++written.pages;
    written.scenarios = scenarios.size();
    written.machines = machines.size();
    return written;
}

}  // namespace benchhost
