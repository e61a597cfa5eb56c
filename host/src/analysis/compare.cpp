#include "analysis/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <span>
#include <string_view>

#include <fmt/format.h>

#include <bench/internal/statistics/block_bootstrap.hpp>
#include <bench/internal/statistics/distributions.hpp>
#include <bench/internal/statistics/hypothesis_test.hpp>
#include <bench/internal/statistics/round_bootstrap.hpp>
#include <bench/statistics.hpp>

#include "util/append_unique.hpp"
#include "util/text_table.hpp"
#include "util/units.hpp"

namespace benchhost {

namespace {

/// Facts that must match for two runs' timings to be comparable: the machine, and the
/// build of what is measured. (Not the git commit: a change is what is being compared.)
constexpr std::pair<const char*, const char*> comparable_facts[] = {
    {"cpu", "model"},        {"cpu", "logical_cores"}, {"cpu", "cpus_available"}, {"cpu", "sockets"},
    {"memory", "total_mib"}, {"os", "machine"},        {"gpu", "available"},      {"build", "build_type"},
    {"build", "optimized"},  {"build", "compiler"},    {"build", "sdk_abi"},      {"libtorch", "torch_version"},
    {"libtorch", "threads"},
};

std::vector<double> in_ms(const bench::Series& series) {
    const double factor = to_ms_factor(series.unit);
    std::vector<double> out;
    out.reserve(series.samples.size());
    for (const double x : series.samples)
        if (std::isfinite(x)) out.push_back(x * factor);
    return out;
}

/// The series' samples in ms split by round, when its outcome recorded its rounds;
/// empty otherwise.
bench::RoundSamples rounds_in_ms(const ScenarioOutcome& outcome, const bench::Series& series) {
    const auto it = outcome.round_sizes.find(series.name);
    if (it == outcome.round_sizes.end() || it->second.size() < 2) return {};
    std::size_t total = 0;
    for (const std::size_t n : it->second) total += n;
    if (total != series.samples.size()) return {};  // not this series' rounds
    const double factor = to_ms_factor(series.unit);
    bench::RoundSamples rounds;
    auto sample = series.samples.begin();
    for (const std::size_t n : it->second) {
        std::vector<double>& round = rounds.emplace_back();
        for (std::size_t i = 0; i < n; ++i, ++sample) round.push_back(*sample * factor);
    }
    return rounds;
}

/// One side of a row: its finite samples in ms, and by round when it has two or more.
struct Side {
    std::vector<double> all;
    bench::RoundSamples rounds;
    int round_count = 1;
    /// The machine's speed while the side was measured (bench/speed_reference.hpp): the
    /// reference's time before the first sample and after the last (ns a step; NaN when
    /// not recorded, as by runs of older versions), and which reference it was.
    double reference_start = std::nan(""), reference_end = std::nan("");
    std::string reference_kind;

    bool has_reference() const { return reference_start > 0 && reference_end > 0; }
    double reference() const { return std::sqrt(reference_start * reference_end); }
};

/// Reads the speed reference of `outcome` into `side`.
void read_speed_reference(const ScenarioOutcome& outcome, Side& side) {
    const bench::Scalar* start = outcome.result.find_scalar("speed_reference_start");
    const bench::Scalar* end = outcome.result.find_scalar("speed_reference_end");
    if (start == nullptr || end == nullptr) return;
    side.reference_start = start->value;
    side.reference_end = end->value;
    const auto kind = outcome.result.info.find("speed_reference");
    if (kind != outcome.result.info.end()) side.reference_kind = kind->second;
}

/// Why two single runs cannot be compared for the machine's speed, or empty when they
/// can: a side whose reference changed while it ran (it caught both speeds), or sides
/// whose references differ (each caught another). Beyond speed_reference_tolerance both.
/// `factor` (>= 1): the largest of those speed changes, as much as they could move the
/// ratio of the two sides.
std::string speed_mismatch(const Side& base, const Side& next, double& ratio, double& factor) {
    ratio = std::nan("");
    factor = 1;
    if (!base.has_reference() || !next.has_reference() || base.reference_kind != next.reference_kind) return {};
    for (const Side* side : {&base, &next})
        factor = std::max(factor, std::exp(std::abs(std::log(side->reference_end / side->reference_start))));
    factor = std::max(factor, std::exp(std::abs(std::log(next.reference() / base.reference()))));
    const double bar = std::log(1 + speed_reference_tolerance);
    const std::string loop =
        base.reference_kind.empty() ? "a reference loop" : "the " + base.reference_kind + " reference loop";
    for (const auto& [side, name] : {std::pair{&base, "base"}, std::pair{&next, "new"}})
        if (std::abs(std::log(side->reference_end / side->reference_start)) > bar) {
            ratio = next.reference() / base.reference();
            return fmt::format(
                "the machine's speed changed while {} ran ({} took x{:.2f} as long after its samples as before): "
                "it caught two speeds (--rounds 3 or benchhost ab can tell)",
                name, loop, side->reference_end / side->reference_start);
        }
    ratio = next.reference() / base.reference();
    if (std::abs(std::log(ratio)) <= bar) {
        ratio = std::nan("");
        return {};
    }
    return fmt::format(
        "the machine ran at another speed: {} took x{:.2f} as long in new as in base, so the runs caught "
        "different speed states (--rounds 3 or benchhost ab can tell)",
        loop, ratio);
}

/// The side `series` of `outcome` gives; only its first `keep_rounds` rounds when that
/// is positive and fewer than it has (the figures a confirmation started from).
Side side_of(const ScenarioOutcome& outcome, const bench::Series& series, int keep_rounds) {
    Side side;
    side.round_count = outcome.rounds;
    side.rounds = rounds_in_ms(outcome, series);
    read_speed_reference(outcome, side);
    if (keep_rounds <= 0 || side.rounds.empty() || keep_rounds >= static_cast<int>(side.rounds.size())) {
        side.all = in_ms(series);
        return side;
    }
    side.rounds.resize(static_cast<std::size_t>(keep_rounds));
    side.round_count = keep_rounds;
    for (const std::vector<double>& round : side.rounds)
        for (const double x : round)
            if (std::isfinite(x)) side.all.push_back(x);
    if (keep_rounds == 1) side.rounds.clear();  // one round says nothing about the spread between rounds
    return side;
}

/// The median of each round (its finite samples); NaN for a round without any.
std::vector<double> round_medians(const bench::RoundSamples& rounds) {
    std::vector<double> medians;
    for (const std::vector<double>& round : rounds) {
        std::vector<double> finite;
        for (const double x : round)
            if (std::isfinite(x)) finite.push_back(x);
        medians.push_back(finite.empty() ? std::nan("") : bench::summarize(finite).median);
    }
    return medians;
}

std::string percent(double relative) { return fmt::format("{:.3g}%", relative * 100); }

/// A confidence level as a percentage, to two decimals where it has them: 95, 99, 99.79.
std::string level_text(double level) { return fmt::format("{:g}", std::floor(level * 10000 + 0.5) / 100); }

/// The figures and the verdict of `next` against `base` (SeriesComparison, without its
/// names), on the best evidence the two sides hold.
SeriesComparison judge(const Side& base, const Side& next, const CompareOptions& options,
                       const HistoryNoise* noise = nullptr) {
    SeriesComparison row;
    const std::vector<double>& a = base.all;
    const std::vector<double>& b = next.all;
    row.base_samples = a.size();
    row.new_samples = b.size();
    row.base_median_ms = bench::summarize(a).median;
    row.new_median_ms = bench::summarize(b).median;
    row.ratio = row.new_median_ms / row.base_median_ms;
    row.p_value = bench::mann_whitney_u(a, b).p_value;
    row.base_rounds = base.round_count;
    row.new_rounds = next.round_count;

    if (options.paired && !base.rounds.empty() && !next.rounds.empty()) {
        std::vector<double> base_medians = round_medians(base.rounds), new_medians = round_medians(next.rounds);
        const std::size_t pairs = std::min(base_medians.size(), new_medians.size());
        base_medians.resize(pairs);
        new_medians.resize(pairs);
        const double ratio = bench::paired_ratio(base_medians, new_medians);
        if (std::isfinite(ratio)) {
            // Judged by the pairs alone, however few: with fewer than fewest_pairs there is
            // no interval, and the verdict waits for more pairs.
            row.evidence = "pairs";
            row.ratio = ratio;
            row.ratio_ci = bench::paired_ratio_interval(base_medians, new_medians, 0.95);
            // The look's level (stricter past the first look), and for slower or faster that
            // level divided among the series the run compares.
            const bool later_look = pairs > options.first_look_pairs;
            const double look_level = later_look ? options.later_looks_level : 0.95;
            const std::size_t family = std::max<std::size_t>(options.family_rows, 1);
            const double family_level = 1 - (1 - look_level) / static_cast<double>(family);
            const bench::Interval look_ci =
                later_look ? bench::paired_ratio_interval(base_medians, new_medians, look_level) : row.ratio_ci;
            const bench::Interval family_ci =
                family > 1 ? bench::paired_ratio_interval(base_medians, new_medians, family_level) : look_ci;
            row.verdict_level = family_level;
            row.verdict_ci = family_ci;
            row.verdict = verdict_of(row.ratio, family_ci, options.threshold);
            if (row.verdict == Verdict::inconclusive &&
                verdict_of(row.ratio, look_ci, options.threshold) == Verdict::same) {
                row.verdict = Verdict::same;
                row.verdict_level = look_level;
                row.verdict_ci = look_ci;
            }
            const std::string level = level_text(row.verdict_level);
            const std::string why_level = fmt::format(
                "{}%{} divided among the {} series this run compares", level_text(look_level),
                later_look ? fmt::format(" past the first {} pairs", options.first_look_pairs) : "", family);
            if (row.verdict != Verdict::inconclusive) return row;
            if (!row.verdict_ci.valid()) {
                row.note = fmt::format("{} pairs: {} are needed for a {}% interval", pairs,
                                       bench::fewest_pairs(row.verdict_level), level);
                if (family > 1) row.note += " (" + why_level + ")";
            } else if (const Verdict at_95 = verdict_of(row.ratio, row.ratio_ci, options.threshold);
                       at_95 == Verdict::inconclusive) {
                row.note = "the pairs differ too much to tell: more rounds narrow the interval";
            } else if (family > 1 && at_95 != Verdict::same) {
                row.note = fmt::format("the verdict reads the {}% interval [{:.3g}, {:.3g}] ({}): more pairs narrow it",
                                       level, row.verdict_ci.low, row.verdict_ci.high, why_level);
            } else {
                // Same at 95%, or one series alone: the look's own level, past the first look.
                row.note = fmt::format(
                    "past the first {} pairs the verdict reads the {}% interval [{:.3g}, {:.3g}]: "
                    "more pairs narrow it",
                    options.first_look_pairs, level_text(look_level), look_ci.low, look_ci.high);
            }
            return row;
        }
    }
    if (!base.rounds.empty() && !next.rounds.empty()) {
        const bench::Interval ci = bench::hierarchical_ratio_interval(next.rounds, base.rounds);
        if (ci.valid()) {
            row.evidence = "rounds";
            row.ratio_ci = ci;
            row.verdict = verdict_of(row.ratio, ci, options.threshold);
            if (row.verdict == Verdict::inconclusive)
                row.note = "the rounds differ too much to tell: more rounds narrow the interval";
            return row;
        }
    }
    if (noise != nullptr && std::isfinite(noise->sd) && noise->runs >= 2 && std::isfinite(row.ratio) && row.ratio > 0) {
        // One run a side, each as far from the level as the history's runs are from
        // theirs: the log of the ratio spreads by sd * sqrt(2).
        const double half =
            bench::student_t_quantile(0.975, static_cast<double>(noise->runs - 1)) * noise->sd * std::sqrt(2.0);
        row.evidence = "history";
        row.history_runs = noise->runs;
        row.ratio_ci = {row.ratio * std::exp(-half), row.ratio * std::exp(half)};
        row.verdict = verdict_of(row.ratio, row.ratio_ci, options.threshold);
        if (row.verdict == Verdict::inconclusive)
            row.note = "runs on this machine differ by " + percent(noise->sd) + ": too much to tell";
        return row;
    }
    // Samples close in time share the machine's state: each side is resampled in blocks
    // of its own length (block_bootstrap.hpp).
    row.ratio_ci = bench::block_bootstrap_ratio_interval(b, bench::block_length(b), a, bench::block_length(a));
    const bool significant = row.p_value < options.alpha;
    const double floor = std::max(options.noise_floor, 0.0);
    const std::string within_floor = "one run a side: within the " + percent(floor) +
                                     " noise floor between runs (--rounds 3 or benchhost ab can tell)";
    if (significant && row.ratio > 1 + options.threshold) {
        row.verdict = row.ratio_ci.valid() && row.ratio_ci.low > 1 + floor ? Verdict::slower : Verdict::inconclusive;
        if (row.verdict == Verdict::inconclusive) row.note = within_floor;
    } else if (significant && row.ratio < 1 - options.threshold) {
        row.verdict =
            row.ratio_ci.valid() && row.ratio_ci.high < 1 / (1 + floor) ? Verdict::faster : Verdict::inconclusive;
        if (row.verdict == Verdict::inconclusive) row.note = within_floor;
    } else if (!row.ratio_ci.valid() || row.ratio_ci.low < 1 - options.threshold ||
               row.ratio_ci.high > 1 + options.threshold) {
        // "same" only when the interval lies within the threshold: a change the samples
        // cannot show is not shown to be absent.
        row.verdict = Verdict::inconclusive;
        if (std::min(a.size(), b.size()) < 5) row.note = "too few samples for the test (at least 5 per side)";
        else if (significant)
            row.note = fmt::format("a change within the {} threshold, but its interval reaches past it",
                                   percent(options.threshold));
        else
            row.note = fmt::format("the samples cannot tell (P = {:.2g}): the interval reaches past the {} threshold",
                                   row.p_value, percent(options.threshold));
    }
    // Two runs that caught the machine at different speeds (bench/speed_reference.hpp) differ by
    // as much whatever changed between them: no verdict on that, unless the interval stays
    // past the threshold after the largest speed change is taken out of it (a 4x slowdown
    // is one, whatever speed either side caught).
    double factor = 1;
    if (const std::string mismatch = speed_mismatch(base, next, row.speed_reference_ratio, factor); !mismatch.empty()) {
        const bool still_slower = row.verdict == Verdict::slower && row.ratio_ci.low / factor > 1 + options.threshold;
        const bool still_faster = row.verdict == Verdict::faster && row.ratio_ci.high * factor < 1 - options.threshold;
        if (still_slower || still_faster) {
            row.note = fmt::format("past the threshold even allowing for the machine's speed changing x{:.2f}", factor);
        } else {
            row.verdict = Verdict::inconclusive;
            row.note = mismatch;
        }
    }
    return row;
}

SeriesComparison compare_series(const std::string& id, const ScenarioOutcome& base_outcome, const bench::Series& base,
                                const ScenarioOutcome& next_outcome, const bench::Series& next,
                                const CompareOptions& options) {
    const auto noise = options.history_noise.find(history_noise_key(id, base.name));
    SeriesComparison row = judge(side_of(base_outcome, base, 0), side_of(next_outcome, next, 0), options,
                                 noise == options.history_noise.end() ? nullptr : &noise->second);
    row.scenario_id = id;
    row.series = base.name;
    // Confirmed: the figures of the rounds before the confirmation, beside those of all.
    // An A/B run confirmed both sides; a run against a baseline only its own.
    const int first = next_outcome.first_rounds;
    if (first > 0 && first < next_outcome.rounds) {
        const SeriesComparison before =
            judge(side_of(base_outcome, base, options.paired ? first : 0), side_of(next_outcome, next, first), options);
        row.first = SeriesComparison::First{before.ratio, before.ratio_ci, before.verdict, before.base_rounds,
                                            before.new_rounds};
    }
    return row;
}

/// A compiler count of both sides: no statistics (it is the same on every run of one
/// build), so any change is the verdict; the note says what changed, with the break's
/// reasons or where the recompile's guard is named.
SeriesComparison compare_count(const std::string& id, const std::string& name, double base, double next,
                               const ScenarioOutcome& next_outcome) {
    SeriesComparison row;
    row.scenario_id = id;
    row.series = name;
    row.unit = "count";
    row.evidence = "count";
    row.base_median_ms = base;
    row.new_median_ms = next;
    row.base_samples = row.new_samples = 1;
    row.ratio = base > 0 ? next / base : next == 0 ? 1.0 : std::numeric_limits<double>::quiet_NaN();
    row.ratio_ci = {row.ratio, row.ratio};
    row.verdict_ci = row.ratio_ci;
    row.p_value = std::nan("");
    row.verdict = next > base ? Verdict::slower : next < base ? Verdict::faster : Verdict::same;
    if (row.verdict == Verdict::slower) {
        row.note = fmt::format("{} {:g} -> {:g}", name, base, next);
        if (const std::string reasons = compiler_count_reasons(next_outcome.result, name); !reasons.empty())
            row.note += ": " + reasons;
        else if (name == "recompiles") row.note += " (the scenario's warnings name the guard that failed)";
    }
    return row;
}

}  // namespace

std::string_view compiler_count_reasons_key(std::string_view count) {
    if (count == "graph_breaks") return "graph_break_reasons";
    if (count == "recompiles") return "recompile_reasons";
    return {};
}

std::string compiler_count_reasons(const bench::ScenarioResult& result, std::string_view count) {
    const std::string_view key = compiler_count_reasons_key(count);
    if (key.empty()) return {};
    const auto reasons = result.info.find(std::string(key));
    return reasons == result.info.end() ? std::string() : reasons->second;
}

Verdict verdict_of(double ratio, const bench::Interval& ci, double threshold) {
    if (!ci.valid()) return Verdict::inconclusive;
    if (ci.low > 1 && ratio > 1 + threshold) return Verdict::slower;
    if (ci.high < 1 && ratio < 1 - threshold) return Verdict::faster;
    if (ci.high > 1 + threshold || ci.low < 1 - threshold) return Verdict::inconclusive;
    return Verdict::same;
}

std::optional<Verdict> parse_verdict(std::string_view text) {
    for (const Verdict verdict : {Verdict::faster, Verdict::slower, Verdict::same, Verdict::inconclusive})
        if (to_string(verdict) == text) return verdict;
    return std::nullopt;
}

std::string_view to_string(Verdict verdict) {
    switch (verdict) {
        case Verdict::faster:
            return "faster";
        case Verdict::slower:
            return "slower";
        case Verdict::same:
            return "same";
        case Verdict::inconclusive:
            return "inconclusive";
    }
    return "same";
}

std::size_t Comparison::count(Verdict verdict) const {
    return static_cast<std::size_t>(
        std::count_if(rows.begin(), rows.end(), [&](const SeriesComparison& row) { return row.verdict == verdict; }));
}

std::vector<std::string> incomparable_facts(const HardwareInfo& base, const HardwareInfo& next) {
    std::vector<std::string> out;
    for (const auto& [section, key] : comparable_facts) {
        const std::string a = hardware_fact(base, section, key), b = hardware_fact(next, section, key);
        if (a == b) continue;
        out.push_back(fmt::format("{}.{}: '{}' (base) vs '{}' (new)", section, key, a.empty() ? "unknown" : a,
                                  b.empty() ? "unknown" : b));
    }
    return out;
}

namespace {

/// Settings a run records that say where it was written, what it selected or how it is
/// judged, not how it measured: two runs of one build differ in them without their
/// figures differing (the selection shows as scenarios on one side only).
constexpr std::string_view bookkeeping_settings[] = {
    "ab_other_side",
    "ab_side",
    "allow_untrusted_plugins",
    "baseline",
    "categories",
    "command_line",
    "config_file",
    "confirm",
    "enable_mock",
    "exclude",
    "fail_on_regression",
    "formats",
    "history",
    "history_samples",
    "include",
    "memory_limit_by",
    "merged_from",
    "noise_floor",
    "regression_threshold",
    "resumed_from",
    "retry_failed",
    "shard",
    "shard_costs",
    "timeout_s",
    "working_directory",
};

/// A run_config key as a person names it: "params.slowdown" is "param slowdown",
/// "plugins.resnet.axes.batch_size" is "axis batch_size (plugin resnet)".
std::string setting_name(const std::string& key) {
    std::string plugin, rest = key;
    if (key.starts_with("plugins.")) {
        const std::size_t dot = key.find('.', 8);
        if (dot != std::string::npos) {
            plugin = key.substr(8, dot - 8);
            rest = key.substr(dot + 1);
        }
    }
    std::string name = rest;
    if (rest.starts_with("params.")) name = "param " + rest.substr(7);
    else if (rest.starts_with("axes.")) name = "axis " + rest.substr(5);
    else if (rest == "plugins_dir") name = "plugins folder";
    return plugin.empty() ? name : name + " (plugin " + plugin + ")";
}

/// The parameters first (what `ab --new-param` sets), then the plugins folder (what
/// tells two builds apart), then the rest.
int setting_rank(const std::string& key) {
    if (key.starts_with("params.") || key.find(".params.") != std::string::npos) return 0;
    return key == "plugins_dir" ? 1 : 2;
}

/// How each plugin of a run was compiled, from its first scenario that recorded it.
std::map<std::string, std::string> plugin_builds(const RunRecord& record) {
    std::map<std::string, std::string> builds;
    for (const ScenarioOutcome& outcome : record.outcomes)
        if (outcome.plugin_build.known && !outcome.config.plugin.empty())
            builds.emplace(outcome.config.plugin, build_text(outcome.plugin_build));
    return builds;
}

}  // namespace

std::vector<SideDifference> side_differences(const RunRecord& base, const RunRecord& next) {
    std::vector<SideDifference> out;
    const auto differ = [&](const std::string& what, const std::string& a, const std::string& b, const char* missing) {
        if (a != b) out.push_back({what, a.empty() ? missing : a, b.empty() ? missing : b});
    };

    std::vector<std::string> keys;
    for (const auto* config : {&base.run_config, &next.run_config})
        for (const auto& [key, value] : *config) append_unique(keys, key);
    std::sort(keys.begin(), keys.end(), [](const std::string& a, const std::string& b) {
        return std::pair(setting_rank(a), a) < std::pair(setting_rank(b), b);
    });
    for (const std::string& key : keys) {
        if (std::find(std::begin(bookkeeping_settings), std::end(bookkeeping_settings), key) !=
            std::end(bookkeeping_settings))
            continue;
        const auto a = base.run_config.find(key), b = next.run_config.find(key);
        differ(setting_name(key), a == base.run_config.end() ? "" : a->second,
               b == next.run_config.end() ? "" : b->second, "(none)");
    }

    // The plugins both ran: a plugin on one side only shows as its scenarios.
    const auto base_plugins = base.hardware.find("plugins"), next_plugins = next.hardware.find("plugins");
    if (base_plugins != base.hardware.end() && next_plugins != next.hardware.end())
        for (const auto& [plugin, text] : base_plugins->second)
            if (const auto other = next_plugins->second.find(plugin); other != next_plugins->second.end())
                differ("plugin " + plugin, text, other->second, "unknown");
    const std::map<std::string, std::string> base_builds = plugin_builds(base), next_builds = plugin_builds(next);
    for (const auto& [plugin, text] : base_builds)
        if (const auto other = next_builds.find(plugin); other != next_builds.end())
            differ("plugin " + plugin + " build", text, other->second, "unknown");

    if (base.commit_id != "unknown" && next.commit_id != "unknown")
        differ("benchhost commit", base.commit_id, next.commit_id, "unknown");
    for (const auto& [section, key] : comparable_facts)
        differ(std::string(section) + "." + key, hardware_fact(base.hardware, section, key),
               hardware_fact(next.hardware, section, key), "unknown");
    return out;
}

Comparison compare_runs(const RunRecord& base, const RunRecord& next, const CompareOptions& given) {
    Comparison comparison;
    comparison.incomparable = incomparable_facts(base.hardware, next.hardware);

    std::map<std::string, const ScenarioOutcome*> base_by_id;
    for (const ScenarioOutcome& outcome : base.outcomes) base_by_id.emplace(outcome.config.scenario_id(), &outcome);
    CompareOptions options = given;
    if (options.paired && options.family_rows == 0)
        for (const ScenarioOutcome& outcome : next.outcomes)
            if (const auto it = base_by_id.find(outcome.config.scenario_id()); it != base_by_id.end())
                options.family_rows += compared_series(*it->second, outcome);
    comparison.options = options;
    std::map<std::string, bool> seen;
    double log_sum = 0;
    std::size_t logs = 0;
    for (const ScenarioOutcome& outcome : next.outcomes) {
        const std::string id = outcome.config.scenario_id();
        const auto it = base_by_id.find(id);
        if (it == base_by_id.end()) {
            comparison.only_in_new.push_back(id);
            continue;
        }
        seen[id] = true;
        const bench::ScenarioResult& old_result = it->second->result;
        const bench::ScenarioResult& new_result = outcome.result;
        const auto status_of = [](const bench::ScenarioResult& r) {
            return std::string(bench::to_string(r.status)) + (r.reason.empty() ? "" : ": " + one_line(r.reason, 80));
        };
        if (old_result.status != bench::Status::success || new_result.status != bench::Status::success) {
            std::string why;
            if (old_result.status != bench::Status::success) why += "base " + status_of(old_result);
            if (new_result.status != bench::Status::success)
                why += std::string(why.empty() ? "" : "; ") + "new " + status_of(new_result);
            comparison.not_compared.push_back(id + ": " + why);
            continue;
        }
        std::vector<SeriesComparison> rows = compare_outcomes(*it->second, outcome, options);
        const bool any = !rows.empty();
        for (SeriesComparison& row : rows) {
            if (row.evidence != "count" && std::isfinite(row.ratio) && row.ratio > 0) {
                log_sum += std::log(row.ratio);
                ++logs;
            }
            comparison.rows.push_back(std::move(row));
        }
        if (!any) comparison.not_compared.push_back(id + ": no time series measured in both runs");
    }
    for (const ScenarioOutcome& outcome : base.outcomes) {
        const std::string id = outcome.config.scenario_id();
        if (seen.count(id) == 0 && std::none_of(next.outcomes.begin(), next.outcomes.end(),
                                                [&](const ScenarioOutcome& o) { return o.config.scenario_id() == id; }))
            comparison.only_in_base.push_back(id);
    }
    // A compiler count that changed leads every output (console, comparison.md and .json,
    // the page, summary.md, JUnit): a graph break added is the reason a run got slower.
    std::stable_partition(comparison.rows.begin(), comparison.rows.end(), [](const SeriesComparison& row) {
        return row.evidence == "count" && row.verdict != Verdict::same;
    });
    comparison.geomean_ratio = logs > 0 ? std::exp(log_sum / static_cast<double>(logs)) : std::nan("");
    comparison.base_load = side_load(base);
    comparison.new_load = side_load(next);
    return comparison;
}

namespace {

/// The time series of `next` that compare_outcomes compares, each with base's of the same name.
std::vector<std::pair<const bench::Series*, const bench::Series*>> series_pairs(const ScenarioOutcome& base,
                                                                                const ScenarioOutcome& next) {
    std::vector<std::pair<const bench::Series*, const bench::Series*>> out;
    if (base.result.status != bench::Status::success || next.result.status != bench::Status::success) return out;
    for (const bench::Series& series : next.result.series) {
        if (!is_time_unit(series.unit)) continue;
        const bench::Series* old_series = base.result.find_series(series.name);
        if (old_series == nullptr || !is_time_unit(old_series->unit)) continue;
        if (old_series->samples.empty() || series.samples.empty()) continue;
        out.emplace_back(old_series, &series);
    }
    return out;
}

}  // namespace

std::size_t compared_series(const ScenarioOutcome& base, const ScenarioOutcome& next) {
    return series_pairs(base, next).size();
}

std::vector<SeriesComparison> compare_outcomes(const ScenarioOutcome& base, const ScenarioOutcome& next,
                                               const CompareOptions& options) {
    std::vector<SeriesComparison> rows;
    if (base.result.status != bench::Status::success || next.result.status != bench::Status::success) return rows;
    const std::string id = next.config.scenario_id();
    for (const auto& [old_series, series] : series_pairs(base, next))
        rows.push_back(compare_series(id, base, *old_series, next, *series, options));
    for (const std::string_view name : compiler_counts) {
        const bench::Scalar* old_count = base.result.find_scalar(std::string(name));
        const bench::Scalar* new_count = next.result.find_scalar(std::string(name));
        if (old_count == nullptr || new_count == nullptr) continue;
        if (!std::isfinite(old_count->value) || !std::isfinite(new_count->value)) continue;
        rows.push_back(compare_count(id, std::string(name), old_count->value, new_count->value, next));
    }
    return rows;
}

Verdict scenario_verdict(const std::vector<SeriesComparison>& rows) {
    for (const Verdict verdict : {Verdict::slower, Verdict::inconclusive, Verdict::faster})
        if (std::any_of(rows.begin(), rows.end(), [&](const SeriesComparison& row) { return row.verdict == verdict; }))
            return verdict;
    return Verdict::same;
}

bool slower_by_counts_alone(const std::vector<SeriesComparison>& rows) {
    bool count_slower = false;
    for (const SeriesComparison& row : rows) {
        if (row.verdict != Verdict::slower) continue;
        if (row.evidence != "count") return false;
        count_slower = true;
    }
    return count_slower;
}

SideLoad side_load(const RunRecord& record) {
    SideLoad load;
    double busy = 0, others = 0, average = 0;
    std::size_t with_average = 0;
    for (const ScenarioOutcome& outcome : record.outcomes) {
        const auto it = outcome.result.monitors.find("cpu_metrics");
        if (it == outcome.result.monitors.end() || !it->second.available) continue;
        const bench::MonitorReport& cpu = it->second;
        const auto metric = [&](const char* name) {
            const auto m = cpu.metrics.find(name);
            return m == cpu.metrics.end() ? std::nan("") : m->second.mean;
        };
        const auto cpus = cpu.values.find("cpus_available");
        const double machine = metric("system_cpu_utilization"), own = metric("cpu_utilization");
        if (!std::isfinite(machine) || !std::isfinite(own) || cpus == cpu.values.end()) continue;
        ++load.scenarios;
        busy += machine;
        others += std::max(0.0, machine / 100 * cpus->second.value - own / 100);
        if (const double a = metric("load_average"); std::isfinite(a)) {
            average += a;
            ++with_average;
        }
    }
    if (load.scenarios > 0) {
        const double n = static_cast<double>(load.scenarios);
        load.machine_busy_percent = busy / n;
        load.other_cpus = others / n;
    }
    if (with_average > 0) load.load_average = average / static_cast<double>(with_average);
    return load;
}

}  // namespace benchhost
