// nest_spans (<bench/internal/profile/span_nesting.hpp>): one thread's spans and instants nested
// from their times alone, as the operator profiler rebuilds Kineto's events: containment,
// equal starts, zero-length spans, overlaps, and where an instant falls.
#include <bench/internal/profile/span_nesting.hpp>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

using bench::internal::Instant;
using bench::internal::nest_spans;
using bench::internal::Span;

/// The walk as text: "(a" opens span a, "a)" closes it, "!x" is instant x; spans and
/// instants are named by their index ('a' + index, 'x' + index).
std::string walk(const std::vector<Span>& spans, const std::vector<Instant>& instants = {}) {
    std::string out;
    auto name = [](std::size_t index, char first) { return static_cast<char>(first + index); };
    nest_spans(
        spans, instants,
        [&](const Span& s) {
            out += '(';
            out += name(s.index, 'a');
            out += ' ';
        },
        [&](const Span& s) {
            out += name(s.index, 'a');
            out += ") ";
        },
        [&](const Instant& i) {
            out += '!';
            out += name(i.index, 'x');
            out += ' ';
        });
    if (!out.empty()) out.pop_back();
    return out;
}

TEST(NestSpans, ASpanHoldsTheSpansInsideItsTime) {
    // a [0, 10] holds b [2, 5] and c [6, 9]; d [12, 13] follows; listed out of order.
    EXPECT_EQ(walk({{6, 9, 2}, {0, 10, 0}, {12, 13, 3}, {2, 5, 1}}), "(a (b b) (c c) a) (d d)");
    // Three deep, each ending at its parent's end.
    EXPECT_EQ(walk({{0, 10, 0}, {1, 10, 1}, {2, 10, 2}}), "(a (b (c c) b) a)");
}

TEST(NestSpans, AtAnEqualStartTheLongerHoldsTheShorterWhateverTheOrderListed) {
    EXPECT_EQ(walk({{0, 4, 0}, {0, 10, 1}}), "(b (a a) b)");
    // Two alike: the one listed first holds the other.
    EXPECT_EQ(walk({{3, 7, 1}, {3, 7, 0}}), "(a (b b) a)");
}

TEST(NestSpans, AZeroLengthSpanLandsInsideTheSpanThatHoldsItsTime) {
    // At its sibling's start: inside the sibling (no time changes either way).
    EXPECT_EQ(walk({{0, 10, 0}, {3, 3, 1}, {3, 8, 2}}), "(a (c (b b) c) a)");
    // At the end of the one before it: inside that one, unless a longer one begins then.
    EXPECT_EQ(walk({{0, 5, 0}, {5, 5, 1}}), "(a (b b) a)");
    EXPECT_EQ(walk({{0, 5, 0}, {5, 5, 1}, {5, 9, 2}}), "(a a) (c (b b) c)");
    // Two at the same time: the first listed holds the second.
    EXPECT_EQ(walk({{4, 4, 1}, {4, 4, 0}}), "(a (b b) a)");
}

TEST(NestSpans, ASpanThatOverlapsTheNextWithoutHoldingItClosesFirst) {
    EXPECT_EQ(walk({{0, 5, 0}, {3, 8, 1}}), "(a a) (b b)");
    EXPECT_EQ(walk({{0, 20, 0}, {1, 5, 1}, {4, 8, 2}}), "(a (b b) (c c) a)");
}

TEST(NestSpans, AnInstantFallsInsideTheSpansOpenAtItsTimeTheirEndsIncluded) {
    const std::vector<Span> spans = {{10, 20, 0}, {12, 15, 1}};
    EXPECT_EQ(walk(spans, {{5, 0}}), "!x (a (b b) a)");  // before them
    EXPECT_EQ(walk(spans, {{10, 0}}), "(a !x (b b) a)");  // at a's start
    EXPECT_EQ(walk(spans, {{12, 0}}), "(a (b !x b) a)");  // at b's start
    EXPECT_EQ(walk(spans, {{15, 0}}), "(a (b !x b) a)");  // at b's end
    EXPECT_EQ(walk(spans, {{16, 0}}), "(a (b b) !x a)");  // after b, in a
    EXPECT_EQ(walk(spans, {{20, 0}, {21, 1}}), "(a (b b) !x a) !y");  // at a's end, after it
    // Instants at one time keep their order.
    EXPECT_EQ(walk(spans, {{13, 1}, {13, 0}}), "(a (b !x !y b) a)");
}

TEST(NestSpans, NothingToWalk) {
    EXPECT_EQ(walk({}), "");
    EXPECT_EQ(walk({}, {{1, 0}}), "!x");
}

}  // namespace
