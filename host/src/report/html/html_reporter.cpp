// report.html: the run's tables and charts as one self-contained page
// (rendered_reports.hpp), results first: the summary (totals, what went wrong, a row per
// benchmark), the tables, the charts, the skipped scenarios, then how the run ran, folded.
// Nothing fetched: the charts are inline SVG (svg_chart.hpp), the style one <style>
// block with a light and a dark palette, and a few lines of script sort the tables and
// filter the results (the page reads the same without them). Every piece of text from a
// report goes through html_escape (html_page.hpp).

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <optional>

#include "analysis/scenario_statistics.hpp"
#include "report/comparison_text.hpp"
#include "report/file_reporter.hpp"
#include "report/html/comparison_page.hpp"
#include "report/html/html_page.hpp"
#include "report/html/svg_chart.hpp"
#include "report/model_comparison.hpp"
#include "report/plugin_entries.hpp"
#include "report/profile_sections.hpp"
#include "report/rendered_reports.hpp"
#include "report/report_figures.hpp"
#include "report/reporter_factories.hpp"
#include "report/reporter_registry.hpp"
#include "util/append_unique.hpp"
#include "util/atomic_file.hpp"
#include "util/text_table.hpp"
#include "util/units.hpp"

namespace benchhost {
namespace {

// Colours of the variants: the same in every chart.
int variant_color(const std::string& variant) {
    static const std::map<std::string, int, std::less<>> fixed = {{"eager", 0}, {"compiled", 1}, {"kernelized", 2}};
    const auto base = variant.substr(0, variant.find('/'));
    if (const auto it = fixed.find(base); it != fixed.end()) return it->second + (variant == base ? 0 : 3);
    return 3 + static_cast<int>(std::hash<std::string>{}(variant) % 5);
}

std::string status_span(bench::Status status) {
    const std::string text(bench::to_string(status));
    const std::string klass = status == bench::Status::success   ? "success"
                              : status == bench::Status::skipped ? "skipped"
                                                                 : "bad";
    return "<span class=\"status " + klass + "\">" + html_escape(text) + "</span>";
}

// "3.92 ms [3.89, 3.95]" with the interval in a smaller, muted span.
std::string figure_cell(const std::string& text) {
    const auto bracket = text.find(" [");
    if (bracket == std::string::npos) return html_escape(text);
    return html_escape(text.substr(0, bracket)) + " <span class=\"ci\">" + html_escape(text.substr(bracket + 1)) +
           "</span>";
}

// An id for an element: letters, digits and '-' only, unique with the counter.
class Ids {
public:
    std::string next(std::string_view stem) {
        std::string id;
        for (const char c : stem)
            id += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
        return id + "-" + std::to_string(++count_);
    }

private:
    int count_ = 0;
};

// The benchmark and axes of a group, without the category: "resnet50[batch_size=1]", or
// "tensor_ops/matmul[dtype=float32]" when the benchmark is not named after the plugin.
std::string short_label(const ScenarioOutcome& outcome, const std::string& group) {
    const std::string prefix = outcome.config.category + "/" + outcome.config.plugin + "/";
    std::string name = group.starts_with(prefix) ? group.substr(prefix.size()) : group;
    if (outcome.config.benchmark != outcome.config.plugin) name = outcome.config.plugin + "/" + name;
    return name;
}

// ---- the summary, the results, the skips and how the run ran -------------------------

// A number as a sortable column's data-v: what sorting compares.
std::string sort_key(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

// A scenario's anchor in the results tables.
std::string scenario_anchor(const RunFigures& figures, const ScenarioOutcome& outcome) {
    return "s-" + std::to_string(&outcome - figures.record->outcomes.data());
}

// A benchmark's anchor: its table in the results.
std::string benchmark_anchor(const std::string& benchmark_id) {
    std::string id = "b-";
    for (const char c : benchmark_id) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
    return id;
}

// A scenario as a reader tells it apart in this run, the full id on hover.
std::string scenario_code(const RunFigures& figures, const ScenarioOutcome& outcome) {
    return "<code title=\"" + html_escape(outcome.config.scenario_id()) + "\">" +
           html_escape(scenario_label(figures, outcome)) + "</code>";
}

// A list of scenarios, linked to their rows when they have one, the first `shown` in
// the open and the rest folded.
std::string scenario_list(const RunFigures& figures, const std::vector<const ScenarioOutcome*>& scenarios, bool linked,
                          std::size_t shown = 6) {
    std::string out;
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
        if (i == shown) out += " <details><summary>" + std::to_string(scenarios.size() - shown) + " more</summary>";
        else if (i > 0) out += ", ";
        const std::string code = scenario_code(figures, *scenarios[i]);
        out += linked ? "<a href=\"#" + scenario_anchor(figures, *scenarios[i]) + "\">" + code + "</a>" : code;
    }
    if (scenarios.size() > shown) out += "</details>";
    return out;
}

// A variant's speedup as a small bar around 1x (log scale, 1/4x to 4x) and its figure.
std::string speedup_bar(const VariantSpeedup& s) {
    const double position = std::clamp(50 + 25 * std::log2(s.value), 0.0, 100.0);
    char geometry[64];
    std::snprintf(geometry, sizeof geometry, "left:%.1f%%;width:%.1f%%", std::min(position, 50.0),
                  std::abs(position - 50));
    return "<span class=\"sp\"><span class=\"bar c" + std::to_string(variant_color(s.variant)) +
           "\"><span class=\"fill\" style=\"" + geometry + "\"></span></span>" + html_escape(variant_speedup_text(s)) +
           "</span>";
}

void overview_table(std::string& out, const RunFigures& figures) {
    if (figures.overview.empty()) return;
    out +=
        "<h3 id=\"overview\">Overview</h3>\n<p class=\"muted\">A row per benchmark: its first scenario that "
        "succeeded (the plan's order: eager, the smallest batch first), and each variant's speedup over eager, "
        "the bar from 1x on a log scale (1/4x to 4x).</p>\n";
    out +=
        "<div class=\"scroll\"><table class=\"scenarios overview sortable\"><thead><tr><th>Benchmark</th>"
        "<th>Succeeded</th><th>Median (95% CI)</th><th>Of</th><th>Speedup over eager (95% CI)</th></tr></thead>"
        "<tbody>\n";
    for (const BenchmarkOverview& row : figures.overview) {
        const RunTotals& t = row.totals;
        if (t.ran() == 0) continue;  // every scenario skipped: listed with the skips
        const std::string counts = html_escape(overview_counts_text(t));
        std::string median = "-", of = "-", median_key;
        if (const ScenarioFigures* f = row.headline) {
            median = figure_cell(median_with_ci(*f));
            if (f->headline != "latency") median += "<br><span class=\"ci\">" + html_escape(f->headline) + "</span>";
            if (f->is_time) median_key = sort_key(f->analysis.summary.median * to_ms_factor(f->unit));
            const std::string axes = varying_axes_text(figures, *f->outcome);
            of = "<a href=\"#" + scenario_anchor(figures, *f->outcome) + "\">" +
                 html_escape(axes.empty() ? "its scenario" : axes) + "</a>";
        }
        std::string speedups;
        double best = NAN;
        for (const VariantSpeedup& speedup : row.speedups) {
            speedups += speedup_bar(speedup);
            if (!(speedup.value <= best)) best = speedup.value;
        }
        out += "<tr><td class=\"bench\"><a href=\"#" + benchmark_anchor(row.benchmark_id) + "\"><code>" +
               html_escape(row.benchmark_id) + "</code></a></td><td data-v=\"" + std::to_string(t.successful) + "\">" +
               counts + "</td><td class=\"num\" data-v=\"" + median_key + "\">" + median + "</td><td>" + of +
               "</td><td data-v=\"" + (std::isfinite(best) ? sort_key(best) : "") + "\">" +
               (speedups.empty() ? "-" : speedups) + "</td></tr>\n";
    }
    out += "</tbody></table></div>\n";
}

// With --baseline: the verdicts counted, each scenario that changed in a line, the rest in
// comparison.md. Written again from the run folder, without the comparison: a pointer to it.
void baseline_block(std::string& out, const RunFigures& figures, const Comparison* comparison) {
    const auto baseline = figures.record->run_config.find("baseline");
    if (comparison == nullptr) {
        if (baseline != figures.record->run_config.end() && !baseline->second.empty())
            out += "<p>Compared with the baseline <code>" + html_escape(baseline->second) +
                   "</code> when it ran: the verdicts are in <a href=\"comparison.md\">comparison.md</a>.</p>\n";
        return;
    }
    out += "<h3 id=\"baseline\">Against the baseline</h3>\n" + verdict_boxes_html(*comparison);
    const std::vector<const SeriesComparison*> changed = changed_rows(*comparison);
    if (!changed.empty()) out += "<ul class=\"problems\">\n";
    for (std::size_t i = 0; i < changed.size() && i < changed_rows_listed; ++i) {
        const SeriesComparison& row = *changed[i];
        out += "<li><span class=\"status " + std::string(row.verdict == Verdict::slower ? "bad" : "success") + "\">" +
               html_escape(std::string(to_string(row.verdict))) + "</span> <code>" + html_escape(row.scenario_id) +
               "</code>: " + html_escape(evidence_line(row, comparison->options.threshold)) + "</li>\n";
    }
    if (!changed.empty()) out += "</ul>\n";
    out += "<p class=\"muted\">" + html_escape(comparison->base_label) +
           " is the base; every row, and the scenarios not " +
           "compared, are in <a href=\"comparison.md\">comparison.md</a>" +
           (changed.size() > changed_rows_listed
                ? " (" + std::to_string(changed.size() - changed_rows_listed) + " more changed)"
                : std::string()) +
           ".</p>\n";
}

// The first screen: the totals, what went wrong, the verdicts against the baseline, and the overview.
void summary_section(std::string& out, const RunFigures& figures, const Comparison* comparison) {
    const RunRecord& record = *figures.record;
    const RunTotals& t = figures.totals;
    out += "<section id=\"summary\"><h2>Summary</h2>\n<div class=\"totals\">";
    out += "<div><b>" + std::to_string(t.total) + "</b>scenarios</div>";
    out += "<div><b class=\"status success\">" + std::to_string(t.successful) + "</b>succeeded</div>";
    out += "<div><b class=\"status" + std::string(t.failed > 0 ? " bad" : "") + "\">" + std::to_string(t.failed) +
           "</b>failed</div>";
    out += "<div><b>" + success_rate_text(t) + "</b>" + (t.ran() > 0 ? "of those that ran succeeded" : "none ran") +
           "</div>";
    out += "<div><b>" + std::to_string(t.skipped) + "</b>" +
           (t.skipped > 0 ? "<a href=\"#skipped\">skipped</a>" : std::string("skipped")) + "</div>";
    if (record.interrupted) out += "<div><b class=\"status bad\">interrupted</b>the run did not finish</div>";
    out += "</div>\n";

    if (!figures.failures.empty() || !figures.warnings.empty() || !record.hardware_warnings.empty()) {
        // The first few of each kind in the open, the rest folded: the overview stays on the first screen.
        constexpr std::size_t open_failures = 8, open_warnings = 3;
        std::size_t items = 0;
        const auto fold = [&](std::size_t open, std::size_t total, const char* what) {
            if (items++ == open)
                out += "</ul>\n<details><summary>" + std::to_string(total - open) + " more " + what +
                       "</summary>\n<ul class=\"problems\">\n";
        };
        const auto unfold = [&](std::size_t open) {
            if (items > open) out += "</ul>\n</details>\n<ul class=\"problems\">\n";
            items = 0;
        };
        out += "<ul class=\"problems\">\n";
        for (const ScenarioFigures* f : figures.failures) {
            fold(open_failures, figures.failures.size(), "that did not succeed");
            const ScenarioOutcome& outcome = *f->outcome;
            out += "<li>" + status_span(outcome.result.status) + " <a href=\"#" + scenario_anchor(figures, outcome) +
                   "\">" + scenario_code(figures, outcome) +
                   "</a>: " + html_escape(outcome.result.reason.empty() ? "no reason given" : outcome.result.reason);
            if (!outcome.log_tail.empty())
                out += "<details><summary>Last output of the worker</summary><pre>" + html_escape(outcome.log_tail) +
                       "</pre></details>";
            out += "</li>\n";
        }
        unfold(open_failures);
        for (const std::string& warning : record.hardware_warnings)
            out += "<li><span class=\"status skipped\">warning</span> about the machine: " + html_escape(warning) +
                   "</li>\n";
        for (const ScenarioGroup& group : figures.warnings) {
            fold(open_warnings, figures.warnings.size(), "warnings");
            out +=
                "<li><span class=\"status skipped\">warning</span> " + html_escape(group.text) +
                " <span class=\"muted\">(" +
                (group.scenarios.size() == 1 ? std::string("in ")
                                             : "alike in " + std::to_string(group.scenarios.size()) + " scenarios: ") +
                "</span>" + scenario_list(figures, group.scenarios, true, 3) + "<span class=\"muted\">)</span></li>\n";
        }
        unfold(open_warnings);
        out += "</ul>\n";
    }
    baseline_block(out, figures, comparison);
    overview_table(out, figures);
    out +=
        "<p class=\"muted\">Medians come with their 95% confidence interval (percentile bootstrap over the raw "
        "samples, 1000 resamples); CV is std / mean; a speedup is eager's median over the variant's, with the "
        "bootstrap interval of that ratio.";
    if (!figures.fixed_axes.empty())
        out += " Axes with one value in this run: " + html_escape(axes_text(figures.fixed_axes)) + ".";
    out += "</p>\n</section>\n";
}

/// One line per plugin: its version and how it was compiled, with what that means.
std::string plugins_list(const RunRecord& record) {
    const std::vector<PluginEntry> plugins = plugin_entries(record);
    if (plugins.empty()) return {};
    std::string out = "<ul>\n";
    for (const PluginEntry& plugin : plugins) {
        out += "<li><code>" + html_escape(plugin.id()) + "</code> " + html_escape(plugin.version) +
               ", build: " + html_escape(build_text(plugin.build));
        if (const std::string warning = build_warning(plugin.build); !warning.empty())
            out += "<div class=\"warnings\"><strong>Warning:</strong> " + html_escape(warning) + "</div>";
        out += "</li>\n";
    }
    return out + "</ul>\n";
}

// The end of the page: the command line that runs it again, in the open; the machine,
// the settings and the plugins folded.
void run_section(std::string& out, const RunFigures& figures) {
    const RunRecord& record = *figures.record;
    const std::string state = record.interrupted ? "interrupted" : record.finished ? "complete" : "running";
    out += "<section id=\"run\"><h2>How it ran</h2>\n";
    if (figures.command_line.empty()) {
        out += "<p class=\"muted\">The run did not record its command line.</p>\n";
    } else {
        out += "<p>The command line";
        if (!figures.working_directory.empty())
            out += ", in <code>" + html_escape(figures.working_directory) + "</code>";
        out += ":</p>\n<pre class=\"command\"><code>" + html_escape(figures.command_line) + "</code></pre>\n";
    }
    const auto row = [&](const std::string& label, const std::string& html) {
        out += "<tr><th scope=\"row\">" + html_escape(label) + "</th><td>" + html + "</td></tr>\n";
    };
    out += "<details id=\"machine\"><summary>The machine</summary>\n<table class=\"facts\">\n";
    row("Started", html_escape(record.started_at));
    row("Finished", html_escape(record.finished_at.empty() ? "-" : record.finished_at) + " (" + state + ")");
    row("Host", html_escape(record.host_name));
    row("Commit", "<code>" + html_escape(record.commit_id) + "</code>");
    if (!record.host_version.empty()) row("benchhost", html_escape(record.host_version));
    for (const auto& [label, text] : figures.machine) row(label, html_escape(text));
    out += "</table>\n</details>\n";
    if (!figures.settings.empty()) {
        out += "<details id=\"settings\"><summary>The settings</summary>\n<table class=\"facts\">\n";
        for (const auto& [label, value] : figures.settings) row(label, html_escape(value));
        out += "</table>\n</details>\n";
    }
    if (const std::string plugins = plugins_list(record); !plugins.empty())
        out += "<details id=\"plugins\"><summary>The plugins</summary>\n" + plugins + "</details>\n";
    out += "</section>\n";
}

// A category's tables: a benchmark each, a row per scenario that ran (the skipped ones
// are listed once, below the results).
std::string category_section(const RunFigures& figures, const CategoryTables& category, const std::string& id) {
    if (category.totals.ran() == 0) return {};
    std::string out = "<section id=\"" + id + "\"><h2>" + html_escape(category.category) + "</h2>\n<p>" +
                      html_escape(totals_text(category.totals)) + ".</p>\n";
    for (const BenchmarkTable& table : category.tables) {
        std::vector<const BenchmarkTable::Row*> ran;
        for (const BenchmarkTable::Row& row : table.rows)
            if (figures.scenarios[row.scenario].outcome->result.status != bench::Status::skipped) ran.push_back(&row);
        if (ran.empty()) continue;
        out += "<div class=\"bench\"><h3 id=\"" + benchmark_anchor(table.benchmark_id) + "\"><code>" +
               html_escape(table.benchmark_id) + "</code>";
        if (!table.fixed_axes.empty())
            out += " <span class=\"muted\">" + html_escape(axes_text(table.fixed_axes)) + "</span>";
        if (ran.size() < table.rows.size())
            out += " <a class=\"muted\" href=\"#skipped\">" + std::to_string(table.rows.size() - ran.size()) +
                   " skipped</a>";
        // A column of the other series when a scenario of the table has them.
        const bool other_series = std::any_of(ran.begin(), ran.end(), [&](const BenchmarkTable::Row* row) {
            return !figures.scenarios[row->scenario].other_series.empty();
        });
        // A column of the scaling efficiency when a scenario of the table has one.
        const bool scaling = std::any_of(ran.begin(), ran.end(), [&](const BenchmarkTable::Row* row) {
            return std::isfinite(figures.scenarios[row->scenario].scaling_efficiency);
        });
        out += "</h3>\n<div class=\"scroll\"><table class=\"scenarios sortable filterable\"><thead><tr>";
        for (const std::string& axis : table.axes) out += "<th>" + html_escape(axis) + "</th>";
        out +=
            "<th>Status</th><th>Median (95% CI)</th><th>p95</th><th>CV</th><th>Throughput</th>"
            "<th>Speedup over eager (95% CI)</th>";
        if (scaling) out += "<th>Scaling efficiency</th>";
        if (other_series) out += "<th>Other series (median)</th>";
        out += "<th>Note</th></tr></thead><tbody>\n";
        for (const BenchmarkTable::Row* row : ran) {
            const ScenarioFigures& f = figures.scenarios[row->scenario];
            const auto& result = f.outcome->result;
            const bench::SeriesAnalysis& a = f.analysis;
            const bool measured = a.summary.count > 0;
            const double to_ms = f.is_time ? to_ms_factor(f.unit) : 1.0;
            std::string headline = figure_cell(median_with_ci(f));
            if (!f.samples.empty() && f.headline != "latency")
                headline += "<br><span class=\"ci\">" + html_escape(f.headline) + "</span>";
            std::string speedups;
            for (const Speedup& speedup : f.speedups) {
                if (!speedups.empty()) speedups += "<br>";
                speedups += figure_cell(speedup_text(speedup));
            }
            std::string note, note_title;
            if (!result.reason.empty()) note = html_escape(one_line(result.reason, 90));
            if (!result.warnings.empty()) {
                if (!note.empty()) note += "<br>";
                note +=
                    std::to_string(result.warnings.size()) + (result.warnings.size() == 1 ? " warning" : " warnings");
                for (const std::string& warning : result.warnings)
                    note_title += (note_title.empty() ? "" : "\n") + warning;
            }
            const auto key = [](bool known, double v) {
                return known && std::isfinite(v) ? sort_key(v) : std::string();
            };
            out += "<tr id=\"" + scenario_anchor(figures, *f.outcome) + "\" data-id=\"" +
                   html_escape(f.outcome->config.scenario_id()) + "\">";
            for (const std::string& value : row->values) out += "<td class=\"axis\">" + html_escape(value) + "</td>";
            out += "<td>" + status_span(result.status) + "</td><td class=\"num\" data-v=\"" +
                   key(measured, a.summary.median * to_ms) + "\">" + headline + "</td><td class=\"num\" data-v=\"" +
                   key(measured, a.summary.p95 * to_ms) + "\">" + html_escape(p95_text(f)) +
                   "</td><td class=\"num\" data-v=\"" + key(measured, a.cv) + "\">" + html_escape(cv_text(f)) +
                   "</td><td class=\"num\" data-v=\"" + key(true, f.throughput) + "\">" +
                   html_escape(throughput_text(f)) + "</td><td class=\"num\" data-v=\"" +
                   key(!f.speedups.empty(), f.speedups.empty() ? NAN : f.speedups.front().value) + "\">" +
                   (speedups.empty() ? "-" : speedups) + "</td>";
            if (scaling)
                out += "<td class=\"num\" data-v=\"" + key(true, f.scaling_efficiency) + "\">" +
                       html_escape(scaling_efficiency_text(f.scaling_efficiency, f.scaling_efficiency_ci)) + "</td>";
            if (other_series) {
                std::string series;
                for (const SeriesStatistics* other : f.other_series)
                    series += "<span class=\"sp\">" + html_escape(series_median_text(*other)) + "</span>";
                out += "<td>" + (series.empty() ? std::string("-") : series) + "</td>";
            }
            out += std::string("<td") +
                   (note_title.empty() ? std::string() : " title=\"" + html_escape(note_title) + "\"") + ">" + note +
                   "</td></tr>\n";
        }
        out += "</tbody></table></div></div>\n";
    }
    return out + "</section>\n";
}

// Below the results: the skipped scenarios, once, by reason.
std::string skipped_section(const RunFigures& figures) {
    if (figures.skips.empty()) return {};
    std::string out = "<section id=\"skipped\"><h2>Skipped</h2>\n<p>" + std::to_string(figures.totals.skipped) +
                      (figures.totals.skipped == 1 ? " scenario" : " scenarios") +
                      " did not run, for these reasons:</p>\n<ul class=\"problems\">\n";
    for (const ScenarioGroup& group : figures.skips)
        out += "<li>" + html_escape(group.text.empty() ? "no reason given" : group.text) + " <span class=\"muted\">(" +
               std::to_string(group.scenarios.size()) + (group.scenarios.size() == 1 ? " scenario: " : " scenarios: ") +
               "</span>" + scenario_list(figures, group.scenarios, false) + "<span class=\"muted\">)</span></li>\n";
    return out + "</ul>\n</section>\n";
}

// ---- charts ---------------------------------------------------------------------------

std::string figure(const std::string& svg, const std::string& caption = "") {
    if (svg.starts_with("<p")) return svg;  // no data: the sentence saying so
    std::string out = "<figure>" + svg;
    if (!caption.empty()) out += "<figcaption>" + html_escape(caption) + "</figcaption>";
    return out + "</figure>\n";
}

// Groups in order of first appearance.
template <typename Key>
std::vector<std::pair<Key, std::vector<const ScenarioFigures*>>> group_by(
    const RunFigures& figures, const std::function<bool(const ScenarioFigures&)>& keep,
    const std::function<Key(const ScenarioFigures&)>& key_of) {
    std::vector<std::pair<Key, std::vector<const ScenarioFigures*>>> groups;
    for (const std::string& category : category_order(figures)) {
        for (const ScenarioFigures& f : figures.scenarios) {
            if (f.outcome->config.category != category || !keep(f)) continue;
            const Key key = key_of(f);
            auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
            if (it == groups.end()) {
                groups.emplace_back(key, std::vector<const ScenarioFigures*>{});
                it = groups.end() - 1;
            }
            it->second.push_back(&f);
        }
    }
    return groups;
}

// Latency (the headline series) and throughput against batch size, one line per variant,
// for each benchmark and axis point run at more than one batch size.
void batch_size_charts(std::string& out, const RunFigures& figures, Ids& ids) {
    const std::size_t begin = out.size();
    out += "<section id=\"batch-sizes\"><h2>Latency and throughput against batch size</h2>\n";
    const auto groups = group_by<std::string>(
        figures, [](const ScenarioFigures& f) { return f.success() && f.is_time && !f.samples.empty(); },
        [](const ScenarioFigures& f) { return f.batch_group + "\n" + f.headline; });
    bool any = false;
    for (const auto& [key, members] : groups) {
        std::set<int> batches;
        for (const ScenarioFigures* f : members) batches.insert(f->batch_size);
        if (batches.size() < 2) continue;
        any = true;
        const ScenarioFigures& first = *members.front();
        const std::string label = short_label(*first.outcome, first.batch_group);

        double max_ms = 0;
        for (const ScenarioFigures* f : members)
            max_ms = std::max(max_ms, f->analysis.summary.median * to_ms_factor(f->unit));
        const auto [unit, factor] = time_display_unit(max_ms);

        std::vector<std::string> variants;
        for (const ScenarioFigures* f : members) append_unique(variants, f->variant);

        const double batch_low = *batches.begin(), batch_high = *batches.rbegin();
        svg::Axis x{"batch size", svg::scale_for(batch_low, batch_high), {}, false};
        if (batches.size() <= 12) x.ticks.assign(batches.begin(), batches.end());

        svg::XYChart latency;
        latency.id = ids.next("latency-" + label);
        latency.title = label + ": " + first.headline + " against batch size";
        latency.x = x;
        svg::XYChart throughput = latency;
        throughput.id = ids.next("throughput-" + label);
        throughput.title = label + ": throughput against batch size";
        latency.width = throughput.width = 590;
        latency.height = throughput.height = 340;

        double y_low = INFINITY, y_high = 0, t_low = INFINITY, t_high = 0;
        std::string throughput_unit;
        std::size_t throughput_points = 0;
        for (const std::string& variant : variants) {
            svg::XYSeries l{variant, variant_color(variant), {}, true, true};
            svg::XYSeries t = l;
            std::vector<const ScenarioFigures*> points;
            for (const ScenarioFigures* f : members)
                if (f->variant == variant) points.push_back(f);
            std::sort(points.begin(), points.end(),
                      [](const ScenarioFigures* a, const ScenarioFigures* b) { return a->batch_size < b->batch_size; });
            for (const ScenarioFigures* f : points) {
                const double to_unit = to_ms_factor(f->unit) * factor;
                const double median = f->analysis.summary.median * to_unit;
                svg::XYPoint p{static_cast<double>(f->batch_size), median, f->analysis.median_ci.low * to_unit,
                               f->analysis.median_ci.high * to_unit,
                               variant + ", batch size " + std::to_string(f->batch_size) + ": " + median_with_ci(*f)};
                y_low = std::min(y_low, median);
                y_high = std::max(y_high, median);
                l.points.push_back(p);
                if (std::isfinite(f->throughput) &&
                    (throughput_unit.empty() || throughput_unit == f->throughput_unit)) {
                    throughput_unit = f->throughput_unit;
                    t.points.push_back({static_cast<double>(f->batch_size), f->throughput, f->throughput_ci.low,
                                        f->throughput_ci.high,
                                        variant + ", batch size " + std::to_string(f->batch_size) + ": " +
                                            figure_with_interval(f->throughput, f->throughput_ci, f->throughput_unit)});
                    t_low = std::min(t_low, f->throughput);
                    t_high = std::max(t_high, f->throughput);
                    ++throughput_points;
                }
            }
            latency.series.push_back(std::move(l));
            throughput.series.push_back(std::move(t));
        }
        latency.y = {"median " + first.headline + " (" + unit + ")", svg::scale_for(y_low, y_high, 10), {}, true};
        latency.description = "Median " + first.headline + " of " + first.batch_group +
                              " for each batch size, one line per variant, with the 95% confidence interval of each "
                              "median as error bars.";
        throughput.y = {"median throughput (" + throughput_unit + ")", svg::scale_for(t_low, t_high, 10), {}, true};
        throughput.description = "Median throughput of " + first.batch_group +
                                 " for each batch size, one line per variant, with 95% confidence intervals.";

        out += "<div class=\"figures\">\n" + figure(svg::xy_chart(latency));
        out += throughput_points > 0 ? figure(svg::xy_chart(throughput))
                                     : svg::no_data(throughput.title, "the benchmark records no throughput series");
        out += "</div>\n";
    }
    out += "</section>\n";
    if (!any) out.resize(begin);  // no benchmark of this run succeeded at more than one batch size
}

// --find-peak: for each search, the percentiles of each bounded metric and the goodput
// against the rate tried, the peak marked, and the rates in the order tried.
void peak_section(std::string& out, const RunFigures& figures, Ids& ids) {
    const std::vector<PeakTable> tables = peak_tables(figures);
    if (tables.empty()) return;
    out += "<section id=\"peak-search\"><h2>Peak search</h2>\n";
    for (const PeakTable& table : tables) {
        const bench::PeakSearch& search = *table.outcome->result.peak_search;
        const std::string id = table.outcome->config.scenario_id();
        std::vector<const bench::PeakStep*> steps;
        for (const bench::PeakStep& step : search.steps) steps.push_back(&step);
        std::sort(steps.begin(), steps.end(),
                  [](const bench::PeakStep* a, const bench::PeakStep* b) { return a->target_qps < b->target_qps; });
        double low = INFINITY, high = 0;
        for (const bench::PeakStep* step : steps) {
            low = std::min(low, step->target_qps);
            high = std::max(high, step->target_qps);
        }
        std::ostringstream percentile;
        percentile << 'p' << search.percentile;
        const std::string verdict_of_peak = std::isfinite(search.peak_qps) ? "peak " + rate_text(search.peak_qps) : "";
        const auto with_peak = [&](svg::XYChart& chart) {
            if (!std::isfinite(search.peak_qps)) return;
            chart.markers.push_back({search.peak_qps, "peak", verdict_of_peak + ": the highest rate that passed"});
            chart.marker_label = "the peak";
        };
        const auto tip_of = [&](const bench::PeakStep& step, const std::string& what) {
            return rate_text(step.target_qps) + " (achieved " + rate_text(step.achieved_qps) + "): " + what + ", " +
                   (step.passed ? "pass" : "fail") +
                   (step.stopped_early.empty()
                        ? ""
                        : " (" + std::to_string(step.queries) + " of " + std::to_string(step.planned) + " queries)");
        };
        const svg::Axis x{"rate of arrivals (queries/s)", svg::scale_for(low, high), {}, false};

        out += "<h3><code>" + html_escape(id) + "</code></h3>\n<p>" + html_escape(table.bounds) + ". " +
               html_escape(table.peak) + ".</p>\n<div class=\"figures\">\n";
        const std::size_t metrics = steps.empty() ? 0 : steps.front()->metrics.size();
        for (std::size_t m = 0; m < metrics; ++m) {
            const bench::PeakMetric& first = steps.front()->metrics[m];
            svg::XYChart chart;
            chart.id = ids.next("peak-" + id + "-" + first.metric);
            chart.title = first.metric + " against the rate";
            chart.description = "The median and " + percentile.str() + " of " + first.metric + " at each rate " + id +
                                " was served at, with the bound of the SLO; the peak is the highest rate whose " +
                                percentile.str() + " was within it.";
            chart.x = x;
            chart.width = 590;
            chart.height = 340;
            svg::XYSeries p50{"p50", 0, {}, true, true}, pq{percentile.str(), 1, {}, true, true};
            svg::XYSeries bound{"bound " + format_figure(first.bound_ms, "ms"), 2, {}, true, false};
            double y_low = first.bound_ms, y_high = first.bound_ms;
            for (const bench::PeakStep* step : steps) {
                if (m >= step->metrics.size()) continue;
                const bench::PeakMetric& metric = step->metrics[m];
                const auto finite = [](double v) { return std::isfinite(v) ? v : NAN; };
                p50.points.push_back({step->target_qps, finite(metric.p50_ms), NAN, NAN,
                                      tip_of(*step, "p50 " + format_figure(metric.p50_ms, "ms"))});
                pq.points.push_back(
                    {step->target_qps, finite(metric.percentile_ms), NAN, NAN,
                     tip_of(*step, percentile.str() + " " + format_figure(metric.percentile_ms, "ms"))});
                for (const double v : {metric.p50_ms, metric.percentile_ms}) {
                    if (!std::isfinite(v) || v <= 0) continue;
                    y_low = std::min(y_low, v);
                    y_high = std::max(y_high, v);
                }
            }
            bound.points = {{low, first.bound_ms, NAN, NAN, "bound " + format_figure(first.bound_ms, "ms")},
                            {high, first.bound_ms, NAN, NAN, "bound " + format_figure(first.bound_ms, "ms")}};
            chart.y = {first.metric + " (ms)", svg::scale_for(y_low, y_high, 10), {}, false};
            chart.series = {std::move(p50), std::move(pq), std::move(bound)};
            with_peak(chart);
            out += figure(svg::xy_chart(chart));
        }
        svg::XYChart goodput;
        goodput.id = ids.next("peak-" + id + "-goodput");
        goodput.title = "goodput against the rate";
        goodput.description = "The share of the queries served at each rate that met every bound of the SLO.";
        goodput.x = x;
        goodput.width = 590;
        goodput.height = 340;
        goodput.y = {"goodput (%)", svg::Scale::linear, {0, 25, 50, 75, 100}, true};
        svg::XYSeries line{"goodput", 3, {}, true, true};
        for (const bench::PeakStep* step : steps)
            line.points.push_back(
                {step->target_qps, step->goodput, NAN, NAN, tip_of(*step, "goodput " + format3(step->goodput) + "%")});
        goodput.series.push_back(std::move(line));
        with_peak(goodput);
        out += figure(svg::xy_chart(goodput)) + "</div>\n";

        out += "<table class=\"scenarios\"><thead><tr>";
        for (const std::string& column : table.columns) out += "<th>" + html_escape(column) + "</th>";
        out += "</tr></thead><tbody>\n";
        for (const auto& row : table.rows) {
            out += "<tr>";
            for (std::size_t c = 0; c < row.size(); ++c)
                out += (c + 1 == row.size() ? "<td>" : "<td class=\"num\">") + html_escape(row[c]) + "</td>";
            out += "</tr>\n";
        }
        out += "</tbody></table>\n";
    }
    out += "</section>\n";
}

// Distributed scenarios: throughput against world size with the ideal line, each
// collective's bus bandwidth against message size (a line per world size), and each
// scenario's ranks with the stragglers.
void distributed_section(std::string& out, const RunFigures& figures, Ids& ids) {
    if (figures.rank_tables.empty() && figures.bandwidth.empty() && figures.scaling.empty()) return;
    out += "<section id=\"distributed\"><h2>Distributed scenarios</h2>\n";
    if (!figures.scaling.empty()) {
        out += "<h3 id=\"scaling\">Throughput against world size</h3>\n<p class=\"muted\">" +
               html_escape(scaling_explanation) + "</p>\n";
        for (const ScalingGroup& group : figures.scaling) {
            svg::XYChart chart;
            chart.id = ids.next("scaling-" + group.group);
            chart.title = group.group + ": throughput against world size";
            chart.description = "Median throughput of " + group.group +
                                " at each world size, with the 95% confidence interval of each median, and the "
                                "ideal: world size times the throughput at world size 1.";
            chart.width = 590;
            chart.height = 340;
            std::vector<double> sizes;
            svg::XYSeries measured{"measured", 0, {}, true, true}, ideal{"ideal (N x at 1)", 2, {}, true, false};
            double high = 0;
            for (const ScalingGroup::Point& p : group.points) {
                sizes.push_back(p.world_size);
                const std::string at = "world size " + std::to_string(p.world_size) + ": ";
                measured.points.push_back(
                    {static_cast<double>(p.world_size), p.throughput, p.ci.low, p.ci.high,
                     at + figure_with_interval(p.throughput, p.ci, group.unit) +
                         (std::isfinite(p.efficiency)
                              ? ", efficiency " + scaling_efficiency_text(p.efficiency, p.efficiency_ci)
                              : "")});
                high = std::max({high, p.throughput, p.ci.valid() ? p.ci.high : 0.0});
                if (std::isfinite(p.ideal)) {
                    ideal.points.push_back({static_cast<double>(p.world_size), p.ideal, NAN, NAN,
                                            at + "ideal " + format_figure(p.ideal, group.unit)});
                    high = std::max(high, p.ideal);
                }
            }
            chart.x = {"world size (ranks)", svg::Scale::linear, sizes, false};
            chart.y = {"median throughput (" + group.unit + ")", svg::Scale::linear, {}, true};
            chart.series.push_back(std::move(measured));
            if (!ideal.points.empty()) chart.series.push_back(std::move(ideal));
            out += "<div class=\"figures\">\n" + figure(svg::xy_chart(chart));
            out +=
                "<div class=\"scroll\"><table class=\"scenarios scaling\"><thead><tr><th>World size</th>"
                "<th>Throughput (95% CI)</th><th>Ideal (N x at 1)</th><th>Scaling "
                "efficiency</th></tr></thead><tbody>\n";
            for (const ScalingGroup::Point& p : group.points)
                out += "<tr><td class=\"num\">" + std::to_string(p.world_size) + "</td><td class=\"num\">" +
                       figure_cell(figure_with_interval(p.throughput, p.ci, group.unit)) + "</td><td class=\"num\">" +
                       html_escape(format_figure(p.ideal, group.unit)) + "</td><td class=\"num\">" +
                       html_escape(scaling_efficiency_text(p.efficiency, p.efficiency_ci)) + "</td></tr>\n";
            out += "</tbody></table></div>\n</div>\n";
        }
    }
    if (!figures.bandwidth.empty()) {
        out +=
            "<h3 id=\"bus-bandwidth\">Bus bandwidth against message size</h3>\n<p class=\"muted\">Median bus "
            "bandwidth (nccl-tests' bus bandwidth: the algorithm bandwidth times its factor) at each message size, "
            "a chart per collective and a line per world size, with the 95% confidence interval of each "
            "median.</p>\n<div class=\"figures\">\n";
        std::vector<std::string> collectives;
        for (const BandwidthCurve& curve : figures.bandwidth) append_unique(collectives, curve.collective);
        for (const std::string& collective : collectives) {
            svg::XYChart chart;
            chart.id = ids.next("busbw-" + collective);
            chart.title = collective + ": bus bandwidth against message size";
            chart.description = "Median bus bandwidth of " + collective +
                                " at each message size (bytes, log scale), a line per world size, with 95% "
                                "confidence intervals.";
            chart.width = 590;
            chart.height = 340;
            std::vector<std::pair<double, std::string>> sizes;
            double y_low = INFINITY, y_high = 0;
            std::string unit;
            int color = 0;
            for (const BandwidthCurve& curve : figures.bandwidth) {
                if (curve.collective != collective) continue;
                svg::XYSeries line{curve.world_size > 0 ? "world size " + std::to_string(curve.world_size)
                                                        : std::string("one process"),
                                   color++ % 8,
                                   {},
                                   true,
                                   true};
                for (const BandwidthCurve::Point& p : curve.points) {
                    const bench::SeriesAnalysis& a = p.busbw->analysis;
                    unit = p.busbw->unit;
                    std::string tip = line.name + ", " + p.size + ": busbw " +
                                      figure_with_interval(a.summary.median, a.median_ci, unit);
                    if (p.algbw != nullptr)
                        tip += ", algbw " + format_figure(p.algbw->analysis.summary.median, p.algbw->unit);
                    if (p.latency != nullptr)
                        tip += ", latency " + format_figure(p.latency->analysis.summary.median, p.latency->unit);
                    line.points.push_back({p.bytes, a.summary.median, a.median_ci.low, a.median_ci.high, tip});
                    if (a.summary.median > 0) {
                        y_low = std::min(y_low, a.summary.median);
                        y_high = std::max(y_high, a.summary.median);
                    }
                    if (std::none_of(sizes.begin(), sizes.end(), [&](const auto& s) { return s.second == p.size; }))
                        sizes.emplace_back(p.bytes, p.size);
                }
                chart.series.push_back(std::move(line));
            }
            std::sort(sizes.begin(), sizes.end());
            chart.x = {"message size (bytes, log scale)", svg::Scale::log, {}, false};
            // Each size a tick, named as the plugin names it; every other one past eight.
            const std::size_t every = sizes.size() > 8 ? 2 : 1;
            for (std::size_t i = 0; i < sizes.size(); i += every) {
                chart.x.ticks.push_back(sizes[i].first);
                chart.x.tick_labels.push_back(sizes[i].second);
            }
            const bool log_y =
                y_high > 0 && std::isfinite(y_low) && svg::scale_for(y_low, y_high, 10) == svg::Scale::log;
            chart.y = {"median bus bandwidth (" + (unit.empty() ? std::string("GB/s") : unit) + ")",
                       log_y ? svg::Scale::log : svg::Scale::linear,
                       {},
                       !log_y};
            out += figure(svg::xy_chart(chart));
        }
        out += "</div>\n";
    }
    if (!figures.rank_tables.empty()) {
        out += "<h3 id=\"ranks\">Ranks</h3>\n<p class=\"muted\">" + html_escape(ranks_explanation) + "</p>\n";
        for (const RankTable& table : figures.rank_tables) {
            const bool straggler = std::any_of(table.rows.begin(), table.rows.end(),
                                               [](const RankTable::Row& row) { return !row.stragglers.empty(); });
            out += "<h4>" + scenario_code(figures, *table.scenario->outcome) +
                   (straggler ? " <span class=\"status bad\">straggler</span>" : "") +
                   "</h4>\n<div class=\"scroll\"><table class=\"scenarios ranks\"><thead><tr><th>Series</th>";
            for (int r = 0; r < table.ranks; ++r) out += "<th>rank " + std::to_string(r) + "</th>";
            out += "<th>Straggler</th></tr></thead><tbody>\n";
            for (const RankTable::Row& row : table.rows) {
                out += std::string("<tr") + (row.stragglers.empty() ? "" : " class=\"straggler\"") + "><td><code>" +
                       html_escape(row.series) + "</code></td>";
                for (std::size_t r = 0; r < row.per_rank.size(); ++r) {
                    const bool slow = std::any_of(row.stragglers.begin(), row.stragglers.end(),
                                                  [&](const Straggler& s) { return s.rank == static_cast<int>(r); });
                    out += std::string("<td class=\"num") + (slow ? " bad" : "") + "\">" +
                           figure_cell(median_text(row.per_rank[r])) + "</td>";
                }
                out += "<td>" + (row.stragglers.empty() ? std::string("-") : html_escape(stragglers_text(row))) +
                       "</td></tr>\n";
            }
            out += "</tbody></table></div>\n";
        }
    }
    out += "</section>\n";
}

// Speedups of every variant over eager, with their 95% CIs: one row per benchmark point
// and series, one mark per variant.
void speedup_chart(std::string& out, const RunFigures& figures, Ids& ids) {
    const std::size_t begin = out.size();
    out += "<section id=\"speedups\"><h2>Speedup over eager</h2>\n";
    svg::IntervalChart chart;
    chart.id = ids.next("speedups");
    chart.title = "Speedup over eager (eager's median / the variant's), with 95% CIs";
    chart.description =
        "For each benchmark and batch size, the speedup of each variant over the eager variant of the "
        "same benchmark and axes: the ratio of the medians, with the 95% bootstrap confidence interval "
        "of that ratio as whiskers. Above 1 is faster than eager.";
    chart.width = 1180;
    chart.reference = 1;
    chart.reference_label = "1x: as fast as eager";
    std::vector<std::string> legend_variants;
    double low = INFINITY, high = 0;
    const auto groups = group_by<std::string>(
        figures, [](const ScenarioFigures& f) { return !f.speedups.empty(); },
        [](const ScenarioFigures& f) { return f.variant_group; });
    for (const auto& [group, members] : groups) {
        std::vector<std::string> series_names;
        for (const ScenarioFigures* f : members)
            for (const Speedup& s : f->speedups) append_unique(series_names, s.series);
        for (const std::string& series : series_names) {
            svg::IntervalRow row;
            row.label = short_label(*members.front()->outcome, group) + (series == "latency" ? "" : " " + series);
            for (const ScenarioFigures* f : members) {
                for (const Speedup& s : f->speedups) {
                    if (s.series != series) continue;
                    row.marks.push_back({variant_color(f->variant), s.value, s.ci.low, s.ci.high,
                                         f->variant + ", " + row.label + ": " + speedup_text(s)});
                    low = std::min({low, s.value, s.ci.valid() ? s.ci.low : s.value});
                    high = std::max({high, s.value, s.ci.valid() ? s.ci.high : s.value});
                    append_unique(legend_variants, f->variant);
                }
            }
            chart.rows.push_back(std::move(row));
        }
    }
    for (const std::string& variant : legend_variants) chart.legend.emplace_back(variant, variant_color(variant));
    chart.x = {"speedup over eager (x)", svg::scale_for(std::min(low, 1.0), std::max(high, 1.0), 8), {}, false};
    out += figure(svg::interval_chart(chart)) + "</section>\n";
    if (chart.rows.empty()) out.resize(begin);  // no variant succeeded beside an eager scenario
}

// The most dots a row of a distribution chart draws: a longer series is drawn as this
// many of its order statistics, evenly spaced (its quartiles and extremes kept); the
// plugin reports keep every sample.
constexpr std::size_t max_dots = 200;

std::vector<double> summarised(const std::vector<double>& samples) {
    if (samples.size() <= max_dots) return samples;
    std::vector<double> sorted = samples, kept;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < max_dots; ++i) kept.push_back(sorted[i * (sorted.size() - 1) / (max_dots - 1)]);
    return kept;
}

// The samples of each scenario's headline series, per benchmark.
void distribution_charts(std::string& out, const RunFigures& figures, Ids& ids) {
    const std::size_t begin = out.size();
    bool any = false;
    out += "<section id=\"distributions\"><h2>Distributions of the samples</h2>\n";
    out += "<p class=\"muted\">Each row: the samples of a scenario (dots; of a series longer than " +
           std::to_string(max_dots) +
           " samples, that many of its order statistics, evenly spaced), their quartiles "
           "(box), median (bar) and the range within 1.5 IQR of the quartiles (whiskers).</p>\n";
    const auto groups = group_by<std::string>(
        figures, [](const ScenarioFigures& f) { return f.success() && !f.samples.empty(); },
        [](const ScenarioFigures& f) { return f.outcome->config.benchmark_id() + "\n" + f.headline; });
    for (const auto& [key, members] : groups) {
        if (members.size() < 2) continue;  // a chart compares at least two scenarios
        const ScenarioFigures& first = *members.front();
        svg::DistributionChart chart;
        chart.id = ids.next("distribution-" + first.outcome->config.benchmark_id());
        chart.title = first.outcome->config.benchmark_id() + ": " + first.headline + " per scenario";
        chart.description = "The samples of " + first.headline + " of each scenario of " +
                            first.outcome->config.benchmark_id() + ", with box plots of their quartiles.";
        double factor = 1, low = INFINITY, high = 0;
        std::string unit = first.unit;
        if (first.is_time) {
            double max_ms = 0;
            for (const ScenarioFigures* f : members)
                if (f->is_time) max_ms = std::max(max_ms, f->analysis.summary.median * to_ms_factor(f->unit));
            std::tie(unit, factor) = time_display_unit(max_ms);
        }
        for (const ScenarioFigures* f : members) {
            if (f->is_time != first.is_time || (!f->is_time && f->unit != first.unit)) continue;
            svg::DistributionRow row;
            const auto axes = scenario_axes(f->outcome->config.scenario_name);
            row.label = axes.empty()
                            ? f->outcome->config.scenario_name
                            : f->outcome->config.scenario_name.substr(f->outcome->config.scenario_name.find('['));
            row.color = variant_color(f->variant);
            const std::vector<double> samples = summarised(f->is_time ? f->samples_ms : f->samples);
            for (const double v : samples) {
                row.samples.push_back(v * factor);
                low = std::min(low, v * factor);
                high = std::max(high, v * factor);
            }
            chart.rows.push_back(std::move(row));
        }
        chart.x = {first.headline + " (" + unit + ")", svg::scale_for(low, high, 10), {}, false};
        chart.width = 1000;
        out += figure(svg::distribution_chart(chart));
        any = true;
    }
    out += "</section>\n";
    if (!any) out.resize(begin);
}

// At most `limit` points: the mean of each run of consecutive values (NaN left out).
std::vector<std::pair<double, double>> averaged_points(const std::vector<double>& x, const std::vector<double>& y,
                                                       std::size_t limit) {
    std::vector<std::pair<double, double>> points;
    const std::size_t n = std::min(x.size(), y.size());
    const std::size_t per = n <= limit ? 1 : (n + limit - 1) / limit;
    for (std::size_t start = 0; start < n; start += per) {
        double sx = 0, sy = 0;
        int count = 0;
        for (std::size_t i = start; i < std::min(n, start + per); ++i) {
            if (!std::isfinite(x[i]) || !std::isfinite(y[i])) continue;
            sx += x[i];
            sy += y[i];
            ++count;
        }
        points.emplace_back(count > 0 ? sx / count : x[start], count > 0 ? sy / count : NAN);
    }
    return points;
}

struct TimelineMetric {
    const char* monitor;
    const char* name;
    const char* label;
};

struct TimelineChart {
    const char* title;
    const char* unit;  // what the monitors write for these metrics
    std::vector<TimelineMetric> metrics;
};

const std::vector<TimelineChart>& timeline_charts() {
    static const std::vector<TimelineChart> charts = {
        {"Utilization",
         "%",
         {{"cpu_metrics", "cpu_utilization", "worker CPU"},
          {"cpu_metrics", "system_cpu_utilization", "all CPUs"},
          {"gpu_metrics", "gpu_utilization", "GPU"}}},
        {"Memory",
         "MiB",
         {{"cpu_metrics", "rss", "worker RSS"}, {"gpu_metrics", "process_memory_used", "worker GPU memory"}}},
        {"GPU power", "W", {{"gpu_metrics", "power", "GPU power"}}},
    };
    return charts;
}

// The measurement windows of a timeline: spans of samples with in_measurement = 1 (a
// sample stands for the time since the one before it).
std::vector<std::pair<double, double>> measurement_spans(const bench::MonitorTimeline& timeline) {
    std::vector<std::pair<double, double>> spans;
    const auto it = timeline.series.find("in_measurement");
    if (it == timeline.series.end()) return spans;
    const auto& flags = it->second;
    const auto& t = timeline.time_s;
    for (std::size_t i = 0; i < std::min(flags.size(), t.size()); ++i) {
        if (!(flags[i] > 0.5) || !std::isfinite(t[i])) continue;
        const double from = i > 0 && std::isfinite(t[i - 1]) ? t[i - 1] : t[i];
        if (!spans.empty() && spans.back().second >= from) {
            spans.back().second = t[i];
        } else {
            spans.emplace_back(from, t[i]);
        }
    }
    return spans;
}

// The most scenarios whose monitor timelines the page draws: the ones whose monitors
// warned first, then the others in order. Each is three charts; a run of many scenarios
// keeps the rest in its plugin reports (each monitor's "timeline").
constexpr std::size_t max_timelines = 12;

void monitor_charts(std::string& out, const RunFigures& figures, Ids& ids) {
    const std::size_t begin = out.size();
    out += "<section id=\"monitors\"><h2>Monitors over time</h2>\n";
    out +=
        "<p class=\"muted\">What the CPU and GPU monitors sampled while each scenario ran (seconds since the "
        "monitor started); shaded: the measurement windows.</p>\n";
    std::map<std::string, int> unavailable;  // "gpu_metrics: reason" -> scenarios
    std::vector<const ScenarioOutcome*> without_data;
    std::vector<const ScenarioFigures*> order;
    for (const std::string& category : category_order(figures))
        for (const ScenarioFigures& f : figures.scenarios)
            if (f.outcome->config.category == category) order.push_back(&f);
    std::stable_partition(order.begin(), order.end(), [](const ScenarioFigures* f) {
        const auto& monitors = f->outcome->result.monitors;
        return std::any_of(monitors.begin(), monitors.end(), [](const auto& m) { return !m.second.warnings.empty(); });
    });
    std::size_t drawn = 0, not_drawn = 0;
    {
        for (const ScenarioFigures* drawn_figures : order) {
            const ScenarioFigures& f = *drawn_figures;
            const ScenarioOutcome& outcome = *f.outcome;
            const auto& monitors = outcome.result.monitors;
            for (const auto& [name, report] : monitors)
                if (!report.available)
                    ++unavailable[name + ": " + (report.reason.empty() ? "not available" : report.reason)];

            if (drawn == max_timelines) {
                not_drawn +=
                    std::any_of(monitors.begin(), monitors.end(), [](const auto& m) { return m.second.available; });
                continue;
            }
            std::string charts;
            std::vector<std::pair<double, double>> bands;
            for (const char* monitor : {"cpu_metrics", "gpu_metrics"}) {
                const auto it = monitors.find(monitor);
                if (it != monitors.end() && bands.empty()) bands = measurement_spans(it->second.timeline);
            }
            for (const TimelineChart& spec : timeline_charts()) {
                svg::XYChart chart;
                chart.id = ids.next("monitor-" + outcome.config.scenario_name);
                chart.title = std::string(spec.title) + " (" + spec.unit + ")";
                chart.x = {"time (s)", svg::Scale::linear, {}, true};
                chart.y = {std::string(spec.title) + " (" + spec.unit + ")", svg::Scale::linear, {}, true};
                chart.width = 390;
                chart.height = 240;
                chart.bands = bands;
                chart.band_label = "measured";
                std::size_t points = 0;
                for (std::size_t k = 0; k < spec.metrics.size(); ++k) {
                    const TimelineMetric& metric = spec.metrics[k];
                    const auto report = monitors.find(metric.monitor);
                    if (report == monitors.end()) continue;
                    const auto series = report->second.timeline.series.find(metric.name);
                    if (series == report->second.timeline.series.end()) continue;
                    const auto stats = report->second.metrics.find(metric.name);
                    if (stats != report->second.metrics.end() && !stats->second.unit.empty() &&
                        stats->second.unit != spec.unit)
                        continue;  // not the unit this chart is in
                    svg::XYSeries line{metric.label, static_cast<int>(k), {}, true, false};
                    std::size_t finite = 0;
                    for (const auto& [t, v] : averaged_points(report->second.timeline.time_s, series->second, 150)) {
                        line.points.push_back({t, v, NAN, NAN, {}});
                        finite += std::isfinite(t) && std::isfinite(v);
                    }
                    if (finite == 0) continue;  // never read: not in the chart, nor in its legend
                    if (finite == 1) line.markers = true;  // a lone sample shows as a dot
                    points += finite;
                    chart.series.push_back(std::move(line));
                }
                if (points == 0) continue;
                chart.description = std::string(spec.title) + " over time while " + outcome.config.scenario_id() +
                                    " ran, sampled by the monitors; shaded spans are the measurement windows.";
                charts += figure(svg::xy_chart(chart));
            }
            if (charts.empty()) {
                if (!monitors.empty() || outcome.result.status == bench::Status::success)
                    without_data.push_back(&outcome);
                continue;
            }
            ++drawn;
            out += "<h3>" + scenario_code(figures, outcome) + "</h3>\n<div class=\"figures\">\n" + charts + "</div>\n";
        }
    }
    if (drawn == 0) {  // nothing to draw: no section
        out.resize(begin);
        return;
    }
    if (not_drawn > 0)
        out += "<p class=\"muted\">The timelines of " + std::to_string(not_drawn) + " more " +
               (not_drawn == 1 ? "scenario are" : "scenarios are") + " in their plugin reports (each monitor's " +
               "<code>timeline</code>): the page draws " + std::to_string(max_timelines) +
               ", the ones whose monitors warned first.</p>\n";
    if (!unavailable.empty() || !without_data.empty()) {
        out += "<ul class=\"problems muted\">\n";
        for (const auto& [what, count] : unavailable)
            out += "<li>" + html_escape(what) + " (" + std::to_string(count) +
                   (count == 1 ? " scenario" : " scenarios") + ")</li>\n";
        if (!without_data.empty()) out += "<li>No timeline: " + scenario_list(figures, without_data, false) + "</li>\n";
        out += "</ul>\n";
    }
    out += "</section>\n";
}

}  // namespace

std::string html_report(const RunFigures& figures, const FrameworkComparison& frameworks,
                        const Comparison* comparison) {
    const RunRecord& record = *figures.record;
    Ids ids;
    const std::string title =
        "benchhost run " + (record.timestamp.empty() ? std::string("(no timestamp)") : record.timestamp);

    // The sections, each empty when the run has nothing for it; the contents link to the others.
    std::string links;  // <li> items
    const auto link = [&links](const std::string& anchor, const std::string& text) {
        links += "<li><a href=\"#" + anchor + "\">" + html_escape(text) + "</a></li>";
    };
    std::string results;
    for (const CategoryTables& category : figures.categories) {
        std::string anchor = "category-";
        for (const char c : category.category) anchor += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
        const std::string section = category_section(figures, category, anchor);
        if (section.empty()) continue;
        link(anchor, category.category);
        results += section;
    }
    if (!results.empty()) results = "<div id=\"filter-box\"></div>\n" + results;
    std::string charts;
    const auto add = [&](const char* anchor, const char* text, const auto& render) {
        const std::size_t before = charts.size();
        render(charts, figures, ids);
        if (charts.size() > before) link(anchor, text);
    };
    add("distributed", "Distributed", distributed_section);
    add("peak-search", "Peak search", peak_section);
    add("batch-sizes", "Against batch size", batch_size_charts);
    add("speedups", "Speedups", speedup_chart);
    const ModelComparison models = compare_models(figures, frameworks);
    links += model_comparison_nav(models);
    charts += model_comparison_html(models, [&ids](std::string_view stem) { return ids.next(stem); });
    add("distributions", "Distributions", distribution_charts);
    add("monitors", "Monitors", monitor_charts);
    const std::string profiles = profile_html_section(figures);
    if (!profiles.empty()) link("profiles", "Where the time goes");
    const std::string skipped = skipped_section(figures);
    if (!skipped.empty()) link("skipped", "Skipped");

    std::string out = html_page_start(title);
    out += "<header><h1>" + html_escape(title) + "</h1><p class=\"subtitle\">" + html_escape(record.host_name) +
           " &middot; " + html_escape(record.started_at) + " &middot; " + std::to_string(figures.totals.total) +
           " scenarios</p></header>\n";
    out += "<nav aria-label=\"Contents\"><ul><li><a href=\"#summary\">Summary</a></li>";
    out += links;
    out += "<li><a href=\"#run\">How it ran</a></li></ul></nav>\n";
    summary_section(out, figures, comparison);
    out += results + charts + profiles + skipped;
    run_section(out, figures);
    out += "<footer class=\"muted\"><p>Written by benchhost " + html_escape(record.host_version) +
           " from the run's reports; <code>benchhost report DIR</code> writes it again. The same tables are in "
           "<a href=\"report.md\">report.md</a>.</p></footer>\n";
    out += html_page_script() + html_page_end();
    return out;
}

std::string html_report(const RunRecord& given, const Comparison* comparison) {
    std::optional<RunRecord> storage;
    const RunRecord& record = with_statistics(given, storage);
    return html_report(compute_figures(record), compare_frameworks(record), comparison);
}

/// report.html in the run folder, written once at the end (its tables and charts are over
/// every scenario of the run), after the comparison with the baseline, whose verdicts it shows;
/// the comparison across frameworks shared with report.md (RunEnd::frameworks).
std::unique_ptr<RunReporter> make_html_reporter(const ReporterSettings& settings) {
    return make_file_reporter(
        settings, {.name = html_report_name, .render = [](const RunRecord& record, const RunEnd& end) {
                       return html_report(compute_figures(record), end.frameworks(record), end.baseline_comparison());
                   }});
}

}  // namespace benchhost
