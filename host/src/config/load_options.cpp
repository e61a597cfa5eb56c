#include "config/load_options.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <bench/params.hpp>

#include "config/run_config.hpp"
#include "util/text_table.hpp"

namespace benchhost {

bench::LoadMode load_mode_value(const std::string& where, const std::string& text) {
    const auto mode = bench::parse_load_mode(text);
    if (!mode)
        throw ConfigError(where + ": '" + text + "' is not a load: single-stream, multi-stream, server or offline");
    return *mode;
}

double rate_value(const std::string& where, const std::string& text) {
    const auto rate = bench::parse_double(text);
    if (!rate) throw ConfigError(where + ": expected a rate in queries per second, got '" + text + "'");
    if (!(*rate > 0)) throw ConfigError(where + ": the rate must be above 0 queries/s, got " + text);
    return *rate;
}

double burstiness_value(const std::string& where, const std::string& text) {
    const auto shape = bench::parse_double(text);
    if (!shape || !(*shape > 0))
        throw ConfigError(where +
                          ": expected the gamma shape of the gaps between arrivals, above 0 (1: Poisson), got '" +
                          text + "'");
    return *shape;
}

long long count_value(const std::string& where, const std::string& text, long long minimum) {
    const auto count = bench::parse_int(text);
    if (!count || *count < minimum || *count > 100'000'000)
        throw ConfigError(where + ": expected an integer from " + std::to_string(minimum) + " to 100000000, got '" +
                          text + "'");
    return *count;
}

double seconds_value(const std::string& where, const std::string& text) {
    const auto seconds = bench::parse_double(text);
    if (!seconds || !(*seconds >= 0) || *seconds > 86'400)
        throw ConfigError(where + ": expected seconds from 0 to 86400, got '" + text + "'");
    return *seconds;
}

double duration_ms_value(const std::string& where, const std::string& text) {
    const auto ms = bench::parse_duration_ms(text);
    if (!ms || !(*ms > 0))
        throw ConfigError(where + ": expected a duration above 0 with its unit (us, ms or s, e.g. 1ms), got '" + text +
                          "'");
    return *ms;
}

double peak_precision_value(const std::string& where, const std::string& text) {
    const auto value = parse_relative(text);
    if (!value || !(*value > 0) || !(*value < 1))
        throw ConfigError(where + ": expected a relative precision above 0 and below 1, such as 5% or 0.05, got '" +
                          text + "'");
    return *value;
}

void slo_value(const std::string& where, const std::string& text, bench::LoadConfig& load) {
    std::string_view bounds = text;
    double percentile = 0;
    if (const std::size_t colon = bounds.find(':'); colon != std::string_view::npos) {
        const std::string prefix(bounds.substr(0, colon));
        const auto parsed = bench::parse_percentile(prefix);
        if (!parsed)
            throw ConfigError(where + ": '" + prefix +
                              "' is not a percentile: expected pNN before the bounds, above p0 and below p100 (e.g. "
                              "p95:latency=200ms)");
        percentile = *parsed;
        bounds = bounds.substr(colon + 1);
    }
    try {
        load.slos = bench::parse_slos(bounds);
    } catch (const std::invalid_argument& e) {
        throw ConfigError(where + ": " + e.what());
    }
    load.slo_percentile = percentile;
}

namespace {

// "--a", "--a and --b", "--a, --b and --c".
std::string joined_options(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
        out += names[i];
    }
    return out;
}

}  // namespace

void check_load(const bench::LoadConfig& load) {
    using bench::LoadMode;
    const bool server = load.mode == LoadMode::server;
    if (load.find_peak) {
        if (!server)
            throw ConfigError(
                "--find-peak needs --load server (it searches the highest rate of arrivals that meets the "
                "SLO), got " +
                (load.mode == LoadMode::none ? std::string("no --load")
                                             : "--load " + std::string(bench::to_string(load.mode))));
        if (load.target_qps > 0)
            throw ConfigError("--find-peak searches the rate itself: leave out --target-qps (got " +
                              number_text(load.target_qps) + ")");
        if (load.concurrency > 0)
            throw ConfigError("--find-peak searches a rate of arrivals: leave out --concurrency (closed-loop clients)");
        if (load.slos.empty())
            throw ConfigError(
                "--find-peak needs --slo METRIC=BOUND (e.g. --slo latency=50ms, or ttft=500ms,tpot=50ms): "
                "the bound that each rate's p99 must meet");
    } else {
        if (load.peak_precision > 0) throw ConfigError("--peak-precision needs --find-peak");
        if (load.slo_percentile > 0)
            throw ConfigError("--slo p" + number_text(load.slo_percentile) +
                              ":...: a percentile is what --find-peak judges each rate by; it needs --find-peak "
                              "(the goodput counts the queries that meet every bound)");
    }
    if (load.target_qps > 0 && !server) throw ConfigError("--target-qps needs --load server");
    if (load.concurrency > 0 && !server) throw ConfigError("--concurrency needs --load server");
    if (load.burstiness != 1 && !(server && (load.target_qps > 0 || load.find_peak)))
        throw ConfigError(
            "--burstiness needs --load server --target-qps R or --find-peak (it shapes the arrivals at "
            "that rate)");
    if (load.samples_per_query > 0 && load.mode != LoadMode::multi_stream)
        throw ConfigError("--samples-per-query needs --load multi-stream");
    if (server && load.target_qps > 0 && load.concurrency > 0)
        throw ConfigError(
            "--load server takes --target-qps (open loop: arrivals at that rate) or --concurrency "
            "(closed loop: that many clients), not both");
    if (server && !load.find_peak && !(load.target_qps > 0) && load.concurrency <= 0)
        throw ConfigError(
            "--load server needs --target-qps R (queries/s, above 0), --concurrency N (clients) or "
            "--find-peak");
    if (load.mode == LoadMode::none) {
        // Name the options that were given, not every option that would need a load.
        std::vector<std::string> given;
        if (load.queries > 0) given.emplace_back("--queries");
        if (load.min_duration_s > 0) given.emplace_back("--min-duration");
        if (load.late_tolerance_ms > 0) given.emplace_back("--late-tolerance");
        if (!load.slos.empty()) given.emplace_back("--slo");
        if (!given.empty())
            throw ConfigError(joined_options(given) + (given.size() == 1 ? " needs" : " need") +
                              " --load MODE (single-stream, multi-stream, server or offline)");
        if (load.max_batch > 0) given.emplace_back("--max-batch");
        if (load.max_batch_wait_ms > 0) given.emplace_back("--max-batch-wait");
        if (!given.empty())
            throw ConfigError(joined_options(given) + (given.size() == 1 ? " needs" : " need") + " --load MODE (" +
                              (given.size() == 1 ? "it batches" : "they batch") +
                              " the queries of a benchmark that serves in batches)");
    }
    if (load.max_batch_wait_ms > 0 && load.max_batch <= 1)
        throw ConfigError("--max-batch-wait needs --max-batch N above 1 (a batch of one never waits)");
}

std::vector<std::pair<std::string, std::string>> describe_load(const bench::LoadConfig& load) {
    std::vector<std::pair<std::string, std::string>> out;
    if (load.mode == bench::LoadMode::none) return out;
    out.emplace_back("mode", std::string(bench::to_string(load.mode)));
    out.emplace_back("queries", std::to_string(load.queries > 0 ? load.queries : bench::default_queries));
    if (load.min_duration_s > 0) out.emplace_back("min_duration_s", number_text(load.min_duration_s));
    if (load.mode == bench::LoadMode::multi_stream)
        out.emplace_back(
            "samples_per_query",
            std::to_string(load.samples_per_query > 0 ? load.samples_per_query : bench::default_samples_per_query));
    if (load.find_peak) {
        out.emplace_back("find_peak", "true");
        out.emplace_back("peak_precision",
                         number_text(load.peak_precision > 0 ? load.peak_precision : bench::default_peak_precision));
    }
    if (load.target_qps > 0 || load.find_peak) {
        if (load.target_qps > 0) out.emplace_back("target_qps", number_text(load.target_qps));
        out.emplace_back("burstiness", number_text(load.burstiness));
        out.emplace_back("load_seed", std::to_string(load.seed));
    }
    if (load.concurrency > 0) out.emplace_back("concurrency", std::to_string(load.concurrency));
    out.emplace_back("late_tolerance_ms", number_text(load.late_tolerance_ms > 0 ? load.late_tolerance_ms
                                                                                 : bench::default_late_tolerance_ms));
    if (load.max_batch > 0) out.emplace_back("max_batch", std::to_string(load.max_batch));
    if (load.max_batch_wait_ms > 0) out.emplace_back("max_batch_wait_ms", number_text(load.max_batch_wait_ms));
    if (!load.slos.empty())
        out.emplace_back("slo",
                         (load.slo_percentile > 0 ? "p" + number_text(load.slo_percentile) + ":" : std::string()) +
                             bench::to_string(load.slos));
    return out;
}

}  // namespace benchhost
