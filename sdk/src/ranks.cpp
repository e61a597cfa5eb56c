// The ranks of a distributed scenario (<bench/ranks.hpp>).
#include <bench/ranks.hpp>

#include <string>

namespace bench {

TimingOptions rank_timing_options(Context& ctx, std::string_view name) {
    TimingOptions options = ctx.timing_options();
    if (options.has_time_rule()) {
        options.min_time_s = options.max_time_s = options.target_ci_width = 0;
        ctx.add_warning(std::string(name) +
                        ": a distributed scenario takes --measurement-iterations samples on every rank: "
                        "--min-time, --max-time and --target-ci-width are not applied (each rank would stop on "
                        "its own, and the others would wait for it at the next barrier)");
    }
    return options;
}

}  // namespace bench
