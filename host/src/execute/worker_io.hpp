// What the host uses to watch a worker process, whether a scenario has one worker
// (executor.cpp) or one per rank (rank_executor.cpp): its output, forwarded to the log and
// kept as a tail; descriptors closed with their scope; the groups of the running workers,
// which the interrupt handler kills.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include <spdlog/logger.h>

namespace benchhost {

/// Keeps the last `capacity` bytes of the worker's output and forwards whole lines to
/// the log, up to a limit, so that a plugin flooding its output cannot flood the log
/// (past the limit, its last lines are logged as it ends).
/// Lines go to the log's debug level, except a notice ("[notice] text", what a worker
/// says before a long step: <bench/notice.hpp>), which the console shows at info.
class OutputCollector {
public:
    OutputCollector(spdlog::logger& log, std::string prefix) : log_(log), prefix_(std::move(prefix)) {}

    void append(const char* data, std::size_t size) {
        tail_.append(data, size);
        if (tail_.size() > 2 * tail_capacity) tail_.erase(0, tail_.size() - tail_capacity);
        pending_.append(data, size);
        for (std::size_t newline; (newline = pending_.find('\n')) != std::string::npos;) {
            forward(pending_.substr(0, newline));
            pending_.erase(0, newline + 1);
        }
        if (pending_.size() > 4096) {  // a very long line without a newline
            forward(pending_);
            pending_.clear();
        }
    }
    void finish() {
        if (!pending_.empty()) forward(pending_);
        pending_.clear();
        if (dropped_ == 0) return;
        log_.warn("{}: {} more bytes of output were not logged", prefix_, dropped_);
        log_.debug("{}: the last output of the worker:\n{}", prefix_, tail());
    }
    /// The last lines of output, at most tail_capacity bytes.
    std::string tail() const {
        std::string text = tail_.size() > tail_capacity ? tail_.substr(tail_.size() - tail_capacity) : tail_;
        if (tail_.size() > tail_capacity) text.erase(0, text.find('\n') + 1);
        return text;
    }

private:
    static constexpr std::size_t tail_capacity = 4096;
    static constexpr std::size_t forward_limit = 1 << 20;

    void forward(const std::string& line) {
        if (forwarded_ + line.size() > forward_limit) {
            dropped_ += line.size() + 1;
            return;
        }
        forwarded_ += line.size() + 1;
        constexpr std::string_view notice = "[notice] ";
        if (line.starts_with(notice)) log_.info("{}: {}", prefix_, std::string_view(line).substr(notice.size()));
        else log_.debug("{}: {}", prefix_, line);
    }

    spdlog::logger& log_;
    std::string prefix_;
    std::string tail_, pending_;
    std::size_t forwarded_ = 0, dropped_ = 0;
};

/// Closes a descriptor when it goes out of scope.
class Fd {
public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    ~Fd() { reset(); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }
    bool open() const { return fd_ >= 0; }
    void reset() {
        if (fd_ >= 0) close(fd_);
        fd_ = -1;
    }

private:
    int fd_;
};

/// Registers the process group of a running worker with the interrupt handler, which
/// kills every registered group at the first SIGINT or SIGTERM; and removes it.
void track_worker_group(pid_t group);
void untrack_worker_group(pid_t group);

}  // namespace benchhost
