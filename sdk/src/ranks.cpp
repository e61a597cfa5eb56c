// The ranks of a distributed scenario (<bench/ranks.hpp>).
#include <bench/ranks.hpp>

#include <atomic>
#include <stdexcept>
#include <string>

#include <bench/context.hpp>

namespace bench {

namespace {

std::atomic<const RankHooks*> registered_hooks{nullptr};

}  // namespace

void set_rank_hooks(const RankHooks* hooks) { registered_hooks.store(hooks); }
const RankHooks* rank_hooks() { return registered_hooks.load(); }

TimingOptions rank_timing_options(Context& ctx, std::string_view name) {
    return ctx.rank_timing_options(name, ctx.timing_options());
}

TimingOptions Context::rank_timing_options(std::string_view name, TimingOptions options) {
    if (options.has_time_rule()) {
        options.min_time_s = options.max_time_s = options.target_ci_width = 0;
        add_warning(std::string(name) +
                    ": a distributed scenario takes --measurement-iterations samples on every rank: "
                    "--min-time, --max-time and --target-ci-width are not applied (each rank would stop on "
                    "its own, and the others would wait for it at the next barrier)");
    }
    return options;
}

const RankHooks& Context::rank_hooks_for(std::string_view name) {
    const RankHooks* ranks = rank_hooks();
    if (ranks != nullptr && ranks->ready != nullptr && ranks->before_sample != nullptr) return *ranks;
    throw std::runtime_error(
        "series '" + std::string(name) + "': in a distributed scenario (world_size " +
        std::to_string(config().world_size) +
        ") every rank times its samples alike, after a barrier of the ranks' process group, and this process has "
        "none: link the plugin with the SDK's LibTorch layer (CMake: target_link_libraries(<plugin> PRIVATE "
        "bench::sdk_torch), which gives the group, <bench/torch/distributed.hpp>), or register the hooks of a group "
        "of its own with bench::set_rank_hooks (<bench/ranks.hpp>)");
}

}  // namespace bench
