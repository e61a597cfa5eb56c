// The factory of each reporter, defined in the reporter's own file and listed by name in
// reporter_registry.cpp. Nothing else calls these: ask the registry for a reporter.
#pragma once

#include <memory>

#include "model/reporter.hpp"
#include "report/reporter_registry.hpp"

namespace benchhost {

// Each reporter's file is named after it (its name, "-" written "_", then _reporter.cpp), in the
// folder of its output (console/, files/, markdown/, html/); the comparison's in report/.
std::unique_ptr<RunReporter> make_progress_reporter(const ReporterSettings& settings);  // console/
std::unique_ptr<RunReporter> make_plugin_json_reporter(const ReporterSettings& settings);  // files/
std::unique_ptr<RunReporter> make_profile_trace_reporter(const ReporterSettings& settings);  // files/
std::unique_ptr<RunReporter> make_csv_reporter(const ReporterSettings& settings);  // files/
std::unique_ptr<RunReporter> make_gbench_json_reporter(const ReporterSettings& settings);  // files/
std::unique_ptr<RunReporter> make_summary_reporter(const ReporterSettings& settings);  // files/
std::unique_ptr<RunReporter> make_console_reporter(const ReporterSettings& settings);  // console/
std::unique_ptr<RunReporter> make_comparison_reporter(const ReporterSettings& settings);  // report/
std::unique_ptr<RunReporter> make_markdown_reporter(const ReporterSettings& settings);  // markdown/
std::unique_ptr<RunReporter> make_html_reporter(const ReporterSettings& settings);  // html/
std::unique_ptr<RunReporter> make_junit_reporter(const ReporterSettings& settings);  // files/
std::unique_ptr<RunReporter> make_summary_md_reporter(const ReporterSettings& settings);  // markdown/

}  // namespace benchhost
