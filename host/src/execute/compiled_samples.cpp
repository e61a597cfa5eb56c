#include "execute/compiled_samples.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include "util/append_unique.hpp"

namespace benchhost {

namespace {

/// "samples 3, 9 and 12" (the first five, then how many more), counted from 1.
std::string sample_list(const std::vector<std::size_t>& marked) {
    std::string text = marked.size() == 1 ? "sample " : "samples ";
    const std::size_t shown = std::min<std::size_t>(marked.size(), 5);
    for (std::size_t i = 0; i < shown; ++i) {
        if (i > 0) text += i + 1 == marked.size() ? " and " : ", ";
        text += std::to_string(marked[i] + 1);
    }
    if (marked.size() > shown) text += " and " + std::to_string(marked.size() - shown) + " more";
    return text;
}

/// What the compiles said, each once, in order: the first two whole, then how many more.
std::string compiled_what(const std::vector<std::string>& whats) {
    std::string text;
    for (std::size_t i = 0; i < std::min<std::size_t>(whats.size(), 2); ++i)
        text += (i > 0 ? "; " : "") + (whats[i].empty() ? std::string("a compile") : whats[i]);
    if (whats.size() > 2) text += "; and " + std::to_string(whats.size() - 2) + " more";
    return text;
}

/// "4, 9-12": the indices (from 0, ascending), runs of consecutive ones as ranges.
std::string index_ranges(const std::vector<std::size_t>& indices) {
    std::string text;
    for (std::size_t i = 0; i < indices.size();) {
        std::size_t last = i;
        while (last + 1 < indices.size() && indices[last + 1] == indices[last] + 1) ++last;
        text += (text.empty() ? "" : ", ") + std::to_string(indices[i]);
        if (last > i) text += "-" + std::to_string(indices[last]);
        i = last + 1;
    }
    return text;
}

/// One series' entry of info compiled_samples: its samples, or its dropped ones.
struct CompiledSamplesEntry {
    std::string series;
    bool dropped = false;  // "dropped ... (as measured)"
    std::vector<std::size_t> indices;
};

/// Reads info compiled_samples back ("latency: 4, 9-11; throughput: dropped 2 (as
/// measured)"); an entry it cannot read is left out.
std::vector<CompiledSamplesEntry> parse_compiled_samples(const std::string& text) {
    std::vector<CompiledSamplesEntry> out;
    for (std::string_view rest = text; !rest.empty();) {
        const std::size_t end = rest.find("; ");
        std::string_view entry = rest.substr(0, end);
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 2);
        const std::size_t colon = entry.rfind(": ");
        if (colon == std::string_view::npos) continue;
        CompiledSamplesEntry marked{std::string(entry.substr(0, colon)), false, {}};
        std::string_view list = entry.substr(colon + 2);
        constexpr std::string_view dropped = "dropped ", as_measured = " (as measured)";
        if (list.starts_with(dropped) && list.ends_with(as_measured)) {
            marked.dropped = true;
            list = list.substr(dropped.size(), list.size() - dropped.size() - as_measured.size());
        }
        bool read = true;
        for (std::string_view items = list; !items.empty() && read;) {
            const std::size_t comma = items.find(", ");
            const std::string_view item = items.substr(0, comma);
            items = comma == std::string_view::npos ? std::string_view() : items.substr(comma + 2);
            const std::size_t dash = item.find('-');
            std::size_t first = 0, last = 0;
            const auto number = [](std::string_view digits, std::size_t& value) {
                const auto [ptr, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
                return error == std::errc() && ptr == digits.data() + digits.size() && !digits.empty();
            };
            read = number(item.substr(0, dash), first) &&
                   (dash == std::string_view::npos ? (last = first, true) : number(item.substr(dash + 1), last)) &&
                   last >= first;
            for (std::size_t i = first; read && i <= last; ++i) marked.indices.push_back(i);
        }
        if (read && !marked.indices.empty()) out.push_back(std::move(marked));
    }
    return out;
}

std::string compiled_samples_text(const std::vector<CompiledSamplesEntry>& entries) {
    std::string text;
    for (const CompiledSamplesEntry& m : entries)
        text += (text.empty() ? "" : "; ") + m.series + ": " +
                (m.dropped ? "dropped " + index_ranges(m.indices) + " (as measured)" : index_ranges(m.indices));
    return text;
}

void set_count(bench::ScenarioResult& result, const std::string& name, double value) {
    for (bench::Scalar& s : result.scalars)
        if (s.name == name) {
            s.value = value;
            return;
        }
    result.scalars.push_back({name, value, "count"});
}

}  // namespace

SampleEnds mark_compiled_samples(bench::ScenarioResult& result, const SampleEnds& ends,
                                 const std::vector<bench::CompileWindow>& compiles, bool discard) {
    SampleEnds kept_ends = ends;
    if (compiles.empty()) return kept_ends;
    std::size_t most_marked = 0, most_dropped = 0;
    bool any_series = false;
    std::vector<CompiledSamplesEntry> which;  // info compiled_samples
    for (const auto& [name, series_ends] : ends) {
        // Not captured as the structured binding itself: clang before 16 cannot (the fuzz build).
        const std::string& series_name = name;
        auto series = std::find_if(result.series.begin(), result.series.end(),
                                   [&](const bench::Series& s) { return s.name == series_name; });
        if (series == result.series.end() || series->samples.size() != series_ends.size() || series_ends.empty())
            continue;
        any_series = true;
        std::vector<std::size_t> marked;
        std::vector<std::string> whats;
        for (std::size_t i = 0; i < series_ends.size(); ++i) {
            const auto end = series_ends[i];
            const auto start =
                end - std::chrono::duration_cast<bench::Clock::duration>(std::chrono::duration<double, std::milli>(
                          series->samples[i] * static_cast<double>(series->inner_iterations)));
            bool overlapped = false;
            for (const bench::CompileWindow& compile : compiles) {
                if (compile.start >= end || compile.end <= start) continue;
                overlapped = true;
                append_unique(whats, compile.what);
            }
            if (overlapped) marked.push_back(i);
        }
        most_marked = std::max(most_marked, marked.size());
        if (marked.empty()) continue;
        const std::string of = " of " + std::to_string(series_ends.size());
        if (!discard) {
            which.push_back({name, false, marked});
            result.warnings.push_back(name + ": " + sample_list(marked) + of + " contained a compile (" +
                                      compiled_what(whats) + "); --discard-recompiled drops them");
            continue;
        }
        if (marked.size() == series_ends.size()) {
            which.push_back({name, false, marked});
            result.warnings.push_back(name + ": every sample contained a compile (" + compiled_what(whats) +
                                      "); --discard-recompiled kept them all, as nothing would be left");
            continue;
        }
        which.push_back({name, true, marked});
        std::vector<bool> drop(series_ends.size(), false);
        for (std::size_t i : marked) drop[i] = true;
        const auto keep = [&drop](const auto& all) {
            std::remove_cvref_t<decltype(all)> out;
            for (std::size_t i = 0; i < all.size(); ++i)
                if (!drop[i]) out.push_back(all[i]);
            return out;
        };
        series->samples = keep(series->samples);
        if (auto times = result.sample_times.find(name);
            times != result.sample_times.end() && times->second.size() == drop.size())
            times->second = keep(times->second);
        kept_ends[name] = keep(series_ends);
        most_dropped = std::max(most_dropped, marked.size());
        result.warnings.push_back(name + ": " + std::to_string(marked.size()) + of +
                                  " samples discarded (--discard-recompiled): a compile ran during them (" +
                                  compiled_what(whats) + ")");
    }
    if (!any_series) return kept_ends;
    if (!which.empty()) result.info["compiled_samples"] = compiled_samples_text(which);
    set_count(result, "recompiled_samples", static_cast<double>(most_marked));
    if (discard) set_count(result, "discarded_recompiled", static_cast<double>(most_dropped));
    return kept_ends;
}

void pool_compiled_samples(bench::ScenarioResult& pooled, const bench::ScenarioResult& round,
                           const std::map<std::string, std::size_t>& kept_before) {
    const auto added = round.info.find("compiled_samples");
    if (added == round.info.end()) return;
    const auto stored = pooled.info.find("compiled_samples");
    std::vector<CompiledSamplesEntry> entries =
        stored == pooled.info.end() ? std::vector<CompiledSamplesEntry>{} : parse_compiled_samples(stored->second);
    for (CompiledSamplesEntry& next : parse_compiled_samples(added->second)) {
        const auto kept = kept_before.find(next.series);
        if (kept == kept_before.end()) continue;  // a series the pooled rounds do not have
        std::size_t offset = kept->second;
        if (next.dropped)  // among the samples as taken: the earlier rounds' dropped ones too
            for (const CompiledSamplesEntry& m : entries)
                if (m.series == next.series && m.dropped) offset += m.indices.size();
        for (std::size_t& i : next.indices) i += offset;
        const auto same = std::find_if(entries.begin(), entries.end(), [&](const CompiledSamplesEntry& m) {
            return m.series == next.series && m.dropped == next.dropped;
        });
        if (same == entries.end()) entries.push_back(std::move(next));
        else same->indices.insert(same->indices.end(), next.indices.begin(), next.indices.end());
    }
    if (entries.empty()) return;
    pooled.info["compiled_samples"] = compiled_samples_text(entries);
    std::map<std::string, std::size_t> marked, dropped;
    for (const CompiledSamplesEntry& m : entries) {
        marked[m.series] += m.indices.size();
        if (m.dropped) dropped[m.series] += m.indices.size();
    }
    const auto most = [](const std::map<std::string, std::size_t>& counts) {
        std::size_t n = 0;
        for (const auto& [series, count] : counts) n = std::max(n, count);
        return static_cast<double>(n);
    };
    set_count(pooled, "recompiled_samples", most(marked));
    if (round.find_scalar("discarded_recompiled") != nullptr || pooled.find_scalar("discarded_recompiled") != nullptr)
        set_count(pooled, "discarded_recompiled", most(dropped));
}

}  // namespace benchhost
