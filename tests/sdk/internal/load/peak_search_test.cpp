// The search for the peak rate (--find-peak) against made-up servers whose percentile as
// a function of the rate is known, and the early verdict of a rate against the verdict
// of all its queries. Nothing here reads a clock.
#include <bench/internal/load/peak_search.hpp>

#include <bench/internal/load/arrivals.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace {

using bench::PeakSearch;
using bench::PeakSearchSettings;
using bench::PeakStep;
using bench::RateJudge;

/// A server whose p99 latency at rate r is S / (1 - r S) (ms, with S in ms and r per
/// ms), infinite at capacity and beyond: the peak under a bound B is (1 - S/B) / S.
struct FakeServer {
    double service_ms = 2;
    std::vector<double> rates;  // the rates it was asked for, in order

    double p99(double rate_per_s) const {
        const double load = rate_per_s * service_ms / 1000;
        return load < 1 ? service_ms / (1 - load) : std::numeric_limits<double>::infinity();
    }
    double peak(double bound_ms) const { return (1 - service_ms / bound_ms) / service_ms * 1000; }

    bench::PeakStepRunner runner(double bound_ms) {
        return [this, bound_ms](double rate, const std::string&) {
            rates.push_back(rate);
            PeakStep step;
            step.metrics.push_back({"latency", bound_ms, service_ms, p99(rate)});
            step.passed = p99(rate) <= bound_ms;
            return step;
        };
    }
};

TEST(PeakSearch, DoublesUntilARateFailsThenHalvesTheSpanToThePrecision) {
    FakeServer server;  // 2 ms: capacity 500/s; under 10.5 ms the peak is 404.8/s
    const double bound = 10.5;
    PeakSearchSettings settings;
    settings.start_qps = 50;
    settings.precision = 0.01;
    const PeakSearch search = bench::search_peak(settings, server.runner(bound));
    EXPECT_NEAR(server.peak(bound), 404.76, 0.01);

    EXPECT_EQ(search.end, bench::peak_end_precision);
    // Coarse: 50, 100, 200, 400 pass, 800 fails.
    ASSERT_GE(search.steps.size(), 5u);
    const std::vector<double> coarse = {50, 100, 200, 400, 800};
    for (std::size_t i = 0; i < coarse.size(); ++i) {
        EXPECT_EQ(search.steps[i].phase, "coarse") << i;
        EXPECT_DOUBLE_EQ(search.steps[i].target_qps, coarse[i]) << i;
    }
    EXPECT_FALSE(search.steps[4].passed);
    // Binary from [400, 800]: 600, 500, 450, 425, 412.5 and 406.25 fail, 403.125 passes,
    // and 406.25 is within 1% of it.
    const std::vector<double> binary = {600, 500, 450, 425, 412.5, 406.25, 403.125};
    ASSERT_EQ(search.steps.size(), coarse.size() + binary.size());
    for (std::size_t i = 0; i < binary.size(); ++i) {
        const PeakStep& step = search.steps[coarse.size() + i];
        EXPECT_EQ(step.phase, "binary") << i;
        EXPECT_DOUBLE_EQ(step.target_qps, binary[i]) << i;
        EXPECT_EQ(step.passed, i + 1 == binary.size()) << step.target_qps;
    }
    EXPECT_DOUBLE_EQ(search.peak_qps, 403.125);
    EXPECT_EQ(server.rates.size(), search.steps.size());
}

TEST(PeakSearch, ThePeakPassedAndTheLowestRateTriedAboveItFailedWithinThePrecision) {
    for (const double bound : {3.0, 5.1, 7.5, 19.5, 100.0}) {
        for (const double start : {1.0, 37.0, 450.0, 5000.0}) {
            for (const double precision : {0.2, 0.05, 0.001}) {
                FakeServer server;
                PeakSearchSettings settings;
                settings.start_qps = start;
                settings.precision = precision;
                const PeakSearch search = bench::search_peak(settings, server.runner(bound));
                const std::string at = "bound " + std::to_string(bound) + ", start " + std::to_string(start) +
                                       ", precision " + std::to_string(precision);
                ASSERT_EQ(search.end, bench::peak_end_precision) << at;
                const double truth = server.peak(bound);
                EXPECT_LE(search.peak_qps, truth) << at;
                EXPECT_GE(search.peak_qps, truth / (1 + precision)) << at;
                double lowest_failed = std::numeric_limits<double>::infinity();
                bool peak_passed = false;
                for (const PeakStep& step : search.steps) {
                    EXPECT_EQ(step.passed, server.p99(step.target_qps) <= bound) << at;
                    if (step.target_qps == search.peak_qps) peak_passed = step.passed;
                    if (step.target_qps > search.peak_qps) {
                        EXPECT_FALSE(step.passed) << at << ": " << step.target_qps << " passed above the peak";
                        lowest_failed = std::min(lowest_failed, step.target_qps);
                    }
                }
                EXPECT_TRUE(peak_passed) << at;
                EXPECT_GT(lowest_failed, truth) << at;
                EXPECT_LE(lowest_failed - search.peak_qps, precision * search.peak_qps) << at;
            }
        }
    }
}

TEST(PeakSearch, AFirstRateThatFailsIsHalvedUntilOnePasses) {
    FakeServer server;
    PeakSearchSettings settings;
    settings.start_qps = 1600;  // fails; 800 fails; 400 passes under 10.5 ms
    settings.precision = 0.25;
    const PeakSearch search = bench::search_peak(settings, server.runner(10.5));
    ASSERT_GE(search.steps.size(), 3u);
    EXPECT_DOUBLE_EQ(search.steps[0].target_qps, 1600);
    EXPECT_DOUBLE_EQ(search.steps[1].target_qps, 800);
    EXPECT_DOUBLE_EQ(search.steps[2].target_qps, 400);
    EXPECT_TRUE(search.steps[2].passed);
    EXPECT_EQ(search.steps[2].phase, "coarse");
    EXPECT_DOUBLE_EQ(search.peak_qps, 400);  // 600 and 500 fail; 500 is within 25% of 400
    EXPECT_EQ(search.steps.size(), 5u);
}

TEST(PeakSearch, NoRatePassingOrNoneFailingOrTooFewStepsEndTheSearchSayingSo) {
    FakeServer server;
    PeakSearchSettings settings;
    settings.start_qps = 100;
    settings.max_halvings = 5;
    PeakSearch search = bench::search_peak(settings, server.runner(1.5));  // below the service time: never met
    EXPECT_EQ(search.end, bench::peak_end_no_pass);
    EXPECT_TRUE(std::isnan(search.peak_qps));
    EXPECT_EQ(search.steps.size(), 6u);
    EXPECT_DOUBLE_EQ(search.steps.back().target_qps, 100.0 / 32);

    settings.max_doublings = 4;
    search = bench::search_peak(settings, [](double, const std::string&) {
        PeakStep step;
        step.passed = true;
        return step;
    });
    EXPECT_EQ(search.end, bench::peak_end_no_fail);
    EXPECT_DOUBLE_EQ(search.peak_qps, 1600);
    EXPECT_EQ(search.steps.size(), 5u);

    settings.max_steps = 7;  // 100, 200, 400 pass, 800, 600, 500, 450 fail
    settings.precision = 1e-9;
    search = bench::search_peak(settings, server.runner(10.5));
    EXPECT_EQ(search.end, bench::peak_end_steps);
    EXPECT_EQ(search.steps.size(), 7u);
    EXPECT_DOUBLE_EQ(search.peak_qps, 400);

    settings.start_qps = 0;
    EXPECT_THROW(bench::search_peak(settings, server.runner(10.5)), std::invalid_argument);
}

// ---- the verdict of one rate ------------------------------------------------------

bench::QueryTimes query_of(double latency_ms) { return bench::QueryTimes{0, 0, 0, latency_ms, {}, 1}; }

TEST(RateJudge, FailsOnceMoreQueriesMissedTheBoundThanThePercentileAllows) {
    // p99 of 200: h = 197.01, interpolated between ranks 197 and 198 (from 0): it is over
    // the bound for certain once 200 - 197 = 3 queries are.
    RateJudge judge({{"latency", 10}}, 99, 200);
    EXPECT_EQ(judge.add(query_of(50)), RateJudge::Verdict::undecided);
    EXPECT_EQ(judge.add(query_of(5)), RateJudge::Verdict::undecided);
    EXPECT_EQ(judge.add(query_of(11)), RateJudge::Verdict::undecided);
    EXPECT_EQ(judge.add(query_of(10)), RateJudge::Verdict::undecided);  // at the bound: within it
    EXPECT_EQ(judge.add(query_of(12)), RateJudge::Verdict::failed);
    EXPECT_EQ(judge.why(), "3 of 5 queries over the latency bound, enough to take p99 of 200 over it");
}

TEST(RateJudge, PassesOnceNoQueryLeftCouldTakeThePercentileOverTheBound) {
    // p50 of 10: h = 4.5, between ranks 4 and 5: within the bound for certain while the
    // queries over it and those left come to at most 10 - 1 - 5 = 4.
    RateJudge judge({{"latency", 10}}, 50, 10);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(judge.add(query_of(1)), RateJudge::Verdict::undecided) << i;
    EXPECT_EQ(judge.add(query_of(1)), RateJudge::Verdict::passed);  // 4 left
    EXPECT_EQ(judge.why(), "no query left could take p50 over a bound (4 of 10 not served)");
}

TEST(RateJudge, AQueryWithoutTokensMissesABoundOnTokens) {
    RateJudge judge({{"latency", 100}, {"ttft", 10}}, 90, 10);  // h = 8.1: over for certain at 2
    EXPECT_EQ(judge.add(query_of(1)), RateJudge::Verdict::undecided);
    EXPECT_EQ(judge.add(query_of(1)), RateJudge::Verdict::failed);
}

/// The times of queries arriving at `arrivals` (s) at a single server whose service
/// takes `service_ms`, as Lindley's recursion gives them, in order of completion.
std::vector<bench::QueryTimes> single_server(const std::vector<double>& arrivals, double service_ms) {
    std::vector<bench::QueryTimes> out;
    double free_at = 0;
    for (const double arrival_s : arrivals) {
        const double arrival = arrival_s * 1000;
        const double start = std::max(arrival, free_at);
        free_at = start + service_ms;
        out.push_back({arrival, arrival, start, free_at, {}, 1});
    }
    return out;
}

TEST(RateJudge, AnEarlyVerdictIsTheVerdictOfEveryQuery) {
    // An M/D/1 queue simulated over seeded Poisson arrivals at rates around its peak:
    // whenever the judge decides early, serving every query decides the same.
    const double service_ms = 2;
    int early = 0;
    for (const double percentile : {50.0, 90.0, 99.0}) {
        for (const long long planned : {10LL, 200LL, 1000LL}) {
            for (double rate = 100; rate <= 600; rate += 25) {
                for (std::uint64_t seed = 1; seed <= 3; ++seed) {
                    const auto queries = single_server(
                        bench::arrival_times(rate, static_cast<std::size_t>(planned), 1.0, seed), service_ms);
                    const std::vector<bench::Slo> slos = {{"latency", 8}};
                    const PeakStep all = bench::peak_step(queries, slos, percentile, 1.0, rate, planned);
                    RateJudge judge(slos, percentile, planned);
                    std::vector<bench::QueryTimes> served;
                    RateJudge::Verdict verdict = RateJudge::Verdict::undecided;
                    for (const auto& q : queries) {
                        served.push_back(q);
                        verdict = judge.add(q);
                        if (verdict != RateJudge::Verdict::undecided) break;
                    }
                    const PeakStep step =
                        bench::peak_step(served, slos, percentile, 1.0, rate, planned, verdict, judge.why());
                    EXPECT_EQ(step.passed, all.passed) << "p" << percentile << " of " << planned << " at " << rate;
                    EXPECT_EQ(step.queries, static_cast<long long>(served.size()));
                    EXPECT_EQ(step.planned, planned);
                    EXPECT_EQ(step.stopped_early.empty(), served.size() == queries.size());
                    early += served.size() < queries.size();
                }
            }
        }
    }
    EXPECT_GT(early, 100);  // the early verdicts were tested, not only full runs
}

TEST(PeakStepFigures, PercentilesOfEachBoundGoodputAndTheRate) {
    std::vector<bench::QueryTimes> queries;
    for (int i = 0; i < 10; ++i) {
        bench::QueryTimes q{i * 10.0, i * 10.0, i * 10.0, i * 10.0 + i + 1, {i * 10.0 + 0.5}, 1};
        if (i == 9) q.tokens.clear();  // no ttft: infinite
        queries.push_back(q);
    }
    const PeakStep step = bench::peak_step(queries, {{"latency", 5}, {"ttft", 1}}, 90, 1.0, 111, 10);
    ASSERT_EQ(step.metrics.size(), 2u);
    EXPECT_EQ(step.metrics[0].metric, "latency");
    EXPECT_DOUBLE_EQ(step.metrics[0].p50_ms, 5.5);  // latencies 1..10
    EXPECT_DOUBLE_EQ(step.metrics[0].percentile_ms, 9.1);  // rank 8.1
    EXPECT_DOUBLE_EQ(step.metrics[1].p50_ms, 0.5);
    EXPECT_TRUE(std::isinf(step.metrics[1].percentile_ms));  // rank 8.1 reaches the query without tokens
    EXPECT_DOUBLE_EQ(step.goodput, 50);  // latency <= 5 and ttft <= 1: queries 0 to 4
    EXPECT_FALSE(step.passed);
    EXPECT_DOUBLE_EQ(step.target_qps, 111);
    EXPECT_DOUBLE_EQ(step.achieved_qps, 10 / 0.090);  // the last issue at 90 ms
    EXPECT_EQ(step.queries, 10);
    EXPECT_TRUE(step.stopped_early.empty());
}

}  // namespace
