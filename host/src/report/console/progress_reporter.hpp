// Progress of a run on the console: the current scenario, how many are done and
// left, the time elapsed and an estimate of what is left.
//
// On a terminal it is one line at the bottom, redrawn in place every second, with the
// log's lines scrolling above it (ProgressSink is the console sink of the run's
// logger). Elsewhere (a log file, CI) it is plain lines: the runner logs each
// scenario's start and end with progress_text().
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include <spdlog/sinks/base_sink.h>

namespace benchhost {

/// How far a run is; times in seconds.
struct ProgressState {
    std::size_t done = 0, total = 0;  // executions (scenarios times rounds)
    double elapsed_s = 0;
    double estimate_left_s = -1;  // -1: nothing finished yet, no estimate
};

/// "3/12 done, 0:42 elapsed, about 2:10 left".
std::string progress_text(const ProgressState& state);

/// "0:42", "1:02:03".
std::string format_duration(double seconds);

/// Whether to draw an updating line: stderr is a terminal that understands it, and
/// the run is not in CI (CI=true).
bool interactive_terminal();

/// Estimates what is left from the executions done so far: their mean wall time
/// times the executions left.
class ProgressClock {
public:
    explicit ProgressClock(std::size_t total);
    void finished_one();  // an execution ended
    void skipped_one();  // an execution was not run (already reported): takes no time
    ProgressState state() const;

private:
    std::chrono::steady_clock::time_point start_;
    std::size_t total_, done_ = 0, timed_ = 0;
    double timed_s_ = 0;
    std::chrono::steady_clock::time_point last_;
};

/// The console sink of the run's logger on a terminal: prints log lines above a status
/// line that a thread redraws every second.
class ProgressSink : public spdlog::sinks::base_sink<std::mutex> {
public:
    explicit ProgressSink(std::FILE* out = stderr);
    ~ProgressSink() override;

    /// The status line's text (without the clock, which the sink adds); "" hides it.
    void set_status(std::string text, const ProgressClock* clock);
    /// Removes the status line for good (the run is over).
    void finish();

protected:
    void sink_it_(const spdlog::details::log_msg& message) override;
    void flush_() override;

private:
    void redraw_locked();
    std::FILE* out_;
    std::string status_;
    const ProgressClock* clock_ = nullptr;
    bool finished_ = false;
    std::condition_variable_any tick_;
    std::jthread ticker_;
};

}  // namespace benchhost
