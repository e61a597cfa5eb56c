#include "history/history_table.hpp"

#include <cmath>

#include <fmt/format.h>

#include "util/shell_word.hpp"
#include "util/units.hpp"

namespace benchhost {

std::string short_commit(const std::string& commit) { return commit.substr(0, 10); }

std::string interval_text(const HistorySeries& s) {
    return std::isfinite(s.ci_low) && std::isfinite(s.ci_high)
               ? fmt::format("[{}, {}]", format_figure(s.ci_low, s.unit), format_figure(s.ci_high, s.unit))
               : "-";
}

std::string step_text(const bench::ChangePoint& step) {
    return fmt::format("step {} (p {:.3f})", format_change(1 + step.relative_change), step.p_value);
}

HistoryTable history_table(const SeriesHistory& history, std::size_t limit) {
    HistoryTable table;
    table.columns = {{"STARTED", Align::left}, {"COMMIT", Align::left},  {"BRANCH", Align::left},
                     {"MEDIAN", Align::right}, {"95% CI", Align::right}, {"CHANGE", Align::right},
                     {"N", Align::right},      {"STATUS", Align::left},  {"CHANGE POINT", Align::left}};
    const std::vector<const HistoryPoint*>& points = history.points;
    if (limit > 0 && points.size() > limit) table.first = points.size() - limit;
    table.rows.reserve(points.size() - table.first);
    double previous = table.first > 0 ? points[table.first - 1]->series.summary.median : NAN;
    for (std::size_t i = table.first; i < points.size(); ++i) {
        const HistoryPoint& point = *points[i];
        const HistorySeries& s = point.series;
        const double median = s.summary.median;
        const auto step = history.steps.find(i);
        table.rows.push_back({point.run->started_at, short_commit(point.run->commit_id),
                              point.run->branch.empty() ? "-" : point.run->branch, format_figure(median, s.unit),
                              interval_text(s), std::isfinite(previous) ? format_change(median / previous) : "-",
                              std::to_string(s.summary.count), point.status,
                              step == history.steps.end() ? "" : step_text(step->second)});
        previous = median;
    }
    return table;
}

std::string history_title(const SeriesHistory& history) {
    return history.scenario_id + "  " + history.series + "  on " + history.machine + " (" + history.machine_text + ")";
}

std::string steps_line(const SeriesHistory& history) {
    if (history.steps.empty()) return "";
    std::string line = fmt::format("{} change point{} in the medians (E-divisive, 5% significance",
                                   history.steps.size(), history.steps.size() == 1 ? "" : "s");
    if (history.steps_from > 0)
        line += fmt::format(", over the last {} runs", history.points.size() - history.steps_from);
    line += "):";
    for (const auto& [index, step] : history.steps) {
        line += ' ';
        line += short_commit(history.points[index]->run->commit_id);
        line += ' ';
        line += format_change(1 + step.relative_change);
        line += ';';
    }
    return line;
}

std::vector<std::string> bisect_lines(const SeriesHistory& history) {
    std::vector<std::string> lines;
    for (const auto& [index, step] : history.steps) {
        if (index == 0 || !(step.relative_change > 0) || !is_time_unit(history.points[index]->series.unit)) continue;
        const std::string& before = history.points[index - 1]->run->commit_id;
        const std::string& after = history.points[index]->run->commit_id;
        if (before.empty() || after.empty()) continue;
        const std::string at = "step at " + short_commit(after) + " (" + format_change(1 + step.relative_change) + ")";
        if (before == after) {
            lines.push_back(at +
                            ": the runs on either side of it are of the same commit, so the code did not change "
                            "(the machine, its load or the settings did)");
            continue;
        }
        lines.push_back(at + ": benchhost bisect --good " + before + " --bad " + after + " --include " +
                        shell_word(history.scenario_id) + " --build BUILD --plugins-dir DIR");
    }
    return lines;
}

}  // namespace benchhost
