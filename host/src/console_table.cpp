// The end-of-run summary table:
//
//   SCENARIO                      STATUS   MEDIAN      P95   THROUGHPUT  NOTE
//   unit/mock/latency[batch=1]    success  12.3 ms  13.1 ms  81.2 item/s
//   unit/mock/broken              failed         -        -           -  boom
//
//   2 scenarios: 1 succeeded, 1 failed, 0 skipped (success rate 50.0%)
//
// MEDIAN and P95 come from the "latency" series, THROUGHPUT is the median of the
// "throughput" series, or else of "tokens_per_second". Width is counted in code points
// (UTF-8), the last column is not padded, and NOTE is the reason on one line, cut to
// 60 code points.

#include "console_table.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <span>
#include <string_view>
#include <vector>

#include <bench/statistics.hpp>

namespace benchhost {
namespace {

constexpr std::size_t note_limit = 60;
constexpr const char* column_gap = "  ";

std::size_t display_width(std::string_view text) {
    std::size_t width = 0;
    for (const char c : text) {
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;  // not a continuation byte
    }
    return width;
}

// Rounds to three significant digits.
double round3(double value) {
    if (value == 0 || !std::isfinite(value)) return value;
    const double magnitude = std::floor(std::log10(std::fabs(value)));
    const double scale = std::pow(10.0, 2 - magnitude);
    return std::round(value * scale) / scale;
}

// At least three significant digits, without an exponent: 1.23, 12.3, 123, 12345.
std::string format3(double value) {
    const double magnitude = std::fabs(round3(value));  // 9.996 reads "10.0", not "10.00"
    const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
    char buffer[64];
    std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
    return buffer;
}

// Factor from a time unit to milliseconds; NaN for a unit that is not a time.
double to_ms_factor(std::string_view unit) {
    if (unit == "ms") return 1.0;
    if (unit == "s") return 1e3;
    if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1e-3;
    if (unit == "ns") return 1e-6;
    return std::nan("");
}

std::string format_quantity(double value, std::string_view unit) {
    if (!std::isfinite(value)) return "-";
    std::string text = format3(value);
    if (!unit.empty()) {
        text += ' ';
        text.append(unit);
    }
    return text;
}

std::string format_time(double value, std::string_view unit) {
    if (!std::isfinite(value)) return "-";
    const double factor = to_ms_factor(unit);
    if (std::isnan(factor)) return format_quantity(value, unit);
    // Choose the unit after rounding, so that 999.96 ms reads "1.00 s", not "1000 ms".
    const double ms = round3(value * factor);
    const double magnitude = std::fabs(ms);
    if (magnitude >= 1000) return format3(ms / 1000) + " s";
    if (magnitude >= 1 || ms == 0) return format3(ms) + " ms";
    if (magnitude >= 1e-3) return format3(ms * 1e3) + " us";
    return format3(ms * 1e6) + " ns";
}


// The reason on one line: each run of whitespace (newlines included) becomes one space;
// longer than note_limit code points is cut and ends with "...".
std::string one_line_note(std::string_view reason) {
    std::string line;
    bool pending_space = false;
    for (const char c : reason) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
            pending_space = !line.empty();
            continue;
        }
        if (pending_space) line += ' ';
        pending_space = false;
        line += c;
    }
    if (display_width(line) <= note_limit) return line;

    // Keep note_limit - 3 code points, never cutting inside a UTF-8 sequence.
    std::size_t kept = 0, end = 0;
    for (; end < line.size(); ++end) {
        if ((static_cast<unsigned char>(line[end]) & 0xC0) != 0x80) {
            if (kept == note_limit - 3) break;
            ++kept;
        }
    }
    line.resize(end);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "...";
}

enum class Align { left, right };

struct Column {
    const char* title;
    Align align;
};

constexpr std::array<Column, 6> columns{{
    {"SCENARIO", Align::left},
    {"STATUS", Align::left},
    {"MEDIAN", Align::right},
    {"P95", Align::right},
    {"THROUGHPUT", Align::right},
    {"NOTE", Align::left},
}};

using Row = std::array<std::string, columns.size()>;

Row make_row(const ScenarioOutcome& outcome) {
    const auto& result = outcome.result;
    Row row;
    row[0] = outcome.config.scenario_id();
    row[1] = std::string(bench::to_string(result.status));
    const std::string missing(1, '-');
    row[2] = row[3] = row[4] = missing;
    if (const bench::Series* latency = result.find_series("latency"); latency && !latency->samples.empty()) {
        const bench::Summary s = bench::summarize(std::span<const double>(latency->samples));
        row[2] = format_time(s.median, latency->unit);
        row[3] = format_time(s.p95, latency->unit);
    }
    const bench::Series* throughput = result.find_series("throughput");
    if (throughput == nullptr) throughput = result.find_series("tokens_per_second");
    if (throughput != nullptr && !throughput->samples.empty()) {
        const bench::Summary s = bench::summarize(std::span<const double>(throughput->samples));
        row[4] = format_quantity(s.median, throughput->unit);
    }
    row[5] = one_line_note(result.reason);
    return row;
}

void append_row(std::string& out, const Row& row, const std::array<std::size_t, columns.size()>& widths) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
        const bool last = i + 1 == row.size();
        if (i > 0) line += column_gap;
        const std::size_t padding = widths[i] - display_width(row[i]);
        if (columns[i].align == Align::right) line.append(padding, ' ');
        line += row[i];
        if (columns[i].align == Align::left && !last) line.append(padding, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
}

std::string plural(int count, const char* singular, const char* plural_form) {
    return std::to_string(count) + " " + (count == 1 ? singular : plural_form);
}

}  // namespace

std::string format_figure(double value, std::string_view unit) { return format_time(value, unit); }

std::string format_summary_table(const RunRecord& record) {
    std::vector<Row> rows;
    rows.reserve(record.outcomes.size());
    for (const auto& outcome : record.outcomes) rows.push_back(make_row(outcome));

    std::array<std::size_t, columns.size()> widths{};
    Row header;
    for (std::size_t i = 0; i < columns.size(); ++i) {
        header[i] = columns[i].title;
        widths[i] = display_width(header[i]);
    }
    for (const auto& row : rows) {
        for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], display_width(row[i]));
    }

    std::string out;
    append_row(out, header, widths);
    for (const auto& row : rows) append_row(out, row, widths);

    // The table cuts notes short; what went wrong is worth reading in full.
    bool first_problem = true;
    for (const auto& outcome : record.outcomes) {
        const bench::Status status = outcome.result.status;
        if (status == bench::Status::success || status == bench::Status::skipped) continue;
        if (first_problem) out += "\nProblems:\n";
        first_problem = false;
        std::string reason = outcome.result.reason;  // continuation lines indented under it
        for (std::size_t at = reason.find('\n'); at != std::string::npos; at = reason.find('\n', at + 5))
            reason.replace(at, 1, "\n    ");
        out += "  " + outcome.config.scenario_id() + " (" + std::string(bench::to_string(status)) + "): " + reason +
               "\n";
    }

    const RunTotals totals = count_totals(record);
    char rate[32];
    std::snprintf(rate, sizeof(rate), "%.1f%%", totals.success_rate() * 100.0);
    out += '\n';
    out += plural(totals.total, "scenario", "scenarios") + ": " + std::to_string(totals.successful) +
           " succeeded, " + std::to_string(totals.failed) + " failed, " + std::to_string(totals.skipped) +
           " skipped (success rate " + rate + ")\n";
    if (record.interrupted) out += "(run interrupted)\n";
    return out;
}

}  // namespace benchhost
