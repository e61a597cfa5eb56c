// Python plugins, run by the real host: each scenario in its own worker, which embeds
// the project's CPython (libbench_python.so) and hands the plugin the `benchhost`
// Context. The plugins are written here, beside a C++ plugin (the mock), into a folder
// of the test's own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../support/mock_run.hpp"
#include "../support/processes.hpp"
#include "../support/test_support.hpp"

namespace {

using namespace benchtest;

class PythonPluginsTest : public MockRunTest {
protected:
    /// Inductor, before its first compile into a cache folder, compiles and loads a probe
    /// program for each vector ISA the CPU reports (ten compiles here, 10-20 s of every
    /// test's first compile, and of each --compile-cache cold one):
    /// TORCHINDUCTOR_VEC_ISA_OK=1 (passed to the workers with the other TORCHINDUCTOR_
    /// variables; a value of the user's stands) takes the CPU's word for them. The model's
    /// own compiles, and what Inductor's caches hit or miss, are as before.
    static void SetUpTestSuite() { ::setenv("TORCHINDUCTOR_VEC_ISA_OK", "1", 0); }

    static const rapidjson::Value* series(const Scenario& s, const char* name) {
        const auto& m = (*s.report)["measurements"];
        if (!m.HasMember(name) || !m[name].HasMember("measurements")) return nullptr;
        return &m[name]["measurements"];
    }
    static std::string unit(const Scenario& s, const char* name) {
        const auto& m = (*s.report)["measurements"];
        if (!m.HasMember(name) || !m[name].HasMember("unit")) return "(none)";
        return m[name]["unit"].GetString();
    }
    static double scalar(const Scenario& s, const char* name) {
        const auto& m = (*s.report)["measurements"];
        if (!m.HasMember(name) || !m[name].HasMember("value")) return std::nan("");
        return m[name]["value"].GetDouble();
    }
    static std::string info_of(const Scenario& s, const char* key) {
        const auto& i = (*s.report)["info"];
        return i.HasMember(key) ? i[key].GetString() : "";
    }
    /// The scenario's warnings, a line each.
    static std::string warnings_of(const Scenario& s) {
        std::string text;
        if (s.report->HasMember("warnings"))
            for (const auto& w : (*s.report)["warnings"].GetArray()) text += std::string(w.GetString()) + "\n";
        return text;
    }
    /// The shipped compile_probe plugin, in the test's plugins folder.
    void add_compile_probe() {
        fs::create_directories(plugins / "unit");
        fs::copy_file(fs::path(BENCH_TEST_SOURCE_DIR) / "plugins/unit/compile_probe/compile_probe.py",
                      plugins / "unit/compile_probe.py");
    }
};

TEST_F(PythonPluginsTest, TheContextMeasuresAndRecordsAsInCpp) {
    add("unit/context_py.py", R"(import benchhost

BENCHHOST_PLUGIN = {"version": "2.0.1"}

def run_benchmark(ctx):
    assert isinstance(ctx, benchhost.Context)
    config = ctx.config
    ctx.set_info("seen", f"{config.benchmark} {config.variant} {config.batch_size} {config.dtype} "
                         f"{config.params['size']} {config.measurement_iterations}")
    values = []
    samples = ctx.measure("latency", lambda: values.append(sum(range(1000))))
    ctx.record_scalar("calls", len(values), "count")
    ctx.record_series("sizes", [1.0, 2.0, 3.0], "MB")
    ctx.add_sample("errors", 0, "count")
    ctx.record_throughput("throughput", samples, 10, "items/s")
    ctx.record_bandwidth("bandwidth", [1.0, 4.0], 2e9)
    ctx.add_warning("a warning from Python")
    ctx.log("info", "a line from Python")
)");
    auto s = run({"--param", "size=7"}, 0);
    const Scenario& scenario = s["context_py"];
    ASSERT_EQ(scenario.status, "success") << scenario.reason << last.err;
    EXPECT_EQ(std::string((*scenario.report)["info"]["seen"].GetString()), "context_py eager 1 float32 7 3");
    const rapidjson::Value* latency = series(scenario, "latency");
    ASSERT_NE(latency, nullptr);
    EXPECT_EQ(latency->Size(), 3u);  // --measurement-iterations, timed by the C++ timer
    EXPECT_GE(scalar(scenario, "calls"), 4);  // warmup and measured calls
    ASSERT_NE(series(scenario, "sizes"), nullptr);
    EXPECT_EQ(series(scenario, "sizes")->Size(), 3u);
    EXPECT_EQ(series(scenario, "throughput")->Size(), 3u);
    // 2 GB in 1 ms and in 4 ms; on the CPU without a peak to set them against.
    ASSERT_NE(series(scenario, "bandwidth"), nullptr);
    EXPECT_DOUBLE_EQ((*series(scenario, "bandwidth"))[0].GetDouble(), 2000.0);
    EXPECT_DOUBLE_EQ((*series(scenario, "bandwidth"))[1].GetDouble(), 500.0);
    EXPECT_TRUE(std::isnan(scalar(scenario, "fraction_of_peak_bandwidth")));
    std::string warnings;
    for (const auto& w : (*scenario.report)["warnings"].GetArray()) warnings += w.GetString();
    EXPECT_NE(warnings.find("a warning from Python"), std::string::npos) << warnings;
    // What ran it, in the report.
    const auto& metadata = (*scenario.report)["metadata"];
    EXPECT_STREQ(metadata["plugin_version"].GetString(), "2.0.1");
    EXPECT_STREQ(metadata["plugin_build"]["language"].GetString(), "python");
    EXPECT_EQ(std::string(metadata["plugin_build"]["runtime"].GetString()).rfind("CPython 3.", 0), 0u);
}

TEST_F(PythonPluginsTest, TheCompiledModuleComesFirstAndMatchesItsStubs) {
    // The pure-Python benchhost package (sdk/python/package: stubs, a stand-in Context) is
    // on the worker's path, first through PYTHONPATH (the venv's benchhost.pth names it
    // too), and yet `import benchhost` is the compiled module: Python finds built-in
    // modules before sys.path, and benchhost.torch is the embedded one. The stubs'
    // names, methods, properties, parameters and defaults are the compiled module's
    // (tests/python/stub_members.py, run in the worker).
    const fs::path package = fs::path(BENCH_TEST_SOURCE_DIR) / "sdk/python/package";
    add("unit/stubs_py.py", R"(import importlib.machinery
import importlib.util

import benchhost


def run_benchmark(ctx):
    params = ctx.config.params
    package = params["package"]
    on_path = importlib.machinery.PathFinder.find_spec("benchhost")
    assert on_path is not None and on_path.origin == package + "/benchhost/__init__.py", on_path
    assert benchhost.__spec__.origin == "built-in", benchhost.__spec__
    assert not hasattr(benchhost, "__file__")
    assert type(ctx) is benchhost.Context
    torch = importlib.util.find_spec("benchhost.torch")
    assert torch.origin == "<benchhost.torch>", torch
    spec = importlib.util.spec_from_file_location("stub_members", params["checker"])
    checker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checker)
    stub = package + "/benchhost/__init__.pyi"
    problems = checker.compare(stub, benchhost)
    if problems:
        raise AssertionError("; ".join(problems))
    ctx.record_scalar("names_compared", checker.count(stub), "count")
)");
    env = {"PYTHONPATH=" + package.string()};
    auto s = run({"--param", "package=" + package.string(), "--param",
                  "checker=" + (fs::path(BENCH_TEST_SOURCE_DIR) / "tests/python/stub_members.py").string()},
                 0);
    const Scenario& scenario = s["stubs_py"];
    ASSERT_EQ(scenario.status, "success") << scenario.reason << last.err;
    EXPECT_GE(scalar(scenario, "names_compared"), 40);  // the module's names and the classes' members
}

TEST_F(PythonPluginsTest, APlainFunctionIsCalledAndItsNumbersBecomeSeries) {
    add("unit/plain_py.py", R"(calls = []

def benchmark_figures():
    calls.append(1)
    return {"accuracy": 0.5 + len(calls), "loss": {"train": 2, "eval": 3.5}}

def benchmark_nothing():
    return None

def benchmark_needs_arguments(a, b):
    return {}
)");
    auto s = run({}, 1);
    const Scenario& figures = s["figures"];
    ASSERT_EQ(figures.status, "success") << figures.reason << last.err;
    for (const char* name : {"benchhost.call_time", "accuracy", "loss.train", "loss.eval"}) {
        const rapidjson::Value* values = series(figures, name);
        ASSERT_NE(values, nullptr) << name;
        EXPECT_EQ(values->Size(), 3u) << name;
    }
    EXPECT_EQ(unit(figures, "benchhost.call_time"), "ms");
    // One warmup call first: the measured calls returned 2.5, 3.5 and 4.5.
    EXPECT_DOUBLE_EQ((*series(figures, "accuracy"))[0].GetDouble(), 2.5);
    EXPECT_EQ(s["nothing"].status, "success") << s["nothing"].reason;
    EXPECT_EQ(s["needs_arguments"].status, "failed");
    EXPECT_EQ(s["needs_arguments"].reason,
              "benchmark_needs_arguments(a, b) needs values for a and b, which the run does not give: pass --param "
              "a=..., or give them defaults (a parameter gets by its name a --param or --axis value, or the "
              "scenario's variant, compile_mode, batch_size, dtype, device or threads; the Context goes to one "
              "parameter: def benchmark_needs_arguments(ctx)) (" +
                  (plugins / "unit/plain_py.py").string() + ":10)");
}

TEST_F(PythonPluginsTest, AWorkerIsForkedWithTorchImportedUnlessPreloadIsOff) {
    // What the module saw before its own `import torch` (and torchvision's, which sets
    // Inductor's cache folder to its default when none is set), in each of two workers:
    // the same Inductor cache folder, benchhost's, whether the parent imported them or not.
    add("unit/preloaded_py.py", R"(import os
import sys

IMPORTED_BEFORE = "torch" in sys.modules
ARGV = list(sys.argv)

import torch
import torchvision

def seen(ctx):
    ctx.set_info("torch_before", "yes" if IMPORTED_BEFORE else "no")
    ctx.set_info("inductor_cache", os.environ.get("TORCHINDUCTOR_CACHE_DIR", ""))
    ctx.set_info("argv", ",".join(ARGV))
    ctx.set_info("pid", str(os.getpid()))
    ctx.set_info("sum", str(int(torch.ones(3).sum())))
    ctx.measure("latency", lambda: None)

def benchmark_one(ctx):
    seen(ctx)

def benchmark_two(ctx):
    seen(ctx)
)");
    const std::string plugin = (plugins / "unit/preloaded_py.py").string();
    env = {"BENCHHOST_CACHE_DIR=" + (work / "cache").string()};
    for (const std::string preload : {"on", "off"}) {
        auto s = run({"--worker-preload", preload}, 0);
        const Scenario &one = s["one"], &two = s["two"];
        ASSERT_EQ(one.status, "success") << one.reason << last.err;
        ASSERT_EQ(two.status, "success") << two.reason << last.err;
        for (const Scenario* scenario : {&one, &two}) {
            EXPECT_EQ(info_of(*scenario, "torch_before"), preload == "on" ? "yes" : "no") << preload;
            EXPECT_EQ(info_of(*scenario, "argv"), plugin) << preload;  // the plugin's, not the parent's
            EXPECT_EQ(info_of(*scenario, "inductor_cache"), (work / "cache/inductor").string()) << preload;
            EXPECT_EQ(info_of(*scenario, "sum"), "3");
        }
        EXPECT_NE(info_of(one, "pid"), info_of(two, "pid")) << "one worker ran both";
    }
}

TEST_F(PythonPluginsTest, EachFunctionRunsOverItsOwnAxesAndGetsItsParametersByName) {
    // Two functions with axes of their own beside one with the module's: tokenize runs
    // once, matmul over its batch sizes and variants; their parameters get the axes'
    // values and --param's by name (size an int, as its default is).
    add("unit/two_py.py", R"(import benchhost

BENCHHOST_PLUGIN = {"axes": ["variant", "batch_size"], "variants": ["eager", "kernelized"]}


@benchhost.benchmark(axes={})
def benchmark_tokenize(size=10, text="a b"):
    return {"tokens": size * len(text.split())}


@benchhost.benchmark(axes={"batch_size": [1, 2]}, variants=["eager", "compiled"])
def benchmark_matmul(batch_size, variant, size=10):
    return {"work": batch_size * size, "compiled": int(variant == "compiled")}


def run_benchmark(ctx, size=0):
    ctx.record_scalar("size", size)
)");
    auto s = run({"--param", "size=7"}, 0);
    std::vector<std::string> ran;
    for (const auto& [name, scenario] : s) {
        ran.push_back(name);
        EXPECT_EQ(scenario.status, "success") << name << ": " << scenario.reason;
    }
    EXPECT_EQ(ran, (std::vector<std::string>{
                       "matmul[variant=compiled,batch_size=1]", "matmul[variant=compiled,batch_size=2]",
                       "matmul[variant=eager,batch_size=1]", "matmul[variant=eager,batch_size=2]", "tokenize",
                       "two_py[variant=eager,batch_size=1]", "two_py[variant=kernelized,batch_size=1]"}));
    ASSERT_NE(series(s["tokenize"], "tokens"), nullptr);
    EXPECT_DOUBLE_EQ((*series(s["tokenize"], "tokens"))[0].GetDouble(), 14.0);
    ASSERT_NE(series(s["matmul[variant=compiled,batch_size=2]"], "work"), nullptr);
    EXPECT_DOUBLE_EQ((*series(s["matmul[variant=compiled,batch_size=2]"], "work"))[0].GetDouble(), 14.0);
    EXPECT_DOUBLE_EQ((*series(s["matmul[variant=compiled,batch_size=2]"], "compiled"))[0].GetDouble(), 1.0);
    EXPECT_DOUBLE_EQ((*series(s["matmul[variant=eager,batch_size=1]"], "compiled"))[0].GetDouble(), 0.0);
    EXPECT_DOUBLE_EQ(scalar(s["two_py[variant=kernelized,batch_size=1]"], "size"), 7.0);

    // The run's values win over the declared ones; tokenize still runs once.
    s = run({"--batch-sizes", "4,8", "--variants", "compiled", "--param", "size=2"}, 0);
    ran.clear();
    for (const auto& [name, scenario] : s) ran.push_back(name);
    EXPECT_EQ(ran, (std::vector<std::string>{"matmul[variant=compiled,batch_size=4]",
                                             "matmul[variant=compiled,batch_size=8]", "tokenize"}));
    EXPECT_NE((last.out + last.err)
                  .find("two_py/tokenize does not vary over batch_size: of 4,8 (--batch-sizes) only the first (4) "
                        "is used"),
              std::string::npos)
        << last.out << last.err;

    // A value that does not convert fails, naming the parameter's def.
    s = run({"--param", "size=x", "--include", "tokenize"}, 1);
    EXPECT_EQ(s["tokenize"].status, "failed");
    EXPECT_EQ(s["tokenize"].reason,
              "--param size=x: benchmark_tokenize's parameter size takes an int (its default "
              "is 10) (" +
                  (plugins / "unit/two_py.py").string() + ":7)");

    // `list` shows each function's axes and scenarios.
    const ProcessResult list = run_host({"list", "--plugins-dir", plugins.string()}, work.path());
    EXPECT_EQ(list.exit_code, 0) << list.err;
    EXPECT_NE(list.out.find("      two_py: axes variant (eager, kernelized), batch_size (the plugin's) -> "
                            "two_py[variant=eager,batch_size=1] two_py[variant=kernelized,batch_size=1]\n"
                            "      tokenize: axes - (its own) -> tokenize\n"
                            "      matmul: axes variant (eager, compiled), batch_size (1, 2) (its own) -> "
                            "matmul[variant=eager,batch_size=1] matmul[variant=eager,batch_size=2] "
                            "matmul[variant=compiled,batch_size=1] matmul[variant=compiled,batch_size=2]\n"),
              std::string::npos)
        << list.out;
}

TEST_F(PythonPluginsTest, AFolderOfSuiteShapedFunctionsRunsFromAPlainCopy) {
    // tests/fixtures/python_suite: ten benchmark functions in the shapes existing suites
    // have (dicts of numbers, nested dicts, seconds under execution_time, *_time, *_s,
    // time, a function taking the Context, ones taking nothing, one reading a parameter by
    // name, one declaring its own batch sizes, one returning nothing), copied as they are
    // into plugins/unit/ and run with one `run`: no failure.
    fs::create_directories(plugins / "unit");
    for (const auto& file : fs::directory_iterator(fs::path(BENCH_TEST_SOURCE_DIR) / "tests/fixtures/python_suite"))
        if (file.path().extension() == ".py") fs::copy_file(file.path(), plugins / "unit" / file.path().filename());
    auto s = run({}, 0);
    ASSERT_EQ(s.size(), 11u) << last.out;  // ten functions, one of them over two batch sizes
    for (const auto& [name, scenario] : s) EXPECT_EQ(scenario.status, "success") << name << ": " << scenario.reason;
    EXPECT_NE(last.out.find("11 scenarios: 11 succeeded, 0 failed"), std::string::npos) << last.out;
    EXPECT_EQ(unit(s["inference"], "execution_time"), "s");
    EXPECT_EQ(unit(s["preprocess"], "stages.sort_time"), "s");
    EXPECT_EQ(unit(s["softmax"], "time"), "s");
    EXPECT_EQ(unit(s["checkpoint"], "save_s"), "s");
    EXPECT_NE(series(s["eval"], "accuracy"), nullptr);
    EXPECT_NE(series(s["matmul"], "latency"), nullptr);
    EXPECT_NE(series(s["batched[batch_size=4]"], "execution_time"), nullptr);
    // The figures a function returned are on the console under its row.
    EXPECT_NE(last.out.find("loss "), std::string::npos) << last.out;
}

TEST_F(PythonPluginsTest, ReturnedTimesKeepTheirNamesInSecondsBesideTheHostsCallTime) {
    // The shape of many existing suites: a plain function that times its own work and
    // returns seconds under execution_time (which the host's own timing was once named
    // too, failing the scenario), *_time, *_s, time, nested too. Each key is a series
    // of its own name; the host's timing of each call is benchhost.call_time (ms).
    add("unit/suite_py.py", R"(import time

calls = []

def run_inference():
    calls.append(1)
    start = time.perf_counter()
    time.sleep(0.002)
    return {"execution_time": time.perf_counter() - start, "time": 0.5, "tokens": 7, "accuracy": 0.75,
            "timings": {"forward_time": 0.25 * len(calls), "load_s": 2.0, "tokens_per_s": 100.0}}

def benchmark_seconds(ctx):
    for _ in range(3):
        ctx.add_sample("execution_time", 0.25, "s")
)");
    auto s = run({}, 0);
    const Scenario& inference = s["inference"];
    ASSERT_EQ(inference.status, "success") << inference.reason << last.err;
    const std::map<std::string, std::string> units = {{"benchhost.call_time", "ms"},
                                                      {"execution_time", "s"},
                                                      {"time", "s"},
                                                      {"tokens", ""},
                                                      {"accuracy", ""},
                                                      {"timings.forward_time", "s"},
                                                      {"timings.load_s", "s"},
                                                      {"timings.tokens_per_s", ""}};
    std::vector<std::string> recorded;
    for (const auto& m : (*inference.report)["measurements"].GetObject())
        if (m.value.HasMember("measurements")) recorded.emplace_back(m.name.GetString());
    std::sort(recorded.begin(), recorded.end());
    std::vector<std::string> expected;
    for (const auto& [name, u] : units) expected.push_back(name);
    EXPECT_EQ(recorded, expected);
    for (const auto& [name, u] : units) {
        ASSERT_NE(series(inference, name.c_str()), nullptr) << name;
        EXPECT_EQ(series(inference, name.c_str())->Size(), 3u) << name;
        EXPECT_EQ(unit(inference, name.c_str()), u) << name;
    }
    // The values as returned: a warmup call first, then calls 2, 3 and 4.
    const auto value = [&](const char* name, rapidjson::SizeType i) {
        return (*series(inference, name))[i].GetDouble();
    };
    EXPECT_DOUBLE_EQ(value("timings.forward_time", 0), 0.5);
    EXPECT_DOUBLE_EQ(value("timings.forward_time", 2), 1.0);
    EXPECT_DOUBLE_EQ(value("timings.load_s", 0), 2.0);
    EXPECT_DOUBLE_EQ(value("timings.tokens_per_s", 0), 100.0);
    EXPECT_DOUBLE_EQ(value("tokens", 0), 7.0);
    for (rapidjson::SizeType i = 0; i < 3; ++i) {
        EXPECT_GE(value("execution_time", i), 0.002);  // its own sleep, in seconds
        EXPECT_LT(value("execution_time", i), 1.0);
        EXPECT_GE(value("benchhost.call_time", i), 2.0);  // the host's clock around the call, in ms
    }
    // A series in seconds reads as a time: 0.25 s is 250 ms on the console and in report.md.
    ASSERT_EQ(s["seconds"].status, "success") << s["seconds"].reason;
    const std::size_t heading = last.out.find("unit/suite_py/seconds\n");
    ASSERT_NE(heading, std::string::npos) << last.out;
    const std::string table = last.out.substr(heading, last.out.find("\n\n", heading) - heading);
    EXPECT_NE(table.find("\n  success  250 ms"), std::string::npos) << table;
    const std::string md = read_file(output / "report.md");
    EXPECT_NE(md.find("| `unit/suite_py/seconds` | 1 of 1 | 250 ms"), std::string::npos) << md;
    EXPECT_NE(md.find("(benchhost.call_time)"), std::string::npos) << md;  // the plain function's headline
}

TEST_F(PythonPluginsTest, ReturnedFiguresAreInEveryOutputAndTheFrameworkIsNamed) {
    // A plain function's returned figures reach the console, report.md, report.html, the
    // CSV and the summary, not only the plugin's JSON; the framework column says what the
    // benchmark ran on. The "torch" here is a module of the plugin's own, so that the test
    // needs no PyTorch: what counts is what sys.modules holds when the benchmark ends.
    add("unit/figures_py.py", R"(import sys
import types

def benchmark_returns():
    return {"execution_time": 0.0125, "throughput": 812.0, "nested": {"a": 1}}

def benchmark_torch():
    torch = types.ModuleType("torch")
    torch.__version__ = "9.8.7"
    sys.modules["torch"] = torch
    return {"loss": 0.5}

def run_own(ctx):
    ctx.set_info("framework", "numpy")
    ctx.add_sample("latency", 1.0, "ms")
)");
    auto s = run({}, 0);
    for (const char* name : {"returns", "torch", "own"}) ASSERT_EQ(s[name].status, "success") << name << last.err;
    const auto framework = [&](const char* name) {
        return std::string((*s[name].report)["info"]["framework"].GetString());
    };
    EXPECT_EQ(framework("returns").rfind("Python 3.", 0), 0u) << framework("returns");
    EXPECT_EQ(framework("torch"), "PyTorch 9.8.7");
    EXPECT_EQ(framework("own"), "numpy");  // the plugin's own stands

    // The console: benchhost.call_time is the row's headline, throughput its column, the
    // other figures on a line under the row, by their medians.
    const std::size_t heading = last.out.find("unit/figures_py/returns\n");
    ASSERT_NE(heading, std::string::npos) << last.out;
    const std::string table = last.out.substr(heading, last.out.find("\n\n", heading) - heading);
    EXPECT_NE(table.find(" 812 "), std::string::npos) << table;
    EXPECT_TRUE(table.ends_with("\n    execution_time 12.5 ms, nested.a 1.00")) << table;

    const std::string md = read_file(output / "report.md");
    EXPECT_NE(md.find("| Other series (median) |"), std::string::npos) << md;
    EXPECT_NE(md.find("| execution_time 12.5 ms, nested.a 1.00 |"), std::string::npos) << md;
    EXPECT_NE(md.find("| loss 0.50 |"), std::string::npos) << md;
    const std::string html = read_file(output / "report.html");
    EXPECT_NE(html.find("<span class=\"sp\">execution_time 12.5 ms</span><span class=\"sp\">nested.a 1.00</span>"),
              std::string::npos);

    // The CSV: a median and a unit column for each other series, the framework filled.
    const auto csv = files_matching(output, "benchmark_results_", ".csv");
    ASSERT_EQ(csv.size(), 1u);
    std::vector<std::vector<std::string>> rows;
    std::istringstream lines(read_file(csv[0]));
    for (std::string line; std::getline(lines, line);) {
        std::vector<std::string>& row = rows.emplace_back();
        std::istringstream fields(line);
        for (std::string field; std::getline(fields, field, ',');) row.push_back(field);
        if (!line.empty() && line.back() == ',') row.emplace_back();
    }
    ASSERT_EQ(rows.size(), 4u);  // the header and three scenarios
    const auto column = [&](const std::string& name) {
        return static_cast<std::size_t>(std::find(rows[0].begin(), rows[0].end(), name) - rows[0].begin());
    };
    const auto row = [&](const std::string& scenario) -> const std::vector<std::string>& {
        for (const auto& r : rows)
            if (r.size() > 2 && r[2] == "unit/figures_py/" + scenario) return r;
        return rows[0];
    };
    for (const char* name : {"benchhost.call_time_median", "execution_time_median", "execution_time_unit",
                             "nested.a_median", "loss_median"})
        ASSERT_LT(column(name), rows[0].size()) << name << ": " << read_file(csv[0]);
    for (const auto& r : rows) EXPECT_EQ(r.size(), rows[0].size());
    EXPECT_EQ(row("returns")[column("framework")], framework("returns"));
    EXPECT_EQ(row("torch")[column("framework")], "PyTorch 9.8.7");
    EXPECT_DOUBLE_EQ(std::stod(row("returns")[column("execution_time_median")]), 0.0125);
    EXPECT_EQ(row("returns")[column("execution_time_unit")], "s");
    EXPECT_DOUBLE_EQ(std::stod(row("returns")[column("nested.a_median")]), 1);
    EXPECT_DOUBLE_EQ(std::stod(row("returns")[column("throughput")]), 812);
    EXPECT_EQ(row("torch")[column("execution_time_median")], "");
    EXPECT_DOUBLE_EQ(std::stod(row("torch")[column("loss_median")]), 0.5);

    // The summary: every series in the scenario's headline.
    const auto summary = read_json(output / "benchmark_summary.json");
    const rapidjson::Value* headline = nullptr;
    for (const auto& entry : summary["results"].GetArray())
        if (std::string(entry["scenario_id"].GetString()) == "unit/figures_py/returns") headline = &entry["headline"];
    ASSERT_NE(headline, nullptr);
    for (const char* name : {"benchhost.call_time", "execution_time", "throughput", "nested.a"})
        EXPECT_TRUE(headline->HasMember(name)) << name;
    EXPECT_DOUBLE_EQ((*headline)["execution_time"]["median"].GetDouble(), 0.0125);
    EXPECT_STREQ((*headline)["execution_time"]["unit"].GetString(), "s");
    EXPECT_DOUBLE_EQ((*headline)["nested.a"]["median"].GetDouble(), 1);
}

TEST_F(PythonPluginsTest, WhatWentWrongIsSaidOnceAndInWords) {
    add("unit/messages_py.py", R"(def benchmark_tokenize(text):
    return words(text)

def words(text):
    return text.split()

def run_typo(ctx):
    ctx.mesure("latency", lambda: None)

def benchmark_needs(model, batch):
    return {}

def run_records_nothing(ctx):
    ctx.set_info("model", "none")

def run_returns_instead(ctx):
    return {"latency": 1.0}

def benchmark_returns_nothing():
    pass

def benchmark_returns_empty():
    return {}

def benchmark_clashes():
    return {"a.b": 1, "a": {"b": 2}}

def benchmark_takes_the_name():
    return {"benchhost": {"call_time": 1.0}}

calls = []

def benchmark_fails_halfway():
    calls.append(1)
    if len(calls) > 2:
        raise RuntimeError("broke on call 3")
    return {"items": 1}
)");
    auto s = run({}, 1);
    const std::string file = (plugins / "unit/messages_py.py").string();
    // A parameter that is not named as the Context, given the Context: the reason says so.
    EXPECT_EQ(s["tokenize"].status, "failed");
    EXPECT_EQ(s["tokenize"].reason,
              "raised AttributeError: 'benchhost.Context' object has no attribute 'split' (" + file +
                  ":5 in words); benchhost called benchmark_tokenize with the Context (benchhost.Context) as its "
                  "parameter text, in def benchmark_tokenize(text) (" +
                  file +
                  ":1). A benchmark function's parameters get, by name, the Context (ctx), the scenario's axes "
                  "(batch_size, dtype, ...) and the run's --param values");
    // Named ctx: a mistake of its own, said without the hint.
    EXPECT_EQ(s["typo"].status, "failed");
    EXPECT_EQ(s["typo"].reason, "raised AttributeError: 'benchhost.Context' object has no attribute 'mesure' (" + file +
                                    ":8 in run_typo)");
    EXPECT_EQ(s["needs"].status, "failed");
    EXPECT_EQ(s["needs"].reason,
              "benchmark_needs(model, batch) needs values for model and batch, which the run does not give: pass "
              "--param model=..., or give them defaults (a parameter gets by its name a --param or --axis value, or "
              "the scenario's variant, compile_mode, batch_size, dtype, device or threads; the Context goes to one "
              "parameter: def benchmark_needs(ctx)) (" +
                  file + ":10)");
    // On the console, the reason in full after the scenario (the lines wrap at spaces and
    // slashes: compared without whitespace).
    const auto squeezed = [](std::string text) {
        std::erase_if(text, [](char c) { return c == ' ' || c == '\n'; });
        return text;
    };
    EXPECT_NE(squeezed(last.out).find(squeezed("\n  unit/messages_py/needs (failed): " + s["needs"].reason + "\n")),
              std::string::npos)
        << last.out;

    // Success that recorded nothing, with a warning.
    const auto warnings = [&](const char* name) {
        std::vector<std::string> out;
        for (const auto& w : (*s[name].report)["warnings"].GetArray()) out.emplace_back(w.GetString());
        return out;
    };
    ASSERT_EQ(s["records_nothing"].status, "success") << s["records_nothing"].reason;
    EXPECT_EQ(warnings("records_nothing"),
              std::vector<std::string>{"run_records_nothing recorded no figures: it measured nothing (ctx.measure, "
                                       "ctx.add_sample, ctx.record_series, ctx.record_scalar record them)"});
    ASSERT_EQ(s["returns_instead"].status, "success") << s["returns_instead"].reason;
    EXPECT_EQ(warnings("returns_instead"),
              std::vector<std::string>{"run_returns_instead recorded no figures: it measured nothing (ctx.measure, "
                                       "ctx.add_sample, ctx.record_series, ctx.record_scalar record them); what it "
                                       "returned is not recorded: a function that takes the Context records through "
                                       "it"});
    ASSERT_EQ(s["returns_nothing"].status, "success") << s["returns_nothing"].reason;
    EXPECT_EQ(
        warnings("returns_nothing"),
        std::vector<std::string>{
            "benchmark_returns_nothing returned no figures; only its call time was measured (benchhost.call_time)"});
    ASSERT_NE(series(s["returns_nothing"], "benchhost.call_time"), nullptr);
    EXPECT_EQ(series(s["returns_nothing"], "benchhost.call_time")->Size(), 3u);
    ASSERT_EQ(s["returns_empty"].status, "success") << s["returns_empty"].reason;
    EXPECT_EQ(
        warnings("returns_empty"),
        std::vector<std::string>{
            "benchmark_returns_empty returned no figures; only its call time was measured (benchhost.call_time)"});

    // Names that would clash fail, saying which.
    EXPECT_EQ(s["clashes"].status, "failed");
    EXPECT_EQ(s["clashes"].reason,
              "benchmark_clashes returned two figures named 'a.b' (nested keys are joined with '.')");
    EXPECT_EQ(s["takes_the_name"].status, "failed");
    EXPECT_EQ(s["takes_the_name"].reason,
              "benchmark_takes_the_name returned a figure named 'benchhost.call_time', the name of benchhost's own "
              "timing of each call: name it otherwise");

    // A scenario that failed after a measured call: its sample is in the plugin JSON, but
    // no table shows a median of it.
    EXPECT_EQ(s["fails_halfway"].status, "failed");
    ASSERT_NE(series(s["fails_halfway"], "benchhost.call_time"), nullptr);
    EXPECT_EQ(series(s["fails_halfway"], "benchhost.call_time")->Size(), 1u);
    const std::size_t heading = last.out.find("unit/messages_py/fails_halfway\n");
    ASSERT_NE(heading, std::string::npos) << last.out;
    const std::string table = last.out.substr(heading, last.out.find("\n\n", heading) - heading);
    EXPECT_NE(table.find("\n  failed       -       -    -           -         -"), std::string::npos) << table;
    const std::string md = read_file(output / "report.md");
    const std::size_t section = md.find("### `unit/messages_py/fails_halfway`");
    ASSERT_NE(section, std::string::npos) << md;
    EXPECT_NE(md.find("| **failed** | - | - | - | - | - | raised RuntimeError: broke on call 3", section),
              std::string::npos)
        << md.substr(section);

    // Each traceback once in the run's log: three exceptions, three tracebacks.
    const std::vector<fs::path> logs = files_matching(output, "benchmark_run_", ".log");
    ASSERT_EQ(logs.size(), 1u);
    const std::string log = read_file(logs[0]);
    std::size_t tracebacks = 0;
    for (std::size_t at = log.find("Traceback (most recent call last)"); at != std::string::npos;
         at = log.find("Traceback (most recent call last)", at + 1))
        ++tracebacks;
    EXPECT_EQ(tracebacks, 3u) << log;
}

TEST_F(PythonPluginsTest, ANoticeLineReachesTheConsoleAndOtherOutputOnlyTheLog) {
    // What a plugin says before a long step ("[notice] ..." on stderr, as benchhost's
    // compiles do) is shown with the scenario's name; any other line of output is for
    // the log's debug level only.
    add("unit/talk_py.py", R"(import sys

def benchmark_talk(ctx):
    print("[notice] compiling the talking model: a minute or more", file=sys.stderr, flush=True)
    print("an ordinary line", file=sys.stderr, flush=True)
    ctx.measure("latency", lambda: None)
)");
    auto s = run({}, 0);
    ASSERT_EQ(s["talk"].status, "success") << s["talk"].reason << last.err;
    EXPECT_NE(last.err.find("[info] unit/talk_py/talk"), std::string::npos) << last.err;
    EXPECT_NE(last.err.find(": compiling the talking model: a minute or more"), std::string::npos) << last.err;
    EXPECT_EQ(last.err.find("[notice]"), std::string::npos) << last.err;
    EXPECT_EQ(last.err.find("an ordinary line"), std::string::npos) << last.err;
}

TEST_F(PythonPluginsTest, EachWayOfEndingEndsOnlyItsScenario) {
    add("unit/endings_py.py", R"(import os, sys, threading, time

def benchmark_raises():
    raise ValueError("no such model")

def run_skips(ctx):
    ctx.skip("needs a GPU")

def run_catches_everything(ctx):
    try:
        ctx.skip("still skipped")
    except Exception:
        pass

def benchmark_exits():
    sys.exit(3)

def benchmark_crashes():
    os.abort()

def benchmark_hangs():
    time.sleep(600)

def run_leaves_a_thread(ctx):
    threading.Thread(target=time.sleep, args=(600,), name="sleeper", daemon=False).start()
    ctx.add_sample("x", 1.0, "")

def benchmark_returns_text():
    return "fast"

def benchmark_fine():
    return {"ok": 1}

def benchmark_stops():
    breakpoint()
    return {"ok": 1}

def benchmark_exits_with_0():
    sys.exit(0)

def benchmark_leaves_a_thread_a_call():
    threading.Thread(target=time.sleep, args=(600,), name="poller", daemon=True).start()
    return {"ok": 1}
)");
    auto s = run({"--timeout", "10"}, 1);
    const std::string file = (plugins / "unit/endings_py.py").string();
    EXPECT_EQ(s["raises"].status, "failed");
    EXPECT_EQ(s["raises"].reason, "raised ValueError: no such model (" + file + ":4 in benchmark_raises)");
    EXPECT_EQ(s["skips"].status, "skipped");
    EXPECT_EQ(s["skips"].reason, "needs a GPU");
    EXPECT_EQ(s["catches_everything"].status, "skipped");
    EXPECT_EQ(s["exits"].status, "failed");
    EXPECT_EQ(s["exits"].reason, "called sys.exit(3) (" + file + ":16 in benchmark_exits)");
    // pdb in a worker reads end-of-file and quits: the reason says why, and where it stopped.
    EXPECT_EQ(s["stops"].status, "failed");
    EXPECT_EQ(s["stops"].reason,
              "raised BdbQuit: pdb has no terminal to read in a worker process: to step through a plugin, run it "
              "with --isolation none --timeout 0, or with python -m benchhost.check (" +
                  file + ":36 in benchmark_stops)");
    EXPECT_EQ(s["crashes"].status, "crashed") << s["crashes"].reason;
    EXPECT_EQ(s["hangs"].status, "timed_out") << s["hangs"].reason;
    EXPECT_EQ(s["leaves_a_thread"].status, "success") << s["leaves_a_thread"].reason;
    std::string warnings;
    for (const auto& w : (*s["leaves_a_thread"].report)["warnings"].GetArray()) warnings += w.GetString();
    EXPECT_NE(warnings.find("the benchmark left 1 thread(s) running (sleeper); they were not waited for"),
              std::string::npos)
        << warnings;
    // sys.exit(0): a success, with a warning saying where it ended.
    ASSERT_EQ(s["exits_with_0"].status, "success") << s["exits_with_0"].reason;
    EXPECT_NE(warnings_of(s["exits_with_0"])
                  .find("benchmark_exits_with_0 called sys.exit(0) (" + file +
                        ":39 in benchmark_exits_with_0): the scenario succeeds with what was recorded before the call"),
              std::string::npos)
        << warnings_of(s["exits_with_0"]);
    // A thread a call (warmup and timed): its name once, with how many.
    ASSERT_EQ(s["leaves_a_thread_a_call"].status, "success") << s["leaves_a_thread_a_call"].reason;
    const std::size_t timed = series(s["leaves_a_thread_a_call"], "benchhost.call_time")->Size();
    warnings = warnings_of(s["leaves_a_thread_a_call"]);
    const std::size_t at = warnings.find("the benchmark left ");
    ASSERT_NE(at, std::string::npos) << warnings;
    const std::string threads = std::to_string(std::stoul(warnings.substr(at + 19)));
    EXPECT_GT(std::stoul(threads), timed) << warnings;
    EXPECT_NE(warnings.find("the benchmark left " + threads + " thread(s) running (poller x" + threads +
                            "); they were not waited for"),
              std::string::npos)
        << warnings;
    EXPECT_EQ(s["returns_text"].status, "failed");
    EXPECT_EQ(s["returns_text"].reason,
              "benchmark_returns_text returned str: a benchmark function without parameters returns a dict of "
              "numbers, or None");
    EXPECT_EQ(s["fine"].status, "success") << s["fine"].reason;
    // The traceback is in the run's log.
    const std::vector<fs::path> logs = files_matching(output, "benchmark_run_", ".log");
    ASSERT_EQ(logs.size(), 1u);
    EXPECT_NE(read_file(logs[0]).find("ValueError: no such model"), std::string::npos);
}

TEST_F(PythonPluginsTest, ProcessesAPluginLeftRunningAreStoppedWithAWarning) {
    const std::vector<std::string> sleep = {"sleep", sleep_marker(2)};
    const KillsOnExit cleanup(sleep);
    add("unit/starts_sleeps_py.py", R"(import subprocess

started = []

def run_benchmark(ctx):
    marker = ctx.config.params["marker"]
    ctx.measure("latency", lambda: started.append(subprocess.Popen(["sleep", marker], start_new_session=True)))
    ctx.record_scalar("started", len(started), "processes")
)");
    auto s = run({"--param", "marker=" + sleep[1]}, 0);
    const Scenario& scenario = s["starts_sleeps_py"];
    ASSERT_EQ(scenario.status, "success") << scenario.reason << last.err;
    EXPECT_EQ(processes_with_command_line(sleep), std::vector<pid_t>{}) << "left running after the run";
    const int started = static_cast<int>(scalar(scenario, "started"));
    EXPECT_GE(started, 4);  // a warmup call and three measured ones, at least
    std::vector<std::string> stopped;
    for (const auto& w : (*scenario.report)["warnings"].GetArray())
        if (std::string(w.GetString()).starts_with("stopped ")) stopped.emplace_back(w.GetString());
    ASSERT_EQ(stopped.size(), 1u) << last.err;
    EXPECT_TRUE(stopped[0].starts_with("stopped " + std::to_string(started) +
                                       " processes the scenario left running: sleep " + sleep[1] + " (pid "))
        << stopped[0];
    if (started > 5) {
        EXPECT_TRUE(stopped[0].ends_with(" and " + std::to_string(started - 5) + " more")) << stopped[0];
    }
}

TEST_F(PythonPluginsTest, TorchCompilesWorkersAreShutDownAsAtTheEndOfAProgram) {
    // A fake of torch.compile's module, whose pool of compile processes an atexit
    // handler shuts down in a program that ends: a worker shuts it down after the benchmark.
    const std::vector<std::string> sleep = {"sleep", sleep_marker(3)};
    const KillsOnExit cleanup(sleep);
    add("unit/compiles_py.py", R"(import subprocess, sys, types

def run_benchmark(ctx):
    pool = subprocess.Popen(["sleep", ctx.config.params["marker"]], start_new_session=True)
    def shutdown_compile_workers():
        pool.terminate()
        pool.wait()
        ctx.set_info("compile_workers", "shut down")
    fake = types.ModuleType("torch._inductor.async_compile")
    fake.shutdown_compile_workers = shutdown_compile_workers
    sys.modules["torch._inductor.async_compile"] = fake
    ctx.add_sample("x", 1.0, "")
)");
    auto s = run({"--param", "marker=" + sleep[1]}, 0);
    const Scenario& scenario = s["compiles_py"];
    ASSERT_EQ(scenario.status, "success") << scenario.reason << last.err;
    ASSERT_TRUE((*scenario.report)["info"].HasMember("compile_workers")) << last.err;
    EXPECT_STREQ((*scenario.report)["info"]["compile_workers"].GetString(), "shut down");
    for (const auto& w : (*scenario.report)["warnings"].GetArray())
        EXPECT_FALSE(std::string(w.GetString()).starts_with("stopped ")) << w.GetString();
    EXPECT_EQ(processes_with_command_line(sleep), std::vector<pid_t>{});
}

TEST_F(PythonPluginsTest, PythonAndCppPluginsRunSideBySideInOneReport) {
    add("performance/sum_py.py", "def benchmark_sum():\n    return {'total': sum(range(100))}\n");
    install_plugin(built_plugin("performance/libmock_benchmark.so"), plugins, "performance");
    auto s = run({"--enable-mock", "--variants", "eager"}, 0);
    EXPECT_EQ(s["sum"].status, "success") << s["sum"].reason;
    bool mock_ran = false;
    for (const auto& [name, scenario] : s)
        mock_ran = mock_ran || (name.rfind("mock_benchmark", 0) == 0 && scenario.status == "success");
    EXPECT_TRUE(mock_ran);
    const rapidjson::Document summary = read_json(output / "benchmark_summary.json");
    std::string ids;
    for (const auto& r : summary["results"].GetArray()) ids += std::string(r["scenario_id"].GetString()) + "\n";
    EXPECT_NE(ids.find("performance/sum_py/sum"), std::string::npos) << ids;
    EXPECT_NE(ids.find("performance/mock_benchmark/"), std::string::npos) << ids;

    // `list` says what each is.
    const ProcessResult list = run_host({"list", "--plugins-dir", plugins.string()}, work.path());
    EXPECT_EQ(list.exit_code, 0) << list.err;
    EXPECT_NE(list.out.find("performance/sum_py  version unversioned\n    kind:       python: CPython 3."),
              std::string::npos)
        << list.out;
}

TEST_F(PythonPluginsTest, APythonHandlerServesQueriesIssuedFromCpp) {
    // ctx.serve, serve_batches and serve_steps with Python handlers, offline: the C++
    // load generator issues the queries, the handlers report tokens and finish queries.
    add("performance/server_py.py", R"(import time

def benchmark_one(ctx):
    def handle(query):
        assert query.samples == 1 and query.slot == 0
        for _ in range(3):
            time.sleep(0.0002)
            query.token()
    ctx.serve(handle)
    assert ctx.served

def benchmark_batches(ctx):
    sizes = []
    def handle(queries):
        sizes.append(len(queries))
        assert [q.slot for q in queries] == list(range(len(queries)))
        time.sleep(0.001)
    ctx.serve_batches(handle)
    ctx.set_info("largest_batch", str(max(sizes)))

def benchmark_steps(ctx):
    def step(active):
        assert len({q.slot for q in active}) == len(active) <= 4
        time.sleep(0.0005)
        for q in active:
            q.token()
            if q.tokens == 3:
                q.finish()
    ctx.serve_steps(step)

def benchmark_raises(ctx):
    def handle(query):
        if query.index == 5:
            raise KeyError("query five")
    ctx.serve(handle)
)");
    auto s = run({"--load", "offline", "--queries", "40", "--max-batch", "4"}, 1);
    for (const char* name : {"one", "batches", "steps"}) {
        ASSERT_EQ(s[name].status, "success") << name << ": " << s[name].reason << last.err;
        const auto& m = (*s[name].report)["measurements"];
        ASSERT_TRUE(m.HasMember("queue_wait")) << name;
        EXPECT_EQ(m["queue_wait"]["count"].GetDouble(), 40) << name;
    }
    const auto& one = (*s["one"].report)["measurements"];
    ASSERT_TRUE(one.HasMember("time_to_first_token"));
    EXPECT_GE(one["time_to_first_token"]["median"].GetDouble(), 0.2);  // one token's sleep, at least
    EXPECT_TRUE(one.HasMember("time_per_output_token"));
    // Offline, every query waits from the start: the batches fill up to --max-batch.
    EXPECT_STREQ((*s["batches"].report)["info"]["largest_batch"].GetString(), "4");
    const auto& batches = (*s["batches"].report)["measurements"];
    ASSERT_TRUE(batches.HasMember("queries_per_batch"));
    EXPECT_LE(batches["queries_per_batch"]["max"].GetDouble(), 4);
    const auto& steps = (*s["steps"].report)["measurements"];
    ASSERT_TRUE(steps.HasMember("queries_per_batch"));
    EXPECT_EQ(steps["queries_per_batch"]["max"].GetDouble(), 4);
    EXPECT_TRUE(steps.HasMember("time_per_output_token"));
    // An exception in the handler fails its scenario, saying where.
    EXPECT_EQ(s["raises"].status, "failed");
    EXPECT_NE(s["raises"].reason.find("raised KeyError: 'query five' ("), std::string::npos) << s["raises"].reason;
    EXPECT_NE(s["raises"].reason.find("server_py.py:34 in handle)"), std::string::npos) << s["raises"].reason;
}

TEST_F(PythonPluginsTest, TheTorchHelperBuildsEachVariantAndChecksItAgainstEager) {
    // benchhost.torch.model_variant over a small model: eager, torch.compile
    // (torch-compile) and TorchScript, a kernelized forward of the plugin's; a kernelized forward that is
    // wrong fails, one that is missing skips, an unknown compile mode fails naming the
    // modes. torch.compile compiles for real, into a cache folder of the test's own.
    // wrong and none are there for their kernelized forwards, and run that variant alone:
    // each scenario is a worker that imports torch, each torch.compile a compile.
    add("performance/tiny_py.py", R"(import benchhost
import torch
from benchhost.torch import model_variant, select

BENCHHOST_PLUGIN = {"axes": ["variant", "compile_mode"], "variants": ["eager", "compiled", "kernelized"]}

def model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU()).eval()

def right(m):
    linear = m[0]
    return lambda x: torch.relu(torch.addmm(linear.bias, x, linear.weight.t()))

def wrong(m):
    forward = right(m)
    return lambda x: forward(x) + 0.5

def measure(ctx, kernelize):
    device, dtype = select(ctx)
    assert ctx.config.axes["variant"] == ctx.config.variant
    assert ctx.config.axes["compile_mode"] == ctx.config.compile_mode
    m = model().to(device, dtype)
    x = torch.randn(8, 64, generator=torch.Generator().manual_seed(1)).to(device, dtype)
    with torch.inference_mode():
        forward = model_variant(ctx, m, (x,), kernelize=kernelize)
        ctx.measure("latency", lambda: forward(x))

def benchmark_right(ctx):
    measure(ctx, right)

@benchhost.benchmark(variants=["kernelized"])
def benchmark_wrong(ctx):
    measure(ctx, wrong)

@benchhost.benchmark(variants=["kernelized"])
def benchmark_none(ctx):
    measure(ctx, None)
)");
    env = {"BENCHHOST_CACHE_DIR=" + (work / "cache").string()};
    auto s = run({"--variants", "eager,compiled,kernelized", "--compile-modes", "torch-compile,torchscript,bogus"}, 1);
    const auto info = [&](const std::string& name, const char* key) -> std::string {
        const auto& i = (*s[name].report)["info"];
        return i.HasMember(key) ? i[key].GetString() : "";
    };
    EXPECT_EQ(s.size(), 7u) << last.out;  // right in 5 variants and modes, wrong and none kernelized
    ASSERT_EQ(s["right[variant=eager]"].status, "success") << s["right[variant=eager]"].reason << last.err;
    EXPECT_GT(scalar(s["right[variant=eager]"], "first_call"), 0);
    for (const char* mode : {"torch-compile", "torchscript"}) {
        const std::string name = std::string("right[variant=compiled,compile_mode=") + mode + "]";
        ASSERT_EQ(s[name].status, "success") << name << ": " << s[name].reason;
        EXPECT_GT(scalar(s[name], "compile_time"), 0) << name;
        EXPECT_GT(scalar(s[name], "first_call"), 0) << name;
        EXPECT_LE(scalar(s[name], "max_abs_diff"), 1e-4) << name;
        EXPECT_NE(series(s[name], "latency"), nullptr) << name;
    }
    const std::string unknown = "right[variant=compiled,compile_mode=bogus]";
    EXPECT_EQ(s[unknown].status, "failed");
    EXPECT_NE(s[unknown].reason.find("compile mode 'bogus' is not one that benchhost.torch.model_variant knows: "
                                     "default, max-autotune, torch-compile, torch-compile-max-autotune, "
                                     "reduce-overhead, max-autotune-no-cudagraphs, torchscript"),
              std::string::npos)
        << s[unknown].reason;
    EXPECT_NE(
        info("right[variant=compiled,compile_mode=torch-compile]", "compiler").find("torch.compile(mode='default')"),
        std::string::npos);
    EXPECT_NE(info("right[variant=compiled,compile_mode=torch-compile]", "compiler").find("Inductor freezing on"),
              std::string::npos);
    // torch.compile's cache is benchhost's.
    EXPECT_EQ(info("right[variant=compiled,compile_mode=torch-compile]", "compile_cache_dir"),
              (work / "cache/inductor").string());
    EXPECT_TRUE(fs::is_directory(work / "cache/inductor"));

    EXPECT_EQ(s["right[variant=kernelized]"].status, "success") << s["right[variant=kernelized]"].reason;
    EXPECT_GE(scalar(s["right[variant=kernelized]"], "kernelize_time"), 0);
    EXPECT_EQ(s["wrong[variant=kernelized]"].status, "failed");
    EXPECT_NE(s["wrong[variant=kernelized]"].reason.find("output 0 differs from eager beyond the float32 tolerance"),
              std::string::npos)
        << s["wrong[variant=kernelized]"].reason;
    EXPECT_NEAR(scalar(s["wrong[variant=kernelized]"], "max_abs_diff"), 0.5, 1e-6);
    EXPECT_EQ(s["none[variant=kernelized]"].status, "skipped");
    EXPECT_NE(s["none[variant=kernelized]"].reason.find("no kernelized variant"), std::string::npos);
}

TEST_F(PythonPluginsTest, CompileModeDefaultIsAnAOTInductorPackageCompiledOnceThenLoaded) {
    // benchhost.torch's compile mode default, as the C++ layer's: the model exported and
    // compiled into an AOTInductor package in benchhost's cache by the first worker (the
    // console told before), loaded by the next run's, checked against eager both times.
    add("performance/aot_py.py", R"(import torch
from benchhost.torch import model_variant, select

BENCHHOST_PLUGIN = {"axes": ["variant", "compile_mode"], "variants": ["compiled"]}

def run_benchmark(ctx):
    device, dtype = select(ctx)
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU()).eval().to(device, dtype)
    x = torch.randn(8, 64, generator=torch.Generator().manual_seed(1)).to(device, dtype)
    with torch.inference_mode():
        forward = model_variant(ctx, m, (x,), name="aot_py")
        ctx.measure("latency", lambda: forward(x))
)");
    env = {"BENCHHOST_CACHE_DIR=" + (work / "cache").string()};
    const std::string name = "aot_py[variant=compiled,compile_mode=default]";
    auto cold = run({"--compile-modes", "default"}, 0);
    ASSERT_EQ(cold[name].status, "success") << cold[name].reason << last.err;
    const std::string miss = info_of(cold[name], "compile_cache");
    ASSERT_TRUE(miss.starts_with("miss: " + (work / "cache/aot-inductor/aot_py-default-").string())) << miss;
    const std::string package = miss.substr(6);
    EXPECT_TRUE(fs::is_regular_file(package)) << package;
    EXPECT_TRUE(fs::is_regular_file(fs::path(package).parent_path() / "key.txt"));
    EXPECT_GT(scalar(cold[name], "compile_time"), 0);
    EXPECT_GT(scalar(cold[name], "export_time"), 0);
    EXPECT_GT(scalar(cold[name], "package_load_time"), 0);
    EXPECT_LE(scalar(cold[name], "max_abs_diff"), 1e-4);
    EXPECT_NE(series(cold[name], "latency"), nullptr);
    EXPECT_NE(info_of(cold[name], "compiler").find("AOTInductor package (mode 'default')"), std::string::npos);
    EXPECT_NE(
        (last.out + last.err).find("compiling the AOTInductor package of aot_py (mode default, input Float[8, 64]"),
        std::string::npos)
        << "the console says what it compiles: " << last.out << last.err;

    auto warm = run({"--compile-modes", "default"}, 0);
    ASSERT_EQ(warm[name].status, "success") << warm[name].reason << last.err;
    EXPECT_EQ(info_of(warm[name], "compile_cache"), "hit: " + package);
    EXPECT_TRUE(std::isnan(scalar(warm[name], "compile_time"))) << "compile_time is a miss's";
    EXPECT_GT(scalar(warm[name], "package_load_time"), 0);
    EXPECT_LE(scalar(warm[name], "max_abs_diff"), 1e-4);
    EXPECT_EQ((last.out + last.err).find("compiling the AOTInductor package"), std::string::npos);

    // --compile-cache cold: a package compiled from nothing into the scenario's fresh
    // cache folder, every time, however warm benchhost's cache is; that one is left as it
    // was, and serves the next warm run.
    const fs::path temp = work / "tmp";
    fs::create_directories(temp);
    env.push_back("TMPDIR=" + temp.string());
    for (int i = 0; i < 2; ++i) {
        auto fresh = run({"--compile-modes", "default", "--compile-cache", "cold"}, 0);
        ASSERT_EQ(fresh[name].status, "success") << fresh[name].reason << last.err;
        const std::string cold_miss = info_of(fresh[name], "compile_cache");
        EXPECT_TRUE(cold_miss.starts_with("miss: " + (temp / "benchhost-compile-cache-").string()))
            << "cold run " << i + 1 << ": " << cold_miss;
        EXPECT_GT(scalar(fresh[name], "compile_time"), 0);
        EXPECT_EQ(info_of(fresh[name], "compile_caches").rfind("cold: ", 0), 0u);
    }
    EXPECT_TRUE(fs::is_regular_file(package)) << package;
    auto again = run({"--compile-modes", "default"}, 0);
    ASSERT_EQ(again[name].status, "success") << again[name].reason << last.err;
    EXPECT_EQ(info_of(again[name], "compile_cache"), "hit: " + package);
}

TEST_F(PythonPluginsTest, WhatTorchCompileDidIsCountedAndARecompileInTheSamplesIsNamed) {
    // The shipped compile_probe plugin: first without a graph break and with one input
    // shape (no break, no recompile), then with a deliberate graph break and a second
    // input width that the timed calls alternate with, under static shapes: a recompile
    // inside the samples, counted and warned about with the guard that failed.
    add_compile_probe();
    env = {"BENCHHOST_CACHE_DIR=" + (work / "cache").string()};
    const std::string name =
        "compile_probe[variant=compiled,batch_size=1,dtype=float32,device=cpu,threads=0,compile_mode=torch-compile]";
    const std::vector<std::string> plan = {"--variants",    "compiled", "--compile-modes",
                                           "torch-compile", "--param",  "hidden=32"};

    std::vector<std::string> args = plan;
    auto plain = run(args, 0);
    ASSERT_EQ(plain[name].status, "success") << plain[name].reason << last.err;
    EXPECT_EQ(scalar(plain[name], "graph_breaks"), 0);
    EXPECT_EQ(scalar(plain[name], "unique_graphs"), 1);
    EXPECT_GE(scalar(plain[name], "compiles"), 1);
    EXPECT_EQ(scalar(plain[name], "recompiles"), 0);
    EXPECT_GT(scalar(plain[name], "inductor_compile_time"), 0);
    EXPECT_EQ(info_of(plain[name], "graph_break_reasons"), "");
    EXPECT_EQ(info_of(plain[name], "recompile_reasons"), "");
    EXPECT_NE(info_of(plain[name], "fx_graph_cache"), "") << "the FX graph cache's outcome is recorded";
    EXPECT_NE(info_of(plain[name], "compiler").find("dynamic shapes automatic"), std::string::npos)
        << info_of(plain[name], "compiler");
    EXPECT_EQ(warnings_of(plain[name]).find("compiled again"), std::string::npos) << warnings_of(plain[name]);

    args = plan;
    args.insert(args.end(), {"--param", "graph_breaks=1", "--param", "sizes=16,24", "--param", "dynamic=static"});
    auto broken = run(args, 0);
    ASSERT_EQ(broken[name].status, "success") << broken[name].reason << last.err;
    EXPECT_EQ(scalar(broken[name], "graph_breaks"), 1);
    EXPECT_EQ(scalar(broken[name], "unique_graphs"), 2);  // before and after the break
    EXPECT_NE(info_of(broken[name], "graph_break_reasons").find("Tensor.item()"), std::string::npos)
        << info_of(broken[name], "graph_break_reasons");
    EXPECT_EQ(scalar(broken[name], "recompiles"), 1);  // the frame before the break, for width 24
    const std::string said = warnings_of(broken[name]);
    EXPECT_NE(said.find("torch.compile compiled again after the first call"), std::string::npos) << said;
    EXPECT_NE(said.find("size mismatch at index 1. expected 16, actual 24"), std::string::npos)
        << "the guard that failed is named: " << said;
    EXPECT_NE(info_of(broken[name], "recompile_reasons").find("size mismatch at index 1. expected 16, actual 24"),
              std::string::npos)
        << "and kept for compare and history check: " << info_of(broken[name], "recompile_reasons");
    EXPECT_NE(info_of(broken[name], "compiler").find("dynamic shapes static"), std::string::npos)
        << info_of(broken[name], "compiler");
}

TEST_F(PythonPluginsTest, ARecompileInsideTheTimedSamplesIsMarkedAndDiscardedOnRequest) {
    // compile_probe changes its input's width at its 6th timed call (change_at=6) under
    // static shapes: TorchDynamo's guard on the width fails and the model is compiled
    // again in the middle of the samples. With --cache cold each sample is one call, so
    // after 2 warm-up calls the compile falls in sample 5 of 12: the worker marks that
    // sample, names the guard, and with --discard-recompiled drops exactly it.
    add_compile_probe();
    env = {"BENCHHOST_CACHE_DIR=" + (work / "cache").string()};
    const std::string name =
        "compile_probe[variant=compiled,batch_size=1,dtype=float32,device=cpu,threads=0,compile_mode=torch-compile]";
    const std::vector<std::string> plan = {"--variants",
                                           "compiled",
                                           "--compile-modes",
                                           "torch-compile",
                                           "--param",
                                           "hidden=32",
                                           "--param",
                                           "sizes=16,24",
                                           "--param",
                                           "dynamic=static",
                                           "--param",
                                           "change_at=6",
                                           "--cache",
                                           "cold",
                                           "--warmup-iterations",
                                           "2",
                                           "--measurement-iterations",
                                           "12"};

    auto kept = run(plan, 0);
    ASSERT_EQ(kept[name].status, "success") << kept[name].reason << last.err;
    EXPECT_EQ(scalar(kept[name], "recompiles"), 1);
    EXPECT_EQ(scalar(kept[name], "recompiled_samples"), 1);
    EXPECT_TRUE(std::isnan(scalar(kept[name], "discarded_recompiled")));
    const rapidjson::Value* samples = series(kept[name], "latency");
    ASSERT_NE(samples, nullptr);
    ASSERT_EQ(samples->Size(), 12u);
    // The marked sample holds the compile: the slowest by far.
    std::vector<double> values;
    for (const auto& v : samples->GetArray()) values.push_back(v.GetDouble());
    EXPECT_EQ(std::max_element(values.begin(), values.end()) - values.begin(), 4) << last.err;
    EXPECT_EQ(info_of(kept[name], "compiled_samples"), "latency: 4");  // its index in the report's samples
    const std::string said = warnings_of(kept[name]);
    EXPECT_NE(said.find("latency: sample 5 of 12 contained a compile (torch.compile compile "), std::string::npos)
        << said;
    EXPECT_NE(said.find("size mismatch at index 1. expected 16, actual 24); --discard-recompiled drops them"),
              std::string::npos)
        << "the guard that failed is named: " << said;

    std::vector<std::string> args = plan;
    args.push_back("--discard-recompiled");
    auto dropped = run(args, 0);
    ASSERT_EQ(dropped[name].status, "success") << dropped[name].reason << last.err;
    EXPECT_TRUE((*dropped[name].report)["metadata"]["config"]["discard_recompiled"].GetBool());
    EXPECT_EQ(scalar(dropped[name], "recompiled_samples"), 1);
    EXPECT_EQ(scalar(dropped[name], "discarded_recompiled"), 1);
    ASSERT_NE(series(dropped[name], "latency"), nullptr);
    EXPECT_EQ(series(dropped[name], "latency")->Size(), 11u);  // 12 taken, the one with the compile dropped
    EXPECT_EQ(info_of(dropped[name], "compiled_samples"), "latency: dropped 4 (as measured)");
    const std::string discarded = warnings_of(dropped[name]);
    EXPECT_NE(discarded.find("latency: 1 of 12 samples discarded (--discard-recompiled): a compile ran during them "
                             "(torch.compile compile "),
              std::string::npos)
        << discarded;
    EXPECT_NE(discarded.find("size mismatch at index 1. expected 16, actual 24"), std::string::npos) << discarded;
}

TEST_F(PythonPluginsTest, ColdCompileCachesMissEveryTimeAndWarmOnesHitOnTheSecondRun) {
    // compile_probe without freezing (whose oneDNN weights Inductor's caches bypass):
    // the first run fills benchhost's cache folder, the second is served from it; under
    // --compile-cache cold each scenario gets fresh, empty caches, removed after it, so
    // each compile misses however warm the cache folder is, and leaves it as it was.
    add_compile_probe();
    const fs::path cache = work / "cache", temp = work / "tmp";
    fs::create_directories(temp);
    env = {"BENCHHOST_CACHE_DIR=" + cache.string(), "TMPDIR=" + temp.string()};
    const std::string name =
        "compile_probe[variant=compiled,batch_size=1,dtype=float32,device=cpu,threads=0,compile_mode=torch-compile]";
    const auto files_in = [](const fs::path& dir) {
        std::size_t n = 0;
        if (fs::exists(dir))
            for ([[maybe_unused]] const auto& entry : fs::recursive_directory_iterator(dir)) ++n;
        return n;
    };
    const std::vector<std::string> plan = {"--variants", "compiled",  "--compile-modes", "torch-compile",
                                           "--param",    "hidden=32", "--param",         "freezing=0"};
    std::vector<std::string> cold = plan;
    cold.insert(cold.end(), {"--compile-cache", "cold"});

    auto first = run(plan, 0);
    ASSERT_EQ(first[name].status, "success") << first[name].reason << last.err;
    EXPECT_EQ(info_of(first[name], "fx_graph_cache"), "miss");
    EXPECT_EQ(info_of(first[name], "compile_caches").rfind("warm: ", 0), 0u) << info_of(first[name], "compile_caches");
    auto second = run(plan, 0);
    ASSERT_EQ(second[name].status, "success") << second[name].reason << last.err;
    EXPECT_EQ(info_of(second[name], "fx_graph_cache"), "hit");

    const std::size_t warm_files = files_in(cache);
    for (int i = 0; i < 2; ++i) {
        auto fresh = run(cold, 0);
        ASSERT_EQ(fresh[name].status, "success") << fresh[name].reason << last.err;
        EXPECT_EQ(info_of(fresh[name], "fx_graph_cache"), "miss") << "cold run " << i + 1;
        EXPECT_EQ(info_of(fresh[name], "compile_caches").rfind("cold: fresh, empty compile caches", 0), 0u)
            << info_of(fresh[name], "compile_caches");
        EXPECT_STREQ((*fresh[name].report)["metadata"]["config"]["compile_cache"].GetString(), "cold");
        EXPECT_EQ(info_of(fresh[name], "compile_cache_dir").rfind((temp / "benchhost-compile-cache-").string(), 0), 0u)
            << info_of(fresh[name], "compile_cache_dir");
    }
    EXPECT_EQ(files_in(cache), warm_files) << "the cold runs left benchhost's cache folder as it was";
    for (const auto& entry : fs::directory_iterator(temp))
        EXPECT_NE(entry.path().filename().string().rfind("benchhost-compile-cache-", 0), 0u)
            << "the fresh caches are removed after each scenario: " << entry.path();
}

/// A plugin that records the counts benchhost.torch records (here without torch, so that
/// a test of it is fast): `breaks` graph breaks, with their reason where there is one.
std::string plugin_with_graph_breaks(int breaks) {
    return R"(BENCHHOST_PLUGIN = {"name": "breaks_py", "version": "1.0.0"}
BREAKS = )" +
           std::to_string(breaks) +
           R"(


def run_benchmark(ctx):
    ctx.record_scalar("graph_breaks", BREAKS, "count")
    ctx.record_scalar("unique_graphs", BREAKS + 1, "count")
    if BREAKS:
        ctx.set_info("graph_break_reasons", "Unsupported Tensor.item() call with capture_scalar_outputs=False")
    ctx.measure("latency", lambda: sum(range(1000)))
)";
}

TEST_F(PythonPluginsTest, AGraphBreakAddedBetweenTwoFoldersFailsAbNamingItsReason) {
    // The same plugin before and after a change that adds a graph break, as its counts
    // say: ab fails --fail-on-regression on the count at its first look, naming the
    // break's reason, whatever the latency beside it says.
    write_file(work / "base/performance/breaks_py.py", plugin_with_graph_breaks(0));
    write_file(work / "new/performance/breaks_py.py", plugin_with_graph_breaks(1));
    const fs::path out = work / "ab";
    const ProcessResult ab =
        run_host({"ab", "--base", (work / "base").string(), "--new", (work / "new").string(), "--output-dir",
                  out.string(), "--warmup-iterations", "1", "--measurement-iterations", "5", "--monitor-interval", "0",
                  "--max-rounds", "6", "--fail-on-regression"},
                 work.path());
    EXPECT_EQ(ab.exit_code, 1) << ab.out << ab.err;
    const auto json = read_json(out / "comparison.json");
    std::map<std::string, const rapidjson::Value*> rows;
    for (const auto& row : json["rows"].GetArray()) rows[row["series"].GetString()] = &row;
    ASSERT_EQ(rows.count("graph_breaks"), 1u) << read_file(out / "comparison.json");
    const rapidjson::Value& breaks = *rows["graph_breaks"];
    EXPECT_STREQ(breaks["evidence"].GetString(), "count");
    EXPECT_STREQ(breaks["verdict"].GetString(), "slower");
    EXPECT_NE(std::string(breaks["note"].GetString()).find("graph_breaks 0 -> 1: Unsupported Tensor.item() call"),
              std::string::npos)
        << breaks["note"].GetString();
    EXPECT_STREQ((*rows["unique_graphs"])["verdict"].GetString(), "slower");
    EXPECT_STREQ(json["rows"][0]["series"].GetString(), "graph_breaks") << "a changed count leads the comparison";
    EXPECT_NE(read_file(out / "comparison.md").find("Unsupported Tensor.item() call"), std::string::npos);
}

TEST_F(PythonPluginsTest, WithRoundsTheSamplesACompileRanInAreThoseOfEveryRound) {
    // A compile (recorded as benchhost.torch records one, here without torch) in the
    // second timed call of every round: each round is a worker of its own, and the pooled
    // scenario lists both rounds' samples, as indices into its pooled measurements.
    add("performance/compiles_py.py", R"(import time

import benchhost

BENCHHOST_PLUGIN = {"name": "compiles_py", "version": "1.0.0"}
calls = 0


def run_benchmark(ctx):
    def call():
        global calls
        calls += 1
        start = benchhost._clock_ns()
        time.sleep(0.02)  # long enough for a sample of one call
        if calls == 3:  # after the warm-up call, the second timed one
            ctx.record_compile(start, benchhost._clock_ns(), "a compile in the call")
    ctx.measure("latency", call)
)");
    for (const bool discard : {false, true}) {
        std::vector<std::string> args = {"--warmup-iterations", "1", "--measurement-iterations", "4", "--rounds", "2"};
        if (discard) args.push_back("--discard-recompiled");
        auto s = run(args, 0);
        ASSERT_EQ(s.size(), 1u) << last.out << last.err;
        const Scenario& scenario = s.begin()->second;
        ASSERT_EQ(scenario.status, "success") << scenario.reason;
        ASSERT_NE(series(scenario, "latency"), nullptr);
        EXPECT_EQ(series(scenario, "latency")->Size(), discard ? 6u : 8u);
        EXPECT_EQ(info_of(scenario, "compiled_samples"),
                  discard ? "latency: dropped 1, 5 (as measured)" : "latency: 1, 5")
            << warnings_of(scenario);
        EXPECT_EQ(scalar(scenario, "recompiled_samples"), 2);
        if (discard) {
            EXPECT_EQ(scalar(scenario, "discarded_recompiled"), 2);
        }
    }
}

TEST_F(PythonPluginsTest, TheDynamicAxisShowsWhatEachSettingCostsInCompiles) {
    // compile_probe over three input widths, one scenario per dynamic setting: static
    // compiles each new width again (the guard on the width names it), dynamic compiles
    // once for all, automatic once more, at the first width that changed.
    add_compile_probe();
    env = {"BENCHHOST_CACHE_DIR=" + (work / "cache").string()};
    auto s = run({"--variants", "compiled", "--compile-modes", "torch-compile", "--axis",
                  "dynamic=static,dynamic,automatic", "--param", "sizes=16,24,32", "--param", "hidden=64"},
                 0);
    const std::string base =
        "compile_probe[variant=compiled,batch_size=1,dtype=float32,device=cpu,threads=0,compile_mode=torch-compile,"
        "dynamic=";
    for (const auto& [setting, recompiles] :
         std::vector<std::pair<std::string, double>>{{"static", 2}, {"dynamic", 0}, {"automatic", 1}}) {
        const Scenario& scenario = s[base + setting + "]"];
        ASSERT_EQ(scenario.status, "success") << setting << ": " << scenario.reason << last.err;
        EXPECT_EQ(scalar(scenario, "compiles"), 1) << setting;
        EXPECT_EQ(scalar(scenario, "recompiles"), recompiles) << setting;
        EXPECT_NE(std::string((*scenario.report)["info"]["compiler"].GetString()).find("dynamic shapes " + setting),
                  std::string::npos)
            << setting;
    }
}

TEST_F(PythonPluginsTest, TheTorchHelperAppliesAndRecordsTheBackendSettings) {
    // --param deterministic (and the CUDA-only cudnn_benchmark, tf32) as the C++ layer's
    // select_device takes them: applied, recorded, a CUDA setting on the CPU a warning.
    add("unit/settings_py.py", R"(import torch
from benchhost.torch import select

def run_benchmark(ctx):
    select(ctx)
    ctx.record_scalar("deterministic", float(torch.are_deterministic_algorithms_enabled()))
)");
    auto s = run({"--param", "deterministic=1", "--param", "tf32=0"}, 0);
    ASSERT_EQ(s["settings_py"].status, "success") << s["settings_py"].reason << last.err;
    EXPECT_EQ(scalar(s["settings_py"], "deterministic"), 1.0);
    const auto& report = *s["settings_py"].report;
    EXPECT_STREQ(report["info"]["deterministic_algorithms"].GetString(), "on");
    ASSERT_EQ(report["warnings"].Size(), 1u);
    EXPECT_STREQ(report["warnings"][0].GetString(), "--param tf32 applies to CUDA devices: not used on cpu");

    EXPECT_STREQ(report["info"]["matmul_precision"].GetString(), "highest");  // recorded, set or not

    auto medium = run({"--param", "matmul_precision=medium"}, 0);
    EXPECT_STREQ((*medium["settings_py"].report)["info"]["matmul_precision"].GetString(), "medium");
    auto low = run({"--param", "matmul_precision=low"}, 1);
    EXPECT_NE(low["settings_py"].reason.find("--param matmul_precision must be highest, high or medium, got 'low'"),
              std::string::npos)
        << low["settings_py"].reason;

    auto bad = run({"--param", "deterministic=maybe"}, 1);
    EXPECT_EQ(bad["settings_py"].status, "failed");
    EXPECT_NE(bad["settings_py"].reason.find("--param deterministic=maybe: a boolean (true or false) is expected"),
              std::string::npos)
        << bad["settings_py"].reason;
}

TEST_F(PythonPluginsTest, TheJaxHelperRunsInAWorker) {
    // benchhost.jax in a worker (its own checks, with the stand-in Context:
    // tests/python/jax_helper_test.py): the embedded module, XLA_PYTHON_CLIENT_PREALLOCATE
    // false before the plugin imports jax, eager and jax.jit checked against it, the
    // compilation timed apart and kept in benchhost's cache folder (written by one worker,
    // a hit in the next), --threads as XLA's CPU thread pool, a user's XLA_ variable kept.
    add("performance/tiny_jax.py", R"(import importlib.util
import os

AT_IMPORT = os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE", "unset")

BENCHHOST_PLUGIN = {"axes": ["variant"], "variants": ["eager", "compiled"]}


def run_benchmark(ctx):
    try:
        import jax.numpy as jnp
    except ImportError as error:
        ctx.skip(f"jax cannot be imported: {error}")
    from benchhost.jax import model_variant, record_memory, record_work, select
    assert importlib.util.find_spec("benchhost.jax").origin == "<benchhost.jax>"
    ctx.set_info("preallocate_at_import", AT_IMPORT)
    device, dtype = select(ctx)
    p = jnp.full((64, 64), 0.01, dtype)
    x = jnp.ones((8, 64), dtype)
    forward = model_variant(ctx, lambda p, x: jnp.tanh(x @ p), p, (x,))
    record_work(ctx, ctx.measure("latency", lambda: forward(x)))
    record_memory(ctx, device)
)");
    env = {"BENCHHOST_CACHE_DIR=" + (work / "cache").string()};
    auto s = run({"--variants", "eager,compiled", "--threads", "1"}, 0);
    if (s["tiny_jax[variant=eager]"].status == "skipped") GTEST_SKIP() << s["tiny_jax[variant=eager]"].reason;
    const auto info = [&](const std::string& name, const char* key) -> std::string {
        const auto& i = (*s[name].report)["info"];
        return i.HasMember(key) ? i[key].GetString() : "";
    };
    for (const char* name : {"tiny_jax[variant=eager]", "tiny_jax[variant=compiled]"}) {
        ASSERT_EQ(s[name].status, "success") << name << ": " << s[name].reason << last.err;
        EXPECT_EQ(info(name, "preallocate_at_import"), "false") << name;
        EXPECT_EQ(info(name, "xla_python_client_preallocate"), "false") << name;
        EXPECT_EQ(info(name, "xla_cpu_threads"), "1 (PJRT_NPROC=1, --xla_cpu_multi_thread_eigen=false)") << name;
        EXPECT_EQ(info(name, "compile_cache_dir"), (work / "cache/jax").string()) << name;
        EXPECT_EQ(scalar(s[name], "flops_per_forward"), 2 * 8 * 64 * 64) << name;  // XLA counts tanh apart
        EXPECT_NE(series(s[name], "gflops"), nullptr) << name;
        EXPECT_GT(scalar(s[name], "first_call"), 0) << name;
    }
    const Scenario& compiled = s["tiny_jax[variant=compiled]"];
    EXPECT_GT(scalar(compiled, "lowering_s"), 0);
    EXPECT_GT(scalar(compiled, "compile_s"), 0);
    EXPECT_EQ(unit(compiled, "compile_s"), "s");
    EXPECT_LE(scalar(compiled, "max_abs_diff"), 1e-4);
    EXPECT_EQ(info("tiny_jax[variant=compiled]", "compile_cache"), "miss: written");
    EXPECT_TRUE(std::isnan(scalar(s["tiny_jax[variant=eager]"], "compile_s")));
    // Nothing compiled again in the timed calls: recompiles 0, the compiled variant's alone.
    EXPECT_EQ(scalar(compiled, "recompiles"), 0);
    EXPECT_EQ(unit(compiled, "recompiles"), "count");
    EXPECT_TRUE(std::isnan(scalar(s["tiny_jax[variant=eager]"], "recompiles")));

    // The next worker loads it from the cache (with the same XLA flags: they are in the
    // cache's key); the user's XLA_PYTHON_CLIENT_PREALLOCATE stands.
    env.push_back("XLA_PYTHON_CLIENT_PREALLOCATE=true");
    s = run({"--variants", "compiled", "--threads", "1"}, 0);
    ASSERT_EQ(s["tiny_jax[variant=compiled]"].status, "success") << s["tiny_jax[variant=compiled]"].reason << last.err;
    EXPECT_EQ(info("tiny_jax[variant=compiled]", "compile_cache"), "hit");
    EXPECT_EQ(info("tiny_jax[variant=compiled]", "xla_python_client_preallocate"), "true");
}

TEST_F(PythonPluginsTest, ASampleOfASlowJittedFunctionLastsAsLongAsTheFunction) {
    // JAX dispatches asynchronously: a call of a jitted function returns long before its
    // work is done. Timed by the worker's C++ timer, a sample of benchhost.jax's variant
    // lasts as long as the work (timed to block_until_ready), in both variants.
    add("performance/slow_jax.py", R"(import time

BENCHHOST_PLUGIN = {"axes": ["variant"], "variants": ["eager", "compiled"]}


def chain(p, x):
    import jax.numpy as jnp
    for _ in range(4):  # 4 products of 1024 x 1024 matrices
        x = jnp.tanh(x @ p) * 0.5
    return x


def run_benchmark(ctx):
    try:
        import jax
    except ImportError as error:
        ctx.skip(f"jax cannot be imported: {error}")
    from benchhost.jax import model_variant, select
    select(ctx)
    p = jax.random.normal(jax.random.key(1), (1024, 1024)) / 32
    x = jax.random.normal(jax.random.key(2), (1024, 1024))
    jitted = jax.jit(chain)
    jax.block_until_ready(jitted(p, x))
    work, dispatch = [], []

    def time_work():
        for _ in range(3):
            start = time.perf_counter()
            out = jitted(p, x)
            dispatch.append(time.perf_counter() - start)
            jax.block_until_ready(out)
            work.append(time.perf_counter() - start)

    time_work()
    forward = model_variant(ctx, chain, p, (x,))
    ctx.measure("latency", lambda: forward(x))
    time_work()  # before and after: the least of six, less at the mercy of other load
    ctx.record_scalar("work", min(work) * 1e3, "ms")
    # The least too: one call preempted under load (a 10 ms time slice) proves nothing,
    # one that returned early proves the dispatch is asynchronous.
    ctx.record_scalar("dispatch", min(dispatch) * 1e3, "ms")
)");
    auto s = run({"--variants", "eager,compiled"}, 0);
    if (s["slow_jax[variant=eager]"].status == "skipped") GTEST_SKIP() << s["slow_jax[variant=eager]"].reason;
    for (const char* name : {"slow_jax[variant=eager]", "slow_jax[variant=compiled]"}) {
        ASSERT_EQ(s[name].status, "success") << name << ": " << s[name].reason << last.err;
        const double work_ms = scalar(s[name], "work");
        // The test means something: a plain call returned long before its work was done.
        EXPECT_LT(scalar(s[name], "dispatch"), 0.2 * work_ms) << name;
        const rapidjson::Value* latency = series(s[name], "latency");
        ASSERT_NE(latency, nullptr) << name;
        ASSERT_EQ(latency->Size(), 3u) << name;
        // As long as the work, within what other load does to either (on a loaded 2-core
        // VM, samples of 400 ms beside work timed at 735 ms): never a dispatch's length.
        for (const auto& sample : latency->GetArray())
            EXPECT_GE(sample.GetDouble(), 0.5 * work_ms) << name << ": work " << work_ms << " ms";
    }
}

TEST_F(PythonPluginsTest, TheJaxModelsRunInAWorkerWithTheirTorchTwinsWeights) {
    // The shipped JAX models, as a worker runs them: their torch models and inputs from the
    // embedded benchhost.models, converted, compiled, and their logits compared with
    // torch's (--param check_torch=1) within float32's tolerance; ResNet-50 at 32 x 32.
    for (const char* name : {"resnet50_jax", "vit_b_16_jax"})
        install_plugin(fs::path(BENCH_TEST_SOURCE_DIR) / "plugins/performance" / name / (std::string(name) + ".py"),
                       plugins, "performance");
    env = {"BENCHHOST_CACHE_DIR=" + (work / "cache").string()};
    add("performance/probe_jax.py", R"(def run_benchmark(ctx):
    try:
        import flax  # noqa: F401
        import jax  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError as error:
        ctx.skip(f"cannot be imported: {error}")
    ctx.record_scalar("imported", 1)
)");
    auto probe = run({"--include", "probe_jax"}, 0);
    if (probe["probe_jax"].status == "skipped") GTEST_SKIP() << probe["probe_jax"].reason;
    fs::remove(plugins / "performance/probe_jax.py");

    auto s = run({"--variants", "compiled", "--param", "check_torch=1", "--param", "image_size=32"}, 0);
    // The scenarios by plugin (their names carry every axis).
    const auto named = [&](const std::string& plugin) -> std::string {
        for (const auto& entry : s)
            if (entry.first.starts_with(plugin + "[variant=compiled")) return entry.first;
        ADD_FAILURE() << "no compiled scenario of " << plugin << ": " << last.out;
        return plugin;
    };
    const std::string vit = named("vit_b_16_jax"), resnet = named("resnet50_jax");
    for (const auto& [name, parameters] : {std::pair{vit, 86'567'656.0}, std::pair{resnet, 25'557'032.0}}) {
        ASSERT_EQ(s[name].status, "success") << name << ": " << s[name].reason << last.err;
        EXPECT_EQ(scalar(s[name], "parameters"), parameters) << name;
        EXPECT_LE(scalar(s[name], "torch_max_abs_diff"), 1e-3) << name;  // within 1e-4 + 1e-3 max(|logit|, RMS)
        EXPECT_GT(scalar(s[name], "compile_s"), 0) << name;
        ASSERT_NE(series(s[name], "latency"), nullptr) << name;
        const auto& info = (*s[name].report)["info"];
        EXPECT_TRUE(std::string(info["framework"].GetString()).starts_with("JAX ")) << name;
    }
    EXPECT_STREQ((*s[vit].report)["info"]["model"].GetString(), "vit_b_16");
    EXPECT_STREQ((*s[resnet].report)["info"]["model"].GetString(), "resnet50");
}

TEST_F(PythonPluginsTest, ABrokenJaxPluginFailsAlone) {
    // A JAX plugin whose import fails (a module it names does not exist) fails its own
    // scenarios, each saying why; a JAX plugin and a C++ plugin beside it run.
    add("performance/broken_jax.py", R"(import jax.numpy as jnp
import flax.no_such_module

BENCHHOST_PLUGIN = {"axes": ["variant"], "variants": ["eager", "compiled"]}


def run_benchmark(ctx):
    ctx.measure("latency", lambda: jnp.ones(4).block_until_ready())
)");
    add("performance/good_jax.py", R"(BENCHHOST_PLUGIN = {"axes": ["variant"], "variants": ["eager", "compiled"]}


def run_benchmark(ctx):
    try:
        import jax.numpy as jnp
    except ImportError as error:
        ctx.skip(f"jax cannot be imported: {error}")
    from benchhost.jax import model_variant, select
    device, dtype = select(ctx)
    p = jnp.full((16, 16), 0.1, dtype)
    x = jnp.ones((2, 16), dtype)
    forward = model_variant(ctx, lambda p, x: jnp.tanh(x @ p), p, (x,))
    ctx.measure("latency", lambda: forward(x))
)");
    install_plugin(built_plugin("performance/libmock_benchmark.so"), plugins, "performance");
    env = {"BENCHHOST_CACHE_DIR=" + (work / "cache").string()};
    auto s = run({"--enable-mock", "--variants", "eager,compiled"}, 1);
    if (s["good_jax[variant=eager]"].status == "skipped") GTEST_SKIP() << s["good_jax[variant=eager]"].reason;
    const std::string file = (plugins / "performance/broken_jax.py").string();
    for (const char* variant : {"eager", "compiled"}) {
        const Scenario& broken = s["broken_jax[variant=" + std::string(variant) + "]"];
        EXPECT_EQ(broken.status, "failed") << variant;
        EXPECT_EQ(broken.reason,
                  "raised ModuleNotFoundError: No module named 'flax.no_such_module' (" + file + ":2 in <module>)")
            << variant;
        const Scenario& good = s["good_jax[variant=" + std::string(variant) + "]"];
        EXPECT_EQ(good.status, "success") << variant << ": " << good.reason << last.err;
    }
    int mock_ran = 0, others = 0;
    for (const auto& [name, scenario] : s) {
        if (name.starts_with("broken_jax")) continue;
        ++others;
        if (name.starts_with("mock_benchmark") && scenario.status == "success") ++mock_ran;
        EXPECT_NE(scenario.status, "failed") << name << ": " << scenario.reason;
    }
    EXPECT_GT(mock_ran, 0);
    EXPECT_GT(others, 2);
}

TEST_F(PythonPluginsTest, TheMonitorsWatchAPythonScenario) {
    // The worker's monitors sample a Python scenario as a C++ one: a quarter of a
    // second of busy Python in ctx.measure, sampled every 20 ms.
    // Each call spins until it has used 25 ms of CPU: a loop of a fixed count took 4 ms
    // on a fast machine, too little for the bound below.
    add("unit/busy_py.py", R"(import time

def run_benchmark(ctx):
    def busy():
        end = time.process_time() + 0.025
        total = 0
        while time.process_time() < end:
            total += 1
        return total
    ctx.measure("latency", busy)
)");
    auto s = run({"--monitor-interval", "20", "--measurement-iterations", "10"}, 0);
    ASSERT_EQ(s["busy_py"].status, "success") << s["busy_py"].reason;
    const auto& cpu = (*s["busy_py"].report)["cpu_metrics"];
    ASSERT_TRUE(cpu["available"].GetBool());
    ASSERT_TRUE(cpu["metrics"].HasMember("cpu_utilization"));
    EXPECT_GE(cpu["metrics"]["cpu_utilization"]["count"].GetDouble(), 3);
    // The measured calls ran on the CPU: most of their time is the worker's CPU time.
    EXPECT_GT(cpu["values"]["cpu_time_measured"]["value"].GetDouble(), 0.05);
}

TEST_F(PythonPluginsTest, ThePluginGuidesPythonPluginsRun) {
    // Each ```python block of docs/plugin-guide.md whose first line is "# plugins/<path>"
    // is that file.
    const std::string guide = read_file(fs::path(BENCH_TEST_SOURCE_DIR) / "docs/plugin-guide.md");
    std::vector<std::string> files;
    for (std::size_t at = guide.find("```python\n"); at != std::string::npos; at = guide.find("```python\n", at)) {
        const std::size_t start = at + 10, end = guide.find("```\n", start);
        ASSERT_NE(end, std::string::npos);
        const std::string block = guide.substr(start, end - start);
        at = end;
        if (!block.starts_with("# plugins/")) continue;
        const std::string path = block.substr(10, block.find('\n') - 10);
        add(path, block);
        files.push_back(path);
    }
    ASSERT_GE(files.size(), 4u);
    env = {"BENCHHOST_CACHE_DIR=" + (work / "cache").string()};
    auto s = run({"--param", "size=1000"}, 0);
    ASSERT_FALSE(s.empty()) << last.err;
    for (const auto& [name, scenario] : s) EXPECT_EQ(scenario.status, "success") << name << ": " << scenario.reason;
    ASSERT_EQ(s.count("sort_py[batch_size=1]"), 1u);
    EXPECT_NE(series(s["sort_py[batch_size=1]"], "throughput"), nullptr);
    ASSERT_EQ(s.count("json_roundtrip"), 1u);
    EXPECT_NE(series(s["json_roundtrip"], "checks.roundtrip"), nullptr);
    EXPECT_EQ(unit(s["json_roundtrip"], "encode_time"), "s");  // as the guide says
    EXPECT_EQ(unit(s["json_roundtrip"], "bytes"), "");
    EXPECT_EQ(unit(s["json_roundtrip"], "benchhost.call_time"), "ms");
    // The server served, reporting its tokens; the model ran eager and compiled, checked.
    ASSERT_EQ(s.count("echo_server_py"), 1u);
    EXPECT_TRUE((*s["echo_server_py"].report)["measurements"].HasMember("time_to_first_token"));
    const std::string compiled = "mlp_py[variant=compiled,batch_size=1,dtype=float32,compile_mode=default]";
    ASSERT_EQ(s.count(compiled), 1u);
    EXPECT_GT(scalar(s[compiled], "compile_time"), 0);
    EXPECT_LE(scalar(s[compiled], "max_abs_diff"), 1e-4);
    EXPECT_EQ(s.count("mlp_py[variant=kernelized,batch_size=1,dtype=float32]"), 0u);
}

TEST_F(PythonPluginsTest, TheExampleFolderRunsTorchFromTheProjectsVenv) {
    // examples/python_plugins, as its README runs it: torch imported in the worker.
    plugins = fs::path(BENCH_TEST_SOURCE_DIR) / "examples/python_plugins";
    auto s = run({"--batch-sizes", "2", "--dtypes", "float32,bfloat16", "--param", "n=64"}, 0);
    ASSERT_EQ(s.size(), 4u) << last.err;
    for (const auto& [name, scenario] : s) {
        ASSERT_EQ(scenario.status, "success") << name << ": " << scenario.reason;
        EXPECT_NE(series(scenario, "latency"), nullptr) << name;
    }
    const Scenario& matmul = s["matmul[batch_size=2,dtype=float32]"];
    ASSERT_NE(matmul.report, nullptr);
    EXPECT_STREQ((*matmul.report)["info"]["shape"].GetString(), "[2, 64, 64] @ [2, 64, 64]");
    EXPECT_NE(series(matmul, "gflops"), nullptr);
}

TEST_F(PythonPluginsTest, AVenvOfAnotherPythonFailsTheScenarioSayingWhich) {
    // A virtual environment that says it is Python 3.9: its packages could not load in
    // the loader's Python. (Its python is ours, so that discovery still reads the file.)
    add("unit/plain_py.py", "def benchmark_a():\n    return {}\n");
    const fs::path venv = work / "venv39";
    fs::create_directories(venv / "bin");
    fs::create_symlink(fs::canonical(fs::path(BENCH_TEST_SOURCE_DIR) / ".venv/bin/python"), venv / "bin/python");
    write_file(venv / "pyvenv.cfg", "home = /usr/bin\nversion = 3.9.2\n");
    fs::remove_all(output);
    const ProcessResult result = run_process({benchhost_binary().string(), "run", "--plugins-dir", plugins.string(),
                                              "--output-dir", output.string(), "--measurement-iterations", "1"},
                                             work.path(), {"BENCHHOST_PYTHON=" + (venv / "bin/python").string()});
    EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
    const std::string expected = (venv / "bin/python").string() +
                                 " belongs to a virtual environment of Python 3.9.2 (" +
                                 (venv / "pyvenv.cfg").string() + "), but the Python loader embeds Python 3.";
    EXPECT_NE(result.err.find(expected), std::string::npos) << result.err;
}

}  // namespace
