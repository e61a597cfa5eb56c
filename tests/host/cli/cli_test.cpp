// The command line, parsed in process.
#include "cli/cli.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include <unistd.h>

#include <bench/internal/statistics/round_bootstrap.hpp>

#include "../../support/scoped_env.hpp"
#include "report/reporter_registry.hpp"

namespace {

using namespace benchhost;

ParsedCommandLine parse(std::vector<const char*> args) {
    args.insert(args.begin(), "benchhost");
    return parse_command_line(static_cast<int>(args.size()), args.data());
}

const RunOptions& run_options(const ParsedCommandLine& parsed) { return std::get<RunCommand>(*parsed.command).options; }

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

TEST(CommandLine, WorkerPreloadIsOnUnlessTurnedOff) {
    EXPECT_TRUE(run_options(parse({"run"})).worker_preload);
    EXPECT_FALSE(run_options(parse({"run", "--worker-preload", "off"})).worker_preload);
    EXPECT_TRUE(run_options(parse({"run", "--worker-preload", "off", "--worker-preload", "on"})).worker_preload);
    EXPECT_EQ(parse({"run", "--worker-preload", "maybe"}).exit_code, 2);
}

TEST(CommandLine, WorldSizesAreAnAxis) {
    const auto parsed = parse({"run", "--world-sizes", "1,2,4"});
    ASSERT_TRUE(parsed.command) << parsed.exit_code;
    EXPECT_EQ(run_options(parsed).command_line.axes.at("world_size"), (std::vector<std::string>{"1", "2", "4"}));
    EXPECT_EQ(run_options(parsed).command_line.axis_origin("world_size"), "--world-sizes");
    EXPECT_EQ(parse({"run", "--world-sizes", "0"}).exit_code, 2);
    EXPECT_EQ(parse({"run", "--world-sizes", "2000"}).exit_code, 2);
}

TEST(CommandLine, StoppingRuleRoundsAndBaseline) {
    const auto parsed = parse({"run", "--min-time", "0.5", "--max-time", "20", "--target-ci-width", "1%", "--rounds",
                               "3", "--baseline", ".", "--threshold", "2.5%", "--fail-on-regression",
                               "--throttle-cooldown", "4", "--discard-recompiled", "--compile-cache", "cold"});
    ASSERT_TRUE(parsed.command) << parsed.exit_code;
    const auto& options = run_options(parsed);
    EXPECT_DOUBLE_EQ(options.command_line.min_time_s.value(), 0.5);
    EXPECT_DOUBLE_EQ(options.command_line.max_time_s.value(), 20);
    EXPECT_DOUBLE_EQ(options.command_line.target_ci_width.value(), 0.01);
    EXPECT_DOUBLE_EQ(options.command_line.throttle_cooldown_s.value(), 4);
    EXPECT_EQ(parse({"run", "--throttle-cooldown", "-1"}).exit_code, 2);
    EXPECT_TRUE(options.command_line.discard_recompiled.value());
    EXPECT_EQ(options.command_line.compile_cache.value(), "cold");
    EXPECT_EQ(parse({"run", "--compile-cache", "lukewarm"}).exit_code, 2);
    EXPECT_EQ(options.rounds, 3);
    EXPECT_EQ(options.baseline.value(), ".");
    EXPECT_DOUBLE_EQ(options.regression_threshold, 0.025);
    EXPECT_TRUE(options.fail_on_regression);
    EXPECT_FALSE(options.profile);
}

TEST(CommandLine, ProfileIsARunOption) {
    const auto parsed = parse({"run", "--profile"});
    ASSERT_TRUE(parsed.command) << parsed.exit_code;
    EXPECT_TRUE(run_options(parsed).profile);
    EXPECT_EQ(parse({"ab", "--base", ".", "--new", ".", "--profile"}).exit_code,
              2);  // an A/B run times, it does not profile
}

TEST(CommandLine, FormatTakesCommaSeparatedNamesOrTheOptionAgain) {
    const auto commas = parse({"run", "--format", "junit,summary-md"});
    ASSERT_TRUE(commas.command) << commas.exit_code;
    EXPECT_EQ(run_options(commas).extra_formats, (std::vector<std::string>{"junit", "summary-md"}));
    const auto both = parse({"run", "--format", "gbench-json", "--format", "junit,summary-md"});
    ASSERT_TRUE(both.command) << both.exit_code;
    EXPECT_EQ(run_options(both).extra_formats, (std::vector<std::string>{"gbench-json", "junit", "summary-md"}));
    const auto ab = parse({"ab", "--base", ".", "--new", ".", "--format", "junit,summary-md"});
    ASSERT_TRUE(ab.command) << ab.exit_code;
    EXPECT_EQ(std::get<AbCommand>(*ab.command).options.extra_formats,
              (std::vector<std::string>{"junit", "summary-md"}));
    EXPECT_EQ(parse({"run", "--format", "junit,csv"}).exit_code, 2);  // each name is checked
    const auto empty = parse({"run", "--format", "junit,,summary-md,"});  // empty names are left out
    ASSERT_TRUE(empty.command) << empty.exit_code;
    EXPECT_EQ(run_options(empty).extra_formats, (std::vector<std::string>{"junit", "summary-md"}));
}

TEST(CommandLine, WrongValuesAreErrors) {
    EXPECT_EQ(parse({"run", "--target-ci-width", "wide"}).exit_code, 2);
    EXPECT_EQ(parse({"run", "--target-ci-width", "100%"}).exit_code, 2);
    EXPECT_EQ(parse({"run", "--fail-on-regression"}).exit_code, 2);  // no --baseline
    EXPECT_EQ(parse({"run", "--rounds", "0"}).exit_code, 2);
    EXPECT_EQ(parse({"compare", "."}).exit_code, 2);  // NEW is missing
}

/// What parsing `args` printed on standard error, with its exit status.
std::string error_of_parse(std::vector<const char*> args) {
    testing::internal::CaptureStderr();
    const ParsedCommandLine parsed = parse(std::move(args));
    const std::string printed = testing::internal::GetCapturedStderr();
    return std::to_string(parsed.exit_code) + " " + printed;
}

TEST(CommandLine, AWrongNumberIsNamedWithWhatTheOptionTakes) {
    // Not CLI11's "Value -1 not in range 0.000000 to 1797...": the largest double as the bound.
    EXPECT_EQ(error_of_parse({"run", "--timeout", "-1"}),
              "2 --timeout: '-1' is out of range: give a number >= 0\nRun with --help for more information.\n");
    EXPECT_EQ(error_of_parse({"run", "--measurement-iterations", "x"}),
              "2 --measurement-iterations: 'x' is not an integer: give an integer from 1 to 100000000\n"
              "Run with --help for more information.\n");
    EXPECT_EQ(error_of_parse({"run", "--min-time", "-2"}),
              "2 --min-time: '-2' is out of range: give a number from 0 to 86400\n"
              "Run with --help for more information.\n");
    EXPECT_EQ(error_of_parse({"ab", "--base", ".", "--new", ".", "--time-limit", "soon"}),
              "2 --time-limit: 'soon' is not a number: give a number >= 0\nRun with --help for more information.\n");
    EXPECT_EQ(error_of_parse({"history", "check", "--history", "h.db", "--lookback", "0"}),
              "2 --lookback: '0' is out of range: give an integer >= 1\nRun with --help for more information.\n");
    EXPECT_EQ(error_of_parse({"history", "check", "--history", "h.db", "--run", "1.5"}),
              "2 --run: '1.5' is not an integer: give an integer >= 1\nRun with --help for more information.\n");
    EXPECT_EQ(error_of_parse({"compare", ".", ".", "--alpha", "2"}),
              "2 --alpha: '2' is out of range: give a number from 0 to 1\nRun with --help for more information.\n");
    // The bounds themselves are taken.
    EXPECT_EQ(parse({"run", "--timeout", "0", "--measurement-iterations", "100000000"}).exit_code, 0);
    EXPECT_EQ(parse({"history", "check", "--history", "h.db", "--lookback", "1"}).exit_code, 0);
}

TEST(CommandLine, AxisSweepsCustomAxesRepeatablyAndTheLastOfANameCounts) {
    const auto parsed = parse({"run", "--axis", "seq_len=128,512,128", "--axis", "heads=4", "--axis", "heads=8,16",
                               "--variants", "eager", "--allow-empty"});
    ASSERT_TRUE(parsed.command) << parsed.exit_code;
    const auto& options = run_options(parsed);
    EXPECT_EQ(options.command_line.axes.at("seq_len"), (std::vector<std::string>{"128", "512"}));
    EXPECT_EQ(options.command_line.axes.at("heads"), (std::vector<std::string>{"8", "16"}));
    EXPECT_EQ(options.command_line.axis_origin("heads"), "--axis heads");
    EXPECT_EQ(options.command_line.axis_origin("variant"), "--variants");
    EXPECT_TRUE(options.allow_empty);
    EXPECT_FALSE(run_options(parse({"run"})).allow_empty);
    EXPECT_TRUE(run_options(parse({"run"})).command_line.axis_origins.empty());  // defaults have no origin
}

TEST(CommandLine, AxisValuesAreCheckedWithTheOptionNamed) {
    EXPECT_EQ(error_of_parse({"run", "--axis", "seq_len"}),
              "2 benchhost: error: option --axis: 'seq_len' is not NAME=V1,V2 (e.g. --axis seq_len=128,512)\n");
    EXPECT_EQ(error_of_parse({"run", "--axis", "=1,2"}),
              "2 benchhost: error: option --axis: '=1,2' has no axis name before '='\n");
    EXPECT_EQ(error_of_parse({"run", "--axis", "seq_len="}),
              "2 benchhost: error: option --axis: an empty value in 'seq_len='\n");
    EXPECT_EQ(error_of_parse({"run", "--axis", "seq_len=1,,2"}),
              "2 benchhost: error: option --axis: an empty value in 'seq_len=1,,2'\n");
    EXPECT_EQ(error_of_parse({"run", "--axis", "batch_size=1,2"}),
              "2 benchhost: error: option --axis: 'batch_size' is a built-in axis: set it with --batch-sizes\n");
}

TEST(CommandLine, HistoryUntilADateOrTimeTakesInAllOfIt) {
    const auto until = [](const char* value) {
        return std::get<HistoryCommand>(*parse({"history", "list", "--history", "h.db", "--until", value}).command)
            .until;
    };
    EXPECT_EQ(until("2026-11-24"), "2026-11-24T23:59:59Z");
    EXPECT_EQ(until("2026-11-24T10:00"), "2026-11-24T10:00:59Z");
    EXPECT_EQ(until("2026-11"), "2026-11-31T23:59:59Z");
    EXPECT_EQ(until("2026-11-24T10:00:00Z"), "2026-11-24T10:00:00Z");
    EXPECT_EQ(std::get<HistoryCommand>(*parse({"history", "list", "--history", "h.db"}).command).until, "");
}

TEST(CommandLine, HistorySinceAndUntilTakeOnlyADateOrTime) {
    // Compared with the start times as text, a word would select all runs or none, and
    // `history show` would then say that no scenario matches.
    EXPECT_EQ(error_of_parse({"history", "show", "x", "--history", "h.db", "--since", "yesterday"}),
              "2 --since: 'yesterday' is not a UTC date or time: give 2026-11-24, 2026-11-24T10:00 or "
              "2026-11-24T10:00:00Z\nRun with --help for more information.\n");
    for (const char* wrong : {"2026-13-01", "2026-11-24 10:00", "2026-11-24T25:00", "26-11-24", "2026-11-2", "now"})
        EXPECT_EQ(parse({"history", "list", "--history", "h.db", "--until", wrong}).exit_code, 2) << wrong;
    for (const char* right : {"2026", "2026-11", "2026-11-24", "2026-11-24T10", "2026-11-24T10:00",
                              "2026-11-24T10:00:59", "2026-11-24T10:00:59Z"}) {
        const auto parsed = parse({"history", "report", "--history", "h.db", "--output-dir", "d", "--since", right});
        ASSERT_TRUE(parsed.command) << right;
        EXPECT_EQ(std::get<HistoryCommand>(*parsed.command).since, right);
    }
}

TEST(CommandLine, Compare) {
    const auto parsed = parse({"compare", ".", ".", "--threshold", "10%", "--fail-on-regression", "--markdown", "c.md",
                               "--json", "c.json", "--alpha", "0.01"});
    ASSERT_TRUE(parsed.command);
    const auto& command = std::get<CompareCommand>(*parsed.command);
    EXPECT_DOUBLE_EQ(command.threshold, 0.10);
    EXPECT_DOUBLE_EQ(command.alpha, 0.01);
    EXPECT_TRUE(command.fail_on_regression);
    EXPECT_EQ(command.markdown, "c.md");
    EXPECT_EQ(command.json, "c.json");
}

}  // namespace

namespace {

TEST(CommandLine, AbTakesTheRunOptionsAndItsOwn) {
    const auto parsed = parse({"ab",
                               "--base",
                               ".",
                               "--new",
                               "..",
                               "--enable-mock",
                               "--include",
                               "mock",
                               "--new-param",
                               "slowdown=1.2",
                               "--base-param",
                               "threads=4,8",
                               "--param",
                               "seed=3",
                               "--rounds",
                               "3",
                               "--max-rounds",
                               "6",
                               "--time-limit",
                               "60",
                               "--confirm",
                               "2",
                               "--threshold",
                               "2%",
                               "--noise-floor",
                               "12%",
                               "--fail-on-regression"});
    ASSERT_TRUE(parsed.command) << parsed.exit_code;
    const auto& ab = std::get<AbCommand>(*parsed.command);
    EXPECT_EQ(ab.base_dirs.paths, std::vector<std::filesystem::path>{"."});
    EXPECT_EQ(ab.new_dirs.paths, std::vector<std::filesystem::path>{".."});
    ASSERT_EQ(ab.new_params.size(), 1u);
    EXPECT_EQ(ab.new_params[0].first, "slowdown");
    EXPECT_EQ(ab.new_params[0].second, (std::vector<std::string>{"1.2"}));
    EXPECT_EQ(ab.base_params.at(0).second, (std::vector<std::string>{"4", "8"}));
    EXPECT_EQ(ab.options.rounds, 3);
    EXPECT_EQ(ab.max_rounds, 6);
    EXPECT_DOUBLE_EQ(ab.time_limit_s, 60);
    EXPECT_EQ(ab.options.confirm, 2);
    EXPECT_DOUBLE_EQ(ab.options.regression_threshold, 0.02);
    EXPECT_DOUBLE_EQ(ab.options.noise_floor, 0.12);
    EXPECT_TRUE(ab.options.fail_on_regression);
    EXPECT_TRUE(ab.options.enable_mock);
    EXPECT_EQ(ab.options.include, (std::vector<std::string>{"mock"}));
    // Defaults: 6 pairs, up to 40.
    const auto defaults = std::get<AbCommand>(*parse({"ab", "--base", ".", "--new", "."}).command);
    EXPECT_EQ(defaults.options.rounds, 6);
    EXPECT_EQ(defaults.max_rounds, 40);
    // The A/B loop's own defaults, the fewest pairs with a 95% interval.
    EXPECT_EQ(defaults.options.rounds, AbLoopOptions{}.min_rounds);
    EXPECT_EQ(defaults.max_rounds, AbLoopOptions{}.max_rounds);
    EXPECT_EQ(static_cast<std::size_t>(default_ab_pairs), bench::fewest_pairs(0.95));
}

TEST(CommandLine, AbRefusesWhatItCannotDo) {
    EXPECT_EQ(parse({"ab", "--base", "."}).exit_code, 2);  // --new is missing
    EXPECT_EQ(parse({"ab", "--base", ".", "--new", ".", "--baseline", "."}).exit_code, 2);
    EXPECT_EQ(parse({"ab", "--base", ".", "--new", ".", "--plugins-dir", "."}).exit_code, 2);
    EXPECT_EQ(parse({"ab", "--base", ".", "--new", ".", "--new-param", "slowdown"}).exit_code, 2);
    EXPECT_EQ(error_of_parse({"ab", "--base", ".", "--new", ".", "--rounds", "8", "--max-rounds", "4"}),
              "2 benchhost: error: --max-rounds 4 is fewer than --rounds 8 (the pairs every scenario runs)\n");
    EXPECT_EQ(error_of_parse({"ab", "--base", ".", "--new", ".", "--rounds", "2", "--max-rounds", "4"}),
              "2 benchhost: error: --max-rounds 4: an A/B verdict needs at least 6 pairs (the fewest with a 95% "
              "interval); give --max-rounds 6 or more\n");
    EXPECT_EQ(error_of_parse({"run", "--confirm", "2"}),
              "2 benchhost: error: --threshold, --fail-on-regression, --confirm and --noise-floor need --baseline DIR "
              "(the run to compare with)\n");
}

TEST(CommandLine, BisectTakesTheAbOptionsForEveryStep) {
    const auto parsed = parse({"bisect",
                               "--good",
                               "v1.0",
                               "--bad",
                               "HEAD",
                               "--build",
                               "make plugins",
                               "--plugins-dir",
                               "build/plugins",
                               "--repo",
                               "..",
                               "--include",
                               "resnet50/",
                               "--rounds",
                               "8",
                               "--max-rounds",
                               "20",
                               "--threshold",
                               "3%",
                               "--build-timeout",
                               "600",
                               "--keep-checkouts"});
    ASSERT_TRUE(parsed.command) << parsed.exit_code;
    const auto& bisect = std::get<BisectCommand>(*parsed.command);
    EXPECT_EQ(bisect.good, "v1.0");
    EXPECT_EQ(bisect.bad, "HEAD");
    EXPECT_EQ(bisect.build, "make plugins");
    EXPECT_EQ(bisect.plugins_dirs, std::vector<std::filesystem::path>{"build/plugins"});
    EXPECT_EQ(bisect.repo, "..");
    EXPECT_DOUBLE_EQ(bisect.build_timeout_s, 600);
    EXPECT_TRUE(bisect.keep_checkouts);
    EXPECT_EQ(bisect.ab.options.include, (std::vector<std::string>{"resnet50/"}));
    EXPECT_EQ(bisect.ab.options.rounds, 8);
    EXPECT_EQ(bisect.ab.max_rounds, 20);
    EXPECT_DOUBLE_EQ(bisect.ab.options.regression_threshold, 0.03);
    const auto defaults = std::get<BisectCommand>(
        *parse({"bisect", "--good", "a", "--bad", "b", "--build", "make", "--plugins-dir", "p"}).command);
    EXPECT_EQ(defaults.repo, ".");
    EXPECT_EQ(defaults.ab.options.rounds, 6);
    EXPECT_EQ(defaults.ab.max_rounds, 40);
    EXPECT_FALSE(defaults.keep_checkouts);
}

TEST(CommandLine, BisectRefusesWhatItCannotDo) {
    EXPECT_EQ(parse({"bisect", "--good", "a", "--bad", "b", "--plugins-dir", "p"}).exit_code, 2);  // no --build
    EXPECT_EQ(parse({"bisect", "--good", "a", "--bad", "b", "--build", "make"}).exit_code, 2);  // no --plugins-dir
    EXPECT_EQ(parse({"bisect", "--good", "a", "--bad", "b", "--build", "make", "--plugins-dir", "p", "--base", "."})
                  .exit_code,
              2);
    EXPECT_EQ(error_of_parse({"bisect", "--good", "a", "--bad", "b", "--build", "make", "--plugins-dir", "/opt/p"}),
              "2 benchhost: error: --plugins-dir /opt/p: give the folder relative to the checkout (each revision is "
              "built in a scratch checkout of its own)\n");
}

using Paths = std::vector<std::filesystem::path>;

TEST(CommandLine, PluginsDirTakesSeveralFoldersGivenAgainOrSeparatedByColons) {
    const benchtest::ScopedEnv no_variable(plugins_dir_variable, std::nullopt);
    const auto run = parse({"run", "--plugins-dir", "a", "--plugins-dir", "b:c", "--plugins-dir", "a"});
    ASSERT_TRUE(run.command) << run.exit_code;
    EXPECT_EQ(run_options(run).plugins_dirs.paths, (Paths{"a", "b", "c"}));  // a folder named again: once
    EXPECT_EQ(run_options(run).plugins_dirs.origin, "--plugins-dir");
    EXPECT_EQ(run_options(run).plugins_dirs.text(), "a:b:c");
    EXPECT_EQ(std::get<ListCommand>(*parse({"list", "--plugins-dir", "a:b", "--plugins-dir", "c"}).command)
                  .plugins_dirs.paths,
              (Paths{"a", "b", "c"}));
    // An empty entry stands for the default folders, where it is.
    const Paths defaults = default_plugin_folders().paths;
    ASSERT_FALSE(defaults.empty());
    Paths mine_then_defaults = {"mine"};
    mine_then_defaults.insert(mine_then_defaults.end(), defaults.begin(), defaults.end());
    EXPECT_EQ(run_options(parse({"run", "--plugins-dir", "mine:"})).plugins_dirs.paths, mine_then_defaults);
    EXPECT_EQ(std::get<ListCommand>(*parse({"list", "--plugins-dir", "mine", "--plugins-dir", ""}).command)
                  .plugins_dirs.paths,
              mine_then_defaults);
    // Neither the option nor the variable: the default folders.
    EXPECT_EQ(run_options(parse({"run"})).plugins_dirs.paths, defaults);
    EXPECT_EQ(run_options(parse({"run"})).plugins_dirs.origin, "the default");
    EXPECT_EQ(std::get<ListCommand>(*parse({"list"}).command).plugins_dirs.paths, defaults);
}

TEST(CommandLine, TheVariableNamesThePluginFoldersUnlessTheOptionOrTheConfigDoes) {
    namespace fs = std::filesystem;
    const benchtest::ScopedEnv variable(plugins_dir_variable, "/env/a:/env/b");
    EXPECT_EQ(run_options(parse({"run"})).plugins_dirs.paths, (Paths{"/env/a", "/env/b"}));
    EXPECT_EQ(run_options(parse({"run"})).plugins_dirs.origin, "BENCHHOST_PLUGINS_DIR");
    EXPECT_EQ(std::get<ListCommand>(*parse({"list"}).command).plugins_dirs.paths, (Paths{"/env/a", "/env/b"}));
    EXPECT_EQ(run_options(parse({"run", "--plugins-dir", "x"})).plugins_dirs.paths, Paths{"x"});
    EXPECT_EQ(std::get<ListCommand>(*parse({"list", "--plugins-dir", "x"}).command).plugins_dirs.paths, Paths{"x"});
    // A config's plugins_dir (a list, or folders separated by ':') is over the variable, under the option.
    const fs::path dir = fs::temp_directory_path() / ("cli_test_plugins_dir_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path listed = dir / "listed.yaml", joined = dir / "joined.yaml";
    std::ofstream(listed) << "plugins_dir: [/config/a, /config/b]\n";
    std::ofstream(joined) << "plugins_dir: /config/a:/config/b\n";
    const auto from_list = parse({"run", "--config", listed.c_str()});
    const auto from_text = parse({"run", "--config", joined.c_str()});
    const auto over_config = parse({"run", "--config", listed.c_str(), "--plugins-dir", "x"});
    fs::remove_all(dir);
    ASSERT_TRUE(from_list.command) << from_list.exit_code;
    EXPECT_EQ(run_options(from_list).plugins_dirs.paths, (Paths{"/config/a", "/config/b"}));
    EXPECT_EQ(run_options(from_list).plugins_dirs.origin, listed.string());
    ASSERT_TRUE(from_text.command) << from_text.exit_code;
    EXPECT_EQ(run_options(from_text).plugins_dirs.paths, (Paths{"/config/a", "/config/b"}));
    ASSERT_TRUE(over_config.command) << over_config.exit_code;
    EXPECT_EQ(run_options(over_config).plugins_dirs.paths, Paths{"x"});
    // ab and bisect name their folders themselves: the variable is not theirs.
    const auto ab = std::get<AbCommand>(*parse({"ab", "--base", ".", "--new", "."}).command);
    EXPECT_EQ(ab.base_dirs.paths, Paths{"."});
}

TEST(CommandLine, AbAndBisectTakeSeveralFoldersToo) {
    const auto ab = std::get<AbCommand>(*parse({"ab", "--base", ".:..", "--new", "..", "--new", "."}).command);
    EXPECT_EQ(ab.base_dirs.paths, (Paths{".", ".."}));
    EXPECT_EQ(ab.new_dirs.paths, (Paths{"..", "."}));
    EXPECT_EQ(ab.base_dirs.origin, "--base");
    EXPECT_EQ(parse({"ab", "--base", ".:/no/such/folder", "--new", "."}).exit_code, 2);
    const auto bisect = std::get<BisectCommand>(
        *parse({"bisect", "--good", "a", "--bad", "b", "--build", "make", "--plugins-dir", "build/plugins:plugins"})
             .command);
    EXPECT_EQ(bisect.plugins_dirs, (Paths{"build/plugins", "plugins"}));
    EXPECT_EQ(error_of_parse({"bisect", "--good", "a", "--bad", "b", "--build", "make", "--plugins-dir", "p:"}),
              "2 benchhost: error: --plugins-dir '': give the folder relative to the checkout (each revision is "
              "built in a scratch checkout of its own)\n");
}

TEST(CommandLine, TheServingLoadOnTheCommandLineOverridesTheYaml) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("cli_test_serving_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path config = dir / "serve.yaml";
    {
        std::ofstream out(config);
        out << "load: server\ntarget_qps: 40\nslo: latency=1s\nqueries: 300\n";
    }
    const auto parsed = parse({"run", "--config", config.c_str(), "--concurrency", "4", "--slo", "ttft=20ms"});
    // --find-peak replaces the config's rate too; beside a rate on the command line it is a contradiction.
    const auto search = parse({"run", "--config", config.c_str(), "--find-peak", "--peak-precision", "10%"});
    const auto rate = parse({"run", "--config", config.c_str(), "--find-peak", "--target-qps", "5"});
    fs::remove_all(dir);
    ASSERT_TRUE(parsed.command) << parsed.exit_code;
    const bench::LoadConfig& load = run_options(parsed).load;
    EXPECT_EQ(load.mode, bench::LoadMode::server);
    EXPECT_EQ(load.concurrency, 4);
    EXPECT_EQ(load.target_qps, 0);  // the closed loop given replaces the config's open loop
    EXPECT_EQ(load.queries, 300);
    EXPECT_EQ(load.slos, (std::vector<bench::Slo>{{"ttft", 20}}));
    ASSERT_TRUE(search.command) << search.exit_code;
    EXPECT_TRUE(run_options(search).load.find_peak);
    EXPECT_EQ(run_options(search).load.target_qps, 0);
    EXPECT_DOUBLE_EQ(run_options(search).load.peak_precision, 0.1);
    EXPECT_EQ(rate.exit_code, 2);
}

TEST(CommandLine, AColdCompileCacheIsRefusedUnderIsolationNoneWhereverItIsSet) {
    // Without workers there is no fresh process to give fresh compile caches to: refused
    // before anything runs, naming where the setting came from.
    namespace fs = std::filesystem;
    const std::string why =
        " needs --isolation process: under --isolation none every scenario runs in benchhost's own process, whose "
        "compile caches (Inductor's and JAX's, in memory and on disk) cannot be made fresh for each scenario\n";
    EXPECT_EQ(error_of_parse({"run", "--isolation", "none", "--compile-cache", "cold"}),
              "2 benchhost: error: --compile-cache cold" + why);
    EXPECT_TRUE(parse({"run", "--isolation", "none", "--compile-cache", "warm"}).command);
    EXPECT_TRUE(parse({"run", "--compile-cache", "cold"}).command);  // process isolation: each worker fresh

    const fs::path dir = fs::temp_directory_path() / ("cli_test_compile_cache_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path top = dir / "top.yaml", plugin = dir / "plugin.yaml";
    std::ofstream(top) << "isolation: none\ncompile_cache: cold\n";
    std::ofstream(plugin) << "isolation: none\nplugins:\n  compile_probe:\n    compile_cache: cold\n";
    const std::string from_top = error_of_parse({"run", "--config", top.c_str()});
    const std::string from_plugin = error_of_parse({"run", "--config", plugin.c_str()});
    const bool overridden = parse({"run", "--config", plugin.c_str(), "--compile-cache", "warm"}).command.has_value();
    fs::remove_all(dir);
    EXPECT_EQ(from_top, "2 benchhost: error: compile_cache: cold (the config)" + why);
    EXPECT_EQ(from_plugin.rfind(
                  "2 benchhost: error: compile_cache: cold for plugin compile_probe (" + plugin.string() + ":3:", 0),
              0u)
        << from_plugin;
    EXPECT_TRUE(overridden) << "the command line's warm is over the plugin's cold";
}

TEST(CommandLine, WrongFindPeakOptionsExitTwoNamingTheOption) {
    EXPECT_EQ(error_of_parse({"run", "--load", "server", "--find-peak"}),
              "2 benchhost: error: --find-peak needs --slo METRIC=BOUND (e.g. --slo latency=50ms, or "
              "ttft=500ms,tpot=50ms): the bound that each rate's p99 must meet\n");
    EXPECT_EQ(
        error_of_parse({"run", "--load", "offline", "--find-peak", "--slo", "latency=1s"}),
        "2 benchhost: error: --find-peak needs --load server (it searches the highest rate of arrivals that meets "
        "the SLO), got --load offline\n");
    EXPECT_EQ(error_of_parse({"run", "--load", "server", "--find-peak", "--slo", "latency=1s", "--target-qps", "9"}),
              "2 benchhost: error: --find-peak searches the rate itself: leave out --target-qps (got 9)\n");
    EXPECT_EQ(
        error_of_parse({"run", "--load", "server", "--find-peak", "--slo", "latency=1s", "--peak-precision", "0"}),
        "2 benchhost: error: option --peak-precision: expected a relative precision above 0 and below 1, such as "
        "5% or 0.05, got '0'\n");
}

TEST(CommandLine, WrongServingLoadOptionsExitTwoNamingTheOption) {
    EXPECT_EQ(error_of_parse({"run", "--load", "server", "--target-qps", "0"}),
              "2 benchhost: error: option --target-qps: the rate must be above 0 queries/s, got 0\n");
    EXPECT_EQ(error_of_parse({"run", "--load", "server", "--target-qps", "-1"}),
              "2 benchhost: error: option --target-qps: the rate must be above 0 queries/s, got -1\n");
    EXPECT_EQ(error_of_parse({"run", "--load", "server", "--target-qps", "often"}),
              "2 benchhost: error: option --target-qps: expected a rate in queries per second, got 'often'\n");
    EXPECT_EQ(
        error_of_parse({"run", "--load", "single-stream", "--slo", "latency=200"}),
        "2 benchhost: error: option --slo: latency=200: the bound needs a unit: us, ms or s (e.g. latency=200ms)\n");
    EXPECT_EQ(error_of_parse({"run", "--load", "single-stream", "--slo", "p50=2ms"}),
              "2 benchhost: error: option --slo: unknown metric 'p50' (expected latency, ttft, tpot or itl)\n");
    EXPECT_EQ(error_of_parse({"run", "--load", "server", "--target-qps", "5", "--burstiness", "0"}),
              "2 benchhost: error: option --burstiness: expected the gamma shape of the gaps between arrivals, above 0 "
              "(1: Poisson), got '0'\n");
    EXPECT_EQ(error_of_parse({"run", "--load", "server", "--concurrency", "0"}),
              "2 benchhost: error: option --concurrency: expected an integer from 1 to 100000000, got '0'\n");
}

TEST(CommandLine, ServingOptionsOfAModeNeedThatMode) {
    EXPECT_EQ(
        error_of_parse({"run", "--load", "server"}),
        "2 benchhost: error: --load server needs --target-qps R (queries/s, above 0), --concurrency N (clients) or "
        "--find-peak\n");
    EXPECT_EQ(
        error_of_parse({"run", "--load", "server", "--target-qps", "5", "--concurrency", "2"}),
        "2 benchhost: error: --load server takes --target-qps (open loop: arrivals at that rate) or --concurrency "
        "(closed loop: that many clients), not both\n");
    EXPECT_EQ(error_of_parse({"run", "--target-qps", "5"}), "2 benchhost: error: --target-qps needs --load server\n");
    EXPECT_EQ(error_of_parse({"run", "--load", "offline", "--samples-per-query", "4"}),
              "2 benchhost: error: --samples-per-query needs --load multi-stream\n");
    EXPECT_EQ(
        error_of_parse({"run", "--load", "server", "--concurrency", "2", "--burstiness", "2"}),
        "2 benchhost: error: --burstiness needs --load server --target-qps R or --find-peak (it shapes the arrivals "
        "at that rate)\n");
    EXPECT_EQ(error_of_parse({"run", "--slo", "latency=1s"}),
              "2 benchhost: error: --slo needs --load MODE (single-stream, multi-stream, server or offline)\n");
    EXPECT_EQ(error_of_parse({"run", "--queries", "10"}),
              "2 benchhost: error: --queries needs --load MODE (single-stream, multi-stream, server or offline)\n");
    const auto ok = parse({"run", "--load", "multi-stream", "--samples-per-query", "4", "--queries", "10"});
    ASSERT_TRUE(ok.command) << ok.exit_code;
    EXPECT_EQ(run_options(ok).load.samples_per_query, 4);
}

/// What parsing `args` printed on standard output (help), with its exit status.
std::string output_of_parse(std::vector<const char*> args) {
    testing::internal::CaptureStdout();
    const ParsedCommandLine parsed = parse(std::move(args));
    const std::string printed = testing::internal::GetCapturedStdout();
    return std::to_string(parsed.exit_code) + " " + printed;
}

TEST(CommandLine, HelpListsEverySubcommandButTheWorker) {
    const std::string help = output_of_parse({"--help"});
    EXPECT_EQ(help.substr(0, 2), "0 ");
    for (const std::string name : {"run", "ab", "bisect", "list", "export", "merge", "compare", "report", "history"})
        EXPECT_NE(help.find("\n  " + name + " "), std::string::npos) << name << " is not in:\n" << help;
    EXPECT_EQ(help.find("\n  worker"), std::string::npos) << help;  // hidden: the host starts it
}

TEST(CommandLine, EverySubcommandAndHistoryActionHasHelp) {
    const std::vector<std::vector<const char*>> commands = {{"run"},
                                                            {"ab"},
                                                            {"bisect"},
                                                            {"list"},
                                                            {"export"},
                                                            {"merge"},
                                                            {"compare"},
                                                            {"report"},
                                                            {"worker"},
                                                            {"history"},
                                                            {"history", "add"},
                                                            {"history", "list"},
                                                            {"history", "show"},
                                                            {"history", "check"},
                                                            {"history", "report"}};
    for (std::vector<const char*> args : commands) {
        const std::string name = args.back();
        args.push_back("--help");
        const std::string help = output_of_parse(args);
        EXPECT_EQ(help.substr(0, 2), "0 ") << name;
        EXPECT_NE(help.find("Usage: benchhost"), std::string::npos) << name << ":\n" << help;
    }
}

TEST(CommandLine, EachCommandsHelpGivesItsOwnExitStatus) {
    // run's exit status (scenarios, --allow-empty, --load, 130) in run, ab and bisect only.
    for (const char* command : {"run", "ab", "bisect"})
        EXPECT_NE(output_of_parse({command, "--help"}).find("unless --allow-empty"), std::string::npos) << command;
    const std::vector<std::pair<std::vector<const char*>, std::string>> own = {
        {{"list"}, "2 when a plugin folder does not exist"},
        {{"export"}, "2 wrong arguments, or a run that cannot be read"},
        {{"merge"}, "are not the shards of one plan"},
        {{"compare"}, "1 with --fail-on-regression when a scenario is slower"},
        {{"report"}, "1 when a report could not be written"},
        {{"history"}, "history check finds a series slower"},
        {{"history", "show"}, "a pattern or --run that matches nothing"},
        {{"history", "add"}, "1 when history add could not add a folder"}};
    for (auto [args, says] : own) {
        args.push_back("--help");
        const std::string help = output_of_parse(args);
        EXPECT_NE(help.find("Exit status: 0; "), std::string::npos) << help;
        EXPECT_NE(help.find(says), std::string::npos) << help;
        EXPECT_EQ(help.find("--allow-empty"), std::string::npos) << help;
        EXPECT_EQ(help.find("130 interrupted"), std::string::npos) << help;
    }
}

TEST(CommandLine, TheHelpOfFormatsListsTheRegistrysOptionalFormats) {
    // Each optional format by its name and its description in the registry, in run's,
    // ab's, bisect's and export's help: a format added there is listed without more.
    std::string listed;
    for (const ReporterInfo& info : reporter_registry()) {
        if (!info.optional_format) continue;
        ASSERT_FALSE(info.description.empty()) << info.name;
        listed += (listed.empty() ? "" : ", ") + info.name + " (" + info.description + ")";
    }
    ASSERT_NE(listed, "");
    for (const char* command : {"run", "ab", "bisect"}) {
        const std::string help = output_of_parse({command, "--help"});
        EXPECT_NE(help.find("Also write the results in this format: " + listed + "; repeatable\n"), std::string::npos)
            << command << ":\n"
            << help;
        EXPECT_EQ(help.find("{formats}"), std::string::npos) << help;
    }
    const std::string help = output_of_parse({"export", "--help"});
    EXPECT_NE(help.find("The format, one of run --format's: " + listed + "\n"), std::string::npos) << help;
}

TEST(CommandLine, EachSubcommandGivesItsCommand) {
    // Without a subcommand, benchhost runs.
    EXPECT_TRUE(run_options(parse({"--enable-mock"})).enable_mock);
    EXPECT_EQ(std::get<ListCommand>(*parse({"list", "--plugins-dir", "p"}).command).plugins_dirs.paths,
              std::vector<std::filesystem::path>{"p"});
    const auto exported =
        std::get<ExportCommand>(*parse({"export", ".", "--format", "gbench-json", "-o", "g.json"}).command);
    EXPECT_EQ(exported.source, ".");
    EXPECT_EQ(exported.format, "gbench-json");
    EXPECT_EQ(exported.output, "g.json");
    const auto merged = std::get<MergeCommand>(*parse({"merge", "out", ".", ".."}).command);
    EXPECT_EQ(merged.out, "out");
    EXPECT_EQ(merged.shards, (std::vector<std::filesystem::path>{".", ".."}));
    const auto report = std::get<ReportCommand>(*parse({"report", ".", "--output-dir", "o"}).command);
    EXPECT_EQ(report.source, ".");
    EXPECT_EQ(report.output_dir, "o");
    const auto worker = std::get<WorkerCommand>(
        *parse({"worker", "--plugin", "p.so", "--symbol", "s", "--config", "c.json", "--result", "r.json"}).command);
    EXPECT_EQ(worker.plugin, "p.so");
    EXPECT_EQ(worker.symbol, "s");
    EXPECT_EQ(worker.config, "c.json");
    EXPECT_EQ(worker.result, "r.json");
    EXPECT_EQ(worker.log_level, "info");
    EXPECT_DOUBLE_EQ(worker.monitor_interval_ms, 50);
}

TEST(CommandLine, HistoryActionsAndTheirOptions) {
    const auto history = [](std::vector<const char*> args) {
        args.insert(args.begin(), "history");
        const ParsedCommandLine parsed = parse(std::move(args));
        EXPECT_TRUE(parsed.command) << parsed.exit_code;
        return parsed.command ? std::get<HistoryCommand>(*parsed.command) : HistoryCommand{};
    };
    const HistoryCommand add = history({"add", "--history", "h.db", ".", "--samples"});
    EXPECT_EQ(add.action, "add");
    EXPECT_EQ(add.location, "h.db");
    EXPECT_EQ(add.runs, (std::vector<std::filesystem::path>{"."}));
    EXPECT_TRUE(add.samples);
    EXPECT_EQ(history({"list", "--history", "h.db", "--limit", "3"}).limit, 3u);
    EXPECT_EQ(history({"show", "--history", "h.db", "resnet"}).pattern, "resnet");
    const HistoryCommand check = history({"check", "--history", "h.db", "--threshold", "3%", "--lookback", "10",
                                          "--min-runs", "4", "--run", "7", "--baseline-branch", "main"});
    EXPECT_EQ(check.action, "check");
    EXPECT_DOUBLE_EQ(check.threshold, 0.03);
    EXPECT_EQ(check.lookback, 10u);
    EXPECT_EQ(check.min_runs, 4u);
    EXPECT_EQ(check.run_id, 7);
    EXPECT_EQ(check.baseline_branch, "main");
    EXPECT_DOUBLE_EQ(history({"check", "--history", "h.db", "--threshold", "0.02"}).threshold, 0.02);
    EXPECT_DOUBLE_EQ(history({"check", "--history", "h.db"}).threshold, 0.05);
    const HistoryCommand report = history({"report", "--history", "h.db", "--output-dir", "pages"});
    EXPECT_EQ(report.action, "report");
    EXPECT_EQ(report.output_dir, "pages");
    EXPECT_EQ(parse({"history"}).exit_code, 2);  // an action is required
    EXPECT_EQ(parse({"history", "check", "--history", "h.db", "--threshold", "wide"}).exit_code, 2);
    EXPECT_EQ(parse({"history", "report", "--history", "h.db"}).exit_code, 2);  // no --output-dir
}

}  // namespace
