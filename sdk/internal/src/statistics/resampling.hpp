// What the bootstraps share (bootstrap.cpp, block_length.cpp, round_bootstrap.cpp): the median of a
// scratch vector, reproducible random indices, resampling, and reading an interval off
// the sorted estimates.
#pragma once

#include <cstddef>
#include <random>
#include <span>
#include <vector>

#include <bench/internal/statistics/bootstrap.hpp>

namespace bench::detail {

/// Median of `values`, reordering them (the mean of the two middle values when even).
double median_in_place(std::vector<double>& values);

/// Index in [0, n). Not std::uniform_int_distribution, whose output differs between
/// standard libraries: intervals reproduce everywhere. The modulo bias is below n / 2^64.
inline std::size_t random_index(std::mt19937_64& rng, std::size_t n) { return static_cast<std::size_t>(rng() % n); }

/// `out` = samples.size() draws from `samples` with replacement.
void resample(std::span<const double> samples, std::mt19937_64& rng, std::vector<double>& out);

/// `out` = samples.size() values of `samples` drawn in runs of `block` consecutive ones,
/// each run starting anywhere and wrapping past the end (the circular block bootstrap).
/// A block of 1 draws exactly what resample() draws.
void resample_blocks(std::span<const double> samples, std::size_t block, std::mt19937_64& rng,
                     std::vector<double>& out);

/// [p, 1 - p] percentiles of the finite `estimates` (sorted in place), `tail` = p in
/// [0, 0.5]; invalid when none is finite.
Interval percentile_interval(std::vector<double>& estimates, double tail);

}  // namespace bench::detail
