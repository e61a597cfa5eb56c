#include "commands/export_command.hpp"

#include <exception>
#include <iostream>

#include "report/files/gbench_json_reporter.hpp"
#include "report/report_reader.hpp"
#include "report/reporter_registry.hpp"

namespace benchhost {

namespace fs = std::filesystem;

int export_command(const ExportCommand& command) {
    fs::path dir;
    try {
        dir = run_folder_of(command.source);  // DIR, or DIR/benchmark_summary.json
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 2;
    }

    RunRecord record;
    try {
        record = read_run(dir);
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: cannot read the run in " << dir.string() << ": " << e.what() << "\n";
        return 2;
    }

    if (command.format == "gbench-json" && gbench_iteration_count(record) == 0)
        std::cerr << "benchhost: warning: " << dir.string()
                  << " has no successful scenario with a time series: nothing to export\n";

    ReporterSettings settings;
    settings.output_dir = dir;
    settings.output_file = command.output.empty() ? fs::path("-") : command.output;
    // A run against a baseline kept its comparison: junit and summary-md give its verdicts
    // again, as `run --format` wrote them (as `benchhost report` does). One that cannot be
    // read costs only the verdicts.
    RunEnd end;
    end.comparison = kept_comparison(dir, "written without its verdicts", std::cerr);
    const std::vector<std::string> errors = report_whole_run(record, {command.format}, settings, end);
    for (const std::string& error : errors) std::cerr << "benchhost: error: " << error << "\n";
    if (!errors.empty()) return 1;
    return 0;
}

}  // namespace benchhost
