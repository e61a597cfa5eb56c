// What a run's scenarios become in the history (history/history_rows.cpp): the compiler's
// figures beside the series, a count as one value of unit count, a cold compile's time
// as one value in ms.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/scenario_statistics.hpp"
#include "history/history_store.hpp"

#include "../../support/builders.hpp"

namespace {

using namespace benchhost;

const HistorySeries* find(const HistoryScenario& scenario, const std::string& name) {
    for (const HistorySeries& series : scenario.series)
        if (series.name == name) return &series;
    return nullptr;
}

ScenarioOutcome compiled(const std::string& name, const std::string& compile_cache) {
    return benchtest::Outcome("unit", name, name).series("latency", "ms", {1, 2, 3}).edit([&](ScenarioOutcome& o) {
        o.config.variant = bench::Variant::compiled;
        o.config.compile_cache = compile_cache;
        o.result.scalars.push_back({"graph_breaks", 1, "count"});
    });
}

TEST(HistoryRows, AColdCompilesTimeIsAOneValueSeriesAndAWarmOnesIsLeftOut) {
    ScenarioOutcome cold = compiled("cold", "cold");
    cold.result.scalars.push_back({"compile_time", 2.5, "s"});
    ScenarioOutcome jax = compiled("jax", "cold");  // JAX's lowering and compile, recorded apart
    jax.result.scalars.push_back({"lowering_s", 0.5, "s"});
    jax.result.scalars.push_back({"compile_s", 1.5, "s"});
    ScenarioOutcome warm = compiled("warm", "warm");
    warm.result.scalars.push_back({"compile_time", 900, "ms"});
    ScenarioOutcome loaded = compiled("loaded", "cold");  // nothing compiled: no compile time
    RunRecord record = benchtest::record_of({cold, jax, warm, loaded});
    analyze_run(record);

    const std::vector<HistoryScenario> scenarios = history_scenarios_of(record, true);
    ASSERT_EQ(scenarios.size(), 4u);
    const HistorySeries* time = find(scenarios[0], "compile_time");
    ASSERT_NE(time, nullptr);
    EXPECT_EQ(time->unit, "ms");
    EXPECT_DOUBLE_EQ(time->summary.median, 2500);
    EXPECT_EQ(time->samples, std::vector<double>{2500});
    ASSERT_NE(find(scenarios[1], "compile_time"), nullptr);
    EXPECT_DOUBLE_EQ(find(scenarios[1], "compile_time")->summary.median, 2000);
    EXPECT_EQ(find(scenarios[2], "compile_time"), nullptr) << "a warm compile hangs on what the caches held";
    EXPECT_EQ(find(scenarios[3], "compile_time"), nullptr);
    for (const HistoryScenario& scenario : scenarios) {
        ASSERT_NE(find(scenario, "graph_breaks"), nullptr) << scenario.scenario_id;
        EXPECT_EQ(find(scenario, "graph_breaks")->unit, "count");
        EXPECT_NE(find(scenario, "latency"), nullptr);
    }
}

TEST(HistoryRows, ACompilerCountKeepsItsReasonsAsItsNote) {
    ScenarioOutcome broken = compiled("broken", "warm");
    broken.result.info["graph_break_reasons"] = "Unsupported Tensor.item() call with capture_scalar_outputs=False";
    broken.result.scalars.push_back({"recompiles", 2, "count"});
    broken.result.info["recompile_reasons"] = "tensor 'x' size mismatch at index 0. expected 8, actual 16";
    broken.result.scalars.push_back({"unique_graphs", 2, "count"});
    ScenarioOutcome whole = compiled("whole", "warm");  // a count without reasons recorded
    whole.result.scalars.push_back({"recompiles", 1, "count"});
    RunRecord record = benchtest::record_of({broken, whole});
    analyze_run(record);

    const std::vector<HistoryScenario> scenarios = history_scenarios_of(record, false);
    ASSERT_EQ(scenarios.size(), 2u);
    ASSERT_NE(find(scenarios[0], "graph_breaks"), nullptr);
    EXPECT_EQ(find(scenarios[0], "graph_breaks")->note,
              "Unsupported Tensor.item() call with capture_scalar_outputs=False");
    ASSERT_NE(find(scenarios[0], "recompiles"), nullptr);
    EXPECT_EQ(find(scenarios[0], "recompiles")->note, "tensor 'x' size mismatch at index 0. expected 8, actual 16");
    ASSERT_NE(find(scenarios[0], "unique_graphs"), nullptr);
    EXPECT_EQ(find(scenarios[0], "unique_graphs")->note, "") << "a count with no reasons of its own";
    EXPECT_EQ(find(scenarios[0], "latency")->note, "");
    EXPECT_EQ(find(scenarios[1], "graph_breaks")->note, "");
    ASSERT_NE(find(scenarios[1], "recompiles"), nullptr);
    EXPECT_EQ(find(scenarios[1], "recompiles")->note, "");
}

}  // namespace
