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
    /// function)", "called sys.exit(3) (file:line in function)", ... (the traceback is in the scenario's log).
    char reason[2048]{};
};

/// Runs `function` of the Python plugin `plugin` (a .py file, or a package's folder) in
/// this process's interpreter, started on the first call with the environment of
/// `python` (a virtual environment's bin/python: its site-packages). `function` takes the
/// Context (`def run_benchmark(ctx)`), or nothing, returning a dict of numbers (called
/// warmup + measurement iterations times). Never throws.
using PythonRunFunction = void(Context& ctx, const char* plugin, const char* function, const char* python,
                               PythonOutcome* outcome);

/// For a worker's parent that loads ahead what workers forked from it would import
/// (the host's worker server): starts the interpreter as bench_python_run does, with the
/// environment of `python`, and imports each of `modules` (comma-separated: "torch,torchvision").
/// Returns 0; else nonzero, with why in `error` (`error_size` bytes, ended by a 0).
/// The calling thread keeps the GIL. Never throws.
using PythonPreloadFunction = int(const char* python, const char* modules, char* error, std::size_t error_size);

/// Around fork() in a process whose interpreter runs (bench_python_preload), on the
/// thread that holds the GIL: `when` 0 before the fork, 1 after it in the parent, 2 in
/// the child (PyOS_BeforeFork, PyOS_AfterFork_Parent, PyOS_AfterFork_Child). Does
/// nothing where no interpreter runs.
using PythonForkFunction = void(int when);

inline constexpr char python_loader_library[] = "libbench_python.so";
inline constexpr char python_run_symbol[] = "bench_python_run";
inline constexpr char python_preload_symbol[] = "bench_python_preload";
inline constexpr char python_fork_symbol[] = "bench_python_fork";

}  // namespace bench
