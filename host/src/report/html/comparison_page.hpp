// The comparison of two runs as a page: an A/B run's report.html, and the verdicts
// a run's report.html opens with under --baseline.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/compare.hpp"

namespace benchhost {

/// The verdicts counted in boxes (slower in red), as the pages show them first: the A/B
/// page, and a run's report.html with --baseline.
std::string verdict_boxes_html(const Comparison& comparison);

/// A link the comparison's page shows at its top: text, relative address.
using PageLink = std::pair<std::string, std::string>;
/// The comparison as a page (an A/B run's report.html): the verdicts, the load of each
/// side, the table, and a chart of every ratio with its 95% interval against the
/// threshold.
std::string comparison_html(const Comparison& comparison, const std::string& title, const std::vector<PageLink>& links);

}  // namespace benchhost
