// When an A/B run warns that a scenario ran a thread on every CPU while other processes
// competed for them.
#include "analysis/thread_contention.hpp"

#include <gtest/gtest.h>

#include "../../support/builders.hpp"

namespace {

using namespace benchhost;

SideLoad load(double other_cpus) {
    SideLoad side;
    side.scenarios = 1;
    side.machine_busy_percent = 90;
    side.other_cpus = other_cpus;
    side.load_average = 2;
    return side;
}

const std::vector<ScenarioThreads> scenarios = {{"performance/tensor_ops/matmul[threads=2]", 2},
                                                {"performance/tensor_ops/matmul[threads=1]", 1}};

TEST(ThreadContention, AThreadOnEveryCpuUnderLoadIsNamedWithFewerThreadsSuggested) {
    const auto warning = thread_per_cpu_warning(scenarios, 2, load(0.05), load(0.6));
    ASSERT_TRUE(warning.has_value());
    EXPECT_NE(warning->find("1 scenario ran a thread on each of the 2 CPUs available"), std::string::npos) << *warning;
    EXPECT_NE(warning->find("(on average base 0.05 CPUs, new 0.60 CPUs)"), std::string::npos) << *warning;
    EXPECT_NE(warning->find("(--threads 1): performance/tensor_ops/matmul[threads=2]"), std::string::npos) << *warning;
    EXPECT_EQ(warning->find("[threads=1]"), std::string::npos) << *warning;
    // More threads than CPUs crowd them as much.
    EXPECT_TRUE(thread_per_cpu_warning({{"a", 8}}, 4, load(0.3), load(0.3)).has_value());
}

TEST(ThreadContention, NoWarningWithoutCompetitionOrWithACpuLeftOver) {
    // Under the bar on both sides, or not monitored.
    EXPECT_FALSE(thread_per_cpu_warning(scenarios, 2, load(0.1), load(competing_cpus_bar)).has_value());
    EXPECT_FALSE(thread_per_cpu_warning(scenarios, 2, SideLoad{}, SideLoad{}).has_value());
    // Fewer threads than CPUs leave the load a core.
    EXPECT_FALSE(thread_per_cpu_warning(scenarios, 4, load(1.5), load(1.5)).has_value());
    // One CPU: no number of threads leaves one free; unknown CPUs: nothing to say.
    EXPECT_FALSE(thread_per_cpu_warning({{"a", 1}}, 1, load(0.5), load(0.5)).has_value());
    EXPECT_FALSE(thread_per_cpu_warning(scenarios, 0, load(0.5), load(0.5)).has_value());
}

TEST(ThreadContention, ManyScenariosAreCountedAndTheFirstNamed) {
    std::vector<ScenarioThreads> many;
    for (int i = 0; i < 7; ++i) many.push_back({"s" + std::to_string(i), 2});
    const auto warning = thread_per_cpu_warning(many, 2, load(0.5), load(0.5));
    ASSERT_TRUE(warning.has_value());
    EXPECT_NE(warning->find("7 scenarios ran"), std::string::npos) << *warning;
    EXPECT_NE(warning->find("give them fewer threads"), std::string::npos) << *warning;
    EXPECT_NE(warning->find(": s0, s1, s2, s3, s4 and 2 more"), std::string::npos) << *warning;
}

TEST(ThreadContention, TheThreadsOfTheRunsAndTheCpusOfTheMachine) {
    // The threads a plugin reported running with come first; else the axis; else unknown.
    ScenarioOutcome reported = benchtest::Outcome("performance", "tensor_ops", "matmul").axis("threads", "0").build();
    reported.result.info["threads"] = "2";
    ScenarioOutcome configured = benchtest::Outcome("performance", "mock", "a").axis("threads", "2").build();
    configured.config.threads = 2;
    const ScenarioOutcome unknown = benchtest::Outcome("performance", "mock", "b").build();
    RunRecord base, next;
    base.outcomes = {reported, configured, unknown};
    next.outcomes = {reported};
    const std::vector<ScenarioThreads> threads = scenario_threads(base);
    ASSERT_EQ(threads.size(), 2u);
    EXPECT_EQ(threads[0].scenario_id, reported.config.scenario_id());
    EXPECT_EQ(threads[0].threads, 2);
    EXPECT_EQ(threads[1].threads, 2);

    base.hardware["cpu"]["cpus_available"] = "2";
    const auto warning = thread_per_cpu_warning(base, next, load(0.4), load(0.4));
    ASSERT_TRUE(warning.has_value());
    EXPECT_NE(warning->find("2 scenarios ran"), std::string::npos) << *warning;
    base.hardware["cpu"]["cpus_available"] = "4";
    EXPECT_FALSE(thread_per_cpu_warning(base, next, load(0.4), load(0.4)).has_value());
}

}  // namespace
