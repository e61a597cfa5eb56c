#include "execute/leftover_processes.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <thread>

namespace benchhost {

namespace {

constexpr std::size_t command_length = 80;  // of a command line in the warning
constexpr std::size_t listed_in_warning = 5;

std::string read_proc_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::optional<pid_t> parse_pid(const char* text) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || value <= 0) return std::nullopt;
    return static_cast<pid_t>(value);
}

/// A process's state letter and parent, from /proc/<pid>/stat; nothing when it is gone.
struct ProcessStat {
    char state = 0;
    pid_t parent = 0;
};

std::optional<ProcessStat> read_stat(pid_t pid) {
    const std::string stat = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
    // "pid (comm) S ppid ...": the name may hold spaces and parentheses, the last ')' ends it.
    const std::size_t name_end = stat.rfind(')');
    if (name_end == std::string::npos || name_end + 4 >= stat.size()) return std::nullopt;
    ProcessStat parsed;
    parsed.state = stat[name_end + 2];
    parsed.parent = static_cast<pid_t>(std::strtol(stat.c_str() + name_end + 4, nullptr, 10));
    return parsed;
}

bool running(const ProcessStat& stat) { return stat.state != 'Z' && stat.state != 'X'; }

/// Who is whose child, at one moment: from the kernel's list of each thread's children
/// where it keeps one (/proc/<pid>/task/<tid>/children), else from one pass over every
/// process's parent.
class ProcessTree {
public:
    std::vector<pid_t> children(pid_t parent) {
        if (kernel_lists_children()) return listed_children(parent);
        if (!scanned_) scan();
        std::vector<pid_t> found;
        for (auto [it, last] = by_parent_.equal_range(parent); it != last; ++it) found.push_back(it->second);
        return found;
    }

private:
    static bool kernel_lists_children() {
        static const bool lists = access("/proc/thread-self/children", R_OK) == 0;
        return lists;
    }

    static std::vector<pid_t> listed_children(pid_t parent) {
        std::vector<pid_t> found;
        const std::string tasks_dir = "/proc/" + std::to_string(parent) + "/task";
        DIR* tasks = opendir(tasks_dir.c_str());
        if (tasks == nullptr) return found;  // it ended
        while (const dirent* task = readdir(tasks)) {
            if (!parse_pid(task->d_name)) continue;
            std::ifstream list(tasks_dir + "/" + task->d_name + "/children");
            for (pid_t child; list >> child;) found.push_back(child);
        }
        closedir(tasks);
        return found;
    }

    void scan() {
        scanned_ = true;
        DIR* proc = opendir("/proc");
        if (proc == nullptr) return;
        while (const dirent* entry = readdir(proc)) {
            const std::optional<pid_t> pid = parse_pid(entry->d_name);
            if (!pid) continue;
            if (const std::optional<ProcessStat> stat = read_stat(*pid)) by_parent_.emplace(stat->parent, *pid);
        }
        closedir(proc);
    }

    bool scanned_ = false;
    std::multimap<pid_t, pid_t> by_parent_;
};

/// What to call a process: its command line, its arguments separated by spaces and cut
/// short; a fork of the worker that executed nothing has the worker server's own.
std::string describe_command(pid_t pid, const std::string& own_command_line) {
    const std::string path = "/proc/" + std::to_string(pid);
    const std::string command_line = read_proc_file(path + "/cmdline");
    if (!command_line.empty() && command_line == own_command_line) return "a fork of the worker";
    std::string command = command_line;
    while (!command.empty() && command.back() == '\0') command.pop_back();
    if (command.empty()) {  // a kernel thread's, or one that has just ended
        std::string name = read_proc_file(path + "/comm");
        while (!name.empty() && name.back() == '\n') name.pop_back();
        return "[" + name + "]";
    }
    for (char& c : command)
        if (static_cast<unsigned char>(c) < ' ' || c == '\x7f') c = ' ';
    if (command.size() > command_length) {
        std::size_t cut = command_length - 3;
        while (cut > 0 && (static_cast<unsigned char>(command[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
        command = command.substr(0, cut) + "...";
    }
    return command;
}

}  // namespace

std::vector<StoppedProcess> stop_leftover_processes(const std::vector<pid_t>& own, std::chrono::milliseconds grace,
                                                    std::chrono::milliseconds limit) {
    const pid_t self = getpid();
    const auto start = std::chrono::steady_clock::now();
    std::vector<StoppedProcess> stopped;
    std::set<pid_t> signalled;
    std::optional<std::string> own_command_line;
    for (;;) {
        const auto elapsed = std::chrono::steady_clock::now() - start;
        const bool killing = elapsed >= grace;
        ProcessTree tree;
        std::vector<pid_t> leftovers;
        for (const pid_t child : tree.children(self))
            if (std::find(own.begin(), own.end(), child) == own.end()) leftovers.push_back(child);
        if (leftovers.empty()) break;

        // Their descendants too, parents first: one that forks is found with its child,
        // and a child whose parent dies becomes this process's own, found next time.
        std::vector<pid_t> found = leftovers;
        for (std::size_t i = 0; i < found.size(); ++i)
            for (const pid_t child : tree.children(found[i])) found.push_back(child);
        bool any_running = false;
        for (const pid_t pid : found) {
            const std::optional<ProcessStat> stat = read_stat(pid);
            if (!stat || !running(*stat)) continue;
            any_running = true;
            if (signalled.insert(pid).second) {
                if (!own_command_line) own_command_line = read_proc_file("/proc/self/cmdline");
                stopped.push_back({static_cast<int>(pid), describe_command(pid, *own_command_line)});
                if (!killing) {
                    kill(pid, SIGTERM);
                    kill(pid, SIGCONT);  // a stopped process handles SIGTERM only once it runs
                    continue;
                }
            }
            if (killing) kill(pid, SIGKILL);
        }
        for (const pid_t pid : leftovers) waitpid(pid, nullptr, WNOHANG);
        // Only ended ones, now reaped: a process that ends gives its children to this
        // one at once, so none of theirs is left either.
        if (!any_running || elapsed >= limit) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return stopped;
}

std::string leftover_processes_warning(const std::vector<StoppedProcess>& processes) {
    std::string text = "stopped " + std::to_string(processes.size()) +
                       (processes.size() == 1 ? " process" : " processes") + " the scenario left running: ";
    for (std::size_t i = 0; i < processes.size() && i < listed_in_warning; ++i)
        text += (i > 0 ? ", " : "") + processes[i].command + " (pid " + std::to_string(processes[i].pid) + ")";
    if (processes.size() > listed_in_warning)
        text += " and " + std::to_string(processes.size() - listed_in_warning) + " more";
    return text;
}

}  // namespace benchhost
