#include "report/reporter_registry.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

#include "analysis/scenario_statistics.hpp"
#include "report/report_reader.hpp"
#include "report/reporter_factories.hpp"

namespace benchhost {

const std::vector<ReporterInfo>& reporter_registry() {
    // The order is the order of the calls: the progress (its status line goes before
    // anything else is printed), the files, the summary after the files it points at,
    // then what is printed.
    using enum ReporterKind;
    static const std::vector<ReporterInfo> registry = {
        {"progress", "a line per scenario in the log, and the status line on a terminal", console, false,
         make_progress_reporter},
        {"plugin-json", "<plugin>/<plugin>_<timestamp>.json: every scenario of a plugin, with its raw samples", file,
         false, make_plugin_json_reporter},
        {"profile-trace", "traces/<plugin>/<scenario>_<timestamp>.json: the trace of a profiled scenario (--profile)",
         file, false, make_profile_trace_reporter},
        {"csv", "benchmark_results_<timestamp>.csv: one row per scenario", file, false, make_csv_reporter},
        {"gbench-json", "gbench.json, Google Benchmark's JSON", file, true, make_gbench_json_reporter},
        {"summary", "benchmark_summary.json: the run's metadata, totals and headline figures", file, false,
         make_summary_reporter},
        {"console", "the summary table on standard output", console, false, make_console_reporter},
        {"comparison", "comparison.md, comparison.json and a table: the run against --baseline", end_of_run, false,
         make_comparison_reporter},
        {"markdown", "report.md: the run for people, for a pull request or a terminal", file, false,
         make_markdown_reporter},
        {"html", "report.html: the same with charts, one self-contained file", file, false, make_html_reporter},
        {"junit",
         "junit.xml, for CI test reports: a test case per scenario, failed when slower than --baseline or, in ab, the "
         "base side",
         file, true, make_junit_reporter},
        {"summary-md",
         "summary.md, the run on one page for a CI job summary or a pull-request comment; appended to "
         "$GITHUB_STEP_SUMMARY when set",
         file, true, make_summary_md_reporter},
    };
    return registry;
}

std::unique_ptr<RunReporter> make_reporter(std::string_view name, const ReporterSettings& settings) {
    std::string known;
    for (const ReporterInfo& info : reporter_registry()) {
        if (info.name == name) return info.make(settings);
        known += (known.empty() ? "" : ", ") + info.name;
    }
    throw std::invalid_argument("unknown reporter '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> optional_format_names() {
    std::vector<std::string> names;
    for (const ReporterInfo& info : reporter_registry())
        if (info.optional_format) names.push_back(info.name);
    return names;
}

std::string optional_formats_help() {
    std::string help;
    for (const ReporterInfo& info : reporter_registry())
        if (info.optional_format) help += (help.empty() ? "" : ", ") + info.name + " (" + info.description + ")";
    return help;
}

std::vector<std::string> reporter_names(std::initializer_list<ReporterKind> kinds,
                                        const std::vector<std::string>& formats) {
    std::vector<std::string> names;
    for (const ReporterInfo& info : reporter_registry()) {
        if (std::find(kinds.begin(), kinds.end(), info.kind) == kinds.end()) continue;
        if (info.optional_format && std::find(formats.begin(), formats.end(), info.name) == formats.end()) continue;
        names.push_back(info.name);
    }
    return names;
}

const FrameworkComparison& RunEnd::frameworks(const RunRecord& record) const {
    if (!frameworks_) frameworks_ = compare_frameworks(record);
    return *frameworks_;
}

RunEnd conclude_run(const ReporterSettings& settings, const RunRecord& record) {
    RunEnd end;
    if (settings.baseline.empty()) return end;
    std::filesystem::path base_dir;
    RunRecord base;
    try {
        base_dir = run_folder_of(settings.baseline);
        base = read_run(base_dir);
    } catch (const std::exception& e) {
        end.comparison_error = "cannot compare with the baseline " + settings.baseline.string() + ": " + e.what();
        return end;
    }
    Comparison comparison = compare_runs(base, record, settings.compare);
    comparison.differences = side_differences(base, record);
    comparison.base_label = base_dir.string();
    comparison.new_label = settings.output_dir.string();
    end.comparison = std::move(comparison);
    return end;
}

void RunReporter::run_finished(const RunRecord& record) { run_ended(record, RunEnd{}); }

void RunReporters::add(std::unique_ptr<RunReporter> reporter) { all_.add(std::move(reporter)); }

void RunReporters::run_finished(const RunRecord& record) { run_ended(record, conclude_run(settings_, record)); }

void RunReporters::run_ended(const RunRecord& record, const RunEnd& end) {
    all_.each_reporter([&](Reporter& reporter) { static_cast<RunReporter&>(reporter).run_ended(record, end); });
}

RunReporters make_reporters(const std::vector<std::string>& names, const ReporterSettings& settings) {
    for (const std::string& name : names) {
        const auto& registry = reporter_registry();
        if (std::none_of(registry.begin(), registry.end(), [&](const ReporterInfo& info) { return info.name == name; }))
            (void)make_reporter(name, settings);  // throws, naming the known ones
    }
    RunReporters reporters(settings);
    for (const ReporterInfo& info : reporter_registry())
        if (std::find(names.begin(), names.end(), info.name) != names.end()) reporters.add(info.make(settings));
    return reporters;
}

std::vector<std::string> report_whole_run(const RunRecord& given, const std::vector<std::string>& names,
                                          const ReporterSettings& settings, const std::optional<RunEnd>& end) {
    std::optional<RunRecord> storage;
    const RunRecord& record = with_statistics(given, storage);
    RunReporters reporters = make_reporters(names, settings);
    if (end) reporters.run_ended(record, *end);
    else reporters.run_finished(record);
    return reporters.take_errors();
}

}  // namespace benchhost
