#include <bench/internal/statistics/speed_states.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <bench/internal/statistics/change_points.hpp>
#include <bench/statistics.hpp>

namespace bench {

namespace {

double median_of(std::span<const double> values) {
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    return percentile_of_sorted(sorted, 50);
}

/// A stretch of consecutive samples [first, end) and its median.
struct Stretch {
    std::size_t first = 0, end = 0;
    double median = 0;
    std::size_t state = 0;
};

}  // namespace

SpeedStates speed_states(std::span<const double> samples, std::span<const double> end_times_s, double distinct) {
    SpeedStates result;
    const std::size_t n = samples.size();
    const bool timed = end_times_s.size() == n && n > 0;
    result.span_s = timed ? end_times_s.back() - end_times_s.front() : std::numeric_limits<double>::quiet_NaN();
    if (n < speed_states_min_samples) return result;

    // Windows of consecutive samples, at least 4 each, at most 64 of them.
    const std::size_t windows = std::min<std::size_t>(64, n / 4);
    std::vector<std::size_t> bounds;  // window w is [bounds[w], bounds[w + 1])
    for (std::size_t w = 0; w <= windows; ++w) bounds.push_back(w * n / windows);
    std::vector<double> window_medians;
    for (std::size_t w = 0; w < windows; ++w)
        window_medians.push_back(median_of(samples.subspan(bounds[w], bounds[w + 1] - bounds[w])));

    ChangePointOptions options;
    options.min_segment = 2;
    std::vector<Stretch> stretches;
    std::size_t start_window = 0;
    for (const ChangePoint& change : e_divisive(window_medians, options)) {
        stretches.push_back({bounds[start_window], bounds[change.index], 0, 0});
        start_window = change.index;
    }
    stretches.push_back({bounds[start_window], n, 0, 0});
    for (Stretch& s : stretches) s.median = median_of(samples.subspan(s.first, s.end - s.first));

    // States: the stretches' medians, sorted, grouped while within `distinct` of the
    // group's fastest.
    std::vector<std::size_t> order(stretches.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return stretches[a].median < stretches[b].median; });
    std::size_t states = 0;
    double group_low = 0;
    for (const std::size_t i : order) {
        if (states == 0 || !(stretches[i].median <= group_low * (1 + distinct))) {
            ++states;
            group_low = stretches[i].median;
        }
        stretches[i].state = states - 1;
    }
    if (states < 2) return result;

    // A sample's time: from the previous sample's end (the first: its own length before
    // the second's end, taken as the typical spacing) to its own end.
    const double spacing = timed && n > 1 ? (end_times_s.back() - end_times_s.front()) / static_cast<double>(n - 1) : 0;
    const auto start_of = [&](std::size_t i) { return i == 0 ? end_times_s[0] - spacing : end_times_s[i - 1]; };
    result.states.assign(states, SpeedState{});
    for (std::size_t i = 0; i < stretches.size(); ++i) {
        const Stretch& s = stretches[i];
        SpeedState& state = result.states[s.state];
        state.samples += s.end - s.first;
        if (i == 0 || stretches[i - 1].state != s.state) ++state.stretches;
        state.seconds += timed ? end_times_s[s.end - 1] - start_of(s.first) : std::numeric_limits<double>::quiet_NaN();
    }
    for (std::size_t k = 0; k < states; ++k) {
        std::vector<double> values;
        for (const Stretch& s : stretches)
            if (s.state == k)
                values.insert(values.end(), samples.begin() + static_cast<std::ptrdiff_t>(s.first),
                              samples.begin() + static_cast<std::ptrdiff_t>(s.end));
        result.states[k].median = median_of(values);
    }
    return result;
}

}  // namespace bench
