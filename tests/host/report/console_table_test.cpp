#include "report/console_table.hpp"
#include "util/text_table.hpp"

#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../../support/builders.hpp"

namespace {

using benchhost::RunRecord;
using benchhost::ScenarioOutcome;

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

/// The lines of the summary after its first category heading ("unit: 5 scenarios").
std::vector<std::string> table_lines(const RunRecord& record) {
    std::vector<std::string> lines = lines_of(benchhost::format_summary_table(record));
    if (!lines.empty() && lines[0].rfind("unit: ", 0) == 0) lines.erase(lines.begin());
    return lines;
}

ScenarioOutcome outcome(const std::string& benchmark, bench::Status status, const std::string& reason = {}) {
    return benchtest::Outcome("unit", "mock", benchmark).status(status, reason);
}

RunRecord sample_record() {
    RunRecord record;
    auto fast = outcome("fast_kernel_with_a_long_name", bench::Status::success);
    fast.result.series.push_back({"latency", "us", {845, 845, 845}, 1});
    fast.result.series.push_back({"throughput", "items/s", {1183.4}, 1});
    record.outcomes.push_back(fast);

    auto model = outcome("model", bench::Status::success);
    model.result.series.push_back({"latency", "ms", {12.34, 12.34, 20}, 1});
    model.result.series.push_back({"tokens_per_second", "tokens/s", {81.23}, 1});
    record.outcomes.push_back(model);

    auto slow = outcome("slow", bench::Status::success);
    slow.result.series.push_back({"latency", "ms", {1520, 1520}, 1});
    record.outcomes.push_back(slow);

    record.outcomes.push_back(outcome("skip", bench::Status::skipped, "mock disabled"));
    record.outcomes.push_back(outcome(
        "boom", bench::Status::failed,
        "error: the output differs\nfrom the reference at element 17 of the tensor named weights, and many more words"));
    return record;
}

TEST(ConsoleTable, HeaderAndOneRowPerScenario) {
    const auto lines = table_lines(sample_record());
    // header, rows, blank line, the problems in full (two lines for a two-line reason),
    // blank line, totals
    ASSERT_EQ(lines.size(), 1u + 5u + 1u + 3u + 2u);
    EXPECT_EQ(lines[0].rfind("SCENARIO", 0), 0u);
    EXPECT_EQ(lines_of(benchhost::format_summary_table(sample_record()))[0], "unit: 5 scenarios");
    for (const char* title : {"STATUS", "MEDIAN", "95% CI", "P95", "THROUGHPUT", "VS EAGER", "NOTE"}) {
        EXPECT_NE(lines[0].find(title), std::string::npos) << title;
    }
    EXPECT_EQ(lines[1].rfind("unit/mock/fast_kernel_with_a_long_name", 0), 0u);
    EXPECT_EQ(lines[6], "");
    EXPECT_EQ(lines[7], "Problems:");
    EXPECT_EQ(lines[8], "  unit/mock/boom (failed): error: the output differs");
    EXPECT_EQ(lines[9], "    from the reference at element 17 of the tensor named weights, and many more words");
}

TEST(ConsoleTable, ColumnsAreAligned) {
    const auto lines = table_lines(sample_record());
    // STATUS starts at the same column in every row: after the widest scenario id.
    const std::size_t status_column = lines[0].find("STATUS");
    ASSERT_NE(status_column, std::string::npos);
    EXPECT_EQ(status_column, std::string("unit/mock/fast_kernel_with_a_long_name").size() + 2);
    const char* statuses[] = {"success", "success", "success", "skipped", "failed"};
    for (std::size_t i = 1; i <= 5; ++i) {
        EXPECT_EQ(lines[i].find(statuses[i - 1]), status_column) << lines[i];
    }
    // MEDIAN is right-aligned: every value ends where the title ends.
    const std::size_t median_end = lines[0].find("MEDIAN") + 6;
    for (std::size_t i = 1; i <= 5; ++i) {
        ASSERT_GE(lines[i].size(), median_end) << lines[i];
        EXPECT_NE(lines[i][median_end - 1], ' ') << lines[i];
        EXPECT_EQ(lines[i][median_end], ' ') << lines[i];
    }
    // No trailing spaces.
    for (const auto& line : lines) {
        if (!line.empty()) {
            EXPECT_NE(line.back(), ' ') << line;
        }
    }
}

TEST(ConsoleTable, LatencyUnitsFollowTheMagnitude) {
    const auto lines = table_lines(sample_record());
    EXPECT_NE(lines[1].find("845 us"), std::string::npos) << lines[1];  // median
    EXPECT_NE(lines[1].find("1.18k items/s"), std::string::npos) << lines[1];
    EXPECT_NE(lines[2].find("12.3 ms"), std::string::npos) << lines[2];
    EXPECT_NE(lines[2].find("19.2 ms"), std::string::npos) << lines[2];  // p95 of {12.34, 12.34, 20}
    EXPECT_NE(lines[2].find("81.2 tokens/s"), std::string::npos) << lines[2];
    EXPECT_NE(lines[3].find("1.52 s"), std::string::npos) << lines[3];
    // A skipped scenario has no figures.
    EXPECT_NE(lines[4].find(" - "), std::string::npos) << lines[4];
    EXPECT_NE(lines[4].find("mock disabled"), std::string::npos) << lines[4];
}

TEST(ConsoleTable, LongReasonIsOneTruncatedLine) {
    const auto lines = table_lines(sample_record());
    const std::string& row = lines[5];
    const auto note = row.find("error: ");
    ASSERT_NE(note, std::string::npos) << row;
    const std::string text = row.substr(note);
    EXPECT_EQ(text.size(), 60u) << text;
    EXPECT_EQ(text.substr(text.size() - 3), "...");
    EXPECT_EQ(text, "error: the output differs from the reference at element 1...");  // newline became a space
    EXPECT_EQ(text.find("many more words"), std::string::npos);
}

TEST(ConsoleTable, TruncationKeepsUtf8Whole) {
    RunRecord record;
    std::string reason;
    for (int i = 0; i < 40; ++i) reason += "\xC3\xA9";  // 40 x U+00E9, 80 bytes
    reason = "x" + reason + reason;
    record.outcomes.push_back(outcome("utf8", bench::Status::failed, reason));
    const auto lines = table_lines(record);
    const std::string& row = lines[1];
    const std::string text = row.substr(row.find('x'));
    EXPECT_EQ(text, "x" + [] {
        std::string s;
        for (int i = 0; i < 56; ++i) s += "\xC3\xA9";
        return s;
    }() + "...");
}

TEST(ConsoleTable, TotalsLineRatesTheScenariosThatRan) {
    // 3 succeeded of the 4 that ran: the skip is not a failure.
    const auto lines = table_lines(sample_record());
    EXPECT_EQ(lines.back(), "5 scenarios: 3 succeeded, 1 failed (75.0% of those that ran), 1 skipped");
}

TEST(ConsoleTable, InterruptedMarker) {
    RunRecord record = sample_record();
    EXPECT_EQ(benchhost::format_summary_table(record).find("(run interrupted)"), std::string::npos);
    record.interrupted = true;
    const auto lines = table_lines(record);
    EXPECT_EQ(lines.back(), "(run interrupted)");
    EXPECT_EQ(lines[lines.size() - 2], "5 scenarios: 3 succeeded, 1 failed (75.0% of those that ran), 1 skipped");
}

TEST(ConsoleTable, EmptyRun) {
    const auto lines = lines_of(benchhost::format_summary_table(RunRecord{}));
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "0 scenarios: 0 succeeded, 0 failed, 0 skipped");  // none ran: no rate
    RunRecord skips;
    skips.outcomes.push_back(outcome("a", bench::Status::skipped, "no GPU"));
    skips.outcomes.push_back(outcome("b", bench::Status::skipped, "no GPU"));
    EXPECT_EQ(lines_of(benchhost::format_summary_table(skips)).back(), "2 scenarios: 0 succeeded, 0 failed, 2 skipped");
}

TEST(ConsoleTable, RoundingMovesToTheNextUnit) {
    RunRecord record;
    auto almost = outcome("almost_a_second", bench::Status::success);
    almost.result.series.push_back({"latency", "ms", {999.96}, 1});
    record.outcomes.push_back(almost);
    auto nanos = outcome("nanos", bench::Status::success);
    nanos.result.series.push_back({"latency", "ns", {0.57}, 1});
    record.outcomes.push_back(nanos);
    const auto lines = table_lines(record);
    EXPECT_NE(lines[1].find("1.00 s"), std::string::npos) << lines[1];
    EXPECT_NE(lines[2].find("0.57 ns"), std::string::npos) << lines[2];
}

}  // namespace

namespace {

TEST(ConsoleTable, OneTablePerCategoryWithSpreadAndSpeedup) {
    RunRecord record;
    auto perf = [](bench::Variant variant, std::vector<double> ms) {
        ScenarioOutcome o;
        o.config.category = "performance";
        o.config.plugin = "model";
        o.config.benchmark = "model";
        o.config.variant = variant;
        o.config.scenario_name = "model[variant=" + std::string(bench::to_string(variant)) + "]";
        o.result.series.push_back({"latency", "ms", std::move(ms), 1});
        return o;
    };
    record.outcomes.push_back(perf(bench::Variant::eager, {10, 10.1, 9.9, 10, 10.2, 9.8}));
    auto unit = outcome("kernel", bench::Status::success);
    unit.result.series.push_back({"latency", "us", {5, 5, 5}, 1});
    record.outcomes.push_back(unit);
    record.outcomes.push_back(perf(bench::Variant::compiled, {5, 5.05, 4.95, 5, 5.1, 4.9}));
    const auto lines = lines_of(benchhost::format_summary_table(record));
    // unit first (the layout's order), then performance, each with its own header.
    ASSERT_GE(lines.size(), 8u);
    EXPECT_EQ(lines[0], "unit: 1 scenario");
    EXPECT_EQ(lines[1].rfind("SCENARIO", 0), 0u);
    EXPECT_EQ(lines[2].rfind("unit/mock/kernel", 0), 0u);
    EXPECT_EQ(lines[3], "");
    EXPECT_EQ(lines[4], "performance: 2 scenarios");
    EXPECT_EQ(lines[6].rfind("performance/model/model[variant=eager]", 0), 0u);
    EXPECT_NE(lines[6].find("\u00b1"), std::string::npos) << lines[6];  // the median's interval
    EXPECT_NE(lines[7].find("2.00x"), std::string::npos) << lines[7];    // compiled: twice as fast
}

}  // namespace
