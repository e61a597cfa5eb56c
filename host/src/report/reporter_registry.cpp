#include "report/reporter_registry.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "analysis/scenario_statistics.hpp"
#include "report/reporter_factories.hpp"

namespace benchhost {

const std::vector<ReporterInfo>& reporter_registry() {
    // The order is the order of the calls: the progress (its status line goes before
    // anything else is printed), the files, the summary after the files it points at,
    // then what is printed.
    static const std::vector<ReporterInfo> registry = {
        {"progress", "a line per scenario in the log, and the status line on a terminal", false,
         make_progress_reporter},
        {"plugin-json", "<plugin>/<plugin>_<timestamp>.json: every scenario of a plugin, with its raw samples", false,
         make_plugin_json_reporter},
        {"profile-trace", "traces/<plugin>/<scenario>_<timestamp>.json: the trace of a profiled scenario (--profile)",
         false, make_profile_trace_reporter},
        {"csv", "benchmark_results_<timestamp>.csv: one row per scenario", false, make_csv_reporter},
        {"gbench-json", "gbench.json: Google Benchmark's JSON (e.g. for its compare.py)", true,
         make_gbench_json_reporter},
        {"summary", "benchmark_summary.json: the run's metadata, totals and headline figures", false,
         make_summary_reporter},
        {"console", "the summary table on standard output", false, make_console_reporter},
        {"comparison", "comparison.md, comparison.json and a table: the run against --baseline", false,
         make_comparison_reporter},
        // After the comparison, whose verdicts they read (ReporterSettings::comparison).
        {"markdown", "report.md: the run for people, for a pull request or a terminal", false, make_markdown_reporter},
        {"html", "report.html: the same with charts, one self-contained file", false, make_html_reporter},
        {"junit", "junit.xml: JUnit XML for CI test reports, a test case per scenario (slower: a failure)", true,
         make_junit_reporter},
        {"summary-md", "summary.md: the run on one page for a CI job summary or a pull-request comment", true,
         make_summary_md_reporter},
    };
    return registry;
}

std::unique_ptr<Reporter> make_reporter(std::string_view name, const ReporterSettings& settings) {
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

std::vector<std::string> file_reporter_names(const std::vector<std::string>& formats) {
    std::vector<std::string> names;
    for (const ReporterInfo& info : reporter_registry()) {
        if (info.name == "progress" || info.name == "console" || info.name == "comparison") continue;
        if (info.optional_format && std::find(formats.begin(), formats.end(), info.name) == formats.end()) continue;
        names.push_back(info.name);
    }
    return names;
}

const FrameworkComparison& framework_comparison(const ReporterSettings& settings, const RunRecord& record) {
    if (!*settings.frameworks) *settings.frameworks = compare_frameworks(record);
    return **settings.frameworks;
}

ReporterMultiplex make_reporters(const std::vector<std::string>& names, const ReporterSettings& given) {
    // A slot of their own for the comparison across frameworks: these reporters see one record.
    ReporterSettings settings = given;
    settings.frameworks = std::make_shared<std::optional<FrameworkComparison>>();
    for (const std::string& name : names) {
        const auto& registry = reporter_registry();
        if (std::none_of(registry.begin(), registry.end(), [&](const ReporterInfo& info) { return info.name == name; }))
            (void)make_reporter(name, settings);  // throws, naming the known ones
    }
    ReporterMultiplex multiplex;
    for (const ReporterInfo& info : reporter_registry())
        if (std::find(names.begin(), names.end(), info.name) != names.end()) multiplex.add(info.make(settings));
    return multiplex;
}

std::vector<std::string> report_whole_run(const RunRecord& given, const std::vector<std::string>& names,
                                          const ReporterSettings& settings) {
    std::optional<RunRecord> storage;
    const RunRecord& record = with_statistics(given, storage);
    ReporterMultiplex reporters = make_reporters(names, settings);
    reporters.run_finished(record);
    return reporters.take_errors();
}

}  // namespace benchhost
