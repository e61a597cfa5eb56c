// summary.md (`run --format summary-md`, `ab --format summary-md`): one Markdown page
// sized for a CI job summary or a pull-request comment. The verdicts first (slower,
// faster, inconclusive, with their evidence), then what did not run, then the scenarios
// whose compiler broke graphs or compiled again (graph breaks, recompiles, samples a
// compile ran in), then a compact
// table of every scenario, then links to the full reports. Where GITHUB_STEP_SUMMARY
// names a file (a GitHub Actions step), the page is appended to it too, as GitHub
// documents.
#include "report/markdown/summary_md_reporter.hpp"

#include <cstdlib>
#include <fstream>
#include <map>

#include "analysis/compare.hpp"  // compiler_count_reasons
#include "analysis/scenario_statistics.hpp"
#include "report/comparison_reporter.hpp"
#include "report/file_reporter.hpp"
#include "report/markdown/markdown_text.hpp"
#include "report/rendered_reports.hpp"
#include "report/reporter_factories.hpp"
#include "util/text_table.hpp"

namespace benchhost {

std::string summary_markdown(const RunRecord& record, const Comparison* comparison, std::string_view title,
                             const std::vector<std::pair<std::string, std::string>>& links) {
    const RunTotals totals = count_totals(record);
    std::map<std::string, std::vector<const SeriesComparison*>> rows;  // by scenario id
    std::size_t slower = 0, faster = 0, inconclusive = 0;
    if (comparison != nullptr)
        for (const SeriesComparison& row : comparison->rows) {
            rows[row.scenario_id].push_back(&row);
            slower += row.verdict == Verdict::slower;
            faster += row.verdict == Verdict::faster;
            inconclusive += row.verdict == Verdict::inconclusive;
        }

    std::string out = "## " + md_text(title) + "\n\n";
    out += fmt::format("{} scenarios: {} succeeded, {} failed, {} skipped", totals.total, totals.successful,
                       totals.failed, totals.skipped);
    if (comparison != nullptr)
        out += fmt::format("; against {}: {} slower, {} faster, {} inconclusive (threshold {:.3g}%)",
                           md_code(comparison->base_label), slower, faster, inconclusive,
                           comparison->options.threshold * 100);
    out += "\n\n";

    // The verdicts a reader acts on, with their evidence.
    for (const auto& [verdict, heading] : {std::pair{Verdict::slower, "Slower"}, std::pair{Verdict::faster, "Faster"},
                                           std::pair{Verdict::inconclusive, "Inconclusive"}}) {
        std::string lines;
        for (const auto& [scenario, series] : rows)
            for (const SeriesComparison* row : series)
                if (row->verdict == verdict)
                    lines += "- " + md_code(scenario) + ": " +
                             md_text(evidence_line(*row, comparison->options.threshold)) + "\n";
        if (!lines.empty()) out += "### " + std::string(heading) + "\n\n" + lines + "\n";
    }
    std::string problems;
    for (const ScenarioOutcome& outcome : record.outcomes) {
        const bench::Status status = outcome.result.status;
        if (status == bench::Status::success || status == bench::Status::skipped) continue;
        problems += "- " + md_code(outcome.config.scenario_id()) + " " + std::string(bench::to_string(status)) + ": " +
                    md_text(one_line(outcome.result.reason, 300)) + "\n";
    }
    if (!problems.empty()) out += "### Did not run to the end\n\n" + problems + "\n";

    // What a compiler did that costs time in the samples or sends work back to eager:
    // each scenario whose graph breaks, recompiles or samples with a compile are not zero.
    std::string compiled;
    for (const ScenarioOutcome& outcome : record.outcomes) {
        std::string counts;
        for (const std::string_view name : {std::string_view("graph_breaks"), std::string_view("recompiles"),
                                            std::string_view("recompiled_samples")}) {
            const bench::Scalar* count = outcome.result.find_scalar(name);
            if (count == nullptr || !(count->value > 0)) continue;
            counts +=
                (counts.empty() ? "" : ", ") + std::string(name) + " " + format_figure_or_count(count->value, "count");
            if (const std::string reasons = compiler_count_reasons(outcome.result, name); !reasons.empty())
                counts += " (" + one_line(reasons, 200) + ")";
        }
        if (!counts.empty()) compiled += "- " + md_code(outcome.config.scenario_id()) + ": " + md_text(counts) + "\n";
    }
    if (!compiled.empty()) out += "### What the compiler did\n\n" + compiled + "\n";

    // A job summary has room for a page, not a suite of thousands: the first rows, and
    // the full reports for the rest.
    constexpr std::size_t table_rows = 50;
    out += "| scenario | status | median | change |\n|---|---|---|---|\n";
    for (std::size_t i = 0; i < record.outcomes.size() && i < table_rows; ++i) {
        const ScenarioOutcome& outcome = record.outcomes[i];
        // A scenario that did not succeed has no median: what it recorded before it ended is not its result.
        const SeriesStatistics* series =
            outcome.result.status == bench::Status::success ? headline_series(outcome) : nullptr;
        std::string change = "-";
        if (const auto found = rows.find(outcome.config.scenario_id()); found != rows.end())
            for (const SeriesComparison* row : found->second)
                if (series != nullptr && row->series == series->name)
                    change = format_change(row->ratio) + " " + std::string(to_string(row->verdict));
        out += "| " + md_code(outcome.config.scenario_id()) + " | " +
               std::string(bench::to_string(outcome.result.status)) + " | " +
               (series != nullptr
                    ? md_text(series->name + " " + format_figure(series->analysis.summary.median, series->unit))
                    : "-") +
               " | " + md_text(change) + " |\n";
    }
    if (record.outcomes.size() > table_rows)
        out += fmt::format("\n{} more scenarios are in the full reports.\n", record.outcomes.size() - table_rows);
    if (!links.empty()) {
        out += "\n";
        for (std::size_t i = 0; i < links.size(); ++i)
            out += (i == 0 ? "" : " · ") + std::string("[") + md_text(links[i].first) + "](" + links[i].second + ")";
        out += "\n";
    }
    return out;
}

void append_to_step_summary(const std::string& page) {
    const char* file = std::getenv("GITHUB_STEP_SUMMARY");
    if (file == nullptr || *file == '\0') return;
    std::ofstream out(file, std::ios::app);
    out << page << "\n";
    if (!out) throw std::runtime_error(std::string("cannot append to GITHUB_STEP_SUMMARY (") + file + ")");
}

// summary.md in the run folder, appended to the job summary; with --baseline, the
// comparison's verdicts.
std::unique_ptr<RunReporter> make_summary_md_reporter(const ReporterSettings& settings) {
    return make_file_reporter(settings, {.name = "summary.md",
                                         .render =
                                             [](const RunRecord& record, const RunEnd& end) {
                                                 const Comparison* comparison = end.baseline_comparison();
                                                 std::vector<std::pair<std::string, std::string>> links = {
                                                     {"report", html_report_name}, {"report.md", markdown_report_name}};
                                                 if (comparison != nullptr)
                                                     links.emplace_back("comparison", "comparison.md");
                                                 return summary_markdown(record, comparison,
                                                                         "benchhost run " + record.timestamp, links);
                                             },
                                         .then = append_to_step_summary});
}

}  // namespace benchhost
