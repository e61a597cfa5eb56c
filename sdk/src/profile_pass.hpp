// The profiled pass behind Context::profile (<bench/profile.hpp>). Not exported.
#pragma once

#include <spdlog/logger.h>

#include <bench/profile.hpp>

namespace bench {

/// How long each part of the pass lasts at least; tests shorten it.
struct ProfilePassOptions {
    double operator_seconds = 1.0;  // blocks of unprofiled calls and of profiled ones for at least this long ...
    int min_pairs = 3;  // ... and at least this many profiled calls,
    int max_pairs = 20;  // at most this many
    int block = 5;  // calls in a block
    double sampling_seconds = 1.0;  // perf samples unprofiled calls for at least this long ...
    int min_sampled_calls = 2;  // ... and this many
    std::size_t max_trace_events = 20000;
};

/// Runs the pass: one warm-up call; then, with an operator profiler, blocks of unprofiled
/// and of profiled calls in turn (each call timed: the profiler's overhead), then its report;
/// then perf sampling over unprofiled calls where perf_access() allows it. Never throws.
Profile run_profile_pass(const ProfileCall& call, spdlog::logger& log, const ProfilePassOptions& options = {});

}  // namespace bench
