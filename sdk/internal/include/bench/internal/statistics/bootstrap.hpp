// Confidence intervals by the percentile bootstrap: resample with replacement, take
// the statistic of each resample, read the interval off their distribution. It makes
// no assumption about the shape of the samples, which benchmark timings rarely have.
// The resampling is seeded, so the same samples give the same interval.
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed,
// not exported from libbench_sdk.so, not part of the plugin API (sdk/CMakeLists.txt).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

namespace bench {

struct Interval {
    double low = std::numeric_limits<double>::quiet_NaN();
    double high = std::numeric_limits<double>::quiet_NaN();

    bool valid() const { return low == low && high == high; }  // neither is NaN
    bool contains(double x) const { return valid() && low <= x && x <= high; }
};

struct BootstrapOptions {
    /// Resamples of small series; long series get fewer (bootstrap_resamples), so that
    /// an interval of 100,000 samples costs no more than one of 20,000.
    int resamples = 1000;
    double level = 0.95;
    std::uint64_t seed = 0x5EED'B007'57A9ULL;
};

enum class Statistic { median, mean };

/// Resamples used for a series of `n` samples: options.resamples, fewer when
/// resamples x n would pass 2e7 element draws, and never fewer than 200.
int bootstrap_resamples(std::size_t n, const BootstrapOptions& options = {});

/// The interval of `statistic` of the population `samples` come from. Fewer than two
/// samples give an invalid (NaN) interval.
Interval bootstrap_interval(std::span<const double> samples, Statistic statistic, const BootstrapOptions& options = {});

/// The interval of median(numerator) / median(denominator), each side resampled on
/// its own (the two series are independent measurements). A speedup of B over A is
/// bootstrap_ratio_interval(a, b): median(a) / median(b).
Interval bootstrap_ratio_interval(std::span<const double> numerator, std::span<const double> denominator,
                                  const BootstrapOptions& options = {});

/// The distribution-free interval of the median from order statistics (binomial,
/// normal approximation): cheap enough to check after every few samples, which is
/// what a stopping rule needs. `sorted` must be ascending.
Interval median_interval_of_sorted(std::span<const double> sorted, double level = 0.95);

}  // namespace bench
