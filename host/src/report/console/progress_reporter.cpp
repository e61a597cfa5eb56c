#include "report/console/progress_reporter.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <spdlog/pattern_formatter.h>

#include "analysis/scenario_statistics.hpp"
#include "report/reporter_factories.hpp"
#include "util/text_table.hpp"

namespace benchhost {

std::string format_duration(double seconds) {
    if (!(seconds >= 0)) seconds = 0;
    const auto total = static_cast<long long>(std::llround(seconds));
    char text[32];
    if (total >= 3600)
        std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60, total % 60);
    else std::snprintf(text, sizeof text, "%lld:%02lld", total / 60, total % 60);
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
    if (timed_ > 0)
        state.estimate_left_s = timed_s_ / static_cast<double>(timed_) * static_cast<double>(total_ - done_);
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

// ---- The progress reporter ------------------------------------------------------------

namespace {

/// "success, median 3.89 ms" once the scenario has ended (its statistics computed),
/// "success" for a round with more to come; ": <reason>" when there is one.
std::string progress_headline(const ScenarioOutcome& outcome) {
    const bench::ScenarioResult& result = outcome.result;
    std::string text(bench::to_string(result.status));
    if (const SeriesStatistics* series = outcome.statistics.find("latency");
        series != nullptr && series->analysis.summary.count > 0)
        text += ", median " + format_figure(series->analysis.summary.median, series->unit);
    if (!result.reason.empty()) text += ": " + result.reason;
    return text;
}

/// The run's progress: a line in the log as each execution starts and ends (at debug
/// level for the start when the status line shows it), and on a terminal the status
/// line at the bottom.
class ProgressReporter final : public RunReporter {
public:
    ProgressReporter(spdlog::logger* log, ProgressSink* sink) : log_(log), sink_(sink) {}

    void execution_started(const ExecutionProgress& p) override {
        clock_for(p);
        if (log_ != nullptr)
            log_->log(sink_ != nullptr ? spdlog::level::debug : spdlog::level::info, "[{}/{}] {}", p.number, p.total,
                      p.scenario_id);
        if (sink_ != nullptr) sink_->set_status(p.scenario_id, clock_.get());
    }
    void execution_skipped(const ExecutionProgress& p, bool resumed) override {
        clock_for(p).skipped_one();
        if (resumed && log_ != nullptr)
            log_->info("[{}/{}] {}: already reported in the run being resumed", p.number, p.total, p.scenario_id);
    }
    void execution_finished(const ExecutionProgress& p, const ScenarioOutcome& outcome) override {
        ProgressClock& clock = clock_for(p);
        clock.finished_one();
        if (log_ == nullptr) return;
        const bench::Status status = outcome.result.status;
        const bool ok = status == bench::Status::success || status == bench::Status::skipped;
        log_->log(ok ? spdlog::level::info : spdlog::level::err, "[{}/{}] {}: {} ({:.2f} s; {})", p.number, p.total,
                  p.scenario_id, progress_headline(outcome), outcome.wall_time_s, progress_text(clock.state()));
    }
    void run_ended(const RunRecord&, const RunEnd&) override {
        if (sink_ != nullptr) sink_->finish();
    }

private:
    ProgressClock& clock_for(const ExecutionProgress& p) {
        if (!clock_) clock_ = std::make_unique<ProgressClock>(p.total);
        return *clock_;
    }

    spdlog::logger* log_;
    ProgressSink* sink_;
    std::unique_ptr<ProgressClock> clock_;
};

}  // namespace

std::unique_ptr<RunReporter> make_progress_reporter(const ReporterSettings& settings) {
    return std::make_unique<ProgressReporter>(settings.log, settings.progress);
}

}  // namespace benchhost
