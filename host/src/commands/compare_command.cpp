#include "commands/compare_command.hpp"

#include <iostream>

#include "history/history_noise.hpp"
#include "report/comparison_reporter.hpp"
#include "report/files/junit_reporter.hpp"
#include "report/report_reader.hpp"
#include "util/atomic_file.hpp"

namespace benchhost {

namespace fs = std::filesystem;

int compare_command(const CompareCommand& command) {
    RunRecord base, next;
    fs::path base_dir, next_dir;
    try {
        base_dir = run_folder_of(command.base);
        base = read_run(base_dir);
        next_dir = run_folder_of(command.next);
        next = read_run(next_dir);
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 2;
    }
    CompareOptions options{.threshold = command.threshold, .alpha = command.alpha, .noise_floor = command.noise_floor};
    if (!command.history.empty()) {
        try {
            options.history_noise = history_noise_for(*open_history(command.history, false), next);
        } catch (const std::exception& e) {
            std::cerr << "benchhost: error: --history: " << e.what() << "\n";
            return 2;
        }
    }
    Comparison comparison = compare_runs(base, next, options);
    comparison.differences = side_differences(base, next);
    comparison.base_label = base_dir.string();
    comparison.new_label = next_dir.string();
    try {
        report_comparison(comparison, std::cout, command.markdown, command.json);
        if (!command.junit.empty())
            write_file_atomically(command.junit,
                                  junit_xml(junit_cases(next, &comparison), "benchhost compare", next.started_at));
    } catch (const std::exception& e) {  // a file asked for cannot be written: wrong input, not a regression
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 2;
    }
    if (command.fail_on_regression && comparison.regressions() > 0) {
        std::cerr << "benchhost: " << comparison.regressions() << " regression"
                  << (comparison.regressions() == 1 ? "" : "s") << " beyond the threshold\n";
        return 1;
    }
    return 0;
}

}  // namespace benchhost
