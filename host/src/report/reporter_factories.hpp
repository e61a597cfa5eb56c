// The factory of each reporter, defined in the reporter's own file and listed by name in
// reporter_registry.cpp. Nothing else calls these: ask the registry for a reporter.
#pragma once

#include <memory>

#include "model/reporter.hpp"
#include "report/reporter_registry.hpp"

namespace benchhost {

std::unique_ptr<Reporter> make_progress_reporter(const ReporterSettings& settings);     // progress.cpp
std::unique_ptr<Reporter> make_plugin_json_reporter(const ReporterSettings& settings);  // plugin_json_reporter.cpp
std::unique_ptr<Reporter> make_profile_trace_reporter(const ReporterSettings& settings);  // profile_trace.cpp
std::unique_ptr<Reporter> make_csv_reporter(const ReporterSettings& settings);          // csv_reporter.cpp
std::unique_ptr<Reporter> make_gbench_reporter(const ReporterSettings& settings);       // gbench_export.cpp
std::unique_ptr<Reporter> make_markdown_reporter(const ReporterSettings& settings);     // markdown_report.cpp
std::unique_ptr<Reporter> make_html_reporter(const ReporterSettings& settings);         // html_report.cpp
std::unique_ptr<Reporter> make_summary_reporter(const ReporterSettings& settings);      // summary_reporter.cpp
std::unique_ptr<Reporter> make_console_reporter(const ReporterSettings& settings);      // console_table.cpp
std::unique_ptr<Reporter> make_comparison_reporter(const ReporterSettings& settings);   // comparison_reporter.cpp
std::unique_ptr<Reporter> make_junit_reporter(const ReporterSettings& settings);        // junit_report.cpp
std::unique_ptr<Reporter> make_summary_markdown_reporter(const ReporterSettings& settings);  // summary_markdown.cpp

}  // namespace benchhost
