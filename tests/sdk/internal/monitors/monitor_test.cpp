// The monitors of the SDK, driven sample by sample (sample_now) so that what counts
// as "during measurement" is exact. The GPU monitor loads the fake NVML of
// tests/fixtures/fake_nvml by its path; the end-to-end tests (tests/e2e/monitor_test.cpp)
// load it through LD_LIBRARY_PATH, as the driver's library would be found.
#include <bench/context.hpp>
#include <bench/internal/monitors/cpu_monitor.hpp>
#include <bench/internal/monitors/gpu_clocks.hpp>
#include <bench/internal/monitors/gpu_monitor.hpp>
#include <bench/internal/monitors/scenario_monitors.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>

#include "../../../support/test_support.hpp"

namespace {

using namespace std::chrono_literals;
using benchtest::TempDir;

const std::string fake_nvml = std::string(BENCH_TEST_FAKE_NVML_DIR) + "/libnvidia-ml.so.1";

/// Writes a fake NVML script and points BENCH_FAKE_NVML_SCRIPT at it for the test.
class FakeNvmlScript {
public:
    explicit FakeNvmlScript(const std::string& text) {
        benchtest::write_file(dir_ / "script.txt", text);
        setenv("BENCH_FAKE_NVML_SCRIPT", (dir_ / "script.txt").c_str(), 1);
    }
    ~FakeNvmlScript() { unsetenv("BENCH_FAKE_NVML_SCRIPT"); }

private:
    TempDir dir_;
};

bench::MonitorOptions fake_options() {
    bench::MonitorOptions options;
    options.nvml_library = fake_nvml;
    options.interval_ms = 1000;  // the tests sample by hand
    return options;
}

constexpr const char* six_samples =
    "name Fake GPU\n"
    "driver 550.54.15\n"
    "cuda 12040\n"
    "sample util=10 mem_util=1 mem_used_mib=1000 proc_mem_mib=100 power_mw=100000 energy_mj=0 temp=40 sm_mhz=1000 "
    "mem_mhz=2000 throttle=0x1\n"
    "sample util=20 energy_mj=1000 temp=41\n"
    "sample util=30 energy_mj=3000 temp=42\n"
    "sample util=40 energy_mj=6000 temp=43 throttle=0x4   # sw_power_cap\n"
    "sample util=50 energy_mj=10000 temp=44 throttle=0x0\n"
    "sample util=60 energy_mj=15000 temp=45\n";

TEST(GpuMonitor, StatisticsCoverTheSamplesOfTheMeasurementWindows) {
    FakeNvmlScript script(six_samples);
    bench::GpuMonitor monitor(fake_options());
    ASSERT_TRUE(monitor.available()) << monitor.reason();
    std::vector<bench::Clock::time_point> t;
    for (int i = 0; i < 6; ++i) t.push_back(monitor.sample_now());

    // Sample i stands for (t[i-1], t[i]]: a window [t2, t4] holds samples 3 and 4.
    const bench::MonitorReport report = monitor.report({{t[2], t[4], 10}});
    ASSERT_TRUE(report.available);
    EXPECT_EQ(report.info.at("device"), "Fake GPU");
    EXPECT_EQ(report.info.at("uuid"), "GPU-fake-0");
    EXPECT_EQ(report.info.at("window"), "measurement");
    const bench::MetricStats& util = report.metrics.at("gpu_utilization");
    EXPECT_EQ(util.count, 2);
    EXPECT_DOUBLE_EQ(util.mean, 45);
    EXPECT_DOUBLE_EQ(util.min, 40);
    EXPECT_DOUBLE_EQ(util.max, 50);
    EXPECT_EQ(util.unit, "%");
    EXPECT_DOUBLE_EQ(report.metrics.at("temperature").mean, 43.5);
    EXPECT_EQ(report.metrics.at("temperature").unit, "C");
    EXPECT_DOUBLE_EQ(report.metrics.at("power").mean, 100);
    EXPECT_EQ(report.metrics.at("power").unit, "W");
    EXPECT_DOUBLE_EQ(report.metrics.at("memory_used").max, 1000);
    EXPECT_DOUBLE_EQ(report.metrics.at("process_memory_used").max, 100);
    EXPECT_DOUBLE_EQ(report.values.at("other_processes").value, 0);  // no warning of them
    EXPECT_DOUBLE_EQ(report.metrics.at("sm_clock").mean, 1000);
    EXPECT_DOUBLE_EQ(report.metrics.at("memory_clock").mean, 2000);

    // Energy from the counter: E(t4) - E(t2) = 10 J - 3 J, over 10 iterations.
    EXPECT_EQ(report.info.at("energy_source"), "total energy counter");
    EXPECT_DOUBLE_EQ(report.values.at("energy").value, 7.0);
    EXPECT_DOUBLE_EQ(report.values.at("energy_per_iteration").value, 0.7);
    EXPECT_EQ(report.values.at("energy_per_iteration").unit, "J");
    EXPECT_DOUBLE_EQ(report.values.at("energy_total").value, 15.0);
    EXPECT_DOUBLE_EQ(report.values.at("measured_iterations").value, 10);
    EXPECT_DOUBLE_EQ(report.values.at("sample_count").value, 6);

    // Sample 3 throttled (sw_power_cap): inside the window.
    EXPECT_TRUE(report.flags.at("throttled"));
    EXPECT_DOUBLE_EQ(report.values.at("throttled_samples").value, 1);
    EXPECT_EQ(report.info.at("throttle_reasons"), "sw_power_cap");
    ASSERT_EQ(report.warnings.size(), 1u);
    EXPECT_NE(report.warnings[0].find("throttled during measurement in 1 of 2 samples (sw_power_cap)"),
              std::string::npos)
        << report.warnings[0];

    // The timeline holds every sample, and which ones counted.
    ASSERT_EQ(report.timeline.time_s.size(), 6u);
    const std::vector<double> expected_util = {10, 20, 30, 40, 50, 60};
    EXPECT_EQ(report.timeline.series.at("gpu_utilization"), expected_util);
    const std::vector<double> expected_in = {0, 0, 0, 1, 1, 0};
    EXPECT_EQ(report.timeline.series.at("in_measurement"), expected_in);
    const std::vector<double> expected_energy = {0, 1, 3, 6, 10, 15};
    EXPECT_EQ(report.timeline.series.at("energy"), expected_energy);
}

TEST(GpuMonitor, AWindowOutsideTheThrottledSamplesIsNotThrottled) {
    FakeNvmlScript script(six_samples);
    bench::GpuMonitor monitor(fake_options());
    ASSERT_TRUE(monitor.available()) << monitor.reason();
    std::vector<bench::Clock::time_point> t;
    for (int i = 0; i < 6; ++i) t.push_back(monitor.sample_now());
    const bench::MonitorReport report = monitor.report({{t[4], t[5], 5}});  // sample 5 only
    EXPECT_FALSE(report.flags.at("throttled"));
    EXPECT_EQ(report.info.at("throttle_reasons"), "none");
    EXPECT_TRUE(report.warnings.empty());
    EXPECT_DOUBLE_EQ(report.metrics.at("gpu_utilization").mean, 60);
    EXPECT_DOUBLE_EQ(report.values.at("energy_per_iteration").value, 1.0);  // (15 - 10) J / 5
}

TEST(GpuMonitor, WithoutWindowsEverySampleCounts) {
    FakeNvmlScript script(six_samples);
    bench::GpuMonitor monitor(fake_options());
    for (int i = 0; i < 6; ++i) monitor.sample_now();
    const bench::MonitorReport report = monitor.report({});
    EXPECT_EQ(report.info.at("window"), "scenario");
    EXPECT_EQ(report.metrics.at("gpu_utilization").count, 6);
    EXPECT_DOUBLE_EQ(report.metrics.at("gpu_utilization").mean, 35);
    EXPECT_DOUBLE_EQ(report.values.at("energy").value, 15);
    EXPECT_FALSE(report.values.contains("energy_per_iteration"));  // no iterations known
    EXPECT_NE(report.warnings.at(0).find("throttled during the scenario"), std::string::npos);
}

TEST(GpuMonitor, AReadErrorMidRunIsReportedAndLeftOut) {
    FakeNvmlScript script(std::string(six_samples) + "error_at 2\n");
    bench::GpuMonitor monitor(fake_options());
    for (int i = 0; i < 6; ++i) monitor.sample_now();
    const bench::MonitorReport report = monitor.report({});
    ASSERT_TRUE(report.available);
    EXPECT_EQ(report.metrics.at("gpu_utilization").count, 5);
    EXPECT_DOUBLE_EQ(report.metrics.at("gpu_utilization").mean, (10 + 20 + 40 + 50 + 60) / 5.0);
    EXPECT_TRUE(std::isnan(report.timeline.series.at("gpu_utilization")[2]));
    EXPECT_DOUBLE_EQ(report.timeline.series.at("temperature")[2], 42);  // the other reads of that sample
    EXPECT_DOUBLE_EQ(report.values.at("read_errors").value, 1);
    EXPECT_EQ(report.info.at("first_error"), "nvmlDeviceGetUtilizationRates failed at sample 2: Unknown Error");
    bool warned = false;
    for (const auto& warning : report.warnings) warned = warned || warning.find("1 read failed") != std::string::npos;
    EXPECT_TRUE(warned);
}

TEST(GpuMonitor, WithoutAnEnergyCounterEnergyIsIntegratedPower) {
    FakeNvmlScript script("energy unsupported\nsample util=50 power_mw=200000\n");
    bench::GpuMonitor monitor(fake_options());
    std::vector<bench::Clock::time_point> t;
    for (int i = 0; i < 5; ++i) {
        t.push_back(monitor.sample_now());
        std::this_thread::sleep_for(2ms);
    }
    const bench::MonitorReport report = monitor.report({{t[1], t[3], 4}});
    EXPECT_EQ(report.info.at("energy_source"), "integrated power");
    EXPECT_EQ(report.info.at("unsupported"), "energy_counter");
    const double seconds = std::chrono::duration<double>(t[3] - t[1]).count();
    EXPECT_NEAR(report.values.at("energy").value, 200 * seconds, 1e-9);
    EXPECT_NEAR(report.values.at("energy_per_iteration").value, 200 * seconds / 4, 1e-9);
}

TEST(GpuMonitor, AFullBufferMergesNeighboursWithoutLosingTheSpan) {
    FakeNvmlScript script(six_samples);
    bench::MonitorOptions options = fake_options();
    options.capacity = 4;
    bench::GpuMonitor monitor(options);
    for (int i = 0; i < 6; ++i) monitor.sample_now();
    const bench::MonitorReport report = monitor.report({});
    // Four rows, full at the fifth sample: the first stays, 20 and 30 merge, 40 and
    // 50 merge (50 joins the row that is lighter than the others), 60 is a new row.
    const std::vector<double> expected = {10, 25, 45, 60};
    EXPECT_EQ(report.timeline.series.at("gpu_utilization"), expected);
    EXPECT_DOUBLE_EQ(report.values.at("sample_count").value, 6);
    EXPECT_DOUBLE_EQ(report.values.at("energy_total").value, 15);  // counters keep their last reading
    EXPECT_NE(report.info.at("merged_samples").find("every 2 samples"), std::string::npos);
}

TEST(GpuMonitor, ManyHalvingsKeepTheWholeSpan) {
    FakeNvmlScript script(six_samples);
    bench::MonitorOptions options = fake_options();
    options.capacity = 5;
    bench::GpuMonitor monitor(options);
    const auto first = monitor.sample_now();
    bench::Clock::time_point last;
    for (int i = 1; i < 100; ++i) last = monitor.sample_now();
    const bench::MonitorReport report = monitor.report({});
    const auto& time_s = report.timeline.time_s;
    ASSERT_LE(time_s.size(), 5u);
    EXPECT_NEAR(time_s.back() - time_s.front(), std::chrono::duration<double>(last - first).count(), 1e-9);
    EXPECT_DOUBLE_EQ(report.values.at("energy_total").value, 15);
    EXPECT_DOUBLE_EQ(report.values.at("sample_count").value, 100);
    EXPECT_DOUBLE_EQ(report.timeline.series.at("gpu_utilization").front(), 10);  // the first sample, kept
    EXPECT_DOUBLE_EQ(report.timeline.series.at("gpu_utilization").back(), 60);
}

TEST(GpuMonitor, SamplesInAThreadAndStopsPromptly) {
    FakeNvmlScript script(six_samples);
    bench::MonitorOptions options = fake_options();
    options.interval_ms = 5;
    bench::GpuMonitor monitor(options);
    monitor.start();
    std::this_thread::sleep_for(100ms);
    const auto before_stop = std::chrono::steady_clock::now();
    monitor.stop();
    EXPECT_LT(std::chrono::steady_clock::now() - before_stop, 50ms);  // a condition variable, not a sleep
    const bench::MonitorReport report = monitor.report({});
    EXPECT_GE(report.values.at("sample_count").value, 3);  // generous: a loaded machine samples late
    EXPECT_DOUBLE_EQ(report.metrics.at("gpu_utilization").max, 60);  // the last sample repeats
}

TEST(GpuMonitor, NoLibraryNoInitNoDevice) {
    {
        bench::MonitorOptions options;
        options.nvml_library = "libnvidia-ml-not-here.so.1";
        bench::GpuMonitor monitor(options);
        EXPECT_FALSE(monitor.available());
        EXPECT_EQ(monitor.reason().rfind("libnvidia-ml-not-here.so.1 not found: ", 0), 0u) << monitor.reason();
        monitor.start();  // harmless
        monitor.stop();
        const bench::MonitorReport report = monitor.report({});
        EXPECT_FALSE(report.available);
        EXPECT_EQ(report.reason, monitor.reason());
        EXPECT_TRUE(report.metrics.empty());
    }
    {
        FakeNvmlScript script("init_error 9\n");
        bench::GpuMonitor monitor(fake_options());
        EXPECT_EQ(monitor.reason(), "nvmlInit_v2 failed: Driver Not Loaded");
    }
    {
        FakeNvmlScript script("devices 0\n");
        bench::GpuMonitor monitor(fake_options());
        EXPECT_EQ(monitor.reason(), "no GPU: NVML reports 0 devices");
        EXPECT_FALSE(bench::describe_gpus(fake_nvml).available);
    }
}

TEST(GpuMonitor, DeviceSelectionFollowsCudaVisibleDevices) {
    FakeNvmlScript script("devices 2\n");
    bench::MonitorOptions options = fake_options();
    options.device = "cuda:1";
    {
        bench::GpuMonitor monitor(options);
        monitor.sample_now();
        EXPECT_EQ(monitor.report({}).info.at("uuid"), "GPU-fake-1");
    }
    options.device = "cuda:2";
    EXPECT_EQ(bench::GpuMonitor(options).reason(), "no GPU 2: NVML reports 2 devices");
    setenv("CUDA_VISIBLE_DEVICES", "1", 1);
    options.device = "cuda";
    {
        bench::GpuMonitor monitor(options);
        monitor.sample_now();
        EXPECT_EQ(monitor.report({}).info.at("device_index"), "1");
    }
    setenv("CUDA_VISIBLE_DEVICES", "GPU-fake-0", 1);
    {
        bench::GpuMonitor monitor(options);
        monitor.sample_now();
        EXPECT_EQ(monitor.report({}).info.at("uuid"), "GPU-fake-0");
    }
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    EXPECT_EQ(bench::GpuMonitor(options).reason(), "no GPU 0 among CUDA_VISIBLE_DEVICES=''");
    unsetenv("CUDA_VISIBLE_DEVICES");
}

/// Counts the warnings that contain `text`.
std::size_t warnings_with(const bench::MonitorReport& report, const std::string& text) {
    std::size_t n = 0;
    for (const std::string& warning : report.warnings) n += warning.find(text) != std::string::npos;
    return n;
}

TEST(GpuMonitor, OtherProcessesOnTheDeviceDuringMeasurementAreAWarning) {
    // Two other processes (pids 101, 102) in sample 2 only.
    FakeNvmlScript script("sample proc_mem_mib=300\nsample\nsample others=2\nsample others=0\n");
    bench::GpuMonitor monitor(fake_options());
    std::vector<bench::Clock::time_point> t;
    for (int i = 0; i < 4; ++i) t.push_back(monitor.sample_now());

    // Sample 3 alone is measured: no other process then.
    const bench::MonitorReport outside = monitor.report({{t[2], t[3], 1}});
    EXPECT_DOUBLE_EQ(outside.values.at("other_processes").value, 0);
    EXPECT_EQ(warnings_with(outside, "other process"), 0u);
    EXPECT_DOUBLE_EQ(outside.metrics.at("process_memory_used").max, 300);

    const bench::MonitorReport inside = monitor.report({{t[1], t[3], 1}});
    EXPECT_DOUBLE_EQ(inside.values.at("other_processes").value, 2);
    EXPECT_EQ(inside.info.at("other_processes"), "2 (pids 101, 102)");
    EXPECT_EQ(warnings_with(inside, "was used by 2 other processes during measurement (pids 101, 102)"), 1u)
        << ::testing::PrintToString(inside.warnings);
}

TEST(GpuMonitor, AProcessNvmlListsUnderAnotherPidHasNoMemoryFigureNotZero) {
    // In a container's pid namespace NVML lists this process under the host's pid.
    FakeNvmlScript script("pid_namespace\nsample proc_mem_mib=300\nsample others=1\n");
    bench::GpuMonitor monitor(fake_options());
    monitor.sample_now();
    monitor.sample_now();
    const bench::MonitorReport report = monitor.report({});
    EXPECT_EQ(report.metrics.count("process_memory_used"), 0u);
    EXPECT_EQ(report.info.at("process_memory_used")
                  .rfind("unavailable: NVML never listed this process (pid " + std::to_string(getpid()), 0),
              0u)
        << report.info.at("process_memory_used");
    // Two listed, one of which may be this process: at least one other.
    EXPECT_EQ(warnings_with(report, "was used by at least 1 other process during the scenario"), 1u)
        << ::testing::PrintToString(report.warnings);
}

TEST(GpuMonitor, MigModeAndMigInstancesAreNamed) {
    FakeNvmlScript script("name Fake A100\nmig\n");
    {
        bench::GpuMonitor monitor(fake_options());
        monitor.sample_now();
        EXPECT_EQ(
            monitor.report({}).info.at("mig").rfind("enabled: the scenario ran on one of this GPU's instances", 0), 0u);
    }
    setenv("CUDA_VISIBLE_DEVICES", "MIG-fake-0", 1);
    {
        bench::GpuMonitor monitor(fake_options());
        ASSERT_TRUE(monitor.available()) << monitor.reason();
        monitor.sample_now();
        const bench::MonitorReport report = monitor.report({});
        EXPECT_EQ(report.info.at("device"), "Fake A100 MIG 1g.10gb");
        EXPECT_EQ(report.info.at("mig").rfind("instance MIG-fake-0:", 0), 0u);
        EXPECT_NE(report.info.at("unsupported").find("gpu_utilization"), std::string::npos);
    }
    unsetenv("CUDA_VISIBLE_DEVICES");
}

TEST(GpuMonitor, SeveralGpusNumberedFastestFirstAreAWarning) {
    FakeNvmlScript script("devices 2\n");
    const char* saved = std::getenv("CUDA_DEVICE_ORDER");
    const std::string saved_value = saved ? saved : "";
    unsetenv("CUDA_DEVICE_ORDER");
    {
        bench::GpuMonitor monitor(fake_options());
        monitor.sample_now();
        EXPECT_EQ(warnings_with(monitor.report({}), "CUDA_DEVICE_ORDER is unset: CUDA numbers the GPUs fastest first"),
                  1u);
    }
    setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
    {
        bench::GpuMonitor monitor(fake_options());
        monitor.sample_now();
        EXPECT_EQ(warnings_with(monitor.report({}), "CUDA_DEVICE_ORDER"), 0u);
    }
    if (saved) setenv("CUDA_DEVICE_ORDER", saved_value.c_str(), 1);
    else unsetenv("CUDA_DEVICE_ORDER");
}

/// The fake NVML's log of clock locks, for the test.
class FakeNvmlLog {
public:
    FakeNvmlLog() { setenv("BENCH_FAKE_NVML_LOG", path().c_str(), 1); }
    ~FakeNvmlLog() { unsetenv("BENCH_FAKE_NVML_LOG"); }
    std::filesystem::path path() const { return dir_ / "nvml.log"; }
    std::string text() const { return std::filesystem::exists(path()) ? benchtest::read_file(path()) : ""; }

private:
    TempDir dir_;
};

TEST(GpuClockLock, LocksEachGpuOnceAndUnlocksThem) {
    FakeNvmlScript script("devices 2\nname Fake H100\n");
    FakeNvmlLog log;
    {
        bench::GpuClockLock lock("base", {"cuda:0", "cuda:1", "cuda:0"}, fake_nvml);
        EXPECT_EQ(lock.description(), "base clock on GPU 0 (Fake H100), GPU 1 (Fake H100)");
        EXPECT_EQ(log.text(), "lock 0 0xffffff01 0xffffff01\nlock 1 0xffffff01 0xffffff01\n");
    }
    EXPECT_EQ(log.text(), "lock 0 0xffffff01 0xffffff01\nlock 1 0xffffff01 0xffffff01\nreset 0\nreset 1\n");

    std::filesystem::remove(log.path());
    bench::GpuClockLock lock("1410", {"cuda:1"}, fake_nvml);
    EXPECT_EQ(lock.description(), "1410 MHz on GPU 1 (Fake H100)");
    EXPECT_TRUE(lock.release().empty());
    EXPECT_EQ(log.text(), "lock 1 1410 1410\nreset 1\n");
}

TEST(GpuClockLock, WithoutTheRightOrTheGpuItSaysWhy) {
    FakeNvmlScript script("lock_error 4\n");
    FakeNvmlLog log;
    try {
        bench::GpuClockLock lock("base", {"cuda:0"}, fake_nvml);
        ADD_FAILURE() << "locked without the right";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(),
                     "cannot lock the clocks of GPU 0 (Fake NVML GPU) at the base clock: "
                     "nvmlDeviceSetGpuLockedClocks failed: Insufficient Permissions (locking clocks needs root)");
    }
    EXPECT_EQ(log.text(), "");
    EXPECT_THROW(bench::GpuClockLock("base", {"cuda:3"}, fake_nvml), std::runtime_error);
    EXPECT_THROW(bench::GpuClockLock("base", {"cuda:0"}, "/nonexistent/libnvidia-ml.so.1"), std::runtime_error);
    for (const char* bad : {"", "fast", "0", "-5", "1410MHz", "999999"})
        EXPECT_THROW(bench::check_clock_setting(bad), std::invalid_argument) << bad;
    EXPECT_NO_THROW(bench::check_clock_setting("base"));
    EXPECT_NO_THROW(bench::check_clock_setting("1980"));
}

TEST(GpuMonitor, DescribeGpusForTheHardwareRecord) {
    FakeNvmlScript script("name Fake H100\ndriver 550.54.15\ncuda 12040\nmemory_total_mib 81559\n");
    const bench::GpuSystemInfo info = bench::describe_gpus(fake_nvml);
    ASSERT_TRUE(info.available) << info.reason;
    EXPECT_EQ(info.facts.at("count"), "1");
    EXPECT_EQ(info.facts.at("gpu0_name"), "Fake H100");
    EXPECT_EQ(info.facts.at("gpu0_memory_mib"), "81559");
    EXPECT_EQ(info.facts.at("gpu0_uuid"), "GPU-fake-0");
    EXPECT_EQ(info.facts.at("driver_version"), "550.54.15");
    EXPECT_EQ(info.facts.at("cuda_driver_version"), "12.4");
    EXPECT_EQ(info.facts.at("gpu0_power_limit_w"), "700");
    // 2 x 2619 MHz x 5120 bits / 8: the H100 SXM's data-sheet 3.35 TB/s.
    EXPECT_EQ(info.facts.at("gpu0_memory_bandwidth_gbs"), "3352.3");
}

// ---- CPU monitor -----------------------------------------------------------------

double thread_cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

TEST(CpuMonitor, ABusyLoopShowsFarMoreCpuThanASleep) {
    bench::MonitorOptions options;
    options.interval_ms = 10;
    bench::CpuMonitor monitor(options);
    monitor.start();
    const auto sleep_start = bench::Clock::now();
    std::this_thread::sleep_for(150ms);
    const auto sleep_stop = bench::Clock::now();
    // Busy until this thread has had 200 ms of CPU, however loaded the machine is.
    const double start_cpu = thread_cpu_seconds();
    volatile unsigned long long sink = 0;
    while (thread_cpu_seconds() - start_cpu < 0.2) sink = sink + 1;
    const auto busy_stop = bench::Clock::now();
    monitor.stop();

    const bench::MonitorReport sleeping = monitor.report({{sleep_start, sleep_stop, 1}});
    const bench::MonitorReport busy = monitor.report({{sleep_stop, busy_stop, 1}});
    ASSERT_TRUE(busy.available);
    const double idle_pct = sleeping.metrics.at("cpu_utilization").mean;
    const double busy_pct = busy.metrics.at("cpu_utilization").mean;
    EXPECT_EQ(busy.metrics.at("cpu_utilization").unit, "%");
    EXPECT_GT(busy_pct, 10.0);
    EXPECT_GT(busy_pct, 3 * idle_pct) << "idle " << idle_pct << "%, busy " << busy_pct << "%";
    EXPECT_LT(idle_pct, 25.0);
    EXPECT_GE(busy.values.at("cpu_time_measured").value, 0.15);
    EXPECT_EQ(busy.values.at("cpu_time_measured").unit, "s");
    EXPECT_GE(busy.values.at("cpu_time").value, 0.2);
    EXPECT_GE(busy.values.at("cpus_available").value, 1);
    EXPECT_GE(busy.values.at("sample_count").value, 3);
}

TEST(CpuMonitor, ResidentMemoryGrowsByWhatIsTouched) {
    bench::CpuMonitor monitor;
    monitor.sample_now();
    constexpr std::size_t size = 100u << 20;
    std::unique_ptr<char[]> block(new char[size]);
    std::memset(block.get(), 1, size);
    bench::clobber_memory();
    bench::do_not_optimize(block.get());
    monitor.sample_now();
    const bench::MonitorReport report = monitor.report({});
    const bench::MetricStats& rss = report.metrics.at("rss");
    EXPECT_EQ(rss.unit, "MiB");
    EXPECT_EQ(rss.count, 2);
    EXPECT_GE(rss.max - rss.min, 90.0);
    EXPECT_LE(rss.max - rss.min, 200.0);
    EXPECT_GE(report.values.at("peak_rss").value, 100.0);
    EXPECT_GE(report.values.at("minor_page_faults").value, 1.0);
    EXPECT_EQ(report.metrics.at("threads").min, 1.0);
}

TEST(CpuMonitor, ReportsTheLoadOfTheMachine) {
    bench::CpuMonitor monitor;
    monitor.sample_now();
    std::this_thread::sleep_for(60ms);  // /proc/stat counts in ticks of 10 ms
    monitor.sample_now();
    const bench::MonitorReport report = monitor.report({});
    ASSERT_TRUE(report.values.contains("load_average_start"));
    EXPECT_EQ(report.values.at("load_average_start").unit, "tasks");
    const bool loaded = report.values.at("load_average_end").value > bench::usable_cpu_count() ||
                        report.values.at("load_average_start").value > bench::usable_cpu_count();
    EXPECT_EQ(report.flags.at("loaded"), loaded);
    EXPECT_EQ(!report.warnings.empty(), loaded);
    EXPECT_TRUE(report.metrics.contains("system_cpu_utilization"));
    EXPECT_TRUE(report.metrics.contains("runnable_tasks"));
}

// ---- Measurement windows and the monitors around a scenario ------------------------

TEST(MeasurementWindows, MeasureRecordsItsLoopAndExplicitWindowsNest) {
    bench::ScenarioConfig config;
    config.warmup_iterations = 1;
    config.measurement_iterations = 4;
    bench::Context ctx(config,
                       std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>()));
    const auto before = bench::Clock::now();
    ctx.measure("latency", [] { std::this_thread::sleep_for(1ms); });
    auto windows = ctx.measurement_windows();
    ASSERT_EQ(windows.size(), 1u);
    EXPECT_EQ(windows[0].iterations, 4);
    EXPECT_GE(windows[0].start, before);
    EXPECT_GE(windows[0].stop - windows[0].start, 4ms);

    {
        bench::MeasurementScope scope(ctx);
        ctx.measure("inner", [] { std::this_thread::sleep_for(1ms); });  // joins the open window
        EXPECT_THROW(ctx.begin_measurement(), std::logic_error);
    }
    windows = ctx.measurement_windows();
    ASSERT_EQ(windows.size(), 2u);
    EXPECT_EQ(windows[1].iterations, 4);

    ctx.begin_measurement();
    ctx.end_measurement(7);
    EXPECT_EQ(ctx.measurement_windows().back().iterations, 7);
    EXPECT_THROW(ctx.end_measurement(), std::logic_error);
}

TEST(ScenarioMonitors, AttachAddsBothReportsAndTheirWarnings) {
    FakeNvmlScript script("sample util=90 throttle=0x40\n");
    bench::MonitorOptions options;
    options.interval_ms = 5;
    options.nvml_library = fake_nvml;
    bench::ScenarioMonitors monitors(options);
    const auto start = bench::Clock::now();
    std::this_thread::sleep_for(30ms);
    bench::ScenarioResult result;
    monitors.attach(result, {{start, bench::Clock::now(), 3}});
    ASSERT_TRUE(result.monitors.contains("gpu_metrics"));
    ASSERT_TRUE(result.monitors.contains("cpu_metrics"));
    EXPECT_TRUE(result.monitors.at("gpu_metrics").flags.at("throttled"));
    bool warned = false;
    for (const auto& warning : result.warnings)
        warned = warned || warning.find("hw_thermal_slowdown") != std::string::npos;
    EXPECT_TRUE(warned);

    options.interval_ms = 0;
    bench::ScenarioMonitors disabled(options);
    bench::ScenarioResult nothing;
    disabled.attach(nothing, {});
    EXPECT_FALSE(nothing.monitors.at("gpu_metrics").available);
    EXPECT_EQ(nothing.monitors.at("cpu_metrics").reason, "monitoring is disabled (monitor interval 0)");
}

TEST(MonitorReport, NaNEqualsNaN) {
    bench::MonitorReport a;
    a.metrics["x"] = {};
    a.timeline.time_s = {std::nan("")};
    bench::MonitorReport b = a;
    EXPECT_EQ(a, b);
    b.timeline.time_s = {1.0};
    EXPECT_NE(a, b);
}

}  // namespace
