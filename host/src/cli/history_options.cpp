#include "cli/history_options.hpp"

#include <array>
#include <memory>
#include <string_view>

#include <CLI/CLI.hpp>

#include "cli/number_checks.hpp"
#include "config/run_config.hpp"

namespace benchhost {

namespace {

/// The options of `history`'s actions as given: the runs, --threshold and --output-dir
/// as text, the others in the command.
struct HistoryArguments {
    HistoryCommand command;
    std::vector<std::string> runs;
    std::string threshold, output_dir;
};

/// --history, which every action needs.
void add_location(CLI::App& action, HistoryCommand& command) {
    action
        .add_option("--history", command.location, "The history: an SQLite file, or postgresql://HOST[:PORT]/DATABASE")
        ->required();
}

/// --since and --until: a UTC date or time as the runs' start times are written
/// (2026-11-24T10:00:00Z), or the beginning of one (2026-11, 2026-11-24, 2026-11-24T10:00).
/// They are compared with the start times as text, so that a word would quietly select
/// all runs or none.
std::string date_or_time_problem(const std::string& text) {
    constexpr std::string_view shape = "0000-00-00T00:00:00Z";
    bool ok = text.size() == 4 || text.size() == 7 || text.size() == 10 || text.size() == 13 || text.size() == 16 ||
              text.size() == 19 || text.size() == 20;
    for (std::size_t i = 0; ok && i < text.size(); ++i)
        ok = shape[i] == '0' ? text[i] >= '0' && text[i] <= '9' : text[i] == shape[i];
    const auto field = [&](std::size_t at, int low, int high) {
        if (text.size() < at + 2) return true;
        const int value = (text[at] - '0') * 10 + (text[at + 1] - '0');
        return value >= low && value <= high;
    };
    if (ok) ok = field(5, 1, 12) && field(8, 1, 31) && field(11, 0, 23) && field(14, 0, 59) && field(17, 0, 60);
    if (ok) return {};
    return "'" + text + "' is not a UTC date or time: give 2026-11-24, 2026-11-24T10:00 or 2026-11-24T10:00:00Z";
}

/// The options that choose which runs an action reads.
void add_run_filters(CLI::App& action, HistoryCommand& command) {
    action.add_option("--machine", command.machine,
                      "Only runs on this machine: its fingerprint (or a prefix) or host name");
    action.add_option("--branch", command.branch, "Only runs of this branch");
    action
        .add_option("--since", command.since,
                    "Only runs started at or after this UTC date or time (2026-11-24, 2026-11-24T10:00)")
        ->check(CLI::Validator(date_or_time_problem, ""));
    action
        .add_option("--until", command.until,
                    "Only runs started at or before this UTC date or time (a date: to its end)")
        ->check(CLI::Validator(date_or_time_problem, ""));
}

/// `history add RUN...`: run folders added to the history.
CLI::App* add_add_action(CLI::App& history, HistoryArguments& given) {
    CLI::App* add =
        history.add_subcommand("add", "Add run folders (merged ones too); a run added before is left as it is");
    add_location(*add, given.command);
    // Not checked here: one that is not there is named with the others that are not runs,
    // and the rest are added (history add's exit status 1).
    add->add_option("runs", given.runs, "Run folders, or their benchmark_summary.json")->required();
    add->add_flag("--samples", given.command.samples, "Record the raw samples too");
    return add;
}

/// `history list`: the runs in the history.
CLI::App* add_list_action(CLI::App& history, HistoryArguments& given) {
    CLI::App* list = history.add_subcommand("list", "The runs in the history, the newest first");
    add_location(*list, given.command);
    add_run_filters(*list, given.command);
    list->add_option("--limit", given.command.limit, "Only the newest N runs");
    return list;
}

/// `history show PATTERN`: a table of each scenario over the runs.
CLI::App* add_show_action(CLI::App& history, HistoryArguments& given) {
    CLI::App* show = history.add_subcommand(
        "show", "A table per scenario, series and machine: its figures in each run, over commits");
    add_location(*show, given.command);
    show->add_option("pattern", given.command.pattern, "Scenario ids: a substring, or a glob with * ? [")->required();
    show->add_option("--series", given.command.series, "Only this series (default: every series)");
    add_run_filters(*show, given.command);
    show->add_option("--limit", given.command.limit, "Only the last N runs of each table");
    return show;
}

/// `history check [PATTERN]`: the gate, a run against the runs before it.
CLI::App* add_check_action(CLI::App& history, HistoryArguments& given) {
    HistoryCommand& command = given.command;
    CLI::App* check = history.add_subcommand(
        "check", "Gate: a run against the runs before it on the same machine, by their noise; exit 1 when slower");
    add_location(*check, command);
    check->add_option("pattern", command.pattern, "Only scenario ids like this: a substring, or a glob (default: all)");
    check->add_option("--junit", command.junit,
                      "Also write JUnit XML to this file, for CI test reports: a test case per scenario, a "
                      "failure where a series is slower than its history");
    check
        ->add_option("--run", command.run_id,
                     "The run to check, by its number (history list); default: the newest the filters select")
        ->check(positive_integer());
    check->add_option("--series", command.series, "Only this series (default: every series)");
    add_run_filters(*check, command);
    check->add_option("--baseline-branch", command.baseline_branch,
                      "Learn from earlier runs of this branch only (default: any branch)");
    check->add_option("--threshold", given.threshold,
                      "Smallest change that counts, as 5% or 0.05 (default 5%): smaller is `same`");
    check
        ->add_option("--lookback", command.lookback,
                     "Learn the noise from at most the last N earlier runs (default 30)")
        ->check(positive_integer());
    check
        ->add_option("--min-runs", command.min_runs, "Fewest earlier runs to judge by (default 5); fewer: inconclusive")
        ->check(number_in_range(2, 1000000, true));
    return check;
}

/// `history report --output-dir DIR [PATTERN]`: the dashboard.
CLI::App* add_report_action(CLI::App& history, HistoryArguments& given) {
    CLI::App* report = history.add_subcommand(
        "report",
        "Write a static dashboard: DIR/index.html and a page per scenario, series and machine with a chart "
        "of its medians over commits, their 95% intervals and change points, and its table");
    add_location(*report, given.command);
    report->add_option("--output-dir", given.output_dir, "Write the pages into this folder (made when missing)")
        ->required();
    report->add_option("pattern", given.command.pattern,
                       "Scenario ids: a substring, or a glob with * ? [ (default: every scenario)");
    report->add_option("--series", given.command.series, "Only this series (default: every series)");
    add_run_filters(*report, given.command);
    report->add_option("--limit", given.command.limit, "Only the last N runs on each page");
    return report;
}

/// --until takes in the whole of the day, hour or minute it names: start times are
/// compared as text, and 2026-11-24T10:00:00Z is after "2026-11-24".
std::string until_its_end(std::string until) {
    if (constexpr std::string_view latest = "0000-12-31T23:59:59Z"; !until.empty() && until.size() < latest.size())
        until += latest.substr(until.size());
    return until;
}

}  // namespace

Subcommand<HistoryCommand> add_history_command(CLI::App& app) {
    auto given = std::make_shared<HistoryArguments>();
    CLI::App* history = app.add_subcommand("history",
                                           "The run history: add runs to it, list them, show a scenario over commits, "
                                           "check a run against it, write a dashboard of it");
    history->require_subcommand(1, 1);
    // Each action is a subcommand of its own, named as the command's action.
    const std::array<const CLI::App*, 5> actions = {
        add_add_action(*history, *given), add_list_action(*history, *given), add_show_action(*history, *given),
        add_check_action(*history, *given), add_report_action(*history, *given)};
    return {history, [given, actions] {
                HistoryCommand command = given->command;
                command.action = "check";
                for (const CLI::App* action : actions)
                    if (action->parsed()) command.action = action->get_name();
                command.output_dir = given->output_dir;
                if (!given->threshold.empty())
                    command.threshold = relative_option("--threshold", given->threshold, 100);
                command.runs.assign(given->runs.begin(), given->runs.end());
                command.until = until_its_end(command.until);
                return command;
            }};
}

}  // namespace benchhost
