#include "commands/compare_command.hpp"

#include <iostream>

#include "util/atomic_file.hpp"
#include "json/report_reader.hpp"

namespace benchhost {

namespace fs = std::filesystem;

void report_comparison(const Comparison& comparison, std::ostream& out, const fs::path& markdown, const fs::path& json) {
    out << comparison_table(comparison) << std::flush;
    if (!markdown.empty()) write_file_atomically(markdown, comparison_markdown(comparison));
    if (!json.empty()) write_file_atomically(json, comparison_json(comparison));
}

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
    Comparison comparison = compare_runs(base, next, CompareOptions{command.threshold, command.alpha});
    comparison.base_label = base_dir.string();
    comparison.new_label = next_dir.string();
    try {
        report_comparison(comparison, std::cout, command.markdown, command.json);
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 1;
    }
    if (command.fail_on_regression && comparison.regressions() > 0) {
        std::cerr << "benchhost: " << comparison.regressions() << " regression"
                  << (comparison.regressions() == 1 ? "" : "s") << " beyond the threshold\n";
        return 1;
    }
    return 0;
}

}  // namespace benchhost
