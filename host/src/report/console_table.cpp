// The end-of-run summary: one table per category (unit, integration, performance),
//
//   unit: 2 scenarios
//   SCENARIO                      STATUS   MEDIAN  95% CI      P95   THROUGHPUT  VS EAGER  NOTE
//   unit/mock/latency[batch=1]    success  12.3 ms   ±1.2%  13.1 ms  81.2 item/s         -
//   unit/mock/broken              failed         -       -        -            -         -  boom
//
//   2 scenarios: 1 succeeded, 1 failed (50.0% of those that ran), 0 skipped
//
// MEDIAN and P95 are of the scenario's headline series (latency, else the time to first
// token, ...: headline_series() in analysis/scenario_statistics.hpp, the rule report.md
// and report.html follow too), and 95% CI is the half-width of the bootstrap interval of
// its median, relative to the median. THROUGHPUT is the median of the "throughput"
// series, or else of "tokens_per_second". VS EAGER is the headline series' speedup over
// the eager scenario of the same benchmark and axes. Every figure is read from the
// statistics computed when the scenario ended. Width is counted in
// code points (UTF-8), the last column is not padded, and NOTE is the reason on one
// line, cut to 60 code points; failures are then listed with their reasons in full.

#include "report/console_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>
#include <vector>

#include <iostream>
#include <optional>

#include "analysis/scenario_statistics.hpp"
#include "report/report_figures.hpp"
#include "report/reporter_factories.hpp"
#include "util/text_table.hpp"

namespace benchhost {
namespace {

constexpr std::size_t note_limit = 60;

const std::vector<TableColumn> columns = {
    {"SCENARIO", Align::left},     {"STATUS", Align::left},    {"MEDIAN", Align::right},
    {"95% CI", Align::right},      {"P95", Align::right},      {"THROUGHPUT", Align::right},
    {"VS EAGER", Align::right},    {"NOTE", Align::left},
};

std::vector<std::string> make_row(const ScenarioOutcome& outcome) {
    const auto& result = outcome.result;
    std::vector<std::string> row(columns.size(), "-");
    row[0] = outcome.config.scenario_id();
    row[1] = std::string(bench::to_string(result.status));
    const SeriesStatistics* headline = headline_series(outcome);
    if (headline != nullptr && headline->analysis.summary.count > 0) {
        const bench::Summary& s = headline->analysis.summary;
        row[2] = format_figure(s.median, headline->unit);
        const bench::Interval& ci = headline->analysis.median_ci;
        if (ci.valid() && s.median != 0) {
            char text[32];
            std::snprintf(text, sizeof text, "\u00b1%.1f%%",
                          std::max(s.median - ci.low, ci.high - s.median) / std::abs(s.median) * 100);
            row[3] = text;
        }
        row[4] = format_figure(s.p95, headline->unit);
    }
    const SeriesStatistics* throughput = outcome.statistics.find("throughput");
    if (throughput == nullptr) throughput = outcome.statistics.find("tokens_per_second");
    if (throughput != nullptr && throughput->analysis.summary.count > 0)
        row[5] = format_figure(throughput->analysis.summary.median, throughput->unit);
    for (const Speedup& speedup : outcome.statistics.speedups)
        if (headline != nullptr && speedup.series == headline->name) row[6] = format_ratio(speedup.value);
    row[7] = one_line(result.reason, note_limit);
    return row;
}

std::string plural(int count, const char* singular, const char* plural_form) {
    return std::to_string(count) + " " + (count == 1 ? singular : plural_form);
}

}  // namespace

std::string format_summary_table(const RunRecord& given) {
    std::optional<RunRecord> storage;
    const RunRecord& record = with_statistics(given, storage);
    // Categories in the order of the layout, then any other in order of appearance.
    std::vector<std::string> categories = {"unit", "integration", "performance"};
    for (const auto& outcome : record.outcomes)
        if (std::find(categories.begin(), categories.end(), outcome.config.category) == categories.end())
            categories.push_back(outcome.config.category);
    std::string out;
    for (const std::string& category : categories) {
        std::vector<std::vector<std::string>> rows;
        for (const auto& outcome : record.outcomes)
            if (outcome.config.category == category) rows.push_back(make_row(outcome));
        if (rows.empty()) continue;
        if (!out.empty()) out += '\n';
        out += category + ": " + plural(static_cast<int>(rows.size()), "scenario", "scenarios") + "\n";
        out += render_table(columns, rows);
    }

    // The table cuts notes short; what went wrong is worth reading in full.
    bool first_problem = true;
    for (const auto& outcome : record.outcomes) {
        const bench::Status status = outcome.result.status;
        if (status == bench::Status::success || status == bench::Status::skipped) continue;
        if (first_problem) out += "\nProblems:\n";
        first_problem = false;
        std::string reason = outcome.result.reason;  // continuation lines indented under it
        for (std::size_t at = reason.find('\n'); at != std::string::npos; at = reason.find('\n', at + 5))
            reason.replace(at, 1, "\n    ");
        out += "  " + outcome.config.scenario_id() + " (" + std::string(bench::to_string(status)) + "): " + reason +
               "\n";
    }

    if (!out.empty()) out += '\n';
    out += totals_text(count_totals(record)) + "\n";
    if (record.interrupted) out += "(run interrupted)\n";
    return out;
}

namespace {

/// The table at the end of a run, on the console.
class ConsoleReporter final : public Reporter {
public:
    explicit ConsoleReporter(std::ostream* out) : out_(out != nullptr ? out : &std::cout) {}
    void run_finished(const RunRecord& record) override { *out_ << format_summary_table(record) << std::flush; }

private:
    std::ostream* out_;
};

}  // namespace

std::unique_ptr<Reporter> make_console_reporter(const ReporterSettings& settings) {
    return std::make_unique<ConsoleReporter>(settings.console);
}

}  // namespace benchhost
