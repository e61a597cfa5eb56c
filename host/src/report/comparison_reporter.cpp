#include "report/comparison_reporter.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <stdexcept>

#include <fmt/format.h>

#include "report/report_reader.hpp"
#include "report/html/html_page.hpp"
#include "report/html/svg_chart.hpp"
#include "json/json_writer.hpp"
#include "report/reporter_factories.hpp"
#include "util/atomic_file.hpp"
#include "util/text_table.hpp"
#include "util/units.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

std::string interval_text(const bench::Interval& ci) {
    if (!ci.valid()) return "-";
    return fmt::format("[{}, {}]", format3(ci.low), format3(ci.high));
}

/// What a verdict rests on: "5 pairs", "3 vs 3 rounds", "" (one run a side).
std::string evidence_text(const std::string& evidence, int base_rounds, int new_rounds, std::size_t history_runs = 0) {
    if (evidence == "history") return fmt::format("noise of {} runs in the history", history_runs);
    if (evidence == "pairs") return fmt::format("{} pairs", std::min(base_rounds, new_rounds));
    if (evidence == "rounds") return fmt::format("{} vs {} rounds", base_rounds, new_rounds);
    return "";
}

/// A confirmed row's first figures: "flagged slower at +7.2% [1.03, 1.12] after 3 pairs, confirmed".
std::string first_text(const SeriesComparison& row) {
    const SeriesComparison::First& first = *row.first;
    const std::string after = evidence_text(row.evidence, first.base_rounds, first.new_rounds);
    return fmt::format("flagged {} at {} {}{}, {}", to_string(first.verdict), format_change(first.ratio),
                       interval_text(first.ratio_ci), after.empty() ? "" : " after " + after,
                       row.verdict == Verdict::slower ? "confirmed" : "not confirmed");
}

/// The verdict with what it rests on: "slower (3 vs 3 rounds)", "same (too few samples ...)".
std::string verdict_text(const SeriesComparison& row) {
    std::string text(to_string(row.verdict));
    std::vector<std::string> said;
    if (std::string evidence = evidence_text(row.evidence, row.base_rounds, row.new_rounds, row.history_runs);
        !evidence.empty())
        said.push_back(std::move(evidence));
    if (row.first) said.push_back(first_text(row));
    if (!row.note.empty()) said.push_back(row.note);
    for (std::size_t i = 0; i < said.size(); ++i) text += (i == 0 ? " (" : "; ") + said[i];
    return text + (said.empty() ? "" : ")");
}

/// The U test's p, for rows judged by their samples (over rounds it is not the evidence).
std::string p_text(const SeriesComparison& row) {
    const double p = row.p_value;
    if (row.evidence != "samples" || !std::isfinite(p)) return "-";
    if (p < 0.001) return "<0.001";
    return fmt::format("{:.3f}", p);
}


/// "1 slower, 0 faster, 2 same (threshold 5%, ...)": the settings the verdicts read
/// (alpha and the noise floor only where a row was judged by its samples).
std::string verdict_counts(const Comparison& c) {
    const std::size_t inconclusive = c.count(Verdict::inconclusive);
    const bool by_samples = std::any_of(c.rows.begin(), c.rows.end(),
                                        [](const SeriesComparison& row) { return row.evidence == "samples"; });
    return fmt::format("{} slower, {} faster, {} same{} (threshold {:.3g}%{})", c.count(Verdict::slower),
                       c.count(Verdict::faster), c.count(Verdict::same),
                       inconclusive > 0 ? fmt::format(", {} inconclusive", inconclusive) : std::string(),
                       c.options.threshold * 100,
                       by_samples ? fmt::format(", alpha {:.3g}, noise floor {:.3g}%", c.options.alpha,
                                                c.options.noise_floor * 100)
                                  : std::string());
}

std::string load_text(const SideLoad& load) {
    if (load.scenarios == 0) return "not monitored";
    std::string text = fmt::format("machine {:.0f}% busy, {:.2f} CPUs used by other processes",
                                   load.machine_busy_percent, load.other_cpus);
    if (std::isfinite(load.load_average)) text += fmt::format(", load average {:.2f}", load.load_average);
    return text;
}

/// "Load while measuring: base: ...; new: ..." (the CPU monitor's view of each side).
std::string loads_line(const Comparison& c) {
    if (c.base_load.scenarios == 0 && c.new_load.scenarios == 0)
        return "Load while measuring: not monitored (no scenario measured with the CPU monitor on; --monitor-interval 0 turns it off)";
    return "Load while measuring: base: " + load_text(c.base_load) + "; new: " + load_text(c.new_load);
}

void write_load(JsonOut& out, const SideLoad& load) {
    out.start_object();
    out.field("monitored_scenarios", load.scenarios);
    out.field("machine_busy_percent", load.machine_busy_percent);
    out.field("other_cpus", load.other_cpus);
    out.field("load_average", load.load_average);
    out.end_object();
}

}  // namespace

std::string evidence_line(const SeriesComparison& row, double threshold) {
    return fmt::format("{} {} -> {}, {}, ratio 95% CI {}, {}, threshold {:.3g}%", row.series,
                       format_figure(row.base_median_ms, "ms"), format_figure(row.new_median_ms, "ms"),
                       format_change(row.ratio), interval_text(row.ratio_ci), verdict_text(row), threshold * 100);
}

std::string comparison_table(const Comparison& c) {
    const std::vector<TableColumn> columns = {
        {"SCENARIO", Align::left}, {"SERIES", Align::left}, {"BASE", Align::right},     {"NEW", Align::right},
        {"CHANGE", Align::right},  {"RATIO 95% CI", Align::right}, {"P", Align::right}, {"VERDICT", Align::left}};
    std::vector<std::vector<std::string>> rows;
    for (const SeriesComparison& row : c.rows) {
        rows.push_back({row.scenario_id, row.series, format_figure(row.base_median_ms, "ms"),
                        format_figure(row.new_median_ms, "ms"), format_change(row.ratio), interval_text(row.ratio_ci),
                        p_text(row), verdict_text(row)});
    }
    rows.push_back({"geometric mean", "", "", "", format_change(c.geomean_ratio), "", "", ""});

    std::string out = "Comparing " + c.new_label + " (new) with " + c.base_label + " (base)\n";
    if (!c.incomparable.empty()) {
        out += "WARNING: the runs are not comparable: their machines or builds differ:\n";
        for (const auto& line : c.incomparable) out += "  " + line + "\n";
    }
    out += "\n" + render_table(columns, rows);
    const auto list = [&](const char* title, const std::vector<std::string>& items) {
        if (items.empty()) return;
        out += std::string("\n") + title + ":\n";
        for (const auto& item : items) out += "  " + item + "\n";
    };
    list("Only in the base run", c.only_in_base);
    list("Only in the new run", c.only_in_new);
    list("Not compared", c.not_compared);
    list("Notes", c.notes);
    out += "\n" + loads_line(c) + "\n" + verdict_counts(c) + "\n";
    return out;
}

std::string comparison_markdown(const Comparison& c) {
    const auto cell = [](std::string text) {  // a pipe would end the cell
        std::string out;
        for (const char ch : text) {
            if (ch == '|') out += "\\|";
            else if (ch == '\n') out += ' ';
            else out += ch;
        }
        return out;
    };
    std::string out = "## benchhost comparison\n\n";
    out += "New: `" + cell(c.new_label) + "`, base: `" + cell(c.base_label) + "`\n\n";
    if (!c.incomparable.empty()) {
        out += "> **Warning:** the runs are not comparable: their machines or builds differ.\n";
        for (const auto& line : c.incomparable) out += "> - " + cell(line) + "\n";
        out += "\n";
    }
    out += "| Scenario | Series | Base | New | Change | Ratio 95% CI | p | Verdict |\n";
    out += "|---|---|--:|--:|--:|--:|--:|---|\n";
    for (const SeriesComparison& row : c.rows) {
        const std::string verdict = verdict_text(row);
        out += "| " + cell(row.scenario_id) + " | " + cell(row.series) + " | " + format_figure(row.base_median_ms, "ms") +
               " | " + format_figure(row.new_median_ms, "ms") + " | " + format_change(row.ratio) + " | " +
               interval_text(row.ratio_ci) + " | " + p_text(row) + " | " +
               (row.verdict == Verdict::slower ? "**" + cell(verdict) + "**" : cell(verdict)) + " |\n";
    }
    out += "| **Geometric mean** | | | | " + format_change(c.geomean_ratio) + " | | | |\n";
    const auto list = [&](const char* title, const std::vector<std::string>& items) {
        if (items.empty()) return;
        out += std::string("\n**") + title + ":**\n";
        for (const auto& item : items) out += "- `" + cell(item) + "`\n";
    };
    list("Only in the base run", c.only_in_base);
    list("Only in the new run", c.only_in_new);
    list("Not compared", c.not_compared);
    list("Notes", c.notes);
    out += "\n" + loads_line(c) + "\n\n" + verdict_counts(c) + "\n";
    return out;
}

std::string comparison_json(const Comparison& c) {
    JsonOut out;
    out.start_object();
    out.field("schema_version", comparison_schema_version);
    out.field("base", c.base_label);
    out.field("new", c.new_label);
    out.field("mode", c.options.paired ? "ab" : "runs");
    out.field("threshold", c.options.threshold);
    out.field("alpha", c.options.alpha);
    out.field("noise_floor", c.options.noise_floor);
    out.field("comparable", c.incomparable.empty());
    out.key("incomparable");
    out.strings(c.incomparable);
    out.key("rows");
    out.start_array();
    for (const SeriesComparison& row : c.rows) {
        out.start_object();
        out.field("scenario_id", row.scenario_id);
        out.field("series", row.series);
        out.field("base_median_ms", row.base_median_ms);
        out.field("new_median_ms", row.new_median_ms);
        out.field("base_samples", row.base_samples);
        out.field("new_samples", row.new_samples);
        out.field("ratio", row.ratio);
        out.key("ratio_ci95");
        out.interval(row.ratio_ci);
        // The U test treats every sample as independent: it is the evidence only for a row
        // judged by its samples; over pairs, rounds or a history it would say "different
        // moments", not "different code", and is left out (null).
        out.key("p_value");
        if (row.evidence == "samples") out.number(row.p_value);
        else out.null();
        out.field("verdict", to_string(row.verdict));
        out.field("evidence", row.evidence);
        out.field("base_rounds", row.base_rounds);
        out.field("new_rounds", row.new_rounds);
        if (row.evidence == "history") out.field("history_runs", row.history_runs);
        if (row.verdict_level != 0.95) {
            out.field("verdict_level", row.verdict_level);
            out.key("verdict_ci");
            out.interval(row.verdict_ci);
        }
        if (!row.note.empty()) out.field("note", row.note);
        if (row.first) {
            out.key("first");
            out.start_object();
            out.field("ratio", row.first->ratio);
            out.key("ratio_ci95");
            out.interval(row.first->ratio_ci);
            out.field("verdict", to_string(row.first->verdict));
            out.field("base_rounds", row.first->base_rounds);
            out.field("new_rounds", row.first->new_rounds);
            out.end_object();
        }
        out.end_object();
    }
    out.end_array();
    out.field("geomean_ratio", c.geomean_ratio);
    out.key("only_in_base");
    out.strings(c.only_in_base);
    out.key("only_in_new");
    out.strings(c.only_in_new);
    out.key("not_compared");
    out.strings(c.not_compared);
    out.key("notes");
    out.strings(c.notes);
    out.key("load");
    out.start_object();
    out.key("base");
    write_load(out, c.base_load);
    out.key("new");
    write_load(out, c.new_load);
    out.end_object();
    out.key("counts");
    out.start_object();
    out.field("slower", c.count(Verdict::slower));
    out.field("faster", c.count(Verdict::faster));
    out.field("same", c.count(Verdict::same));
    out.field("inconclusive", c.count(Verdict::inconclusive));
    out.end_object();
    out.end_object();
    return out.text();
}


namespace {

/// The colour of a verdict in the page's chart and table.
int verdict_color(Verdict verdict) {
    switch (verdict) {
        case Verdict::slower: return 1;
        case Verdict::faster: return 2;
        case Verdict::same: return 0;
        case Verdict::inconclusive: return 6;
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
           "</code>, base: <code>" + html_escape(c.base_label) + "</code></p></header>\n";
    if (!links.empty()) {
        out += "<nav aria-label=\"Reports\"><ul>";
        for (const auto& [text, address] : links)
            out += "<li><a href=\"" + html_escape(address) + "\">" + html_escape(text) + "</a></li>";
        out += "</ul></nav>\n";
    }
    // The verdicts first, in the run page's boxes: slower in red, what went wrong under them.
    out += "<section id=\"verdicts\"><h2>Verdicts</h2>\n" + verdict_boxes_html(c) + "<p>" + html_escape(verdict_counts(c)) +
           "</p>\n<p>" + html_escape(loads_line(c)) + "</p>\n";
    if (!c.incomparable.empty()) {
        out += "<div class=\"warnings\"><p>The sides are not comparable: their machines or builds differ.</p><ul>";
        for (const std::string& line : c.incomparable) out += "<li>" + html_escape(line) + "</li>";
        out += "</ul></div>\n";
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
    out += "<section id=\"table\"><h2>Scenarios</h2>\n<div id=\"filter-box\"></div>\n<div class=\"scroll\"><table "
           "class=\"scenarios sortable filterable\"><thead><tr><th>Scenario</th><th>Series</th><th>Base</th><th>New</th>"
           "<th>Change</th><th>Ratio 95% CI</th><th>Verdict</th></tr></thead><tbody>\n";
    for (const SeriesComparison& row : c.rows) {
        const std::string verdict_class = row.verdict == Verdict::slower   ? "bad"
                                          : row.verdict == Verdict::faster ? "success"
                                                                           : "skipped";
        out += "<tr data-id=\"" + html_escape(row.scenario_id) + "\"><td>" + html_escape(row.scenario_id) + "</td><td>" +
               html_escape(row.series) + "</td><td class=\"num\" data-v=\"" + key(row.base_median_ms) + "\">" +
               html_escape(format_figure(row.base_median_ms, "ms")) + "</td><td class=\"num\" data-v=\"" +
               key(row.new_median_ms) + "\">" + html_escape(format_figure(row.new_median_ms, "ms")) +
               "</td><td class=\"num\" data-v=\"" + key(row.ratio) + "\">" + html_escape(format_change(row.ratio)) +
               "</td><td class=\"num\">" + html_escape(interval_text(row.ratio_ci)) +
               "</td><td><span class=\"status " + verdict_class + "\">" + html_escape(std::string(to_string(row.verdict))) +
               "</span> " + html_escape(verdict_text(row).substr(to_string(row.verdict).size())) + "</td></tr>\n";
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
        if (std::find(seen.begin(), seen.end(), row.verdict) == seen.end()) seen.push_back(row.verdict);
        chart.rows.push_back(std::move(chart_row));
    }
    for (const Verdict verdict : seen) chart.legend.emplace_back(std::string(to_string(verdict)), verdict_color(verdict));
    chart.x = {"new / base (ratio of medians)", svg::scale_for(low, high, 8), {}, false};
    out += chart.rows.empty() ? svg::no_data("Ratios", "no scenario was compared")
                              : "<figure>" + svg::interval_chart(chart) + "</figure>\n";
    out += "</section>\n";
    out += "<footer class=\"muted\"><p>Written by benchhost. The same table is in "
           "<a href=\"comparison.md\">comparison.md</a> and, for tools, comparison.json.</p></footer>\n";
    out += html_page_script() + html_page_end();
    return out;
}

void report_comparison(const Comparison& comparison, std::ostream& out, const fs::path& markdown, const fs::path& json) {
    out << comparison_table(comparison) << std::flush;
    if (!markdown.empty()) write_file_atomically(markdown, comparison_markdown(comparison));
    if (!json.empty()) write_file_atomically(json, comparison_json(comparison));
}

namespace {

class ComparisonReporter final : public Reporter {
public:
    explicit ComparisonReporter(const ReporterSettings& settings)
        : settings_(settings), out_(settings.console != nullptr ? settings.console : &std::cout) {}

    void run_finished(const RunRecord& record) override {
        if (settings_.baseline.empty()) return;
        status_ = 1;  // until the comparison is written
        const fs::path base_dir = run_folder_of(settings_.baseline);
        RunRecord base;
        try {
            base = read_run(base_dir);
        } catch (const std::exception& e) {
            throw std::runtime_error("cannot compare with the baseline " + settings_.baseline.string() + ": " +
                                     e.what());
        }
        Comparison comparison = compare_runs(base, record, settings_.compare);
        comparison.base_label = base_dir.string();
        comparison.new_label = settings_.output_dir.string();
        *out_ << "\n";
        if (settings_.comparison) *settings_.comparison = comparison;
        report_comparison(comparison, *out_, markdown_path(), json_path());
        regressions_ = comparison.regressions();
        slower_ = comparison.count(Verdict::slower);
        faster_ = comparison.count(Verdict::faster);
        status_ = settings_.fail_on_regression && regressions_ > 0 ? 1 : 0;
        if (settings_.log != nullptr) {
            settings_.log->info("comparison with {}: {} slower, {} faster", base_dir.string(), slower_, faster_);
            if (status_ != 0)
                settings_.log->error("{} regression{} beyond the threshold of {:.3g}%", regressions_,
                                     regressions_ == 1 ? "" : "s", settings_.compare.threshold * 100);
        }
    }
    int exit_status() const override { return status_; }
    std::vector<fs::path> files() const override { return {markdown_path(), json_path()}; }

private:
    fs::path markdown_path() const { return settings_.output_dir / "comparison.md"; }
    fs::path json_path() const { return settings_.output_dir / "comparison.json"; }

    ReporterSettings settings_;
    std::ostream* out_;
    int status_ = 0;
    std::size_t regressions_ = 0, slower_ = 0, faster_ = 0;
};

}  // namespace

std::unique_ptr<Reporter> make_comparison_reporter(const ReporterSettings& settings) {
    return std::make_unique<ComparisonReporter>(settings);
}

}  // namespace benchhost
