// report.md and report.html (host/src/report/rendered_reports.hpp) and their charts
// (host/src/report/html/svg_chart.hpp), from a RunRecord built here: three variants at three batch
// sizes with monitor timelines, a failed scenario whose reason holds markup, a skip.
#include "report/rendered_reports.hpp"

#include <gtest/gtest.h>

#include "../../../support/builders.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <bench/internal/statistics/series_analysis.hpp>

#include "../../../support/chromium.hpp"  // count
#include "../../../support/test_support.hpp"
#include "analysis/scenario_statistics.hpp"
#include "report/html/svg_chart.hpp"
#include "report/report_figures.hpp"

namespace {

using namespace benchtest;
using benchhost::RunRecord;
using benchhost::ScenarioOutcome;

const std::string hostile_reason = "bad input <script>alert('x')</script> & more | piped\nsecond line";

std::vector<double> samples_around(double center, int n, double spread) {
    std::vector<double> out;
    for (int i = 0; i < n; ++i) out.push_back(center * (1 + spread * std::sin(i * 1.7)));
    return out;
}

bench::MonitorReport cpu_monitor(double seconds, double rss) {
    bench::MonitorReport report;
    report.available = true;
    report.metrics["cpu_utilization"] = {95, 90, 100, 10, "%"};
    report.metrics["rss"] = {rss, rss, rss, 10, "MiB"};
    for (int i = 0; i <= 10; ++i) {
        const double t = seconds * i / 10;
        report.timeline.time_s.push_back(t);
        report.timeline.series["cpu_utilization"].push_back(i == 0 ? NAN : 90 + i % 3);
        report.timeline.series["system_cpu_utilization"].push_back(50);
        report.timeline.series["rss"].push_back(rss + i);
        report.timeline.series["in_measurement"].push_back(i >= 3 && i <= 8 ? 1 : 0);
    }
    return report;
}

ScenarioOutcome scenario(const std::string& category, const std::string& plugin, const std::string& benchmark,
                         bench::Variant variant, int batch, bench::Status status) {
    return benchtest::Outcome(category, plugin, benchmark).variant(variant).batch_size(batch).status(status);
}

RunRecord make_record() {
    RunRecord record = benchtest::record_of();
    record.finished_at = "2026-11-22T11:51:00Z";
    record.finished = true;
    record.hardware["cpu"]["model"] = "Test CPU <9000>";
    record.hardware["cpu"]["logical_cores"] = "2";
    record.hardware["memory"]["total_mib"] = "2048";
    record.hardware["gpu"]["available"] = "no";
    record.hardware["gpu"]["reason"] = "no GPU here";
    record.hardware["os"]["name"] = "Debian";
    record.hardware_warnings.push_back("the machine is loaded");

    const double base[] = {4.0, 7.0, 13.0};  // eager's median latency at batch 1, 2, 4 (ms)
    const double work[] = {1.0, 0.8, 0.6};  // the variants' share of eager's work
    const bench::Variant variants[] = {bench::Variant::eager, bench::Variant::compiled, bench::Variant::kernelized};
    const int batches[] = {1, 2, 4};
    for (int b = 0; b < 3; ++b) {
        for (int v = 0; v < 3; ++v) {
            auto o = scenario("performance", "toy", "toy", variants[v], batches[b], bench::Status::success);
            const double median = base[b] * work[v];
            o.result.series.push_back({"latency", "ms", samples_around(median, 20, 0.02), 1});
            std::vector<double> throughput;
            for (const double ms : o.result.series.back().samples) throughput.push_back(batches[b] * 1000 / ms);
            o.result.series.push_back({"throughput", "samples/s", throughput, 1});
            o.result.monitors["cpu_metrics"] = cpu_monitor(1.0 + b, 100 + 10 * b);
            bench::MonitorReport gpu;
            gpu.available = false;
            gpu.reason = "libnvidia-ml.so.1 not found";
            o.result.monitors["gpu_metrics"] = gpu;
            record.outcomes.push_back(o);
        }
    }
    // A GPU scenario of another benchmark, with power.
    auto gpu = scenario("performance", "toy", "gpu_toy", bench::Variant::eager, 1, bench::Status::success);
    gpu.result.series.push_back({"latency", "us", samples_around(850, 12, 0.05), 1});
    gpu.result.monitors["cpu_metrics"] = cpu_monitor(2, 50);
    bench::MonitorReport gpu_report;
    gpu_report.available = true;
    gpu_report.metrics["power"] = {200, 180, 220, 10, "W"};
    gpu_report.metrics["gpu_utilization"] = {80, 70, 90, 10, "%"};
    for (int i = 0; i < 10; ++i) {
        gpu_report.timeline.time_s.push_back(0.2 * i);
        gpu_report.timeline.series["power"].push_back(180 + 4 * i);
        gpu_report.timeline.series["gpu_utilization"].push_back(70 + i);
    }
    gpu.result.monitors["gpu_metrics"] = gpu_report;
    gpu.result.warnings.push_back("gpu throttled <hot>");
    record.outcomes.push_back(gpu);

    auto failed = scenario("integration", "broken", "broken", bench::Variant::eager, 1, bench::Status::failed);
    failed.result.reason = hostile_reason;
    failed.log_tail = "last line <b>bold</b>\n";
    record.outcomes.push_back(failed);

    auto skipped = scenario("unit", "ops", "matmul", bench::Variant::eager, 1, bench::Status::skipped);
    skipped.result.reason = "float16 is not supported on CPU";
    record.outcomes.push_back(skipped);
    return record;
}

// Every element closed in order, void elements aside; <style> content skipped. Returns
// the first problem, empty when the document is balanced.
std::string check_balanced(const std::string& html) {
    static const std::vector<std::string> void_elements = {"meta", "br", "wbr", "hr", "img", "input", "link"};
    std::vector<std::string> open;
    std::size_t at = 0;
    while ((at = html.find('<', at)) != std::string::npos) {
        if (html.compare(at, 4, "<!--") == 0) {
            at = html.find("-->", at);
            if (at == std::string::npos) return "unclosed comment";
            continue;
        }
        if (html.compare(at, 2, "<!") == 0) {  // doctype
            at = html.find('>', at);
            continue;
        }
        const auto end = html.find('>', at);
        if (end == std::string::npos) return "unterminated tag at " + std::to_string(at);
        const std::string tag = html.substr(at + 1, end - at - 1);
        if (tag.find('<') != std::string::npos) return "'<' inside a tag at " + std::to_string(at);
        const bool closing = tag.starts_with("/");
        std::string name = tag.substr(closing ? 1 : 0);
        name = name.substr(0, name.find_first_of(" \t\n/"));
        if (name.empty()) return "empty tag name at " + std::to_string(at);
        if (closing) {
            if (open.empty() || open.back() != name)
                return "</" + name + "> closes <" + (open.empty() ? "nothing" : open.back()) + "> at " +
                       std::to_string(at);
            open.pop_back();
        } else if (!tag.ends_with("/") &&
                   std::find(void_elements.begin(), void_elements.end(), name) == void_elements.end()) {
            open.push_back(name);
        }
        at = end + 1;
        if (!closing && name == "style") {
            at = html.find("</style>", at);
            if (at == std::string::npos) return "unclosed style";
        }
    }
    if (!open.empty()) return "<" + open.back() + "> is never closed";
    return "";
}

// The <svg ...>...</svg> element whose id starts with `prefix`.
std::string svg_with_id(const std::string& html, const std::string& prefix) {
    const auto at = html.find("id=\"" + prefix);
    if (at == std::string::npos) return "";
    const auto start = html.rfind("<svg", at);
    const auto end = html.find("</svg>", at);
    return html.substr(start, end + 6 - start);
}

// The values of attribute `name` of every <circle> inside the <g> whose data-series is `series`.
std::vector<double> series_values(const std::string& svg, const std::string& series, const std::string& name) {
    std::vector<double> out;
    const auto at = svg.find("data-series=\"" + series + "\"");
    if (at == std::string::npos) return out;
    const std::string group = svg.substr(at, svg.find("</g>", at) - at);
    const std::regex attribute("<circle[^>]* " + name + "=\"([^\"]+)\"");
    for (auto it = std::sregex_iterator(group.begin(), group.end(), attribute); it != std::sregex_iterator(); ++it)
        out.push_back(std::stod((*it)[1].str()));
    return out;
}

double median_of(const ScenarioOutcome& o) {
    return bench::analyze_series(o.result.series.front().samples).summary.median;
}

// ---- Markdown ------------------------------------------------------------------------

TEST(MarkdownReport, OpensWithTheSummaryThenATablePerCategoryThatRanThenTheSkipsAndTheRun) {
    const RunRecord record = make_record();
    const std::string md = benchhost::markdown_report(record);
    EXPECT_NE(md.find("# benchhost run 20261122_115000"), std::string::npos);
    EXPECT_NE(md.find("| Host | testhost |"), std::string::npos);
    EXPECT_NE(md.find("| Commit | `abc123` |"), std::string::npos);
    EXPECT_NE(md.find("Test CPU &lt;9000&gt; (2 logical cores)"), std::string::npos) << md;
    EXPECT_NE(md.find("- warning about the machine: the machine is loaded"), std::string::npos) << md;
    // The rate is over the scenarios that ran: the skip is not a failure.
    EXPECT_NE(md.find("12 scenarios: 10 succeeded, 1 failed (90.9% of those that ran), 1 skipped."), std::string::npos)
        << md;
    EXPECT_NE(md.find("[report.html](report.html)"), std::string::npos);

    // The summary first: the totals, the failure and the warnings, a row per benchmark that ran.
    const auto summary = md.find("## Summary"), integration = md.find("## integration"),
               performance = md.find("## performance"), skipped = md.find("## Skipped"), run = md.find("## How it ran");
    ASSERT_NE(summary, std::string::npos);
    ASSERT_NE(integration, std::string::npos);
    ASSERT_NE(performance, std::string::npos);
    EXPECT_LT(summary, integration);
    EXPECT_LT(integration, performance);
    EXPECT_LT(performance, skipped);
    EXPECT_LT(skipped, run);
    EXPECT_LT(run, md.find("| Host | testhost |"));  // the machine at the end
    EXPECT_NE(md.find("| Benchmark | Succeeded | Median (95% CI) | Of | Speedup over eager (95% CI) |"),
              std::string::npos);
    EXPECT_NE(md.find("| `performance/toy/toy` | 9 of 9 | "), std::string::npos) << md;
    EXPECT_NE(md.find("| `integration/broken/broken` | 0 of 1, 1 failed | - | - | - |"), std::string::npos) << md;
    // unit/ops/matmul only skipped: no unit section and no overview row, a line under Skipped.
    EXPECT_EQ(md.find("## unit"), std::string::npos);
    EXPECT_EQ(md.find("| `unit/ops/matmul`"), std::string::npos);
    EXPECT_NE(md.find("## Skipped\n\n- float16 is not supported on CPU (1 scenario: `ops/matmul"), std::string::npos)
        << md;
    // A table per benchmark that ran: toy varies in variant and batch size, the others are
    // one scenario each, their axes in their headings.
    EXPECT_EQ(count(md, " Status | Median (95% CI) | p95 | CV | Throughput | Speedup over eager (95% CI) | Note |\n"),
              3u);
    EXPECT_EQ(count(md, "| variant | batch_size | Status | Median (95% CI) |"), 1u);
    EXPECT_NE(md.find("### `performance/toy/toy`\n"), std::string::npos) << md;
    EXPECT_NE(md.find("### `performance/toy/gpu_toy` (variant=eager, batch_size=1)\n"), std::string::npos) << md;
}

TEST(MarkdownReport, AxesWithOneValueInTheRunAreSaidOnce) {
    RunRecord record = benchtest::record_of();
    for (const auto variant : {bench::Variant::eager, bench::Variant::compiled})
        record.outcomes.push_back(benchtest::Outcome("performance", "p", "b")
                                      .variant(variant)
                                      .axis("dtype", "float32")
                                      .series("latency", "ms", {1, 2, 3}));
    const std::string md = benchhost::markdown_report(record);
    EXPECT_NE(md.find("Axes with one value in this run: dtype=float32.\n"), std::string::npos) << md;
    EXPECT_NE(md.find("### `performance/p/b`\n\n| variant | Status |"), std::string::npos) << md;
    EXPECT_NE(md.find("| eager | success |"), std::string::npos) << md;
    const std::string html = benchhost::html_report(record);
    EXPECT_NE(html.find("Axes with one value in this run: dtype=float32.</p>"), std::string::npos);
    EXPECT_NE(html.find("<thead><tr><th>variant</th><th>Status</th>"), std::string::npos);
    EXPECT_NE(html.find("<td class=\"axis\">compiled</td><td><span class=\"status success\">"), std::string::npos);
}

TEST(MarkdownReport, SettingsSayHowTheRunRanAndHowToRunItAgain) {
    RunRecord record = make_record();
    record.run_config = {{"command_line", "benchhost run --include 'toy*' --rounds 2"},
                         {"working_directory", "/home/me/bench"},
                         {"include", "toy*"},
                         {"exclude", ""},
                         {"isolation", "process"},
                         {"timeout_s", "600"},
                         {"rounds", "2"},
                         {"warmup_iterations", "3"},
                         {"axes.seq_len", "128,512"},
                         {"plugins.toy.params.size", "64"},
                         {"plugins.toy.warmup_iterations", "1"}};
    for (ScenarioOutcome& o : record.outcomes) o.config.measurement_iterations = 20;
    record.outcomes.back().config.min_time_s = 0.5;  // unit/ops/matmul: a time rule
    const std::string md = benchhost::markdown_report(record);
    const auto settings = md.find("### Settings\n");
    ASSERT_NE(settings, std::string::npos) << md;
    EXPECT_GT(settings, md.find("## How it ran"));
    EXPECT_NE(md.find("| Sampling | 3 warmup, 20 samples (performance/toy/toy, performance/toy/gpu_toy, "
                      "integration/broken/broken); 3 warmup, at least 20 samples, at least 0.5 s (unit/ops/matmul) |"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("| Include | toy\\* |"), std::string::npos) << md;
    EXPECT_NE(md.find("| Exclude | none |"), std::string::npos);
    EXPECT_NE(md.find("| Isolation | process |"), std::string::npos);
    EXPECT_NE(md.find("| Timeout per scenario (s; 0: none) | 600 |"), std::string::npos);
    EXPECT_NE(md.find("| Rounds | 2 |"), std::string::npos);
    EXPECT_NE(md.find("| Values of seq_len | 128,512 |"), std::string::npos) << md;
    EXPECT_NE(md.find("| Plugin toy: Parameter size | 64 |"), std::string::npos) << md;
    EXPECT_EQ(md.find("warmup_iterations"), std::string::npos);  // said by the sampling
    EXPECT_NE(
        md.find("The command line, in `/home/me/bench`:\n\n```sh\nbenchhost run --include 'toy*' --rounds 2\n```\n"),
        std::string::npos)
        << md;
    const std::string html = benchhost::html_report(record);
    EXPECT_NE(html.find("<pre class=\"command\"><code>benchhost run --include &#39;toy*&#39; --rounds 2</code></pre>"),
              std::string::npos);
    EXPECT_NE(html.find("<th scope=\"row\">Isolation</th><td>process</td>"), std::string::npos);

    record.run_config.clear();  // a run folder written before runs recorded their command line
    EXPECT_NE(benchhost::markdown_report(record).find("The run did not record its command line."), std::string::npos);
}

// The row of `o` in report.md: in the table under its benchmark's heading, the row that
// starts with its variant and batch size (toy), or the only row (the others).
std::string md_row(const std::string& md, const ScenarioOutcome& o) {
    const auto heading = md.find("### `" + o.config.benchmark_id() + "`");
    if (heading == std::string::npos) return "";
    const auto end = md.find("\n\n", md.find("|---", heading));
    const std::string table = md.substr(heading, end - heading);
    const std::string start = o.config.benchmark == "toy" ? "\n| " + std::string(bench::to_string(o.config.variant)) +
                                                                " | " + std::to_string(o.config.batch_size) + " | "
                                                          : "|\n| ";
    const auto at = table.find(start);
    if (at == std::string::npos) return "";
    const auto row_start = table.find("| ", at);
    return table.substr(row_start, table.find('\n', row_start) - row_start);
}

TEST(MarkdownReport, EachRowHasTheMedianWithItsCiAndTheSpeedupWithItsCi) {
    const RunRecord record = make_record();
    const std::string md = benchhost::markdown_report(record);
    for (const ScenarioOutcome& o : record.outcomes) {
        const std::string row = md_row(md, o);
        if (o.result.status == bench::Status::skipped) {  // listed under Skipped, no row
            EXPECT_TRUE(row.empty()) << row;
            continue;
        }
        ASSERT_FALSE(row.empty()) << o.config.scenario_id() << "\n" << md;
        // 7 cells, and the variant and batch size for toy: no pipe from the text leaks.
        EXPECT_EQ(count(row, " | "), o.config.benchmark == "toy" ? 8u : 6u) << row;
        if (o.result.status != bench::Status::success) continue;
        const bench::Series& latency = o.result.series.front();
        const bench::SeriesAnalysis a = bench::analyze_series(latency.samples);
        ASSERT_TRUE(a.median_ci.valid());
        EXPECT_NE(row.find(benchhost::figure_with_interval(a.summary.median, a.median_ci, latency.unit)),
                  std::string::npos)
            << row;
        const auto speedups = benchhost::speedups_over_eager(record, o);
        if (o.config.variant == bench::Variant::eager) {
            EXPECT_TRUE(speedups.empty());
        } else {
            ASSERT_EQ(speedups.size(), 1u);
            EXPECT_NE(row.find(benchhost::speedup_text(speedups.front())), std::string::npos) << row;
            EXPECT_NE(row.find("x ["), std::string::npos) << row;
        }
    }
    // The kernelized variant does 0.6 of eager's work: its speedup reads about 1.67x.
    EXPECT_NE(md.find("| 1.67x ["), std::string::npos) << md;
}

TEST(MarkdownReport, ReasonsAreListedAndEscaped) {
    const std::string md = benchhost::markdown_report(make_record());
    EXPECT_EQ(md.find("<script"), std::string::npos);
    EXPECT_NE(md.find("bad input &lt;script&gt;alert('x')&lt;/script&gt; &amp; more \\| piped second line"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("- **failed** `broken [variant=eager, batch_size=1]`: bad input &lt;script&gt;"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("- float16 is not supported on CPU (1 scenario: `ops/matmul"), std::string::npos) << md;
    EXPECT_NE(md.find("| **failed** |"), std::string::npos);
    EXPECT_NE(md.find("gpu throttled &lt;hot&gt;"), std::string::npos);
}

TEST(MarkdownReport, AScenarioThatFailedShowsNoFiguresOfWhatItRecordedBeforeIt) {
    // A plugin failed after one sample of two series: no median, p95, CV or throughput
    // of it, in report.md or report.html (the plugin JSON keeps the samples).
    RunRecord record = benchtest::record_of();
    auto failed = scenario("unit", "half", "half", bench::Variant::eager, 1, bench::Status::failed);
    failed.result.reason = "raised RuntimeError: broke";
    failed.result.series.push_back({"latency", "ms", {3.25}, 1});
    failed.result.series.push_back({"throughput", "items/s", {307.7}, 1});
    record.outcomes.push_back(failed);
    const std::string md = benchhost::markdown_report(record);
    EXPECT_NE(md.find("| **failed** | - | - | - | - | - | raised RuntimeError: broke |"), std::string::npos) << md;
    EXPECT_EQ(md.find("3.25"), std::string::npos) << md;
    EXPECT_EQ(md.find("308"), std::string::npos) << md;
    const std::string html = benchhost::html_report(record);
    EXPECT_EQ(html.find("3.25 ms"), std::string::npos);
    EXPECT_EQ(html.find("308 items/s"), std::string::npos);
}

TEST(MarkdownReport, EverySeriesAScenarioRecordedIsShownByItsMedian) {
    // A plain Python function's returned figures are series of their own names: each is in
    // a column of the other series, in report.md and report.html, all of them.
    RunRecord record = benchtest::record_of();
    auto plain = scenario("unit", "plain_py", "plain", bench::Variant::eager, 1, bench::Status::success);
    plain.result.series.push_back({"benchhost.call_time", "ms", {12.5, 12.4, 12.6}, 1});
    plain.result.series.push_back({"execution_time", "s", {0.0125, 0.0121, 0.0123}, 1});
    plain.result.series.push_back({"throughput", "", {812, 812, 812}, 1});
    plain.result.series.push_back({"nested.a", "", {1, 1, 1}, 1});
    for (const char* name : {"b", "c", "d"}) plain.result.series.push_back({name, "", {4, 4}, 1});
    record.outcomes.push_back(plain);
    // A benchmark with no other series has no such column.
    auto alone = scenario("unit", "alone", "alone", bench::Variant::eager, 1, bench::Status::success);
    alone.result.series.push_back({"latency", "ms", {2, 2}, 1});
    record.outcomes.push_back(alone);

    const std::string md = benchhost::markdown_report(record);
    EXPECT_NE(md.find("| Speedup over eager (95% CI) | Other series (median) | Note |\n"
                      "|---|--:|--:|--:|--:|--:|---|---|\n"
                      "| success | 12.5 ms [12.4, 12.6] (benchhost.call_time) | 12.6 ms | 0.8% | 812 | - | "
                      "execution_time 12.3 ms, nested.a 1.00, b 4.00, c 4.00, d 4.00 |  |\n"),
              std::string::npos)
        << md;
    const std::size_t alone_table = md.find("### `unit/alone/alone`");
    ASSERT_NE(alone_table, std::string::npos) << md;
    EXPECT_EQ(md.find("Other series", alone_table), std::string::npos) << md;

    const std::string html = benchhost::html_report(record);
    EXPECT_EQ(count(html, "<th>Other series (median)</th>"), 1u);
    EXPECT_NE(html.find("<td><span class=\"sp\">execution_time 12.3 ms</span><span class=\"sp\">nested.a "
                        "1.00</span><span class=\"sp\">b 4.00</span><span class=\"sp\">c 4.00</span><span "
                        "class=\"sp\">d 4.00</span></td>"),
              std::string::npos);
}

// ---- HTML ----------------------------------------------------------------------------

TEST(HtmlReport, IsBalancedSelfContainedAndEscaped) {
    const std::string html = benchhost::html_report(make_record());
    EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
    EXPECT_EQ(check_balanced(html), "");
    // Nothing from the network; one script of its own (sorting and filtering), inline.
    for (const char* external : {"http://", "https://", "src=", "@import", "url(", "<link"})
        EXPECT_EQ(html.find(external), std::string::npos) << external;
    EXPECT_EQ(count(html, "<script"), 1u);
    EXPECT_NE(html.find("<script>\n(function(){"), std::string::npos);
    EXPECT_NE(html.find("bad input &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more | piped"),
              std::string::npos);
    EXPECT_NE(html.find("last line &lt;b&gt;bold&lt;/b&gt;"), std::string::npos);
    EXPECT_NE(html.find("Test CPU &lt;9000&gt;"), std::string::npos);
    EXPECT_EQ(html.find("<hot>"), std::string::npos);
    EXPECT_EQ(html.find("nan"), std::string::npos);  // no NaN coordinate anywhere
    EXPECT_EQ(html.find("inf\""), std::string::npos);
}

TEST(HtmlReport, HasOneAccessibleSvgPerExpectedChart) {
    const std::string html = benchhost::html_report(make_record());
    // Latency and throughput against batch size (toy: 3 batch sizes), the speedups, a
    // distribution per benchmark of two scenarios or more (toy; not gpu_toy, one),
    // monitors: utilization and memory of each of the 10 successful scenarios, and
    // gpu_toy's power.
    const std::size_t expected = 2 + 1 + 1 + 10 * 2 + 1;
    EXPECT_EQ(count(html, "<svg "), expected);
    EXPECT_EQ(count(html, "role=\"img\""), expected);
    EXPECT_EQ(count(html, "<desc id="), expected);
    EXPECT_EQ(count(html, "</svg>"), expected);
    EXPECT_EQ(count(html, "<svg class=\"chart xy\""), 2u + 21u);
    EXPECT_EQ(count(html, "<svg class=\"chart intervals\""), 1u);
    EXPECT_EQ(count(html, "<svg class=\"chart distribution\""), 1u);
    // Each svg names its title and desc, which exist.
    const std::regex labelled("aria-labelledby=\"([^\" ]+) ([^\"]+)\"");
    for (auto it = std::sregex_iterator(html.begin(), html.end(), labelled); it != std::sregex_iterator(); ++it) {
        EXPECT_NE(html.find("<title id=\"" + (*it)[1].str() + "\">"), std::string::npos);
        EXPECT_NE(html.find("<desc id=\"" + (*it)[2].str() + "\">"), std::string::npos);
    }
    // The GPU monitor that was not available is said once, with its reason.
    EXPECT_NE(html.find("gpu_metrics: libnvidia-ml.so.1 not found (9 scenarios)"), std::string::npos);
}

TEST(HtmlReport, LatencyAgainstBatchSizeHasALinePerVariantWithItsMedians) {
    const RunRecord record = make_record();
    const std::string html = benchhost::html_report(record);
    const std::string svg = svg_with_id(html, "latency-");
    ASSERT_FALSE(svg.empty());
    EXPECT_NE(svg.find("toy: latency against batch size"), std::string::npos);
    std::map<std::string, std::vector<double>> medians;  // variant -> median per batch size 1, 2, 4
    for (const ScenarioOutcome& o : record.outcomes)
        if (o.config.benchmark == "toy")
            medians[std::string(bench::to_string(o.config.variant))].push_back(median_of(o));
    for (const auto& [variant, expected] : medians) {
        const std::vector<double> x = series_values(svg, variant, "data-x");
        const std::vector<double> y = series_values(svg, variant, "data-y");
        const std::vector<double> cy = series_values(svg, variant, "cy");
        EXPECT_EQ(x, (std::vector<double>{1, 2, 4})) << variant;
        ASSERT_EQ(y.size(), 3u) << variant;
        for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(y[i], expected[i], 1e-4 * expected[i]) << variant;
        // Slower is higher up: a smaller cy.
        EXPECT_GT(cy[0], cy[1]) << variant;
        EXPECT_GT(cy[1], cy[2]) << variant;
        EXPECT_EQ(count(svg, "data-series=\"" + variant + "\""), 1u);
    }
    // At the same batch size, eager is above compiled, above kernelized.
    const auto eager = series_values(svg, "eager", "cy"), kernelized = series_values(svg, "kernelized", "cy");
    for (std::size_t i = 0; i < 3; ++i) EXPECT_LT(eager[i], kernelized[i]);
    // One line per variant, and error bars for the CIs.
    EXPECT_EQ(count(svg, "<path class=\"line c"), 3u + 3u);  // the lines and the legend's swatches
    EXPECT_EQ(count(svg, "<path class=\"err"), 9u);

    const std::string throughput = svg_with_id(html, "throughput-");
    ASSERT_FALSE(throughput.empty());
    EXPECT_EQ(series_values(throughput, "kernelized", "data-x"), (std::vector<double>{1, 2, 4}));
    const auto t = series_values(throughput, "kernelized", "data-y");
    ASSERT_EQ(t.size(), 3u);
    EXPECT_LT(t[0], t[2]);  // more samples/s at batch 4
}

TEST(HtmlReport, SpeedupsHaveTheirIntervalsAndTheReferenceLine) {
    const RunRecord record = make_record();
    const std::string svg = svg_with_id(benchhost::html_report(record), "speedups-");
    ASSERT_FALSE(svg.empty());
    std::vector<double> expected;
    for (const ScenarioOutcome& o : record.outcomes)
        for (const auto& s : benchhost::speedups_over_eager(record, o)) expected.push_back(s.value);
    ASSERT_EQ(expected.size(), 6u);
    const std::regex mark(
        "<circle class=\"pt (c[0-9])\"[^>]* data-x=\"([^\"]+)\" data-low=\"([^\"]+)\" data-high=\"([^\"]+)\"");
    std::vector<double> values;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), mark); it != std::sregex_iterator(); ++it) {
        const double value = std::stod((*it)[2].str()), low = std::stod((*it)[3].str()),
                     high = std::stod((*it)[4].str());
        values.push_back(value);
        EXPECT_LE(low, value);
        EXPECT_GE(high, value);
        EXPECT_TRUE((*it)[1].str() == "c1" || (*it)[1].str() == "c2");  // compiled, kernelized
    }
    ASSERT_EQ(values.size(), expected.size());
    for (std::size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(values[i], expected[i], 1e-4);
    EXPECT_EQ(count(svg, "<path class=\"ref\" d=\"M"), 2u);  // the line at 1x, and its legend swatch
    EXPECT_EQ(count(svg, "<g class=\"row\">"), 3u);  // toy at batch 1, 2, 4
}

TEST(HtmlReport, DistributionsShowEverySampleOfEachScenario) {
    const RunRecord record = make_record();
    const std::string svg = svg_with_id(benchhost::html_report(record), "distribution-performance-toy-toy");
    ASSERT_FALSE(svg.empty());
    EXPECT_EQ(count(svg, "<g class=\"dist"), 9u);
    EXPECT_EQ(count(svg, "data-n=\"20\""), 9u);
    EXPECT_EQ(count(svg, "<circle class=\"dot"), 9u * 20u);
    EXPECT_EQ(count(svg, "<rect class=\"box"), 9u);
    // The gpu_toy benchmark has one scenario: nothing to compare, no chart.
    EXPECT_TRUE(svg_with_id(benchhost::html_report(record), "distribution-performance-toy-gpu-toy").empty());
}

TEST(HtmlReport, ALongSeriesIsDrawnAsItsOrderStatistics) {
    RunRecord record = benchtest::record_of();
    for (const auto variant : {bench::Variant::eager, bench::Variant::compiled}) {
        std::vector<double> samples;
        for (int i = 0; i < 5000; ++i) samples.push_back(1 + (i * 7919 % 5000) / 5000.0);  // 1 to 2, shuffled
        record.outcomes.push_back(
            benchtest::Outcome("performance", "p", "b").variant(variant).series("latency", "ms", samples));
    }
    const std::string svg = svg_with_id(benchhost::html_report(record), "distribution-performance-p-b");
    ASSERT_FALSE(svg.empty());
    EXPECT_EQ(count(svg, "<circle class=\"dot"), 2u * 200u);  // 200 a row, not 5000
    EXPECT_EQ(count(svg, "data-n=\"200\""), 2u);
    const std::vector<double> x = series_values(svg, "eager", "data-x");
    (void)x;
}

TEST(HtmlReport, MonitorTimelinesAreDrawnWithTheMeasurementWindows) {
    const std::string html = benchhost::html_report(make_record());
    const std::string svg = svg_with_id(html, "monitor-toy-variant-eager-batch-size-1-");
    ASSERT_FALSE(svg.empty());
    EXPECT_NE(svg.find("Utilization (%)"), std::string::npos);
    EXPECT_NE(svg.find("data-series=\"worker CPU\""), std::string::npos);
    EXPECT_NE(svg.find("data-series=\"all CPUs\""), std::string::npos);
    // The first CPU sample is NaN: the line starts at the second.
    const auto at = svg.find("data-series=\"worker CPU\"");
    const std::string line = svg.substr(at, svg.find("</g>", at) - at);
    EXPECT_EQ(count(line, "L"), 9u);  // 10 finite points: M then 9 L
    EXPECT_EQ(count(svg, "<rect class=\"band\" x="), 2u);  // the measurement window, and its legend swatch
    EXPECT_NE(html.find("GPU power (W)"), std::string::npos);
}

TEST(HtmlReport, HasOnlyTheSectionsTheRunHasAndLinksOnlyToThem) {
    RunRecord record;
    record.timestamp = "20261122_115000";
    std::string html = benchhost::html_report(record);
    EXPECT_EQ(check_balanced(html), "");
    EXPECT_EQ(count(html, "<svg"), 0u);
    EXPECT_EQ(count(html, "<section id="), 2u);  // the summary and how it ran
    EXPECT_NE(html.find("<nav aria-label=\"Contents\"><ul><li><a href=\"#summary\">Summary</a></li><li><a "
                        "href=\"#run\">How it ran</a></li></ul></nav>"),
              std::string::npos);
    EXPECT_NE(benchhost::markdown_report(record).find("0 scenarios: 0 succeeded"), std::string::npos);

    // One scenario with one sample and no monitor: its table, and nothing to compare.
    auto o = scenario("performance", "one", "one", bench::Variant::eager, 1, bench::Status::success);
    o.result.series.push_back({"latency", "ms", {2.5}, 1});
    record.outcomes.push_back(o);
    html = benchhost::html_report(record);
    EXPECT_EQ(check_balanced(html), "");
    EXPECT_EQ(count(html, "<svg "), 0u);
    for (const char* absent : {"batch-sizes", "speedups", "distributions", "monitors", "skipped"}) {
        EXPECT_EQ(html.find("id=\"" + std::string(absent) + "\""), std::string::npos) << absent;
        EXPECT_EQ(html.find("href=\"#" + std::string(absent) + "\""), std::string::npos) << absent;
    }
    EXPECT_NE(html.find("<li><a href=\"#category-performance\">performance</a></li>"), std::string::npos);
    EXPECT_NE(html.find("<section id=\"category-performance\">"), std::string::npos);
    EXPECT_NE(html.find("2.50 ms"), std::string::npos);
}

TEST(HtmlReport, WithABaselineTheSummaryHasTheVerdictsAndEachChangeInALine) {
    RunRecord base = benchtest::record_of(), next = benchtest::record_of();
    for (const auto& [record, slow_ms] : {std::pair{&base, 10.0}, std::pair{&next, 14.0}}) {
        record->outcomes.push_back(benchtest::Outcome("performance", "p", "slow")
                                       .variant(bench::Variant::eager)
                                       .series("latency", "ms", benchtest::jittered_samples(slow_ms, 30, 1)));
        record->outcomes.push_back(benchtest::Outcome("performance", "p", "steady")
                                       .variant(bench::Variant::eager)
                                       .series("latency", "ms", benchtest::jittered_samples(5, 30, 2)));
    }
    next.run_config["baseline"] = "/runs/base";
    benchhost::Comparison comparison = benchhost::compare_runs(base, next);
    comparison.base_label = "/runs/base";
    ASSERT_EQ(comparison.count(benchhost::Verdict::slower), 1u);
    const std::string html = benchhost::html_report(next, &comparison);
    const auto baseline = html.find("<h3 id=\"baseline\">Against the baseline</h3>");
    ASSERT_NE(baseline, std::string::npos) << html;
    EXPECT_LT(baseline, html.find("<h3 id=\"overview\">"));
    EXPECT_NE(html.find("<div><b class=\"status bad\">1</b>slower</div>"), std::string::npos);
    EXPECT_NE(html.find("<li><span class=\"status bad\">slower</span> <code>performance/p/slow[variant=eager]</code>: "
                        "latency 9.97 ms -&gt; 14.0 ms, +40.0%, ratio 95% CI ["),
              std::string::npos)
        << html;
    EXPECT_EQ(html.find("<code>performance/p/steady[variant=eager]</code>: latency"), std::string::npos);
    const std::string md = benchhost::markdown_report(next, &comparison);
    EXPECT_NE(md.find("**Against the baseline** (/runs/base): 1 slower, 0 faster, 1 same, 0 inconclusive"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("- **slower** `performance/p/slow[variant=eager]`: latency 9.97 ms -&gt; 14.0 ms, +40.0%"),
              std::string::npos)
        << md;
    // Written again from the run folder, without the comparison: where the verdicts are.
    EXPECT_NE(benchhost::html_report(next).find("Compared with the baseline <code>/runs/base</code> when it ran: the "
                                                "verdicts are in <a href=\"comparison.md\">comparison.md</a>."),
              std::string::npos);
}

TEST(HtmlReport, WriteRenderedReportsWritesBothFiles) {
    TempDir dir;
    const RunRecord record = make_record();
    benchhost::write_rendered_reports(record, dir / "new" / "folder");
    EXPECT_EQ(read_file(dir / "new/folder/report.md"), benchhost::markdown_report(record));
    EXPECT_EQ(read_file(dir / "new/folder/report.html"), benchhost::html_report(record));
}

// ---- the charts ----------------------------------------------------------------------

TEST(SvgChart, EscapesTextForHtml) {
    EXPECT_EQ(benchhost::svg::escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
    EXPECT_EQ(benchhost::svg::escape(std::string("x\x01y\xff", 4)), "xy\xEF\xBF\xBD");
}

/// An XY chart of one point, (3, 7).
benchhost::svg::XYChart one_point_chart(const std::string& id, const std::string& title) {
    benchhost::svg::XYChart chart;
    chart.id = id;
    chart.title = title;
    chart.series.push_back({"only", 0, {{3, 7, NAN, NAN, ""}}, true, true});
    return chart;
}

TEST(SvgChart, OnePointIsDrawnAndNoPointSaysNoData) {
    namespace svg = benchhost::svg;
    svg::XYChart chart = one_point_chart("one", "One <point>");
    const std::string one = svg::xy_chart(chart);
    EXPECT_EQ(count(one, "<circle"), 1u + 1u);  // the point and the legend swatch
    EXPECT_NE(one.find("data-x=\"3\" data-y=\"7\""), std::string::npos);
    EXPECT_NE(one.find("<title id=\"one-title\">One &lt;point&gt;</title>"), std::string::npos);
    EXPECT_EQ(one.find("nan"), std::string::npos);
    EXPECT_EQ(check_balanced(one), "");

    chart.series.front().points.front().y = NAN;
    const std::string none = svg::xy_chart(chart);
    EXPECT_EQ(none.find("<svg"), std::string::npos);
    EXPECT_NE(none.find("no data"), std::string::npos);
}

TEST(SvgChart, ATitleTooLongForOneLineTakesTwo) {
    namespace svg = benchhost::svg;
    svg::XYChart chart = one_point_chart(
        "long", "latency of performance/gpt2/generate[variant=eager,batch_size=1,dtype=float32,device=cpu,threads=0]");
    const std::string two = svg::xy_chart(chart);
    // Broken before the axes, each line whole, the second line lower.
    EXPECT_EQ(count(two, "class=\"chart-title\""), 2u) << two;
    EXPECT_NE(
        two.find("y=\"20\" class=\"chart-title\" text-anchor=\"middle\">latency of performance/gpt2/generate</text>"),
        std::string::npos)
        << two;
    EXPECT_NE(two.find("y=\"37\" class=\"chart-title\" text-anchor=\"middle\">"
                       "[variant=eager,batch_size=1,dtype=float32,device=cpu,threads=0]</text>"),
              std::string::npos)
        << two;
    EXPECT_EQ(check_balanced(two), "");

    chart.title = "latency against batch size";
    const std::string one = svg::xy_chart(chart);
    EXPECT_EQ(count(one, "class=\"chart-title\""), 1u);
    EXPECT_NE(one.find(">latency against batch size</text>"), std::string::npos);
}

TEST(SvgChart, WideRangesGetLogAxesWithDecadeTicks) {
    namespace svg = benchhost::svg;
    EXPECT_EQ(svg::scale_for(1, 4), svg::Scale::linear);
    EXPECT_EQ(svg::scale_for(1, 64), svg::Scale::log);
    EXPECT_EQ(svg::scale_for(0, 64), svg::Scale::linear);  // log needs positive values
    const auto ticks = svg::ticks_for({"", svg::Scale::log, {}, false}, 0.5, 2000);
    EXPECT_NE(std::find(ticks.begin(), ticks.end(), 1.0), ticks.end());
    EXPECT_NE(std::find(ticks.begin(), ticks.end(), 1000.0), ticks.end());
    const auto linear = svg::ticks_for({"", svg::Scale::linear, {}, true}, 3, 9.5);
    EXPECT_EQ(linear.front(), 0);
    EXPECT_GE(linear.back(), 9.5);
    EXPECT_EQ(svg::tick_label(0.30000000000000004), "0.3");
    EXPECT_EQ(svg::tick_label(12000), "12k");
}

// A scenario of --find-peak: its search as a table in report.md, and in report.html as
// a chart of each bounded metric and of the goodput against the rate, with the table.
RunRecord peak_record() {
    bench::PeakSearch search;
    search.percentile = 99;
    search.precision = 0.25;
    search.peak_qps = 400;
    search.end = bench::peak_end_precision;
    const auto step = [](const char* phase, double rate, bool passed, double p99, long long queries) {
        return bench::PeakStep{phase,
                               rate,
                               rate * 0.99,
                               queries,
                               200,
                               passed ? 100.0 : 40.0,
                               0,
                               passed,
                               queries < 200 ? "3 of 12 queries over the latency bound" : "",
                               {{"latency", 20, p99 / 4, p99}}};
    };
    search.steps = {step("coarse", 200, true, 6, 200), step("coarse", 400, true, 15, 200),
                    step("coarse", 800, false, INFINITY, 12), step("binary", 600, false, 45, 12),
                    step("binary", 500, false, 30, 12)};
    ScenarioOutcome server = benchtest::Outcome("performance", "mock_server", "mock_server")
                                 .series("latency", "ms", {1, 2, 3})
                                 .edit([&](ScenarioOutcome& o) {
                                     o.config.load.mode = bench::LoadMode::server;
                                     o.config.load.find_peak = true;
                                     o.config.load.slos = {{"latency", 20}};
                                     o.result.peak_search = search;
                                 });
    return benchtest::record_of({server});
}

TEST(PeakSearchReport, MarkdownHasTheRatesInTheOrderTriedAndThePeak) {
    const std::string md = benchhost::markdown_report(peak_record());
    EXPECT_NE(md.find("## Peak search\n\n### `performance/mock_server/mock_server`\n\np99 of latency &lt;= 20.0 ms; "
                      "the rates in the order tried.\n\n"
                      "| # | RATE | ACHIEVED | LATENCY P50 | LATENCY P99 | GOODPUT | LATE | QUERIES | RESULT |\n"
                      "|--:|--:|--:|--:|--:|--:|--:|--:|---|\n"
                      "| 1 | 200/s | 198/s | 1.50 ms | 6.00 ms | 100% | 0 | 200 | pass |\n"
                      "| 2 | 400/s | 396/s | 3.75 ms | 15.0 ms | 100% | 0 | 200 | pass, peak |\n"
                      "| 3 | 800/s | 792/s | - | - | 40.0% | 0 | 12/200 | fail |\n"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("peak 400/s: the highest rate that passed; the lowest that failed, 500/s, is within 25%.\n"),
              std::string::npos)
        << md;
}

TEST(PeakSearchReport, HtmlDrawsEachMetricAndTheGoodputAgainstTheRateWithThePeakMarked) {
    const std::string html = benchhost::html_report(peak_record());
    EXPECT_EQ(check_balanced(html), "");
    EXPECT_NE(html.find("<a href=\"#peak-search\">Peak search</a>"), std::string::npos);
    EXPECT_NE(html.find("<section id=\"peak-search\">"), std::string::npos);
    const std::string latency = svg_with_id(html, "peak-performance-mock-server-mock-server-latency-");
    ASSERT_FALSE(latency.empty());
    // The points in order of the rate; 800/s had no finite p99 (a query without its
    // metric): no point there.
    EXPECT_EQ(series_values(latency, "p99", "data-x"), (std::vector<double>{200, 400, 500, 600}));
    EXPECT_EQ(series_values(latency, "p99", "data-y"), (std::vector<double>{6, 15, 30, 45}));
    EXPECT_EQ(series_values(latency, "p50", "data-x").size(), 4u);
    EXPECT_NE(latency.find("bound 20.0 ms"), std::string::npos);
    EXPECT_NE(latency.find("400/s (achieved 396/s): p99 15.0 ms, pass"), std::string::npos);
    EXPECT_NE(latency.find("600/s (achieved 594/s): p99 45.0 ms, fail (12 of 200 queries)"), std::string::npos);
    EXPECT_NE(latency.find("peak 400/s: the highest rate that passed"), std::string::npos);
    const std::string goodput = svg_with_id(html, "peak-performance-mock-server-mock-server-goodput-");
    EXPECT_EQ(series_values(goodput, "goodput", "data-y"), (std::vector<double>{100, 100, 40, 40, 40}));
    EXPECT_EQ(html.find("nan"), std::string::npos);
    EXPECT_EQ(html.find("inf\""), std::string::npos);
    EXPECT_NE(html.find("<td>pass, peak</td>"), std::string::npos);
}

}  // namespace
