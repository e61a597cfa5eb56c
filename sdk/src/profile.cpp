// The profiled pass (Context::profile): operators, module shares, perf's native stacks.
#include "profile_pass.hpp"

#include <chrono>
#include <exception>
#include <string>
#include <vector>

#include <bench/clock.hpp>
#include <bench/internal/profile/perf_sampler.hpp>
#include <bench/statistics.hpp>

namespace bench {

OperatorProfiler::~OperatorProfiler() = default;

namespace {

double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> values) { return summarize(values).median; }

std::string exception_text() {
    try {
        throw;
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
        return "an exception that is not a std::exception";
    }
}

}  // namespace

Profile run_profile_pass(const ProfileCall& call, spdlog::logger& log, const ProfilePassOptions& options) {
    Profile profile;
    profile.call = call.name.empty() ? "call" : call.name;
    if (!call.call) {
        profile.notes.push_back("nothing to profile: the benchmark gave no call");
        return profile;
    }
    std::string stage = "the warm-up call";
    try {
        call.call();  // anything lazy happens here, not in a timed or profiled call

        if (call.operators) {
            stage = "the operator profiler";
            OperatorProfiler& operators = *call.operators;
            profile.operator_profiler = operators.name();
            // Blocks of unprofiled calls, then of profiled ones, in turn: a call right after
            // the profiler stopped runs on caches and a heap its bookkeeping disturbed
            // (docs/profiling.md), which a block's median leaves out.
            std::vector<double> unprofiled, profiled;
            const auto begin = Clock::now();
            while (static_cast<int>(profiled.size()) < options.max_pairs &&
                   (static_cast<int>(profiled.size()) < options.min_pairs ||
                    elapsed_ns(begin, Clock::now()) < options.operator_seconds * 1e9)) {
                for (int i = 0; i < options.block; ++i) {
                    const auto start = Clock::now();
                    call.call();
                    unprofiled.push_back(elapsed_ns(start, Clock::now()) / 1e6);
                }
                for (int i = 0; i < options.block && static_cast<int>(profiled.size()) < options.max_pairs; ++i) {
                    operators.start();
                    const double start_us = now_us();
                    const auto start = Clock::now();
                    try {
                        call.call();
                    } catch (...) {
                        operators.stop();
                        throw;
                    }
                    const double ms = elapsed_ns(start, Clock::now()) / 1e6;
                    operators.stop();
                    profiled.push_back(ms);
                    if (profile.trace.size() < options.max_trace_events)
                        profile.trace.push_back(
                            {profile.call + " " + std::to_string(profiled.size()), "call", start_us, ms * 1e3, 0, {}});
                }
            }
            profile.calls = static_cast<long long>(profiled.size());
            profile.call_ms = median(profiled);
            profile.unprofiled_call_ms = median(unprofiled);
            profile.overhead = profile.unprofiled_call_ms > 0 ? profile.call_ms / profile.unprofiled_call_ms : NAN;
            operators.report(profile, profile.calls);
            // Shares of the mean profiled call, the time the modules' figures are means of.
            double mean_ms = 0;
            for (double ms : profiled) mean_ms += ms;
            mean_ms /= static_cast<double>(profiled.size());
            for (ProfileModule& module : profile.modules) module.share = mean_ms > 0 ? module.total_ms / mean_ms : 0;
            if (profile.trace.size() > options.max_trace_events) {
                profile.notes.push_back("trace: the first " + std::to_string(options.max_trace_events) + " of " +
                                        std::to_string(profile.trace.size()) + " events");
                profile.trace.resize(options.max_trace_events);
            }
        } else {
            profile.notes.push_back(
                "operators: the benchmark gave no operator profiler (only a LibTorch benchmark "
                "has one: bench::libtorch::profile)");
        }

        stage = "perf sampling";
        const PerfAccess access = perf_access();
        PerfSampler sampler(access);
        if (!sampler.start()) {
            profile.notes.push_back("native stacks: " + sampler.error());
        } else {
            int calls = 0;
            const auto begin = Clock::now();
            std::exception_ptr failure;
            try {
                while (calls < options.min_sampled_calls ||
                       elapsed_ns(begin, Clock::now()) < options.sampling_seconds * 1e9) {
                    const double start_us = now_us();
                    const auto start = Clock::now();
                    call.call();
                    ++calls;
                    if (profile.trace.size() < options.max_trace_events)
                        profile.trace.push_back({profile.call + " " + std::to_string(calls) + " (sampled)",
                                                 "call",
                                                 start_us,
                                                 elapsed_ns(start, Clock::now()) / 1e3,
                                                 0,
                                                 {}});
                }
            } catch (...) {
                failure = std::current_exception();
            }
            const double sampled_s = elapsed_ns(begin, Clock::now()) / 1e9;
            std::optional<FlameGraph> stacks = sampler.stop();
            if (failure) std::rethrow_exception(failure);
            if (stacks) {
                profile.sampler = sampler.description();
                profile.samples = sampler.samples();
                profile.flame_graphs.push_back(std::move(*stacks));
                if (!access.note.empty()) profile.notes.push_back("native stacks: " + access.note);
                profile.notes.push_back("native stacks: " + std::to_string(calls) + " unprofiled calls in " +
                                        std::to_string(sampled_s).substr(0, 4) + " s, every thread of the worker");
            } else {
                profile.notes.push_back("native stacks: " + sampler.error());
            }
        }
    } catch (...) {
        const std::string why = exception_text();
        profile.notes.push_back("the profiled pass stopped in " + stage + ": " + why);
        log.warn("profile of {}: stopped in {}: {}", profile.call, stage, why);
    }
    return profile;
}

}  // namespace bench
