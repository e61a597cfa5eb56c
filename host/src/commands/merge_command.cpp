#include "commands/merge_command.hpp"

#include <iostream>
#include <stdexcept>
#include <utility>

#include "analysis/scenario_statistics.hpp"
#include "history/history_store.hpp"  // run_id_of
#include "plan/shard.hpp"
#include "report/files/report_json.hpp"
#include "report/report_figures.hpp"
#include "report/report_reader.hpp"
#include "report/reporter_registry.hpp"
#include "util/join.hpp"

namespace benchhost {

namespace fs = std::filesystem;

int merge_command(const MergeCommand& command) {
    const fs::path& out = command.out;
    const std::vector<fs::path>& dirs = command.shards;
    std::vector<std::pair<fs::path, RunRecord>> shards;
    RunRecord merged;
    try {
        for (const fs::path& dir : dirs) {
            const fs::path folder = run_folder_of(dir);
            shards.emplace_back(folder, read_run(folder));
        }
        merged = merge_shards(shards, run_id_of);
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 2;
    }
    analyze_run(merged);
    // The files a run of the shards' options would have written, formats included.
    std::vector<std::string> formats;
    if (const auto it = merged.run_config.find("formats"); it != merged.run_config.end())
        for (std::string& format : split(it->second))
            if (!format.empty()) formats.push_back(std::move(format));
    ReporterSettings settings;
    settings.output_dir = out;
    const std::vector<std::string> errors =
        report_whole_run(merged, reporter_names({ReporterKind::file}, formats), settings);
    for (const std::string& error : errors) std::cerr << "benchhost: error: " << error << "\n";
    if (!errors.empty()) return 1;
    const RunTotals totals = count_totals(merged);
    std::cout << "merged " << shards.size() << " shard" << (shards.size() == 1 ? "" : "s") << " into "
              << (out / summary_file_name).string() << ": " << totals_text(totals) << "\n";
    return 0;
}

}  // namespace benchhost
