// Compare: two runs of the same suite, scenario by scenario. For each time series both
// runs measured (latency, time to first token, ...), the ratio of the medians with its
// confidence interval and a verdict. This is what `benchhost compare` and `benchhost run
// --baseline` print, and what fails a CI job.
//
// The evidence depends on what the runs hold. Samples of one run share that moment's
// load, so two runs differ by more than their samples' spread says:
// - both sides measured in rounds (run --rounds N, N >= 2): the interval resamples
//   rounds, then samples within them (bench/internal/round_bootstrap.hpp), and the
//   verdict reads the interval: "slower" when it lies above 1 and the ratio passes the
//   threshold, "inconclusive" when it reaches past the threshold without that;
// - one round on either side: the samples alone, a bootstrap interval and a
//   Mann-Whitney U test, which cannot see the noise between runs.
#pragma once

#include <string>
#include <vector>

#include <bench/internal/bootstrap.hpp>

#include "run/run_record.hpp"

namespace benchhost {

struct CompareOptions {
    double threshold = 0.05;  // a change smaller than this is "same", however significant
    double alpha = 0.05;      // significance level of the U test
};

/// inconclusive: the interval reaches past the threshold, but does not exclude no change.
enum class Verdict { faster, slower, same, inconclusive };
std::string_view to_string(Verdict verdict);

struct SeriesComparison {
    std::string scenario_id;
    std::string series;
    double base_median_ms = 0, new_median_ms = 0;
    std::size_t base_samples = 0, new_samples = 0;
    double ratio = 0;    // new median / base median: above 1 is slower
    bench::Interval ratio_ci;  // 95%, bootstrap
    double p_value = 1;  // Mann-Whitney U, two-sided
    Verdict verdict = Verdict::same;
    std::string note;  // why the verdict could not be "slower" or "faster" (too few samples, ...)
    /// What the interval and the verdict rest on: "rounds" (between-round spread seen)
    /// or "samples" (one run each: the spread between runs is not seen).
    std::string evidence = "samples";
    int base_rounds = 1, new_rounds = 1;
};

struct Comparison {
    std::string base_label, new_label;  // the folders compared
    CompareOptions options;
    std::vector<SeriesComparison> rows;
    std::vector<std::string> only_in_base, only_in_new;  // scenario ids
    /// Scenarios in both runs that could not be compared: "<id>: failed in new run (...)".
    std::vector<std::string> not_compared;
    /// Why the runs' figures may not be comparable: "cpu.model: X (base) vs Y (new)".
    std::vector<std::string> incomparable;
    double geomean_ratio = 0;  // of all rows' ratios; NaN without rows

    std::size_t count(Verdict verdict) const;
    /// Rows significantly slower by more than the threshold.
    std::size_t regressions() const { return count(Verdict::slower); }
};

/// Compares every scenario of `next` with the scenario of the same id in `base`.
Comparison compare_runs(const RunRecord& base, const RunRecord& next, const CompareOptions& options = {});

/// The machine and build facts that differ between two runs (see Comparison::incomparable).
std::vector<std::string> incomparable_facts(const HardwareInfo& base, const HardwareInfo& next);

}  // namespace benchhost
