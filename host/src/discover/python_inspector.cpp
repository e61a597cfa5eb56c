#include "discover/python_inspector.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <system_error>

#include <unistd.h>

#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/io.hpp>

#include <bench_embedded/inspect_python_py.hpp>

#include "json/field_reader.hpp"
#include "util/scratch_folder.hpp"
#include "util/text_file.hpp"

namespace benchhost {

namespace fs = std::filesystem;
namespace bp = boost::process;

namespace {

bool is_executable_file(const std::string& path) {
    std::error_code ec;
    return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

std::optional<std::vector<std::string>> optional_strings(const FieldReader& object, const char* key) {
    if (!object.has(key)) return std::nullopt;
    return object[key].as_strings();
}

PythonFileInfo read_file_entry(const FieldReader& entry) {
    PythonFileInfo file;
    file.path = entry.string("path");
    if (entry.has("error")) {
        file.error = entry.string("error");
        return file;
    }
    file.functions = entry["functions"].as_strings();
    file.async_functions = entry["async_functions"].as_strings();
    file.handshake_error = entry.string("handshake_error");
    const FieldReader handshake = entry["handshake"];
    if (!handshake.value().IsNull()) {
        const FieldReader fields = handshake.as_object();
        PythonHandshake h;
        h.name = fields.string_or("name", "");
        h.version = fields.string_or("version", "");
        h.axes = optional_strings(fields, "axes");
        h.variants = optional_strings(fields, "variants");
        h.mock = fields.has("mock") && fields["mock"].as_bool();
        if (fields.has("benchmark_variants")) {
            const FieldReader declared = fields.object("benchmark_variants");
            for (const auto& member : declared.value().GetObject()) {
                const std::string benchmark(member.name.GetString(), member.name.GetStringLength());
                h.benchmark_variants[benchmark] = declared[benchmark.c_str()].as_strings();
            }
        }
        file.handshake = std::move(h);
    }
    const FieldReader declarations = entry["declarations"].as_array();
    for (std::size_t i = 0; i < declarations.size(); ++i) {
        const FieldReader fields = declarations.at(i).as_object();
        PythonBenchmarkDeclaration d;
        d.function = fields.string("function");
        d.line = fields.integer("line");
        d.axes = optional_strings(fields, "axes");
        d.variants = optional_strings(fields, "variants");
        if (fields.has("axis_values")) {
            const FieldReader values = fields.object("axis_values");
            for (const auto& member : values.value().GetObject()) {
                const std::string axis(member.name.GetString(), member.name.GetStringLength());
                d.axis_values[axis] = values[axis.c_str()].as_strings();
            }
        }
        file.declarations.push_back(std::move(d));
    }
    file.declaration_error = entry.string("declaration_error");
    if (entry.has("imports")) file.imports = entry["imports"].as_strings();
    return file;
}

}  // namespace

std::string plugin_python() {
    if (const char* env = std::getenv("BENCHHOST_PYTHON"); env != nullptr && *env != '\0') {
        if (!is_executable_file(env))
            throw std::runtime_error(std::string("BENCHHOST_PYTHON=") + env + " is not an executable file");
        return env;
    }
#ifdef BENCH_PYTHON
    if (is_executable_file(BENCH_PYTHON)) return BENCH_PYTHON;
    throw std::runtime_error(std::string("the build's Python, ") + BENCH_PYTHON +
                             ", does not exist: set BENCHHOST_PYTHON to a Python 3 to run Python plugins with");
#else
    throw std::runtime_error(
        "this build knows no Python: set BENCHHOST_PYTHON to a Python 3 to run Python plugins with");
#endif
}

std::vector<std::string> fork_safe_preloads(const std::vector<std::string>& imports) {
    // What a top-level import of each brings in, of the modules known to start no thread
    // when imported (a worker forked from a process with threads would have lost them).
    // benchhost.models imports torchvision in its model builders, which its plugins call.
    // Not jax: importing it starts threads.
    static const std::vector<std::pair<std::string, std::vector<std::string>>> table = {
        {"torch", {"torch"}},
        {"torchvision", {"torch", "torchvision"}},
        {"benchhost.torch", {"torch"}},
        {"benchhost.models", {"torch", "torchvision"}},
    };
    std::vector<std::string> modules;
    for (const std::string& module : imports)
        for (const auto& [name, preloads] : table)
            if (module == name || module.starts_with(name + "."))
                for (const std::string& preload : preloads)
                    if (std::find(modules.begin(), modules.end(), preload) == modules.end()) modules.push_back(preload);
    // torch before torchvision, whatever order the plugin wrote them in.
    std::stable_sort(modules.begin(), modules.end(),
                     [](const std::string& a, const std::string& b) { return a == "torch" && b != "torch"; });
    return modules;
}

PythonInspection inspect_python_files(const std::string& python, const std::vector<fs::path>& files, double timeout_s) {
    PythonInspection inspection;
    inspection.python = python;
    if (files.empty()) return inspection;
    const ScratchFolder scratch("benchhost-inspect-");
    const fs::path out = scratch.path() / "out.json", err = scratch.path() / "err.txt";
    std::vector<std::string> args{"-I", "-c", inspect_python_py};
    for (const fs::path& file : files) args.push_back(file.string());
    std::error_code ec;
    bp::child child(bp::exe = python, bp::args = args, bp::std_in<bp::null, bp::std_out> out.string(),
                    bp::std_err > err.string(), ec);
    if (ec) throw std::runtime_error("cannot start " + python + " to read the Python plugins: " + ec.message());
    if (!child.wait_for(std::chrono::duration<double>(timeout_s), ec)) {
        child.terminate(ec);
        throw std::runtime_error(python + " did not finish reading the Python plugins within " +
                                 std::to_string(static_cast<int>(timeout_s)) + " s: killed");
    }
    if (child.exit_code() != 0)
        throw std::runtime_error(python + " failed reading the Python plugins (exit status " +
                                 std::to_string(child.exit_code()) + "): " + read_text_file(err));
    const std::string origin = python + " reading the Python plugins";
    const rapidjson::Document document = FieldReader::parse(read_text_file(out), origin);
    const FieldReader top(document, origin);
    inspection.python_version = top.string("python");
    inspection.torch_version = top.string("torch");
    const FieldReader entries = top["files"].as_array();
    for (std::size_t i = 0; i < entries.size(); ++i) inspection.files.push_back(read_file_entry(entries.at(i)));
    if (inspection.files.size() != files.size())
        throw std::runtime_error(origin + ": " + std::to_string(inspection.files.size()) + " files read of " +
                                 std::to_string(files.size()));
    return inspection;
}

}  // namespace benchhost
