// Builders of the host's data for tests: scenario outcomes and run records as a run makes
// them, with only the fields a test cares about set by name. Every test that needs an
// outcome or a record builds it here.
#pragma once

#include <random>
#include <string>
#include <utility>
#include <vector>

#include <bench/config.hpp>
#include <bench/result.hpp>

#include "model/run_record.hpp"

namespace benchtest {

/// A scenario outcome, `success` unless told otherwise. Its scenario name is the
/// benchmark, with the axes set through the builder in brackets in the order they were
/// set: Outcome("unit", "p", "infer").variant(eager).batch_size(2) is named
/// "infer[variant=eager,batch_size=2]".
class Outcome {
public:
    Outcome(std::string category, std::string plugin, std::string benchmark) {
        o_.config.category = std::move(category);
        o_.config.plugin = std::move(plugin);
        o_.config.benchmark = std::move(benchmark);
        o_.result.status = bench::Status::success;
        o_.started_at = "2026-11-22T11:50:00Z";
    }
    Outcome& variant(bench::Variant variant) {
        o_.config.variant = variant;
        return axis("variant", std::string(bench::to_string(variant)));
    }
    Outcome& batch_size(int batch_size) {
        o_.config.batch_size = batch_size;
        return axis("batch_size", std::to_string(batch_size));
    }
    /// An axis in the name only (the config field, if any, is the caller's).
    Outcome& axis(const std::string& name, const std::string& value) {
        axes_ += (axes_.empty() ? "" : ",") + name + "=" + value;
        return *this;
    }
    Outcome& status(bench::Status status, std::string reason = {}) {
        o_.result.status = status;
        o_.result.reason = std::move(reason);
        return *this;
    }
    Outcome& series(std::string name, std::string unit, std::vector<double> samples, long long inner_iterations = 1) {
        o_.result.series.push_back({std::move(name), std::move(unit), std::move(samples), inner_iterations});
        return *this;
    }
    /// Fields that no builder call sets: o.edit([](auto& o) { o.wall_time_s = 2; }).
    template <typename Edit>
    Outcome& edit(Edit&& edit) {
        edit(o_);
        return *this;
    }

    benchhost::ScenarioOutcome build() const {
        benchhost::ScenarioOutcome o = o_;
        o.config.scenario_name = o.config.benchmark + (axes_.empty() ? "" : "[" + axes_ + "]");
        return o;
    }
    operator benchhost::ScenarioOutcome() const { return build(); }  // NOLINT: a builder

private:
    benchhost::ScenarioOutcome o_;
    std::string axes_;
};

/// A record with the metadata every report needs (timestamp 20261122_115000, host
/// "testhost", commit abc123, version 0.1.0), holding `outcomes`.
inline benchhost::RunRecord record_of(std::vector<benchhost::ScenarioOutcome> outcomes = {}) {
    benchhost::RunRecord record;
    record.timestamp = "20261122_115000";
    record.started_at = "2026-11-22T11:50:00Z";
    record.host_name = "testhost";
    record.commit_id = "abc123";
    record.host_version = "0.1.0";
    record.outcomes = std::move(outcomes);
    return record;
}

/// `n` samples spread uniformly within `jitter` (relative) of `median`, seeded.
inline std::vector<double> jittered_samples(double median, int n, unsigned seed, double jitter = 0.01) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> noise(-jitter, jitter);
    std::vector<double> out;
    for (int i = 0; i < n; ++i) out.push_back(median * (1 + noise(rng)));
    return out;
}

}  // namespace benchtest
