// Helpers shared by the tests: temporary folders, running the host binary, reading
// files and JSON. Every run of the host binary through run_process() has its report
// files checked against docs/schema (report_schema.hpp).
#pragma once

#include <chrono>
#include <thread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "report_schema.hpp"

namespace benchtest {

namespace fs = std::filesystem;

/// A fresh folder under the system's temporary folder, removed with its contents.
class TempDir {
public:
    TempDir() {
        std::random_device random;
        path_ =
            fs::temp_directory_path() / ("benchhost-test-" + std::to_string(getpid()) + "-" + std::to_string(random()));
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const fs::path& path() const { return path_; }
    fs::path operator/(const std::string& name) const { return path_ / name; }

private:
    fs::path path_;
};

inline std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

inline void write_file(const fs::path& path, const std::string& content) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << content;
}

inline rapidjson::Document read_json(const fs::path& path) {
    rapidjson::Document document;
    document.Parse(read_file(path).c_str());
    if (document.HasParseError()) throw std::runtime_error("invalid JSON in " + path.string());
    return document;
}

inline fs::path benchhost_binary();

struct ProcessResult {
    int exit_code = -1;  // -signal when killed by a signal
    std::string out, err;
};

/// Runs `argv` in `cwd`, with stdout and stderr captured, and waits for it. `extra_env`
/// holds "KEY=VALUE" entries added to the child's environment, replacing a variable of
/// the same name. When argv[0] is the benchhost binary, the run folder it wrote is then
/// validated against docs/schema (expect_host_output_matches_schema).
inline ProcessResult run_process(const std::vector<std::string>& argv, const fs::path& cwd = fs::current_path(),
                                 const std::vector<std::string>& extra_env = {}) {
    TempDir capture;
    const fs::path out_file = capture / "stdout", err_file = capture / "stderr";
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    // The child's environment, built before fork: ours, less what extra_env replaces.
    std::vector<std::string> environment;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string variable = *entry;
        const std::size_t equals = variable.find('=');
        bool replaced = false;
        for (const auto& extra : extra_env)
            replaced = replaced || (equals != std::string::npos && extra.starts_with(variable.substr(0, equals + 1)));
        if (!replaced) environment.push_back(variable);
    }
    environment.insert(environment.end(), extra_env.begin(), extra_env.end());
    std::vector<char*> env;
    for (auto& e : environment) env.push_back(e.data());
    env.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        if (chdir(cwd.c_str()) != 0) _exit(126);
        const int out = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(out, 1);
        dup2(err, 2);
        execve(args[0], args.data(), env.data());
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ProcessResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    result.out = read_file(out_file);
    result.err = read_file(err_file);
    if (!argv.empty() && fs::path(argv[0]) == benchhost_binary()) expect_host_output_matches_schema(argv, cwd);
    return result;
}

/// The Python whose modules scripts/lib/setup.sh installs (python3-jsonschema,
/// python3-scipy, ...): Debian's, rather than one a PATH may put first.
inline std::string debian_python() { return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3"; }

inline fs::path benchhost_binary() { return fs::path(BENCH_TEST_BUILD_DIR) / "bin" / "benchhost"; }

/// Runs the benchhost binary with `args` in `cwd` (its run folder then checked against
/// docs/schema, as run_process does).
inline ProcessResult run_host(const std::vector<std::string>& args, const fs::path& cwd) {
    std::vector<std::string> argv = {benchhost_binary().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, cwd);
}

/// Sleeps until the wall clock is in its next second. The run history tells runs apart
/// by when they started, to the second, and by their first samples: two runs of a
/// fixture whose samples never vary, started in the same second, are one run to it.
inline void wait_for_next_second() {
    const auto now = std::chrono::system_clock::now();
    std::this_thread::sleep_until(std::chrono::ceil<std::chrono::seconds>(now) + std::chrono::milliseconds(5));
}

/// Copies plugins into `<dir>/<category>/`, giving the host a folder of just these.
inline void install_plugin(const fs::path& plugin, const fs::path& plugins_dir, const std::string& category) {
    fs::create_directories(plugins_dir / category);
    fs::copy_file(plugin, plugins_dir / category / plugin.filename(), fs::copy_options::overwrite_existing);
}

/// Files in `dir` whose names start with `prefix` and end with `suffix`.
inline std::vector<fs::path> files_matching(const fs::path& dir, const std::string& prefix, const std::string& suffix) {
    std::vector<fs::path> found;
    if (!fs::is_directory(dir)) return found;
    for (const auto& entry : fs::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with(prefix) && name.ends_with(suffix)) found.push_back(entry.path());
    }
    return found;
}

}  // namespace benchtest
