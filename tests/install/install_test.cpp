// The installed SDK, as a plugin author outside this tree gets it: `cmake --install` of
// this build into a temporary prefix, then
//  - the installed host runs the installed plugins from its default folder, and finds
//    its libraries (RUNPATH $ORIGIN/../lib);
//  - only the plugin API is installed (include/bench/) and exported from
//    libbench_sdk.so, not the host's internals (sdk/internal);
//  - examples/external_plugin configures against the prefix (find_package(BenchSDK),
//    bench_add_plugin), builds, and runs in the installed host, custom axis and skip
//    included; its install rule puts it where the host looks;
//  - the package gives bench::sdk without looking for LibTorch, and bench::sdk_torch
//    with COMPONENTS torch when the SDK was built with LibTorch (a configure error
//    when it was not, or when LibTorch is missing).
// Each test installs into its own prefix (the install is a copy: about a second).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <bench/abi.hpp>

#include "../support/test_support.hpp"

namespace {

using namespace benchtest;

const fs::path build_dir = BENCH_TEST_BUILD_DIR;
const fs::path source_dir = BENCH_TEST_SOURCE_DIR;

std::string describe(const ProcessResult& result) {
    return "exit " + std::to_string(result.exit_code) + "\n--- stdout\n" + result.out + "\n--- stderr\n" + result.err;
}

/// cmake with the generator and compiler of this build, so that a consumer project is
/// configured as this one was; with `build_type` empty, with none (as a plugin author
/// who follows docs/plugin-guide.md does).
std::vector<std::string> cmake_configure(const fs::path& source, const fs::path& binary, const fs::path& prefix,
                                         const std::string& build_type = "Release") {
    return {BENCH_CMAKE_COMMAND,
            "-S",
            source.string(),
            "-B",
            binary.string(),
            "-G",
            BENCH_CMAKE_GENERATOR,
            "-DCMAKE_MAKE_PROGRAM=" BENCH_CMAKE_MAKE_PROGRAM,
            "-DCMAKE_CXX_COMPILER=" BENCH_CMAKE_CXX_COMPILER,
            "-DCMAKE_BUILD_TYPE=" + build_type,
            "-DCMAKE_PREFIX_PATH=" + prefix.string()};
}

/// The SONAMEs of the SDK's libraries: libbench_sdk.so.<ABI major>.
const std::string sdk_soname = "libbench_sdk.so." + std::to_string(bench::abi_major);
const std::string sdk_torch_soname = "libbench_sdk_torch.so." + std::to_string(bench::abi_major);

/// What `ldd` says about a binary: each needed library and where it resolves.
std::string ldd(const fs::path& binary) {
    const ProcessResult result = run_process({"/usr/bin/ldd", binary.string()});
    EXPECT_EQ(result.exit_code, 0) << describe(result);
    return result.out;
}

/// Where the build's torch carries its CUDA runtime (a wheel's nvidia-* packages), every
/// CUDA library in `ldd_output` is loaded from there: one set, never a CUDA toolkit's
/// copies registered in ld.so.cache.
void expect_one_set_of_cuda_libraries(const std::string& ldd_output) {
    const std::string dirs_text = BENCH_TEST_TORCH_CUDA_LIBRARY_DIRS;
    if (dirs_text.empty()) return;  // a CPU LibTorch, or one whose CUDA libraries are its own
    std::vector<std::string> dirs;
    for (std::size_t start = 0; start <= dirs_text.size();) {
        const std::size_t end = std::min(dirs_text.find(':', start), dirs_text.size());
        dirs.push_back(fs::weakly_canonical(dirs_text.substr(start, end - start)).string() + "/");
        start = end + 1;
    }
    int checked = 0;
    std::istringstream lines(ldd_output);
    for (std::string line; std::getline(lines, line);) {
        const bool cuda =
            line.find("libcudart.so") != std::string::npos || line.find("libnccl.so") != std::string::npos ||
            line.find("libcublas.so") != std::string::npos || line.find("libcudnn.so") != std::string::npos;
        if (!cuda) continue;
        ++checked;
        // "\tlibcudart.so.13 => /path/libcudart.so.13 (0x...)", the path maybe with '..' in it.
        const std::size_t arrow = line.find("=> ");
        const std::size_t open = line.rfind(" (");
        const std::string loaded = arrow == std::string::npos || open == std::string::npos || open < arrow
                                       ? std::string()
                                       : fs::weakly_canonical(line.substr(arrow + 3, open - arrow - 3)).string();
        const bool from_torch =
            std::any_of(dirs.begin(), dirs.end(), [&](const std::string& dir) { return loaded.starts_with(dir); });
        EXPECT_TRUE(from_torch) << "not from torch's CUDA libraries (" << dirs_text << "): " << line;
    }
    EXPECT_GE(checked, 4) << "libcudart, libnccl, libcublas and libcudnn are loaded with LibTorch\n" << ldd_output;
}

class InstallTest : public ::testing::Test {
protected:
    void SetUp() override {
        const ProcessResult result = run_process(
            {BENCH_CMAKE_COMMAND, "--install", build_dir.string(), "--prefix", prefix.string()}, work.path());
        ASSERT_EQ(result.exit_code, 0) << "cmake --install of " << build_dir
                                       << " (is everything built? `cmake --build` first)\n"
                                       << describe(result);
    }

    /// The installed host, run in the work folder.
    ProcessResult host(std::vector<std::string> args) {
        args.insert(args.begin(), (prefix / "bin/benchhost").string());
        return run_process(args, work.path());
    }

    TempDir work;
    fs::path prefix = work / "prefix";
};

TEST_F(InstallTest, InstallsHostSdkPackageAndPlugins) {
    const std::vector<std::string> installed = {"bin/benchhost",
                                                "lib/libbench_sdk.so",
                                                "lib/" + sdk_soname,
                                                "include/bench/plugin.hpp",
                                                "include/bench/context.hpp",
                                                "include/bench/version.hpp",
                                                "lib/cmake/BenchSDK/BenchSDKConfig.cmake",
                                                "lib/cmake/BenchSDK/BenchSDKConfigVersion.cmake",
                                                "lib/cmake/BenchSDK/BenchSDKTargets.cmake",
                                                "lib/cmake/BenchSDK/BenchPlugin.cmake",
                                                "plugins/performance/libmock_benchmark.so",
                                                "share/benchhost/configs/default.yaml",
                                                "share/benchhost/configs/quick.yaml"};
    for (const std::string& file : installed) EXPECT_TRUE(fs::exists(prefix / file)) << file;
    const bool torch = BENCH_WITH_TORCH_BUILT;
    for (const char* file : {"lib/libbench_sdk_torch.so", "include/bench/torch/model_benchmark.hpp",
                             "lib/cmake/BenchSDK/BenchSDKTorchTargets.cmake", "plugins/performance/libresnet50.so",
                             "plugins/unit/libtensor_ops.so", "plugins/integration/libtorchscript_model.so"})
        EXPECT_EQ(fs::exists(prefix / file), torch) << file;

    // Only the plugins that ship: no test fixtures, no tools.
    const std::set<std::string> categories = {"unit", "integration", "performance"};
    for (const auto& entry : fs::directory_iterator(prefix / "plugins"))
        EXPECT_TRUE(categories.contains(entry.path().filename())) << entry.path();
    for (const auto& entry : fs::recursive_directory_iterator(prefix / "plugins")) {
        const std::string name = entry.path().filename();
        EXPECT_EQ(name.find("fixture"), std::string::npos) << entry.path();
        EXPECT_EQ(name.find("gbench"), std::string::npos) << entry.path();
        EXPECT_EQ(name.find("overhead"), std::string::npos) << entry.path();
    }

    // The host and its plugins find the installed SDK, not the build's.
    const std::string host_libs = ldd(prefix / "bin/benchhost");
    EXPECT_EQ(host_libs.find("not found"), std::string::npos) << host_libs;
    EXPECT_NE(host_libs.find(sdk_soname + " => " + (prefix / "bin/../lib" / sdk_soname).string()), std::string::npos)
        << host_libs;
    const std::string plugin_libs = ldd(prefix / "plugins/performance/libmock_benchmark.so");
    EXPECT_EQ(plugin_libs.find("not found"), std::string::npos) << plugin_libs;
    EXPECT_NE(plugin_libs.find(prefix.string()), std::string::npos) << plugin_libs;
    EXPECT_EQ(plugin_libs.find(build_dir.string() + "/"), std::string::npos) << plugin_libs;
    if (torch) {
        const std::string torch_libs = ldd(prefix / "plugins/performance/libresnet50.so");
        EXPECT_EQ(torch_libs.find("not found"), std::string::npos) << torch_libs;
        EXPECT_NE(torch_libs.find(sdk_torch_soname + " => " + prefix.string()), std::string::npos) << torch_libs;
        expect_one_set_of_cuda_libraries(torch_libs);
    }

    // The installed host's default plugin folder is <prefix>/plugins.
    const fs::path out = work / "out";
    // With an installed configuration (quick.yaml: 5 iterations), the options beside it
    // taking precedence.
    const ProcessResult run =
        host({"run", "--config", (prefix / "share/benchhost/configs/quick.yaml").string(), "--enable-mock", "--include",
              "mock_benchmark/mock_benchmark", "--variants", "eager", "--warmup-iterations", "1",
              "--measurement-iterations", "3", "--output-dir", out.string()});
    ASSERT_EQ(run.exit_code, 0) << describe(run);
    EXPECT_NE(run.out.find("Axes with one value in this run: variant=eager, batch_size=1\n"), std::string::npos)
        << run.out;
    EXPECT_NE(run.out.find("\nperformance/mock_benchmark/mock_benchmark\n"), std::string::npos) << run.out;
    const auto summary = read_json(out / "benchmark_summary.json");
    ASSERT_EQ(summary["results"].Size(), 1u);
    EXPECT_STREQ(summary["results"][0]["status"].GetString(), "success");
    expect_reports_match_schema(out, "the installed host");
}

// The benchhost package for Python outside a worker is installed whole (its links to the
// embedded files as copies, with the two files benchhost.check reads beside them): with
// PYTHONPATH at it, `python -m benchhost.check` runs an installed Python plugin, reading
// nothing from the source tree.
TEST_F(InstallTest, ThePythonPackageChecksAnInstalledPluginOutsideAWorker) {
#ifndef BENCH_TEST_PYTHON
    GTEST_SKIP() << "built without Python plugins (BENCH_WITH_PYTHON_PLUGINS=OFF)";
#else
    const fs::path python_dir = prefix / "share/benchhost/python";
    for (const char* file : {"__init__.py", "__init__.pyi", "py.typed", "check.py", "torch.py", "jax.py", "models.py",
                             "distributed.py", "_inspect_python.py", "_worker_support.py"}) {
        const fs::path path = python_dir / "benchhost" / file;
        EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(path))) << path << ": a file, not a link";
    }
    const std::string env = "PYTHONPATH=" + python_dir.string();
    const ProcessResult where =
        run_process({BENCH_TEST_PYTHON, "-c",
                     "import benchhost, benchhost.check as c; print(benchhost.__file__); "
                     "print(c.source_inspector().__file__); print(c._companion('_worker_support.py'))"},
                    work.path(), {env});
    ASSERT_EQ(where.exit_code, 0) << describe(where);
    std::istringstream lines(where.out);
    for (std::string line; std::getline(lines, line);)
        EXPECT_EQ(line.rfind(python_dir.string() + "/benchhost/", 0), 0u) << line << "\n" << where.out;

    const ProcessResult check = run_process(
        {BENCH_TEST_PYTHON, "-m", "benchhost.check", (prefix / "plugins/performance/mock_benchmark_py.py").string()},
        work.path(), {env});
    EXPECT_EQ(check.exit_code, 0) << describe(check);
    EXPECT_NE(check.out.find("2 scenarios: 2 succeeded, 0 failed, 0 skipped"), std::string::npos) << describe(check);
#endif
}

TEST_F(InstallTest, InstallsAndExportsOnlyThePluginApi) {
    // The host's internals (sdk/internal: axes, bootstrap, monitors, ...) are neither
    // installed nor exported from libbench_sdk.so: they are no part of the plugin ABI.
    EXPECT_FALSE(fs::exists(prefix / "include/bench/internal"));
    for (const char* header : {"axes.hpp", "bootstrap.hpp", "cpu_monitor.hpp", "gpu_monitor.hpp", "hypothesis_test.hpp",
                               "monitor_options.hpp", "outliers.hpp", "scenario_monitors.hpp", "series_analysis.hpp"})
        EXPECT_FALSE(fs::exists(prefix / "include/bench" / header)) << header;
    for (const char* header : {"abi.hpp", "clock.hpp", "config.hpp", "context.hpp", "export.hpp",
                               "measurement_window.hpp", "monitor_report.hpp", "params.hpp", "plugin.hpp", "result.hpp",
                               "statistics.hpp", "stopping_rule.hpp", "timer.hpp", "version.hpp"})
        EXPECT_TRUE(fs::exists(prefix / "include/bench" / header)) << header;

    const ProcessResult nm =
        run_process({"/usr/bin/nm", "-D", "-C", "--defined-only", (prefix / "lib/libbench_sdk.so").string()});
    ASSERT_EQ(nm.exit_code, 0) << describe(nm);
    for (const char* exported :
         {"bench::summarize(", "bench::StoppingRule::", "bench::Context::", "bench::clock_cost_ns("})
        EXPECT_NE(nm.out.find(exported), std::string::npos) << exported << "\n" << nm.out;
    for (const char* internal :
         {"bench::bootstrap_", "bench::median_interval_of_sorted(", "bench::cartesian_product(", "bench::apply_axis_",
          "bench::mann_whitney_u(", "bench::classify_outliers(", "bench::analyze_series(",
          "bench::GpuMonitor::", "bench::CpuMonitor::", "bench::ScenarioMonitors::", "bench::describe_gpus(",
          "bench::usable_cpu_count(", "bench::detail::"})
        EXPECT_EQ(nm.out.find(internal), std::string::npos) << internal << "\n" << nm.out;
}

TEST_F(InstallTest, ExternalPluginBuildsAgainstTheInstalledSdkAndRuns) {
    // Configured and built as examples/external_plugin/README.md says.
    const fs::path plugin_build = work / "external_build";
    ProcessResult step =
        run_process(cmake_configure(source_dir / "examples/external_plugin", plugin_build, prefix), work.path());
    ASSERT_EQ(step.exit_code, 0) << describe(step);
    step = run_process({BENCH_CMAKE_COMMAND, "--build", plugin_build.string()}, work.path());
    ASSERT_EQ(step.exit_code, 0) << describe(step);
    const fs::path built = plugin_build / "plugins/performance/libsoftmax_cpu.so";
    ASSERT_TRUE(fs::exists(built));
    const std::string libs = ldd(built);
    EXPECT_NE(libs.find(sdk_soname + " => " + prefix.string()), std::string::npos) << libs;

    // Dropped into a plugin folder of its own; the custom axis from a config file.
    const fs::path plugins = work / "plugins";
    install_plugin(built, plugins, "performance");
    write_file(work / "softmax.yaml",
               "warmup_iterations: 1\n"
               "measurement_iterations: 5\n"
               "plugins:\n"
               "  softmax_cpu:\n"
               "    dtypes: [float32, float16]\n"
               "    axes: {row_length: [64, 256]}\n");
    const fs::path out = work / "out";
    const ProcessResult run =
        host({"run", "--plugins-dir", plugins.string(), "--config", (work / "softmax.yaml").string(), "--batch-sizes",
              "4", "--output-dir", out.string()});
    ASSERT_EQ(run.exit_code, 0) << describe(run);
    EXPECT_NE(run.out.find("4 scenarios: 2 succeeded, 0 failed (100.0% of those that ran), 2 skipped"),
              std::string::npos)
        << run.out;

    const auto reports = files_matching(out / "softmax_cpu", "softmax_cpu_", ".json");
    ASSERT_EQ(reports.size(), 1u);
    const auto report = read_json(reports[0]);
    std::set<std::string> names;
    for (const auto& scenario : report["benchmark_scenarios"].GetArray()) {
        const std::string name = scenario["scenario_name"].GetString();
        names.insert(name);
        if (name.find("dtype=float16") != std::string::npos) {
            EXPECT_STREQ(scenario["status"].GetString(), "skipped") << name;
            EXPECT_STREQ(scenario["reason"].GetString(), "float16 is not supported: float32 or float64 only");
            continue;
        }
        ASSERT_STREQ(scenario["status"].GetString(), "success") << name;
        const auto& latency = scenario["measurements"]["latency"];
        EXPECT_STREQ(latency["unit"].GetString(), "ms");
        EXPECT_EQ(latency["measurements"].Size(), 5u);
        EXPECT_GT(latency["median"].GetDouble(), 0.0);
        EXPECT_STREQ(scenario["measurements"]["throughput"]["unit"].GetString(), "rows/s");
        EXPECT_STREQ(scenario["measurements"]["bandwidth"]["unit"].GetString(), "GB/s");
        const std::string row_length = name.find("row_length=64") != std::string::npos ? "64" : "256";
        EXPECT_STREQ(scenario["info"]["row_length"].GetString(), row_length.c_str()) << name;
    }
    EXPECT_EQ(names, (std::set<std::string>{"softmax_cpu[batch_size=4,dtype=float32,row_length=64]",
                                            "softmax_cpu[batch_size=4,dtype=float32,row_length=256]",
                                            "softmax_cpu[batch_size=4,dtype=float16,row_length=64]",
                                            "softmax_cpu[batch_size=4,dtype=float16,row_length=256]"}));
    expect_reports_match_schema(out, "the external plugin");

    // Its install rule puts it beside the built-in plugins, where the host looks.
    step = run_process({BENCH_CMAKE_COMMAND, "--install", plugin_build.string(), "--prefix", prefix.string()},
                       work.path());
    ASSERT_EQ(step.exit_code, 0) << describe(step);
    const fs::path installed = prefix / "plugins/performance/libsoftmax_cpu.so";
    ASSERT_TRUE(fs::exists(installed));
    const std::string installed_libs = ldd(installed);
    EXPECT_EQ(installed_libs.find("not found"), std::string::npos) << installed_libs;
    const fs::path out2 = work / "out2";
    const ProcessResult installed_run =
        host({"run", "--include", "softmax_cpu", "--measurement-iterations", "3", "--output-dir", out2.string()});
    ASSERT_EQ(installed_run.exit_code, 0) << describe(installed_run);
    EXPECT_NE(installed_run.out.find("Axes with one value in this run: batch_size=1, dtype=float32\n"),
              std::string::npos)
        << installed_run.out;
    EXPECT_NE(installed_run.out.find("\nperformance/softmax_cpu/softmax_cpu\n"), std::string::npos)
        << installed_run.out;
}

TEST_F(InstallTest, APluginProjectWithoutABuildTypeIsBuiltOptimized) {
    // The project of docs/plugin-guide.md ("Out of the tree"), which sets no build type:
    // CMake alone would compile it without -O.
    const fs::path project = work / "my_plugin";
    write_file(project / "CMakeLists.txt",
               "cmake_minimum_required(VERSION 3.22)\n"
               "project(my_plugin LANGUAGES CXX)\n"
               "find_package(BenchSDK 0.1 REQUIRED)\n"
               "bench_add_plugin(my_plugin CATEGORY performance SOURCES my_plugin.cpp)\n");
    write_file(project / "my_plugin.cpp",
               "#include <bench/plugin.hpp>\n"
               "BENCH_PLUGIN(\"my_plugin\", \"1.0.0\");\n"
               "BENCH_RUN_BENCHMARK(ctx) { ctx.measure(\"latency\", [] { bench::do_not_optimize(1 + 1); }); }\n");
    ProcessResult step = run_process(cmake_configure(project, project / "build", prefix, ""), work.path());
    ASSERT_EQ(step.exit_code, 0) << describe(step);
    EXPECT_NE(step.out.find("bench_add_plugin(my_plugin): no CMAKE_BUILD_TYPE, so the plugin is built optimized "
                            "(-O2 -DNDEBUG)"),
              std::string::npos)
        << step.out;
    step = run_process({BENCH_CMAKE_COMMAND, "--build", (project / "build").string()}, work.path());
    ASSERT_EQ(step.exit_code, 0) << describe(step);

    // Its handshake says so, and a run has nothing to warn about it.
    const fs::path plugins = project / "build/plugins";
    const ProcessResult list = host({"list", "--plugins-dir", plugins.string()});
    ASSERT_EQ(list.exit_code, 0) << describe(list);
    EXPECT_NE(list.out.find("    build:      optimized, assertions off, "), std::string::npos) << list.out;
    const ProcessResult run = host({"run", "--plugins-dir", plugins.string(), "--measurement-iterations", "2",
                                    "--output-dir", (work / "out").string()});
    ASSERT_EQ(run.exit_code, 0) << describe(run);
    EXPECT_EQ(run.err.find("plugin performance/my_plugin ("), std::string::npos) << run.err;

    // A build type is the project's choice: Debug stays unoptimized, and the run says what that means.
    step = run_process(cmake_configure(project, project / "debug", prefix, "Debug"), work.path());
    ASSERT_EQ(step.exit_code, 0) << describe(step);
    EXPECT_EQ(step.out.find("no CMAKE_BUILD_TYPE"), std::string::npos) << step.out;
    step = run_process({BENCH_CMAKE_COMMAND, "--build", (project / "debug").string()}, work.path());
    ASSERT_EQ(step.exit_code, 0) << describe(step);
    const ProcessResult debug = host({"run", "--plugins-dir", (project / "debug/plugins").string(),
                                      "--measurement-iterations", "2", "--output-dir", (work / "out_debug").string()});
    ASSERT_EQ(debug.exit_code, 0) << describe(debug);
    EXPECT_NE(debug.err.find("plugin performance/my_plugin (" +
                             (project / "debug/plugins/performance/libmy_plugin.so").string() +
                             ") was built without optimization and with assertions on"),
              std::string::npos)
        << debug.err;
}

/// A consumer project: find_call, then a program of `main_source` linked to `link`,
/// configured and built; to check what find_package(BenchSDK) gives.
ProcessResult build_consumer(const fs::path& dir, const fs::path& prefix, const std::string& find_call,
                             const std::string& link, std::vector<std::string> extra = {},
                             const std::string& main_source = "int main() { return 0; }\n") {
    write_file(dir / "src/main.cpp", main_source);
    write_file(dir / "src/CMakeLists.txt",
               "cmake_minimum_required(VERSION 3.22)\n"
               "project(consumer LANGUAGES CXX)\n" +
                   find_call +
                   "\n"
                   "message(STATUS \"consumer: torch_found=${BenchSDK_torch_FOUND} "
                   "abi=${BenchSDK_ABI_MAJOR}.${BenchSDK_ABI_MINOR}\")\n"
                   "if(NOT TARGET bench::sdk OR NOT COMMAND bench_add_plugin)\n"
                   "  message(FATAL_ERROR \"bench::sdk or bench_add_plugin missing\")\n"
                   "endif()\n"
                   "if(TARGET bench::sdk_torch)\n"
                   "  message(STATUS \"consumer: has bench::sdk_torch\")\n"
                   "endif()\n"
                   "add_executable(consumer main.cpp)\n"
                   "target_link_libraries(consumer PRIVATE " +
                   link +
                   ")\n"
                   "# Needed at run time even when main() calls nothing of it, for ldd to check.\n"
                   "target_link_options(consumer PRIVATE -Wl,--no-as-needed)\n");
    std::vector<std::string> argv = cmake_configure(dir / "src", dir / "build", prefix);
    argv.insert(argv.end(), extra.begin(), extra.end());
    ProcessResult result = run_process(argv, dir);
    if (result.exit_code != 0) return result;
    ProcessResult built = run_process({BENCH_CMAKE_COMMAND, "--build", (dir / "build").string()}, dir);
    built.out = result.out + built.out;
    return built;
}

TEST_F(InstallTest, PackageGivesSdkAloneAndSdkTorchOnlyWhenAsked) {
    // A plain consumer gets bench::sdk, without the package looking for LibTorch; every
    // installed header compiles on its own include path.
    std::string main_source;
    for (const auto& entry : fs::directory_iterator(prefix / "include/bench"))
        if (entry.path().extension() == ".hpp")
            main_source += "#include <bench/" + entry.path().filename().string() + ">\n";
    main_source += "int main() { return bench::abi_major == " + std::to_string(bench::abi_major) + " ? 0 : 1; }\n";
    ProcessResult result =
        build_consumer(work / "plain", prefix, "find_package(BenchSDK 0.1 REQUIRED)", "bench::sdk", {}, main_source);
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_EQ(result.out.find("has bench::sdk_torch"), std::string::npos) << result.out;
    EXPECT_EQ(result.out.find("Caffe2"), std::string::npos) << "looked for LibTorch\n" << result.out;
    EXPECT_NE(result.out.find("torch_found=FALSE abi=" + std::to_string(bench::abi_major) + "." +
                              std::to_string(bench::abi_minor)),
              std::string::npos)
        << result.out;

    // Another major version is refused.
    result = build_consumer(work / "major", prefix, "find_package(BenchSDK 99 REQUIRED)", "bench::sdk");
    EXPECT_NE(result.exit_code, 0) << describe(result);

    // OPTIONAL_COMPONENTS torch on a machine without LibTorch (find_package(Torch)
    // disabled): bench::sdk all the same.
    const std::vector<std::string> no_torch = {"-DCMAKE_DISABLE_FIND_PACKAGE_Torch=ON"};
    result = build_consumer(work / "optional", prefix, "find_package(BenchSDK REQUIRED OPTIONAL_COMPONENTS torch)",
                            "bench::sdk", no_torch);
    ASSERT_EQ(result.exit_code, 0) << describe(result);
    EXPECT_NE(result.out.find("torch_found=FALSE"), std::string::npos) << result.out;

    if (BENCH_WITH_TORCH_BUILT) {
        // COMPONENTS torch: bench::sdk_torch, which links (libtorch included) and resolves
        // from the prefix.
        result = build_consumer(work / "torch", prefix, "find_package(BenchSDK REQUIRED COMPONENTS torch)",
                                "bench::sdk_torch");
        ASSERT_EQ(result.exit_code, 0) << describe(result);
        EXPECT_NE(result.out.find("has bench::sdk_torch"), std::string::npos) << result.out;
        const std::string libs = ldd(work / "torch/build/consumer");
        EXPECT_EQ(libs.find("not found"), std::string::npos) << libs;
        EXPECT_NE(libs.find(sdk_torch_soname + " => " + prefix.string()), std::string::npos) << libs;
        EXPECT_NE(libs.find("libtorch"), std::string::npos) << libs;
        expect_one_set_of_cuda_libraries(libs);

        // ... and without LibTorch, COMPONENTS torch is a configure error.
        result = build_consumer(work / "torch_missing", prefix, "find_package(BenchSDK REQUIRED COMPONENTS torch)",
                                "bench::sdk_torch", no_torch);
        EXPECT_NE(result.exit_code, 0) << describe(result);
        EXPECT_NE((result.out + result.err).find("Torch"), std::string::npos) << describe(result);
    } else {
        result =
            build_consumer(work / "torch", prefix, "find_package(BenchSDK REQUIRED COMPONENTS torch)", "bench::sdk");
        EXPECT_NE(result.exit_code, 0) << describe(result);
        // CMake wraps the message: compare with the whitespace squeezed.
        std::string said;
        for (char c : result.out + result.err)
            if (!std::isspace(static_cast<unsigned char>(c)) || (!said.empty() && said.back() != ' '))
                said += std::isspace(static_cast<unsigned char>(c)) ? ' ' : c;
        EXPECT_NE(said.find("was built without LibTorch"), std::string::npos) << describe(result);
    }
}

}  // namespace
