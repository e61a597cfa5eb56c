// Python plugins: how a worker runs a benchmark written in Python. The worker loads the
// loader library, libbench_python.so (it embeds CPython and holds the `benchhost`
// module that plugins import), only when the scenario's plugin is Python, and calls
// bench_python_run. The host itself never links Python.
#pragma once

#include <cstddef>

namespace bench {

class Context;

/// How a Python benchmark ended, as bench_python_run reports it.
struct PythonOutcome {
    enum Status : int { returned = 0, skipped = 1, failed = 2 };
    int status = returned;
    /// skipped: the reason given to ctx.skip; failed: "raised ValueError: ... (file:line in
    /// function)", "called sys.exit(3)", ... (the traceback is in the scenario's log).
    char reason[2048]{};
};

/// Runs `function` of the Python plugin `plugin` (a .py file, or a package's folder) in
/// this process's interpreter, started on the first call with the environment of
/// `python` (a virtual environment's bin/python: its site-packages). `function` takes the
/// Context (`def run_benchmark(ctx)`), or nothing, returning a dict of numbers (called
/// warmup + measurement iterations times). Never throws.
using PythonRunFunction = void(Context& ctx, const char* plugin, const char* function, const char* python,
                               PythonOutcome* outcome);

inline constexpr char python_loader_library[] = "libbench_python.so";
inline constexpr char python_run_symbol[] = "bench_python_run";

}  // namespace bench
