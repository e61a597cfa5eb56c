#include "commands/history_check_command.hpp"

#include <iostream>
#include <map>

#include <fmt/format.h>

#include "analysis/history_check.hpp"
#include "history/history_noise.hpp"
#include "history/history_table.hpp"
#include "report/files/junit_reporter.hpp"
#include "util/atomic_file.hpp"
#include "util/text_table.hpp"

namespace benchhost {

namespace {

/// The run to check: --run N, else the newest the filters select.
std::optional<HistoryRun> run_to_check(HistoryStore& store, const HistoryCommand& command) {
    RunFilter filter{command.machine, command.branch, command.since, command.until};
    if (command.run_id == 0) filter.limit = 1;
    for (HistoryRun& run : store.runs(filter))
        if (command.run_id == 0 || run.id == command.run_id) return std::move(run);
    return std::nullopt;
}

struct Series {
    std::string unit;
    std::vector<double> earlier;  // medians, oldest first
    std::vector<std::string> commits;  // of the earlier runs
    double latest = NAN;
    std::string note;  // what the run checked said of it (a graph_breaks count's reasons)
    bool checked = false;  // the run checked has it
};

}  // namespace

int history_check_command(HistoryStore& store, const HistoryCommand& command) {
    const std::optional<HistoryRun> run = run_to_check(store, command);
    if (!run) {
        std::cerr << "benchhost: error: "
                  << (command.run_id != 0 ? fmt::format("no run {} in {}", command.run_id, store.where())
                                          : "no run in " + store.where())
                  << (command.machine.empty() && command.branch.empty() && command.since.empty() &&
                              command.until.empty()
                          ? ""
                          : " that --machine, --branch, --since and --until select")
                  << " (benchhost history list shows the runs)\n";
        return 2;
    }
    // Every earlier point of the machine; those of the run's configuration (and branch,
    // with --baseline-branch) are its history.
    const RunFilter earlier_filter = recent_runs_filter(store, *run, command.lookback);
    const std::string pattern = command.pattern.empty() ? "*" : command.pattern;
    std::map<std::pair<std::string, std::string>, Series> by_series;
    std::size_t other_config = 0;
    std::vector<std::pair<std::string, std::string>>
        failed;  // scenarios of the run checked without figures: id, status
    for (const HistoryPoint& point : store.points(pattern, earlier_filter)) {
        if (point.series.name.empty() && point.run->id == run->id) failed.emplace_back(point.scenario_id, point.status);
        if (point.series.name.empty() || (!command.series.empty() && point.series.name != command.series)) continue;
        Series& series = by_series[{point.scenario_id, point.series.name}];
        if (point.run->id == run->id) {
            series.latest = point.series.summary.median;
            series.unit = point.series.unit;
            series.note = point.series.note;
            series.checked = true;
        } else if (!series.checked && point.run->machine == run->machine) {  // runs started before it
            if (point.run->config_hash != run->config_hash) {
                ++other_config;
                continue;
            }
            if (!command.baseline_branch.empty() && point.run->branch != command.baseline_branch) continue;
            series.earlier.push_back(point.series.summary.median);
            series.commits.push_back(point.run->commit_id);
        }
    }
    std::erase_if(by_series, [](const auto& entry) { return !entry.second.checked; });
    if (by_series.empty()) {
        std::cerr << "benchhost: error: run " << run->id << " in " << store.where()
                  << " has no series of a scenario like '" << pattern << "'"
                  << (command.series.empty() ? "" : " named '" + command.series + "'")
                  << " (benchhost history show lists them)\n";
        return 2;
    }

    HistoryCheckOptions options;
    options.threshold = command.threshold;
    options.lookback = command.lookback;
    options.min_runs = command.min_runs;
    std::cout << "Run " << run->id << " (" << run->started_at << ", commit " << short_commit(run->commit_id)
              << (run->branch.empty() ? "" : ", branch " + run->branch) << ") on " << run->machine << " ("
              << run->machine_text << ")\nagainst the last " << options.lookback
              << " earlier runs at most of each series on that machine, with the same configuration"
              << (command.baseline_branch.empty() ? "" : ", of branch " + command.baseline_branch) << "\n\n";

    std::vector<std::vector<std::string>> rows;
    std::map<Verdict, std::size_t> counts;
    std::vector<JUnitCase> cases;  // a scenario each, its series' verdicts in its output
    std::string case_scenario;  // the scenario id of cases.back()
    for (const auto& [key, series] : by_series) {
        // A compiler count against the run before; a time series against the runs' noise.
        const HistoryCheck check =
            series.unit == "count" ? check_count_against_history(series.earlier, series.latest, key.second, series.note)
                                   : check_against_history(series.earlier, series.latest, options);
        ++counts[check.verdict];
        if (cases.empty() || case_scenario != key.first) {
            cases.push_back(junit_case(key.first));
            case_scenario = key.first;
        }
        const std::string line = fmt::format(
            "{} {} against {} ({} earlier runs, noise {}), {}, ratio {:.0f}% range {}, {}{}, threshold {:g}%",
            key.second, format_figure_or_count(series.latest, series.unit),
            std::isfinite(check.baseline) ? format_figure_or_count(check.baseline, series.unit) : "-", check.runs,
            std::isfinite(check.noise) ? fmt::format("{:.2g}%", 100 * check.noise) : "-",
            std::isfinite(check.ratio) ? format_change(check.ratio) : "-", 100 * options.level,
            check.ratio_ci.valid() ? fmt::format("[{:.2f}, {:.2f}]", check.ratio_ci.low, check.ratio_ci.high) : "-",
            to_string(check.verdict), check.note.empty() ? "" : " (" + check.note + ")", 100 * options.threshold);
        cases.back().output += line + "\n";
        if (check.verdict == Verdict::slower) {
            cases.back().result = JUnitCase::Result::failure;
            cases.back().type = "slower";
            if (cases.back().message.empty()) cases.back().message = line;
            cases.back().text += line + "\n";
        }
        std::string evidence = std::to_string(check.runs);
        if (check.after_step) evidence += " since " + short_commit(series.commits[series.earlier.size() - check.runs]);
        std::string verdict(to_string(check.verdict));
        if (!check.note.empty()) verdict += " (" + check.note + ")";
        rows.push_back(
            {key.first, key.second, evidence,
             std::isfinite(check.baseline) ? format_figure_or_count(check.baseline, series.unit) : "-",
             std::isfinite(check.noise) ? fmt::format("{:.2g}%", 100 * check.noise) : "-",
             format_figure_or_count(series.latest, series.unit),
             std::isfinite(check.ratio) ? format_change(check.ratio) : "-",
             check.ratio_ci.valid() ? fmt::format("[{:.2f}, {:.2f}]", check.ratio_ci.low, check.ratio_ci.high) : "-",
             verdict});
    }
    std::cout << render_table({{"SCENARIO", Align::left},
                               {"SERIES", Align::left},
                               {"RUNS", Align::left},
                               {"BASELINE", Align::right},
                               {"NOISE", Align::right},
                               {"THIS RUN", Align::right},
                               {"CHANGE", Align::right},
                               {fmt::format("RATIO {:.0f}% RANGE", 100 * options.level), Align::right},
                               {"VERDICT", Align::left}},
                              rows);
    std::cout << counts[Verdict::slower] << " slower, " << counts[Verdict::faster] << " faster, "
              << counts[Verdict::same] << " same, " << counts[Verdict::inconclusive] << " inconclusive (threshold "
              << fmt::format("{:g}%", 100 * options.threshold)
              << "; RUNS: the earlier runs judged by, since the last step of their medians; BASELINE: their "
                 "geometric mean; NOISE: the spread between them)\n";
    if (!failed.empty()) {
        std::cout << "Not checked, no figures in this run:";
        for (const auto& [scenario, status] : failed) std::cout << " " << scenario << " (" << status << ");";
        std::cout << "\n";
    }
    if (other_config > 0)
        std::cout << "Left out: " << other_config << " earlier points of runs with another configuration\n";
    if (!command.junit.empty()) {
        for (const auto& [scenario, status] : failed) {
            JUnitCase& test = cases.emplace_back(junit_case(scenario));
            test.result = status == "skipped" ? JUnitCase::Result::skipped : JUnitCase::Result::error;
            test.type = status;
            test.message = "no figures in this run: " + status;
        }
        try {
            write_file_atomically(command.junit, junit_xml(cases, "benchhost history check", run->started_at));
        } catch (const std::exception& e) {
            std::cerr << "benchhost: error: " << e.what() << "\n";
            return 2;
        }
    }
    return counts[Verdict::slower] > 0 ? 1 : 0;
}

}  // namespace benchhost
