// `benchhost history report`: the run history as a static site, one self-contained page
// per scenario, series and machine, and an index of them (inline SVG and CSS, the frame
// of report.html: html_page.hpp; no script, nothing fetched).
//
// index.html: a section per machine (its fingerprint and its facts: figures of two
// machines never mix), a row per scenario and series with a sparkline of its medians
// over the runs, the latest median, the latest change point (commit, magnitude, p) or
// "no step", and a link to its page.
//
// A page: the median of each run against the run's position (the x axis labelled with
// short commits), its 95% interval as a band, each change point a vertical line
// labelled with its commit and magnitude; under it the table `history show` prints
// (history/history_table.hpp).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "history/series_history.hpp"

namespace benchhost {

struct DashboardOptions {
    std::string source;  // where the history is, for the pages' subtitles
    std::string pattern;  // what selected the scenarios
    std::size_t limit = 0;  // each page: only the last N runs (0: all)
};

/// At most this many runs of a page's chart get a dot with a tooltip (evenly spread,
/// and every change point and the latest run); the line and the band cover every run.
inline constexpr std::size_t dashboard_max_dots = 250;

/// The file name of `history`'s page: "<its ids, made safe, cut to 80 characters>-<a hash
/// of them>.html", the same for the same scenario, series and machine, and different
/// for others.
std::string history_page_name(const SeriesHistory& history);

std::string history_page_html(const SeriesHistory& history, const DashboardOptions& options);
std::string history_index_html(const std::vector<SeriesHistory>& histories, const DashboardOptions& options);

struct DashboardWritten {
    std::size_t pages = 0;  // index.html and the histories' pages
    std::size_t scenarios = 0;  // distinct scenario ids
    std::size_t machines = 0;
};

/// Writes dir/index.html and a page per history, each atomically; `dir` must exist.
/// Throws std::runtime_error naming a file that cannot be written.
DashboardWritten write_history_dashboard(const std::vector<SeriesHistory>& histories, const std::filesystem::path& dir,
                                         const DashboardOptions& options);

}  // namespace benchhost
