#include "cli/compare_options.hpp"

#include <memory>

#include <CLI/CLI.hpp>

#include "cli/number_checks.hpp"
#include "config/run_config.hpp"

namespace benchhost {

namespace {

/// The options of `compare` as given: the paths and the relative amounts as text, the
/// others in the command.
struct CompareArguments {
    CompareCommand command;
    std::string base, next, threshold, noise_floor, markdown, json, junit;
};

}  // namespace

Subcommand<CompareCommand> add_compare_command(CLI::App& app) {
    auto given = std::make_shared<CompareArguments>();
    CLI::App* compare =
        app.add_subcommand("compare", "Compare two runs: medians, ratios with 95% CIs, and a Mann-Whitney U verdict");
    compare->add_option("base", given->base, "The baseline: a run folder or its benchmark_summary.json")
        ->required()
        ->check(CLI::ExistingPath);
    compare->add_option("new", given->next, "The run to judge: a run folder or its benchmark_summary.json")
        ->required()
        ->check(CLI::ExistingPath);
    compare->add_option("--threshold", given->threshold,
                        "A change smaller than this is 'same' however significant (default 5%)");
    compare->add_option("--alpha", given->command.alpha, "Significance level of the U test (default 0.05)")
        ->check(number_in_range(0, 1, false));
    compare->add_flag("--fail-on-regression", given->command.fail_on_regression,
                      "Exit 1 when a scenario is slower by more than --threshold (not when inconclusive)");
    compare->add_option("--noise-floor", given->noise_floor,
                        "How far apart single runs of the same build can be (default 10%): with one run a side, "
                        "a change within it is inconclusive");
    compare->add_option("--markdown", given->markdown, "Also write the comparison as Markdown to this file");
    compare->add_option("--json", given->json, "Also write the comparison as JSON to this file");
    compare->add_option("--junit", given->junit,
                        "Also write JUnit XML to this file, for CI test reports: a test case per scenario of the "
                        "new run, a failure where it is slower");
    compare->add_option("--history", given->command.history,
                        "A run history (SQLite file or postgresql://...): a series with one run a side is judged by "
                        "how far apart the new run's machine's earlier runs of it are, not by the noise floor");
    return {compare, [given] {
                CompareCommand command = given->command;
                command.base = given->base;
                command.next = given->next;
                if (!given->threshold.empty())
                    command.threshold = relative_option("--threshold", given->threshold, 100);
                if (!given->noise_floor.empty())
                    command.noise_floor = relative_option("--noise-floor", given->noise_floor, 100);
                command.markdown = given->markdown;
                command.json = given->json;
                command.junit = given->junit;
                return command;
            }};
}

}  // namespace benchhost
