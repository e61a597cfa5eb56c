// One series' history as a table of runs, oldest first: what `history show` prints and
// what each page of `history report` shows under its chart (the same rows, one code).
#pragma once

#include <string>
#include <vector>

#include "history/series_history.hpp"
#include "util/text_table.hpp"

namespace benchhost {

struct HistoryTable {
    /// STARTED, COMMIT, BRANCH, MEDIAN, 95% CI, CHANGE (from the run before), N, STATUS,
    /// CHANGE POINT ("step +10.2% (p 0.005)" on the run that starts a step).
    std::vector<TableColumn> columns;
    std::vector<std::vector<std::string>> rows;
    std::size_t first = 0;  // the index in the history's points of the first row
};

/// The table of `history`; with `limit`, only its last `limit` runs (the first row's
/// CHANGE is still from the run before it).
HistoryTable history_table(const SeriesHistory& history, std::size_t limit = 0);

/// "scenario  series  on machine (its facts)": the title of a history's table.
std::string history_title(const SeriesHistory& history);

/// The line under a table with steps: "2 change points in the medians (E-divisive, 5%
/// significance[, over the last N runs]): abc1234567 +10.2%; ..."; empty without steps.
std::string steps_line(const SeriesHistory& history);

/// For each step that made a time series slower, the command that would find the commit
/// that made it, between the commit of the run before the step and the step's own:
/// "step at abc1234567 (+10.2%): benchhost bisect --good A --bad B --include ID --build
/// BUILD --plugins-dir DIR", where BUILD and DIR are the reader's (the command that
/// builds the plugins and the folder it makes them in). A step between two runs of one
/// commit gets instead a line saying that the code did not change.
std::vector<std::string> bisect_lines(const SeriesHistory& history);

/// A commit as the tables show it: its first 10 characters.
std::string short_commit(const std::string& commit);

/// "[1.02 ms, 1.05 ms]", the median's 95% interval; "-" when it has none.
std::string interval_text(const HistorySeries& series);

/// "step +10.2% (p 0.005)": a change point as the CHANGE POINT column shows it.
std::string step_text(const bench::ChangePoint& step);

}  // namespace benchhost
