// Reads Python plugin files without running them: a child process of the plugins'
// Python parses each file with the standard library's ast module (inspect_python.py,
// carried in the host's binary) and says which module-level functions it defines and
// what its handshake literal holds, and what each benchmark function declares of its own
// (the literal arguments of @benchhost.benchmark). Neither the host nor that child imports a plugin, so
// a file whose import would fail, hang or write files is only read.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace benchhost {

/// The optional handshake, BENCHHOST_PLUGIN = {...}: each field empty where not given.
struct PythonHandshake {
    std::string name, version;
    std::optional<std::vector<std::string>> axes;
    std::optional<std::vector<std::string>> variants;
    bool mock = false;
    /// Benchmark name -> the variants it declares of its own ("benchmark_variants").
    std::map<std::string, std::vector<std::string>> benchmark_variants;
};

/// What a benchmark function declares of its own: @benchhost.benchmark(axes=..., variants=...).
struct PythonBenchmarkDeclaration {
    std::string function;
    int line = 0;  // of the decorator
    /// Its axes, which replace the handshake's; given when axes or variants are (with
    /// variants alone: the handshake's axes, with "variant" first).
    std::optional<std::vector<std::string>> axes;
    /// The values of the axes it gave as a dict ({"batch_size": [1, 8]}), as text.
    std::map<std::string, std::vector<std::string>> axis_values;
    std::optional<std::vector<std::string>> variants;
};

struct PythonFileInfo {
    std::filesystem::path path;
    /// Why the file cannot be read or parsed: "file:line:column: message". The rest is
    /// then empty.
    std::string error;
    std::vector<std::string> functions;  // module-level: def, and names `from ... import` binds
    std::vector<std::string> async_functions;  // module-level async def
    std::optional<PythonHandshake> handshake;
    std::string handshake_error;  // "file:line: BENCHHOST_PLUGIN ..." when it is there but wrong
    std::vector<PythonBenchmarkDeclaration> declarations;  // in file order
    std::string declaration_error;  // "file:line: @benchhost.benchmark ..." when one is wrong
    /// The modules it imports when imported: its module-level import statements (also in
    /// a module-level if, try or with), absolute ones, in file order ("torch", "os.path").
    std::vector<std::string> imports;
};

struct PythonInspection {
    std::string python;  // the interpreter that read the files
    std::string python_version;  // "3.11.2"
    std::string torch_version;  // as that interpreter would import it; empty: none
    std::vector<PythonFileInfo> files;  // in the order asked
};

/// The Python that runs Python plugins (and reads them): $BENCHHOST_PYTHON, else the one
/// the build was configured with (BENCH_PYTHON, the project's virtual environment).
/// Throws std::runtime_error saying which was tried when it is not an executable file.
std::string plugin_python();

/// Of the modules a plugin imports at top level (PythonFileInfo::imports), those that a
/// worker's parent may import ahead (execute/worker_server.hpp): torch and torchvision,
/// which start no thread when imported, for an import of torch, torchvision,
/// benchhost.torch or benchhost.models (whose model builders import torchvision); torch
/// first. Empty when it imports none of them.
std::vector<std::string> fork_safe_preloads(const std::vector<std::string>& imports);

/// Reads `files` in one child process of `python` (-I: no environment variables, no
/// user site). Throws std::runtime_error when the child cannot start, fails, runs more
/// than `timeout_s` (then killed), or prints what cannot be read.
PythonInspection inspect_python_files(const std::string& python, const std::vector<std::filesystem::path>& files,
                                      double timeout_s = 60);

}  // namespace benchhost
