// `benchhost report DIR` on a real run of the mock, and report.html rendered by headless
// Chromium (Debian's `chromium`, installed by scripts/lib/setup.sh): no console error,
// every chart in the DOM, and a screenshot kept as a test artifact in
// <build>/test-artifacts/report.png. Without Chromium that test is skipped.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "../support/chromium.hpp"
#include "../support/mock_run.hpp"
#include "../support/test_support.hpp"
#include "report/rendered_reports.hpp"
#include "report/report_reader.hpp"

namespace {

using namespace benchtest;

class ReportCommandTest : public MockHostTest {
protected:
    void SetUp() override {
        MockHostTest::SetUp();
        const ProcessResult run = run_mock(output);
        ASSERT_EQ(run.exit_code, 0) << run.err;
    }
    /// A quiet run of the mock's two benchmarks, every variant at batch sizes 1 and 2 (12
    /// scenarios), into `folder`, then `extra`.
    ProcessResult run_mock(const fs::path& folder, const std::vector<std::string>& extra = {}) {
        std::vector<std::string> options = {"--enable-mock",
                                            "--variants",
                                            "eager,compiled,kernelized",
                                            "--batch-sizes",
                                            "1,2",
                                            "--warmup-iterations",
                                            "1",
                                            "--measurement-iterations",
                                            "6",
                                            "--num-tokens-to-generate",
                                            "2",
                                            "--quiet"};
        options.insert(options.end(), extra.begin(), extra.end());
        return run_into(folder, options);
    }
    ProcessResult report(const std::vector<std::string>& args) {
        std::vector<std::string> argv = {"report"};
        argv.insert(argv.end(), args.begin(), args.end());
        return host(argv);
    }

    fs::path output = work / "run";
};

TEST_F(ReportCommandTest, RebuildsBothReportsOfARunFolder) {
    fs::remove(output / "report.md");
    fs::remove(output / "report.html");
    const ProcessResult result = report({output.string()});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err, "");
    EXPECT_NE(result.out.find("wrote " + (output / "report.md").string() + " and " + (output / "report.html").string()),
              std::string::npos)
        << result.out;

    // What the command writes is what the functions give for the run read back.
    const benchhost::RunRecord record = benchhost::read_run(output);
    ASSERT_EQ(record.outcomes.size(), 12u);  // 2 benchmarks x 3 variants x 2 batch sizes
    const std::string md = read_file(output / "report.md");
    const std::string html = read_file(output / "report.html");
    EXPECT_EQ(md, benchhost::markdown_report(record));
    EXPECT_EQ(html, benchhost::html_report(record));
    // A table per benchmark, a row per variant and batch size (the axes that vary).
    for (const auto& outcome : record.outcomes) {
        const auto table = md.find("### `" + outcome.config.benchmark_id() + "`\n\n| variant | batch_size | Status |");
        ASSERT_NE(table, std::string::npos) << outcome.config.benchmark_id() << "\n" << md;
        const std::string row = "\n| " + std::string(bench::to_string(outcome.config.variant)) + " | " +
                                std::to_string(outcome.config.batch_size) + " | success |";
        EXPECT_LT(md.find(row, table), md.find("\n\n", md.find("|---", table))) << outcome.config.scenario_id();
    }
    // Latency and throughput against batch size for both benchmarks, the speedups, a
    // distribution per benchmark, and the monitors of every scenario.
    EXPECT_EQ(count(html, "aria-labelledby=\"latency-"), 2u);
    EXPECT_EQ(count(html, "aria-labelledby=\"throughput-"), 2u);
    EXPECT_EQ(count(html, "<svg class=\"chart intervals\""), 1u);
    EXPECT_EQ(count(html, "<svg class=\"chart distribution\""), 2u);
    EXPECT_GE(count(html, "aria-labelledby=\"monitor-"), 12u);
    EXPECT_EQ(html.find("http://"), std::string::npos);
}

/// The block of report.md that gives the verdicts against the baseline.
std::string baseline_block(const std::string& md) {
    const std::size_t start = md.find("**Against the baseline**");
    if (start == std::string::npos) return "";
    return md.substr(start, md.find("\n## ", start) - start);
}

TEST_F(ReportCommandTest, ARunAgainstABaselineGetsItsVerdictsBack) {
    const fs::path against = work / "against";
    const ProcessResult run = run_mock(against, {"--baseline", output.string()});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const std::string first = baseline_block(read_file(against / "report.md"));
    ASSERT_NE(first, "");

    fs::remove(against / "report.md");
    fs::remove(against / "report.html");
    ProcessResult result = report({against.string()});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err, "");
    const std::string md = read_file(against / "report.md");
    EXPECT_EQ(baseline_block(md), first);
    const benchhost::RunRecord record = benchhost::read_run(against);
    const benchhost::Comparison comparison =
        benchhost::parse_comparison(read_file(against / "comparison.json"), "comparison.json");
    EXPECT_EQ(md, benchhost::markdown_report(record, &comparison));
    EXPECT_EQ(read_file(against / "report.html"), benchhost::html_report(record, &comparison));

    // A comparison.json that cannot be read costs the verdicts, not the reports.
    write_file(against / "comparison.json", "{\"schema_version\": 5");
    result = report({against.string()});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.err.find("benchhost: warning: " + (against / "comparison.json").string()), std::string::npos)
        << result.err;
    EXPECT_NE(result.err.find("the reports are written without its verdicts"), std::string::npos) << result.err;
    EXPECT_EQ(baseline_block(read_file(against / "report.md")), "");
    EXPECT_EQ(read_file(against / "report.md"), benchhost::markdown_report(record));
}

TEST_F(ReportCommandTest, TakesTheSummaryFileAndWritesWhereItIsTold) {
    const fs::path elsewhere = work / "elsewhere" / "reports";
    const ProcessResult result =
        report({(output / "benchmark_summary.json").string(), "--output-dir", elsewhere.string()});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(fs::exists(elsewhere / "report.md"));
    EXPECT_TRUE(fs::exists(elsewhere / "report.html"));
    EXPECT_EQ(read_file(elsewhere / "report.html"), benchhost::html_report(benchhost::read_run(output)));
}

TEST_F(ReportCommandTest, ARunThatCannotBeReadExitsWithTwoNamingTheFile) {
    ProcessResult result = report({(work / "nothing").string()});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find((work / "nothing" / "benchmark_summary.json").string()), std::string::npos) << result.err;

    write_file(output / "benchmark_run.log", "log");
    result = report({(output / "benchmark_run.log").string()});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("not a run folder or its benchmark_summary.json"), std::string::npos) << result.err;

    // A plugin report that is gone, then a summary that is not JSON.
    const auto reports = files_matching(output / "mock_benchmark", "mock_benchmark_", ".json");
    ASSERT_EQ(reports.size(), 1u);
    const std::string report_text = read_file(reports.front());
    fs::remove(reports.front());
    fs::remove(output / "report.html");
    result = report({output.string()});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find(reports.front().filename().string()), std::string::npos) << result.err;
    EXPECT_FALSE(fs::exists(output / "report.html"));  // nothing written

    write_file(reports.front(), report_text);
    write_file(output / "benchmark_summary.json", "{\"run_metadata\": ");
    result = report({output.string()});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find((output / "benchmark_summary.json").string()), std::string::npos) << result.err;
}

// ---- headless Chromium -----------------------------------------------------------------

TEST_F(ReportCommandTest, ChromiumRendersTheHtmlWithoutErrorsAndKeepsAScreenshot) {
    const fs::path binary = find_chromium();
    if (binary.empty()) GTEST_SKIP() << "chromium is not installed (scripts/lib/setup.sh installs Debian's chromium)";
    ASSERT_TRUE(fs::exists("/usr/bin/timeout"));
    ASSERT_EQ(report({output.string()}).exit_code, 0);
    const fs::path html = output / "report.html";

    // Control: a page with a console error and an exception, which this check must see.
    const fs::path control = work / "control.html";
    write_file(control,
               "<!DOCTYPE html><html><body><script>console.error('on purpose'); no_such_function();</script>"
               "</body></html>");
    const fs::path blank_png = work / "control.png";
    const ProcessResult seen =
        chromium(binary, work / "profile",
                 {"--screenshot=" + blank_png.string(), "--window-size=1280,2000", "file://" + control.string()});
    if (seen.exit_code == 124 || seen.exit_code == 137) FAIL() << "chromium timed out:\n" << seen.err;
    ASSERT_EQ(seen.exit_code, 0) << seen.err;
    ASSERT_TRUE(console_messages(seen.err)) << "console messages do not show in chromium's log:\n" << seen.err;

    // The report: its screenshot, kept in the build folder.
    const fs::path artifacts = fs::path(BENCH_TEST_BUILD_DIR) / "test-artifacts";
    fs::create_directories(artifacts);
    const fs::path png = artifacts / "report.png";
    fs::remove(png);
    const ProcessResult shot =
        chromium(binary, work / "profile",
                 {"--screenshot=" + png.string(), "--window-size=1280,2000", "file://" + html.string()});
    ASSERT_EQ(shot.exit_code, 0) << shot.err;
    EXPECT_FALSE(console_messages(shot.err)) << shot.err;
    fs::copy_file(html, artifacts / "report.html", fs::copy_options::overwrite_existing);

    const std::string image = read_file(png);
    ASSERT_GT(image.size(), 33u);
    EXPECT_EQ(image.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_EQ(image.substr(12, 4), "IHDR");
    EXPECT_EQ(big_endian(image, 16), 1280u);
    EXPECT_EQ(big_endian(image, 20), 2000u);
    // A page of tables and charts compresses far worse than the (nearly) blank control.
    const auto blank_size = fs::file_size(blank_png);
    EXPECT_GT(image.size(), 5 * blank_size) << "report.png " << image.size() << " bytes, blank page " << blank_size;
    EXPECT_GT(image.size(), 40000u);

    // Every chart is in the DOM Chromium built.
    const ProcessResult dom = chromium(binary, work / "profile", {"--dump-dom", "file://" + html.string()});
    ASSERT_EQ(dom.exit_code, 0) << dom.err;
    EXPECT_FALSE(console_messages(dom.err)) << dom.err;
    const std::string source = read_file(html);
    EXPECT_GT(count(source, "<svg "), 10u);
    EXPECT_EQ(count(dom.out, "<svg "), count(source, "<svg ")) << dom.out.substr(0, 2000);
    EXPECT_EQ(count(dom.out, "role=\"img\""), count(source, "role=\"img\""));
    EXPECT_NE(dom.out.find("</html>"), std::string::npos);
}

}  // namespace
