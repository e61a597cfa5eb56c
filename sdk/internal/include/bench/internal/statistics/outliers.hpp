// Outliers by Tukey's fences: a sample more than 1.5 interquartile ranges outside the
// quartiles is a mild outlier, more than 3 a severe one. They are counted, never
// dropped: a benchmark's outliers are often the thing to look at.
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed,
// not exported from libbench_sdk.so, not part of the plugin API (sdk/CMakeLists.txt).
#pragma once

#include <cstddef>
#include <span>

namespace bench {

struct OutlierCounts {
    std::size_t low_severe = 0;  // below p25 - 3 IQR
    std::size_t low_mild = 0;  // between p25 - 3 IQR and p25 - 1.5 IQR
    std::size_t high_mild = 0;  // between p75 + 1.5 IQR and p75 + 3 IQR
    std::size_t high_severe = 0;  // above p75 + 3 IQR

    std::size_t total() const { return low_severe + low_mild + high_mild + high_severe; }
    friend bool operator==(const OutlierCounts&, const OutlierCounts&) = default;
};

/// Classifies `sorted` (ascending) with the quartiles of percentile_of_sorted.
OutlierCounts classify_outliers(std::span<const double> sorted);

}  // namespace bench
