// history_fill: adds synthetic runs to a run history, for scripts/history_scale.
//
//   history_fill --history LOCATION --runs N --scenarios S [--samples K] [--seed X]
//
// Run i (0 <= i < N) starts at 2026-01-01T00:00:00Z + 10 minutes * i, has commit
// fnv(i), and holds S scenarios performance/scale/bench[variant=eager,size=k], each with
// a latency series: K samples (default 20) around 1 ms + 0.1 ms * k, 2% between-run
// noise (one draw per run and scenario) and 1% within the run; scenario k's level steps
// up 5% at run N / 2 + k (so that the change points have something to find). The
// statistics are the summary of the samples and a median interval of +-1%: the
// bootstrap that a real run computes is left out, to fill fast; what the history stores
// and reads is the same. Every run goes in through HistoryStore::add_run, one
// transaction each, as `run --history` adds it. Prints the runs added and the seconds.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include <fmt/format.h>

#include "history/history_store.hpp"
#include "util/fingerprint.hpp"

namespace {

using namespace benchhost;

[[noreturn]] void usage(const std::string& why) {
    std::cerr << "history_fill: " << why
              << "\nusage: history_fill --history LOCATION --runs N --scenarios S [--samples K] [--seed X]\n";
    std::exit(2);
}

std::string start_of(int run) {
    const int minutes = run * 10;
    // Days from 2026-01-01 (days in each month of 2026 and 2027).
    static const int month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int day = minutes / (24 * 60), year = 2026, month = 0;
    while (day >= month_days[month]) {
        day -= month_days[month];
        if (++month == 12) month = 0, ++year;
    }
    return fmt::format("{}-{:02}-{:02}T{:02}:{:02}:00Z", year, month + 1, day + 1, minutes / 60 % 24, minutes % 60);
}

RunRecord synthetic_run(int run, int runs, int scenarios, int samples, std::mt19937_64& rng) {
    std::normal_distribution<double> between(0, 0.02), within(0, 0.01);
    RunRecord record;
    record.started_at = start_of(run);
    record.finished_at = record.started_at;
    record.timestamp = record.started_at;
    record.host_name = "scale-host";
    record.commit_id = fingerprint("commit " + std::to_string(run));
    record.host_version = "history_fill";
    record.finished = true;
    record.hardware["host"]["hostname"] = "scale-host";
    record.hardware["cpu"]["model"] = "synthetic";
    for (int k = 0; k < scenarios; ++k) {
        ScenarioOutcome outcome;
        outcome.config.category = "performance";
        outcome.config.plugin = "scale";
        outcome.config.benchmark = "bench";
        outcome.config.scenario_name = fmt::format("bench[variant=eager,size={}]", k);
        outcome.result.status = bench::Status::success;
        outcome.started_at = record.started_at;
        const double level = (1.0 + 0.1 * k) * (run >= runs / 2 + k ? 1.05 : 1.0) * std::exp(between(rng));
        std::vector<double> values;
        for (int s = 0; s < samples; ++s) values.push_back(level * std::exp(within(rng)));
        SeriesStatistics statistics;
        statistics.name = "latency";
        statistics.unit = "ms";
        statistics.analysis.summary = bench::summarize(values);
        const double median = statistics.analysis.summary.median;
        statistics.analysis.median_ci = {median * 0.99, median * 1.01};
        outcome.result.series.push_back({"latency", "ms", std::move(values), 1});
        outcome.statistics.computed = true;
        outcome.statistics.series.push_back(std::move(statistics));
        record.outcomes.push_back(std::move(outcome));
    }
    return record;
}

}  // namespace

int main(int argc, char** argv) {
    std::string location;
    int runs = 0, scenarios = 0, samples = 20;
    unsigned long long seed = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc) usage(arg + ": a value is missing");
        const std::string value = argv[++i];
        try {
            if (arg == "--history") location = value;
            else if (arg == "--runs") runs = std::stoi(value);
            else if (arg == "--scenarios") scenarios = std::stoi(value);
            else if (arg == "--samples") samples = std::stoi(value);
            else if (arg == "--seed") seed = std::stoull(value);
            else usage("unknown option " + arg);
        } catch (const std::logic_error&) {
            usage(arg + ": not a number: '" + value + "'");
        }
    }
    if (location.empty() || runs < 1 || scenarios < 1 || samples < 1)
        usage("--history, --runs (1 or more) and --scenarios (1 or more) are needed");
    try {
        auto store = open_history(location, true);
        std::mt19937_64 rng(seed);
        const auto start = std::chrono::steady_clock::now();
        int added = 0;
        for (int run = 0; run < runs; ++run)
            added += store->add_run(synthetic_run(run, runs, scenarios, samples, rng), "synthetic", false).added;
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::cout << fmt::format("added {} runs of {} scenarios in {:.2f} s", added, scenarios, seconds) << "\n";
    } catch (const std::exception& e) {
        std::cerr << "history_fill: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
