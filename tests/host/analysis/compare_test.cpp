// Comparing two runs built in code, with samples of known difference.
#include "analysis/compare.hpp"
#include "analysis/scenario_statistics.hpp"
#include "report/comparison_reporter.hpp"
#include "report/html/comparison_page.hpp"
#include "report/report_reader.hpp"

#include <gtest/gtest.h>

#include "../../support/builders.hpp"

#include <iostream>
#include <random>

#include <rapidjson/document.h>

namespace {

using namespace benchhost;

std::vector<double> latencies(double median_ms, int n, unsigned seed, double jitter = 0.01) {
    return benchtest::jittered_samples(median_ms, n, seed, jitter);
}

ScenarioOutcome outcome(const std::string& benchmark, std::vector<double> latency_ms,
                        bench::Variant variant = bench::Variant::eager) {
    return benchtest::Outcome("performance", "mock", benchmark)
        .variant(variant)
        .series("latency", "ms", std::move(latency_ms))
        .series("throughput", "items/s", {1, 2, 3});  // not a time: not compared
}

RunRecord run(std::vector<ScenarioOutcome> outcomes, const std::string& cpu = "Xeon") {
    RunRecord r;
    r.hardware["cpu"]["model"] = cpu;
    r.hardware["build"]["build_type"] = "Release";
    r.outcomes = std::move(outcomes);
    return r;
}

TEST(Compare, VerdictsFromSamples) {
    const RunRecord base = run({outcome("same", latencies(10, 30, 1)), outcome("slower", latencies(10, 30, 2)),
                                outcome("faster", latencies(10, 30, 3)), outcome("small", latencies(10, 30, 4))});
    const RunRecord next = run({outcome("same", latencies(10, 30, 5)), outcome("slower", latencies(11, 30, 6)),
                                outcome("faster", latencies(8, 30, 7)), outcome("small", latencies(10.2, 30, 8))});
    // No noise floor: the U test and the interval of the samples alone decide.
    const Comparison c = compare_runs(base, next, {.threshold = 0.05, .alpha = 0.05, .noise_floor = 0});
    ASSERT_EQ(c.rows.size(), 4u);  // latency only: throughput is not a time
    EXPECT_EQ(c.rows[0].verdict, Verdict::same);
    EXPECT_EQ(c.rows[1].verdict, Verdict::slower);
    EXPECT_NEAR(c.rows[1].ratio, 1.1, 0.01);
    EXPECT_TRUE(c.rows[1].ratio_ci.contains(c.rows[1].ratio));
    EXPECT_GT(c.rows[1].ratio_ci.low, 1.05);
    EXPECT_LT(c.rows[1].p_value, 1e-6);
    EXPECT_EQ(c.rows[2].verdict, Verdict::faster);
    // 2% slower is significant with these samples, but inside the 5% threshold.
    EXPECT_LT(c.rows[3].p_value, 0.05);
    EXPECT_EQ(c.rows[3].verdict, Verdict::same);
    EXPECT_EQ(c.regressions(), 1u);
    EXPECT_NEAR(c.geomean_ratio, std::pow(1.0 * 1.1 * 0.8 * 1.02, 0.25), 0.01);
    EXPECT_TRUE(c.incomparable.empty());
}

TEST(Compare, ListsScenariosOnOneSideAndFailures) {
    ScenarioOutcome failed = outcome("broken", {});
    failed.result.status = bench::Status::crashed;
    failed.result.reason = "crashed with SIGSEGV";
    const RunRecord base = run({outcome("kept", latencies(1, 10, 1)), outcome("removed", latencies(1, 10, 2)),
                                outcome("broken", latencies(1, 10, 3))});
    const RunRecord next = run({outcome("kept", latencies(1, 10, 4)), outcome("added", latencies(1, 10, 5)), failed});
    const Comparison c = compare_runs(base, next);
    ASSERT_EQ(c.rows.size(), 1u);
    ASSERT_EQ(c.only_in_base.size(), 1u);
    EXPECT_EQ(c.only_in_base[0], "performance/mock/removed[variant=eager]");
    ASSERT_EQ(c.only_in_new.size(), 1u);
    EXPECT_EQ(c.only_in_new[0], "performance/mock/added[variant=eager]");
    ASSERT_EQ(c.not_compared.size(), 1u);
    EXPECT_NE(c.not_compared[0].find("new crashed: crashed with SIGSEGV"), std::string::npos) << c.not_compared[0];
}

TEST(Compare, TooFewSamplesAreNotCalledSame) {
    const RunRecord base = run({outcome("b", {10, 10.1, 9.9})});
    const RunRecord next = run({outcome("b", {13, 13.1, 12.9})});
    const Comparison c = compare_runs(base, next);
    ASSERT_EQ(c.rows.size(), 1u);
    EXPECT_EQ(c.rows[0].verdict, Verdict::inconclusive);  // p = 0.1 at best with 3 + 3 samples
    EXPECT_NE(c.rows[0].note.find("too few samples"), std::string::npos);
}

TEST(Compare, SameOnlyWhenTheIntervalLiesWithinTheThreshold) {
    // Noisy samples (30% jitter), 8% apart: the U test cannot tell (P well above 0.05),
    // and the ratio's interval reaches far past 5% on both sides: not "same".
    const RunRecord base = run({outcome("noisy", latencies(10, 12, 1, 0.3)), outcome("quiet", latencies(10, 40, 2))});
    const RunRecord next = run({outcome("noisy", latencies(10.8, 12, 3, 0.3)), outcome("quiet", latencies(10, 40, 4))});
    const Comparison c = compare_runs(base, next, {.threshold = 0.05, .alpha = 0.05, .noise_floor = 0.10});
    ASSERT_EQ(c.rows.size(), 2u);
    EXPECT_GT(c.rows[0].p_value, 0.05);
    EXPECT_TRUE(c.rows[0].ratio_ci.high > 1.05 || c.rows[0].ratio_ci.low < 0.95);
    EXPECT_EQ(c.rows[0].verdict, Verdict::inconclusive);
    EXPECT_NE(c.rows[0].note.find("cannot tell"), std::string::npos) << c.rows[0].note;
    // A quiet scenario whose interval lies within the threshold is the same.
    EXPECT_EQ(c.rows[1].verdict, Verdict::same) << c.rows[1].note;
}

ScenarioOutcome with_speed_reference(ScenarioOutcome o, double start_ns, double end_ns) {
    o.result.scalars.push_back({"speed_reference_start", start_ns, "ns"});
    o.result.scalars.push_back({"speed_reference_end", end_ns, "ns"});
    return o;
}

TEST(Compare, RunsThatCaughtTheMachineAtAnotherSpeedAreInconclusive) {
    // The new side is 50% slower, but its reference loop ran 1.8x slower too: the
    // machine was in another speed state, and no verdict can tell the change from it.
    // A side whose reference changed while it ran caught both speeds. References of
    // different kinds (a C++ loop, a Python one) are not compared.
    const auto pair = [](const std::string& name, double base_start, double base_end, double new_start, double new_end,
                         const std::string& new_kind = "python") {
        ScenarioOutcome a = with_speed_reference(outcome(name, latencies(10, 30, 1)), base_start, base_end);
        ScenarioOutcome b = with_speed_reference(outcome(name, latencies(15, 30, 2)), new_start, new_end);
        a.result.info["speed_reference"] = "python";
        b.result.info["speed_reference"] = new_kind;
        return std::pair{a, b};
    };
    const auto [state_a, state_b] = pair("state", 450, 460, 800, 820);
    const auto [flip_a, flip_b] = pair("flip", 450, 460, 800, 450);
    const auto [steady_a, steady_b] = pair("steady", 450, 460, 470, 440);
    const auto [kinds_a, kinds_b] = pair("kinds", 450, 460, 14, 15, "c++");
    const Comparison c =
        compare_runs(run({state_a, flip_a, steady_a, kinds_a}), run({state_b, flip_b, steady_b, kinds_b}));
    ASSERT_EQ(c.rows.size(), 4u);
    EXPECT_EQ(c.rows[0].verdict, Verdict::inconclusive);
    EXPECT_NEAR(c.rows[0].speed_reference_ratio, 1.78, 0.01);
    EXPECT_NE(c.rows[0].note.find("another speed: the python reference loop took x1.78"), std::string::npos)
        << c.rows[0].note;
    EXPECT_EQ(c.rows[1].verdict, Verdict::inconclusive);
    EXPECT_NE(c.rows[1].note.find("changed while new ran"), std::string::npos) << c.rows[1].note;
    // Within 20% of each other: the references say nothing against the verdict.
    EXPECT_EQ(c.rows[2].verdict, Verdict::slower) << c.rows[2].note;
    EXPECT_TRUE(std::isnan(c.rows[2].speed_reference_ratio));
    EXPECT_EQ(c.rows[3].verdict, Verdict::slower) << c.rows[3].note;
}

TEST(Compare, AChangeFarPastTheMachinesSpeedChangeKeepsItsVerdict) {
    // 4x slower while base's reference changed x0.81 as it ran: no speed state explains a
    // 4x change, so the verdict stands, saying what it allowed for; 1.5x slower with the
    // same references is within what x1.23 and the 5% threshold could make of it.
    const auto pair = [](const std::string& name, double new_ms) {
        ScenarioOutcome a = with_speed_reference(outcome(name, latencies(10, 30, 1)), 450, 365);
        ScenarioOutcome b = with_speed_reference(outcome(name, latencies(new_ms, 30, 2)), 370, 372);
        a.result.info["speed_reference"] = "c++";
        b.result.info["speed_reference"] = "c++";
        return std::pair{a, b};
    };
    const auto [far_a, far_b] = pair("far", 40);
    const auto [near_a, near_b] = pair("near", 12);
    const Comparison c = compare_runs(run({far_a, near_a}), run({far_b, near_b}));
    ASSERT_EQ(c.rows.size(), 2u);
    EXPECT_EQ(c.rows[0].verdict, Verdict::slower) << c.rows[0].note;
    EXPECT_NE(c.rows[0].note.find("even allowing for the machine's speed changing x1.23"), std::string::npos)
        << c.rows[0].note;
    EXPECT_EQ(c.rows[1].verdict, Verdict::inconclusive) << c.rows[1].note;
    EXPECT_NE(c.rows[1].note.find("changed while base ran"), std::string::npos) << c.rows[1].note;
}

TEST(Compare, DifferentMachinesAreFlagged) {
    const RunRecord base = run({outcome("b", latencies(1, 10, 1))}, "Xeon");
    const RunRecord next = run({outcome("b", latencies(1, 10, 2))}, "EPYC");
    const Comparison c = compare_runs(base, next);
    ASSERT_EQ(c.incomparable.size(), 1u);
    EXPECT_EQ(c.incomparable[0], "cpu.model: 'Xeon' (base) vs 'EPYC' (new)");
    EXPECT_NE(comparison_table(c).find("not comparable"), std::string::npos);
    EXPECT_NE(comparison_markdown(c).find("not comparable"), std::string::npos);
}

TEST(Compare, WhatDiffersBetweenTheSidesComesFromTheirRecords) {
    RunRecord base = run({outcome("b", latencies(1, 10, 1))}, "Xeon");
    RunRecord next = run({outcome("b", latencies(1, 10, 2))}, "EPYC");
    for (RunRecord* side : {&base, &next}) {
        side->run_config = {{"plugins_dir", "build/plugins"},
                            {"measurement_iterations", "20"},
                            {"command_line", "benchhost ab ..."},
                            {"params.base_units", "1000"}};
        side->commit_id = "8ea3947";
        side->hardware["plugins"]["mock"] = "version 1.0.0, commit 8ea3947";
        PluginBuild& build = side->outcomes[0].plugin_build;
        build.known = true;
        build.optimized = true;
        build.compiler = "GCC 12.2.0";
    }
    next.run_config["plugins_dir"] = "/tmp/pr/build/plugins";
    next.run_config["params.slowdown"] = "1.05";
    next.run_config["plugins.mock.params.size"] = "64";
    next.run_config["ab_side"] = "new";  // where and how it ran: not a difference
    next.run_config["working_directory"] = "/elsewhere";
    next.hardware["plugins"]["mock"] = "version 1.0.0, commit 1234567";
    next.hardware["plugins"]["only_new"] = "version 2.0.0, commit 1234567";
    next.outcomes[0].plugin_build.optimized = false;
    next.outcomes[0].plugin_build.assertions = true;

    const std::vector<SideDifference> differences = side_differences(base, next);
    const std::vector<SideDifference> expected = {
        {"param slowdown", "(none)", "1.05"},
        {"param size (plugin mock)", "(none)", "64"},
        {"plugins folder", "build/plugins", "/tmp/pr/build/plugins"},
        {"plugin mock", "version 1.0.0, commit 8ea3947", "version 1.0.0, commit 1234567"},
        {"plugin mock build", "optimized, assertions off, GCC 12.2.0", "not optimized, assertions on, GCC 12.2.0"},
        {"cpu.model", "Xeon", "EPYC"},
    };
    EXPECT_EQ(differences, expected);
    // The same record on both sides: nothing differs.
    EXPECT_TRUE(side_differences(base, base).empty());
    // The benchhost commit, when both sides know it.
    RunRecord later = base;
    later.commit_id = "1234567";
    EXPECT_EQ(side_differences(base, later), (std::vector<SideDifference>{{"benchhost commit", "8ea3947", "1234567"}}));
    later.commit_id = "unknown";
    EXPECT_TRUE(side_differences(base, later).empty());
}

TEST(Compare, EveryFormatSaysWhatDiffersOnce) {
    Comparison c = compare_runs(run({outcome("b", latencies(10, 30, 1))}, "Xeon"),
                                run({outcome("b", latencies(10, 30, 2))}, "EPYC"));
    c.differences = std::vector<SideDifference>{{"param slowdown", "(none)", "1.05"}, {"cpu.model", "Xeon", "EPYC"}};
    const std::string table = comparison_table(c), markdown = comparison_markdown(c),
                      page = comparison_html(c, "A/B", {});
    EXPECT_NE(table.find("What differs (base vs new):\n  param slowdown: (none) vs 1.05\n  cpu.model: Xeon vs EPYC\n"),
              std::string::npos)
        << table;
    EXPECT_NE(markdown.find("- `param slowdown: (none) vs 1.05`"), std::string::npos) << markdown;
    EXPECT_NE(page.find("<li>param slowdown: (none) vs 1.05</li>"), std::string::npos) << page;
    // The fact that makes the sides not comparable is listed with the differences, not again.
    EXPECT_NE(table.find("not comparable: their machines or builds differ (above)"), std::string::npos) << table;
    EXPECT_EQ(table.find("'Xeon' (base)"), std::string::npos) << table;
    EXPECT_EQ(markdown.find("'Xeon' (base)"), std::string::npos) << markdown;
    EXPECT_EQ(page.find("&#39;Xeon&#39; (base)"), std::string::npos);
    EXPECT_EQ(page.find("'Xeon' (base)"), std::string::npos);
    rapidjson::Document json;
    json.Parse(comparison_json(c).c_str());
    ASSERT_TRUE(json.HasMember("differences"));
    ASSERT_EQ(json["differences"].Size(), 2u);
    EXPECT_STREQ(json["differences"][0]["what"].GetString(), "param slowdown");
    EXPECT_STREQ(json["differences"][0]["base"].GetString(), "(none)");
    EXPECT_STREQ(json["differences"][0]["new"].GetString(), "1.05");

    // Nothing differs: an A/B run of one build says that its changes are noise.
    c.differences.emplace();
    c.incomparable.clear();
    c.options.paired = true;
    for (const std::string& text : {comparison_table(c), comparison_markdown(c), comparison_html(c, "A/B", {})})
        EXPECT_NE(text.find("Same build and settings on both sides: any difference is noise."), std::string::npos)
            << text;
    json.Parse(comparison_json(c).c_str());
    ASSERT_TRUE(json["differences"].IsArray());
    EXPECT_EQ(json["differences"].Size(), 0u);
    // Two runs that record nothing different may still differ in code rebuilt in place.
    c.options.paired = false;
    EXPECT_NE(comparison_table(c).find("Nothing the runs recorded differs"), std::string::npos);
    // Not known (an older comparison.json): nothing is said, and the field is not written.
    c.differences.reset();
    EXPECT_EQ(comparison_table(c).find("What differs"), std::string::npos);
    EXPECT_EQ(comparison_table(c).find("Nothing the runs"), std::string::npos);
    EXPECT_EQ(comparison_json(c).find("\"differences\""), std::string::npos);
}

TEST(Compare, OutputFormats) {
    const RunRecord base = run({outcome("b", latencies(10, 30, 1))});
    const RunRecord next = run({outcome("b", latencies(12, 30, 2))});
    Comparison c = compare_runs(base, next);
    c.base_label = "runs/base";
    c.new_label = "runs/new";
    const std::string table = comparison_table(c);
    EXPECT_NE(table.find("performance/mock/b[variant=eager]  latency"), std::string::npos) << table;
    EXPECT_NE(table.find("+20."), std::string::npos) << table;
    EXPECT_NE(table.find("slower"), std::string::npos);
    EXPECT_NE(table.find("geometric mean"), std::string::npos);
    EXPECT_NE(table.find("1 slower, 0 faster, 0 same"), std::string::npos) << table;

    const std::string markdown = comparison_markdown(c);
    EXPECT_NE(markdown.find("| Scenario | Series | Base | New | Change |"), std::string::npos) << markdown;
    EXPECT_NE(markdown.find("**slower**"), std::string::npos);

    rapidjson::Document json;
    json.Parse(comparison_json(c).c_str());
    ASSERT_FALSE(json.HasParseError());
    EXPECT_STREQ(json["base"].GetString(), "runs/base");
    ASSERT_EQ(json["rows"].Size(), 1u);
    EXPECT_STREQ(json["rows"][0]["verdict"].GetString(), "slower");
    EXPECT_NEAR(json["rows"][0]["ratio"].GetDouble(), 1.2, 0.02);
    EXPECT_EQ(json["rows"][0]["ratio_ci95"].Size(), 2u);
    EXPECT_LT(json["rows"][0]["p_value"].GetDouble(), 0.05);  // judged by the samples: the U test is the evidence
    EXPECT_EQ(json["counts"]["slower"].GetInt(), 1);
    EXPECT_TRUE(json["comparable"].GetBool());
}

ScenarioOutcome with_counts(ScenarioOutcome o, double graph_breaks, double recompiles, double unique_graphs) {
    o.result.scalars.push_back({"graph_breaks", graph_breaks, "count"});
    o.result.scalars.push_back({"recompiles", recompiles, "count"});
    o.result.scalars.push_back({"unique_graphs", unique_graphs, "count"});
    return o;
}

TEST(Compare, AGrownRecompileCountNamesTheGuardsThatFailed) {
    const RunRecord base = run({with_counts(outcome("model", latencies(10, 30, 1)), 0, 0, 1),
                                with_counts(outcome("fixed", latencies(10, 30, 3)), 0, 0, 1)});
    ScenarioOutcome guarded = with_counts(outcome("model", latencies(10, 30, 2)), 0, 2, 1);
    guarded.result.info["recompile_reasons"] = "tensor 'x' size mismatch at index 0. expected 8, actual 16";
    const RunRecord next = run({guarded, with_counts(outcome("fixed", latencies(10, 30, 4)), 0, 1, 1)});
    const Comparison c = compare_runs(base, next);
    const auto note = [&](const std::string& benchmark) {
        for (const SeriesComparison& r : c.rows)
            if (r.scenario_id == "performance/mock/" + benchmark + "[variant=eager]" && r.series == "recompiles") {
                EXPECT_EQ(r.verdict, Verdict::slower) << benchmark;
                return r.note;
            }
        throw std::runtime_error("no recompiles row for " + benchmark);
    };
    EXPECT_EQ(note("model"), "recompiles 0 -> 2: tensor 'x' size mismatch at index 0. expected 8, actual 16");
    // A plugin that counted its recompiles without naming them: the warnings do.
    EXPECT_EQ(note("fixed"), "recompiles 0 -> 1 (the scenario's warnings name the guard that failed)");
}

TEST(Compare, AGrownCompilerCountIsSlowerWithoutStatistics) {
    // The same latency on both sides; the new side has a graph break (and so one graph
    // more): slower on the first run, whatever the samples say, with the break's reason.
    const RunRecord base = run({with_counts(outcome("model", latencies(10, 30, 1)), 0, 0, 1),
                                with_counts(outcome("fixed", latencies(10, 30, 3)), 2, 1, 3)});
    ScenarioOutcome broken = with_counts(outcome("model", latencies(10, 30, 2)), 1, 0, 2);
    broken.result.info["graph_break_reasons"] = "Unsupported Tensor.item() call with capture_scalar_outputs=False";
    const RunRecord next = run({broken, with_counts(outcome("fixed", latencies(10, 30, 4)), 0, 1, 1)});
    Comparison c = compare_runs(base, next);
    ASSERT_EQ(c.rows.size(), 8u);  // latency and three counts, per scenario
    const auto row = [&](const std::string& benchmark, const std::string& series) -> const SeriesComparison& {
        for (const SeriesComparison& r : c.rows)
            if (r.scenario_id == "performance/mock/" + benchmark + "[variant=eager]" && r.series == series) return r;
        throw std::runtime_error("no row " + benchmark + " " + series);
    };
    EXPECT_EQ(row("model", "latency").verdict, Verdict::same);
    const SeriesComparison& breaks = row("model", "graph_breaks");
    EXPECT_EQ(breaks.verdict, Verdict::slower);
    EXPECT_EQ(breaks.evidence, "count");
    EXPECT_EQ(breaks.unit, "count");
    EXPECT_EQ(breaks.base_median_ms, 0);
    EXPECT_EQ(breaks.new_median_ms, 1);
    EXPECT_EQ(breaks.note, "graph_breaks 0 -> 1: Unsupported Tensor.item() call with capture_scalar_outputs=False");
    EXPECT_EQ(row("model", "unique_graphs").verdict, Verdict::slower);
    EXPECT_NEAR(row("model", "unique_graphs").ratio, 2.0, 1e-12);
    EXPECT_EQ(row("model", "recompiles").verdict, Verdict::same);
    EXPECT_EQ(row("fixed", "graph_breaks").verdict, Verdict::faster);
    EXPECT_EQ(row("fixed", "recompiles").verdict, Verdict::same);
    EXPECT_EQ(c.regressions(), 2u);
    // The counts that changed come first, in the order of their scenarios; then the rest.
    ASSERT_GE(c.rows.size(), 3u);
    EXPECT_EQ(c.rows[0].series, "graph_breaks");
    EXPECT_EQ(c.rows[1].series, "unique_graphs");
    EXPECT_EQ(c.rows[2].scenario_id, "performance/mock/fixed[variant=eager]");
    EXPECT_EQ(c.rows[2].series, "graph_breaks");
    EXPECT_EQ(c.rows[3].series, "unique_graphs");
    EXPECT_EQ(c.rows[4].series, "latency");
    EXPECT_EQ(scenario_verdict(compare_outcomes(base.outcomes[0], next.outcomes[0], {})), Verdict::slower);
    // The counts stay out of the geometric mean of the timings.
    EXPECT_NEAR(c.geomean_ratio, 1.0, 0.02);

    // Shown as counts, not times; written and read back with their unit.
    c.base_label = "runs/base";
    c.new_label = "runs/new";
    const std::string table = comparison_table(c);
    const std::size_t at = table.find("]  graph_breaks");
    ASSERT_NE(at, std::string::npos) << table;
    const std::string line = table.substr(at, table.find('\n', at) - at);
    EXPECT_NE(line.find(" 0 "), std::string::npos) << line;
    EXPECT_NE(line.find(" 1 "), std::string::npos) << line;
    EXPECT_EQ(line.find("ms"), std::string::npos) << line;
    rapidjson::Document json;
    json.Parse(comparison_json(c).c_str());
    ASSERT_FALSE(json.HasParseError());
    bool found = false;
    for (const auto& r : json["rows"].GetArray()) {
        if (std::string(r["series"].GetString()) != "graph_breaks" ||
            std::string(r["scenario_id"].GetString()).find("/model[") == std::string::npos)
            continue;
        found = true;
        EXPECT_STREQ(r["unit"].GetString(), "count");
        EXPECT_STREQ(r["evidence"].GetString(), "count");
        EXPECT_STREQ(r["verdict"].GetString(), "slower");
        EXPECT_TRUE(r["ratio"].IsNull());  // 0 -> 1 has no ratio
    }
    EXPECT_TRUE(found);
    const Comparison back = parse_comparison(comparison_json(c), "comparison.json");
    ASSERT_EQ(back.rows.size(), c.rows.size());
    for (std::size_t i = 0; i < c.rows.size(); ++i) {
        EXPECT_EQ(back.rows[i].unit, c.rows[i].unit) << c.rows[i].series;
        EXPECT_EQ(back.rows[i].verdict, c.rows[i].verdict) << c.rows[i].series;
    }
}

TEST(Analysis, SpeedupOverEagerWithItsInterval) {
    RunRecord record =
        run({outcome("m", latencies(10, 30, 1)), outcome("m", latencies(5, 30, 2), bench::Variant::compiled)});
    const auto speedups = speedups_over_eager(record, record.outcomes[1]);
    ASSERT_EQ(speedups.size(), 1u);
    EXPECT_EQ(speedups[0].series, "latency");
    EXPECT_NEAR(speedups[0].value, 2.0, 0.05);
    EXPECT_TRUE(speedups[0].ci.contains(speedups[0].value));
    EXPECT_EQ(speedups[0].baseline_scenario_id, "performance/mock/m[variant=eager]");
    EXPECT_TRUE(speedups_over_eager(record, record.outcomes[0]).empty());  // eager itself
    record.outcomes[1].config.batch_size = 8;  // no eager scenario at batch 8
    EXPECT_TRUE(speedups_over_eager(record, record.outcomes[1]).empty());
}

ScenarioOutcome analyzed(bench::ScenarioResult result) {
    ScenarioOutcome outcome;
    outcome.result = std::move(result);
    compute_statistics(outcome);
    return outcome;
}

TEST(Analysis, WarnsAboutUnstableSeriesAndMissedTargets) {
    bench::ScenarioResult result;
    result.series.push_back({"latency", "ms", latencies(10, 50, 1, 0.5), 1});
    result.sampling["latency"] = {"max_time", 10.0, 50, 0.01, 0.08, 20, 20};
    const auto warnings = statistical_warnings(analyzed(result));
    ASSERT_EQ(warnings.size(), 2u);
    EXPECT_NE(warnings[0].find("latency is unstable"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[1].find("ran out before the 95% confidence interval of the median was 1% wide; it is 8% wide"),
              std::string::npos)
        << warnings[1];
    bench::ScenarioResult steady;
    steady.series.push_back({"latency", "ms", latencies(10, 50, 1, 0.01), 1});
    EXPECT_TRUE(statistical_warnings(analyzed(steady)).empty());
}

}  // namespace

namespace {

/// A scenario measured in `moments.size()` rounds of `per_round` samples: round i runs
/// at moments[i] times `median_ms` (the machine's load at that moment).
ScenarioOutcome in_rounds(const std::string& benchmark, double median_ms, const std::vector<double>& moments,
                          int per_round, unsigned seed) {
    std::vector<double> all;
    for (std::size_t i = 0; i < moments.size(); ++i) {
        const auto round = latencies(median_ms * moments[i], per_round, seed + static_cast<unsigned>(i), 0.005);
        all.insert(all.end(), round.begin(), round.end());
    }
    ScenarioOutcome o = outcome(benchmark, std::move(all));
    o.rounds = static_cast<int>(moments.size());
    o.round_sizes["latency"] = std::vector<std::size_t>(moments.size(), static_cast<std::size_t>(per_round));
    return o;
}

TEST(Compare, WithRoundsTheSpreadBetweenRoundsDecides) {
    // The same code, its rounds 8% apart from moment to moment: the samples alone call a
    // 4% difference of the pooled medians significant; over rounds it is not "slower".
    const std::vector<double> base_moments = {1.00, 0.96, 1.04}, new_moments = {1.08, 1.00, 1.04};
    const RunRecord base =
        run({in_rounds("noisy", 10, base_moments, 20, 10), in_rounds("slower", 10, base_moments, 20, 20)});
    const RunRecord next =
        run({in_rounds("noisy", 10, new_moments, 20, 30), in_rounds("slower", 13, new_moments, 20, 40)});
    const Comparison c = compare_runs(base, next, {.threshold = 0.05, .alpha = 0.05});
    ASSERT_EQ(c.rows.size(), 2u);
    const SeriesComparison& noisy = c.rows[0];
    EXPECT_EQ(noisy.evidence, "rounds");
    EXPECT_EQ(noisy.base_rounds, 3);
    EXPECT_LT(noisy.p_value, 0.01);  // what the samples alone would have said
    EXPECT_NE(noisy.verdict, Verdict::slower);
    EXPECT_LT(noisy.ratio_ci.low, 1.0);
    // 30% slower stands out of the same moments.
    EXPECT_EQ(c.rows[1].verdict, Verdict::slower);
    EXPECT_GT(c.rows[1].ratio_ci.low, 1.1);
    EXPECT_EQ(c.regressions(), 1u);

    const std::string table = comparison_table(c);
    EXPECT_NE(table.find("3 vs 3 rounds"), std::string::npos) << table;
    rapidjson::Document json;
    json.Parse(comparison_json(c).c_str());
    ASSERT_TRUE(json.IsObject());
    EXPECT_STREQ(json["rows"][0]["evidence"].GetString(), "rounds");
    EXPECT_EQ(json["rows"][0]["new_rounds"].GetInt(), 3);
    EXPECT_TRUE(json["rows"][0]["p_value"].IsNull());  // over rounds the U test is not the evidence
    EXPECT_TRUE(json["counts"].HasMember("inconclusive"));
}

TEST(Compare, RoundsOnOneSideOnlyFallBackToTheSamples) {
    const RunRecord base = run({in_rounds("x", 10, {1.0, 1.0}, 20, 1)});
    const RunRecord next = run({outcome("x", latencies(10, 40, 9))});
    const Comparison c = compare_runs(base, next);
    ASSERT_EQ(c.rows.size(), 1u);
    EXPECT_EQ(c.rows[0].evidence, "samples");
    EXPECT_EQ(c.rows[0].verdict, Verdict::same);
}

TEST(Compare, OneRunASideIsInconclusiveWithinTheNoiseFloor) {
    // One run a side cannot see the noise between runs: a 10% change, however
    // significant its samples, is inconclusive within a 15% floor; 40% is beyond it.
    const RunRecord base = run({outcome("ten", latencies(10, 30, 1)), outcome("forty", latencies(10, 30, 2)),
                                outcome("faster", latencies(10, 30, 3))});
    const RunRecord next = run({outcome("ten", latencies(11, 30, 4)), outcome("forty", latencies(14, 30, 5)),
                                outcome("faster", latencies(9, 30, 6))});
    const Comparison c = compare_runs(base, next, {.threshold = 0.05, .alpha = 0.05, .noise_floor = 0.15});
    ASSERT_EQ(c.rows.size(), 3u);
    EXPECT_LT(c.rows[0].p_value, 1e-6);
    EXPECT_GT(c.rows[0].ratio_ci.low, 1.05);  // what the samples say
    EXPECT_EQ(c.rows[0].verdict, Verdict::inconclusive);
    EXPECT_NE(c.rows[0].note.find("15% noise floor"), std::string::npos) << c.rows[0].note;
    EXPECT_EQ(c.rows[1].verdict, Verdict::slower);
    EXPECT_EQ(c.rows[2].verdict, Verdict::inconclusive);  // 10% faster: within the floor too
    const std::string table = comparison_table(c);
    EXPECT_NE(table.find("noise floor 15%"), std::string::npos) << table;
}

TEST(Compare, OneRunASideIsJudgedByTheHistorysNoiseWhenThereIsOne) {
    // The same runs as above, with the spread between runs learned from a history:
    // 1% between runs makes 10% slower (and faster) clear; 8% between runs does not.
    const RunRecord base = run({outcome("ten", latencies(10, 30, 1)), outcome("forty", latencies(10, 30, 2)),
                                outcome("faster", latencies(10, 30, 3))});
    const RunRecord next = run({outcome("ten", latencies(11, 30, 4)), outcome("forty", latencies(14, 30, 5)),
                                outcome("faster", latencies(9, 30, 6))});
    CompareOptions options{.threshold = 0.05, .alpha = 0.05, .noise_floor = 0.15};
    const std::string ten = next.outcomes[0].config.scenario_id(), forty = next.outcomes[1].config.scenario_id(),
                      faster = next.outcomes[2].config.scenario_id();
    options.history_noise[history_noise_key(ten, "latency")] = {0.01, 20};
    options.history_noise[history_noise_key(forty, "latency")] = {0.08, 20};
    options.history_noise[history_noise_key(faster, "latency")] = {0.01, 20};
    const Comparison c = compare_runs(base, next, options);
    ASSERT_EQ(c.rows.size(), 3u);
    EXPECT_EQ(c.rows[0].evidence, "history");
    EXPECT_EQ(c.rows[0].history_runs, 20u);
    EXPECT_EQ(c.rows[0].verdict, Verdict::slower);
    // 8% between runs: 40% is still clear, as the interval says (+-2.09 * 8% * sqrt 2).
    EXPECT_EQ(c.rows[1].verdict, Verdict::slower);
    EXPECT_NEAR(std::log(c.rows[1].ratio_ci.high / c.rows[1].ratio), 2.093 * 0.08 * std::sqrt(2.0), 1e-3);
    EXPECT_EQ(c.rows[2].verdict, Verdict::faster);
    EXPECT_NE(comparison_table(c).find("slower (noise of 20 runs in the history)"), std::string::npos)
        << comparison_table(c);
    // Noisier runs: 10% is within what the history's runs differ by.
    options.history_noise[history_noise_key(ten, "latency")] = {0.08, 20};
    const Comparison noisy = compare_runs(base, next, options);
    EXPECT_EQ(noisy.rows[0].verdict, Verdict::inconclusive);
    EXPECT_NE(noisy.rows[0].note.find("runs on this machine differ by 8%"), std::string::npos) << noisy.rows[0].note;
    // A series the history has no noise for: the noise floor, as before.
    options.history_noise.erase(history_noise_key(ten, "latency"));
    EXPECT_EQ(compare_runs(base, next, options).rows[0].evidence, "samples");
}

/// A side measured in rounds whose i-th round runs at moments[i] (the load of that
/// moment, shared by the other side's i-th round when they ran as a pair).
TEST(Compare, PairsCancelTheLoadTheyShare) {
    // Both sides' rounds swing by 30% together, as A/B pairs run back to back do. Pair by
    // pair, the same code is the same and 8% slower is slower; judged as unpaired rounds
    // the swing hides both.
    const std::vector<double> moments = {1.00, 1.30, 0.95, 1.20, 1.05, 1.25};
    std::vector<double> slower_moments;
    for (const double m : moments) slower_moments.push_back(m * 1.08);
    const RunRecord base = run({in_rounds("same", 10, moments, 15, 100), in_rounds("slower", 10, moments, 15, 200)});
    const RunRecord next =
        run({in_rounds("same", 10, moments, 15, 300), in_rounds("slower", 10, slower_moments, 15, 400)});
    // One series judged alone (a run of two reads each at 97.5%, which 6 pairs cannot reach).
    const Comparison paired =
        compare_runs(base, next, {.threshold = 0.05, .alpha = 0.05, .paired = true, .family_rows = 1});
    ASSERT_EQ(paired.rows.size(), 2u);
    EXPECT_EQ(paired.rows[0].evidence, "pairs");
    EXPECT_EQ(paired.rows[0].verdict, Verdict::same);
    EXPECT_EQ(paired.rows[1].verdict, Verdict::slower);
    EXPECT_NEAR(paired.rows[1].ratio, 1.08, 0.01);
    EXPECT_GT(paired.rows[1].ratio_ci.low, 1.0);
    const Comparison unpaired = compare_runs(base, next, {.threshold = 0.05, .alpha = 0.05});
    EXPECT_EQ(unpaired.rows[1].evidence, "rounds");
    EXPECT_NE(unpaired.rows[1].verdict, Verdict::slower);
    EXPECT_GT(unpaired.rows[1].ratio_ci.high - unpaired.rows[1].ratio_ci.low,
              3 * (paired.rows[1].ratio_ci.high - paired.rows[1].ratio_ci.low));
    EXPECT_NE(comparison_table(paired).find("slower (6 pairs)"), std::string::npos) << comparison_table(paired);
    rapidjson::Document json;
    json.Parse(comparison_json(paired).c_str());
    EXPECT_STREQ(json["mode"].GetString(), "ab");
    EXPECT_STREQ(json["rows"][1]["evidence"].GetString(), "pairs");
    EXPECT_TRUE(json["rows"][1]["p_value"].IsNull());
}

/// An A/B scenario as the A/B loop looks at it: `first_look` pairs, then one pair at a
/// time while the verdict is inconclusive, up to `max_pairs`. A pair's rounds share the
/// moment's load (up to 30%); each round's own noise is 2.8% (4% on a pair's ratio).
/// Returns the verdict the loop ends with.
Verdict looked_at_pair_by_pair(unsigned seed, double slowdown, double threshold, double later_looks_level) {
    constexpr std::size_t first_look = 6, max_pairs = 40;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> load(1.0, 1.3);
    std::normal_distribution<double> own(0.0, 0.028);
    std::vector<double> base_moments, new_moments;
    CompareOptions options{.threshold = threshold, .paired = true};
    options.first_look_pairs = first_look;
    options.later_looks_level = later_looks_level;
    for (;;) {
        const std::size_t pairs = base_moments.empty() ? first_look : base_moments.size() + 1;
        while (base_moments.size() < pairs) {
            const double moment = load(rng);
            base_moments.push_back(moment * std::exp(own(rng)));
            new_moments.push_back(moment * slowdown * std::exp(own(rng)));
        }
        const unsigned round_seed = seed * 1000;
        const std::vector<SeriesComparison> rows =
            compare_outcomes(in_rounds("x", 10, base_moments, 5, round_seed),
                             in_rounds("x", 10, new_moments, 5, round_seed + 500), options);
        if (rows.front().verdict != Verdict::inconclusive || base_moments.size() >= max_pairs)
            return rows.front().verdict;
    }
}

TEST(Compare, PairsLookedAtAgainAndAgainStillRarelyCallABuildSlowerThanItself) {
    // At a 1% threshold a pair's 4% noise keeps the same build inconclusive for long, and
    // the A/B loop reads its verdict after every pair, up to 40. Each look at 95% adds its
    // own chance of a false alarm; reading the looks past the first at 99% keeps them
    // together near one look's rate, and a 2% regression is still found most times.
    constexpr int trials = 400;
    int slower_corrected = 0, slower_every_look_at_95 = 0, found = 0;
    for (unsigned seed = 1; seed <= trials; ++seed) {
        slower_corrected += looked_at_pair_by_pair(seed, 1.0, 0.01, 0.99) == Verdict::slower;
        slower_every_look_at_95 += looked_at_pair_by_pair(seed, 1.0, 0.01, 0.95) == Verdict::slower;
        found += looked_at_pair_by_pair(seed, 1.02, 0.01, 0.99) == Verdict::slower;
    }
    EXPECT_LE(slower_corrected, trials * 5 / 100) << "the same build called slower";
    EXPECT_GT(slower_every_look_at_95, 2 * slower_corrected) << "every look at 95%: " << slower_every_look_at_95;
    EXPECT_GE(found, trials * 60 / 100) << "2% slower found";
    std::cout << "same build slower: " << slower_corrected << " of " << trials
              << " (every look at 95%: " << slower_every_look_at_95 << "); 2% slower found: " << found << "\n";
}

/// One series of an A/B run of `family` series, looked at as the A/B loop does (6 pairs,
/// then one at a time while inconclusive, up to 40), on a machine whose load comes in
/// bursts: each pair's log ratio has 3% of noise, and in one pair of 8 a burst slows one
/// of its two rounds (either side alike) by 10% to 60%. True when it ends slower.
bool slower_in_a_bursty_run(unsigned seed, double slowdown, std::size_t family) {
    constexpr std::size_t first_look = 6, max_pairs = 40;
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> own(0.0, 0.03 / std::sqrt(2.0));
    std::uniform_real_distribution<double> unit(0.0, 1.0), burst(1.1, 1.6);
    std::vector<double> base_moments, new_moments;
    CompareOptions options{.threshold = 0.05, .paired = true, .family_rows = family};
    options.first_look_pairs = first_look;
    for (;;) {
        const std::size_t pairs = base_moments.empty() ? first_look : base_moments.size() + 1;
        while (base_moments.size() < pairs) {
            double base_moment = std::exp(own(rng)), new_moment = slowdown * std::exp(own(rng));
            if (unit(rng) < 1.0 / 8) (unit(rng) < 0.5 ? base_moment : new_moment) *= burst(rng);
            base_moments.push_back(base_moment);
            new_moments.push_back(new_moment);
        }
        const std::vector<SeriesComparison> rows =
            compare_outcomes(in_rounds("x", 10, base_moments, 5, seed * 1000),
                             in_rounds("x", 10, new_moments, 5, seed * 1000 + 500), options);
        if (rows.front().verdict != Verdict::inconclusive || base_moments.size() >= max_pairs)
            return rows.front().verdict == Verdict::slower;
    }
}

TEST(Compare, ARunOfManySeriesRarelyCallsAnyOfThemSlower) {
    // The gate fails a run when any one series is slower. An A/B run of the two mocks
    // compares 24 series: each read at 95% alone, a burst of load that leans a series' first
    // pairs one way fails the same build far more often than one series would. Read at the
    // level divided among the 24, the run as a whole keeps to about one series' rate, and a
    // 20% slowdown of one of them is still found.
    constexpr unsigned runs = 100;
    constexpr std::size_t series = 24;
    int alarms_divided = 0, alarms_each_alone = 0, found = 0;
    for (unsigned run = 0; run < runs; ++run) {
        bool divided = false, alone = false;
        for (std::size_t k = 0; k < series; ++k) {
            const unsigned seed = run * 100 + static_cast<unsigned>(k) + 1;
            divided = slower_in_a_bursty_run(seed, 1.0, series) || divided;
            alone = slower_in_a_bursty_run(seed, 1.0, 1) || alone;
        }
        alarms_divided += divided;
        alarms_each_alone += alone;
        found += slower_in_a_bursty_run(run + 50000, 1.2, series);
    }
    std::cout << "same build, runs of " << series << " series failing: " << alarms_divided << " of " << runs
              << " (each series at 95% alone: " << alarms_each_alone << "); 20% slower found: " << found << "\n";
    EXPECT_LE(alarms_divided, 5) << "the same build failed the gate";
    EXPECT_GE(alarms_each_alone, 2 * std::max(alarms_divided, 2)) << "the division made no difference here";
    EXPECT_GE(found, 90) << "a 20% slowdown of one series";
}

TEST(Compare, ARowOfARunOfManySeriesSaysWhyItWaits) {
    // Six pairs all 20% slower: alone, slower at the first look; one of 24 series, its
    // level is 99.79%, which 6 pairs cannot reach: it waits for 10, and says so.
    const std::vector<double> base_moments = {1.00, 1.10, 0.95, 1.20, 1.05, 1.15};
    std::vector<double> new_moments;
    for (const double m : base_moments) new_moments.push_back(m * 1.2);
    const ScenarioOutcome base = in_rounds("x", 10, base_moments, 5, 7), next = in_rounds("x", 10, new_moments, 5, 8);
    CompareOptions options{.threshold = 0.05, .paired = true, .family_rows = 1};
    EXPECT_EQ(compare_outcomes(base, next, options).front().verdict, Verdict::slower);
    options.family_rows = 24;
    const SeriesComparison row = compare_outcomes(base, next, options).front();
    EXPECT_EQ(row.verdict, Verdict::inconclusive);
    EXPECT_NEAR(row.verdict_level, 1 - 0.05 / 24, 1e-12);
    EXPECT_NE(row.note.find("6 pairs: 10 are needed for a 99.79% interval (95% divided among the 24 series this run "
                            "compares)"),
              std::string::npos)
        << row.note;
    // The same build at the same six moments is same: calling a change absent is no alarm.
    const SeriesComparison same = compare_outcomes(base, in_rounds("x", 10, base_moments, 5, 9), options).front();
    EXPECT_EQ(same.verdict, Verdict::same);
    EXPECT_EQ(same.verdict_level, 0.95);
    // compare_runs counts the series itself: two scenarios of one time series each.
    const RunRecord a = run({in_rounds("one", 10, base_moments, 5, 1), in_rounds("two", 10, base_moments, 5, 2)});
    const RunRecord b = run({in_rounds("one", 10, new_moments, 5, 3), in_rounds("two", 10, base_moments, 5, 4)});
    const Comparison counted = compare_runs(a, b, {.threshold = 0.05, .paired = true});
    EXPECT_EQ(counted.options.family_rows, 2u);
    EXPECT_NEAR(counted.rows[0].verdict_level, 0.975, 1e-12);
}

TEST(Compare, PastTheFirstLookThePairsVerdictReadsTheStricterInterval) {
    // Eight pairs, 3% slower with 1% noise: the 95% interval excludes no change; read
    // as the first look it is slower, read past a first look of 6 pairs at 99%.
    const std::vector<double> base_moments = {1.00, 1.10, 0.95, 1.20, 1.05, 1.15, 1.00, 1.10};
    std::vector<double> new_moments;
    const std::vector<double> own = {1.040, 1.021, 1.035, 1.018, 1.045, 1.025, 1.030, 1.019};
    for (std::size_t i = 0; i < base_moments.size(); ++i) new_moments.push_back(base_moments[i] * own[i]);
    const ScenarioOutcome base = in_rounds("x", 10, base_moments, 5, 7), next = in_rounds("x", 10, new_moments, 5, 8);
    CompareOptions options{.threshold = 0.01, .paired = true};
    options.first_look_pairs = 8;
    const SeriesComparison first_look = compare_outcomes(base, next, options).front();
    EXPECT_EQ(first_look.verdict, Verdict::slower);
    EXPECT_EQ(first_look.verdict_level, 0.95);
    options.first_look_pairs = 6;
    const SeriesComparison later = compare_outcomes(base, next, options).front();
    EXPECT_EQ(later.verdict_level, 0.99);
    EXPECT_LE(later.verdict_ci.low, later.ratio_ci.low);
    EXPECT_GE(later.verdict_ci.high, later.ratio_ci.high);
    EXPECT_EQ(later.ratio_ci.low, first_look.ratio_ci.low) << "the 95% interval is shown either way";
    rapidjson::Document json;
    Comparison c;
    c.options = options;
    c.rows = {later};
    json.Parse(comparison_json(c).c_str());
    EXPECT_DOUBLE_EQ(json["rows"][0]["verdict_level"].GetDouble(), 0.99);
    EXPECT_EQ(json["rows"][0]["verdict_ci"].Size(), 2u);
    if (later.verdict == Verdict::inconclusive) {
        EXPECT_NE(later.note.find("past the first 6 pairs the verdict reads the 99% interval"), std::string::npos)
            << later.note;
    }
}

TEST(Compare, AConfirmedRowKeepsItsFirstFigures) {
    // Flagged slower after 3 rounds that a load spike slowed; 3 more rounds of the
    // confirmation say otherwise. The row is judged over all 6 and keeps the first 3's.
    const RunRecord base = run({in_rounds("spike", 10, {1.0, 1.01, 0.99}, 20, 1)});
    ScenarioOutcome flagged = in_rounds("spike", 10, {1.20, 1.22, 1.19, 1.0, 1.01, 0.99, 1.0, 0.995}, 20, 50);
    flagged.first_rounds = 3;
    const Comparison c = compare_runs(base, run({flagged}), {.threshold = 0.05});
    ASSERT_EQ(c.rows.size(), 1u);
    const SeriesComparison& row = c.rows[0];
    ASSERT_TRUE(row.first.has_value());
    EXPECT_EQ(row.first->verdict, Verdict::slower);
    EXPECT_EQ(row.first->new_rounds, 3);
    EXPECT_NEAR(row.first->ratio, 1.2, 0.03);
    EXPECT_NE(row.verdict, Verdict::slower);
    EXPECT_EQ(row.new_rounds, 8);
    const std::string table = comparison_table(c);
    EXPECT_NE(table.find("not confirmed"), std::string::npos) << table;
    rapidjson::Document json;
    json.Parse(comparison_json(c).c_str());
    ASSERT_TRUE(json["rows"][0].HasMember("first"));
    EXPECT_STREQ(json["rows"][0]["first"]["verdict"].GetString(), "slower");
    EXPECT_EQ(json["rows"][0]["first"]["new_rounds"].GetInt(), 3);
}

TEST(Compare, TheLoadOfEachSideFromItsCpuMonitor) {
    const auto monitored = [](double machine_percent, double own_percent) {
        ScenarioOutcome o = outcome("x", latencies(10, 30, 1));
        bench::MonitorReport& cpu = o.result.monitors["cpu_metrics"];
        cpu.available = true;
        cpu.metrics["system_cpu_utilization"].mean = machine_percent;
        cpu.metrics["cpu_utilization"].mean = own_percent;
        cpu.metrics["load_average"].mean = 1.5;
        cpu.values["cpus_available"] = {4, "CPUs"};
        return o;
    };
    const Comparison c = compare_runs(run({monitored(50, 100)}), run({outcome("x", latencies(10, 30, 2))}));
    EXPECT_EQ(c.base_load.scenarios, 1u);
    EXPECT_DOUBLE_EQ(c.base_load.machine_busy_percent, 50);
    EXPECT_DOUBLE_EQ(c.base_load.other_cpus, 1.0);  // 2 of 4 CPUs busy, 1 of them the benchmark
    EXPECT_DOUBLE_EQ(c.base_load.load_average, 1.5);
    EXPECT_EQ(c.new_load.scenarios, 0u);
    const std::string table = comparison_table(c);
    EXPECT_NE(table.find("base: machine 50% busy, 1.00 CPUs used by other processes"), std::string::npos) << table;
    EXPECT_NE(table.find("new: not monitored"), std::string::npos) << table;
}

TEST(Compare, ThePageHasTheTableAndAChartOfTheRatios) {
    const Comparison c =
        compare_runs(run({outcome("a", latencies(10, 30, 1))}), run({outcome("a", latencies(14, 30, 2))}));
    const std::string page = comparison_html(c, "A/B <test>", {{"base side", "base/report.html"}});
    EXPECT_NE(page.find("<title>A/B &lt;test&gt;</title>"), std::string::npos);
    EXPECT_NE(page.find("<svg"), std::string::npos);
    EXPECT_NE(page.find("href=\"base/report.html\""), std::string::npos);
    EXPECT_NE(page.find("performance/mock/a"), std::string::npos);
    EXPECT_NE(page.find(">slower<"), std::string::npos);
    // The verdicts first, in boxes, the slower one in red; the table sorts and filters.
    EXPECT_NE(page.find("<div><b class=\"status bad\">1</b>slower</div><div><b class=\"status\">0</b>faster</div>"),
              std::string::npos)
        << page;
    EXPECT_LT(page.find("class=\"totals\""), page.find("<table"));
    EXPECT_NE(page.find("<table class=\"scenarios sortable filterable\">"), std::string::npos);
    EXPECT_NE(page.find("<div id=\"filter-box\"></div>"), std::string::npos);
    EXPECT_EQ(page.find("<script src"), std::string::npos);
    EXPECT_NE(page.find("<script>"), std::string::npos);
}

}  // namespace
