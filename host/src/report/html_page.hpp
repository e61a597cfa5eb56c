// The frame of every page benchhost writes (report.html of a run, report.html of an A/B
// run): one self-contained HTML file with the style sheet inline, light and dark.
#pragma once

#include <string>

namespace benchhost {

/// From <!DOCTYPE html> to the opening <main>, with `title` (escaped) and the style sheet.
std::string html_page_start(const std::string& title);
/// Closes what html_page_start opened.
std::string html_page_end();

}  // namespace benchhost
