#include "commands/export_command.hpp"

#include <exception>
#include <iostream>

#include "util/atomic_file.hpp"
#include "report/gbench_export.hpp"
#include "json/report_reader.hpp"

namespace benchhost {

namespace fs = std::filesystem;

int export_run(const ExportCommand& command) {
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

    // Only one format so far; cli.cpp accepts no other.
    const std::string text = to_gbench_json(record);
    if (gbench_iteration_count(record) == 0)
        std::cerr << "benchhost: warning: " << dir.string()
                  << " has no successful scenario with a time series: nothing to export\n";

    if (command.output.empty() || command.output == "-") {
        std::cout << text << std::flush;
        return std::cout ? 0 : 1;
    }
    try {
        write_file_atomically(command.output, text);
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

}  // namespace benchhost
