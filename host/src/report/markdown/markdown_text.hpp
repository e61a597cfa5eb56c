// Text from plugins (scenario names, reasons, warnings) in Markdown, for every Markdown
// file the host writes (report.md, summary.md, comparison.md). It is untrusted: in
// table cells a pipe would end the cell and a line break the row, and a Markdown viewer
// renders raw HTML, so & < > are written as entities, the punctuation of emphasis and
// code is backslash-escaped and so is a "]" that would make a link; scenario ids go
// into code spans.
#pragma once

#include <string>
#include <string_view>

namespace benchhost {

/// Text for a Markdown paragraph or table cell, shown as written (line breaks become spaces).
std::string md_text(std::string_view text);

/// A code span: nothing inside is Markdown, but a pipe still ends a table cell and a
/// backtick would end the span.
std::string md_code(std::string_view text);

}  // namespace benchhost
