// Whether a series' samples fall into distinct speed states over time: stretches of
// samples at one level, then at another, as when a machine's speed flips for seconds at
// a time. A series like that has a median that depends on which states a run happened
// to catch, and a comparison with another run inherits it; the report says so.
//
// How: the samples, in time order, are cut into up to 64 windows of consecutive samples;
// the change points of the windows' medians (E-divisive, change_points.hpp) cut the
// series into stretches; stretches whose medians lie within `distinct` of each other are
// one state. Two or more states remain only when their medians differ by more than that.
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed,
// not exported from libbench_sdk.so, not part of the plugin API (sdk/CMakeLists.txt).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace bench {

struct SpeedState {
    double median = 0;  // of its samples
    std::size_t samples = 0;
    std::size_t stretches = 0;  // runs of consecutive samples in this state
    double seconds = 0;  // how long its stretches lasted; NaN without the samples' times
};

/// The states, fastest (lowest median) first; fewer than two: no distinct states.
struct SpeedStates {
    std::vector<SpeedState> states;
    double span_s = 0;  // from the first sample to the last; NaN without their times

    bool distinct() const { return states.size() >= 2; }
};

/// Fewest samples in which states are looked for.
inline constexpr std::size_t speed_states_min_samples = 24;

/// The speed states of `samples` (finite, in time order). `end_times_s`, when it has a
/// value per sample, says when each sample ended (seconds, increasing); else durations
/// are NaN. States whose medians differ by less than `distinct` (relative) are one.
SpeedStates speed_states(std::span<const double> samples, std::span<const double> end_times_s, double distinct = 0.10);

}  // namespace bench
