// Distributed scenarios in the reports (docs/distributed.md): the figures computed once
// (report_figures.hpp: each rank's medians with the straggler the statistics name, each
// collective's bus bandwidth against message size, throughput against world size with
// the ideal line and the scaling efficiency), report.md's tables and report.html's charts
// (read in headless Chromium, skipped without it), and nothing of it for a run that has no
// distributed scenario.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../../support/builders.hpp"
#include "../../support/chromium.hpp"
#include "../../support/test_support.hpp"
#include "analysis/scenario_statistics.hpp"
#include "report/rendered_reports.hpp"
#include "report/report_figures.hpp"
#include "report/report_reader.hpp"
#include "report/report_writer.hpp"

namespace {

using namespace benchtest;
using benchhost::RunRecord;

Outcome distributed(const std::string& plugin, const std::string& benchmark, int world_size) {
    Outcome o("performance", plugin, benchmark);
    o.axis("world_size", std::to_string(world_size)).edit([&](benchhost::ScenarioOutcome& s) {
        s.config.world_size = world_size;
    });
    return o;
}

/// A collective at world size 2 as performance/collectives records it: per size its
/// latency (the slowest rank's, and each rank's), algbw, busbw and bytes. Rank 1 is 3x
/// slower at 1 MiB: the statistics name it.
Outcome collective(const std::string& name, int world_size, double busbw_1k, double busbw_1m, unsigned seed) {
    Outcome o = distributed("collectives", name, world_size);
    struct Size {
        std::string label;
        double bytes, busbw, rank1;  // rank 1's time over rank 0's
    };
    for (const Size& size : {Size{"1KiB", 1024, busbw_1k, 1.0}, Size{"1MiB", 1048576, busbw_1m, 3.0}}) {
        const std::string& label = size.label;
        const double bytes = size.bytes, busbw = size.busbw, rank1 = size.rank1;
        const double ms = bytes / (busbw * 1e9) * 1e3;
        const std::vector<double> r0 = jittered_samples(ms, 20, seed), r1 = jittered_samples(ms * rank1, 20, seed + 1);
        std::vector<double> slowest;
        for (std::size_t i = 0; i < r0.size(); ++i) slowest.push_back(std::max(r0[i], r1[i]));
        o.series("latency." + label, "ms", slowest);
        std::vector<double> bw;
        for (const double v : slowest) bw.push_back(bytes / (v / 1e3) / 1e9);
        o.series("algbw." + label, "GB/s", bw).series("busbw." + label, "GB/s", bw);
        o.series("latency." + label + ".rank0", "ms", r0).series("latency." + label + ".rank1", "ms", r1);
        o.edit([&](benchhost::ScenarioOutcome& s) { s.result.scalars.push_back({"bytes." + label, bytes, "B"}); });
    }
    return o;
}

/// ddp_training at a world size, its throughput the same in every sample (its median exact).
Outcome training(int world_size, double throughput) {
    Outcome o = distributed("ddp_training", "ddp_training", world_size);
    o.series("step", "ms", std::vector<double>(10, 8 * world_size / throughput * 1e3));
    o.series("throughput", "samples/s", std::vector<double>(10, throughput));
    for (int r = 0; world_size > 1 && r < world_size; ++r)
        o.series("step.rank" + std::to_string(r), "ms", jittered_samples(100, 10, 7 + r));
    return o;
}

RunRecord distributed_run() {
    RunRecord record = record_of({collective("all_reduce", 2, 0.02, 0.3, 1), collective("broadcast", 2, 0.05, 0.6, 3),
                                  training(1, 40), training(2, 72), training(4, 120)});
    benchhost::analyze_run(record);
    return record;
}

RunRecord plain_run() {
    RunRecord record = record_of({Outcome("performance", "resnet50", "resnet50")
                                      .batch_size(1)
                                      .series("latency", "ms", jittered_samples(4, 20, 1))
                                      .series("throughput", "images/s", jittered_samples(250, 20, 2)),
                                  Outcome("performance", "resnet50", "resnet50")
                                      .batch_size(8)
                                      .series("latency", "ms", jittered_samples(20, 20, 3))
                                      .series("throughput", "images/s", jittered_samples(400, 20, 4))});
    benchhost::analyze_run(record);
    return record;
}

TEST(DistributedReport, ScalingEfficiencyIsTheThroughputOverNTimesTheThroughputAtOne) {
    EXPECT_DOUBLE_EQ(benchhost::scaling_efficiency(72, 2, 40), 0.9);
    EXPECT_DOUBLE_EQ(benchhost::scaling_efficiency(120, 4, 40), 0.75);
    EXPECT_DOUBLE_EQ(benchhost::scaling_efficiency(40, 1, 40), 1.0);
    EXPECT_TRUE(std::isnan(benchhost::scaling_efficiency(72, 2, NAN)));  // no world size 1
    EXPECT_TRUE(std::isnan(benchhost::scaling_efficiency(72, 0, 40)));
    EXPECT_TRUE(std::isnan(benchhost::scaling_efficiency(0, 2, 40)));

    const RunRecord record = distributed_run();
    const benchhost::RunFigures figures = benchhost::compute_figures(record);
    ASSERT_EQ(figures.scaling.size(), 1u);
    const benchhost::ScalingGroup& group = figures.scaling.front();
    EXPECT_EQ(group.group, "performance/ddp_training/ddp_training");
    EXPECT_EQ(group.unit, "samples/s");
    EXPECT_DOUBLE_EQ(group.base, 40);
    ASSERT_EQ(group.points.size(), 3u);
    const double expected_ideal[] = {40, 80, 160}, expected_efficiency[] = {1.0, 0.9, 0.75};
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(group.points[i].world_size, 1 << i);
        EXPECT_DOUBLE_EQ(group.points[i].ideal, expected_ideal[i]);
        EXPECT_DOUBLE_EQ(group.points[i].efficiency, expected_efficiency[i]);
        EXPECT_DOUBLE_EQ(group.points[i].scenario->scaling_efficiency, expected_efficiency[i]);  // its row's
    }
    // The collectives have no throughput: no scaling, and no efficiency in their rows.
    for (const benchhost::ScenarioFigures& f : figures.scenarios)
        if (f.outcome->config.plugin == "collectives") {
            EXPECT_TRUE(std::isnan(f.scaling_efficiency));
        }
}

// The statistics compute the scaling efficiency once (complete_speedups), with the
// interval of the ratio of the medians; the CSV and the summary write it, as the reports
// show it.
TEST(DistributedReport, TheScalingEfficiencyIsComputedOnceAndWrittenToTheCsvAndTheSummary) {
    RunRecord record = record_of({training(1, 40), training(2, 72), collective("all_reduce", 2, 0.02, 0.3, 1)});
    // A throughput that varies: its interval is not a point.
    record.outcomes[1].result.series[1].samples = jittered_samples(72, 10, 5);
    benchhost::analyze_run(record);
    const auto& one = record.outcomes[0].statistics.scaling;
    const auto& two = record.outcomes[1].statistics.scaling;
    ASSERT_TRUE(one.has_value());
    EXPECT_DOUBLE_EQ(one->value, 1.0);  // by definition, without an interval
    EXPECT_FALSE(one->ci.valid());
    ASSERT_TRUE(two.has_value());
    EXPECT_EQ(two->series, "throughput");
    EXPECT_EQ(two->world_size, 2);
    EXPECT_EQ(two->baseline_scenario_id, record.outcomes[0].config.scenario_id());
    const double median = record.outcomes[1].statistics.find("throughput")->analysis.summary.median;
    EXPECT_DOUBLE_EQ(two->value, median / (2 * 40));
    ASSERT_TRUE(two->ci.valid());
    EXPECT_LT(two->ci.low, two->value);
    EXPECT_GT(two->ci.high, two->value);
    EXPECT_FALSE(record.outcomes[2].statistics.scaling.has_value());  // no throughput
    // The reports show the same figure.
    const benchhost::RunFigures figures = benchhost::compute_figures(record);
    ASSERT_EQ(figures.scaling.size(), 1u);
    EXPECT_DOUBLE_EQ(figures.scaling[0].points[1].efficiency, two->value);
    EXPECT_DOUBLE_EQ(figures.scaling[0].points[1].efficiency_ci.low, two->ci.low);
    // report.md gives it with its interval, in the benchmark's table and the scaling table.
    const std::string efficiency = benchhost::scaling_efficiency_text(two->value, two->ci);
    EXPECT_NE(efficiency.find(" ["), std::string::npos) << efficiency;
    const std::string md = benchhost::markdown_report(record);
    const std::size_t first = md.find(" " + efficiency + " |");
    ASSERT_NE(first, std::string::npos) << efficiency << "\n" << md;
    EXPECT_NE(md.find(" " + efficiency + " |", first + 1), std::string::npos) << md;

    benchtest::TempDir dir;
    const benchhost::WrittenReports written = benchhost::write_reports(record, dir.path());
    const rapidjson::Document summary = benchtest::read_json(written.summary);
    const auto& entries = summary["results"];
    ASSERT_EQ(entries.Size(), 3u);
    ASSERT_TRUE(entries[1].HasMember("scaling_efficiency"));
    const auto& written_two = entries[1]["scaling_efficiency"];
    EXPECT_EQ(std::string(written_two["series"].GetString()), "throughput");
    EXPECT_EQ(written_two["world_size"].GetInt(), 2);
    EXPECT_DOUBLE_EQ(written_two["value"].GetDouble(), two->value);
    EXPECT_DOUBLE_EQ(written_two["ci95"][0].GetDouble(), two->ci.low);
    EXPECT_DOUBLE_EQ(written_two["ci95"][1].GetDouble(), two->ci.high);
    EXPECT_TRUE(entries[0]["scaling_efficiency"]["ci95"].IsNull());
    EXPECT_FALSE(entries[2].HasMember("scaling_efficiency"));

    const std::string csv = benchtest::read_file(written.csv);
    const std::string header = csv.substr(0, csv.find('\n'));
    EXPECT_TRUE(header.ends_with(",scaling_efficiency,scaling_efficiency_ci_low,scaling_efficiency_ci_high")) << header;
    std::vector<std::string> lines;
    for (std::size_t at = 0, end; (end = csv.find('\n', at)) != std::string::npos; at = end + 1)
        lines.push_back(csv.substr(at, end - at));
    ASSERT_EQ(lines.size(), 4u);
    const auto last_fields = [](const std::string& line) {
        std::vector<std::string> fields;
        std::size_t at = line.size();
        for (int i = 0; i < 3; ++i) {
            const std::size_t comma = line.rfind(',', at - 1);
            fields.insert(fields.begin(), line.substr(comma + 1, at - comma - 1));
            at = comma;
        }
        return fields;
    };
    EXPECT_EQ(last_fields(lines[1]), (std::vector<std::string>{"1", "", ""}));
    const std::vector<std::string> fields = last_fields(lines[2]);
    EXPECT_DOUBLE_EQ(std::stod(fields[0]), two->value);
    EXPECT_DOUBLE_EQ(std::stod(fields[1]), two->ci.low);
    EXPECT_DOUBLE_EQ(std::stod(fields[2]), two->ci.high);
    EXPECT_EQ(last_fields(lines[3]), (std::vector<std::string>{"", "", ""}));
}

TEST(DistributedReport, WithoutWorldSizeOneThereIsNoIdealLine) {
    RunRecord record = record_of({training(2, 72), training(4, 120)});
    benchhost::analyze_run(record);
    const benchhost::RunFigures figures = benchhost::compute_figures(record);
    ASSERT_EQ(figures.scaling.size(), 1u);
    EXPECT_TRUE(std::isnan(figures.scaling.front().base));
    for (const auto& point : figures.scaling.front().points) {
        EXPECT_TRUE(std::isnan(point.ideal));
        EXPECT_TRUE(std::isnan(point.efficiency));
    }
    // One world size alone is no scaling.
    RunRecord one = record_of({training(2, 72)});
    benchhost::analyze_run(one);
    EXPECT_TRUE(benchhost::compute_figures(one).scaling.empty());
}

TEST(DistributedReport, RankTablesNameTheStragglerTheStatisticsNamed) {
    const RunRecord record = distributed_run();
    const benchhost::RunFigures figures = benchhost::compute_figures(record);
    // The two collectives and ddp_training at 2 and 4 ranks; world size 1 has no ranks.
    ASSERT_EQ(figures.rank_tables.size(), 4u);
    const benchhost::RankTable& all_reduce = figures.rank_tables[0];
    EXPECT_EQ(all_reduce.scenario->outcome->config.benchmark, "all_reduce");
    EXPECT_EQ(all_reduce.ranks, 2);
    ASSERT_EQ(all_reduce.rows.size(), 2u);
    EXPECT_EQ(all_reduce.rows[0].series, "latency.1KiB");
    EXPECT_TRUE(all_reduce.rows[0].stragglers.empty());
    EXPECT_EQ(all_reduce.rows[1].series, "latency.1MiB");
    ASSERT_EQ(all_reduce.rows[1].stragglers.size(), 1u);
    EXPECT_EQ(all_reduce.rows[1].stragglers[0].rank, 1);
    EXPECT_NEAR(all_reduce.rows[1].stragglers[0].ratio, 3.0, 0.1);
    // Each rank's median is its own series'.
    ASSERT_NE(all_reduce.rows[1].per_rank[1], nullptr);
    EXPECT_EQ(all_reduce.rows[1].per_rank[1]->name, "latency.1MiB.rank1");
    EXPECT_NEAR(all_reduce.rows[1].per_rank[1]->analysis.summary.median /
                    all_reduce.rows[1].per_rank[0]->analysis.summary.median,
                3.0, 0.1);
    EXPECT_EQ(figures.rank_tables[3].ranks, 4);

    // The bus bandwidth of each collective, by size, the bytes from the scalar.
    ASSERT_EQ(figures.bandwidth.size(), 2u);
    const benchhost::BandwidthCurve& curve = figures.bandwidth[0];
    EXPECT_EQ(curve.collective, "all_reduce");
    EXPECT_EQ(curve.world_size, 2);
    ASSERT_EQ(curve.points.size(), 2u);
    EXPECT_EQ(curve.points[0].size, "1KiB");
    EXPECT_DOUBLE_EQ(curve.points[0].bytes, 1024);
    EXPECT_DOUBLE_EQ(curve.points[1].bytes, 1048576);
    EXPECT_NEAR(curve.points[0].busbw->analysis.summary.median, 0.02, 0.001);
    EXPECT_NE(curve.points[1].latency, nullptr);
    EXPECT_DOUBLE_EQ(benchhost::message_size_bytes("64KiB"), 65536);
    EXPECT_DOUBLE_EQ(benchhost::message_size_bytes("8B"), 8);
    EXPECT_TRUE(std::isnan(benchhost::message_size_bytes("big")));
}

// The stragglers are a field of the plugin report (schema_version 16), and a run folder read
// back has them; one written before (its warnings alone named them) has them too, from
// each rank's series.
TEST(DistributedReport, TheStragglersAreInThePluginReportAndReadBackFromOlderOnes) {
    const RunRecord record = distributed_run();
    benchtest::TempDir dir;
    const benchhost::WrittenReports written = benchhost::write_reports(record, dir.path());
    const std::filesystem::path report = written.plugin_reports.at("collectives");
    rapidjson::Document json = benchtest::read_json(report);
    const auto& scenarios = json["benchmark_scenarios"];
    ASSERT_EQ(scenarios.Size(), 2u);
    ASSERT_TRUE(scenarios[0].HasMember("stragglers"));
    const auto& stragglers = scenarios[0]["stragglers"];
    ASSERT_EQ(stragglers.Size(), 1u);
    const benchhost::Straggler& computed = record.outcomes[0].statistics.stragglers.at(0);
    EXPECT_EQ(std::string(stragglers[0]["series"].GetString()), "latency.1MiB");
    EXPECT_EQ(stragglers[0]["rank"].GetInt(), 1);
    EXPECT_EQ(std::string(stragglers[0]["unit"].GetString()), "ms");
    EXPECT_DOUBLE_EQ(stragglers[0]["ratio"].GetDouble(), computed.ratio);
    EXPECT_DOUBLE_EQ(stragglers[0]["median"].GetDouble(), computed.median);
    EXPECT_DOUBLE_EQ(stragglers[0]["ci95"][0].GetDouble(), computed.interval.low);
    EXPECT_DOUBLE_EQ(stragglers[0]["ci95"][1].GetDouble(), computed.interval.high);
    const RunRecord read = benchhost::read_run(dir.path());
    ASSERT_EQ(read.outcomes[0].config.benchmark, "all_reduce");
    ASSERT_EQ(read.outcomes[0].statistics.stragglers.size(), 1u);
    EXPECT_EQ(read.outcomes[0].statistics.stragglers[0].series, "latency.1MiB");
    EXPECT_DOUBLE_EQ(read.outcomes[0].statistics.stragglers[0].interval.low, computed.interval.low);

    // As a host before schema_version 16 wrote it: no stragglers field.
    for (auto& scenario : json["benchmark_scenarios"].GetArray()) scenario.RemoveMember("stragglers");
    json["schema_version"] = 15;
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    json.Accept(writer);
    benchtest::write_file(report, buffer.GetString());
    const RunRecord old = benchhost::read_run(dir.path());
    ASSERT_EQ(old.outcomes[0].config.benchmark, "all_reduce");
    ASSERT_EQ(old.outcomes[0].statistics.stragglers.size(), 1u);
    EXPECT_EQ(old.outcomes[0].statistics.stragglers[0].rank, 1);
    EXPECT_DOUBLE_EQ(old.outcomes[0].statistics.stragglers[0].ratio, computed.ratio);
    EXPECT_DOUBLE_EQ(old.outcomes[0].statistics.stragglers[0].interval.high, computed.interval.high);
    EXPECT_EQ(old.outcomes[1].statistics.stragglers.size(), record.outcomes[1].statistics.stragglers.size());
}

TEST(DistributedReport, ReportMdHasTheTables) {
    const std::string md = benchhost::markdown_report(distributed_run());
    ASSERT_NE(md.find("\n## Distributed scenarios\n"), std::string::npos) << md;
    // Throughput against world size, and the efficiency in the benchmark's own table too.
    EXPECT_NE(md.find("| World size | Throughput (95% CI) | Ideal (N x at 1) | Scaling efficiency |\n"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("| 2 | 72.0 samples/s [72.0, 72.0] | 80.0 samples/s | 0.90 [0.90, 0.90] |\n"), std::string::npos)
        << md;
    EXPECT_NE(md.find("| 4 | 120 samples/s [120, 120] | 160 samples/s | 0.75 [0.75, 0.75] |\n"), std::string::npos)
        << md;
    EXPECT_NE(md.find(" Speedup over eager (95% CI) | Scaling efficiency |"), std::string::npos) << md;
    // Bus bandwidth: a row per size, a column per collective.
    EXPECT_NE(md.find("#### world size 2\n\n| size | all_reduce | broadcast |\n"), std::string::npos) << md;
    EXPECT_NE(md.find("\n| 1MiB | 100 MB/s | 200 MB/s |\n"), std::string::npos) << md;  // rank 1 3x slower
    // The ranks, the straggler named.
    EXPECT_NE(md.find("| Series | rank 0 | rank 1 | Straggler |\n"), std::string::npos) << md;
    EXPECT_NE(md.find("| latency.1MiB | "), std::string::npos) << md;
    EXPECT_NE(md.find("**rank 1: 3."), std::string::npos) << md;
    EXPECT_NE(md.find("x the other ranks' median ["), std::string::npos) << md;

    const std::string plain = benchhost::markdown_report(plain_run());
    EXPECT_EQ(plain.find("Distributed"), std::string::npos) << plain;
    EXPECT_EQ(plain.find("Scaling efficiency"), std::string::npos) << plain;
    EXPECT_EQ(plain.find("Straggler"), std::string::npos) << plain;
}

TEST(DistributedReport, ReportHtmlHasTheChartsAndTables) {
    const std::string html = benchhost::html_report(distributed_run());
    EXPECT_EQ(count(html, "<section id=\"distributed\">"), 1u);
    EXPECT_NE(html.find("<a href=\"#distributed\">Distributed</a>"), std::string::npos);
    EXPECT_NE(html.find("all_reduce: bus bandwidth against message size"), std::string::npos);
    EXPECT_NE(html.find("broadcast: bus bandwidth against message size"), std::string::npos);
    EXPECT_NE(html.find("performance/ddp_training/ddp_training: throughput against world size"), std::string::npos);
    EXPECT_NE(html.find("ideal (N x at 1)"), std::string::npos);
    EXPECT_NE(html.find("<table class=\"scenarios ranks\">"), std::string::npos);
    EXPECT_NE(html.find("<th>Scaling efficiency</th>"), std::string::npos);

    const std::string plain = benchhost::html_report(plain_run());
    EXPECT_EQ(plain.find("id=\"distributed\""), std::string::npos);
    EXPECT_EQ(plain.find("Scaling efficiency"), std::string::npos);
    EXPECT_EQ(plain.find("bus bandwidth"), std::string::npos);
}

// Appended to a copy of the page: what the section shows, as JSON that --dump-dom prints.
const char* probe = R"js(<script>
(function(){
var r={},s=document.getElementById('distributed');r.section=!!s;
r.link=!!document.querySelector('nav a[href="#distributed"]');
if(s){
var charts=s.querySelectorAll('svg[role="img"]');r.charts=charts.length;r.titles=[];r.points=[];
for(var i=0;i<charts.length;i++){r.titles.push(charts[i].querySelector('title').textContent);
r.points.push(charts[i].querySelectorAll('circle.pt').length);}
var b=charts[0].getBoundingClientRect();r.width=b.width;r.height=b.height;
r.rank_tables=s.querySelectorAll('table.ranks').length;
var slow=s.querySelectorAll('table.ranks td.bad');r.slow=slow.length;
if(slow.length){r.slow_color=getComputedStyle(slow[0]).color;
r.plain_color=getComputedStyle(s.querySelector('table.ranks td.num:not(.bad)')).color;}
r.straggler_rows=s.querySelectorAll('table.ranks tr.straggler').length;}
var out=document.createElement('pre');out.id='probe';out.textContent=JSON.stringify(r);
document.body.appendChild(out);
})();
</script>)js";

TEST(DistributedReport, ChromiumDrawsTheChartsAndMarksTheStraggler) {
    const fs::path binary = find_chromium();
    if (binary.empty()) GTEST_SKIP() << "chromium is not installed (scripts/lib/setup.sh installs Debian's chromium)";
    TempDir work;
    const Probed probed = probe_page(binary, work.path(), benchhost::html_report(distributed_run()), probe);
    ASSERT_TRUE(probed.problem.empty()) << probed.problem;
    const std::string& json = probed.json;
    rapidjson::Document r;
    ASSERT_FALSE(r.Parse(json.c_str()).HasParseError()) << json;
    ASSERT_TRUE(r["section"].GetBool()) << json;
    EXPECT_TRUE(r["link"].GetBool());
    // Throughput against world size, then a chart per collective.
    ASSERT_EQ(r["charts"].GetInt(), 3) << json;
    EXPECT_STREQ(r["titles"][0].GetString(), "performance/ddp_training/ddp_training: throughput against world size");
    EXPECT_STREQ(r["titles"][1].GetString(), "all_reduce: bus bandwidth against message size");
    EXPECT_EQ(r["points"][0].GetInt(), 3) << json;  // the measured points (the ideal line has no markers)
    EXPECT_EQ(r["points"][1].GetInt(), 2) << json;  // two sizes
    EXPECT_GT(r["width"].GetDouble(), 200);
    EXPECT_GT(r["height"].GetDouble(), 100);
    EXPECT_EQ(r["rank_tables"].GetInt(), 4);
    EXPECT_EQ(r["slow"].GetInt(), 2) << json;  // rank 1 at 1 MiB, in both collectives
    EXPECT_EQ(r["straggler_rows"].GetInt(), 2) << json;
    EXPECT_STRNE(r["slow_color"].GetString(), r["plain_color"].GetString());
}

}  // namespace
