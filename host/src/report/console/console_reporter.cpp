// The end-of-run summary, at most 100 columns wide: the axes with one value in the whole
// run once, then per category (unit, integration, performance) one table per benchmark
// of the scenarios that ran (the skipped ones are listed after the tables, by reason),
// with a column per axis that varies in it (the tables of report_figures.hpp, which
// report.md and report.html show too):
//
//   Axes with one value in this run: batch_size=1
//
//   performance: 3 scenarios ran
//
//   performance/mock_benchmark/mock_benchmark
//     VARIANT     STATUS    MEDIAN  95% CI      P95     THROUGHPUT  VS EAGER
//     eager       success  3.89 ms   ±1.7%  4.02 ms  257 samples/s         -
//     compiled    success  3.24 ms   ±2.3%  3.44 ms  309 samples/s     1.20x
//     kernelized  success  2.36 ms   ±3.3%  2.45 ms  423 samples/s     1.65x
//
//   3 scenarios: 3 succeeded, 0 failed (100.0% of those that ran), 0 skipped
//
// MEDIAN and P95 are of the scenario's headline series (latency, else the time to first
// token, ...: headline_series() in analysis/scenario_statistics.hpp), and 95% CI is the
// half-width of the bootstrap interval of its median, relative to the median. THROUGHPUT
// is the median of the "throughput" series, or else of "tokens_per_second", or else the
// "throughput" figure of a serving load (offline's headline). VS EAGER is
// the headline series' speedup over the eager scenario of the same benchmark and axes.
// A scenario that did not succeed shows "-" in them, whatever it recorded before it ended.
// NOTE (only when a scenario has one) is the reason on one line, cut to 60 code points;
// failures are then listed with their reasons in full. Under the row of a scenario that
// succeeded and recorded other series (a Python function's returned figures, the time to
// first token beside the latency), their medians, indented by 4: the first three, as many
// as fit the line, then "+N more series" (report.md and report.html list them all):
//
//     eager       success  42.4 ms   ±1.3%  44.2 ms  472 tokens/s         -
//       time_to_first_token 34.3 ms, time_per_output_token 420 us
//
// A scenario of --find-peak gets, after the tables, the rates its search tried: a row
// each with its figures (peak_tables in report_figures.hpp), and the peak found.
//
// Fitting 100 columns: when a benchmark's table is too wide without its notes, the axes
// that vary move from columns into headings, one at a time (the one with the fewest
// values first, of those the later one; the variant last), so that the benchmark makes
// one table per combination of the values moved. Notes are cut to the width left; when
// less than 16 columns are left, each note goes on a line of its own under its row,
// indented by 4. What is still too wide is cut with "..." (axis values, throughput),
// and headings and the list of problems wrap onto lines indented by 4. Width is counted
// in code points (UTF-8).

#include "report/console/console_reporter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <vector>

#include "analysis/scenario_statistics.hpp"
#include "report/report_figures.hpp"
#include "report/reporter_factories.hpp"
#include "util/append_unique.hpp"
#include "util/text_table.hpp"

namespace benchhost {
namespace {

constexpr std::size_t line_limit = 100;
constexpr std::size_t table_indent = 2;  // rows under their benchmark's heading
constexpr std::size_t note_limit = 60;
constexpr std::size_t note_room = 16;  // narrower than this, notes go under their rows
constexpr std::size_t series_shown = 3;  // other series under a row; the rest are counted

// The columns after the axes.
const std::vector<TableColumn> figure_columns = {
    {"STATUS", Align::left}, {"MEDIAN", Align::right},           {"95% CI", Align::right},
    {"P95", Align::right},   {"THROUGHPUT", Align::right, true}, {"VS EAGER", Align::right},
};

// STATUS to VS EAGER, and the note, of a scenario.
std::vector<std::string> figure_cells(const ScenarioFigures& f) {
    const ScenarioOutcome& outcome = *f.outcome;
    std::vector<std::string> row(figure_columns.size() + 1, "-");
    row[0] = std::string(bench::to_string(outcome.result.status));
    // A scenario that did not run to the end has no figures to show: a median of the
    // samples before it failed would read as a result.
    const SeriesStatistics* headline =
        outcome.result.status == bench::Status::success ? headline_series(outcome) : nullptr;
    if (headline != nullptr && headline->analysis.summary.count > 0) {
        const bench::Summary& s = headline->analysis.summary;
        row[1] = format_figure(s.median, headline->unit);
        const bench::Interval& ci = headline->analysis.median_ci;
        if (ci.valid() && s.median != 0) {
            char text[32];
            std::snprintf(text, sizeof text, "\u00b1%.1f%%",
                          std::max(s.median - ci.low, ci.high - s.median) / std::abs(s.median) * 100);
            row[2] = text;
        }
        row[3] = format_figure(s.p95, headline->unit);
    }
    row[4] = throughput_text(f);
    for (const Speedup& speedup : f.speedups)
        if (headline != nullptr && speedup.series == headline->name) row[5] = format_ratio(speedup.value);
    row[6] = one_line(outcome.result.reason, note_limit);
    return row;
}

std::string plural(std::size_t count, const char* singular, const char* plural_form) {
    return std::to_string(count) + " " + (count == 1 ? singular : plural_form);
}

std::string upper(std::string text) {
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

void append_wrapped(std::string& out, const std::string& text, std::size_t indent) {
    for (const std::string& line : wrap_text(text, line_limit, indent)) out += line + "\n";
}

// One benchmark's table, split by the axes that must leave the columns to fit: its
// scenarios that ran (the skipped ones are listed once, after the tables).
void benchmark_tables(std::string& out, const RunFigures& figures, const BenchmarkTable& all) {
    BenchmarkTable table = all;
    std::erase_if(table.rows, [&](const BenchmarkTable::Row& row) {
        return figures.scenarios[row.scenario].outcome->result.status == bench::Status::skipped;
    });
    if (table.rows.empty()) return;
    std::vector<std::vector<std::string>> cells;
    bool any_note = false;
    for (const BenchmarkTable::Row& row : table.rows) {
        cells.push_back(figure_cells(figures.scenarios[row.scenario]));
        any_note = any_note || !cells.back().back().empty();
    }

    // Widths of the figure columns over the whole benchmark, and of each axis column.
    std::size_t figures_width = 0;
    for (std::size_t c = 0; c < figure_columns.size(); ++c) {
        std::size_t width = display_width(figure_columns[c].title);
        for (const auto& row : cells) width = std::max(width, display_width(row[c]));
        figures_width += width + (c > 0 ? 2 : 0);
    }
    std::vector<std::size_t> axis_widths, axis_value_counts;
    for (std::size_t a = 0; a < table.axes.size(); ++a) {
        std::size_t width = display_width(table.axes[a]);
        std::vector<std::string> values;
        for (const BenchmarkTable::Row& row : table.rows) {
            width = std::max(width, display_width(row.values[a]));
            append_unique(values, row.values[a]);
        }
        axis_widths.push_back(width);
        axis_value_counts.push_back(values.size());
    }

    // Axes in columns, until the table fits or one is left.
    std::vector<std::size_t> in_columns(table.axes.size()), in_heading;
    for (std::size_t a = 0; a < table.axes.size(); ++a) in_columns[a] = a;
    const auto width_of = [&] {
        std::size_t width = table_indent + figures_width;
        for (const std::size_t a : in_columns) width += axis_widths[a] + 2;
        return width;
    };
    while (width_of() > line_limit && in_columns.size() > 1) {
        auto move = in_columns.end();
        for (auto it = in_columns.begin(); it != in_columns.end(); ++it) {
            if (table.axes[*it] == "variant") continue;
            if (move == in_columns.end() || axis_value_counts[*it] <= axis_value_counts[*move]) move = it;
        }
        if (move == in_columns.end()) move = in_columns.begin();
        in_heading.push_back(*move);
        in_columns.erase(move);
    }
    std::sort(in_heading.begin(), in_heading.end());

    // The notes in a column when it can be wide enough, else each on a line under its row.
    const bool note_column = any_note && width_of() + 2 + note_room <= line_limit;
    std::vector<TableColumn> columns;
    for (const std::size_t a : in_columns) columns.push_back({upper(table.axes[a]), Align::left, true});
    columns.insert(columns.end(), figure_columns.begin(), figure_columns.end());
    if (note_column) columns.push_back({"NOTE", Align::left, true});

    // One table per combination of the values of the axes in headings, in order of appearance.
    std::vector<std::pair<AxisValues, std::vector<std::size_t>>> parts;
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
        AxisValues key;
        for (const std::size_t a : in_heading) key.emplace_back(table.axes[a], table.rows[r].values[a]);
        auto part = std::find_if(parts.begin(), parts.end(), [&](const auto& p) { return p.first == key; });
        if (part == parts.end()) part = parts.insert(parts.end(), {key, {}});
        part->second.push_back(r);
    }
    for (const auto& [heading_axes, rows] : parts) {
        AxisValues heading = table.fixed_axes;
        heading.insert(heading.end(), heading_axes.begin(), heading_axes.end());
        out += '\n';
        append_wrapped(out, table.benchmark_id + (heading.empty() ? "" : " (" + axes_text(heading) + ")"), 4);
        std::vector<std::vector<std::string>> lines;
        for (const std::size_t r : rows) {
            std::vector<std::string> line;
            for (const std::size_t a : in_columns) line.push_back(table.rows[r].values[a]);
            line.insert(line.end(), cells[r].begin(), cells[r].end() - (note_column ? 0 : 1));
            lines.push_back(std::move(line));
        }
        const std::string rendered = render_table(columns, lines, line_limit - table_indent);
        std::size_t line_number = 0;
        for (std::size_t at = 0; at < rendered.size(); ++line_number) {
            const std::size_t end = rendered.find('\n', at);
            out += std::string(table_indent, ' ') + rendered.substr(at, end - at) + "\n";
            at = end + 1;
            if (line_number == 0) continue;  // the header
            const ScenarioFigures& f = figures.scenarios[table.rows[rows[line_number - 1]].scenario];
            // The scenario's other series, the first few, under its row.
            if (const std::string series = other_series_text(f, series_shown, line_limit - 2 * table_indent);
                !series.empty())
                out += std::string(2 * table_indent, ' ') + series + "\n";
            if (note_column) continue;  // the notes are in their column
            const std::string& reason = f.outcome->result.reason;
            if (reason.find_first_not_of(" \t\r\n") != std::string::npos)
                out += std::string(2 * table_indent, ' ') + one_line(reason, line_limit - 2 * table_indent) + "\n";
        }
    }
}

}  // namespace

std::string format_summary_table(const RunRecord& given) {
    std::optional<RunRecord> storage;
    const RunFigures figures = compute_figures(with_statistics(given, storage));
    std::string out;
    if (!figures.fixed_axes.empty())
        append_wrapped(out, "Axes with one value in this run: " + axes_text(figures.fixed_axes), 4);
    for (const CategoryTables& category : figures.categories) {
        if (category.totals.ran() == 0) continue;
        if (!out.empty()) out += '\n';
        out += category.category + ": " +
               plural(static_cast<std::size_t>(category.totals.ran()), "scenario", "scenarios") + " ran" +
               (category.totals.skipped > 0 ? ", " + std::to_string(category.totals.skipped) + " skipped" : "") + "\n";
        for (const BenchmarkTable& table : category.tables) benchmark_tables(out, figures, table);
    }

    // --find-peak: each search's rates, after the tables.
    for (const PeakTable& peak : peak_tables(figures)) {
        out += '\n';
        append_wrapped(out, "Peak search of " + peak.outcome->config.scenario_id() + ": " + peak.bounds, 4);
        std::vector<TableColumn> columns;
        for (std::size_t c = 0; c < peak.columns.size(); ++c)
            columns.push_back({peak.columns[c], c + 1 == peak.columns.size() ? Align::left : Align::right});
        const std::string rendered = render_table(columns, peak.rows, line_limit - table_indent);
        for (std::size_t at = 0; at < rendered.size();) {
            const std::size_t end = rendered.find('\n', at);
            out += std::string(table_indent, ' ') + rendered.substr(at, end - at) + "\n";
            at = end + 1;
        }
        append_wrapped(out, std::string(table_indent, ' ') + peak.peak, 2 * table_indent);
    }

    // The skipped scenarios, once, by reason.
    if (!figures.skips.empty()) out += "\nSkipped:\n";
    for (const ScenarioGroup& group : figures.skips) {
        constexpr std::size_t shown = 4;
        // The reason, cut to 300 code points (three lines), then its scenarios in parentheses,
        // counted in words: "(1): a" read as a part of the reason.
        std::string text = "  " + (group.text.empty() ? std::string("no reason given") : one_line(group.text, 300)) +
                           " (" + plural(group.scenarios.size(), "scenario", "scenarios") + ": ";
        for (std::size_t i = 0; i < group.scenarios.size() && i < shown; ++i)
            text += (i == 0 ? "" : ", ") + scenario_label(figures, *group.scenarios[i]);
        if (group.scenarios.size() > shown) text += " and " + std::to_string(group.scenarios.size() - shown) + " more";
        append_wrapped(out, text + ")", 4);
    }

    // The table cuts notes short; what went wrong is worth reading in full.
    bool first_problem = true;
    for (const ScenarioOutcome& outcome : figures.record->outcomes) {
        const bench::Status status = outcome.result.status;
        if (status == bench::Status::success || status == bench::Status::skipped) continue;
        if (first_problem) out += "\nProblems:\n";
        first_problem = false;
        std::string text = "  " + outcome.config.scenario_id() + " (" + std::string(bench::to_string(status)) + "): ";
        std::string reason = outcome.result.reason;  // each of its lines wrapped, under the first
        while (!reason.empty() && (reason.back() == '\n' || reason.back() == ' ')) reason.pop_back();
        for (std::size_t at = 0;;) {
            const std::size_t end = reason.find('\n', at);
            text += reason.substr(at, end - at);
            append_wrapped(out, text, 4);
            if (end == std::string::npos) break;
            text = "    ";
            at = end + 1;
        }
    }

    if (!out.empty()) out += '\n';
    out += totals_text(figures.totals) + "\n";
    if (given.interrupted) out += "(run interrupted)\n";
    return out;
}

namespace {

/// The table at the end of a run, on the console.
class ConsoleReporter final : public RunReporter {
public:
    explicit ConsoleReporter(std::ostream* out) : out_(out != nullptr ? out : &std::cout) {}
    void run_ended(const RunRecord& record, const RunEnd&) override {
        *out_ << format_summary_table(record) << std::flush;
    }

private:
    std::ostream* out_;
};

}  // namespace

std::unique_ptr<RunReporter> make_console_reporter(const ReporterSettings& settings) {
    return std::make_unique<ConsoleReporter>(settings.console);
}

}  // namespace benchhost
