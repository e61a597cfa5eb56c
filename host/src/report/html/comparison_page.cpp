// The comparison as a page (comparison_page.hpp).
#include "report/html/comparison_page.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/comparison_text.hpp"
#include "report/html/html_page.hpp"
#include "report/html/svg_chart.hpp"
#include "util/append_unique.hpp"
#include "util/text_table.hpp"
#include "util/units.hpp"

namespace benchhost {

namespace {

/// The colour of a verdict in the page's chart and table.
int verdict_color(Verdict verdict) {
    switch (verdict) {
        case Verdict::slower:
            return 1;
        case Verdict::faster:
            return 2;
        case Verdict::same:
            return 0;
        case Verdict::inconclusive:
            return 6;
    }
    return 0;
}

}  // namespace

std::string verdict_boxes_html(const Comparison& c) {
    std::string out = "<div class=\"totals\">";
    for (const auto& [verdict, klass] : {std::pair{Verdict::slower, " bad"}, std::pair{Verdict::faster, " success"},
                                         std::pair{Verdict::same, ""}, std::pair{Verdict::inconclusive, ""}}) {
        const std::size_t n = c.count(verdict);
        out += "<div><b class=\"status" + std::string(n > 0 ? klass : "") + "\">" + std::to_string(n) + "</b>" +
               html_escape(std::string(to_string(verdict))) + "</div>";
    }
    return out + "</div>\n";
}

std::string comparison_html(const Comparison& c, const std::string& title, const std::vector<PageLink>& links) {
    std::string out = html_page_start(title);
    out += "<header><h1>" + html_escape(title) + "</h1><p class=\"subtitle\">New: <code>" + html_escape(c.new_label) +
           "</code>, base: <code>" + html_escape(c.base_label) + "</code></p>\n";
    // What differs between the sides, before any verdict: it says what a change means.
    if (const std::vector<std::string> differences = difference_lines(c); !differences.empty()) {
        out += "<div class=\"differences\"><p>" + html_escape(differences_heading) + ":</p><ul>";
        for (const std::string& line : differences) out += "<li>" + html_escape(line) + "</li>";
        out += "</ul></div>\n";
    } else if (const std::string same = no_difference_text(c); !same.empty()) {
        out += "<p class=\"differences\">" + html_escape(same) + "</p>\n";
    }
    out += "</header>\n";
    if (!links.empty()) {
        out += "<nav aria-label=\"Reports\"><ul>";
        for (const auto& [text, address] : links)
            out += "<li><a href=\"" + html_escape(address) + "\">" + html_escape(text) + "</a></li>";
        out += "</ul></nav>\n";
    }
    // The verdicts first, in the run page's boxes: slower in red, what went wrong under them.
    out += "<section id=\"verdicts\"><h2>Verdicts</h2>\n" + verdict_boxes_html(c) + "<p>" +
           html_escape(verdict_counts(c)) + "</p>\n<p>" + html_escape(loads_line(c)) + "</p>\n";
    if (!c.incomparable.empty()) {
        const std::vector<std::string> unlisted = unlisted_incomparable(c);
        out += "<div class=\"warnings\"><p>The sides are not comparable: their machines or builds differ" +
               std::string(unlisted.empty() ? " (above)." : ".") + "</p>";
        if (!unlisted.empty()) {
            out += "<ul>";
            for (const std::string& line : unlisted) out += "<li>" + html_escape(line) + "</li>";
            out += "</ul>";
        }
        out += "</div>\n";
    }
    const auto list = [&](const char* heading, const std::vector<std::string>& items) {
        if (items.empty()) return;
        out += std::string("<h3>") + heading + "</h3><ul class=\"problems\">";
        for (const std::string& item : items) out += "<li>" + html_escape(item) + "</li>";
        out += "</ul>\n";
    };
    list("Notes", c.notes);
    list("Not compared", c.not_compared);
    list("Only in the base", c.only_in_base);
    list("Only in the new", c.only_in_new);
    out += "</section>\n";

    const auto key = [](double v) { return std::isfinite(v) ? fmt::format("{:.9g}", v) : std::string(); };
    out +=
        "<section id=\"table\"><h2>Scenarios</h2>\n<div id=\"filter-box\"></div>\n<div class=\"scroll\"><table "
        "class=\"scenarios sortable filterable\"><thead><tr><th>Scenario</th><th>Series</th><th>Base</th><th>New</th>"
        "<th>Change</th><th>Ratio 95% CI</th><th>Verdict</th></tr></thead><tbody>\n";
    for (const SeriesComparison& row : c.rows) {
        const std::string verdict_class = row.verdict == Verdict::slower   ? "bad"
                                          : row.verdict == Verdict::faster ? "success"
                                                                           : "skipped";
        out += "<tr data-id=\"" + html_escape(row.scenario_id) + "\"><td>" + html_escape(row.scenario_id) +
               "</td><td>" + html_escape(row.series) + "</td><td class=\"num\" data-v=\"" + key(row.base_median_ms) +
               "\">" + html_escape(row_figure(row, row.base_median_ms)) + "</td><td class=\"num\" data-v=\"" +
               key(row.new_median_ms) + "\">" + html_escape(row_figure(row, row.new_median_ms)) +
               "</td><td class=\"num\" data-v=\"" + key(row.ratio) + "\">" + html_escape(format_change(row.ratio)) +
               "</td><td class=\"num\">" + html_escape(interval_text(row.ratio_ci)) + "</td><td><span class=\"status " +
               verdict_class + "\">" + html_escape(std::string(to_string(row.verdict))) + "</span> " +
               html_escape(verdict_text(row).substr(to_string(row.verdict).size())) + "</td></tr>\n";
    }
    out += "</tbody></table></div>\n</section>\n";

    out += "<section id=\"chart\"><h2>Ratios</h2>\n";
    svg::IntervalChart chart;
    chart.id = "ratios";
    chart.title = "New / base, with 95% intervals";
    chart.description = fmt::format(
        "For each scenario and series, the ratio of the new side's time to the base side's (above 1 is slower), with "
        "its 95% interval as whiskers; the verdict's colour. A change within {:.3g}% (the threshold) is the same.",
        c.options.threshold * 100);
    chart.width = 1180;
    chart.reference = 1;
    chart.reference_label = "1: no change";
    double low = 1 - c.options.threshold, high = 1 + c.options.threshold;
    std::vector<Verdict> seen;
    for (const SeriesComparison& row : c.rows) {
        if (!std::isfinite(row.ratio)) continue;
        svg::IntervalRow chart_row;
        chart_row.label = row.scenario_id + (row.series == "latency" ? "" : " " + row.series);
        chart_row.marks.push_back({verdict_color(row.verdict), row.ratio, row.ratio_ci.low, row.ratio_ci.high,
                                   chart_row.label + ": " + format_change(row.ratio) + " " +
                                       interval_text(row.ratio_ci) + ", " + verdict_text(row)});
        low = std::min({low, row.ratio, row.ratio_ci.valid() ? row.ratio_ci.low : row.ratio});
        high = std::max({high, row.ratio, row.ratio_ci.valid() ? row.ratio_ci.high : row.ratio});
        append_unique(seen, row.verdict);
        chart.rows.push_back(std::move(chart_row));
    }
    for (const Verdict verdict : seen)
        chart.legend.emplace_back(std::string(to_string(verdict)), verdict_color(verdict));
    chart.x = {"new / base (ratio of medians)", svg::scale_for(low, high, 8), {}, false};
    out += chart.rows.empty() ? svg::no_data("Ratios", "no scenario was compared")
                              : "<figure>" + svg::interval_chart(chart) + "</figure>\n";
    out += "</section>\n";
    out +=
        "<footer class=\"muted\"><p>Written by benchhost. The same table is in "
        "<a href=\"comparison.md\">comparison.md</a> and, for tools, comparison.json.</p></footer>\n";
    out += html_page_script() + html_page_end();
    return out;
}

}  // namespace benchhost
