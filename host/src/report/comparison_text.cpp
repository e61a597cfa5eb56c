// How a comparison is said in words, for every format that shows one
// (comparison_text.hpp).
#include "report/comparison_text.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "util/text_table.hpp"
#include "util/units.hpp"

namespace benchhost {

std::string row_figure(const SeriesComparison& row, double value) { return format_figure_or_count(value, row.unit); }

std::string interval_text(const bench::Interval& ci) {
    if (!ci.valid()) return "-";
    return fmt::format("[{}, {}]", format3(ci.low), format3(ci.high));
}

/// What a verdict rests on: "5 pairs", "3 vs 3 rounds", "" (one run a side).
namespace {

std::string evidence_text(const std::string& evidence, int base_rounds, int new_rounds, std::size_t history_runs = 0) {
    if (evidence == "history") return fmt::format("noise of {} runs in the history", history_runs);
    if (evidence == "pairs") return fmt::format("{} pairs", std::min(base_rounds, new_rounds));
    if (evidence == "rounds") return fmt::format("{} vs {} rounds", base_rounds, new_rounds);
    return "";
}

/// A confirmed row's first figures: "flagged slower at +7.2% [1.03, 1.12] after 3 pairs, confirmed".
std::string first_text(const SeriesComparison& row) {
    const SeriesComparison::First& first = *row.first;
    const std::string after = evidence_text(row.evidence, first.base_rounds, first.new_rounds);
    return fmt::format("flagged {} at {} {}{}, {}", to_string(first.verdict), format_change(first.ratio),
                       interval_text(first.ratio_ci), after.empty() ? "" : " after " + after,
                       row.verdict == Verdict::slower ? "confirmed" : "not confirmed");
}

}  // namespace

/// The verdict with what it rests on: "slower (3 vs 3 rounds)", "same (too few samples ...)".
std::string verdict_text(const SeriesComparison& row) {
    std::string text(to_string(row.verdict));
    std::vector<std::string> said;
    if (std::string evidence = evidence_text(row.evidence, row.base_rounds, row.new_rounds, row.history_runs);
        !evidence.empty())
        said.push_back(std::move(evidence));
    if (row.first) said.push_back(first_text(row));
    if (!row.note.empty()) said.push_back(row.note);
    for (std::size_t i = 0; i < said.size(); ++i) text += (i == 0 ? " (" : "; ") + said[i];
    return text + (said.empty() ? "" : ")");
}

/// "1 slower, 0 faster, 2 same (threshold 5%, ...)": the settings the verdicts read
/// (alpha and the noise floor only where a row was judged by its samples).
std::string verdict_counts(const Comparison& c) {
    const std::size_t inconclusive = c.count(Verdict::inconclusive);
    const bool by_samples = std::any_of(c.rows.begin(), c.rows.end(),
                                        [](const SeriesComparison& row) { return row.evidence == "samples"; });
    return fmt::format(
        "{} slower, {} faster, {} same{} (threshold {:.3g}%{})", c.count(Verdict::slower), c.count(Verdict::faster),
        c.count(Verdict::same), inconclusive > 0 ? fmt::format(", {} inconclusive", inconclusive) : std::string(),
        c.options.threshold * 100,
        by_samples ? fmt::format(", alpha {:.3g}, noise floor {:.3g}%", c.options.alpha, c.options.noise_floor * 100)
                   : std::string());
}

namespace {

std::string side_load_text(const SideLoad& load) {
    if (load.scenarios == 0) return "not monitored";
    std::string text = fmt::format("machine {:.0f}% busy, {:.2f} CPUs used by other processes",
                                   load.machine_busy_percent, load.other_cpus);
    if (std::isfinite(load.load_average)) text += fmt::format(", load average {:.2f}", load.load_average);
    return text;
}

}  // namespace

/// "Load while measuring: base: ...; new: ..." (the CPU monitor's view of each side).
std::string loads_line(const Comparison& c) {
    if (c.base_load.scenarios == 0 && c.new_load.scenarios == 0)
        return "Load while measuring: not monitored (no scenario measured with the CPU monitor on; --monitor-interval "
               "0 turns it off)";
    return "Load while measuring: base: " + side_load_text(c.base_load) + "; new: " + side_load_text(c.new_load);
}

std::vector<std::string> difference_lines(const Comparison& c) {
    std::vector<std::string> lines;
    if (c.differences)
        for (const SideDifference& d : *c.differences) lines.push_back(d.what + ": " + d.base + " vs " + d.next);
    return lines;
}

std::string no_difference_text(const Comparison& c) {
    if (!c.differences || !c.differences->empty()) return "";
    if (c.options.paired) return "Same build and settings on both sides: any difference is noise.";
    // Two runs may still differ in code rebuilt into the same folder, which no record says.
    return "Nothing the runs recorded differs (settings, plugins folder, plugin versions and builds, machine).";
}

std::vector<std::string> unlisted_incomparable(const Comparison& c) {
    std::vector<std::string> unlisted;
    for (const std::string& line : c.incomparable) {
        const bool listed =
            c.differences && std::any_of(c.differences->begin(), c.differences->end(),
                                         [&](const SideDifference& d) { return line.starts_with(d.what + ": "); });
        if (!listed) unlisted.push_back(line);
    }
    return unlisted;
}

std::vector<const SeriesComparison*> changed_rows(const Comparison& comparison) {
    std::vector<const SeriesComparison*> changed;
    for (const Verdict verdict : {Verdict::slower, Verdict::faster})
        for (const SeriesComparison& row : comparison.rows)
            if (row.verdict == verdict) changed.push_back(&row);
    return changed;
}

std::string evidence_line(const SeriesComparison& row, double threshold) {
    return fmt::format("{} {} -> {}, {}, ratio 95% CI {}, {}, threshold {:.3g}%", row.series,
                       row_figure(row, row.base_median_ms), row_figure(row, row.new_median_ms),
                       format_change(row.ratio), interval_text(row.ratio_ci), verdict_text(row), threshold * 100);
}

}  // namespace benchhost
