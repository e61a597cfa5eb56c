// Scenarios that are variants of one another: the same benchmark at the same point of
// every other axis. The plan interleaves them in rounds; the statistics compare them
// (speedups over eager).
#pragma once

#include <string>

#include <bench/config.hpp>

namespace benchhost {

/// Whether two scenarios are variants of the same benchmark at the same point of every
/// other axis (batch size, dtype, device, threads, parameters, ...): the scenarios
/// whose ratios a run reports, and which --rounds interleaves.
bool differ_only_in_variant(const bench::ScenarioConfig& a, const bench::ScenarioConfig& b);

/// A key that two configs share exactly when differ_only_in_variant holds for them, so
/// that grouping N scenarios is a hash lookup each, not a scan.
std::string variant_group_key(const bench::ScenarioConfig& config);

/// A key that two configs share exactly when they differ in nothing but the world size
/// (their variant and compile mode alike): a distributed benchmark's scenarios at each
/// world size, whose throughputs its scaling efficiency compares.
std::string world_size_group_key(const bench::ScenarioConfig& config);

}  // namespace benchhost
