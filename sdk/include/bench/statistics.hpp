// Summary statistics of a series of samples.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include <bench/export.hpp>

namespace bench {

struct Summary {
    std::size_t count = 0;
    double mean = 0, median = 0, std = 0, min = 0, max = 0;
    double p25 = 0, p75 = 0, p90 = 0, p95 = 0, p99 = 0;
};

/// Percentile `q` in [0, 100] of sorted samples, interpolated linearly between the
/// two nearest ranks (NumPy's default method). Empty input gives NaN.
BENCH_EXPORT double percentile_of_sorted(std::span<const double> sorted, double q);

/// Over the finite samples only: a NaN or infinite sample is left out (`count` is of the
/// samples used). `std` is the sample standard deviation (n - 1 in the denominator; 0
/// for one sample). No finite sample gives count 0 and NaN everywhere else.
BENCH_EXPORT Summary summarize(std::span<const double> samples);

}  // namespace bench
