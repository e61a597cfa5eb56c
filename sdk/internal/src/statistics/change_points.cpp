#include <bench/internal/statistics/change_points.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

#include "resampling.hpp"

namespace bench {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// The best split of one ordering of a segment: Q, and where the second set starts
/// (an offset into the segment).
struct Split {
    double q = -std::numeric_limits<double>::infinity();
    std::size_t tau = 0;
};

/// |x - y|, from the points' values in the order scanned (alpha = 1: no table needed).
struct AbsoluteDistance {
    const double* values;
    double operator()(std::size_t i, std::size_t j) const { return std::abs(values[i] - values[j]); }
};

/// |x - y|^alpha, read from the table of all pairs of the series: `order[i]` is the
/// point at position i of the order scanned.
struct TableDistance {
    const double* table;
    std::size_t n;
    const std::size_t* order;
    /// Row i of the table, read along: the scan asks for one point's distances to many.
    double operator()(std::size_t i, std::size_t j) const { return table[order[i] * n + order[j]]; }
};

/// Finds the largest Q over all splits tau (first set [0, tau)) and ends kappa (second
/// set [tau, kappa)) of `size` points in the order that `distance` reads them, both sets
/// of at least `min_segment` points. O(size^2), the pairs visited once:
///
/// Q(tau, kappa) = (m k / (m + k)) E, m = tau, k = kappa - tau, and
/// E = 2 cross / (m k) - within(X) / C(m, 2) - within(Y) / C(k, 2), the sums over pairs.
/// The points join one at a time (`last`). within_[t], the sum over the pairs of
/// [0, t), is a prefix sum. cross_[tau], the distances from [0, tau) to [tau, last),
/// grows by last's distances to the points before tau, and within(Y) = within_[kappa] -
/// within_[tau] - cross_[tau]. The splits ending at kappa = last are read just before
/// `last` joins, and those ending at the last point after the pass.
class Scanner {
public:
    template <class Distance>
    Split best(const Distance& distance, std::size_t size, std::size_t min_segment) {
        prepare(size);
        Split split;
        for (std::size_t last = 0; last < size; ++last) {
            double* row = row_.data();
            for (std::size_t tau = 0; tau < last; ++tau) row[tau] = distance(last, tau);
            if (last >= 2 * min_segment) consider(split, last, min_segment);
            // cross_[tau] += row[0] + ... + row[tau - 1], four at a time: one addition
            // waits for the one before it per four points, not per point.
            double* cross = cross_.data();
            double sum = 0;
            std::size_t t = 0;
            for (; t + 4 <= last; t += 4) {
                const double s1 = row[t], s2 = s1 + row[t + 1], s3 = s2 + row[t + 2], s4 = s3 + row[t + 3];
                cross[t] += sum;
                cross[t + 1] += sum + s1;
                cross[t + 2] += sum + s2;
                cross[t + 3] += sum + s3;
                sum += s4;
            }
            for (; t < last; ++t) {
                cross[t] += sum;
                sum += row[t];
            }
            cross[last] = sum;
            within_[last + 1] = within_[last] + sum;
            if (last >= 1) within_x_[last + 1] = within_[last + 1] * reciprocal_[last];
        }
        if (size >= 2 * min_segment) consider(split, size, min_segment);
        return split;
    }

private:
    void prepare(std::size_t size) {
        cross_.assign(size, 0.0);
        within_.assign(size + 1, 0.0);
        within_x_.assign(size + 1, 0.0);
        row_.resize(size);
        q_.resize(size + 1);
        if (reciprocal_.size() < size + 1) {
            reciprocal_.resize(size + 1);
            count_.resize(size + 1);
            for (std::size_t i = 0; i <= size; ++i) {
                reciprocal_[i] = i == 0 ? 0.0 : 1.0 / static_cast<double>(i);
                count_[i] = static_cast<double>(i);
            }
        }
    }

    /// Keeps the largest Q(tau, kappa) over tau in `split`, when it is the largest yet.
    /// Q kappa / 2 = cross - k within(X) / (m - 1) - m within(Y) / (k - 1), computed for
    /// all tau first (a loop the compiler vectorizes), then the largest taken.
    void consider(Split& split, std::size_t kappa, std::size_t min_segment) {
        const std::size_t low = min_segment, high = kappa - min_segment;
        const double whole = within_[kappa], kappa_count = count_[kappa];
        const double *cross = cross_.data(), *within = within_.data(), *within_x = within_x_.data();
        const double *count = count_.data(), *reciprocal = reciprocal_.data();
        double* q = q_.data();
        for (std::size_t tau = low; tau <= high; ++tau) {
            const double c = cross[tau], m = count[tau];
            q[tau] =
                c - (kappa_count - m) * within_x[tau] - m * (whole - within[tau] - c) * reciprocal[kappa - tau - 1];
        }
        // Four running maxima: each comparison waits for one in four, not for the last.
        double m1 = q[low], m2 = m1, m3 = m1, m4 = m1;
        std::size_t tau = low;
        for (; tau + 4 <= high + 1; tau += 4) {
            m1 = q[tau] > m1 ? q[tau] : m1;
            m2 = q[tau + 1] > m2 ? q[tau + 1] : m2;
            m3 = q[tau + 2] > m3 ? q[tau + 2] : m3;
            m4 = q[tau + 3] > m4 ? q[tau + 3] : m4;
        }
        for (; tau <= high; ++tau) m1 = q[tau] > m1 ? q[tau] : m1;
        const double top = std::max(std::max(m1, m2), std::max(m3, m4));
        const double value = 2 * top * reciprocal_[kappa];
        if (value > split.q) split = {value, static_cast<std::size_t>(std::find(q + low, q + high + 1, top) - q)};
    }

    // cross_, within_: as above; within_x_[t] = within_[t] / (t - 1); row_: last's
    // distances; q_: Q kappa / 2 by tau; reciprocal_[i] = 1 / i, count_[i] = i.
    std::vector<double> cross_, within_, within_x_, row_, q_, reciprocal_, count_;
};

/// A seed of its own for each segment, so that its shuffles do not depend on the order
/// segments are visited in (splitmix64's finalizer over the options' seed and the ends).
std::uint64_t segment_seed(std::uint64_t seed, std::size_t begin, std::size_t end) {
    std::uint64_t z = seed + 0x9E37'79B9'7F4A'7C15ULL * (1 + begin) + 0xBF58'476D'1CE4'E5B9ULL * (1 + end);
    z = (z ^ (z >> 30)) * 0xBF58'476D'1CE4'E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D0'49BB'1331'11EBULL;
    return z ^ (z >> 31);
}

/// A segment [begin, end) of the finite points: its best split, and the largest Q of
/// each of its shuffles (shuffle r of every segment together make permutation r).
struct Segment {
    std::size_t begin = 0, end = 0;
    Split best;
    std::vector<double> shuffled_best;
};

/// The points of the series and their distances.
class Series {
public:
    Series(std::vector<double> values, const ChangePointOptions& options)
        : values_(std::move(values)), options_(options), min_segment_(std::max<std::size_t>(options.min_segment, 2)) {
        if (options_.alpha == 1) return;
        const std::size_t n = values_.size();
        table_.assign(n * n, 0.0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i + 1; j < n; ++j)
                table_[i * n + j] = table_[j * n + i] = std::pow(std::abs(values_[i] - values_[j]), options_.alpha);
    }

    bool splittable(const Segment& s) const { return s.end - s.begin >= 2 * min_segment_; }

    /// Fills the segment's best split and its shuffles' best Q.
    void search(Segment& s) {
        const std::size_t size = s.end - s.begin;
        order_.resize(size);
        std::iota(order_.begin(), order_.end(), s.begin);
        s.best = best(size);
        std::mt19937_64 rng(segment_seed(options_.seed, s.begin, s.end));
        s.shuffled_best.clear();
        for (int r = 0; r < options_.permutations; ++r) {
            // Fisher-Yates with the reproducible index of the bootstraps (resampling.hpp).
            for (std::size_t i = size - 1; i > 0; --i) std::swap(order_[i], order_[detail::random_index(rng, i + 1)]);
            s.shuffled_best.push_back(best(size).q);
        }
    }

    const std::vector<double>& values() const { return values_; }

private:
    /// The best split of the points in order_.
    Split best(std::size_t size) {
        if (table_.empty()) {
            ordered_.resize(size);
            for (std::size_t i = 0; i < size; ++i) ordered_[i] = values_[order_[i]];
            return scanner_.best(AbsoluteDistance{ordered_.data()}, size, min_segment_);
        }
        return scanner_.best(TableDistance{table_.data(), values_.size(), order_.data()}, size, min_segment_);
    }

    std::vector<double> values_;
    ChangePointOptions options_;
    std::size_t min_segment_;
    std::vector<double> table_;  // |x_i - x_j|^alpha, row by row; empty for alpha = 1
    std::vector<std::size_t> order_;
    std::vector<double> ordered_;
    Scanner scanner_;
};

double median_of(std::span<const double> values) {
    std::vector<double> copy(values.begin(), values.end());
    return detail::median_in_place(copy);
}

}  // namespace

std::vector<ChangePoint> e_divisive(std::span<const double> series, const ChangePointOptions& options) {
    if (!(options.alpha > 0 && options.alpha < 2))
        throw std::invalid_argument("change points: alpha must be in (0, 2), not " + std::to_string(options.alpha));
    std::vector<std::size_t> positions;  // of the finite values in `series`
    std::vector<double> values;
    for (std::size_t i = 0; i < series.size(); ++i)
        if (std::isfinite(series[i])) {
            positions.push_back(i);
            values.push_back(series[i]);
        }
    Series points(std::move(values), options);
    const std::size_t n = positions.size();

    struct Accepted {
        std::size_t at;  // into the finite points
        double q, p_value;
    };
    std::vector<Accepted> accepted;
    std::vector<Segment> segments{{0, n, {}, {}}};
    if (points.splittable(segments.front())) points.search(segments.front());
    const auto permutations = static_cast<std::size_t>(std::max(options.permutations, 0));
    while (true) {
        // The candidate: the largest Q of all segments' best splits.
        std::size_t candidate = segments.size();
        for (std::size_t i = 0; i < segments.size(); ++i)
            if (points.splittable(segments[i]) &&
                (candidate == segments.size() || segments[i].best.q > segments[candidate].best.q))
                candidate = i;
        if (candidate == segments.size()) break;
        const double observed = segments[candidate].best.q;
        // Permutation r shuffles every segment (its r-th shuffle): its statistic is the
        // largest Q over them, as the observed one is. A relative tolerance lets a
        // shuffle that gives the same Q (a constant series: all 0) count as reaching it.
        const double reach = observed - 1e-9 * std::abs(observed);
        std::size_t over = 0;
        for (std::size_t r = 0; r < permutations; ++r) {
            double largest = -std::numeric_limits<double>::infinity();
            for (const Segment& s : segments)
                if (points.splittable(s)) largest = std::max(largest, s.shuffled_best[r]);
            over += largest >= reach;
        }
        const double p = static_cast<double>(over + 1) / static_cast<double>(permutations + 1);
        if (!(p < options.significance)) break;
        const Segment split = std::move(segments[candidate]);
        const std::size_t at = split.begin + split.best.tau;
        accepted.push_back({at, observed, p});
        segments[candidate] = {split.begin, at, {}, {}};
        segments.push_back({at, split.end, {}, {}});
        for (Segment* s : {&segments[candidate], &segments.back()})
            if (points.splittable(*s)) points.search(*s);
    }

    std::sort(accepted.begin(), accepted.end(), [](const Accepted& a, const Accepted& b) { return a.at < b.at; });
    std::vector<ChangePoint> out;
    const std::span<const double> values_span(points.values());
    for (std::size_t c = 0; c < accepted.size(); ++c) {
        const std::size_t from = c == 0 ? 0 : accepted[c - 1].at;
        const std::size_t to = c + 1 == accepted.size() ? n : accepted[c + 1].at;
        const std::size_t at = accepted[c].at;
        ChangePoint point;
        point.index = positions[at];
        point.before = median_of(values_span.subspan(from, at - from));
        point.after = median_of(values_span.subspan(at, to - at));
        point.relative_change = point.before == 0 ? nan : point.after / point.before - 1;
        point.q = accepted[c].q;
        point.p_value = accepted[c].p_value;
        out.push_back(point);
    }
    return out;
}

}  // namespace bench
