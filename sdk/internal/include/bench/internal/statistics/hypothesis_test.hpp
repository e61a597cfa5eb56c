// Is one series of samples different from another? The Mann-Whitney U test (as
// Google Benchmark's compare.py uses): it compares ranks, so it needs no assumption
// of normality and one wild sample cannot decide it.
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed,
// not exported from libbench_sdk.so, not part of the plugin API (sdk/CMakeLists.txt).
#pragma once

#include <span>

namespace bench {

struct MannWhitneyResult {
    double u = 0;  // U of the first sample set
    double p_value = 1;  // two-sided
    bool exact = false;  // exact distribution (small samples without ties) or normal approximation
};

/// Two-sided test of "a and b come from the same distribution". Exact for small sets
/// without ties, else the normal approximation with tie and continuity corrections.
/// An empty side gives p = 1.
MannWhitneyResult mann_whitney_u(std::span<const double> a, std::span<const double> b);

}  // namespace bench
