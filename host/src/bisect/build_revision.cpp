#include "bisect/build_revision.hpp"

#include <chrono>
#include <deque>
#include <fstream>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

namespace benchhost {

namespace fs = std::filesystem;

namespace {

/// The last `count` lines of `file`.
std::string last_lines(const fs::path& file, std::size_t count) {
    std::ifstream in(file);
    std::deque<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
        if (lines.size() > count) lines.pop_front();
    }
    std::string text;
    for (const std::string& line : lines) text += line + "\n";
    return text;
}

}  // namespace

BuildOutcome build_revision(const std::string& command, const fs::path& folder, const fs::path& log_file,
                            double timeout_s, const std::function<bool()>& stop) {
    const int log = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log < 0) throw std::runtime_error("cannot write the build log " + log_file.string());
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(log);
        throw std::runtime_error("cannot start the build command: fork failed");
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        const int null = ::open("/dev/null", O_RDONLY);
        if (null >= 0) ::dup2(null, STDIN_FILENO);
        ::dup2(log, STDOUT_FILENO);
        ::dup2(log, STDERR_FILENO);
        if (::chdir(folder.c_str()) != 0) _exit(126);
        ::signal(SIGINT, SIG_DFL);
        ::signal(SIGTERM, SIG_DFL);
        ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    ::setpgid(pid, pid);  // also here: the child may not have run yet when we kill its group
    ::close(log);

    BuildOutcome outcome;
    int status = 0;
    bool killed = false;
    for (;;) {
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!killed && ((timeout_s > 0 && elapsed > timeout_s) || (stop && stop()))) {
            (timeout_s > 0 && elapsed > timeout_s ? outcome.timed_out : outcome.stopped) = true;
            ::kill(-pid, SIGKILL);
            killed = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    // Whatever the command left behind in its group goes with it.
    ::kill(-pid, SIGKILL);
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    outcome.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    outcome.built = !killed && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    outcome.tail = last_lines(log_file, 10);
    return outcome;
}

}  // namespace benchhost
