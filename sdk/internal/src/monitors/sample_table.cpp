#include "sample_table.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace bench::detail {

namespace {
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

std::uint64_t bits_of(double v) { return std::isnan(v) || v < 0 ? std::uint64_t{0} : static_cast<std::uint64_t>(v); }
}  // namespace

SampleTable::SampleTable(std::vector<Merge> merges, std::size_t capacity)
    : merges_(std::move(merges)),
      stride_(1 + merges_.size()),
      capacity_(std::max<std::size_t>(capacity, 3)),
      scratch_(stride_, nan) {
    // Rows are appended as they come: a table filled up front costs a page fault per
    // 4 KiB in every worker before its scenario starts, several milliseconds on a VM.
    data_.reserve(capacity_ * stride_);
    weights_.reserve(capacity_);
}

double* SampleTable::begin_row(double t) {
    scratch_[0] = t;
    std::fill(scratch_.begin() + 1, scratch_.end(), nan);
    return scratch_.data() + 1;
}

void SampleTable::commit() {
    // The last row, while not yet as heavy as the others, takes this sample in. Row 0,
    // the first sample, is never merged: it anchors the start of the span and of the
    // counters.
    const auto join_last = [this] {
        const std::uint32_t full = std::uint32_t{1} << std::min(halvings_, 31);
        if (rows_ < 2 || weights_[rows_ - 1] >= full) return false;
        merge_into(&data_[(rows_ - 1) * stride_], scratch_.data(), weights_[rows_ - 1], 1);
        ++weights_[rows_ - 1];
        return true;
    };
    if (join_last()) return;
    if (rows_ == capacity_) {
        halve();
        if (join_last()) return;
    }
    data_.insert(data_.end(), scratch_.begin(), scratch_.end());
    weights_.push_back(1);
    ++rows_;
}

void SampleTable::merge_into(double* a, const double* b, std::uint32_t wa, std::uint32_t wb) const {
    a[0] = b[0];  // a merged row stands for the time up to its later sample
    for (std::size_t c = 1; c < stride_; ++c) {
        const double x = a[c], y = b[c];
        switch (merges_[c - 1]) {
            case Merge::mean:
                a[c] = std::isnan(x) ? y : std::isnan(y) ? x : (x * wa + y * wb) / (wa + wb);
                break;
            case Merge::last:
                a[c] = std::isnan(y) ? x : y;
                break;
            case Merge::bit_or:
                a[c] = std::isnan(x) && std::isnan(y) ? nan : static_cast<double>(bits_of(x) | bits_of(y));
                break;
        }
    }
}

void SampleTable::halve() {
    // Rows 1, 2, ... merge in pairs into rows 1, 2, ...; row 0 stays.
    const std::size_t merged = rows_ - 1, pairs = merged / 2;
    for (std::size_t i = 0; i < pairs; ++i) {
        const std::size_t a = 1 + 2 * i, b = a + 1, to = 1 + i;
        merge_into(&data_[a * stride_], &data_[b * stride_], weights_[a], weights_[b]);
        const std::uint32_t weight = weights_[a] + weights_[b];
        if (to != a) std::copy_n(&data_[a * stride_], stride_, &data_[to * stride_]);
        weights_[to] = weight;
    }
    if (merged % 2 == 1) {
        std::copy_n(&data_[(rows_ - 1) * stride_], stride_, &data_[(1 + pairs) * stride_]);
        weights_[1 + pairs] = weights_[rows_ - 1];
    }
    rows_ = 1 + pairs + merged % 2;
    data_.resize(rows_ * stride_);
    weights_.resize(rows_);
    ++halvings_;
}

std::vector<double> SampleTable::column(std::size_t column) const {
    std::vector<double> out(rows_);
    for (std::size_t r = 0; r < rows_; ++r) out[r] = value(r, column);
    return out;
}

std::vector<double> SampleTable::times() const {
    std::vector<double> out(rows_);
    for (std::size_t r = 0; r < rows_; ++r) out[r] = time(r);
    return out;
}

void SamplingThread::start(std::chrono::nanoseconds interval, std::function<void()> sample) {
    stop();
    stopping_ = false;
    thread_ = std::thread([this, interval, sample = std::move(sample)] {
        std::unique_lock lock(mutex_);
        auto next = std::chrono::steady_clock::now() + interval;
        for (;;) {
            if (wake_.wait_until(lock, next, [this] { return stopping_; })) return;
            lock.unlock();
            sample();
            lock.lock();
            // A late sample (a loaded machine) moves the schedule instead of bursting.
            const auto now = std::chrono::steady_clock::now();
            next += interval;
            if (next < now) next = now + interval;
        }
    });
}

void SamplingThread::stop() {
    if (!thread_.joinable()) return;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void SamplingThread::start_sampling(double interval_ms, std::function<void()> sample) {
    if (running()) return;
    sample();
    if (interval_ms <= 0) return;
    last_sample_ = sample;
    start(std::chrono::nanoseconds(static_cast<long long>(interval_ms * 1e6)), std::move(sample));
}

void SamplingThread::stop_sampling() {
    if (!running()) return;
    stop();
    last_sample_();
}

double seconds_since(std::chrono::steady_clock::time_point origin, std::chrono::steady_clock::time_point when) {
    return std::chrono::duration<double>(when - origin).count();
}

}  // namespace bench::detail
