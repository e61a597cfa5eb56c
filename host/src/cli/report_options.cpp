#include "cli/report_options.hpp"

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

namespace benchhost {

namespace {

/// The options of `report` as given.
struct ReportArguments {
    std::string source, output_dir;
};

}  // namespace

Subcommand<ReportCommand> add_report_command(CLI::App& app) {
    auto given = std::make_shared<ReportArguments>();
    CLI::App* report =
        app.add_subcommand("report", "Write report.md and report.html (tables and charts) of an earlier run again");
    report->add_option("dir", given->source, "Run folder, or its benchmark_summary.json")->required();
    report->add_option("--output-dir", given->output_dir,
                       "Write the reports into this folder (default: the run folder)");
    return {report, [given] { return ReportCommand{given->source, given->output_dir}; }};
}

}  // namespace benchhost
