// Processes found by their exact command line, for the tests of what a scenario leaves
// running: a marker that no other process has (`sleep 986.<digit><pid>`) finds them, and a
// guard kills them when the test ends, so that a failing test leaves nothing behind.
#pragma once

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace benchtest {

/// The pids of the processes whose command line is exactly `argv` (a zombie has none).
inline std::vector<pid_t> processes_with_command_line(const std::vector<std::string>& argv) {
    std::string wanted;
    for (const std::string& arg : argv) wanted += arg + '\0';
    std::vector<pid_t> found;
    DIR* proc = opendir("/proc");
    if (proc == nullptr) return found;
    while (const dirent* entry = readdir(proc)) {
        if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
        std::ifstream file(std::string("/proc/") + entry->d_name + "/cmdline", std::ios::binary);
        const std::string command_line((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        if (command_line == wanted) found.push_back(static_cast<pid_t>(std::stol(entry->d_name)));
    }
    closedir(proc);
    return found;
}

/// Kills (SIGKILL) every process whose command line is `argv` when it goes out of scope.
class KillsOnExit {
public:
    explicit KillsOnExit(std::vector<std::string> argv) : argv_(std::move(argv)) {}
    ~KillsOnExit() {
        for (const pid_t pid : processes_with_command_line(argv_)) kill(pid, SIGKILL);
    }
    KillsOnExit(const KillsOnExit&) = delete;
    KillsOnExit& operator=(const KillsOnExit&) = delete;

private:
    std::vector<std::string> argv_;
};

/// A duration for `sleep` that names this test process: 986.<digit><pid>, a `digit` for
/// each test of a program.
inline std::string sleep_marker(int digit) { return "986." + std::to_string(digit) + std::to_string(getpid()); }

}  // namespace benchtest
