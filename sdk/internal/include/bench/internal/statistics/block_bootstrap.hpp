// Intervals for samples that are not independent of their neighbours in time.
//
// A machine's speed changes over time: samples taken in the same second share its load,
// its clock and, on some virtual machines, a speed state that lasts seconds (docs/
// statistics.md measured one that slows interpreted code 1.75x). Resampling single samples
// then treats a long slow stretch as many independent slow draws and gives an interval
// far too narrow. The circular block bootstrap resamples runs of `block` consecutive
// samples instead (wrapping around the end), which keeps what neighbours share; with a
// block of 1 it is the plain bootstrap, draw for draw.
//
// The block is chosen from the data: Politis and White (2004, "Automatic block-length
// selection for the dependent bootstrap"), with the correction of Patton, Politis and
// White (2009), for the circular block bootstrap. It reads the autocorrelation of the
// series up to the lag where it stops being significant, and grows with how far it
// reaches: 1 for independent samples, up to min(3 sqrt(n), n / 3). It is computed on the
// samples' ranks, so that one far outlier does not make a series look correlated.
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed,
// not exported from libbench_sdk.so, not part of the plugin API (sdk/CMakeLists.txt).
#pragma once

#include <cstddef>
#include <span>

#include <bench/internal/statistics/bootstrap.hpp>

namespace bench {

/// The circular block bootstrap's block length for `samples`, in time order (Politis and
/// White, corrected). 1 for fewer than 8 samples, or when consecutive samples are not
/// correlated.
std::size_t block_length(std::span<const double> samples);

/// The interval of `statistic` of `samples` (in time order) by the circular block
/// bootstrap with blocks of `block` samples (block_length, usually). block <= 1 gives
/// bootstrap_interval's interval exactly.
Interval block_bootstrap_interval(std::span<const double> samples, Statistic statistic, std::size_t block,
                                  const BootstrapOptions& options = {});

/// The interval of median(numerator) / median(denominator), each side resampled in
/// blocks of its own length. Blocks of 1 give bootstrap_ratio_interval's interval
/// exactly.
Interval block_bootstrap_ratio_interval(std::span<const double> numerator, std::size_t numerator_block,
                                        std::span<const double> denominator, std::size_t denominator_block,
                                        const BootstrapOptions& options = {});

}  // namespace bench
