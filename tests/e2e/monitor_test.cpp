// End to end: the GPU and CPU monitors in real runs of the host binary over the mock
// plugin. The GPU is the fake NVML of tests/fixtures/fake_nvml, found through
// LD_LIBRARY_PATH by the same dlopen("libnvidia-ml.so.1") that finds the driver's
// library, and serving a script: values that change, a read error mid-run, and a
// throttle event that lasts through the measurement.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "../support/mock_run.hpp"

namespace {

using namespace benchtest;

const std::string fake_nvml_dir = BENCH_TEST_FAKE_NVML_DIR;

// The script's samples; past the last, the last repeats (throttled from sample 4 on).
struct ScriptSample {
    double util, mem_util, mem_used, proc_mem, power_w, temp, sm, mem;
};
const ScriptSample script_samples[] = {
    {10, 5, 1000, 100, 100, 40, 1400, 2619},   {30, 15, 3000, 2048, 150, 50, 1980, 2619},
    {60, 15, 3000, 2048, 200, 60, 1980, 2619}, {90, 15, 3000, 2048, 250.5, 70, 1980, 2619},
    {95, 15, 3000, 2048, 300, 80, 1700, 2619},
};
constexpr int error_sample = 3;

constexpr const char* script_text =
    "name Fake H100\n"
    "driver 550.54.15\n"
    "cuda 12040\n"
    "sample util=10 mem_util=5 mem_used_mib=1000 proc_mem_mib=100 power_mw=100000 temp=40 sm_mhz=1400 "
    "mem_mhz=2619 throttle=0x1\n"
    "sample util=30 mem_util=15 mem_used_mib=3000 proc_mem_mib=2048 power_mw=150000 temp=50 sm_mhz=1980 throttle=0\n"
    "sample util=60 power_mw=200000 temp=60\n"
    "sample util=90 power_mw=250500 temp=70\n"
    "error_at 3\n"
    "sample util=95 power_mw=300000 temp=80 sm_mhz=1700 throttle=0x44   # sw_power_cap, hw_thermal_slowdown\n"
    "energy_counter_mw 300000\n";

class MonitorRun : public MockHostTest {
protected:
    /// Runs the host with the fake NVML (when `script` is not empty) in its library path.
    ProcessResult run(const std::vector<std::string>& args, const std::string& script) {
        std::vector<std::string> options = {"--enable-mock", "--variants", "eager"};
        options.insert(options.end(), args.begin(), args.end());
        std::vector<std::string> env = {"LD_LIBRARY_PATH="};
        if (!script.empty()) {
            write_file(work / "nvml_script.txt", script);
            env = {"LD_LIBRARY_PATH=" + fake_nvml_dir, "BENCH_FAKE_NVML_SCRIPT=" + (work / "nvml_script.txt").string()};
        }
        return run_into(output, options, env);
    }

    rapidjson::Document report() {
        return read_json(files_matching(output / "mock_benchmark", "mock_benchmark_", ".json").at(0));
    }

    fs::path output = work / "out";
};

/// Mean, min, max and count of the timeline's values of `name` at points taken during
/// measurement: what the report's statistics must be when no sample was merged.
struct Expected {
    double mean = 0, min = 0, max = 0;
    long long count = 0;
};
Expected from_timeline(const rapidjson::Value& timeline, const char* name) {
    const auto& values = timeline["series"][name];
    const auto& measured = timeline["series"]["in_measurement"];
    Expected e;
    double sum = 0;
    for (rapidjson::SizeType i = 0; i < values.Size(); ++i) {
        if (measured[i].GetDouble() != 1.0 || values[i].IsNull()) continue;
        const double v = values[i].GetDouble();
        e.min = e.count == 0 ? v : std::min(e.min, v);
        e.max = e.count == 0 ? v : std::max(e.max, v);
        sum += v;
        ++e.count;
    }
    e.mean = e.count > 0 ? sum / static_cast<double>(e.count) : 0;
    return e;
}

double mean_latency_s(const rapidjson::Value& scenario) {
    return scenario["measurements"]["latency"]["mean"].GetDouble() / 1000.0;
}

TEST_F(MonitorRun, GpuMetricsAreTheFakeNvmlsScriptedValues) {
    const ProcessResult result = run({"--include", "mock_benchmark/mock_benchmark", "--warmup-iterations", "2",
                                      "--measurement-iterations", "30", "--monitor-interval", "5"},
                                     script_text);
    ASSERT_EQ(result.exit_code, 0) << result.err;  // the NVML error mid-run fails nothing
    const auto doc = report();
    const auto& scenario = doc["benchmark_scenarios"][0];
    EXPECT_STREQ(scenario["status"].GetString(), "success");
    const auto& gpu = scenario["gpu_metrics"];
    ASSERT_TRUE(gpu["available"].GetBool());
    EXPECT_STREQ(gpu["info"]["device"].GetString(), "Fake H100");
    EXPECT_STREQ(gpu["info"]["window"].GetString(), "measurement");

    // Every sample, in order, is what the script served (the timeline is not reduced
    // below 500 samples); the failed read is missing from its sample only.
    const auto& timeline = gpu["timeline"];
    const auto& series = timeline["series"];
    const rapidjson::SizeType n = timeline["time_s"].Size();
    ASSERT_GE(n, 10u);
    ASSERT_LE(n, 500u);
    EXPECT_EQ(static_cast<double>(n), gpu["values"]["sample_count"]["value"].GetDouble());
    const std::pair<const char*, double ScriptSample::*> columns[] = {
        {"gpu_utilization", &ScriptSample::util}, {"memory_utilization", &ScriptSample::mem_util},
        {"memory_used", &ScriptSample::mem_used}, {"process_memory_used", &ScriptSample::proc_mem},
        {"power", &ScriptSample::power_w},        {"temperature", &ScriptSample::temp},
        {"sm_clock", &ScriptSample::sm},          {"memory_clock", &ScriptSample::mem}};
    for (rapidjson::SizeType i = 0; i < n; ++i) {
        const ScriptSample& expected = script_samples[std::min<rapidjson::SizeType>(i, 4)];
        for (const auto& [name, field] : columns) {
            const auto& value = series[name][i];
            if (i == error_sample &&
                (std::string(name) == "gpu_utilization" || std::string(name) == "memory_utilization")) {
                EXPECT_TRUE(value.IsNull()) << name << " at sample " << i;
                continue;
            }
            ASSERT_TRUE(value.IsNumber()) << name << " at sample " << i;
            EXPECT_DOUBLE_EQ(value.GetDouble(), expected.*field) << name << " at sample " << i;
        }
    }

    // The statistics are those of the samples taken during measurement.
    for (const auto& [name, field] : columns) {
        const Expected e = from_timeline(timeline, name);
        const auto& stats = gpu["metrics"][name];
        ASSERT_GT(e.count, 0) << name;
        EXPECT_EQ(stats["count"].GetInt64(), e.count) << name;
        EXPECT_DOUBLE_EQ(stats["min"].GetDouble(), e.min) << name;
        EXPECT_DOUBLE_EQ(stats["max"].GetDouble(), e.max) << name;
        EXPECT_NEAR(stats["mean"].GetDouble(), e.mean, 1e-9 * std::abs(e.mean)) << name;
    }
    EXPECT_STREQ(gpu["metrics"]["power"]["unit"].GetString(), "W");
    EXPECT_STREQ(gpu["metrics"]["process_memory_used"]["unit"].GetString(), "MiB");
    EXPECT_DOUBLE_EQ(gpu["metrics"]["gpu_utilization"]["max"].GetDouble(), 95);

    // The throttle event: flagged, described, warned about in the report and the log.
    EXPECT_TRUE(gpu["flags"]["throttled"].GetBool());
    EXPECT_STREQ(gpu["info"]["throttle_reasons"].GetString(), "sw_power_cap, hw_thermal_slowdown");
    EXPECT_GT(gpu["values"]["throttled_samples"]["value"].GetDouble(), 0);
    bool warned = false;
    for (const auto& w : scenario["warnings"].GetArray())
        warned = warned || std::string(w.GetString()).find("GPU 0 (Fake H100) throttled during measurement") == 0;
    EXPECT_TRUE(warned);
    const std::string log = read_file(files_matching(output, "benchmark_run_", ".log").at(0));
    EXPECT_NE(log.find("throttled during measurement"), std::string::npos);

    // The read error: reported, not fatal.
    EXPECT_DOUBLE_EQ(gpu["values"]["read_errors"]["value"].GetDouble(), 1);
    EXPECT_STREQ(gpu["info"]["first_error"].GetString(),
                 "nvmlDeviceGetUtilizationRates failed at sample 3: Unknown Error");
    EXPECT_NE(log.find("1 read failed"), std::string::npos);

    // Energy per iteration from the energy counter (300 W): 300 W times the time of
    // one measured call, a little more for the loop around the calls.
    EXPECT_STREQ(gpu["info"]["energy_source"].GetString(), "total energy counter");
    EXPECT_DOUBLE_EQ(gpu["values"]["measured_iterations"]["value"].GetDouble(), 30);
    const double per_iteration = gpu["values"]["energy_per_iteration"]["value"].GetDouble();
    const double expected = 300 * mean_latency_s(scenario);
    EXPECT_GT(per_iteration, 0.9 * expected) << per_iteration << " J";
    EXPECT_LT(per_iteration, 1.25 * expected) << per_iteration << " J";
    EXPECT_DOUBLE_EQ(per_iteration, gpu["values"]["energy"]["value"].GetDouble() / 30);

    // The summary: the machine's record and the headline figures.
    const auto summary = read_json(output / "benchmark_summary.json");
    const auto& gpu_context = summary["context"]["gpu"];
    EXPECT_STREQ(gpu_context["available"].GetString(), "yes");
    EXPECT_STREQ(gpu_context["gpu0_name"].GetString(), "Fake H100");
    EXPECT_STREQ(gpu_context["driver_version"].GetString(), "550.54.15");
    EXPECT_STREQ(gpu_context["cuda_driver_version"].GetString(), "12.4");
    const auto& headline = summary["results"][0]["monitors"]["gpu_metrics"];
    EXPECT_TRUE(headline["throttled"].GetBool());
    EXPECT_DOUBLE_EQ(headline["energy_per_iteration"]["value"].GetDouble(), per_iteration);
}

TEST_F(MonitorRun, EnergyIsIntegratedPowerWithoutACounter) {
    const ProcessResult result = run({"--include", "mock_benchmark/mock_benchmark", "--warmup-iterations", "1",
                                      "--measurement-iterations", "20", "--monitor-interval", "5"},
                                     "energy unsupported\nsample util=50 power_mw=150000 throttle=0\n");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto doc = report();
    const auto& scenario = doc["benchmark_scenarios"][0];
    const auto& gpu = scenario["gpu_metrics"];
    EXPECT_STREQ(gpu["info"]["energy_source"].GetString(), "integrated power");
    EXPECT_FALSE(gpu["flags"]["throttled"].GetBool());
    const double per_iteration = gpu["values"]["energy_per_iteration"]["value"].GetDouble();
    const double expected = 150 * mean_latency_s(scenario);
    EXPECT_GT(per_iteration, 0.9 * expected) << per_iteration << " J";
    EXPECT_LT(per_iteration, 1.25 * expected) << per_iteration << " J";
}

TEST_F(MonitorRun, ACounterTooCoarseForTheWindowReportsNoEnergyPerIteration) {
    // The counter moves once a second; the measurement lasts a fraction of that.
    const ProcessResult result = run({"--include", "mock_benchmark/mock_benchmark", "--warmup-iterations", "1",
                                      "--measurement-iterations", "20", "--monitor-interval", "5"},
                                     "energy_counter_mw 300000\nenergy_step_ms 1000\nsample util=50 throttle=0\n");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto doc = report();
    const auto& scenario = doc["benchmark_scenarios"][0];
    const auto& gpu = scenario["gpu_metrics"];
    EXPECT_STREQ(gpu["info"]["energy_source"].GetString(), "total energy counter");
    EXPECT_FALSE(gpu["values"].HasMember("energy_per_iteration"));
    EXPECT_FALSE(gpu["values"].HasMember("energy"));
    EXPECT_TRUE(gpu["values"].HasMember("energy_total"));
    const std::string why = gpu["info"]["energy_not_reported"].GetString();
    EXPECT_NE(why.find("the energy counter moved about every"), std::string::npos) << why;
    EXPECT_NE(why.find("measure longer (e.g. --min-time"), std::string::npos) << why;
    EXPECT_TRUE(gpu["warnings"].GetArray().Empty());  // a note, not a warning
}

TEST_F(MonitorRun, GenerationMarksItsOwnMeasurementWindows) {
    const ProcessResult result = run({"--include", "generate", "--warmup-iterations", "1", "--measurement-iterations",
                                      "4", "--num-tokens-to-generate", "3", "--monitor-interval", "5"},
                                     "sample util=70 throttle=0\n");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto doc = report();
    const auto& gpu = doc["benchmark_scenarios"][0]["gpu_metrics"];
    EXPECT_STREQ(gpu["info"]["window"].GetString(), "measurement");
    EXPECT_DOUBLE_EQ(gpu["values"]["measured_iterations"]["value"].GetDouble(), 4);  // generations
    EXPECT_DOUBLE_EQ(gpu["metrics"]["gpu_utilization"]["mean"].GetDouble(), 70);
}

TEST_F(MonitorRun, InProcessIsolationMonitorsToo) {
    const ProcessResult result = run({"--include", "mock_benchmark/mock_benchmark", "--isolation", "none",
                                      "--measurement-iterations", "5", "--monitor-interval", "5"},
                                     "sample util=42 throttle=0\n");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto doc = report();
    const auto& scenario = doc["benchmark_scenarios"][0];
    EXPECT_DOUBLE_EQ(scenario["gpu_metrics"]["metrics"]["gpu_utilization"]["mean"].GetDouble(), 42);
    EXPECT_TRUE(scenario["cpu_metrics"]["available"].GetBool());
}

TEST_F(MonitorRun, WithoutNvmlGpuMetricsSayWhy) {
    if (void* nvml = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL)) {
        dlclose(nvml);
        GTEST_SKIP() << "this machine has an NVML library: the monitor would find it";
    }
    const ProcessResult result =
        run({"--include", "mock_benchmark/mock_benchmark", "--measurement-iterations", "3"}, "");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto doc = report();
    const auto& scenario = doc["benchmark_scenarios"][0];
    const auto& gpu = scenario["gpu_metrics"];
    EXPECT_FALSE(gpu["available"].GetBool());
    EXPECT_EQ(std::string(gpu["reason"].GetString()).rfind("libnvidia-ml.so.1 not found: ", 0), 0u)
        << gpu["reason"].GetString();
    EXPECT_EQ(gpu["metrics"].MemberCount(), 0u);

    // The CPU monitor does not need anything.
    const auto& cpu = scenario["cpu_metrics"];
    ASSERT_TRUE(cpu["available"].GetBool());
    for (const char* metric : {"cpu_utilization", "rss", "threads", "system_cpu_utilization", "load_average"})
        EXPECT_TRUE(cpu["metrics"].HasMember(metric)) << metric;
    EXPECT_STREQ(cpu["metrics"]["rss"]["unit"].GetString(), "MiB");
    EXPECT_GT(cpu["values"]["peak_rss"]["value"].GetDouble(), 1.0);
    EXPECT_GE(cpu["values"]["sample_count"]["value"].GetDouble(), 2);
    EXPECT_GT(cpu["values"]["cpu_time"]["value"].GetDouble(), 0);

    const auto summary = read_json(output / "benchmark_summary.json");
    EXPECT_STREQ(summary["context"]["gpu"]["available"].GetString(), "no");
    EXPECT_TRUE(summary["context"]["warnings"].IsArray());
    EXPECT_FALSE(summary["results"][0]["monitors"]["gpu_metrics"]["available"].GetBool());
}

TEST_F(MonitorRun, IntervalZeroTurnsMonitoringOff) {
    const ProcessResult result =
        run({"--include", "mock_benchmark/mock_benchmark", "--measurement-iterations", "3", "--monitor-interval", "0"},
            "sample util=42\n");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto doc = report();
    const auto& scenario = doc["benchmark_scenarios"][0];
    for (const char* monitor : {"gpu_metrics", "cpu_metrics"}) {
        EXPECT_FALSE(scenario[monitor]["available"].GetBool()) << monitor;
        EXPECT_STREQ(scenario[monitor]["reason"].GetString(), "monitoring is disabled (monitor interval 0)");
    }
    const auto summary = read_json(output / "benchmark_summary.json");
    EXPECT_STREQ(summary["run_metadata"]["config"]["monitor_interval_ms"].GetString(), "0");
}

}  // namespace
