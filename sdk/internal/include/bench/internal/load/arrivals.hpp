// The arrival times of a server load (--load server --target-qps R [--burstiness K]),
// drawn up front from a seeded generator, so that a run can be repeated exactly and a
// test can check the process without timing anything.
//
// Internal (sdk/internal): for the SDK's serving loop and the tests; not installed,
// not exported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bench {

/// `count` arrival times in seconds from the start of the load, increasing, at `rate`
/// per second: the gaps between arrivals are gamma-distributed with shape `burstiness`
/// (1: exponential, a Poisson process; 0.25: four times the variance of Poisson's), then
/// scaled together so that they add up to exactly count / rate. For exponential gaps
/// that is a Poisson process conditioned on its count-th arrival coming at count / rate:
/// the run's arrival rate is the target, and what is random is where the arrivals fall.
/// The same arguments give the same times on every machine (the generator is
/// std::mt19937_64 and the distributions are computed here, not by the standard
/// library, whose gamma distribution differs between implementations).
/// std::invalid_argument for a rate or a burstiness that is not above 0.
std::vector<double> arrival_times(double rate, std::size_t count, double burstiness, std::uint64_t seed);

}  // namespace bench
