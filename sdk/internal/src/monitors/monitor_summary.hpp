// Private to the SDK: turning a table of samples into a MonitorReport, after sampling
// ended (this may allocate freely).
//
// Which samples count as "during measurement": sample i stands for the time since the
// sample before it, (t[i-1], t[i]]; it counts when that span overlaps a measurement
// window. So a window shorter than the sampling interval still has the sample that
// covers it. With no window at all, every sample counts.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include <bench/measurement_window.hpp>
#include <bench/monitor_report.hpp>

#include "sample_table.hpp"

namespace bench::detail {

struct Span {
    double start = 0, stop = 0;  // seconds since the monitor's origin
};

/// The windows in seconds since `origin`.
std::vector<Span> spans_of(const std::vector<MeasurementWindow>& windows, Clock::time_point origin);

/// Per sample: 1 when it counts (see above), else 0.
std::vector<char> counted_samples(const std::vector<double>& times, const std::vector<Span>& spans);

/// Mean, min and max of the values of counted samples, NaN skipped.
MetricStats stats_of(const std::vector<double>& values, const std::vector<char>& counted, std::string unit);

/// Per sample: the rate of change of a cumulative counter since the sample before, in
/// counter units per second, times `scale`; NaN for the first sample.
std::vector<double> rate_of(const std::vector<double>& times, const std::vector<double>& counter, double scale);

/// A cumulative quantity at time `t`, interpolated linearly between samples (clamped
/// to the first and last sample); NaN readings are skipped.
double value_at(const std::vector<double>& times, const std::vector<double>& cumulative, double t);

/// How much a cumulative quantity grew during the spans.
double growth_during(const std::vector<double>& times, const std::vector<double>& cumulative,
                     const std::vector<Span>& spans);

/// The last reading minus the first (NaN readings skipped).
double growth(const std::vector<double>& cumulative);

/// A timeline of at most MonitorTimeline::max_points points: the samples themselves
/// when there are few enough, else means of consecutive runs of samples. Adds the
/// series "in_measurement" (1: the sample counts; for a reduced point, the fraction).
MonitorTimeline make_timeline(const std::vector<double>& times,
                              const std::vector<std::pair<std::string, std::vector<double>>>& series,
                              const std::vector<char>& counted);

/// "12.5" for 12.5, "3" for 3.0: for warnings.
std::string format_number(double value, int precision = 3);

}  // namespace bench::detail
