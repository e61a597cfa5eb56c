#include <bench/internal/load/load_figures.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <string>

namespace bench {

std::optional<double> slo_metric_value(const QueryTimes& q, const std::string& metric) {
    if (metric == "latency") return q.completed - q.scheduled;
    if (q.tokens.empty()) return std::nullopt;
    if (metric == "ttft") return q.tokens.front() - q.scheduled;
    if (q.tokens.size() < 2) return 0.0;  // one token: no gap to bound
    if (metric == "tpot") return (q.tokens.back() - q.tokens.front()) / static_cast<double>(q.tokens.size() - 1);
    double largest = 0;  // itl: every gap must be within the bound
    for (std::size_t i = 1; i < q.tokens.size(); ++i) largest = std::max(largest, q.tokens[i] - q.tokens[i - 1]);
    return largest;
}

LoadFigures load_figures(const std::vector<QueryTimes>& queries, double late_tolerance_ms,
                         const std::vector<Slo>& slos) {
    LoadFigures f;
    double last_issue = 0, last_completion = 0;
    long long samples = 0;
    std::vector<bool> unmeasured(slos.size(), false);
    for (const QueryTimes& q : queries) {
        f.latency.push_back(q.completed - q.scheduled);
        f.queue_wait.push_back(q.started - q.scheduled);
        f.service_time.push_back(q.completed - q.started);
        if (!q.tokens.empty()) f.ttft.push_back(q.tokens.front() - q.scheduled);
        if (q.tokens.size() >= 2)
            f.tpot.push_back((q.tokens.back() - q.tokens.front()) / static_cast<double>(q.tokens.size() - 1));
        for (std::size_t i = 1; i < q.tokens.size(); ++i) f.itl.push_back(q.tokens[i] - q.tokens[i - 1]);
        const double delay = q.issued - q.scheduled;
        f.max_issue_delay_ms = std::max(f.max_issue_delay_ms, delay);
        if (delay > late_tolerance_ms) ++f.late_issues;
        last_issue = std::max(last_issue, q.issued);
        last_completion = std::max(last_completion, q.completed);
        samples += q.samples;
        bool met = true;
        for (std::size_t i = 0; i < slos.size(); ++i) {
            const std::optional<double> value = slo_metric_value(q, slos[i].metric);
            if (!value) unmeasured[i] = true;
            if (!value || *value > slos[i].limit_ms) met = false;
        }
        if (met) ++f.slo_met;
    }
    // One at a time or not: in the order they started, none before the last completed.
    std::vector<std::size_t> order(queries.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return queries[a].started < queries[b].started; });
    bool one_at_a_time = true;
    for (std::size_t i = 1; i < order.size() && one_at_a_time; ++i)
        one_at_a_time = queries[order[i]].started >= queries[order[i - 1]].completed;
    if (one_at_a_time) {
        f.late_starts = 0;
        for (std::size_t i = 0; i < order.size(); ++i) {
            const QueryTimes& q = queries[order[i]];
            const double ready = i == 0 ? q.issued : std::max(q.issued, queries[order[i - 1]].completed);
            f.max_start_delay_ms = std::max(f.max_start_delay_ms, q.started - ready);
            if (q.started - ready > late_tolerance_ms) ++f.late_starts;
        }
    }
    const double n = static_cast<double>(queries.size());
    const double nan = std::numeric_limits<double>::quiet_NaN();
    f.achieved_qps = last_issue > 0 ? n / (last_issue / 1000.0) : nan;
    f.throughput = last_completion > 0 ? static_cast<double>(samples) / (last_completion / 1000.0) : nan;
    f.goodput = slos.empty() || queries.empty() ? nan : static_cast<double>(f.slo_met) / n;
    for (std::size_t i = 0; i < slos.size(); ++i)
        if (unmeasured[i]) f.unmeasured_slo_metrics.push_back(slos[i].metric);
    return f;
}

std::pair<double, double> percentile_interval(const std::vector<double>& sorted, double q) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double n = static_cast<double>(sorted.size()), p = q / 100;
    const double half = 1.959963984540054 * std::sqrt(n * p * (1 - p));
    // 1-based ranks j < k with P(j <= B < k) of about 95%, B ~ Binomial(n, p).
    const double j = std::floor(n * p - half), k = std::ceil(n * p + half) + 1;
    return {j >= 1 && j <= n ? sorted[static_cast<std::size_t>(j) - 1] : nan,
            k >= 1 && k <= n ? sorted[static_cast<std::size_t>(k) - 1] : nan};
}

double headline_percentile(LoadMode mode) {
    switch (mode) {
        case LoadMode::none:
        case LoadMode::single_stream:
            return 90;
        case LoadMode::multi_stream:
        case LoadMode::server:
            return 99;
        case LoadMode::offline:
            return 0;
    }
    return 99;
}

}  // namespace bench
