// report.md: the run's tables in GitHub-flavoured Markdown (rendered_reports.hpp). Text
// from plugins is escaped by markdown_text.hpp.

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include <optional>
#include "json/json_writer.hpp"

#include "analysis/scenario_statistics.hpp"
#include "report/comparison_reporter.hpp"
#include "report/file_reporter.hpp"
#include "report/markdown/markdown_text.hpp"
#include "report/model_comparison.hpp"
#include "report/plugin_entries.hpp"
#include "report/profile_sections.hpp"
#include "report/rendered_reports.hpp"
#include "report/report_figures.hpp"
#include "report/reporter_factories.hpp"
#include "report/reporter_registry.hpp"
#include "util/atomic_file.hpp"
#include "util/text_table.hpp"

namespace benchhost {
namespace {

std::string status_cell(const ScenarioFigures& f) {
    const bench::Status status = f.outcome->result.status;
    const std::string text(bench::to_string(status));
    return status == bench::Status::success || status == bench::Status::skipped ? text : "**" + text + "**";
}

std::string headline_cell(const ScenarioFigures& f) {
    std::string text = median_with_ci(f);
    if (text != "-" && f.headline != "latency") text += " (" + f.headline + ")";
    return text;
}

std::string speedups_cell(const ScenarioFigures& f) {
    std::string text;
    for (const Speedup& speedup : f.speedups) {
        if (!text.empty()) text += "; ";
        text += speedup_text(speedup);
    }
    return text.empty() ? "-" : md_text(text);
}

std::string note_cell(const ScenarioFigures& f) {
    const auto& result = f.outcome->result;
    std::string note;
    if (!result.reason.empty()) note = md_text(one_line(result.reason, 80));
    if (!result.warnings.empty()) {
        if (!note.empty()) note += "; ";
        note += std::to_string(result.warnings.size()) + (result.warnings.size() == 1 ? " warning" : " warnings");
    }
    return note;
}

// A category's tables: a row per scenario that ran (the skipped ones are listed once,
// under "Skipped").
void md_category_section(std::string& out, const RunFigures& figures, const CategoryTables& category) {
    if (category.totals.ran() == 0) return;
    out += "## " + md_text(category.category) + "\n\n" + totals_text(category.totals) + ".\n\n";
    for (const BenchmarkTable& table : category.tables) {
        std::vector<const BenchmarkTable::Row*> ran;
        for (const BenchmarkTable::Row& row : table.rows)
            if (figures.scenarios[row.scenario].outcome->result.status != bench::Status::skipped) ran.push_back(&row);
        if (ran.empty()) continue;
        out += "### " + md_code(table.benchmark_id);
        if (!table.fixed_axes.empty()) out += " (" + md_text(axes_text(table.fixed_axes)) + ")";
        if (ran.size() < table.rows.size()) out += ", " + std::to_string(table.rows.size() - ran.size()) + " skipped";
        // A column of the other series when a scenario of the table has them.
        const bool other_series = std::any_of(ran.begin(), ran.end(), [&](const BenchmarkTable::Row* row) {
            return !figures.scenarios[row->scenario].other_series.empty();
        });
        // A column of the scaling efficiency when a scenario of the table has one.
        const bool scaling = std::any_of(ran.begin(), ran.end(), [&](const BenchmarkTable::Row* row) {
            return std::isfinite(figures.scenarios[row->scenario].scaling_efficiency);
        });
        out += "\n\n|";
        for (const std::string& axis : table.axes) out.append(" ").append(md_text(axis)).append(" |");
        out += " Status | Median (95% CI) | p95 | CV | Throughput | Speedup over eager (95% CI) |";
        if (scaling) out += " Scaling efficiency |";
        if (other_series) out += " Other series (median) |";
        out += " Note |\n|";
        for (std::size_t i = 0; i < table.axes.size(); ++i) out += "---|";
        out += "---|--:|--:|--:|--:|--:|";
        if (scaling) out += "--:|";
        if (other_series) out += "---|";
        out += "---|\n";
        for (const BenchmarkTable::Row* row : ran) {
            const ScenarioFigures& f = figures.scenarios[row->scenario];
            out += "|";
            for (const std::string& value : row->values) out.append(" ").append(md_text(value)).append(" |");
            out += ' ';
            out += status_cell(f) + " | " + md_text(headline_cell(f)) + " | " + md_text(p95_text(f)) + " | " +
                   cv_text(f) + " | " + md_text(throughput_text(f)) + " | " + speedups_cell(f) + " | ";
            if (scaling) out += scaling_efficiency_text(f.scaling_efficiency, f.scaling_efficiency_ci) + " | ";
            if (other_series) {
                const std::string series = other_series_text(f);
                out += (series.empty() ? "-" : md_text(series)) + " | ";
            }
            out += note_cell(f) + " |\n";
        }
        out += "\n";
    }
}

// Distributed scenarios: each one's ranks with the stragglers, each collective's bus
// bandwidth against message size, and throughput against world size.
void md_distributed_section(std::string& out, const RunFigures& figures) {
    if (figures.rank_tables.empty() && figures.bandwidth.empty() && figures.scaling.empty()) return;
    out += "## Distributed scenarios\n\n";
    if (!figures.scaling.empty()) {
        out += "### Throughput against world size\n\n" + std::string(scaling_explanation) + "\n\n";
        for (const ScalingGroup& group : figures.scaling) {
            out +=
                "#### " + md_code(group.group) +
                "\n\n| World size | Throughput (95% CI) | Ideal (N x at 1) | Scaling efficiency |\n|--:|--:|--:|--:|\n";
            for (const ScalingGroup::Point& p : group.points)
                out += "| " + std::to_string(p.world_size) + " | " +
                       md_text(figure_with_interval(p.throughput, p.ci, group.unit)) + " | " +
                       md_text(format_figure(p.ideal, group.unit)) + " | " +
                       scaling_efficiency_text(p.efficiency, p.efficiency_ci) + " |\n";
            out += "\n";
        }
    }
    if (!figures.bandwidth.empty()) {
        out +=
            "### Bus bandwidth against message size\n\nMedian bus bandwidth of each collective at each size "
            "(nccl-tests' bus bandwidth: the algorithm bandwidth times its factor); the charts are in "
            "[report.html](report.html).\n\n";
        for (const BandwidthTable& table : bandwidth_tables(figures)) {
            out += "#### " + md_text(table.title) + "\n\n| size |";
            for (const BandwidthCurve* curve : table.curves) out += " " + md_text(curve->collective) + " |";
            out += "\n|---|";
            for (std::size_t i = 0; i < table.curves.size(); ++i) out += "--:|";
            out += "\n";
            for (const auto& [label, cells] : table.rows) {
                out += "| " + md_text(label) + " |";
                for (const std::string& cell : cells) out += " " + md_text(cell) + " |";
                out += "\n";
            }
            out += "\n";
        }
    }
    if (!figures.rank_tables.empty()) {
        out += "### Ranks\n\n" + std::string(ranks_explanation) + "\n\n";
        for (const RankTable& table : figures.rank_tables) {
            out += "#### " + md_code(scenario_label(figures, *table.scenario->outcome)) + "\n\n| Series |";
            for (int r = 0; r < table.ranks; ++r) out += " rank " + std::to_string(r) + " |";
            out += " Straggler |\n|---|";
            for (int r = 0; r < table.ranks; ++r) out += "--:|";
            out += "---|\n";
            for (const RankTable::Row& row : table.rows) {
                out += "| " + md_text(row.series) + " |";
                for (const SeriesStatistics* rank : row.per_rank) out += " " + md_text(median_text(rank)) + " |";
                out += " " + (row.stragglers.empty() ? std::string("-") : "**" + md_text(stragglers_text(row)) + "**") +
                       " |\n";
            }
            out += "\n";
        }
    }
}

// Scenarios as a list of code spans, the first `shown` of them, then how many more.
std::string md_scenario_list(const RunFigures& figures, const std::vector<const ScenarioOutcome*>& scenarios,
                             std::size_t shown = 6) {
    std::string out;
    for (std::size_t i = 0; i < scenarios.size() && i < shown; ++i)
        out += (i == 0 ? "" : ", ") + md_code(scenario_label(figures, *scenarios[i]));
    if (scenarios.size() > shown) out += " and " + std::to_string(scenarios.size() - shown) + " more";
    return out;
}

// With --baseline: the verdicts, and each scenario that changed in a line.
void md_baseline_block(std::string& out, const RunFigures& figures, const Comparison* comparison) {
    const auto baseline = figures.record->run_config.find("baseline");
    if (comparison == nullptr) {
        if (baseline != figures.record->run_config.end() && !baseline->second.empty())
            out += "Compared with the baseline " + md_code(baseline->second) +
                   " when it ran: the verdicts are in [comparison.md](comparison.md).\n\n";
        return;
    }
    out += "**Against the baseline** (" + md_text(comparison->base_label) +
           "): " + std::to_string(comparison->count(Verdict::slower)) + " slower, " +
           std::to_string(comparison->count(Verdict::faster)) + " faster, " +
           std::to_string(comparison->count(Verdict::same)) + " same, " +
           std::to_string(comparison->count(Verdict::inconclusive)) + " inconclusive; every row in " +
           "[comparison.md](comparison.md).\n\n";
    const std::vector<const SeriesComparison*> changed = changed_rows(*comparison);
    for (std::size_t i = 0; i < changed.size() && i < changed_rows_listed; ++i)
        out += "- **" + std::string(to_string(changed[i]->verdict)) + "** " + md_code(changed[i]->scenario_id) + ": " +
               md_text(evidence_line(*changed[i], comparison->options.threshold)) + "\n";
    if (changed.size() > changed_rows_listed)
        out += "- and " + std::to_string(changed.size() - changed_rows_listed) + " more\n";
    if (!changed.empty()) out += "\n";
}

// What a reader came for: the totals, what went wrong, the verdicts against the
// baseline, and a row per benchmark.
void md_summary_section(std::string& out, const RunFigures& figures, const Comparison* comparison) {
    const RunRecord& record = *figures.record;
    out += "## Summary\n\n" + totals_text(figures.totals) + ".";
    if (record.interrupted) out += " **The run was interrupted**: the scenarios that did not run are not counted.";
    out += "\n\n";
    for (const ScenarioFigures* f : figures.failures) {
        const auto& result = f->outcome->result;
        out += "- **" + std::string(bench::to_string(result.status)) + "** " +
               md_code(scenario_label(figures, *f->outcome)) + ": " +
               (result.reason.empty() ? std::string("no reason given") : md_text(result.reason)) + "\n";
    }
    for (const std::string& warning : record.hardware_warnings)
        out += "- warning about the machine: " + md_text(warning) + "\n";
    for (const ScenarioGroup& group : figures.warnings)
        out += "- warning: " + md_text(group.text) + " (" +
               (group.scenarios.size() == 1 ? std::string("in ")
                                            : "alike in " + std::to_string(group.scenarios.size()) + " scenarios: ") +
               md_scenario_list(figures, group.scenarios, 3) + ")\n";
    if (!figures.failures.empty() || !figures.warnings.empty() || !record.hardware_warnings.empty()) out += "\n";
    md_baseline_block(out, figures, comparison);

    bool any = false;
    for (const BenchmarkOverview& row : figures.overview) {
        if (row.totals.ran() == 0) continue;  // listed with the skips
        if (!any)
            out +=
                "| Benchmark | Succeeded | Median (95% CI) | Of | Speedup over eager (95% CI) "
                "|\n|---|---|--:|---|---|\n";
        any = true;
        std::string speedups;
        for (const VariantSpeedup& speedup : row.speedups)
            speedups += (speedups.empty() ? "" : "; ") + variant_speedup_text(speedup);
        out += "| " + md_code(row.benchmark_id) + " | " + overview_counts_text(row.totals) + " | " +
               (row.headline ? md_text(headline_cell(*row.headline)) : "-") + " | " +
               (row.headline ? md_text(varying_axes_text(figures, *row.headline->outcome)) : "-") + " | " +
               (speedups.empty() ? "-" : md_text(speedups)) + " |\n";
    }
    if (any) out += "\n";
    out +=
        "A row per benchmark: its first scenario that succeeded (the plan's order: eager, the smallest batch "
        "first), and each variant's speedup over eager. Medians come with their 95% confidence interval "
        "(percentile bootstrap over the raw samples, 1000 resamples); CV is std / mean; a speedup is eager's "
        "median over the variant's, with the bootstrap interval of that ratio.";
    if (!figures.fixed_axes.empty())
        out += " Axes with one value in this run: " + md_text(axes_text(figures.fixed_axes)) + ".";
    out += "\n\n";
}

// Below the results: the skipped scenarios, once, by reason.
void md_skipped_section(std::string& out, const RunFigures& figures) {
    if (figures.skips.empty()) return;
    out += "## Skipped\n\n";
    for (const ScenarioGroup& group : figures.skips)
        out += "- " + md_text(group.text.empty() ? "no reason given" : group.text) + " (" +
               std::to_string(group.scenarios.size()) + (group.scenarios.size() == 1 ? " scenario: " : " scenarios: ") +
               md_scenario_list(figures, group.scenarios) + ")\n";
    out += "\n";
}

/// One line per plugin: its version and how it was compiled, with what that means.
void plugins_section(std::string& out, const RunRecord& record) {
    const std::vector<PluginEntry> plugins = plugin_entries(record);
    if (plugins.empty()) return;
    out += "### Plugins\n\n";
    for (const PluginEntry& plugin : plugins) {
        out += "- " + md_code(plugin.id()) + " " + md_text(plugin.version) +
               ", build: " + md_text(build_text(plugin.build));
        if (const std::string warning = build_warning(plugin.build); !warning.empty())
            out += ". **Warning:** " + md_text(warning);
        out += "\n";
    }
    out += "\n";
}

// A fenced code block: the fence longer than any run of backticks in `text`.
std::string md_code_block(std::string_view text, std::string_view language) {
    std::size_t longest = 0, run = 0;
    for (const char c : text) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
    const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
    return fence + std::string(language) + "\n" + valid_utf8(text) + "\n" + fence + "\n";
}

// --find-peak: the rates each search tried, and the peak it found.
void md_peak_section(std::string& out, const RunFigures& figures) {
    const std::vector<PeakTable> tables = peak_tables(figures);
    if (tables.empty()) return;
    out += "## Peak search\n\n";
    for (const PeakTable& table : tables) {
        out += "### " + md_code(table.outcome->config.scenario_id()) + "\n\n" + md_text(table.bounds) +
               "; the rates in the order tried.\n\n|";
        for (const std::string& column : table.columns) out.append(" ").append(md_text(column)).append(" |");
        out += "\n|";
        for (std::size_t c = 0; c < table.columns.size(); ++c) out += c + 1 == table.columns.size() ? "---|" : "--:|";
        out += "\n";
        for (const auto& row : table.rows) {
            out += "|";
            for (const std::string& cell : row) out.append(" ").append(md_text(cell)).append(" |");
            out += "\n";
        }
        out.append("\n").append(md_text(table.peak)).append(".\n\n");
    }
}

// The end: the command line that runs it again, the machine, the settings, the plugins.
void md_run_section(std::string& out, const RunFigures& figures) {
    const RunRecord& record = *figures.record;
    out += "## How it ran\n\n";
    if (figures.command_line.empty()) {
        out += "The run did not record its command line.\n\n";
    } else {
        out += "The command line";
        if (!figures.working_directory.empty()) out += ", in " + md_code(figures.working_directory);
        out += ":\n\n" + md_code_block(figures.command_line, "sh") + "\n";
    }
    const std::string state = record.interrupted ? "interrupted" : record.finished ? "complete" : "running";
    out += "### The machine\n\n| Run | |\n|---|---|\n";
    out += "| Started | " + md_text(record.started_at) + " |\n";
    out += "| Finished | " + md_text(record.finished_at.empty() ? "-" : record.finished_at) + " (" + state + ") |\n";
    out += "| Host | " + md_text(record.host_name) + " |\n";
    out += "| Commit | " + md_code(record.commit_id) + " |\n";
    if (!record.host_version.empty()) out += "| benchhost | " + md_text(record.host_version) + " |\n";
    for (const auto& [label, text] : figures.machine) out += "| " + md_text(label) + " | " + md_text(text) + " |\n";
    out += "\n";
    if (!figures.settings.empty()) {
        out += "### Settings\n\n| Setting | |\n|---|---|\n";
        for (const auto& [label, value] : figures.settings)
            out += "| " + md_text(label) + " | " + md_text(value) + " |\n";
        out += "\n";
    }
    plugins_section(out, record);
}

}  // namespace

std::string markdown_report(const RunFigures& figures, const FrameworkComparison& frameworks,
                            const Comparison* comparison) {
    const RunRecord& record = *figures.record;
    std::string out =
        "# benchhost run " + md_text(record.timestamp.empty() ? "(no timestamp)" : record.timestamp) + "\n\n";
    out += md_text(record.host_name) + ", " + md_text(record.started_at) +
           ". The charts of this run are in "
           "[report.html](report.html).\n\n";
    md_summary_section(out, figures, comparison);
    for (const CategoryTables& category : figures.categories) md_category_section(out, figures, category);
    md_distributed_section(out, figures);
    md_peak_section(out, figures);
    out += model_comparison_markdown(compare_models(figures, frameworks), md_text);
    out += profile_markdown_section(figures, md_text, md_code);
    md_skipped_section(out, figures);
    md_run_section(out, figures);
    return out;
}

std::string markdown_report(const RunRecord& given, const Comparison* comparison) {
    std::optional<RunRecord> storage;
    const RunRecord& record = with_statistics(given, storage);
    return markdown_report(compute_figures(record), compare_frameworks(record), comparison);
}

/// report.md in the run folder, written once at the end (its tables are over every
/// scenario of the run), after the comparison with the baseline, whose verdicts it shows;
/// the comparison across frameworks shared with report.html (RunEnd::frameworks).
std::unique_ptr<RunReporter> make_markdown_reporter(const ReporterSettings& settings) {
    return make_file_reporter(settings,
                              {.name = markdown_report_name, .render = [](const RunRecord& record, const RunEnd& end) {
                                   return markdown_report(compute_figures(record), end.frameworks(record),
                                                          end.baseline_comparison());
                               }});
}

}  // namespace benchhost
