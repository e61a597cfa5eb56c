// Device-side timing and cold caches in real runs of the host binary: ctx.measure_device
// over the fake CUDA runtime of tests/fixtures/fake_cudart, found through LD_LIBRARY_PATH
// by the same dlopen("libcudart.so.13") that finds the real one. Its events answer
// known times, and it logs each call, so that the tests see which clock a series came
// from and where the L2 flush fell. Without it (this machine has no GPU), the timer
// falls back to the host's clock, saying why, or fails under --timer cuda-events.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "../support/test_support.hpp"

namespace {

using namespace benchtest;

const fs::path device_plugins = BENCH_TEST_DEVICE_FIXTURE_DIR;
const std::string fake_cudart_dir = BENCH_TEST_FAKE_CUDART_DIR;
const std::string fake_nvml_dir = BENCH_TEST_FAKE_NVML_DIR;

class DeviceTimerTest : public ::testing::Test {
protected:
    /// Runs fixture_device's `benchmark` with `args`, with the fake CUDA runtime when
    /// `fake` (else with none on the library path); returns its scenario's report.
    const rapidjson::Value& run(const std::string& benchmark, std::vector<std::string> args, bool fake,
                                int expected_exit = 0) {
        std::vector<std::string> argv = {benchhost_binary().string(),
                                         "run",
                                         "--plugins-dir",
                                         device_plugins.string(),
                                         "--output-dir",
                                         output.string(),
                                         "--include",
                                         "fixture_device/" + benchmark,
                                         "--warmup-iterations",
                                         "2",
                                         "--measurement-iterations",
                                         "8",
                                         "--monitor-interval",
                                         "0"};
        argv.insert(argv.end(), args.begin(), args.end());
        fs::remove(log);
        // A run in the next second writes a report of another name beside the last one's.
        fs::remove_all(output);
        std::vector<std::string> env = {"LD_LIBRARY_PATH=" + (fake ? fake_cudart_dir : std::string())};
        if (fake) env.push_back("BENCH_FAKE_CUDART_LOG=" + log.string());
        env.insert(env.end(), extra_env.begin(), extra_env.end());
        if (!nvml_script.empty()) {
            write_file(work / "nvml_script.txt", nvml_script);
            env[0] += ":" + fake_nvml_dir;
            env.push_back("BENCH_FAKE_NVML_SCRIPT=" + (work / "nvml_script.txt").string());
        }
        last = run_process(argv, work.path(), env);
        EXPECT_EQ(last.exit_code, expected_exit) << last.out << last.err;
        report = read_json(files_matching(output / "fixture_device", "fixture_device_", ".json").at(0));
        return report["benchmark_scenarios"][0];
    }

    static std::vector<double> samples(const rapidjson::Value& scenario, const char* series) {
        std::vector<double> values;
        const auto& m = scenario["measurements"];
        if (!m.HasMember(series)) return values;
        for (const auto& v : m[series]["measurements"].GetArray()) values.push_back(v.GetDouble());
        return values;
    }

    static std::string info(const rapidjson::Value& scenario, const char* key) {
        return scenario.HasMember("info") && scenario["info"].HasMember(key) ? scenario["info"][key].GetString() : "";
    }

    std::vector<std::string> log_lines() {
        std::vector<std::string> lines;
        std::istringstream in(fs::exists(log) ? read_file(log) : "");
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        return lines;
    }

    TempDir work;
    fs::path output = work / "out";
    fs::path log = work / "cudart.log";
    std::string nvml_script;  // with the fake NVML when set
    std::vector<std::string> extra_env;
    ProcessResult last;
    rapidjson::Document report;
};

TEST_F(DeviceTimerTest, TheDeviceClockTimesEachSampleWithTheHostClockBeside) {
    const rapidjson::Value& s = run("on_device", {}, true);
    ASSERT_STREQ(s["status"].GetString(), "success") << last.err;
    EXPECT_EQ(info(s, "timer"), "CUDA events on device 0");
    // The fake's events answer 2 ms, then 2.001, 2.002, ...: a warmup call each, then
    // the 8 samples (one call each: 2 ms fill a sample), in that order.
    const std::vector<double> device = samples(s, "latency");
    ASSERT_EQ(device.size(), 8u);
    for (std::size_t i = 0; i < device.size(); ++i) EXPECT_NEAR(device[i], 2.0 + 0.001 * (2 + i), 1e-5) << i;
    // The host's clock around the same samples: the call (50 us of work) and the wait.
    const std::vector<double> host = samples(s, "latency_host");
    ASSERT_EQ(host.size(), 8u);
    for (std::size_t i = 0; i < host.size(); ++i) {
        EXPECT_GT(host[i], 0.04) << i;
        // Not the device's figure. No upper bound: on a busy machine the 50 us call can
        // be preempted past the fake's 2 ms (2.3 ms seen under a background load).
        EXPECT_GT(std::abs(host[i] - device[i]), 1e-5) << i;
    }
    // Each sample: start and stop recorded, the stop waited for, then read; warm: no flush.
    std::vector<std::string> lines = log_lines();
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(), [](const std::string& l) { return l.starts_with("memset"); }),
              0);
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(), [](const std::string& l) { return l.starts_with("elapsed"); }),
              10);
    EXPECT_STREQ(s["metadata"]["config"]["timer"].GetString(), "auto");
    EXPECT_STREQ(s["metadata"]["config"]["cache"].GetString(), "warm");
}

TEST_F(DeviceTimerTest, ColdFlushesTheL2BeforeEachSampleOutsideItsEvents) {
    const rapidjson::Value& s = run("on_device", {"--cache", "cold"}, true);
    ASSERT_STREQ(s["status"].GetString(), "success") << last.err;
    EXPECT_STREQ(s["metadata"]["config"]["cache"].GetString(), "cold");
    EXPECT_EQ(s["measurements"]["latency"]["inner_iterations"].GetInt(), 1);
    // Before every start event, a write of twice the fake's 1 MiB L2; none between a
    // start and its stop.
    const std::vector<std::string> lines = log_lines();
    std::size_t starts = 0;
    bool inside = false;
    std::string previous;
    for (const std::string& line : lines) {
        if (line == "record 0") {  // the start event is the first one created
            ++starts;
            EXPECT_EQ(previous, "memset 2097152") << "sample " << starts;
            inside = true;
        }
        if (line == "record 1") inside = false;
        if (line.starts_with("memset")) {
            EXPECT_FALSE(inside) << "a flush inside the timed region";
        }
        previous = line;
    }
    EXPECT_EQ(starts, 10u);  // 2 warmup calls and 8 samples
}

TEST_F(DeviceTimerTest, TimerHostTimesTheCallAndASynchronizationByTheHostClock) {
    const rapidjson::Value& s = run("on_device", {"--timer", "host"}, true);
    ASSERT_STREQ(s["status"].GetString(), "success") << last.err;
    EXPECT_EQ(info(s, "timer"), "host clock (--timer host)");
    EXPECT_TRUE(samples(s, "latency_host").empty());
    for (const double ms : samples(s, "latency")) EXPECT_LT(ms, 1.9);
    const std::vector<std::string> lines = log_lines();
    EXPECT_EQ(std::count_if(lines.begin(), lines.end(), [](const std::string& l) { return l.starts_with("record"); }),
              0);
    EXPECT_GE(std::count(lines.begin(), lines.end(), std::string("device_sync")), 8);
}

TEST_F(DeviceTimerTest, WithoutADeviceAutoFallsBackToTheHostClockAndCudaEventsFails) {
    const rapidjson::Value& s = run("on_device", {}, false);
    ASSERT_STREQ(s["status"].GetString(), "success") << last.err;
    const std::string timer = info(s, "timer");
    EXPECT_TRUE(timer.starts_with("host clock (")) << timer;
    // No runtime on the library path, or one that sees no device (a toolkit without a GPU).
    EXPECT_TRUE(timer.find("no CUDA runtime could be loaded") != std::string::npos ||
                timer.find("no CUDA device") != std::string::npos)
        << timer;

    const rapidjson::Value& failed = run("on_device", {"--timer", "cuda-events"}, false, 1);
    EXPECT_STREQ(failed["status"].GetString(), "failed");
    EXPECT_NE(std::string(failed["reason"].GetString()).find("--timer cuda-events: "), std::string::npos)
        << failed["reason"].GetString();
}

TEST_F(DeviceTimerTest, ColdOnTheHostTimesOneCallASampleAfterAFlushOfTheCpuCaches) {
    const rapidjson::Value& warm = run("on_host", {}, false);
    ASSERT_STREQ(warm["status"].GetString(), "success") << last.err;
    EXPECT_GT(warm["measurements"]["latency"]["inner_iterations"].GetInt(), 1);  // 50 us calls, batched
    const rapidjson::Value& cold = run("on_host", {"--cache", "cold"}, false);
    ASSERT_STREQ(cold["status"].GetString(), "success") << last.err;
    EXPECT_EQ(cold["measurements"]["latency"]["inner_iterations"].GetInt(), 1);
    EXPECT_STREQ(cold["metadata"]["config"]["cache"].GetString(), "cold");
}

// The fake NVML's GPU runs at 1980 MHz for its first 100 readings, then throttles
// (hw_slowdown, 0x8) at 1400 MHz. The monitor reads it every millisecond at most (its
// readings are scheduled from its start, so the 100th comes 100 ms after it at the
// earliest), and each sample lasts 2 ms at least: the first samples ran unthrottled,
// and 150 samples outlast the 100 readings.
std::string throttling_gpu() {
    std::string script = "sample util=90 sm_mhz=1980 throttle=0\n";
    for (int i = 1; i < 100; ++i) script += "sample util=90\n";
    return script + "sample util=90 sm_mhz=1400 throttle=0x8\n";
}

TEST_F(DeviceTimerTest, EachSampleCarriesTheSmClockAndThrottleReasonsTheMonitorSaw) {
    nvml_script = throttling_gpu();
    const rapidjson::Value& s = run(
        "two_ms_samples", {"--devices", "cuda", "--monitor-interval", "1", "--measurement-iterations", "150"}, true);
    ASSERT_STREQ(s["status"].GetString(), "success") << last.err;
    ASSERT_TRUE(s.HasMember("device_state")) << last.err;
    const auto& state = s["device_state"]["latency"];
    const auto& clocks = state["sm_clock_mhz"];
    const auto& reasons = state["throttle_reasons"];
    ASSERT_EQ(clocks.Size(), 150u);
    ASSERT_EQ(reasons.Size(), 150u);
    EXPECT_EQ(clocks[0].GetDouble(), 1980);
    EXPECT_EQ(reasons[0].GetUint64(), 0u);
    EXPECT_EQ(clocks[149].GetDouble(), 1400);
    EXPECT_EQ(reasons[149].GetUint64(), 8u);
    for (rapidjson::SizeType i = 0; i < 150; ++i) {  // a throttled sample saw the lower clock
        if (reasons[i].GetUint64() != 0) {
            EXPECT_EQ(clocks[i].GetDouble(), 1400) << i;
        }
    }
    EXPECT_FALSE(state.HasMember("discarded_throttled"));
}

TEST_F(DeviceTimerTest, DiscardThrottledDropsTheThrottledSamplesCountedAndSaid) {
    nvml_script = throttling_gpu();
    const rapidjson::Value& s =
        run("two_ms_samples",
            {"--devices", "cuda", "--monitor-interval", "1", "--measurement-iterations", "150", "--discard-throttled"},
            true);
    ASSERT_STREQ(s["status"].GetString(), "success") << last.err;
    EXPECT_TRUE(s["metadata"]["config"]["discard_throttled"].GetBool());
    const auto& state = s["device_state"]["latency"];
    ASSERT_TRUE(state.HasMember("discarded_throttled")) << last.err;
    const long long discarded = state["discarded_throttled"].GetInt64();
    const std::vector<double> kept = samples(s, "latency");
    EXPECT_GT(discarded, 0);
    EXPECT_GE(kept.size(), 1u);
    EXPECT_EQ(kept.size() + static_cast<std::size_t>(discarded), 150u);
    EXPECT_STREQ(state["discarded_reasons"].GetString(), "hw_slowdown");
    for (const auto& r : state["throttle_reasons"].GetArray()) EXPECT_EQ(r.GetUint64(), 0u);
    EXPECT_EQ(state["sm_clock_mhz"].Size(), kept.size());
    // The host's clock of the same samples loses the same ones.
    EXPECT_EQ(samples(s, "latency_host").size(), kept.size());
    EXPECT_EQ(s["device_state"]["latency_host"]["discarded_throttled"].GetInt64(), discarded);
    std::string warnings;
    for (const auto& w : s["warnings"].GetArray()) warnings += std::string(w.GetString()) + "\n";
    EXPECT_NE(warnings.find("latency: " + std::to_string(discarded) +
                            " of 150 samples discarded (--discard-throttled): "
                            "the GPU throttled during them (hw_slowdown)"),
              std::string::npos)
        << warnings;
}

std::string all_warnings(const rapidjson::Value& s) {
    std::string warnings;
    for (const auto& w : s["warnings"].GetArray()) warnings += std::string(w.GetString()) + "\n";
    return warnings;
}

TEST_F(DeviceTimerTest, ThrottleCooldownWaitsForTheThrottlingToEndBeforeTheNextSample) {
    // Throttling from the 100th reading for 30 readings (30 ms at least), samples of 2 ms:
    // without a cool-down some 15 samples throttle; with one, the sample the throttling
    // began in, and the next sample starts after it ended.
    std::string script = throttling_gpu();
    for (int i = 1; i < 30; ++i) script += "sample util=90\n";
    nvml_script = script + "sample util=90 sm_mhz=1980 throttle=0\n";
    const rapidjson::Value& s = run("two_ms_samples",
                                    {"--devices", "cuda", "--monitor-interval", "1", "--measurement-iterations", "150",
                                     "--discard-throttled", "--throttle-cooldown", "5"},
                                    true);
    ASSERT_STREQ(s["status"].GetString(), "success") << last.err;
    EXPECT_DOUBLE_EQ(s["metadata"]["config"]["throttle_cooldown_s"].GetDouble(), 5);
    const std::string cooled = info(s, "throttle_cooldown");
    EXPECT_EQ(cooled.rfind("1, ", 0), 0u) << cooled;
    EXPECT_NE(cooled.find("s in all (at most 5 s each, after the GPU throttled: hw_slowdown)"), std::string::npos)
        << cooled;
    EXPECT_EQ(all_warnings(s).find("still throttled"), std::string::npos) << all_warnings(s);
    const auto& state = s["device_state"]["latency"];
    const long long discarded = state.HasMember("discarded_throttled") ? state["discarded_throttled"].GetInt64() : 0;
    EXPECT_LE(discarded, 2) << "the samples after the cool-down ran unthrottled";
    EXPECT_EQ(samples(s, "latency").size() + static_cast<std::size_t>(discarded), 150u);
}

TEST_F(DeviceTimerTest, ThrottleCooldownStopsOnceTheGpuThrottlesSteadily) {
    nvml_script = throttling_gpu();  // throttles from its 100th reading on, for good
    const rapidjson::Value& s = run("two_ms_samples",
                                    {"--devices", "cuda", "--monitor-interval", "1", "--measurement-iterations", "150",
                                     "--throttle-cooldown", "0.05"},
                                    true);
    ASSERT_STREQ(s["status"].GetString(), "success") << last.err;
    const std::string cooled = info(s, "throttle_cooldown");
    EXPECT_EQ(cooled.rfind("1, ", 0), 0u) << cooled;
    EXPECT_NE(all_warnings(s).find("--throttle-cooldown: the GPU still throttled after a cool-down of 0.05 s "
                                   "(hw_slowdown): it throttles steadily, so no more cool-downs were taken"),
              std::string::npos)
        << all_warnings(s);
    EXPECT_EQ(samples(s, "latency").size(), 150u);

    // Without the GPU monitor nothing tells the throttling: said, not silently ignored.
    const rapidjson::Value& blind =
        run("two_ms_samples", {"--devices", "cuda", "--monitor-interval", "0", "--throttle-cooldown", "1"}, true);
    ASSERT_STREQ(blind["status"].GetString(), "success") << last.err;
    EXPECT_NE(all_warnings(blind).find("--throttle-cooldown: no cool-downs, the GPU monitor cannot see the GPU "
                                       "throttle (monitoring is disabled"),
              std::string::npos)
        << all_warnings(blind);
}

TEST_F(DeviceTimerTest, WrongTimerOrCacheValuesAreRefusedNamingTheOption) {
    const ProcessResult r =
        run_host({"run", "--plugins-dir", device_plugins.string(), "--cache", "lukewarm"}, work.path());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--cache"), std::string::npos) << r.err;
    write_file(work / "bad.yaml", "timer: gpu\n");
    const ProcessResult y = run_host(
        {"run", "--plugins-dir", device_plugins.string(), "--config", (work / "bad.yaml").string(), "--dry-run"},
        work.path());
    EXPECT_EQ(y.exit_code, 2);
    EXPECT_NE(y.err.find("'timer' must be auto, host or cuda-events, got 'gpu'"), std::string::npos) << y.err;
    EXPECT_NE(y.err.find("bad.yaml:1"), std::string::npos) << y.err;
}

}  // namespace

namespace {

/// A scalar of a scenario in a plugin report (NaN when it has none).
double scalar(const rapidjson::Value& scenario, const char* name) {
    const auto& m = scenario["measurements"];
    return m.HasMember(name) ? m[name]["value"].GetDouble() : std::nan("");
}

}  // namespace

// fixture_device/memory_peaks touches 256 MiB in its set-up and 16 MiB a sample: the
// timed samples' peak leaves the set-up out; the scenario's keeps it; and in one process
// (--isolation none) the next scenario does not inherit it.
TEST(MemoryPeaks, TheTimedSamplesPeakLeavesOutTheSetUpAndNoScenarioInheritsAnothers) {
    for (const char* isolation : {"process", "none"}) {
        SCOPED_TRACE(isolation);
        TempDir work;
        const ProcessResult run =
            run_host({"run", "--plugins-dir", device_plugins.string(), "--output-dir", (work / "out").string(),
                      "--include", "fixture_device/memory_peaks", "--include", "fixture_device/on_host", "--isolation",
                      isolation, "--warmup-iterations", "1", "--measurement-iterations", "3"},
                     work.path());
        ASSERT_EQ(run.exit_code, 0) << run.err;
        const auto report =
            read_json(files_matching(work / "out" / "fixture_device", "fixture_device_", ".json").at(0));
        const auto& scenarios = report["benchmark_scenarios"];
        ASSERT_EQ(scenarios.Size(), 2u);
        const rapidjson::Value& peaks = scenarios[0];
        const rapidjson::Value& next = scenarios[1];
        ASSERT_STREQ(peaks["benchmark"].GetString(), "memory_peaks");
        ASSERT_STREQ(next["benchmark"].GetString(), "on_host");

        const double setup = scalar(peaks, "setup_peak_rss"), measured = scalar(peaks, "measured_peak_rss");
        EXPECT_GE(setup, 256.0);
        EXPECT_GE(measured, 16.0);
        EXPECT_LT(measured, setup - 200.0);  // the samples' 16 MiB, not the set-up's 256
        EXPECT_GE(scalar(peaks, "peak_rss"), setup);  // the whole scenario, set-up included
        EXPECT_NEAR(peaks["cpu_metrics"]["values"]["peak_rss"]["value"].GetDouble(), scalar(peaks, "peak_rss"), 8.0);
        // The next scenario's peak is its own, in a worker of its own or in the host's process.
        EXPECT_LT(scalar(next, "peak_rss"), setup - 200.0);
    }
}

namespace {

// On a CUDA scenario the bandwidth is set against the device memory's peak, which the
// runtime states (the fake: an H100's 2619 MHz and 5120 bits, 3352.32 GB/s); on the CPU,
// whose peak is not known, the series stands alone.
TEST_F(DeviceTimerTest, BandwidthIsSetAgainstTheDeviceMemorysPeakOnCudaAndAloneOnTheCpu) {
    const rapidjson::Value& s = run("on_device", {"--devices", "cuda"}, true);
    ASSERT_STREQ(s["status"].GetString(), "success") << last.err;
    const std::vector<double> latency = samples(s, "latency");
    const std::vector<double> bandwidth = samples(s, "bandwidth");
    ASSERT_EQ(bandwidth.size(), latency.size());
    for (std::size_t i = 0; i < latency.size(); ++i) EXPECT_NEAR(bandwidth[i], 8e6 / 1e9 / (latency[i] / 1e3), 1e-9);
    EXPECT_NEAR(scalar(s, "peak_memory_bandwidth"), 3352.32, 1e-9);
    std::vector<double> sorted = bandwidth;
    std::sort(sorted.begin(), sorted.end());
    const double median = (sorted[3] + sorted[4]) / 2;  // 8 samples
    EXPECT_NEAR(scalar(s, "fraction_of_peak_bandwidth"), median / 3352.32, 1e-12);

    const rapidjson::Value& cpu = run("on_device", {}, true);
    ASSERT_STREQ(cpu["status"].GetString(), "success") << last.err;
    EXPECT_EQ(samples(cpu, "bandwidth").size(), samples(cpu, "latency").size());
    EXPECT_TRUE(std::isnan(scalar(cpu, "peak_memory_bandwidth")));
    EXPECT_TRUE(std::isnan(scalar(cpu, "fraction_of_peak_bandwidth")));
}

}  // namespace

namespace {

std::size_t count_lines(const std::vector<std::string>& lines, const std::string& prefix) {
    return static_cast<std::size_t>(
        std::count_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.starts_with(prefix); }));
}

// measure_graph: the launch function runs twice before timing (a warm-up, then under
// capture on the SDK's own non-blocking stream, in thread-local mode), the graph is
// instantiated once, and every timed call is one graph launch between the events.
TEST_F(DeviceTimerTest, AGraphIsCapturedOnceAndLaunchedAtEveryCall) {
    const rapidjson::Value& s = run("graphed", {}, true);
    ASSERT_STREQ(s["status"].GetString(), "success") << last.err;
    EXPECT_EQ(s["measurements"]["launch_calls"]["value"].GetDouble(), 2);
    EXPECT_EQ(info(s, "cuda_graph"), "captured once on device 0, launched at each call");
    EXPECT_EQ(info(s, "timer"), "CUDA events on device 0");
    EXPECT_EQ(samples(s, "latency").size(), 8u);
    const std::vector<std::string> lines = log_lines();
    EXPECT_EQ(count_lines(lines, "stream_create 1"), 1u);
    EXPECT_EQ(count_lines(lines, "begin_capture 1"), 1u);
    EXPECT_EQ(count_lines(lines, "end_capture"), 1u);
    EXPECT_EQ(count_lines(lines, "instantiate"), 1u);
    // The 2 warm-up samples and the 8 timed ones, one call each (2 ms fill a sample).
    EXPECT_EQ(count_lines(lines, "graph_launch"), 10u);
    EXPECT_EQ(count_lines(lines, "elapsed"), 10u);
    // The capture comes before the first launch.
    const auto at = [&](const std::string& prefix) {
        return std::find_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.starts_with(prefix); });
    };
    EXPECT_LT(at("end_capture"), at("graph_launch"));
}

TEST_F(DeviceTimerTest, AGraphThatCannotBeCapturedOrRunFailsTheScenarioSayingWhy) {
    extra_env = {"BENCH_FAKE_CUDART_CAPTURE_FAILS=1"};
    const rapidjson::Value& s = run("graphed", {}, true, 1);
    EXPECT_STREQ(s["status"].GetString(), "failed");
    const std::string reason = s["reason"].GetString();
    EXPECT_NE(reason.find("cudaStreamEndCapture: CUDA error 901"), std::string::npos) << reason;
    EXPECT_NE(reason.find("a capture cannot hold"), std::string::npos) << reason;

    extra_env.clear();  // without a device (no runtime, or one without a driver): the reason the runtime gave
    const rapidjson::Value& none = run("graphed", {}, false, 1);
    EXPECT_STREQ(none["status"].GetString(), "failed");
    EXPECT_NE(std::string(none["reason"].GetString()).find("measure_graph: "), std::string::npos)
        << none["reason"].GetString();
}

}  // namespace
