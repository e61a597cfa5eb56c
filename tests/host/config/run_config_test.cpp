#include "config/run_config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "config/run_option_table.hpp"

namespace {

using benchhost::ConfigError;
using benchhost::RunOptions;

RunOptions load(const std::string& yaml) {
    RunOptions options;
    options.defaults = benchhost::builtin_scenario_defaults();
    benchhost::load_config_text(yaml, "test.yaml", options);
    return options;
}

std::string error_of(const std::string& yaml) {
    try {
        load(yaml);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "no error";
}

TEST(RunConfig, ReadsEveryKindOfKey) {
    const RunOptions options = load(R"(
warmup_iterations: 5
measurement_iterations: 20
num_tokens_to_generate: 8
model_id: gpt2-tiny
variants: [eager, compiled]
batch_sizes: [1, 8]
dtypes: bfloat16
world_sizes: [1, 2]
axes: {seq_len: [128, 512]}
params: {sizes: [64, 128], nested: {depth: 3}}
timeout: 12.5
isolation: none
enable_mock: yes
profile: true
include: [mock]
exclude: generate
categories: [performance]
log_level: debug
plugins:
  resnet50:
    batch_sizes: [32]
    params: {image_size: 160}
)");
    EXPECT_EQ(options.config.warmup_iterations, 5);
    EXPECT_EQ(options.config.measurement_iterations, 20);
    EXPECT_EQ(options.config.model_id, "gpt2-tiny");
    EXPECT_EQ(options.config.axes.at("variant"), (std::vector<std::string>{"eager", "compiled"}));
    EXPECT_EQ(options.config.axes.at("dtype"), std::vector<std::string>{"bfloat16"});
    EXPECT_EQ(options.config.axes.at("world_size"), (std::vector<std::string>{"1", "2"}));
    EXPECT_EQ(options.config.axes.at("seq_len"), (std::vector<std::string>{"128", "512"}));
    EXPECT_EQ(options.config.params.get_int_list("sizes"), (std::vector<long long>{64, 128}));
    EXPECT_EQ(options.config.params.get_int("nested.depth"), 3);
    EXPECT_DOUBLE_EQ(options.timeout_s, 12.5);
    EXPECT_EQ(options.isolation, benchhost::Isolation::none);
    EXPECT_TRUE(options.enable_mock);
    EXPECT_TRUE(options.profile);
    EXPECT_EQ(options.include, std::vector<std::string>{"mock"});
    EXPECT_EQ(options.exclude, std::vector<std::string>{"generate"});
    EXPECT_EQ(options.log_level, "debug");
    EXPECT_EQ(options.plugin_settings.at("resnet50").axes.at("batch_size"), std::vector<std::string>{"32"});
}

TEST(RunConfig, LayersDefaultsConfigPluginAndCommandLine) {
    RunOptions options = load(
        "measurement_iterations: 20\nbatch_sizes: [1, 8]\n"
        "plugins:\n  resnet50:\n    batch_sizes: [32]\n    warmup_iterations: 7\n");
    options.command_line.measurement_iterations = 3;

    const auto resnet = options.effective_for("resnet50");
    EXPECT_EQ(resnet.warmup_iterations, 7);  // plugin section over built-in 3
    EXPECT_EQ(resnet.measurement_iterations, 3);  // command line over everything
    EXPECT_EQ(resnet.axes.at("batch_size"), std::vector<std::string>{"32"});
    EXPECT_EQ(resnet.axes.at("variant").size(), 3u);  // built-in default kept

    const auto other = options.effective_for("vit_b_16");
    EXPECT_EQ(other.warmup_iterations, 3);
    EXPECT_EQ(other.axes.at("batch_size"), (std::vector<std::string>{"1", "8"}));

    options.command_line.axes["batch_size"] = {"2"};
    EXPECT_EQ(options.effective_for("resnet50").axes.at("batch_size"), std::vector<std::string>{"2"});
}

TEST(RunConfig, RemembersWhereTheUserSetEachAxisAndPluginSection) {
    RunOptions options = load(
        "variants: [eager]\naxes: {seq_len: [128]}\nallow_empty: true\n"
        "plugins:\n  resnet50:\n    batch_sizes: [32]\n");
    EXPECT_TRUE(options.allow_empty);
    EXPECT_EQ(options.config.axis_origin("variant"), "test.yaml:1:11");
    EXPECT_EQ(options.config.axis_origin("seq_len"), "test.yaml:2:17");
    EXPECT_EQ(options.plugin_settings.at("resnet50").axis_origin("batch_size"), "test.yaml:6:18");
    EXPECT_EQ(options.plugin_settings_where.at("resnet50"), "test.yaml:5:3");

    // The layers keep each axis's origin with its values; the defaults have none.
    EXPECT_EQ(options.effective_for("resnet50").axis_origin("batch_size"), "test.yaml:6:18");
    EXPECT_EQ(options.effective_for("resnet50").axis_origin("dtype"), "");
    options.command_line.axes["variant"] = {"compiled"};
    options.command_line.axis_origins["variant"] = "--variants";
    EXPECT_EQ(options.effective_for("vit").axis_origin("variant"), "--variants");
    EXPECT_FALSE(load("").allow_empty);
    EXPECT_EQ(error_of("allow_empty: sometimes\n"),
              "test.yaml:1:14: 'allow_empty' must be true or false, got 'sometimes'");
}

TEST(RunConfig, UnknownKeyNamesFileLineAndSuggestion) {
    EXPECT_EQ(error_of("warmup_iterations: 2\nmeasurment_iterations: 5\n"),
              "test.yaml:2:1: unknown key 'measurment_iterations' (did you mean 'measurement_iterations'?)");
    EXPECT_EQ(error_of("plugins:\n  resnet50:\n    batch_size: [1]\n"),
              "test.yaml:3:5: unknown key 'batch_size' in plugins.resnet50 (did you mean 'batch_sizes'?)");
    EXPECT_EQ(error_of("frobnicate: 1\n"), "test.yaml:1:1: unknown key 'frobnicate'");
}

TEST(RunConfig, WrongValuesAreErrorsWithLocation) {
    EXPECT_EQ(error_of("measurement_iterations: -1\n"),
              "test.yaml:1:25: 'measurement_iterations' must be at least 1, got -1");
    EXPECT_EQ(error_of("warmup_iterations: many\n"),
              "test.yaml:1:20: 'warmup_iterations' must be an integer, got 'many'");
    EXPECT_EQ(error_of("batch_sizes: [1, 0]\n"),
              "test.yaml:1:14: 'batch_sizes': axis 'batch_size': '0' is not an integer >= 1");
    EXPECT_EQ(error_of("variants: [eager, jit]\n"),
              "test.yaml:1:11: 'variants': axis 'variant': 'jit' is not a variant (eager, compiled or kernelized)");
    EXPECT_NE(error_of("dtypes: [float8]\n").find("'float8' is not a dtype"), std::string::npos);
    EXPECT_EQ(error_of("world_sizes: [2, 0]\n"),
              "test.yaml:1:14: 'world_sizes': axis 'world_size': '0' is not an integer >= 1");
    EXPECT_EQ(error_of("isolation: thread\n"), "test.yaml:1:12: 'isolation' must be process or none, got 'thread'");
    EXPECT_EQ(error_of("enable_mock: perhaps\n"), "test.yaml:1:14: 'enable_mock' must be true or false, got 'perhaps'");
    EXPECT_EQ(error_of("profile: always\n"), "test.yaml:1:10: 'profile' must be true or false, got 'always'");
    EXPECT_EQ(error_of("categories: [bench]\n"),
              "test.yaml:1:13: unknown category 'bench' (expected unit, integration or performance)");
    EXPECT_EQ(error_of("timeout: -3\n"), "test.yaml:1:10: 'timeout' must be seconds >= 0, got '-3'");
    EXPECT_EQ(error_of("axes: {variant: [eager]}\n"),
              "test.yaml:1:8: 'variant' is a built-in axis: set it with 'variants'");
}

TEST(RunConfig, InvalidYamlSaysWhere) {
    const std::string error = error_of("warmup_iterations: 2\nvariants: [eager\n");
    EXPECT_EQ(error.rfind("test.yaml:", 0), 0u) << error;
    EXPECT_NE(error.find("invalid YAML"), std::string::npos) << error;
    EXPECT_EQ(error_of("- just\n- a list\n"), "test.yaml:1:1: the config must be a map of keys to values");
}

TEST(RunConfig, EmptyFileChangesNothing) {
    const RunOptions options = load("");
    EXPECT_FALSE(options.config.warmup_iterations.has_value());
    EXPECT_TRUE(options.config.axes.empty());
}

TEST(RunConfig, MissingFileIsAnError) {
    RunOptions options;
    EXPECT_THROW(benchhost::load_config_file("/nonexistent/benchhost.yaml", options), ConfigError);
}

TEST(RunConfig, ServingLoadKeysSetTheLoad) {
    const bench::LoadConfig serving = load(R"(
load: server
queries: 500
min_duration: 2.5
target_qps: 40
burstiness: 0.5
late_tolerance: 500us
load_seed: 9
slo: {ttft: 500ms, tpot: 50ms}
)")
                                          .load;
    EXPECT_EQ(serving.mode, bench::LoadMode::server);
    EXPECT_EQ(serving.queries, 500);
    EXPECT_DOUBLE_EQ(serving.min_duration_s, 2.5);
    EXPECT_DOUBLE_EQ(serving.target_qps, 40);
    EXPECT_DOUBLE_EQ(serving.burstiness, 0.5);
    EXPECT_DOUBLE_EQ(serving.late_tolerance_ms, 0.5);
    EXPECT_EQ(serving.seed, 9u);
    EXPECT_EQ(serving.slos, (std::vector<bench::Slo>{{"ttft", 500}, {"tpot", 50}}));
    EXPECT_EQ(load("slo: latency=0.2s\n").load.slos, (std::vector<bench::Slo>{{"latency", 200}}));

    const bench::LoadConfig search = load(
                                         "load: server\nfind_peak: true\npeak_precision: 2%\n"
                                         "slo: {ttft: 500ms, tpot: 50ms, percentile: p95}\n")
                                         .load;
    EXPECT_TRUE(search.find_peak);
    EXPECT_DOUBLE_EQ(search.peak_precision, 0.02);
    EXPECT_DOUBLE_EQ(search.slo_percentile, 95);
    EXPECT_EQ(search.slos, (std::vector<bench::Slo>{{"ttft", 500}, {"tpot", 50}}));
    EXPECT_DOUBLE_EQ(load("slo: p90:latency=1s\n").load.slo_percentile, 90);

    const bench::LoadConfig batched = load("load: offline\nmax_batch: 8\nmax_batch_wait: 2ms\n").load;
    EXPECT_EQ(batched.max_batch, 8);
    EXPECT_DOUBLE_EQ(batched.max_batch_wait_ms, 2);
}

TEST(RunConfig, WrongServingLoadValuesNameTheKeyAndWhere) {
    EXPECT_EQ(error_of("load: fast\n"),
              "test.yaml:1:7: 'load': 'fast' is not a load: single-stream, multi-stream, server or offline");
    EXPECT_EQ(error_of("target_qps: 0\n"), "test.yaml:1:13: 'target_qps': the rate must be above 0 queries/s, got 0");
    EXPECT_EQ(error_of("slo: {latency: 200}\n"),
              "test.yaml:1:6: 'slo': latency=200: the bound needs a unit: us, ms or s (e.g. latency=200ms)");
    EXPECT_EQ(
        error_of("late_tolerance: 2\n"),
        "test.yaml:1:17: 'late_tolerance': expected a duration above 0 with its unit (us, ms or s, e.g. 1ms), got '2'");
    EXPECT_EQ(error_of("target_qs: 5\n"), "test.yaml:1:1: unknown key 'target_qs' (did you mean 'target_qps'?)");
    EXPECT_EQ(
        error_of("peak_precision: 1.5\n"),
        "test.yaml:1:17: 'peak_precision': expected a relative precision above 0 and below 1, such as 5% or 0.05, "
        "got '1.5'");
    EXPECT_EQ(error_of("slo: {latency: 1s, percentile: 99}\n"),
              "test.yaml:1:6: 'slo': '99' is not a percentile: expected pNN before the bounds, above p0 and below p100 "
              "(e.g. p95:latency=200ms)");
}

TEST(RunConfig, ShippedConfigsLoad) {
    for (const char* name : {"default.yaml", "quick.yaml", "production.yaml", "serving.yaml"}) {
        RunOptions options;
        EXPECT_NO_THROW(benchhost::load_config_file(std::string(BENCH_TEST_SOURCE_DIR) + "/configs/" + name, options))
            << name;
    }
    RunOptions production;
    benchhost::load_config_file(std::string(BENCH_TEST_SOURCE_DIR) + "/configs/production.yaml", production);
    EXPECT_EQ(production.config.warmup_iterations, 10);
    EXPECT_EQ(production.config.measurement_iterations, 50);
    EXPECT_EQ(production.config.axes.at("batch_size"), (std::vector<std::string>{"1", "8", "32", "128"}));
}

TEST(RunConfig, NearestWordFindsTyposOnly) {
    EXPECT_EQ(benchhost::nearest_word("variant", {"variants", "dtypes"}), "variants");
    EXPECT_EQ(benchhost::nearest_word("zzzzzz", {"variants", "dtypes"}), "");
}

}  // namespace

namespace {

TEST(RunConfig, TimeRuleAndRounds) {
    const RunOptions options = load(R"(
min_time: 0.5
max_time: 20
target_ci_width: 1%
rounds: 3
throttle_cooldown: 2.5
discard_recompiled: true
compile_cache: cold
plugins:
  mock_benchmark: {target_ci_width: 0.02}
)");
    EXPECT_EQ(options.rounds, 3);
    const auto top = options.effective_for("resnet50");
    EXPECT_DOUBLE_EQ(top.min_time_s.value(), 0.5);
    EXPECT_DOUBLE_EQ(top.max_time_s.value(), 20);
    EXPECT_DOUBLE_EQ(top.target_ci_width.value(), 0.01);
    EXPECT_DOUBLE_EQ(top.throttle_cooldown_s.value(), 2.5);
    EXPECT_TRUE(top.discard_recompiled.value());
    EXPECT_EQ(top.compile_cache.value(), "cold");
    EXPECT_NE(error_of("compile_cache: lukewarm").find("'compile_cache'"), std::string::npos)
        << error_of("compile_cache: lukewarm");
    EXPECT_DOUBLE_EQ(options.effective_for("mock_benchmark").target_ci_width.value(), 0.02);

    EXPECT_NE(error_of("target_ci_width: 150%").find("test.yaml:1:18: 'target_ci_width' must be a relative width"),
              std::string::npos)
        << error_of("target_ci_width: 150%");
    EXPECT_NE(error_of("min_time: -1").find("'min_time' must be seconds"), std::string::npos);
    EXPECT_NE(error_of("throttle_cooldown: soon").find("test.yaml:1:20: 'throttle_cooldown' must be seconds"),
              std::string::npos)
        << error_of("throttle_cooldown: soon");
    EXPECT_NE(error_of("rounds: 0").find("'rounds' must be at least 1"), std::string::npos);
}

TEST(RunConfig, RelativeAmounts) {
    EXPECT_DOUBLE_EQ(benchhost::parse_relative("5%").value(), 0.05);
    EXPECT_DOUBLE_EQ(benchhost::parse_relative("0.05").value(), 0.05);
    EXPECT_FALSE(benchhost::parse_relative("-5%"));
    EXPECT_FALSE(benchhost::parse_relative("five"));
    EXPECT_FALSE(benchhost::parse_relative("%"));
}

TEST(RunOptionTable, DeclaresEachOptionOfACommandAndEachKeyOnce) {
    using benchhost::RunMode;
    std::set<std::string> keys, described;
    for (const benchhost::RunOption& option : benchhost::run_option_table()) {
        // Braced: EXPECT_* ends in an if-else of its own (-Wdangling-else).
        if (!option.key.empty()) {
            EXPECT_TRUE(keys.insert(option.key).second) << option.key;
        }
        if (!option.describe_key.empty()) {
            EXPECT_TRUE(described.insert(option.describe_key).second) << option.describe_key;
        }
        if (!option.name.empty()) {
            EXPECT_FALSE(option.help.empty()) << option.name;
        }
        // What a config or the command line gives, something sets (--config, plugins:, axes: and
        // params: are read by code of their own).
        const bool own = option.name == "--config" || option.key == "plugins" || option.scenario();
        EXPECT_TRUE(option.set || option.set_scenario || own) << option.name << option.key;
    }
    for (const RunMode mode : {RunMode::run, RunMode::ab, RunMode::bisect}) {
        std::set<std::string> names;
        for (const benchhost::RunOption& option : benchhost::run_option_table())
            if (!option.name.empty() && (option.commands & benchhost::mode_bit(mode)) != 0) {
                EXPECT_TRUE(names.insert(option.name).second) << option.name;
            }
    }
    EXPECT_EQ(benchhost::config_keys().size(), keys.size());
    for (const std::string& key : benchhost::scenario_config_keys()) EXPECT_EQ(keys.count(key), 1u) << key;
}

TEST(RunOptionTable, AnEnumOptionSetsAndDescribesEachOfItsWords) {
    // --isolation, --launcher and --worker-preload (enum_field): each word --help lists sets
    // a value that the record describes by that word again.
    for (const std::string name : {"--isolation", "--launcher", "--worker-preload"}) {
        const auto& table = benchhost::run_option_table();
        const auto option =
            std::find_if(table.begin(), table.end(), [&](const benchhost::RunOption& o) { return o.name == name; });
        ASSERT_NE(option, table.end()) << name;
        ASSERT_EQ(option->check.kind, benchhost::OptionCheck::one_of) << name;
        ASSERT_EQ(option->check.choices.size(), 2u) << name;
        for (const std::string& word : option->check.choices) {
            RunOptions options;
            option->set(options, word, benchhost::OptionSource{name, "", ""});
            EXPECT_EQ(option->describe(options), word) << name;
        }
    }
    EXPECT_EQ(load("isolation: none\n").isolation, benchhost::Isolation::none);
    EXPECT_EQ(load("isolation: process\n").isolation, benchhost::Isolation::process);
    EXPECT_TRUE(load("timeout: 5\n").worker_preload);  // the default
    EXPECT_FALSE(load("worker_preload: off\n").worker_preload);
    EXPECT_TRUE(load("worker_preload: on\n").worker_preload);
    EXPECT_EQ(error_of("worker_preload: yes\n"), "test.yaml:1:17: 'worker_preload' must be on or off, got 'yes'");
}

TEST(RunOptionTable, AConfigKeyAndItsOptionSetTheSameField) {
    // An option with a key sets the field from YAML as the command line does.
    EXPECT_EQ(load("rounds: 4\n").rounds, 4);
    EXPECT_EQ(load("memory_limit: 64\n").memory_limit_mib, 64u);
    EXPECT_DOUBLE_EQ(load("monitor_interval: 0\n").monitor_interval_ms, 0);
    EXPECT_EQ(load("lock_clocks: 1410\n").lock_clocks, "1410");
    EXPECT_EQ(load("timer: host\n").config.timer, "host");
    EXPECT_EQ(load("launcher: slurm\n").launcher, benchhost::Launcher::slurm);
    EXPECT_EQ(load("timeout: 5\n").launcher, benchhost::Launcher::local);  // the default
    EXPECT_EQ(error_of("launcher: mpi\n"), "test.yaml:1:11: 'launcher' must be local or slurm, got 'mpi'");
    EXPECT_EQ(load("plugins:\n  a: {cache: cold}\n").plugin_settings.at("a").cache, "cold");
    EXPECT_EQ(error_of("cache: hot\n"), "test.yaml:1:8: 'cache' must be warm or cold, got 'hot'");
    EXPECT_EQ(error_of("log_level: loud\n"),
              "test.yaml:1:12: 'log_level' must be trace, debug, info, warn, error, critical or off, got 'loud'");
    EXPECT_EQ(error_of("monitor_interval: -1\n"),
              "test.yaml:1:19: 'monitor_interval' must be milliseconds >= 0 (0: no monitoring), got '-1'");
    EXPECT_EQ(error_of("lock_clocks: fast\n").rfind("test.yaml:1:14: 'lock_clocks': ", 0), 0u)
        << error_of("lock_clocks: fast\n");
}

}  // namespace
