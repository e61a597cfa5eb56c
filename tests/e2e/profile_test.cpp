// `run --profile` end to end: ResNet-50, eager and kernelized, through the real host, and
// the mock (no LibTorch): each scenario's profile in its report (operators, modules, flame
// graphs, notes), the trace file as Chrome trace event JSON, report.html in headless
// Chromium with its flame graphs and operator tables (64x64), and the operators' self
// times against the measured latency (128x128). Three runs of the host, seconds each.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "../support/chromium.hpp"
#include "../support/test_support.hpp"
#include "report/files/profile_trace_reporter.hpp"
#include "report/report_reader.hpp"

namespace {

using namespace benchtest;

const fs::path build_dir = BENCH_TEST_BUILD_DIR;

/// One run of the host over the build's plugins, read back.
struct ProfiledRun {
    ProcessResult process;
    benchhost::RunRecord record;
};

ProfiledRun run_profiled(const TempDir& work, const fs::path& output, std::vector<std::string> args,
                         std::vector<std::string> environment = {}) {
    std::vector<std::string> argv = {benchhost_binary().string(),
                                     "run",
                                     "--plugins-dir",
                                     (build_dir / "plugins").string(),
                                     "--output-dir",
                                     output.string(),
                                     "--profile",
                                     "--quiet"};
    argv.insert(argv.end(), args.begin(), args.end());
    environment.push_back("XDG_CACHE_HOME=" + (work / "cache").string());
    ProfiledRun run;
    run.process = run_process(argv, work.path(), environment);
    if (run.process.exit_code == 0) run.record = benchhost::read_run(output);
    return run;
}

const benchhost::ScenarioOutcome* find(const benchhost::RunRecord& record, bench::Variant variant) {
    for (const auto& outcome : record.outcomes)
        if (outcome.config.variant == variant) return &outcome;
    return nullptr;
}

double median_of(const bench::Series& series) {
    std::vector<double> samples = series.samples;
    std::sort(samples.begin(), samples.end());
    const std::size_t n = samples.size();
    return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

/// ResNet-50, eager and kernelized, 1 thread, profiled: two runs of the host, each a few seconds.
ProfiledRun run_resnet(const TempDir& work, const fs::path& output, int image_size) {
    return run_profiled(work, output,
                        {"--include", "resnet50/resnet50", "--variants", "eager,kernelized", "--batch-sizes", "1",
                         "--threads", "1", "--param", "image_size=" + std::to_string(image_size), "--warmup-iterations",
                         "2", "--measurement-iterations", "10"});
}

void expect_operators_modules_and_flame_graphs(const benchhost::ScenarioOutcome& outcome, int image_size) {
    SCOPED_TRACE(outcome.config.scenario_id());
    ASSERT_EQ(outcome.result.status, bench::Status::success) << outcome.result.reason;
    ASSERT_TRUE(outcome.result.profile.has_value());
    const bench::Profile& p = *outcome.result.profile;
    EXPECT_EQ(p.call, "forward");
    EXPECT_NE(p.operator_profiler.find("LibTorch"), std::string::npos);
    EXPECT_GE(p.calls, 3);
    EXPECT_GT(p.overhead, 0.5);
    ASSERT_FALSE(p.operators.empty());
    for (std::size_t i = 1; i < p.operators.size(); ++i) EXPECT_GE(p.operators[i - 1].self_ms, p.operators[i].self_ms);
    // The stem, the four stages and their 16 blocks, and the classifier: their
    // parameters add up to the model's.
    std::map<std::string, const bench::ProfileModule*> modules;
    for (const auto& m : p.modules) modules[m.name] = &m;
    ASSERT_EQ(modules.size(), 22u);
    double top_parameters = 0, top_share = 0;
    for (const auto& m : p.modules) {
        if (m.depth != 0) continue;
        top_parameters += m.parameters;
        top_share += m.share;
    }
    EXPECT_EQ(top_parameters, 25'557'032);
    EXPECT_GT(top_share, 0.8);  // the rest: the call's own code between them
    EXPECT_LE(top_share, 1.0 + 1e-9);
    EXPECT_EQ(modules.at("layer3_5")->depth, 1);
    EXPECT_EQ(modules.at("layer1_0")->parameters, 75'008);
    // It allocates its output, 256 channels at a quarter of the image's side in float32,
    // and more (the branches' activations); never more live at once than it allocated.
    const auto& block = *modules.at("layer1_0");
    const double output_bytes = 256.0 * (image_size / 4) * (image_size / 4) * 4;
    EXPECT_GE(block.allocated_bytes, output_bytes);
    EXPECT_GE(block.peak_bytes, output_bytes);
    EXPECT_LE(block.peak_bytes, block.allocated_bytes);
    // Both flame graphs where perf may sample; else the note says why.
    bool native = false;
    for (const auto& graph : p.flame_graphs) native = native || graph.name == "native";
    EXPECT_EQ(p.flame_graphs.front().name, "operators");
    if (!native) {
        bool said = false;
        for (const auto& note : p.notes) said = said || note.starts_with("native stacks: ");
        EXPECT_TRUE(said);
    }
}

TEST(ResNetProfile, ShowsWhereTheTimeGoesInTheReportsTheTraceAndChromium) {
    TempDir work;
    const fs::path output = work / "run";
    const ProfiledRun run = run_resnet(work, output, 64);
    ASSERT_EQ(run.process.exit_code, 0) << run.process.out << run.process.err;
    ASSERT_EQ(run.record.outcomes.size(), 2u);
    for (const auto& outcome : run.record.outcomes) expect_operators_modules_and_flame_graphs(outcome, 64);

    // Kernelized runs other operators than eager: eager's 53 convolutions and batch norms
    // are one prepacked oneDNN kernel each.
    const auto* eager = find(run.record, bench::Variant::eager);
    const auto* kernelized = find(run.record, bench::Variant::kernelized);
    ASSERT_TRUE(eager && kernelized);
    auto calls = [](const bench::Profile& p) {
        std::map<std::string, double> out;
        for (const auto& op : p.operators) out[op.name] = op.calls;
        return out;
    };
    const auto e = calls(*eager->result.profile), k = calls(*kernelized->result.profile);
    EXPECT_EQ(e.at("aten::conv2d"), 53);
    EXPECT_EQ(e.at("aten::batch_norm"), 53);
    EXPECT_EQ(k.count("aten::batch_norm"), 0u);
    EXPECT_EQ(k.at("mkldnn_prepacked::conv2d_run"), 53);
    // FLOPs where LibTorch counts them: eager's aten::conv2d.
    double conv_flops = 0;
    for (const auto& op : eager->result.profile->operators)
        if (op.name == "aten::conv2d") conv_flops = op.flops;
    EXPECT_GT(conv_flops, 0);

    // The trace files: Chrome trace event JSON, with every profiled call, module and operator.
    for (const auto& outcome : run.record.outcomes) {
        const std::string file = benchhost::profile_trace_file(outcome, run.record.timestamp);
        ASSERT_FALSE(file.empty());
        const rapidjson::Document trace = read_json(output / file);
        ASSERT_TRUE(trace.HasMember("traceEvents") && trace["traceEvents"].IsArray());
        std::size_t operators = 0, modules = 0, profiled_calls = 0;
        for (const auto& event : trace["traceEvents"].GetArray()) {
            ASSERT_TRUE(event.HasMember("ph") && event.HasMember("name"));
            if (std::string(event["ph"].GetString()) != "X") continue;
            ASSERT_TRUE(event["ts"].IsNumber() && event["dur"].IsNumber() && event.HasMember("tid"));
            const std::string category = event["cat"].GetString();
            operators += category == "operator";
            modules += category == "module";
            // The calls the operator profiler saw; perf's are "... (sampled)".
            profiled_calls += category == "call" && !std::string(event["name"].GetString()).ends_with("(sampled)");
        }
        EXPECT_GT(operators, 100u);
        // Every module of each call in the trace (of the first calls, up to 20,000 events).
        EXPECT_GE(modules, 22u);
        EXPECT_EQ(modules % 22, 0u);
        EXPECT_EQ(profiled_calls, static_cast<std::size_t>(outcome.result.profile->calls));
    }

    // report.html: the flame graphs and operator tables, as Chromium builds the page.
    const fs::path html = output / "report.html";
    const std::string source = read_file(html);
    EXPECT_EQ(count(source, "<table class=\"operators\""), 2u);
    EXPECT_EQ(count(source, "<table class=\"operators-beside-eager\""), 1u);
    EXPECT_EQ(count(source, "<table class=\"modules\""), 2u);
    const std::size_t flames = count(source, "<svg class=\"chart flame-graph\"");
    EXPECT_GE(flames, 2u);
    const fs::path binary = find_chromium();
    if (binary.empty()) GTEST_SKIP() << "chromium is not installed (scripts/lib/setup.sh installs Debian's chromium)";
    const ProcessResult dom = chromium(binary, work / "chromium", {"--dump-dom", "file://" + html.string()});
    ASSERT_EQ(dom.exit_code, 0) << dom.err;
    EXPECT_FALSE(console_messages(dom.err)) << dom.err;
    EXPECT_EQ(count(dom.out, "<svg class=\"chart flame-graph\""), flames);
    EXPECT_EQ(count(dom.out, "<table class=\"operators\""), 2u);
    EXPECT_EQ(count(dom.out, "<table class=\"operators-beside-eager\""), 1u);
    // Every frame carries its tooltip.
    EXPECT_GT(count(dom.out, "<g class=\"frame "), 50u);
    EXPECT_EQ(count(dom.out, "<g class=\"frame "), count(source, "<g class=\"frame "));
    EXPECT_NE(dom.out.find("% of all operators</title>"), std::string::npos);
    const fs::path artifacts = build_dir / "test-artifacts";
    fs::create_directories(artifacts);
    // The whole page, tall enough for the profiles at its end (a screenshot of the page
    // opened at "#profiles" comes out blank in headless Chromium).
    const ProcessResult shot = chromium(binary, work / "chromium",
                                        {"--screenshot=" + (artifacts / "profile.png").string(),
                                         "--window-size=1280,12000", "file://" + html.string()});
    EXPECT_EQ(shot.exit_code, 0) << shot.err;
}

TEST(ResNetProfile, TheOperatorsSelfTimesOverTheOverheadAddUpToTheMeasuredLatency) {
    // At 128x128: the profiled call and its overhead, against the measurement.
    TempDir work;
    const ProfiledRun run = run_resnet(work, work / "run", 128);
    ASSERT_EQ(run.process.exit_code, 0) << run.process.out << run.process.err;
    ASSERT_EQ(run.record.outcomes.size(), 2u);
    std::string skipped;  // the scenarios the machine's load left unchecked, and why
    for (const auto& outcome : run.record.outcomes) {
        SCOPED_TRACE(outcome.config.scenario_id());
        ASSERT_TRUE(outcome.result.profile.has_value());
        const bench::Profile& p = *outcome.result.profile;
        const double latency = median_of(*outcome.result.find_series("latency"));
        double self = 0;
        for (const auto& op : p.operators) self += op.self_ms;
        std::printf(
            "[ profile  ] %s: self times %.3f ms, measured median %.3f ms (%.3f), profiled call %.3f ms, "
            "unprofiled %.3f ms, overhead %.3fx\n",
            outcome.config.scenario_id().c_str(), self, latency, self / latency, p.call_ms, p.unprofiled_call_ms,
            p.overhead);
        // Whatever the load, the operators account for the profiled calls they ran in: the
        // call's own code between them is little. Mean against mean: the operators' figures
        // are means over the profiled calls, and a call slowed by a load moves the mean of
        // the calls (the trace file's "call" spans) as it moves them, where the median
        // (Profile::call_ms) ignores it (self times 1.22x the median at load 3).
        const rapidjson::Document trace =
            read_json(work / "run" / benchhost::profile_trace_file(outcome, run.record.timestamp));
        double calls_ms = 0;
        long long calls = 0;
        for (const auto& event : trace["traceEvents"].GetArray())
            if (std::string(event["ph"].GetString()) == "X" && std::string(event["cat"].GetString()) == "call" &&
                !std::string(event["name"].GetString()).ends_with("(sampled)"))
                calls_ms += event["dur"].GetDouble() / 1e3, ++calls;
        ASSERT_EQ(calls, p.calls) << "every profiled call is in the trace";
        const double mean_call = calls_ms / static_cast<double>(calls);
        EXPECT_NEAR(self / mean_call, 1.0, 0.15) << "self times " << self << " ms, the profiled calls' mean "
                                                 << mean_call << " ms (median " << p.call_ms << " ms)";
        // The profiler's cost grows with what else competes for the CPU; and the profiled
        // pass's unprofiled calls time what the measurement timed: when they disagree, the
        // two parts had different shares of the machine, and one cannot check the other.
        std::string loaded;
        for (const std::string& warning : outcome.result.warnings)
            if (warning.find("the machine was loaded") != std::string::npos) loaded = warning;
        const double drift = p.unprofiled_call_ms / latency;
        if (loaded.empty() && std::fabs(drift - 1) > 0.10)
            loaded = "the profiled pass's unprofiled call took " + std::to_string(p.unprofiled_call_ms) +
                     " ms, the measurement's median " + std::to_string(latency) + " ms";
        if (!loaded.empty()) {
            skipped += outcome.config.scenario_id() + ": " + loaded + "\n";
            continue;
        }
        // The profiler costs each operator some microseconds (docs/profiling.md, "The
        // overhead": 1.05x to 1.08x for eager's 1,204 operators at 128x128 under Kineto,
        // at most 1.03x for kernelized's 144), so the raw self times are the profiled call's; taken out by the overhead
        // measured side by side, they are the latency: the operators cover the call, and
        // the pass's calls are those the measurement timed.
        EXPECT_NEAR(self / p.overhead / latency, 1.0, 0.15)
            << "self times " << self << " ms over the overhead " << p.overhead << "x, latency " << latency << " ms";
    }
    if (!skipped.empty())
        GTEST_SKIP() << "the self times against the latency not checked, the machine was loaded:\n" << skipped;
}

TEST(MockProfile, APluginWithoutLibTorchGetsNativeStacksOrSaysWhyNot) {
    TempDir work;
    for (const bool perf_missing : {false, true}) {
        SCOPED_TRACE(perf_missing ? "without perf" : "with the machine's perf");
        const fs::path output = work / (perf_missing ? "no-perf" : "perf");
        const ProfiledRun run = run_profiled(
            work, output,
            {"--enable-mock", "--include", "mock_benchmark/mock_benchmark", "--variants", "eager", "--batch-sizes", "1",
             "--measurement-iterations", "5"},
            perf_missing ? std::vector<std::string>{"BENCH_PERF=/nonexistent/perf"} : std::vector<std::string>{});
        ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
        ASSERT_EQ(run.record.outcomes.size(), 1u);
        const auto& outcome = run.record.outcomes[0];
        ASSERT_TRUE(outcome.result.profile.has_value());
        const bench::Profile& p = *outcome.result.profile;
        EXPECT_TRUE(p.operators.empty());
        EXPECT_EQ(p.notes.at(0).find("operators: the benchmark gave no operator profiler"), 0u) << p.notes.at(0);
        if (perf_missing) {
            EXPECT_TRUE(p.flame_graphs.empty());
            EXPECT_EQ(p.notes.at(1), "native stacks: BENCH_PERF=/nonexistent/perf is not an executable");
            EXPECT_NE(read_file(output / "report.html").find("BENCH_PERF=/nonexistent/perf is not an executable"),
                      std::string::npos);
        } else if (p.flame_graphs.empty()) {
            EXPECT_EQ(p.notes.at(1).find("native stacks: "), 0u);
        } else {
            // The mock's work runs under its entry point: perf found it there by its symbol.
            EXPECT_GT(p.samples, 50);
            double in_plugin = 0, all = 0;
            for (const auto& stack : p.flame_graphs[0].stacks) {
                all += stack.value;
                if (stack.frames.find("run_benchmark") != std::string::npos) in_plugin += stack.value;
            }
            EXPECT_GT(in_plugin, 0.5 * all);
            EXPECT_NE(read_file(output / "report.html").find("<svg class=\"chart flame-graph\""), std::string::npos);
        }
    }
}

TEST(MockProfile, ABenchmarkThatNeverCallsProfileWarnsThatItHasNone) {
    // The mock's `generate` times its own loop and hands no call to ctx.profile.
    TempDir work;
    const ProfiledRun run =
        run_profiled(work, work / "out",
                     {"--enable-mock", "--include", "mock_benchmark/generate", "--variants", "eager", "--batch-sizes",
                      "1", "--measurement-iterations", "3", "--warmup-iterations", "1"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    ASSERT_EQ(run.record.outcomes.size(), 1u);
    const auto& outcome = run.record.outcomes[0];
    ASSERT_EQ(outcome.result.status, bench::Status::success) << outcome.result.reason;
    EXPECT_FALSE(outcome.result.profile.has_value());
    const std::string warning =
        "--profile: plugin mock_benchmark, benchmark performance/mock_benchmark/generate has no profile: it never "
        "hands a call to ctx.profile (<bench/profile.hpp>; a Python benchmark cannot yet)";
    EXPECT_NE(std::find(outcome.result.warnings.begin(), outcome.result.warnings.end(), warning),
              outcome.result.warnings.end())
        << run.process.err;
}

}  // namespace
