#include "util/text_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "util/units.hpp"

namespace benchhost {
std::size_t display_width(std::string_view text) {
    std::size_t width = 0;
    for (const char c : text) {
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;  // not a continuation byte
    }
    return width;
}

std::string format3(double value) {
    const double magnitude = std::fabs(round3(value));  // 9.996 reads "10.0", not "10.00"
    const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
    char buffer[64];
    std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
    return buffer;
}

std::string format_figure(double value, std::string_view unit) {
    if (!std::isfinite(value)) return "-";
    const DisplayScale scale = display_scale(value, unit);
    return format3(value * scale.factor) + scale.suffix;
}

std::string format_ratio(double value) { return std::isfinite(value) ? format3(value) + "x" : "-"; }

std::string format_change(double ratio) {
    if (!std::isfinite(ratio)) return "-";
    const double percent = (ratio - 1) * 100;
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%+.1f%%", percent);
    return buffer;
}

std::string one_line(std::string_view text, std::size_t limit) {
    std::string line;
    bool pending_space = false;
    for (const char c : text) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
            pending_space = !line.empty();
            continue;
        }
        if (pending_space) line += ' ';
        pending_space = false;
        line += c;
    }
    if (display_width(line) <= limit || limit < 3) return line;

    // Keep limit - 3 code points, never cutting inside a UTF-8 sequence.
    std::size_t kept = 0, end = 0;
    for (; end < line.size(); ++end) {
        if ((static_cast<unsigned char>(line[end]) & 0xC0) != 0x80) {
            if (kept == limit - 3) break;
            ++kept;
        }
    }
    line.resize(end);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "...";
}

std::string render_table(const std::vector<TableColumn>& columns, const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> widths(columns.size());
    for (std::size_t i = 0; i < columns.size(); ++i) widths[i] = display_width(columns[i].title);
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size() && i < columns.size(); ++i)
            widths[i] = std::max(widths[i], display_width(row[i]));

    std::string out;
    const auto append = [&](auto cell_of) {
        std::string line;
        for (std::size_t i = 0; i < columns.size(); ++i) {
            const std::string cell = cell_of(i);
            const bool last = i + 1 == columns.size();
            if (i > 0) line += "  ";
            const std::size_t padding = widths[i] - std::min(widths[i], display_width(cell));
            if (columns[i].align == Align::right) line.append(padding, ' ');
            line += cell;
            if (columns[i].align == Align::left && !last) line.append(padding, ' ');
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line;
        out += '\n';
    };
    append([&](std::size_t i) { return columns[i].title; });
    for (const auto& row : rows) append([&](std::size_t i) { return i < row.size() ? row[i] : std::string(); });
    return out;
}

}  // namespace benchhost
