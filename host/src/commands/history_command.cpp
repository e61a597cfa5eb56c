#include "commands/history_command.hpp"

#include <iostream>

#include <fmt/format.h>

#include "commands/history_check_command.hpp"
#include "history/history_store.hpp"
#include "history/series_history.hpp"
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
    const std::vector<SeriesHistory> tables = series_histories(points, command.series);
    if (tables.empty()) {
        std::cerr << "benchhost: error: no scenario in " << store.where() << " matches '" << command.pattern << "'"
                  << (command.series.empty() ? "" : " with a series '" + command.series + "'")
                  << " (benchhost history list shows the runs)\n";
        return 2;
    }
    for (const SeriesHistory& table : tables) {
        const std::vector<const HistoryPoint*>& rows_of = table.points;
        const auto& steps = table.steps;
        std::size_t first = 0;
        if (command.limit > 0 && rows_of.size() > command.limit) first = rows_of.size() - command.limit;
        std::vector<std::vector<std::string>> rows;
        double previous = first > 0 ? rows_of[first - 1]->series.summary.median : NAN;
        for (std::size_t i = first; i < rows_of.size(); ++i) {
            const HistoryPoint* point = rows_of[i];
            const HistorySeries& s = point->series;
            const std::string ci = std::isfinite(s.ci_low) && std::isfinite(s.ci_high)
                                       ? fmt::format("[{}, {}]", format_figure(s.ci_low, s.unit),
                                                     format_figure(s.ci_high, s.unit))
                                       : "-";
            const double median = s.summary.median;
            std::string step = "";
            if (const auto it = steps.find(i); it != steps.end())
                step = fmt::format("step {} (p {:.3f})", format_change(1 + it->second.relative_change),
                                   it->second.p_value);
            rows.push_back({point->run.started_at, short_commit(point->run.commit_id),
                            point->run.branch.empty() ? "-" : point->run.branch, format_figure(median, s.unit), ci,
                            std::isfinite(previous) ? format_change(median / previous) : "-",
                            std::to_string(s.summary.count), point->status, step});
            previous = median;
        }
        std::cout << table.scenario_id << "  " << table.series << "  on " << table.machine << " (" << table.machine_text
                  << ")\n"
                  << render_table({{"STARTED", Align::left},
                                   {"COMMIT", Align::left},
                                   {"BRANCH", Align::left},
                                   {"MEDIAN", Align::right},
                                   {"95% CI", Align::right},
                                   {"CHANGE", Align::right},
                                   {"N", Align::right},
                                   {"STATUS", Align::left},
                                   {"CHANGE POINT", Align::left}},
                                  rows);
        if (!steps.empty()) {
            std::cout << steps.size() << " change point" << (steps.size() == 1 ? "" : "s")
                      << " in the medians (E-divisive, 5% significance"
                      << (table.searched_from > 0
                              ? fmt::format(", looked for among the last {} runs", rows_of.size() - table.searched_from)
                              : "")
                      << "):";
            for (const auto& [index, step] : steps)
                std::cout << " " << short_commit(rows_of[index]->run.commit_id) << " "
                          << format_change(1 + step.relative_change) << ";";
            std::cout << "\n";
        }
        std::cout << "\n";
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
        if (command.action == "check") return history_check_command(*store, command);
        return show(*store, command);
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 2;
    }
}

}  // namespace benchhost
