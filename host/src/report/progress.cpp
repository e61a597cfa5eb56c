#include "report/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include <spdlog/pattern_formatter.h>

namespace benchhost {

std::string format_duration(double seconds) {
    if (!(seconds >= 0)) seconds = 0;
    const auto total = static_cast<long long>(std::llround(seconds));
    char text[32];
    if (total >= 3600)
        std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60, total % 60);
    else
        std::snprintf(text, sizeof text, "%lld:%02lld", total / 60, total % 60);
    return text;
}

std::string progress_text(const ProgressState& state) {
    std::string text = std::to_string(state.done) + "/" + std::to_string(state.total) + " done, " +
                       format_duration(state.elapsed_s) + " elapsed";
    if (state.estimate_left_s >= 0 && state.done < state.total)
        text += ", about " + format_duration(state.estimate_left_s) + " left";
    return text;
}

bool interactive_terminal() {
    if (isatty(STDERR_FILENO) == 0) return false;
    const char* term = std::getenv("TERM");
    if (term == nullptr || std::strcmp(term, "dumb") == 0) return false;
    const char* ci = std::getenv("CI");
    return ci == nullptr || (std::strcmp(ci, "true") != 0 && std::strcmp(ci, "1") != 0);
}

ProgressClock::ProgressClock(std::size_t total)
    : start_(std::chrono::steady_clock::now()), total_(total), last_(start_) {}

void ProgressClock::finished_one() {
    const auto now = std::chrono::steady_clock::now();
    ++done_;
    ++timed_;
    timed_s_ += std::chrono::duration<double>(now - last_).count();
    last_ = now;
}

void ProgressClock::skipped_one() {
    ++done_;
    last_ = std::chrono::steady_clock::now();
}

ProgressState ProgressClock::state() const {
    ProgressState state;
    state.done = done_;
    state.total = total_;
    state.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (timed_ > 0) state.estimate_left_s = timed_s_ / static_cast<double>(timed_) * static_cast<double>(total_ - done_);
    return state;
}

ProgressSink::ProgressSink(std::FILE* out) : out_(out) {
    set_formatter_(std::make_unique<spdlog::pattern_formatter>("[%l] %v"));
    ticker_ = std::jthread([this](std::stop_token stop) {
        std::unique_lock lock(mutex_);
        while (!stop.stop_requested()) {
            tick_.wait_for(lock, stop, std::chrono::seconds(1), [] { return false; });
            if (!stop.stop_requested()) redraw_locked();
        }
    });
}

ProgressSink::~ProgressSink() {
    ticker_.request_stop();
    if (ticker_.joinable()) ticker_.join();
    finish();
}

void ProgressSink::set_status(std::string text, const ProgressClock* clock) {
    std::lock_guard lock(mutex_);
    status_ = std::move(text);
    clock_ = clock;
    redraw_locked();
}

void ProgressSink::finish() {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    std::fputs("\r\033[K", out_);
    std::fflush(out_);
}

void ProgressSink::redraw_locked() {
    if (finished_) return;
    std::string line;
    if (!status_.empty() && clock_ != nullptr) {
        line = "[";
        line += progress_text(clock_->state());
        line += "] ";
    }
    line += status_;
    // One line: cut to the terminal's usual width so that it never wraps.
    constexpr std::size_t width = 160;
    if (line.size() > width) line = line.substr(0, width - 3) + "...";
    std::fputs("\r\033[K", out_);
    std::fputs(line.c_str(), out_);
    std::fflush(out_);
}

void ProgressSink::sink_it_(const spdlog::details::log_msg& message) {
    spdlog::memory_buf_t formatted;
    formatter_->format(message, formatted);
    std::fputs("\r\033[K", out_);
    std::fwrite(formatted.data(), 1, formatted.size(), out_);
    redraw_locked();
}

void ProgressSink::flush_() { std::fflush(out_); }

}  // namespace benchhost
