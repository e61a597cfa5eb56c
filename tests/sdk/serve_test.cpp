// Context::serve in process: which figures each load records and how many queries it
// serves. What the figures measure against queueing theory is checked end to end, with
// the mock server (tests/e2e/serving_test.cpp).
#include <bench/context.hpp>

#include "../support/quiet_logger.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <stdexcept>

namespace {

using benchtest::quiet_logger;

bench::ScenarioConfig config_with(bench::LoadConfig load) {
    bench::ScenarioConfig config;
    config.warmup_iterations = 2;
    config.load = std::move(load);
    return config;
}

bench::LoadConfig load_of(bench::LoadMode mode, long long queries) {
    bench::LoadConfig load;
    load.mode = mode;
    load.queries = queries;
    return load;
}

void busy_for(std::chrono::microseconds time) {
    const auto until = bench::Clock::now() + time;
    while (bench::Clock::now() < until) {}
}

double scalar(const bench::Context& ctx, const char* name) {
    const bench::Scalar* s = ctx.result().find_scalar(name);
    if (s == nullptr) throw std::runtime_error(std::string("no scalar ") + name);
    return s->value;
}

TEST(Serve, WithoutALoadItServesSingleStreamTheDefaultQueriesAfterTheWarmup) {
    bench::Context ctx(config_with({}), quiet_logger());
    std::multiset<long long> seen;
    ctx.serve([&](bench::Query& q) {
        seen.insert(q.index());
        EXPECT_EQ(q.samples(), 1);
    });
    EXPECT_TRUE(ctx.served());
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(bench::default_queries + 2));  // 2 warmup queries
    for (const char* name : {"latency", "queue_wait", "service_time"}) {
        ASSERT_NE(ctx.result().find_series(name), nullptr) << name;
        EXPECT_EQ(ctx.result().find_series(name)->samples.size(), static_cast<std::size_t>(bench::default_queries));
        EXPECT_EQ(ctx.result().find_series(name)->unit, "ms");
    }
    for (const double wait : ctx.result().find_series("queue_wait")->samples) EXPECT_GE(wait, 0);
    EXPECT_EQ(ctx.result().find_series("time_to_first_token"), nullptr);  // no tokens
    EXPECT_EQ(ctx.result().info.at("load"), "single-stream");
    EXPECT_NE(ctx.result().info.at("headline_latency").find("p90"), std::string::npos);
    EXPECT_EQ(scalar(ctx, "queries"), bench::default_queries);
    EXPECT_LE(scalar(ctx, "headline_latency_ci95_low"), scalar(ctx, "headline_latency"));  // p90 of 200: both sides
    EXPECT_GE(scalar(ctx, "headline_latency_ci95_high"), scalar(ctx, "headline_latency"));
    EXPECT_EQ(ctx.measurement_windows().size(), 1u);
    EXPECT_EQ(ctx.measurement_windows()[0].iterations, bench::default_queries);
    EXPECT_THROW(ctx.serve([](bench::Query&) {}), std::logic_error);
}

TEST(Serve, MultiStreamQueriesCarryTheirSamples) {
    bench::LoadConfig load = load_of(bench::LoadMode::multi_stream, 20);
    load.samples_per_query = 4;
    bench::Context ctx(config_with(load), quiet_logger());
    ctx.serve([](bench::Query& q) { EXPECT_EQ(q.samples(), 4); });
    EXPECT_EQ(scalar(ctx, "samples_per_query"), 4);
    EXPECT_EQ(ctx.result().find_series("latency")->samples.size(), 20u);
    EXPECT_NE(ctx.result().info.at("headline_latency").find("p99"), std::string::npos);
}

TEST(Serve, OfflineQueriesAllArriveAtTheStartSoTheirWaitsAddUp) {
    bench::LoadConfig load = load_of(bench::LoadMode::offline, 10);
    bench::Context ctx(config_with(load), quiet_logger());
    ctx.serve([](bench::Query&) { busy_for(std::chrono::microseconds(500)); });
    const std::vector<double>& waits = ctx.result().find_series("queue_wait")->samples;
    ASSERT_EQ(waits.size(), 10u);
    for (std::size_t i = 1; i < waits.size(); ++i) EXPECT_GE(waits[i], waits[i - 1] + 0.45) << i;
    EXPECT_GT(scalar(ctx, "throughput"), 0);
    EXPECT_EQ(ctx.result().find_scalar("headline_latency"), nullptr);  // offline is judged by throughput
}

TEST(Serve, AServerLoadIssuesEveryScheduledQueryAndRecordsItsRate) {
    bench::LoadConfig load = load_of(bench::LoadMode::server, 50);
    load.target_qps = 2000;
    load.slos = {{"latency", 1000}};
    bench::Context ctx(config_with(load), quiet_logger());
    std::set<long long> seen;
    ctx.serve([&](bench::Query& q) { seen.insert(q.index()); });
    EXPECT_EQ(seen.size(), 50u);
    EXPECT_EQ(scalar(ctx, "target_qps"), 2000);
    EXPECT_GT(scalar(ctx, "achieved_qps"), 0);
    EXPECT_GE(scalar(ctx, "late_issues"), 0);
    EXPECT_EQ(scalar(ctx, "goodput"), 100);  // a second is far more than any query takes
    EXPECT_EQ(ctx.result().info.at("slo"), "latency=1000ms");
    EXPECT_NE(ctx.result().info.at("arrivals").find("Poisson"), std::string::npos);
}

TEST(Serve, AClosedLoopKeepsItsClientsQueriesQueued) {
    bench::LoadConfig load = load_of(bench::LoadMode::server, 30);
    load.concurrency = 3;
    bench::Context ctx(config_with(load), quiet_logger());
    ctx.serve([](bench::Query&) { busy_for(std::chrono::microseconds(300)); });
    const std::vector<double>& waits = ctx.result().find_series("queue_wait")->samples;
    ASSERT_EQ(waits.size(), 30u);
    // After the start, each query waits behind the other two clients' queries.
    for (std::size_t i = 3; i < waits.size(); ++i) EXPECT_GE(waits[i], 2 * 0.3 * 0.9) << i;
    EXPECT_EQ(scalar(ctx, "concurrency"), 3);
}

TEST(Serve, TokensGiveTheGenerativeFiguresAndAHandlersExceptionPropagates) {
    bench::LoadConfig load = load_of(bench::LoadMode::single_stream, 5);
    bench::Context ctx(config_with(load), quiet_logger());
    ctx.serve([](bench::Query& q) {
        for (int t = 0; t < 4; ++t) {
            busy_for(std::chrono::microseconds(100));
            q.token();
        }
        EXPECT_EQ(q.tokens(), 4);
    });
    EXPECT_EQ(ctx.result().find_series("time_to_first_token")->samples.size(), 5u);
    EXPECT_EQ(ctx.result().find_series("time_per_output_token")->samples.size(), 5u);
    EXPECT_EQ(ctx.result().find_series("inter_token_latency")->samples.size(), 15u);
    for (const double itl : ctx.result().find_series("inter_token_latency")->samples) EXPECT_GE(itl, 0.1);

    load.mode = bench::LoadMode::server;
    load.target_qps = 1000;
    bench::Context failing(config_with(load), quiet_logger());
    EXPECT_THROW(failing.serve([](bench::Query& q) {
        if (q.index() == 3) throw std::runtime_error("query 3 failed");
    }),
                 std::runtime_error);
}

TEST(Serve, FindPeakSkipsWhenItsSloBoundsTokensThatNoQueryReports) {
    bench::LoadConfig load = load_of(bench::LoadMode::server, 20);
    load.find_peak = true;
    load.slos = {{"tpot", 50}};
    bench::ScenarioConfig config = config_with(load);
    config.category = "performance";
    config.plugin = "quiet";
    config.benchmark = "quiet";
    bench::Context ctx(config, quiet_logger());
    try {
        ctx.serve([](bench::Query&) { busy_for(std::chrono::microseconds(50)); });
        FAIL() << "served without tokens";
    } catch (const bench::SkipScenario& skip) {
        EXPECT_STREQ(skip.what(),
                     "--find-peak --slo tpot: plugin quiet, benchmark performance/quiet/quiet reports no "
                     "tokens (Query::token), so its tpot cannot be judged at any rate");
    }
}

// ---- batching --------------------------------------------------------------------

TEST(ServeBatches, OfflineQueriesAreServedInBatchesOfTheMostAllowedEachCompletingWithItsBatch) {
    bench::LoadConfig load = load_of(bench::LoadMode::offline, 10);
    load.max_batch = 4;
    bench::Context ctx(config_with(load), quiet_logger());
    std::vector<std::size_t> sizes;
    std::vector<long long> indices;
    ctx.serve_batches([&](bench::QueryBatch batch) {
        sizes.push_back(batch.size());
        for (std::size_t i = 0; i < batch.size(); ++i) {
            EXPECT_EQ(batch[i]->slot(), static_cast<int>(i));  // its place in the batch
            indices.push_back(batch[i]->index());
        }
        busy_for(std::chrono::microseconds(300));
    });
    // Two warmup queries alone, then 10 queries in batches of 4, 4, 2, in order.
    EXPECT_EQ(sizes, (std::vector<std::size_t>{1, 1, 4, 4, 2}));
    EXPECT_EQ(indices, (std::vector<long long>{0, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
    EXPECT_EQ(ctx.result().find_series("queries_per_batch")->samples, (std::vector<double>{4, 4, 2}));
    EXPECT_EQ(scalar(ctx, "max_batch"), 4);
    // The queries of a batch start and complete together: their service times are equal.
    const std::vector<double>& service = ctx.result().find_series("service_time")->samples;
    ASSERT_EQ(service.size(), 10u);
    for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(service[i], service[0]) << i;
    EXPECT_NE(ctx.result().info.at("batching").find("dynamic, up to 4"), std::string::npos);
}

TEST(ServeBatches, ABatchThatIsNotFullWaitsForMoreWhileArrivalsMayCome) {
    // 40 arrivals at 20,000/s; a batch waits up to 10 s for 8 queries, so every batch
    // fills whatever the machine does (the issuing thread ends its arrivals, then the
    // wait ends too).
    bench::LoadConfig load = load_of(bench::LoadMode::server, 40);
    load.target_qps = 20000;
    load.max_batch = 8;
    load.max_batch_wait_ms = 10000;
    bench::Context ctx(config_with(load), quiet_logger());
    std::vector<std::size_t> sizes;
    ctx.serve_batches([&](bench::QueryBatch batch) { sizes.push_back(batch.size()); });
    EXPECT_EQ(ctx.result().find_series("queries_per_batch")->samples, (std::vector<double>{8, 8, 8, 8, 8}));
    // Without a wait, a closed loop of one client never batches.
    load = load_of(bench::LoadMode::server, 20);
    load.concurrency = 1;
    load.max_batch = 8;
    bench::Context alone(config_with(load), quiet_logger());
    alone.serve_batches([](bench::QueryBatch batch) { EXPECT_EQ(batch.size(), 1u); });
    EXPECT_EQ(alone.result().find_series("queries_per_batch")->samples.size(), 20u);
}

TEST(ServeSteps, QueriesJoinAtTheNextStepWithAFreeSlotAndLeaveWhenFinished) {
    // 3 closed-loop clients, 2 slots, 3 tokens a query.
    bench::LoadConfig load = load_of(bench::LoadMode::server, 12);
    load.concurrency = 3;
    load.max_batch = 2;
    bench::Context ctx(config_with(load), quiet_logger());
    std::map<long long, long long> steps_seen;  // measured queries: steps each was in
    std::vector<std::size_t> sizes;
    bool warmup = true;
    int warmup_steps = 0;
    ctx.serve_steps([&](bench::QueryBatch active) {
        ASSERT_LE(active.size(), 2u);
        if (active.size() == 2) {
            EXPECT_NE(active[0]->slot(), active[1]->slot());
        }
        for (bench::Query* q : active) {
            EXPECT_TRUE(q->slot() == 0 || q->slot() == 1);
            EXPECT_FALSE(q->finished());
            if (!warmup) {
                EXPECT_EQ(q->steps(), steps_seen[q->index()]) << q->index();
                ++steps_seen[q->index()];
            }
            q->token();
            if (q->tokens() == 3) q->finish();
        }
        if (!warmup) sizes.push_back(active.size());
        // The two warmup queries take 3 steps each, alone.
        if (warmup && ++warmup_steps == 6) warmup = false;
    });
    ASSERT_EQ(steps_seen.size(), 12u);
    for (const auto& [index, steps] : steps_seen) EXPECT_EQ(steps, 3) << index;
    // Two slots, always both busy but at the very end: 12 queries x 3 steps / 2 = 18 steps.
    EXPECT_EQ(sizes.size(), 18u);
    EXPECT_EQ(ctx.result().find_series("queries_per_batch")->samples.size(), 18u);
    EXPECT_EQ(ctx.result().find_series("time_to_first_token")->samples.size(), 12u);
    EXPECT_EQ(ctx.result().find_series("inter_token_latency")->samples.size(), 24u);
    // The third client's query waits for a slot: some query waited at least one step.
    const std::vector<double>& waits = ctx.result().find_series("queue_wait")->samples;
    EXPECT_GT(*std::max_element(waits.begin(), waits.end()), 0);
    EXPECT_NE(ctx.result().info.at("batching").find("continuous, up to 2"), std::string::npos);
    EXPECT_THROW(ctx.serve_steps([](bench::QueryBatch) {}), std::logic_error);
    EXPECT_TRUE(ctx.result().warnings.empty());
}

TEST(ServeSteps, AWaitForFullerBatchesIsNotOneOfContinuousBatchingAndWarns) {
    bench::LoadConfig load = load_of(bench::LoadMode::offline, 4);
    load.max_batch = 2;
    load.max_batch_wait_ms = 5;
    bench::Context ctx(config_with(load), quiet_logger());
    ctx.serve_steps([](bench::QueryBatch active) {
        for (bench::Query* q : active) q->finish();
    });
    EXPECT_EQ(ctx.result().find_series("queries_per_batch")->samples, (std::vector<double>{2, 2}));
    ASSERT_EQ(ctx.result().warnings.size(), 1u);
    EXPECT_EQ(ctx.result().warnings[0],
              "--max-batch-wait 5 ms: this benchmark batches continuously "
              "(Context::serve_steps), where a query joins at the next step, so it does "
              "not wait");
}

}  // namespace
