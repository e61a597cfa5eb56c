#include <bench/internal/profile/perf_sampler.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

extern char** environ;

namespace bench {

namespace {

namespace fs = std::filesystem;

std::string trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return std::string(text.substr(first, last - first + 1));
}

/// `name` found on PATH (or as a path), empty when it is not there.
std::string find_executable(const std::string& name) {
    if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : std::string();
    const char* path = std::getenv("PATH");
    std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
    std::stringstream in(dirs);
    std::string dir;
    while (std::getline(in, dir, ':')) {
        if (dir.empty()) continue;
        const std::string candidate = dir + "/" + name;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return {};
}

/// The first lines of a file that say something (perf's own messages), joined by "; ".
std::string file_message(const std::string& file, std::size_t max_lines = 3) {
    std::ifstream in(file);
    std::string line, out;
    std::size_t lines = 0;
    while (lines < max_lines && std::getline(in, line)) {
        line = trim(line);
        if (line.empty() || line.starts_with("[ perf record:")) continue;
        out += (out.empty() ? "" : "; ") + line;
        ++lines;
    }
    return out;
}

/// Runs argv with stdout and stderr to files; returns its pid, or -1 with errno's text.
pid_t spawn(const std::vector<std::string>& argv, const std::string& out_file, const std::string& err_file,
            std::string& error) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        error = std::strerror(rc);
        return -1;
    }
    return pid;
}

/// Waits for `pid` up to `timeout`; kills it (SIGKILL) past that. Its exit status, or -1.
int wait_for(pid_t pid, std::chrono::milliseconds timeout, bool& timed_out) {
    timed_out = false;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (true) {
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (done < 0 && errno != EINTR) return -1;
        if (std::chrono::steady_clock::now() > deadline) {
            timed_out = true;
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

std::string perf_version(const std::string& perf) {
    static std::map<std::string, std::string> known;
    if (const auto it = known.find(perf); it != known.end()) return it->second;
    std::string version;
    char dir_template[] = "/tmp/benchhost-perf-XXXXXX";
    if (mkdtemp(dir_template) != nullptr) {
        const std::string dir = dir_template;
        std::string error;
        const pid_t pid = spawn({perf, "--version"}, dir + "/out", dir + "/err", error);
        bool timed_out = false;
        if (pid > 0 && wait_for(pid, std::chrono::seconds(5), timed_out) == 0) {
            std::ifstream in(dir + "/out");
            std::getline(in, version);
            version = trim(version);  // "perf version 6.1.187"
            if (version.starts_with("perf version ")) version = "perf " + version.substr(13);
        }
        std::error_code ignored;
        fs::remove_all(dir, ignored);
    }
    return known[perf] = version.empty() ? "perf" : version;
}

}  // namespace

PerfAccess perf_access(const std::string& paranoid_file, std::optional<uid_t> euid) {
    PerfAccess access;
    const char* chosen = std::getenv("BENCH_PERF");
    access.perf = find_executable(chosen != nullptr && *chosen != '\0' ? chosen : "perf");
    if (access.perf.empty()) {
        access.reason = chosen != nullptr && *chosen != '\0'
                            ? std::string("BENCH_PERF=") + chosen + " is not an executable"
                            : "perf is not installed (Debian's linux-perf package has it)";
        return access;
    }
    const bool root = (euid ? *euid : geteuid()) == 0;
    int paranoid = 2;  // the kernel's default when the file cannot be read
    {
        std::ifstream in(paranoid_file);
        if (!(in >> paranoid)) {
            if (!root) {
                access.reason = "cannot read " + paranoid_file + ": is this Linux with perf events?";
                return access;
            }
        }
    }
    access.event = "cpu-clock";
    if (!root && paranoid >= 3) {
        access.reason = "kernel.perf_event_paranoid is " + std::to_string(paranoid) +
                        ", which forbids perf to a user without CAP_PERFMON (sysctl kernel.perf_event_paranoid=2 "
                        "allows sampling one's own processes)";
        access.event.clear();
        return access;
    }
    if (!root && paranoid == 2) {
        access.event = "cpu-clock:u";
        access.note = "user-space frames only (kernel.perf_event_paranoid is 2)";
    }
    if (!fs::exists("/sys/bus/event_source/devices/cpu")) {
        access.note += std::string(access.note.empty() ? "" : "; ") +
                       "no hardware PMU here (a VM?): sampled on the cpu-clock software timer";
    }
    return access;
}

PerfSampler::PerfSampler(PerfAccess access) : access_(std::move(access)) {}

PerfSampler::~PerfSampler() { cleanup(); }

void PerfSampler::cleanup() {
    if (record_pid_ > 0) {
        kill(record_pid_, SIGKILL);
        int status = 0;
        waitpid(record_pid_, &status, 0);
        record_pid_ = -1;
    }
    if (!dir_.empty()) {
        std::error_code ignored;
        fs::remove_all(dir_, ignored);
        dir_.clear();
    }
}

std::string PerfSampler::description() const {
    return "perf record -e " + access_.event + " -F " + std::to_string(perf_frequency_hz) + " --call-graph dwarf (" +
           perf_version(access_.perf) + ")";
}

bool PerfSampler::start() {
    if (!access_.reason.empty()) {
        error_ = access_.reason;
        return false;
    }
    const char* tmp = std::getenv("TMPDIR");
    std::string dir_template = std::string(tmp != nullptr && *tmp == '/' ? tmp : "/tmp") + "/benchhost-perf-XXXXXX";
    if (mkdtemp(dir_template.data()) == nullptr) {
        error_ = "cannot make a temporary folder for perf's data: " + std::string(std::strerror(errno));
        return false;
    }
    dir_ = dir_template;
    const std::string data = dir_ + "/perf.data";
    const std::vector<std::string> argv = {access_.perf,   "record",
                                           "-e",           access_.event,
                                           "-F",           std::to_string(perf_frequency_hz),
                                           "--call-graph", "dwarf,16384",
                                           "-p",           std::to_string(getpid()),
                                           "-o",           data};
    std::string error;
    record_pid_ = spawn(argv, dir_ + "/record.out", dir_ + "/record.log", error);
    if (record_pid_ < 0) {
        error_ = "cannot start " + access_.perf + ": " + error;
        cleanup();
        return false;
    }
    // perf opens its events on every thread of this process before it writes the data
    // file's header: once the file has bytes, it samples.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (true) {
        std::error_code ec;
        if (fs::exists(data, ec) && fs::file_size(data, ec) > 0 && !ec) break;
        int status = 0;
        if (waitpid(record_pid_, &status, WNOHANG) == record_pid_) {
            record_pid_ = -1;
            const std::string message = file_message(dir_ + "/record.log");
            error_ = "perf record failed" + (message.empty() ? std::string() : ": " + message);
            cleanup();
            return false;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            error_ = "perf record did not start within 10 s";
            cleanup();
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

std::optional<FlameGraph> PerfSampler::stop() {
    if (record_pid_ <= 0) {
        if (error_.empty()) error_ = "perf record was not running";
        return std::nullopt;
    }
    kill(record_pid_, SIGINT);
    bool timed_out = false;
    wait_for(record_pid_, std::chrono::seconds(30), timed_out);
    record_pid_ = -1;
    if (timed_out) {
        error_ = "perf record did not stop within 30 s of SIGINT";
        cleanup();
        return std::nullopt;
    }
    // --no-inline: resolving inlined frames (addr2line on LibTorch) takes minutes.
    std::string error;
    const std::string script = dir_ + "/script.txt";
    const pid_t pid =
        spawn({access_.perf, "script", "--no-inline", "-F", "comm,tid,period,ip,sym,dso", "-i", dir_ + "/perf.data"},
              script, dir_ + "/script.log", error);
    if (pid < 0) {
        error_ = "cannot start perf script: " + error;
        cleanup();
        return std::nullopt;
    }
    const int status = wait_for(pid, std::chrono::seconds(120), timed_out);
    if (timed_out || status != 0) {
        const std::string message = file_message(dir_ + "/script.log");
        error_ = timed_out ? "perf script took more than 120 s"
                           : "perf script failed" + (message.empty() ? std::string() : ": " + message);
        cleanup();
        return std::nullopt;
    }
    std::ifstream in(script);
    FlameGraph graph = fold_perf_script(in, samples_);
    cleanup();
    if (samples_ == 0) {
        error_ = "perf sampled nothing";
        return std::nullopt;
    }
    graph.source = description();
    return graph;
}

FlameGraph fold_perf_script(std::istream& script, long long& samples, std::size_t max_stacks) {
    samples = 0;
    std::map<std::string, double> folded;
    std::vector<std::string> frames;  // of the sample being read, innermost first
    double period_ns = 0;
    bool in_sample = false;
    auto finish = [&] {
        if (in_sample && !frames.empty()) {
            std::string key;
            for (auto it = frames.rbegin(); it != frames.rend(); ++it) key += (key.empty() ? "" : ";") + *it;
            folded[key] += period_ns / 1e6;
            ++samples;
        }
        frames.clear();
        in_sample = false;
    };
    std::string line;
    while (std::getline(script, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) {
            finish();
            continue;
        }
        if (line[0] != ' ' && line[0] != '\t') {
            finish();
            // "comm tid period": the comm may hold spaces, the last token is the period.
            const std::string header = trim(line);
            const auto space = header.find_last_of(" \t");
            period_ns = space == std::string::npos ? 0 : std::strtod(header.c_str() + space + 1, nullptr);
            if (!(period_ns > 0)) period_ns = 1e9 / perf_frequency_hz;
            in_sample = true;
            continue;
        }
        if (!in_sample) continue;
        // "<address> <symbol> (<object>)"; the symbol may hold spaces and parentheses.
        std::string frame = trim(line);
        const auto address_end = frame.find(' ');
        if (address_end == std::string::npos) continue;
        frame = frame.substr(address_end + 1);
        std::string object;
        if (const auto open = frame.rfind(" ("); open != std::string::npos && frame.back() == ')') {
            object = frame.substr(open + 2, frame.size() - open - 3);
            frame.resize(open);
        }
        frame = trim(frame);
        if (frame.empty() || frame == "[unknown]") {
            const std::string base = object.empty() ? "unknown" : fs::path(object).filename().string();
            frame = "[" + (base.empty() ? object : base) + "]";
        }
        if (frame.size() > 240) frame = frame.substr(0, 237) + "...";
        std::replace(frame.begin(), frame.end(), ';', ':');
        frames.push_back(std::move(frame));
    }
    finish();

    FlameGraph graph;
    graph.name = "native";
    graph.unit = "ms";
    std::vector<FlameStack> stacks;
    stacks.reserve(folded.size());
    for (auto& [frames_text, value] : folded) stacks.push_back({frames_text, value});
    std::stable_sort(stacks.begin(), stacks.end(),
                     [](const FlameStack& a, const FlameStack& b) { return a.value > b.value; });
    if (stacks.size() > max_stacks) {
        double rest = 0;
        for (std::size_t i = max_stacks; i < stacks.size(); ++i) rest += stacks[i].value;
        stacks.resize(max_stacks);
        stacks.push_back({"[other stacks]", rest});
    }
    graph.stacks = std::move(stacks);
    return graph;
}

}  // namespace bench
