#include "commands/report_command.hpp"

#include <exception>
#include <iostream>

#include "report/rendered_reports.hpp"
#include "report/report_reader.hpp"
#include "report/reporter_registry.hpp"

namespace benchhost {

namespace fs = std::filesystem;

int report_command(const ReportCommand& command) {
    fs::path dir;
    RunRecord record;
    try {
        dir = run_folder_of(command.source);  // DIR, or DIR/benchmark_summary.json
        if (!fs::exists(dir / "benchmark_summary.json"))
            throw std::runtime_error((dir / "benchmark_summary.json").string() + ": not found: is " + dir.string() +
                                     " a run folder?");
        record = read_run(dir);
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: cannot read the run: " << e.what() << "\n";
        return 2;
    }

    const fs::path output = command.output_dir.empty() ? dir : command.output_dir;
    ReporterSettings settings;
    settings.output_dir = output;
    // A run against a baseline (`run --baseline`) kept its comparison: the reports open
    // with its verdicts again. One that cannot be read costs only the verdicts.
    RunEnd end;
    end.comparison = kept_comparison(dir, "the reports are written without its verdicts", std::cerr);
    const std::vector<std::string> errors = report_whole_run(record, {"markdown", "html"}, settings, end);
    for (const std::string& error : errors) std::cerr << "benchhost: error: " << error << "\n";
    if (!errors.empty()) return 1;
    std::cout << "wrote " << (output / markdown_report_name).string() << " and " << (output / html_report_name).string()
              << " (" << record.outcomes.size() << (record.outcomes.size() == 1 ? " scenario" : " scenarios") << ")\n";
    return 0;
}

}  // namespace benchhost
