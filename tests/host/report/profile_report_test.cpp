// "Where the time goes" in report.html and report.md (report/profile_sections.hpp), the
// flame graph (svg::flame_graph) and the Chrome trace (report/files/profile_trace_reporter.hpp), from a
// record with an eager and a kernelized profile.
#include "report/profile_sections.hpp"

#include <map>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "../../support/builders.hpp"
#include "../../support/chromium.hpp"
#include "../../support/profile_sample.hpp"
#include "../../support/test_support.hpp"
#include "report/files/profile_trace_reporter.hpp"
#include "report/html/svg_chart.hpp"
#include "report/rendered_reports.hpp"

namespace {

using namespace benchhost;
using benchtest::count;

RunRecord profiled_record() {
    std::vector<ScenarioOutcome> outcomes;
    for (const bool kernelized : {false, true}) {
        ScenarioOutcome o = benchtest::Outcome("performance", "resnet50", "resnet50")
                                .variant(kernelized ? bench::Variant::kernelized : bench::Variant::eager)
                                .batch_size(1)
                                .series("latency", "ms", benchtest::jittered_samples(kernelized ? 5.0 : 10.0, 12, 3));
        o.config.profile = true;
        o.result.profile = benchtest::sample_profile(kernelized);
        outcomes.push_back(o);
    }
    // A scenario without a profile has no part in the section.
    outcomes.push_back(benchtest::Outcome("performance", "other", "other").series("latency", "ms", {1, 2, 3}));
    return benchtest::record_of(outcomes);
}

TEST(ProfileReport, TheHtmlHasTheTablesTheComparisonWithEagerAndTheFlameGraphs) {
    const std::string html = html_report(profiled_record());
    const auto section = html.find("<section id=\"profiles\"><h2>Where the time goes</h2>");
    ASSERT_NE(section, std::string::npos);
    EXPECT_NE(html.find("<a href=\"#profiles\">Where the time goes</a>"), std::string::npos);
    const std::string part = html.substr(section);
    EXPECT_EQ(count(part, "<h3 id=\"profile-"), 2u);
    EXPECT_EQ(count(part, "<table class=\"operators\""), 2u);
    EXPECT_EQ(count(part, "<table class=\"modules\""), 2u);
    // Kernelized beside eager: its prepacked convolution is new, eager's convolution and
    // batch norm are gone.
    ASSERT_EQ(count(part, "<table class=\"operators-beside-eager\""), 1u);
    EXPECT_NE(part.find("<tr data-change=\"new\"><td><code>mkldnn_prepacked::conv2d_run</code>"), std::string::npos);
    EXPECT_NE(part.find("<tr data-change=\"removed\"><td><code>aten::native_batch_norm</code>"), std::string::npos);
    EXPECT_NE(part.find("<tr data-change=\"kept\"><td><code>aten::add_</code>"), std::string::npos);
    EXPECT_NE(part.find("3 of eager's are gone (removed or fused into others), 1 are new"), std::string::npos)
        << part.substr(part.find("profile-2"), 3000);
    // The overhead and the sum of the self times against the measured median.
    EXPECT_NE(part.find("12.5 ms / 10.0 ms: the profiler&#39;s overhead 1.25x"), std::string::npos);
    EXPECT_NE(part.find("<td class=\"num\" data-self-ms=\"6.000000\">6.00 ms</td>"), std::string::npos);
    EXPECT_NE(part.find("of the measured median latency"), std::string::npos);
    // Text from the profile is escaped.
    EXPECT_NE(part.find("&lt;weird&gt; &amp; &quot;shapes&quot;"), std::string::npos);
    EXPECT_EQ(part.find("<weird>"), std::string::npos);
    // The module table: nesting, parameters, activations; an unknown count is "-".
    EXPECT_NE(part.find("<tr data-depth=\"1\"><td style=\"padding-left:27px\"><code>layer1_0</code>"),
              std::string::npos);
    EXPECT_NE(part.find("<td class=\"num\">215,808</td><td class=\"num\">1.00 MiB</td><td class=\"num\">2.00 MiB</td>"),
              std::string::npos)
        << part;
    // Two flame graphs a scenario, each frame with its share in its tooltip.
    EXPECT_EQ(count(part, "<svg class=\"chart flame-graph\""), 4u);
    EXPECT_NE(
        part.find("data-frame=\"aten::mkldnn_convolution\" data-share=\"0.551724\"><title>aten::mkldnn_convolution: "
                  "1.00 ms, 55.2% of all operators</title>"),
        std::string::npos);
    EXPECT_NE(part.find("<title>dnnl::execute: 40.0 ms, 80.0% of all samples</title>"), std::string::npos);
    // The trace file, linked.
    EXPECT_NE(part.find("<a href=\"traces/resnet50/resnet50_variant_eager_batch_size_1_20261122_115000.json\">"),
              std::string::npos);
}

TEST(ProfileReport, TheMarkdownHasTheSameTables) {
    const std::string md = markdown_report(profiled_record());
    const auto section = md.find("## Where the time goes\n");
    ASSERT_NE(section, std::string::npos);
    const std::string part = md.substr(section);
    EXPECT_NE(
        part.find("| `aten::mkldnn_convolution` | 53 | 6.00 ms | 65.8% | 6.50 ms | - | `[[1, 64, 16, 16], [64, 64, 3, "
                  "3]]` |"),
        std::string::npos)
        << part;
    EXPECT_NE(
        part.find("| `aten::conv2d` | 53 | 250 us | 2.7% | 6.75 ms | 820 MFLOP | `[[1, 3, 64, 64], [64, 3, 7, 7]]` |"),
        std::string::npos)
        << part;
    EXPECT_NE(part.find("| `aten::relu_` | 49 | 375 us | 4.1% | 500 us | - | - |"), std::string::npos)
        << part;  // no shapes
    EXPECT_NE(part.find("| `mkldnn_prepacked::conv2d_run` | - | 4.00 ms | new |"), std::string::npos) << part;
    EXPECT_NE(part.find("| &emsp;`layer1_0` | 1 | 1.25 ms | 10.0% | 75,008 | 1.00 MiB | 1.50 MiB |"), std::string::npos)
        << part;
    EXPECT_NE(part.find("| `fc` | 1 | 500 us | 4.0% | - |"), std::string::npos) << part;
    // Without profiles, no section.
    EXPECT_EQ(markdown_report(benchtest::record_of({benchtest::Outcome("unit", "p", "b")})).find("Where the time goes"),
              std::string::npos);
}

TEST(ProfileReport, TheFlameGraphDrawsWhatCanBeSeenAndSaysWhenThereIsNothing) {
    svg::FlameChart chart;
    chart.id = "f";
    chart.title = "t";
    chart.stacks = {{"a;b", 3}, {"a;c", 1}, {"a;c;tiny", 0.0001}, {"d", 0}};
    const std::string drawn = svg::flame_graph(chart);
    EXPECT_EQ(count(drawn, "<g class=\"frame "), 4u);  // all, a, b, c: tiny is under 0.1%
    EXPECT_NE(drawn.find("data-frame=\"a\" data-share=\"1\"><title>a: 4.00 ms, 100.0% of all</title>"),
              std::string::npos)
        << drawn;
    EXPECT_NE(drawn.find("<title>b: 3.00 ms, 75.0% of all</title>"), std::string::npos);
    EXPECT_EQ(drawn.find("tiny"), std::string::npos);
    // Callees sit above their caller: b's box is a row above a's.
    const std::regex y_of_a(
        "data-frame=\"a\"[^>]*><title>[^<]*</title><rect class=\"box\" x=\"[0-9.]+\" y=\"([0-9.]+)\"");
    const std::regex y_of_b(
        "data-frame=\"b\"[^>]*><title>[^<]*</title><rect class=\"box\" x=\"[0-9.]+\" y=\"([0-9.]+)\"");
    std::smatch a, b;
    ASSERT_TRUE(std::regex_search(drawn, a, y_of_a));
    ASSERT_TRUE(std::regex_search(drawn, b, y_of_b));
    EXPECT_LT(std::stod(b[1]), std::stod(a[1]));
    chart.stacks = {{"x", 0}};
    EXPECT_EQ(svg::flame_graph(chart), svg::no_data("t", "no stacks"));
}

TEST(ProfileReport, TheTraceIsChromeTraceEventJson) {
    const RunRecord record = profiled_record();
    const std::string text = chrome_trace(record.outcomes[0]);
    rapidjson::Document trace;
    trace.Parse(text.c_str());
    ASSERT_FALSE(trace.HasParseError()) << text;
    ASSERT_TRUE(trace["traceEvents"].IsArray());
    const auto& events = trace["traceEvents"];
    std::size_t complete = 0;
    double first_ts = 1e300;
    for (const auto& event : events.GetArray()) {
        ASSERT_TRUE(event["ph"].IsString());
        if (std::string(event["ph"].GetString()) != "X") continue;
        ++complete;
        first_ts = std::min(first_ts, event["ts"].GetDouble());
        EXPECT_GE(event["dur"].GetDouble(), 0);
        EXPECT_TRUE(event["pid"].IsInt());
        EXPECT_TRUE(event["tid"].IsInt64());
    }
    EXPECT_EQ(complete, 3u);
    EXPECT_EQ(first_ts, 0);  // from the first event
    EXPECT_NE(text.find("\"args\":{\"input_shapes\":\"[[1, 3, 64, 64], [64, 3, 7, 7]]\"}"), std::string::npos);
    EXPECT_NE(text.find("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"performance/resnet50/"
                        "resnet50[variant=eager,batch_size=1]\"}}"),
              std::string::npos)
        << text;
}

TEST(ProfileReport, AProfileOnCudaHasItsKernelsFlameGraphAndAStreamsTrack) {
    RunRecord record = profiled_record();
    bench::Profile& p = *record.outcomes[0].result.profile;
    bench::FlameGraph device;
    device.name = "device";
    device.source = "LibTorch 2.14.1 profiler (Kineto, CPU and CUDA events): the CUDA kernels";
    device.unit = "ms";
    device.stacks = {{"forward;stem;aten::conv2d;aten::cudnn_convolution;sm90_xmma_fprop", 0.75}};
    p.flame_graphs.insert(p.flame_graphs.begin() + 1, device);
    p.trace.push_back({"sm90_xmma_fprop", "kernel", 1.7955e15 + 30, 750, -(1 + 7), ""});  // device 0, stream 7
    p.trace.push_back({"copy", "kernel", 1.7955e15 + 40, 5, -(1 + 1'000'000 + 13), ""});  // device 1, stream 13

    const std::string html = html_report(record);
    EXPECT_NE(html.find("Device kernels under their operators (time on the device): performance/resnet50/"),
              std::string::npos);
    EXPECT_NE(html.find("<title>sm90_xmma_fprop: 750 us, 100.0% of all kernels</title>"), std::string::npos)
        << html.substr(html.find("Device kernels"), 3000);

    rapidjson::Document trace;
    trace.Parse(chrome_trace(record.outcomes[0]).c_str());
    ASSERT_FALSE(trace.HasParseError());
    std::map<long long, std::string> tracks;
    for (const auto& event : trace["traceEvents"].GetArray())
        if (std::string(event["name"].GetString()) == "thread_name")
            tracks[event["tid"].GetInt64()] = event["args"]["name"].GetString();
    const std::map<long long, std::string> expected = {{-1'000'014, "CUDA device 1, stream 13"},
                                                       {-8, "CUDA device 0, stream 7"},
                                                       {0, "profiled calls"},
                                                       {1, "thread 1"}};
    EXPECT_EQ(tracks, expected);
}

}  // namespace
