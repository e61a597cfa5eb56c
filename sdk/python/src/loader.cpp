// The loader of Python plugins (<bench/python_plugin.hpp>): starts CPython in the worker
// once, with the plugins' virtual environment, and runs a benchmark function through
// benchhost_support.py (carried in this library).
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <pybind11/embed.h>

#include <bench/context.hpp>
#include <bench/export.hpp>
#include <bench/python_plugin.hpp>
#include <bench/speed_reference.hpp>
#include <bench_embedded/benchhost_distributed_py.hpp>
#include <bench_embedded/benchhost_jax_py.hpp>
#include <bench_embedded/benchhost_models_py.hpp>
#include <bench_embedded/benchhost_support_py.hpp>
#include <bench_embedded/benchhost_torch_py.hpp>

namespace py = pybind11;

namespace {

void set_reason(bench::PythonOutcome& outcome, int status, const std::string& reason) {
    outcome.status = status;
    const std::size_t n = std::min(reason.size(), sizeof outcome.reason - 1);
    std::memcpy(outcome.reason, reason.data(), n);
    outcome.reason[n] = '\0';
}

/// Empty when `python`'s virtual environment (pyvenv.cfg beside it or one folder up) is
/// of the Python this library embeds, or says nothing of its version; else what is wrong:
/// its site-packages would be another Python's, whose extension modules cannot load here.
std::string venv_version_problem(const std::string& python) {
    namespace fs = std::filesystem;
    const fs::path bin = fs::path(python).parent_path();
    for (const fs::path& cfg : {bin / "pyvenv.cfg", bin.parent_path() / "pyvenv.cfg"}) {
        std::ifstream in(cfg);
        if (!in) continue;
        const std::string embedded = std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION);
        for (std::string line; std::getline(in, line);) {
            const std::size_t equals = line.find('=');
            if (equals == std::string::npos) continue;
            std::string key = line.substr(0, equals), value = line.substr(equals + 1);
            key.erase(key.find_last_not_of(' ') + 1);
            value.erase(0, value.find_first_not_of(' '));
            if (key != "version" && key != "version_info") continue;
            if (value == embedded || value.rfind(embedded + ".", 0) == 0) return {};
            return python + " belongs to a virtual environment of Python " + value + " (" + cfg.string() +
                   "), but the Python loader embeds Python " + embedded + ": set BENCHHOST_PYTHON to a Python " +
                   embedded + ", or build benchhost with that Python";
        }
        return {};
    }
    return {};
}

/// Starts the interpreter, once a process: the environment of `python` (a virtual
/// environment's bin/python: its pyvenv.cfg and site-packages), no bytecode written
/// beside the plugins, no user site, the worker's signal handlers left alone.
void start_interpreter(const char* python, const char* plugin) {
    if (Py_IsInitialized() != 0) return;
    if (const std::string problem = venv_version_problem(python); !problem.empty()) throw std::runtime_error(problem);
    // Extension modules (the standard library's, numpy's, torch._C) look for the C API in
    // the global namespace, and this library was loaded with RTLD_LOCAL: make libpython's
    // symbols global.
    if (dlopen(BENCH_LIBPYTHON, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD) == nullptr)
        throw std::runtime_error(std::string("cannot make libpython's symbols global: ") + dlerror());
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.install_signal_handlers = 0;
    config.write_bytecode = 0;
    config.user_site_directory = 0;
    config.safe_path = 1;
    const PyStatus status = PyConfig_SetBytesString(&config, &config.program_name, python);
    if (PyStatus_Exception(status) != 0) {
        PyConfig_Clear(&config);
        throw std::runtime_error(std::string("cannot configure Python with ") + python);
    }
    const char* argv[] = {plugin};
    py::initialize_interpreter(&config, 1, argv, /*add_program_dir_to_path=*/false);
}

/// sys.argv as a plugin's: [plugin], also in a worker forked from a parent that started
/// the interpreter for another (bench_python_preload). The GIL is held.
void set_argv(const char* plugin) {
    py::list argv;
    argv.append(plugin);
    py::module_::import("sys").attr("argv") = argv;
}

/// benchhost_support.py as a module of its own, made once. Never released: the
/// interpreter is never finalized (a plugin's threads would keep the worker waiting).
py::object support_module() {
    static py::object* module = nullptr;
    if (module != nullptr) return *module;
    py::object made = py::module_::import("types").attr("ModuleType")("benchhost_support");
    made.attr("__file__") = "<benchhost>";
    py::dict embedded;
    embedded["benchhost.torch"] = benchhost_torch_py;
    embedded["benchhost.jax"] = benchhost_jax_py;
    embedded["benchhost.distributed"] = benchhost_distributed_py;
    embedded["benchhost.models"] = benchhost_models_py;
    made.attr("EMBEDDED") = embedded;
    const py::module_ builtins = py::module_::import("builtins");
    builtins.attr("exec")(builtins.attr("compile")(benchhost_support_py, "<benchhost>", "exec"), made.attr("__dict__"));
    module = new py::object(std::move(made));
    return *module;
}

std::string text_of(const py::handle& value) { return py::str(value).cast<std::string>(); }

}  // namespace

extern "C" BENCH_EXPORT void bench_python_run(bench::Context& ctx, const char* plugin, const char* function,
                                              const char* python, bench::PythonOutcome* outcome) {
    try {
        start_interpreter(python, plugin);
        py::gil_scoped_acquire gil;
        set_argv(plugin);
        py::object support = support_module();
        // The machine's speed is read off Python code in a Python worker: the states slow
        // the interpreter far more than the SDK's C++ loop (bench/speed_reference.hpp).
        static const bool reference_set = [&support] {
            bench::set_speed_reference(
                [reference = new py::object(support.attr("speed_reference"))] {
                    py::gil_scoped_acquire held;
                    try {
                        return (*reference)().cast<double>();
                    } catch (const py::error_already_set&) {
                        return std::nan("");  // no reading: the comparison does without it
                    }
                },
                "python");
            return true;
        }();
        (void)reference_set;
        py::module_ benchhost = py::module_::import("benchhost");
        try {
            support.attr("run")(py::cast(&ctx, py::return_value_policy::reference), plugin, function);
            outcome->status = bench::PythonOutcome::returned;
        } catch (py::error_already_set& e) {
            if (e.matches(benchhost.attr("SkipScenario"))) {
                set_reason(*outcome, bench::PythonOutcome::skipped, text_of(e.value()));
            } else if (e.matches(PyExc_SystemExit)) {
                const py::object code = e.value().attr("code");
                if (code.is_none() || (py::isinstance<py::int_>(code) && code.cast<long long>() == 0))
                    outcome->status = bench::PythonOutcome::returned;
                else
                    set_reason(*outcome, bench::PythonOutcome::failed,
                               "called sys.exit(" + text_of(py::repr(code)) + ")");
            } else if (e.matches(support.attr("Failure"))) {
                set_reason(*outcome, bench::PythonOutcome::failed, text_of(e.value()));
            } else {
                set_reason(*outcome, bench::PythonOutcome::failed, std::string("Python: ") + e.what());
            }
        }
    } catch (const std::exception& e) {
        set_reason(*outcome, bench::PythonOutcome::failed, std::string("the Python loader: ") + e.what());
    }
}

extern "C" BENCH_EXPORT int bench_python_preload(const char* python, const char* modules, char* error,
                                                 std::size_t error_size) {
    auto fail = [&](const std::string& why) {
        if (error_size > 0) {
            const std::size_t n = std::min(why.size(), error_size - 1);
            std::memcpy(error, why.data(), n);
            error[n] = '\0';
        }
        return 1;
    };
    try {
        start_interpreter(python, "");
        py::gil_scoped_acquire gil;
        // Before the imports: importing torch settles Inductor's cache folder.
        support_module().attr("prepare_environment")();
        for (std::string_view rest = modules; !rest.empty();) {
            const std::size_t comma = std::min(rest.find(','), rest.size());
            const std::string module(rest.substr(0, comma));
            rest.remove_prefix(std::min(comma + 1, rest.size()));
            if (module.empty()) continue;
            try {
                py::module_::import(module.c_str());
            } catch (py::error_already_set& e) {
                return fail("import " + module + ": " + e.what());
            }
        }
        // Nothing buffered is left for every forked worker to write again.
        const py::module_ sys = py::module_::import("sys");
        for (const char* stream : {"stdout", "stderr"})
            if (!sys.attr(stream).is_none()) sys.attr(stream).attr("flush")();
        return 0;
    } catch (const std::exception& e) {
        return fail(e.what());
    }
}

extern "C" BENCH_EXPORT void bench_python_fork(int when) {
    if (Py_IsInitialized() == 0) return;
    if (when == 0) PyOS_BeforeFork();
    else if (when == 1) PyOS_AfterFork_Parent();
    else PyOS_AfterFork_Child();
}
