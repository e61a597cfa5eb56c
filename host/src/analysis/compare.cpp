#include "analysis/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <span>

#include <fmt/format.h>

#include <bench/internal/hypothesis_test.hpp>
#include <bench/statistics.hpp>

#include "json/json_writer.hpp"
#include "util/text_table.hpp"
#include "util/units.hpp"

namespace benchhost {

namespace {

/// Facts that must match for two runs' timings to be comparable: the machine, and the
/// build of what is measured. (Not the git commit: a change is what is being compared.)
constexpr std::pair<const char*, const char*> comparable_facts[] = {
    {"cpu", "model"},          {"cpu", "logical_cores"},    {"cpu", "cpus_available"},
    {"cpu", "sockets"},        {"memory", "total_mib"},     {"os", "machine"},
    {"gpu", "available"},      {"build", "build_type"},     {"build", "optimized"},
    {"build", "compiler"},     {"build", "sdk_abi"},        {"libtorch", "torch_version"},
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

SeriesComparison compare_series(const std::string& id, const bench::Series& base, const bench::Series& next,
                                const CompareOptions& options) {
    SeriesComparison row;
    row.scenario_id = id;
    row.series = base.name;
    const std::vector<double> a = in_ms(base), b = in_ms(next);
    row.base_samples = a.size();
    row.new_samples = b.size();
    row.base_median_ms = bench::summarize(a).median;
    row.new_median_ms = bench::summarize(b).median;
    row.ratio = row.new_median_ms / row.base_median_ms;
    row.ratio_ci = bench::bootstrap_ratio_interval(b, a);
    row.p_value = bench::mann_whitney_u(a, b).p_value;

    const bool significant = row.p_value < options.alpha;
    if (significant && row.ratio > 1 + options.threshold) row.verdict = Verdict::slower;
    else if (significant && row.ratio < 1 - options.threshold) row.verdict = Verdict::faster;
    // With few samples no difference can be significant: say so rather than "same".
    if (!significant && std::min(a.size(), b.size()) < 5 && std::abs(row.ratio - 1) > options.threshold)
        row.note = "too few samples for the test (at least 5 per side)";
    return row;
}

std::string interval_text(const bench::Interval& ci) {
    if (!ci.valid()) return "-";
    return "[" + format3(ci.low) + ", " + format3(ci.high) + "]";
}

std::string verdict_text(const SeriesComparison& row) {
    std::string text(to_string(row.verdict));
    if (!row.note.empty()) text += " (" + row.note + ")";
    return text;
}

std::string p_text(double p) {
    if (!std::isfinite(p)) return "-";
    if (p < 0.001) return "<0.001";
    return fmt::format("{:.3f}", p);
}

}  // namespace

std::string_view to_string(Verdict verdict) {
    switch (verdict) {
        case Verdict::faster: return "faster";
        case Verdict::slower: return "slower";
        case Verdict::same: return "same";
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

Comparison compare_runs(const RunRecord& base, const RunRecord& next, const CompareOptions& options) {
    Comparison comparison;
    comparison.options = options;
    comparison.incomparable = incomparable_facts(base.hardware, next.hardware);

    std::map<std::string, const ScenarioOutcome*> base_by_id;
    for (const ScenarioOutcome& outcome : base.outcomes) base_by_id.emplace(outcome.config.scenario_id(), &outcome);
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
        bool any = false;
        for (const bench::Series& series : new_result.series) {
            if (!is_time_unit(series.unit)) continue;
            const bench::Series* old_series = old_result.find_series(series.name);
            if (old_series == nullptr || !is_time_unit(old_series->unit)) continue;
            if (old_series->samples.empty() || series.samples.empty()) continue;
            SeriesComparison row = compare_series(id, *old_series, series, options);
            if (std::isfinite(row.ratio) && row.ratio > 0) {
                log_sum += std::log(row.ratio);
                ++logs;
            }
            comparison.rows.push_back(std::move(row));
            any = true;
        }
        if (!any) comparison.not_compared.push_back(id + ": no time series measured in both runs");
    }
    for (const ScenarioOutcome& outcome : base.outcomes) {
        const std::string id = outcome.config.scenario_id();
        if (seen.count(id) == 0 &&
            std::none_of(next.outcomes.begin(), next.outcomes.end(),
                         [&](const ScenarioOutcome& o) { return o.config.scenario_id() == id; }))
            comparison.only_in_base.push_back(id);
    }
    comparison.geomean_ratio = logs > 0 ? std::exp(log_sum / static_cast<double>(logs)) : std::nan("");
    return comparison;
}

// ---- Output ----------------------------------------------------------------------

namespace {

std::string verdict_counts(const Comparison& c) {
    return fmt::format("{} slower, {} faster, {} same (threshold {:.3g}%, alpha {:.3g})", c.count(Verdict::slower),
                       c.count(Verdict::faster), c.count(Verdict::same), c.options.threshold * 100, c.options.alpha);
}

}  // namespace

std::string comparison_table(const Comparison& c) {
    const std::vector<TableColumn> columns = {
        {"SCENARIO", Align::left}, {"SERIES", Align::left}, {"BASE", Align::right},     {"NEW", Align::right},
        {"CHANGE", Align::right},  {"RATIO 95% CI", Align::right}, {"P", Align::right}, {"VERDICT", Align::left}};
    std::vector<std::vector<std::string>> rows;
    for (const SeriesComparison& row : c.rows) {
        rows.push_back({row.scenario_id, row.series, format_figure(row.base_median_ms, "ms"),
                        format_figure(row.new_median_ms, "ms"), format_change(row.ratio), interval_text(row.ratio_ci),
                        p_text(row.p_value), verdict_text(row)});
    }
    rows.push_back({"geometric mean", "", "", "", format_change(c.geomean_ratio), "", "", ""});

    std::string out = "Comparing " + c.new_label + " (new) with " + c.base_label + " (base)\n";
    if (!c.incomparable.empty()) {
        out += "WARNING: the runs are not comparable: their machines or builds differ:\n";
        for (const auto& line : c.incomparable) out += "  " + line + "\n";
    }
    out += "\n" + render_table(columns, rows);
    const auto list = [&](const char* title, const std::vector<std::string>& items) {
        if (items.empty()) return;
        out += std::string("\n") + title + ":\n";
        for (const auto& item : items) out += "  " + item + "\n";
    };
    list("Only in the base run", c.only_in_base);
    list("Only in the new run", c.only_in_new);
    list("Not compared", c.not_compared);
    out += "\n" + verdict_counts(c) + "\n";
    return out;
}

std::string comparison_markdown(const Comparison& c) {
    const auto cell = [](std::string text) {  // a pipe would end the cell
        std::string out;
        for (const char ch : text) {
            if (ch == '|') out += "\\|";
            else if (ch == '\n') out += ' ';
            else out += ch;
        }
        return out;
    };
    std::string out = "## benchhost comparison\n\n";
    out += "New: `" + cell(c.new_label) + "`, base: `" + cell(c.base_label) + "`\n\n";
    if (!c.incomparable.empty()) {
        out += "> **Warning:** the runs are not comparable: their machines or builds differ.\n";
        for (const auto& line : c.incomparable) out += "> - " + cell(line) + "\n";
        out += "\n";
    }
    out += "| Scenario | Series | Base | New | Change | Ratio 95% CI | p | Verdict |\n";
    out += "|---|---|--:|--:|--:|--:|--:|---|\n";
    for (const SeriesComparison& row : c.rows) {
        const std::string verdict = row.verdict == Verdict::slower   ? "**slower**"
                                    : row.verdict == Verdict::faster ? "faster"
                                                                     : "same";
        out += "| " + cell(row.scenario_id) + " | " + cell(row.series) + " | " + format_figure(row.base_median_ms, "ms") +
               " | " + format_figure(row.new_median_ms, "ms") + " | " + format_change(row.ratio) + " | " +
               interval_text(row.ratio_ci) + " | " + p_text(row.p_value) + " | " + verdict +
               (row.note.empty() ? "" : " (" + cell(row.note) + ")") + " |\n";
    }
    out += "| **Geometric mean** | | | | " + format_change(c.geomean_ratio) + " | | | |\n";
    const auto list = [&](const char* title, const std::vector<std::string>& items) {
        if (items.empty()) return;
        out += std::string("\n**") + title + ":**\n";
        for (const auto& item : items) out += "- `" + cell(item) + "`\n";
    };
    list("Only in the base run", c.only_in_base);
    list("Only in the new run", c.only_in_new);
    list("Not compared", c.not_compared);
    out += "\n" + verdict_counts(c) + "\n";
    return out;
}

std::string comparison_json(const Comparison& c) {
    JsonOut out;
    out.start_object();
    out.field("schema_version", 1);
    out.field("base", c.base_label);
    out.field("new", c.new_label);
    out.field("threshold", c.options.threshold);
    out.field("alpha", c.options.alpha);
    out.field("comparable", c.incomparable.empty());
    out.key("incomparable");
    out.strings(c.incomparable);
    out.key("rows");
    out.start_array();
    for (const SeriesComparison& row : c.rows) {
        out.start_object();
        out.field("scenario_id", row.scenario_id);
        out.field("series", row.series);
        out.field("base_median_ms", row.base_median_ms);
        out.field("new_median_ms", row.new_median_ms);
        out.field("base_samples", row.base_samples);
        out.field("new_samples", row.new_samples);
        out.field("ratio", row.ratio);
        out.key("ratio_ci95");
        out.interval(row.ratio_ci);
        out.field("p_value", row.p_value);
        out.field("verdict", to_string(row.verdict));
        if (!row.note.empty()) out.field("note", row.note);
        out.end_object();
    }
    out.end_array();
    out.field("geomean_ratio", c.geomean_ratio);
    out.key("only_in_base");
    out.strings(c.only_in_base);
    out.key("only_in_new");
    out.strings(c.only_in_new);
    out.key("not_compared");
    out.strings(c.not_compared);
    out.key("counts");
    out.start_object();
    out.field("slower", c.count(Verdict::slower));
    out.field("faster", c.count(Verdict::faster));
    out.field("same", c.count(Verdict::same));
    out.end_object();
    out.end_object();
    return out.text();
}

}  // namespace benchhost
