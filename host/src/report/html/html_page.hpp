// The frame of every page benchhost writes (report.html of a run, of an A/B run, the
// history dashboard): one self-contained HTML file with the style sheet inline, light and
// dark, and the escaping of text every page uses.
#pragma once

#include <string>
#include <string_view>

namespace benchhost {

/// `text` made safe as HTML (and XML) text or an attribute's value: & < > " ' escaped,
/// invalid UTF-8 replaced, control characters but tab and newline left out.
std::string html_escape(std::string_view text);

/// From <!DOCTYPE html> to the opening <main>, with `title` (escaped) and the style sheet.
std::string html_page_start(const std::string& title);
/// Closes what html_page_start opened.
std::string html_page_end();
/// The pages' few lines of script, as a <script> element to put at the end of <main>:
/// a click on a header of a table.sortable (or Enter on it) sorts its rows by that column
/// (a cell's data-v, a number, when it has one: empty sorts last; else its text), and an
/// empty <div id="filter-box"> gets a box that keeps the rows of every table.filterable
/// holding each word typed (hiding a .bench block left with none). Without script the
/// page reads the same.
std::string html_page_script();

}  // namespace benchhost
