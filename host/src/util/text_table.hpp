// Aligned plain-text tables and the figures in them, for everything benchhost prints:
// the run summary, comparisons.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace benchhost {

enum class Align { left, right };

struct TableColumn {
    std::string title;
    Align align = Align::left;
    bool shrink = false;  // may be narrowed to fit max_width: its longer cells cut with "..."
};

/// Columns separated by two spaces, each as wide as its widest cell (counted in code
/// points), right-aligned columns padded on the left; trailing spaces are cut. With
/// `max_width`, lines longer than that narrow the columns marked `shrink`, the widest
/// first, down to their title or 8 code points, whichever is wider.
std::string render_table(const std::vector<TableColumn>& columns, const std::vector<std::vector<std::string>>& rows,
                         std::size_t max_width = 0);

/// `text` in lines of at most `width` code points, broken after a space, ',' or '/'
/// (spaces at the ends of lines are dropped); the lines after the first start with
/// `indent` spaces. A piece that fits on no line is cut where the line ends.
std::vector<std::string> wrap_text(std::string_view text, std::size_t width, std::size_t indent);

/// Width of UTF-8 text in code points.
std::size_t display_width(std::string_view text);

/// At least three significant digits, without an exponent: 1.23, 12.3, 123, 12345.
std::string format3(double value);

/// A figure with three significant digits in the unit that suits its size ("845 us",
/// "1.52 s", "22.8M elements/s", "1.50 GiB": display_scale in util/units.hpp); "-" when
/// not finite.
std::string format_figure(double value, std::string_view unit);
/// format_figure, except that a compiler count (unit "count") is the number alone: "1".
std::string format_figure_or_count(double value, std::string_view unit);

/// A number as a stream writes it with `precision` significant digits: 0.05, 1e+06, 2.5,
/// 12.35 (precision 4). How a record gives the numbers of the options and of a machine.
std::string number_text(double value, int precision = 6);

/// A ratio as "1.23x"; "-" when not finite.
std::string format_ratio(double value);

/// A change as a signed percentage: "+4.1%", "-12%".
std::string format_change(double ratio);

/// A share of a whole (0.417) as a percentage with one decimal: "41.7%"; "-" when not
/// finite. The success rate, the CV, a profile's share, an accuracy.
std::string format_share(double share);

/// `text` on one line (each run of whitespace one space), cut to `limit` code points
/// with "..." at the end when longer.
std::string one_line(std::string_view text, std::size_t limit);

}  // namespace benchhost
