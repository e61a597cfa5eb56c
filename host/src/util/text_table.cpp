#include "util/text_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

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

std::string format_figure_or_count(double value, std::string_view unit) {
    if (unit != "count") return format_figure(value, unit);
    if (!std::isfinite(value)) return "-";
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%g", value);
    return buffer;
}

std::string number_text(double value, int precision) {
    std::ostringstream text;
    text.precision(precision);
    text << value;
    return text.str();
}

std::string format_ratio(double value) { return std::isfinite(value) ? format3(value) + "x" : "-"; }

std::string format_change(double ratio) {
    if (!std::isfinite(ratio)) return "-";
    double percent = std::round((ratio - 1) * 1000) / 10;  // as shown, one decimal
    if (percent == 0) percent = 0;  // a change that rounds to nothing is +0.0%, not -0.0%
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%+.1f%%", percent);
    return buffer;
}

std::string format_share(double share) {
    if (!std::isfinite(share)) return "-";
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.1f%%", share * 100);
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

std::string render_table(const std::vector<TableColumn>& columns, const std::vector<std::vector<std::string>>& rows,
                         std::size_t max_width) {
    std::vector<std::size_t> widths(columns.size());
    for (std::size_t i = 0; i < columns.size(); ++i) widths[i] = display_width(columns[i].title);
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size() && i < columns.size(); ++i)
            widths[i] = std::max(widths[i], display_width(row[i]));

    if (max_width > 0 && !columns.empty()) {
        std::size_t total = 2 * (columns.size() - 1);
        for (const std::size_t width : widths) total += width;
        const auto narrowest = [&](std::size_t i) { return std::max<std::size_t>(display_width(columns[i].title), 8); };
        while (total > max_width) {
            std::size_t widest = columns.size();
            for (std::size_t i = 0; i < columns.size(); ++i)
                if (columns[i].shrink && widths[i] > narrowest(i) &&
                    (widest == columns.size() || widths[i] > widths[widest]))
                    widest = i;
            if (widest == columns.size()) break;  // nothing left to narrow
            --widths[widest];
            --total;
        }
    }

    std::string out;
    const auto append = [&](auto cell_of) {
        std::string line;
        for (std::size_t i = 0; i < columns.size(); ++i) {
            std::string cell = cell_of(i);
            if (display_width(cell) > widths[i]) cell = one_line(cell, widths[i]);
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

std::vector<std::string> wrap_text(std::string_view text, std::size_t width, std::size_t indent) {
    // Pieces that end after a break opportunity.
    std::vector<std::string_view> pieces;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == ' ' || text[i] == ',' || text[i] == '/') {
            pieces.push_back(text.substr(start, i + 1 - start));
            start = i + 1;
        }
    }
    if (start < text.size()) pieces.push_back(text.substr(start));

    std::vector<std::string> lines;
    std::string line;
    const std::size_t indent_width = std::min(indent, width > 1 ? width - 1 : 0);
    const auto trimmed_width = [](const std::string& s) {
        std::size_t end = s.size();
        while (end > 0 && s[end - 1] == ' ') --end;
        return display_width(std::string_view(s).substr(0, end));
    };
    const auto flush = [&] {
        while (!line.empty() && line.back() == ' ') line.pop_back();
        lines.push_back(line);
        line.assign(indent_width, ' ');
    };
    for (const std::string_view piece : pieces) {
        std::string candidate = line + std::string(piece);
        if (trimmed_width(candidate) <= width) {
            line = std::move(candidate);
            continue;
        }
        if (display_width(line) > (lines.empty() ? 0 : indent_width)) flush();
        // The piece on a line of its own, cut where lines end when it is longer.
        for (std::size_t at = 0; at < piece.size();) {
            const std::size_t room = width > display_width(line) ? width - display_width(line) : 1;
            std::size_t end = at, taken = 0;
            while (end < piece.size() && (taken < room || (static_cast<unsigned char>(piece[end]) & 0xC0) == 0x80)) {
                if ((static_cast<unsigned char>(piece[end]) & 0xC0) != 0x80) ++taken;
                ++end;
            }
            line += std::string(piece.substr(at, end - at));
            at = end;
            if (at < piece.size() && piece.find_first_not_of(' ', at) != std::string_view::npos) flush();
            else at = piece.size();  // only spaces are left: the line ends with them
        }
    }
    if (trimmed_width(line) > 0 || lines.empty()) flush();
    return lines;
}

}  // namespace benchhost
