#include <bench/internal/statistics/outliers.hpp>

#include <bench/statistics.hpp>

namespace bench {

OutlierCounts classify_outliers(std::span<const double> sorted) {
    OutlierCounts counts;
    if (sorted.size() < 4) return counts;  // quartiles of fewer samples mean little
    const double q1 = percentile_of_sorted(sorted, 25);
    const double q3 = percentile_of_sorted(sorted, 75);
    const double iqr = q3 - q1;
    const double low_mild = q1 - 1.5 * iqr, low_severe = q1 - 3 * iqr;
    const double high_mild = q3 + 1.5 * iqr, high_severe = q3 + 3 * iqr;
    for (const double x : sorted) {
        if (x < low_severe) {
            ++counts.low_severe;
        } else if (x < low_mild) {
            ++counts.low_mild;
        } else if (x > high_severe) {
            ++counts.high_severe;
        } else if (x > high_mild) {
            ++counts.high_mild;
        }
    }
    return counts;
}

}  // namespace bench
