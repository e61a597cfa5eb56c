#include "commands/history_command.hpp"

#include "commands/history_check_command.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <stdexcept>

#include <fmt/format.h>

#include "history/history_store.hpp"
#include "history/history_table.hpp"
#include "history/series_history.hpp"
#include "report/html/history_dashboard.hpp"
#include "report/report_reader.hpp"
#include "util/text_table.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

RunFilter filter_of(const HistoryCommand& command) {
    RunFilter filter;
    filter.machine = command.machine;
    filter.branch = command.branch;
    filter.since = command.since;
    filter.until = command.until;
    if (command.action == "list") filter.limit = command.limit;
    return filter;
}

std::string shard_text(const HistoryRun& run) {
    return run.shard_count > 0 ? fmt::format("{}/{}", run.shard_index, run.shard_count) : "-";
}

/// The runs of `store` that are shards of the merged run `record` (`benchhost merge`):
/// each started when and where one of its shards did, as that shard of as many. Empty
/// for a run that was not merged.
std::vector<HistoryRun> stored_shards_of(HistoryStore& store, const RunRecord& record) {
    std::vector<HistoryRun> found;
    if (record.shards.empty()) return found;
    RunFilter filter;
    for (const ShardRecord& shard : record.shards) {
        if (filter.since.empty() || shard.started_at < filter.since) filter.since = shard.started_at;
        if (shard.started_at > filter.until) filter.until = shard.started_at;
    }
    const int count = static_cast<int>(record.shards.size());
    for (const HistoryRun& run : store.runs(filter))
        for (const ShardRecord& shard : record.shards)
            if (run.shard_count == count && run.shard_index == shard.index && run.started_at == shard.started_at &&
                run.host_name == shard.host_name)
                found.push_back(run);
    std::sort(found.begin(), found.end(),
              [](const HistoryRun& a, const HistoryRun& b) { return a.shard_index < b.shard_index; });
    return found;
}

int add(HistoryStore& store, const HistoryCommand& command) {
    int status = 0;
    for (const fs::path& given : command.runs) {
        try {
            const fs::path folder = run_folder_of(given);
            const RunRecord record = read_run(folder);
            // A merged run holds its shards' scenarios: stored beside shards already
            // there, every one of them would count twice in the series.
            if (const std::vector<HistoryRun> stored = stored_shards_of(store, record); !stored.empty()) {
                std::string runs, missing;
                for (const HistoryRun& run : stored)
                    runs += fmt::format("{}{}/{} (run {})", runs.empty() ? "" : ", ", run.shard_index, run.shard_count,
                                        run.id);
                for (const ShardRecord& shard : record.shards)
                    if (std::none_of(stored.begin(), stored.end(),
                                     [&](const HistoryRun& run) { return run.shard_index == shard.index; }))
                        missing += fmt::format("{}{}", missing.empty() ? "" : " ", shard.source);
                if (missing.empty()) {
                    std::cout << folder.string() << ": already there as its shards " << runs << "\n";
                    continue;
                }
                throw std::runtime_error(folder.string() + ": merged from " + std::to_string(record.shards.size()) +
                                         " shards, of which " + runs + (stored.size() == 1 ? " is" : " are") +
                                         " in the history already: adding it would count their scenarios "
                                         "twice; add the other shards' folders instead: " +
                                         missing);
            }
            // A shard whose merged run is stored: its scenarios are there already.
            if (record.shard) {
                const HistoryRun shard = history_run_of(record, folder.string());
                if (const long long merged = store.merged_run_holding(shard); merged != 0) {
                    std::cout << folder.string() << ": already there in merged run " << merged << "\n";
                    continue;
                }
            }
            const AddResult result =
                store.add_run(record, fs::absolute(folder).lexically_normal().string(), command.samples);
            const std::string scenarios =
                fmt::format("{} scenario{}", result.scenarios, result.scenarios == 1 ? "" : "s");
            std::cout << folder.string() << ": "
                      << (result.added      ? "added (" + scenarios + ")"
                          : result.replaced ? "updated (" + scenarios + "; stored before it was resumed)"
                                            : std::string("already there"))
                      << " as run " << result.run_id << "\n";
        } catch (const std::exception& e) {
            std::cerr << "benchhost: error: " << e.what() << "\n";
            status = 1;
        }
    }
    if (const auto size = store.size_bytes())
        std::cout << store.where() << ": " << fmt::format("{:.1f}", static_cast<double>(*size) / (1024.0 * 1024.0))
                  << " MiB\n";
    return status;
}

/// The start of a run's id (its summary's run_metadata.run_id), as a commit's short hash;
/// "-" for a run written before runs had ids, whose id was derived (sixteen zeros first).
std::string short_run_id(const std::string& key) {
    if (key.size() > 16 && key.compare(0, 16, std::string(16, '0')) == 0) return "-";
    return key.substr(0, 12);
}

int list(HistoryStore& store, const HistoryCommand& command) {
    const std::vector<HistoryRun> runs = store.runs(filter_of(command));
    std::vector<std::vector<std::string>> rows;
    for (const HistoryRun& run : runs)
        rows.push_back({std::to_string(run.id), short_run_id(run.key), run.started_at, run.host_name, run.machine,
                        short_commit(run.commit_id), run.branch.empty() ? "-" : run.branch, shard_text(run),
                        std::to_string(run.scenarios), run.complete ? "complete" : "incomplete", run.source});
    std::cout << render_table({{"RUN", Align::right},
                               {"ID", Align::left},
                               {"STARTED", Align::left},
                               {"HOST", Align::left},
                               {"MACHINE", Align::left},
                               {"COMMIT", Align::left},
                               {"BRANCH", Align::left},
                               {"SHARD", Align::left},
                               {"SCENARIOS", Align::right},
                               {"", Align::left},
                               {"FOLDER", Align::left}},
                              rows)
              << runs.size() << " run" << (runs.size() == 1 ? "" : "s") << " in " << store.where() << "\n";
    return 0;
}

/// The histories of the scenarios the command selects; empty, with the error printed,
/// when none matches.
std::vector<SeriesHistory> selected(HistoryStore& store, const HistoryCommand& command,
                                    std::vector<HistoryPoint>& points) {
    points = store.points(command.pattern, filter_of(command));
    std::vector<SeriesHistory> histories = series_histories(points, command.series);
    if (histories.empty()) {
        // A pattern that matches, in runs that the filters leave out, is not said not to match.
        std::string filters;
        for (const auto& [option, value] : {std::pair<const char*, const std::string&>{"--machine", command.machine},
                                            {"--branch", command.branch},
                                            {"--since", command.since},
                                            {"--until", command.until}})
            if (!value.empty()) filters += std::string(filters.empty() ? "" : ", ") + option + " " + value;
        std::cerr << "benchhost: error: no scenario in " << store.where() << " matches '" << command.pattern << "'"
                  << (command.series.empty() ? "" : " with a series '" + command.series + "'")
                  << (filters.empty() ? "" : " in the runs that " + filters + " select")
                  << " (benchhost history list shows the runs)\n";
    }
    return histories;
}

int show(HistoryStore& store, const HistoryCommand& command) {
    std::vector<HistoryPoint> points;
    const std::vector<SeriesHistory> histories = selected(store, command, points);
    if (histories.empty()) return 2;
    for (const SeriesHistory& history : histories) {
        const HistoryTable table = history_table(history, command.limit);
        std::cout << history_title(history) << "\n" << render_table(table.columns, table.rows);
        if (const std::string line = steps_line(history); !line.empty()) std::cout << line << "\n";
        for (const std::string& line : bisect_lines(history)) std::cout << "  " << line << "\n";
        std::cout << "\n";
    }
    return 0;
}

int report(HistoryStore& store, const HistoryCommand& command) {
    const auto started = std::chrono::steady_clock::now();
    std::error_code error;
    fs::create_directories(command.output_dir, error);
    if (error || !fs::is_directory(command.output_dir)) {
        std::cerr << "benchhost: error: cannot create the output folder " << command.output_dir.string() << ": "
                  << (error ? error.message() : "not a folder") << "\n";
        return 2;
    }
    std::vector<HistoryPoint> points;
    const std::vector<SeriesHistory> histories = selected(store, command, points);
    if (histories.empty()) return 2;
    const DashboardOptions options{store.where(), command.pattern, command.limit};
    const DashboardWritten written = write_history_dashboard(histories, command.output_dir, options);
    std::size_t charted = 0;  // the figures of the series' runs
    for (const SeriesHistory& history : histories) charted += history.points.size();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cout << "wrote " << (command.output_dir / "index.html").string() << " and " << written.pages - 1 << " page"
              << (written.pages == 2 ? "" : "s") << " (" << written.scenarios << " scenario"
              << (written.scenarios == 1 ? "" : "s") << ", " << histories.size() << " series on " << written.machines
              << " machine" << (written.machines == 1 ? "" : "s") << ", " << charted << " points) in "
              << fmt::format("{:.2f}", seconds) << " s\n";
    return 0;
}

}  // namespace

int history_command(const HistoryCommand& command) {
    std::unique_ptr<HistoryStore> store;
    try {
        store = open_history(command.location, command.action == "add");
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 2;
    }
    try {
        if (command.action == "add") return add(*store, command);
        if (command.action == "list") return list(*store, command);
        if (command.action == "report") return report(*store, command);
        if (command.action == "check") return history_check_command(*store, command);
        return show(*store, command);
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 2;
    }
}

}  // namespace benchhost
