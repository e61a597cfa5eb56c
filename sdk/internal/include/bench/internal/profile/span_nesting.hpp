// How one thread's spans nest, from their times alone: what the LibTorch layer's
// operator profiler rebuilds from Kineto's events (complete spans and instants, with no
// parent), header-only so that its rules are tested without LibTorch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace bench::internal {

/// A span of one thread: [start, end] in nanoseconds; `index`: its place in the list it
/// came from (the order its profiler listed the spans in).
struct Span {
    uint64_t start = 0, end = 0;
    std::size_t index = 0;
};

/// A point in time on the same thread (an allocation); `index` as Span's.
struct Instant {
    uint64_t at = 0;
    std::size_t index = 0;
};

/// Walks `spans` as they nest: open(span) for each, outer before inner; close(span) as
/// each ends, inner before outer; instant(instant) for each instant, in time, when the
/// spans open are those that hold it. A span holds another that begins no earlier and
/// ends no later; at an equal start the longer holds the shorter, and of two alike the
/// one listed first holds the other (so a zero-length span lands inside a span that
/// begins or ends at its time, which changes no time). A span that
/// overlaps the next without holding it closes as the next opens. An instant at a span's
/// start or end is inside it.
template <class Open, class Close, class AtInstant>
void nest_spans(std::vector<Span> spans, std::vector<Instant> instants, Open&& open, Close&& close,
                AtInstant&& instant) {
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
        if (a.start != b.start) return a.start < b.start;
        if (a.end != b.end) return a.end > b.end;
        return a.index < b.index;
    });
    std::sort(instants.begin(), instants.end(),
              [](const Instant& a, const Instant& b) { return a.at != b.at ? a.at < b.at : a.index < b.index; });
    std::vector<Span> stack;
    auto close_ended = [&](uint64_t before) {  // the spans that ended before `before`
        while (!stack.empty() && stack.back().end < before) {
            close(stack.back());
            stack.pop_back();
        }
    };
    std::size_t next = 0;
    auto instants_before = [&](uint64_t before) {
        for (; next < instants.size() && instants[next].at < before; ++next) {
            close_ended(instants[next].at);
            instant(instants[next]);
        }
    };
    for (const Span& span : spans) {
        instants_before(span.start);
        while (!stack.empty() && stack.back().end < span.end) {  // does not hold it: ended first
            close(stack.back());
            stack.pop_back();
        }
        open(span);
        stack.push_back(span);
    }
    instants_before(std::numeric_limits<uint64_t>::max());
    while (!stack.empty()) {
        close(stack.back());
        stack.pop_back();
    }
}

}  // namespace bench::internal
