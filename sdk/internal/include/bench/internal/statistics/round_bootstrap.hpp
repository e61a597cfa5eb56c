// Intervals that know the noise between runs. Samples taken in the same few seconds
// share that moment's load, clock frequency and cache state, so the samples of one run
// are not independent draws: two runs of the same build differ by more than their
// samples' spread says. The unit of evidence is the round (one worker run of a
// scenario), and these intervals are over rounds:
//
// - hierarchical_ratio_interval: two sides measured in rounds each (run --rounds N);
//   a resample picks rounds with replacement, then samples within each picked round.
//   A percentile bootstrap expanded for few rounds (Hesterberg's expanded percentile
//   interval): the tails are taken at Phi(-sqrt(n/(n-1)) t_{n-1}) instead of
//   (1 - level) / 2, n the rounds of the side with fewer. A plain percentile bootstrap
//   is too narrow with few rounds; the expansion errs wide instead (docs/statistics.md
//   has the coverage of both on 5 rounds).
// - paired_ratio_interval: A/B rounds run back to back (A B B A ...), one ratio per
//   pair: what a pair shares (the moment's load) cancels. The ratio is the
//   Hodges-Lehmann estimate of the pairs' log ratios (the median of the means of every
//   two of them), its interval Wilcoxon's signed-rank interval, exact for any noise
//   that is symmetric around the true ratio (as ABBA order makes it between sides of
//   the same build): no assumption of normal noise, a stalled round moves neither much,
//   and with too few pairs for the level there is no interval at all (6 at 95%), where a
//   bootstrap of 4 pairs would give the range of their ratios and call it 95%.
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed,
// not exported from libbench_sdk.so, not part of the plugin API (sdk/CMakeLists.txt).
#pragma once

#include <span>
#include <vector>

#include <bench/internal/statistics/bootstrap.hpp>

namespace bench {

/// The samples of one side, by round: rounds[i] are the samples of round i.
using RoundSamples = std::vector<std::vector<double>>;

/// Interval of median(numerator) / median(denominator), the medians of all samples of
/// a side pooled, by a two-level bootstrap: rounds, then samples within each round.
/// Invalid (NaN) unless each side has at least two rounds with samples (one round says
/// nothing about the spread between rounds). Non-finite samples and empty rounds are
/// left out.
Interval hierarchical_ratio_interval(const RoundSamples& numerator, const RoundSamples& denominator,
                                     const BootstrapOptions& options = {});

/// The Hodges-Lehmann estimate of new_medians[i] / base_medians[i] over round pairs i:
/// exp of the median of (log r_i + log r_j) / 2 over i <= j. NaN without a pair of
/// positive, finite medians.
double paired_ratio(std::span<const double> base_medians, std::span<const double> new_medians);

/// Wilcoxon's signed-rank interval of the pairs' ratio at `level`: of the sorted means of every two log ratios, the
/// c-th from either end, c = signed_rank_lower_count(n, level). Invalid (NaN) with fewer pairs than
/// fewest_pairs(level); pairs with a non-positive or non-finite median are left out.
Interval paired_ratio_interval(std::span<const double> base_medians, std::span<const double> new_medians,
                               double level = 0.95);

/// How many of the smallest signed-rank sums of n pairs lie in the lower tail
/// (1 - level) / 2 of their distribution: the c of paired_ratio_interval; 0 when even
/// the smallest does not (too few pairs).
std::size_t signed_rank_lower_count(std::size_t n, double level);

/// The fewest pairs with an interval at `level`: 6 at 95%, 8 at 99%.
std::size_t fewest_pairs(double level);

/// The one-sided tail probability the expanded percentile interval reads its bounds
/// at, for `n` independent units (rounds, pairs) and a two-sided `level`:
/// Phi(-sqrt(n / (n - 1)) t_{n-1}((1 + level) / 2)). (1 - level) / 2 for large n.
double expanded_tail(std::size_t n, double level);

}  // namespace bench
