// Private to the SDK: the machinery the monitors share. A table of samples allocated
// once, before sampling starts, and a thread that fills it at a fixed interval.
//
// Nothing here allocates while sampling: a full table halves itself in place (each
// pair of neighbouring rows merged into one, the first row kept as it is), so a
// scenario of any length keeps its whole span at half the time resolution, then a
// quarter, ...
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace bench::detail {

/// How two neighbouring samples of a column merge when the table halves.
enum class Merge : unsigned char {
    mean,  // a gauge (utilization, memory): the mean of the two (NaN ignored)
    last,  // a cumulative counter (energy, CPU time): the later reading
    bit_or,  // a bit mask (throttle reasons, read errors): either's bits
};

class SampleTable {
public:
    /// `merges` has one entry per column; capacity is at least 3.
    SampleTable(std::vector<Merge> merges, std::size_t capacity);

    std::size_t columns() const { return merges_.size(); }
    std::size_t rows() const { return rows_; }
    /// How many times the table halved itself.
    int halvings() const { return halvings_; }

    /// A row to fill: its time is `t` (seconds since the monitor's origin) and its
    /// values are NaN. The row counts once commit() is called. Once the table has
    /// halved h times, 2^h new samples make one row, so that every row stands for as
    /// many samples as the others.
    double* begin_row(double t);
    void commit();

    double time(std::size_t row) const { return data_[row * stride_]; }
    double value(std::size_t row, std::size_t column) const { return data_[row * stride_ + 1 + column]; }
    /// Column `column` of every row, as a vector (for summaries, after sampling).
    std::vector<double> column(std::size_t column) const;
    std::vector<double> times() const;

    /// Samples the row stands for.
    std::uint32_t weight(std::size_t row) const { return weights_[row]; }

private:
    void halve();
    /// Merges row `b` (weight wb) into row `a` (weight wa), times included.
    void merge_into(double* a, const double* b, std::uint32_t wa, std::uint32_t wb) const;

    std::vector<Merge> merges_;
    std::size_t stride_;  // 1 + columns
    std::size_t capacity_;  // rows
    std::size_t rows_ = 0;
    int halvings_ = 0;
    std::vector<double> data_;
    std::vector<std::uint32_t> weights_;
    std::vector<double> scratch_;  // the row being sampled, before commit()
};

/// Calls a function now and then every `interval` in a thread of its own, until
/// stop(). Waits on a condition variable, so that stop() returns at once.
class SamplingThread {
public:
    SamplingThread() = default;
    ~SamplingThread() { stop(); }
    SamplingThread(const SamplingThread&) = delete;
    SamplingThread& operator=(const SamplingThread&) = delete;

    /// The first call happens one interval after start (the caller samples at start).
    void start(std::chrono::nanoseconds interval, std::function<void()> sample);
    void stop();
    bool running() const { return thread_.joinable(); }

    /// A monitor's start(): unless running, calls `sample` now, then every
    /// `interval_ms` in the thread (none when interval_ms <= 0: only this sample).
    void start_sampling(double interval_ms, std::function<void()> sample);
    /// A monitor's stop(): when running, stops the thread and calls `sample` once more,
    /// the last sample.
    void stop_sampling();

private:
    std::function<void()> last_sample_;  // start_sampling's, for stop_sampling
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

/// Seconds from `origin` to `when`.
double seconds_since(std::chrono::steady_clock::time_point origin, std::chrono::steady_clock::time_point when);

}  // namespace bench::detail
