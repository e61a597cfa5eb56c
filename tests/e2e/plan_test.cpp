// End to end: what a run plans, as the user sees it. An empty plan fails unless
// --allow-empty; a plugins: section naming no plugin is warned about; only axis values
// the user set are warned about; variants a plugin does not declare are not planned;
// --axis sweeps a custom axis.
#include <gtest/gtest.h>

#include <map>

#include "../support/mock_run.hpp"

namespace {

using namespace benchtest;

const fs::path multi_plugin = fs::path(BENCH_TEST_FIXTURE_PLUGIN_DIR) / "unit/libfixture_multi.so";
const fs::path two_variants_plugin = fs::path(BENCH_TEST_PLAN_FIXTURE_DIR) / "performance/libfixture_two_variants.so";

/// Each test installs the plugins it plans.
class PlanTest : public HostRunTest {
protected:
    ProcessResult run(const std::vector<std::string>& args) {
        std::vector<std::string> options = {"--monitor-interval", "0"};
        options.insert(options.end(), args.begin(), args.end());
        return run_into(output, options);
    }

    static std::string describe(const ProcessResult& result) {
        return "exit " + std::to_string(result.exit_code) + "\n--- stdout\n" + result.out + "\n--- stderr\n" +
               result.err;
    }

    /// The value of the scalar `name` in each scenario of `plugin`'s report, by scenario name.
    std::map<std::string, double> scalars(const std::string& plugin, const std::string& name) {
        std::map<std::string, double> out;
        const auto reports = files_matching(output / plugin, plugin + "_", ".json");
        if (reports.size() != 1) return out;
        const auto report = read_json(reports[0]);
        for (const auto& scenario : report["benchmark_scenarios"].GetArray())
            out[scenario["scenario_name"].GetString()] = scenario["measurements"][name.c_str()]["value"].GetDouble();
        return out;
    }

    fs::path output = work / "out";
};

TEST_F(PlanTest, AnIncludeMatchingNothingExitsOneAndSaysWhatWasFound) {
    install_plugin(mock_plugin(), plugins, "performance");
    install_plugin(multi_plugin, plugins, "unit");
    const ProcessResult result = run({"--include", "trivial"});
    EXPECT_EQ(result.exit_code, 1) << describe(result);
    EXPECT_NE(result.err.find("error: nothing to run: the plan has no scenarios"), std::string::npos) << result.err;
    EXPECT_NE(
        result.err.find("found in " + plugins.string() +
                        ": unit: 1 plugin (3 benchmarks); integration: none; performance: 1 plugin (2 benchmarks)"),
        std::string::npos)
        << result.err;
    EXPECT_NE(result.err.find("--include 'trivial' matches none of the 5 benchmarks (ids look like "
                              "unit/fixture_multi/alpha, unit/fixture_multi/beta, unit/fixture_multi/gamma; "
                              "`benchhost list` shows them all)"),
              std::string::npos)
        << result.err;
    EXPECT_NE(result.err.find("with --allow-empty an empty plan exits 0"), std::string::npos) << result.err;
    EXPECT_FALSE(fs::exists(output));  // nothing was run or written

    // The same plan with --allow-empty, or allow_empty in the config, is a run of nothing.
    const ProcessResult allowed = run({"--include", "trivial", "--allow-empty"});
    EXPECT_EQ(allowed.exit_code, 0) << describe(allowed);
    EXPECT_EQ(read_json(output / "benchmark_summary.json")["run_metadata"]["total_benchmarks"].GetInt(), 0);
    fs::remove_all(output);
    write_file(work / "allow.yaml", "allow_empty: true\ninclude: [trivial]\n");
    const ProcessResult from_config = run({"--config", (work / "allow.yaml").string()});
    EXPECT_EQ(from_config.exit_code, 0) << describe(from_config);
}

TEST_F(PlanTest, APluginOutsideTheCategoryFoldersIsNamedWhenNothingIsPlanned) {
    fs::create_directories(plugins);
    fs::copy_file(mock_plugin(), plugins / "libmock_benchmark.so");
    const ProcessResult result = run({"--enable-mock"});
    EXPECT_EQ(result.exit_code, 1) << describe(result);
    EXPECT_NE(result.err.find("unit: none; integration: none; performance: none"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find((plugins / "libmock_benchmark.so").string() +
                              ": not in a category folder (unit, integration or performance)"),
              std::string::npos)
        << result.err;
    EXPECT_NE(result.err.find("plugins are lib<name>.so files in " + (plugins / "unit").string()), std::string::npos)
        << result.err;
}

TEST_F(PlanTest, ADryRunOfAnEmptyPlanExitsAsTheRunWould) {
    install_plugin(mock_plugin(), plugins, "performance");
    const ProcessResult dry = run({"--dry-run", "--category", "unit"});
    EXPECT_EQ(dry.exit_code, 1) << describe(dry);
    EXPECT_NE(dry.out.find("Plan: 0 scenarios from 1 plugin"), std::string::npos) << dry.out;
    EXPECT_NE(dry.err.find("--category unit: no benchmarks were found in that category"), std::string::npos) << dry.err;
    const ProcessResult allowed = run({"--dry-run", "--category", "unit", "--allow-empty"});
    EXPECT_EQ(allowed.exit_code, 0) << describe(allowed);
    EXPECT_NE(allowed.err.find("warning: the plan has no scenarios (--allow-empty: not an error)"), std::string::npos)
        << allowed.err;
    EXPECT_FALSE(fs::exists(output));
}

TEST_F(PlanTest, AnEmptyShardOfAPlanIsNotAnError) {
    install_plugin(mock_plugin(), plugins, "performance");
    // One benchmark at one point of the axes: one group of variants, so shard 2/2 gets nothing.
    const ProcessResult result = run({"--enable-mock", "--include", "mock_benchmark/mock_benchmark", "--variants",
                                      "eager", "--measurement-iterations", "2", "--shard", "2/2"});
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    const auto summary = read_json(output / "benchmark_summary.json");
    EXPECT_EQ(summary["run_metadata"]["total_benchmarks"].GetInt(), 0);
    EXPECT_EQ(summary["run_metadata"]["shard"]["plan_scenarios"].GetInt(), 1);
}

TEST_F(PlanTest, APluginsSectionNamingNoPluginIsWarnedAboutWithTheNearestName) {
    install_plugin(mock_plugin(), plugins, "performance");
    write_file(work / "typo.yaml", "enable_mock: true\nplugins:\n  mock_benchmrk:\n    batch_sizes: [2]\n");
    const ProcessResult result = run({"--dry-run", "--config", (work / "typo.yaml").string()});
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_NE(result.out.find("warning: " + (work / "typo.yaml").string() +
                              ":3:3: unknown plugin 'mock_benchmrk' in plugins (did you mean 'mock_benchmark'?): "
                              "no plugin of that name was found in " +
                              plugins.string() + ", so its settings are not used"),
              std::string::npos)
        << result.out;
    EXPECT_NE(result.out.find("mock_benchmark[variant=eager,batch_size=1]"), std::string::npos) << result.out;
}

TEST_F(PlanTest, OnlyAxisValuesTheUserSetAreWarnedAbout) {
    install_plugin(multi_plugin, plugins, "unit");  // no axes at all
    // The built-in defaults (three variants) never warn.
    const ProcessResult quiet = run({"--measurement-iterations", "2", "--include", "alpha"});
    EXPECT_EQ(quiet.exit_code, 0) << describe(quiet);
    EXPECT_EQ(quiet.err.find("does not vary"), std::string::npos) << quiet.err;

    const ProcessResult told = run({"--dry-run", "--variants", "eager,compiled"});
    EXPECT_EQ(told.exit_code, 0) << describe(told);
    EXPECT_NE(told.out.find("warning: fixture_multi does not vary over variant: of eager,compiled (--variants) only "
                            "the first (eager) is used"),
              std::string::npos)
        << told.out;

    write_file(work / "axes.yaml", "variants: [compiled, eager]\n");
    const ProcessResult yaml = run({"--dry-run", "--config", (work / "axes.yaml").string()});
    EXPECT_NE(yaml.out.find("fixture_multi does not vary over variant: of compiled,eager (" +
                            (work / "axes.yaml").string() + ":1:11) only the first (compiled) is used"),
              std::string::npos)
        << yaml.out;
}

TEST_F(PlanTest, VariantsAPluginDoesNotDeclareAreNotPlanned) {
    install_plugin(two_variants_plugin, plugins, "performance");
    const ProcessResult dry = run({"--dry-run"});
    EXPECT_EQ(dry.exit_code, 0) << describe(dry);
    // Its own benchmark in eager and compiled; eager_only, which declares eager alone, in eager.
    EXPECT_NE(dry.out.find("Plan: 3 scenarios"), std::string::npos) << dry.out;
    EXPECT_EQ(dry.out.find("variant=kernelized"), std::string::npos) << dry.out;
    EXPECT_EQ(dry.out.find("eager_only[variant=compiled"), std::string::npos) << dry.out;
    EXPECT_NE(dry.out.find("note: fixture_two_variants: kernelized not planned (the plugin declares eager,compiled)"),
              std::string::npos)
        << dry.out;
    EXPECT_NE(
        dry.out.find("note: fixture_two_variants/eager_only: compiled not planned (the benchmark declares eager)"),
        std::string::npos)
        << dry.out;

    // Run for real: a scenario of an undeclared variant would fail if it were started.
    const ProcessResult real = run({"--measurement-iterations", "2"});
    EXPECT_EQ(real.exit_code, 0) << describe(real);
    EXPECT_EQ(read_json(output / "benchmark_summary.json")["run_metadata"]["successful_runs"].GetInt(), 3);

    // Asking only for variants a benchmark lacks leaves it out, with a note: its plugin has others.
    const ProcessResult compiled = run({"--dry-run", "--variants", "compiled"});
    EXPECT_EQ(compiled.exit_code, 0) << describe(compiled);
    EXPECT_NE(compiled.out.find("Plan: 1 scenario"), std::string::npos) << compiled.out;
    EXPECT_NE(
        compiled.out.find("note: fixture_two_variants/eager_only: not planned: the benchmark declares eager, none "
                          "of the variants asked for (compiled, from --variants)"),
        std::string::npos)
        << compiled.out;

    // Asking only for what the plugin lacks is a warning naming it, and here an empty plan.
    const ProcessResult lacking = run({"--dry-run", "--variants", "kernelized"});
    EXPECT_EQ(lacking.exit_code, 1) << describe(lacking);
    EXPECT_NE(lacking.err.find("fixture_two_variants: not planned: the plugin declares eager,compiled, none of the "
                               "variants asked for (kernelized, from --variants)"),
              std::string::npos)
        << lacking.err;
}

TEST_F(PlanTest, AxisOptionSweepsACustomAxisAndOverridesTheConfig) {
    install_plugin(two_variants_plugin, plugins, "performance");
    const ProcessResult result = run(
        {"--variants", "eager", "--axis", "size=1,2,3", "--measurement-iterations", "2", "--warmup-iterations", "0"});
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    const std::map<std::string, double> expected = {
        {"fixture_two_variants[variant=eager,size=1]", 1}, {"fixture_two_variants[variant=eager,size=2]", 2},
        {"fixture_two_variants[variant=eager,size=3]", 3}, {"eager_only[variant=eager,size=1]", 1},
        {"eager_only[variant=eager,size=2]", 2},           {"eager_only[variant=eager,size=3]", 3}};
    EXPECT_EQ(scalars("fixture_two_variants", "size"), expected);

    // The command line over the YAML's axes: section, as for every option.
    write_file(work / "axes.yaml", "axes: {size: [5, 6]}\n");
    const ProcessResult dry =
        run({"--dry-run", "--config", (work / "axes.yaml").string(), "--variants", "eager", "--axis", "size=7"});
    EXPECT_EQ(dry.exit_code, 0) << describe(dry);
    EXPECT_NE(dry.out.find("fixture_two_variants[variant=eager,size=7]"), std::string::npos) << dry.out;
    EXPECT_EQ(dry.out.find("size=5"), std::string::npos) << dry.out;

    const ProcessResult wrong = run({"--dry-run", "--axis", "size=1,,2"});
    EXPECT_EQ(wrong.exit_code, 2);
    EXPECT_NE(wrong.err.find("option --axis: an empty value in 'size=1,,2'"), std::string::npos) << wrong.err;
}

}  // namespace
