// How a comparison is said in words, the same in every format that shows one: the
// console's table, comparison.md, comparison.json's notes, the pages, junit.xml.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/compare.hpp"

namespace benchhost {

/// "[1.28, 1.35]", "-" for an invalid interval.
std::string interval_text(const bench::Interval& ci);
/// One of a row's two figures (base_median_ms or new_median_ms): "3.36 ms", or a
/// compiler count as it is, "1".
std::string row_figure(const SeriesComparison& row, double value);
/// The verdict with what it rests on: "slower (3 vs 3 rounds)", "same (too few samples ...)".
std::string verdict_text(const SeriesComparison& row);
/// "1 slower, 0 faster, 2 same (threshold 5%, ...)": the settings the verdicts read
/// (alpha and the noise floor only where a row was judged by its samples).
std::string verdict_counts(const Comparison& comparison);
/// "Load while measuring: base: ...; new: ..." (the CPU monitor's view of each side).
std::string loads_line(const Comparison& comparison);
/// What differs between the sides, a line each, as every format lists it under
/// differences_heading: "param slowdown: (none) vs 1.05"; empty when nothing does or
/// the comparison does not know.
std::vector<std::string> difference_lines(const Comparison& comparison);
inline constexpr const char* differences_heading = "What differs (base vs new)";
/// When the comparison knows that nothing differs, what that means for its verdicts: an
/// A/B run of one build with one set of settings measured only noise. Empty when
/// something differs or the comparison does not know.
std::string no_difference_text(const Comparison& comparison);
/// The facts of Comparison::incomparable that difference_lines does not already list
/// (all of them for a comparison that does not know its differences).
std::vector<std::string> unlisted_incomparable(const Comparison& comparison);
/// The rows that changed, as the reports open with them: the slower ones first, then
/// the faster ones, each in the comparison's order.
std::vector<const SeriesComparison*> changed_rows(const Comparison& comparison);
/// How many changed rows the reports' summaries list before "N more".
inline constexpr std::size_t changed_rows_listed = 8;

/// One row as a line of evidence: "latency 3.36 ms -> 4.41 ms, +31.2%, ratio 95% CI
/// [1.28, 1.35], slower (6 pairs), threshold 5%" (the JUnit failure message).
std::string evidence_line(const SeriesComparison& row, double threshold);

}  // namespace benchhost
