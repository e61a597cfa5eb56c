// The command line, parsed in process.
#include "cli/cli.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using namespace benchhost;

ParsedCommandLine parse(std::vector<const char*> args) {
    args.insert(args.begin(), "benchhost");
    return parse_command_line(static_cast<int>(args.size()), args.data());
}

const RunOptions& run_options(const ParsedCommandLine& parsed) {
    return std::get<RunCommand>(*parsed.command).options;
}

TEST(CommandLine, ARepeatedScalarOptionTakesTheLastValue) {
    const auto parsed = parse({"run", "--measurement-iterations", "5", "--measurement-iterations", "7"});
    ASSERT_TRUE(parsed.command) << parsed.exit_code;
    EXPECT_EQ(run_options(parsed).command_line.measurement_iterations.value(), 7);
}

TEST(CommandLine, AxisValuesTakeTheLastOptionAndPatternsCollect) {
    const auto parsed = parse({"run", "--variants", "eager,compiled", "--variants", "kernelized,eager,kernelized",
                               "--include", "a", "--include", "b"});
    ASSERT_TRUE(parsed.command);
    const auto& options = run_options(parsed);
    EXPECT_EQ(options.command_line.axes.at("variant"), (std::vector<std::string>{"kernelized", "eager"}));
    EXPECT_EQ(options.include, (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(parse({"run", "--batch-sizes", "1,,8"}).exit_code, 2);
}

TEST(CommandLine, StoppingRuleRoundsAndBaseline) {
    const auto parsed = parse({"run", "--min-time", "0.5", "--max-time", "20", "--target-ci-width", "1%", "--rounds",
                               "3", "--baseline", ".", "--threshold", "2.5%", "--fail-on-regression"});
    ASSERT_TRUE(parsed.command) << parsed.exit_code;
    const auto& options = run_options(parsed);
    EXPECT_DOUBLE_EQ(options.command_line.min_time_s.value(), 0.5);
    EXPECT_DOUBLE_EQ(options.command_line.max_time_s.value(), 20);
    EXPECT_DOUBLE_EQ(options.command_line.target_ci_width.value(), 0.01);
    EXPECT_EQ(options.rounds, 3);
    EXPECT_EQ(options.baseline.value(), ".");
    EXPECT_DOUBLE_EQ(options.regression_threshold, 0.025);
    EXPECT_TRUE(options.fail_on_regression);
}

TEST(CommandLine, WrongValuesAreErrors) {
    EXPECT_EQ(parse({"run", "--target-ci-width", "wide"}).exit_code, 2);
    EXPECT_EQ(parse({"run", "--target-ci-width", "100%"}).exit_code, 2);
    EXPECT_EQ(parse({"run", "--fail-on-regression"}).exit_code, 2);  // no --baseline
    EXPECT_EQ(parse({"run", "--rounds", "0"}).exit_code, 2);
    EXPECT_EQ(parse({"compare", "."}).exit_code, 2);  // NEW is missing
}

TEST(CommandLine, Compare) {
    const auto parsed = parse({"compare", ".", ".", "--threshold", "10%", "--fail-on-regression", "--markdown",
                               "c.md", "--json", "c.json", "--alpha", "0.01"});
    ASSERT_TRUE(parsed.command);
    const auto& command = std::get<CompareCommand>(*parsed.command);
    EXPECT_DOUBLE_EQ(command.threshold, 0.10);
    EXPECT_DOUBLE_EQ(command.alpha, 0.01);
    EXPECT_TRUE(command.fail_on_regression);
    EXPECT_EQ(command.markdown, "c.md");
    EXPECT_EQ(command.json, "c.json");
}

}  // namespace
