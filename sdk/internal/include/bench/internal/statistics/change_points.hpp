// Change points of a run history: where a series of figures over commits (a scenario's
// median, run after run) steps to a new level and stays there. One slow run is noise;
// a step that the runs after it keep is a change, and this finds where it starts.
//
// The method is E-divisive means (Matteson and James 2014, "A nonparametric approach
// for multiple change point analysis of multivariate data"; the R package ecp, and the
// method behind MongoDB's and Hunter's (Apache Otava's) change detection), for one
// series:
//
// - The divergence of two sets of points is how much farther apart points of different
//   sets are than points of the same set (the energy distance, with distances
//   |x - y|^alpha). Q of a split scales it by the sets' sizes, m k / (m + k).
// - In a segment, the best split is the tau (and the kappa) that maximise Q of
//   [begin, tau) against [tau, kappa): kappa lets a short bump in a long segment stand
//   out, where comparing with the whole rest would dilute it. MongoDB and Hunter use
//   kappa = the segment's end; this is Matteson and James's own search.
// - The segments are split one change at a time: of all segments' best splits, the
//   largest Q is tested, by permutations: each segment's points are shuffled (which
//   destroys any order in time), and the largest Q of the shuffled segments is taken,
//   `permutations` times; p = (shuffles that reach the observed Q + 1) / (permutations
//   + 1). When p is below `significance` the split is a change and the search goes on
//   in the two new segments, else it stops. The test that ends the search weighs
//   all segments at once, as its shuffles do: a series with no change left raises a
//   false alarm in about `significance` of cases, however many segments it has.
//
// Nothing is assumed about the shape of the noise: the divergence compares the points'
// distributions, not their means, so a change of spread is a change too, and with
// alpha = 1 a far outlier weighs by its distance, not by its square.
//
// Cost: O(n^2) time per shuffle. The first test shuffles the whole series
// `permutations` times; each accepted change shuffles its two new segments (the
// shuffles of the segments that are not split are kept). alpha other than 1 reads a
// table of all pairs' distances: 8 n^2 bytes (8 MB for 1000 points). Measured
// 2026-11-24 on the 2-core development VM (Release, one thread, load average near 3
// from other builds; the range of several runs), 199 permutations, alpha = 1, 3%
// noise: 200 points, flat 8-12 ms, three steps 16-23 ms; 1000 points, flat 0.16-0.25 s,
// three steps 0.37-0.48 s (alpha = 1.5: 0.39-0.61 s).
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed,
// not exported from libbench_sdk.so, not part of the plugin API (sdk/CMakeLists.txt).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace bench {

struct ChangePointOptions {
    /// The exponent of the distances |x - y|^alpha, in (0, 2): at 2 the divergence would
    /// only see the means; 1 (the default) sees any change of the distribution.
    double alpha = 1.0;
    /// A split is a change when its permutation p-value is below this. The smallest
    /// p-value possible is 1 / (permutations + 1).
    double significance = 0.05;
    /// Shuffles of the permutation test. Fewer than 1: nothing can be significant.
    int permutations = 199;
    /// Fewest points on either side of a change (2 at least: one point has no spread).
    std::size_t min_segment = 3;
    /// Seeds the shuffles: the same series and options always give the same changes.
    std::uint64_t seed = 1;
};

struct ChangePoint {
    /// The first point of the new level, as a position in the series given (non-finite
    /// values are left out of the analysis, but positions count them).
    std::size_t index = 0;
    /// Medians of the segments on either side: from the change before this one (or the
    /// start) to this one, and from this one to the next (or the end).
    double before = 0, after = 0;
    double relative_change = 0;  // after / before - 1; NaN when before is 0
    double q = 0;  // the divergence statistic Q of the split
    double p_value = 1;  // of the permutation test that accepted it
};

/// The change points of `series`, in index order. Non-finite values are left out. Empty
/// when none is significant, or when fewer than 2 * min_segment values are finite.
/// Throws std::invalid_argument when alpha is outside (0, 2).
std::vector<ChangePoint> e_divisive(std::span<const double> series, const ChangePointOptions& options = {});

}  // namespace bench
