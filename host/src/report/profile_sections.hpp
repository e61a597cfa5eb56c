// "Where the time goes": the profiles of a run made with --profile (<bench/profile.hpp>,
// docs/profiling.md), as a section of report.html (the operator table, beside eager's
// for a compiled or kernelized variant, the module table, the flame graphs, the notes and
// the trace file) and of report.md (the same tables, without the flame graphs).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "report/report_figures.hpp"

namespace benchhost {

/// The HTML section (id "profiles"); empty when no scenario has a profile.
std::string profile_html_section(const RunFigures& figures);

/// The Markdown section; empty when no scenario has a profile. `text` and `code` write
/// plugin text as a table cell and as a code span (report.md's own escaping).
std::string profile_markdown_section(const RunFigures& figures,
                                     const std::function<std::string(std::string_view)>& text,
                                     const std::function<std::string(std::string_view)>& code);

}  // namespace benchhost
