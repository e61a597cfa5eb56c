#include "commands/history_command.hpp"

#include <iostream>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "history/history_store.hpp"
#include "json/report_reader.hpp"
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

std::string short_commit(const std::string& commit) { return commit.substr(0, 10); }

std::string shard_text(const HistoryRun& run) {
    return run.shard_count > 0 ? fmt::format("{}/{}", run.shard_index, run.shard_count) : "-";
}

int add(HistoryStore& store, const HistoryCommand& command) {
    int status = 0;
    for (const fs::path& given : command.runs) {
        try {
            const fs::path folder = run_folder_of(given);
            const RunRecord record = read_run(folder);
            const AddResult result = store.add_run(record, fs::absolute(folder).lexically_normal().string(), command.samples);
            std::cout << folder.string() << ": "
                      << (result.added ? fmt::format("added ({} scenario{})", result.scenarios, result.scenarios == 1 ? "" : "s")
                                    : "already there")
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

int list(HistoryStore& store, const HistoryCommand& command) {
    const std::vector<HistoryRun> runs = store.runs(filter_of(command));
    std::vector<std::vector<std::string>> rows;
    for (const HistoryRun& run : runs)
        rows.push_back({std::to_string(run.id), run.started_at, run.host_name, run.machine, short_commit(run.commit_id),
                        run.branch.empty() ? "-" : run.branch, shard_text(run), std::to_string(run.scenarios),
                        run.complete ? "complete" : "incomplete", run.source});
    std::cout << render_table({{"RUN", Align::right},
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

int show(HistoryStore& store, const HistoryCommand& command) {
    const std::vector<HistoryPoint> points = store.points(command.pattern, filter_of(command));
    // One table per scenario, series and machine: figures of two machines never mix.
    std::map<std::tuple<std::string, std::string, std::string>, std::vector<const HistoryPoint*>> tables;
    std::map<std::string, std::string> machine_texts;
    for (const HistoryPoint& point : points) {
        if (point.series.name.empty()) continue;  // a scenario without series (failed, skipped)
        if (!command.series.empty() && point.series.name != command.series) continue;
        tables[{point.scenario_id, point.series.name, point.run.machine}].push_back(&point);
        machine_texts[point.run.machine] = point.run.machine_text;
    }
    if (tables.empty()) {
        std::cerr << "benchhost: error: no scenario in " << store.where() << " matches '" << command.pattern << "'"
                  << (command.series.empty() ? "" : " with a series '" + command.series + "'")
                  << " (benchhost history list shows the runs)\n";
        return 2;
    }
    for (auto& [key, rows_of] : tables) {
        const auto& [scenario, series, machine] = key;
        std::vector<const HistoryPoint*> shown = rows_of;
        if (command.limit > 0 && shown.size() > command.limit)
            shown.erase(shown.begin(), shown.end() - static_cast<std::ptrdiff_t>(command.limit));
        std::vector<std::vector<std::string>> rows;
        double previous = NAN;
        for (const HistoryPoint* point : shown) {
            const HistorySeries& s = point->series;
            const std::string ci = std::isfinite(s.ci_low) && std::isfinite(s.ci_high)
                                       ? fmt::format("[{}, {}]", format_figure(s.ci_low, s.unit),
                                                     format_figure(s.ci_high, s.unit))
                                       : "-";
            const double median = s.summary.median;
            rows.push_back({point->run.started_at, short_commit(point->run.commit_id),
                            point->run.branch.empty() ? "-" : point->run.branch, format_figure(median, s.unit), ci,
                            std::isfinite(previous) ? format_change(median / previous) : "-",
                            std::to_string(s.summary.count), point->status});
            previous = median;
        }
        std::cout << scenario << "  " << series << "  on " << machine << " (" << machine_texts[machine] << ")\n"
                  << render_table({{"STARTED", Align::left},
                                   {"COMMIT", Align::left},
                                   {"BRANCH", Align::left},
                                   {"MEDIAN", Align::right},
                                   {"95% CI", Align::right},
                                   {"CHANGE", Align::right},
                                   {"N", Align::right},
                                   {"STATUS", Align::left}},
                                  rows)
                  << "\n";
    }
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
        return show(*store, command);
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 2;
    }
}

}  // namespace benchhost
