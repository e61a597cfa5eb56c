#include "report/comparison_reporter.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <stdexcept>

#include <fmt/format.h>

#include "json/json_writer.hpp"
#include "report/comparison_text.hpp"
#include "report/markdown/markdown_text.hpp"
#include "report/reporter_factories.hpp"
#include "util/atomic_file.hpp"
#include "util/text_table.hpp"
#include "util/units.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

/// The U test's p, for rows judged by their samples (over rounds it is not the evidence).
std::string p_text(const SeriesComparison& row) {
    const double p = row.p_value;
    if (row.evidence != "samples" || !std::isfinite(p)) return "-";
    if (p < 0.001) return "<0.001";
    return fmt::format("{:.3f}", p);
}

void write_load(JsonOut& out, const SideLoad& load) {
    out.start_object();
    out.field("monitored_scenarios", load.scenarios);
    out.field("machine_busy_percent", load.machine_busy_percent);
    out.field("other_cpus", load.other_cpus);
    out.field("load_average", load.load_average);
    out.end_object();
}

}  // namespace

std::string comparison_table(const Comparison& c) {
    const std::vector<TableColumn> columns = {
        {"SCENARIO", Align::left}, {"SERIES", Align::left},        {"BASE", Align::right}, {"NEW", Align::right},
        {"CHANGE", Align::right},  {"RATIO 95% CI", Align::right}, {"P", Align::right},    {"VERDICT", Align::left}};
    std::vector<std::vector<std::string>> rows;
    for (const SeriesComparison& row : c.rows) {
        rows.push_back({row.scenario_id, row.series, row_figure(row, row.base_median_ms),
                        row_figure(row, row.new_median_ms), format_change(row.ratio), interval_text(row.ratio_ci),
                        p_text(row), verdict_text(row)});
    }
    rows.push_back({"geometric mean", "", "", "", format_change(c.geomean_ratio), "", "", ""});

    std::string out = "Comparing " + c.new_label + " (new) with " + c.base_label + " (base)\n";
    if (const std::vector<std::string> differences = difference_lines(c); !differences.empty()) {
        out += std::string(differences_heading) + ":\n";
        for (const auto& line : differences) out += "  " + line + "\n";
    } else if (const std::string same = no_difference_text(c); !same.empty()) {
        out += same + "\n";
    }
    if (!c.incomparable.empty()) {
        const std::vector<std::string> unlisted = unlisted_incomparable(c);
        out += "WARNING: the runs are not comparable: their machines or builds differ";
        out += unlisted.empty() ? " (above)\n" : ":\n";
        for (const auto& line : unlisted) out += "  " + line + "\n";
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
    list("Notes", c.notes);
    out += "\n" + loads_line(c) + "\n" + verdict_counts(c) + "\n";
    return out;
}

std::string comparison_markdown(const Comparison& c) {
    std::string out = "## benchhost comparison\n\n";
    out += "New: " + md_code(c.new_label) + ", base: " + md_code(c.base_label) + "\n\n";
    if (const std::vector<std::string> differences = difference_lines(c); !differences.empty()) {
        out += std::string("**") + differences_heading + ":**\n";
        for (const auto& line : differences) out += "- " + md_code(line) + "\n";
        out += "\n";
    } else if (const std::string same = no_difference_text(c); !same.empty()) {
        out += same + "\n\n";
    }
    if (!c.incomparable.empty()) {
        const std::vector<std::string> unlisted = unlisted_incomparable(c);
        out += "> **Warning:** the runs are not comparable: their machines or builds differ" +
               std::string(unlisted.empty() ? " (above).\n" : ".\n");
        for (const auto& line : unlisted) out += "> - " + md_text(line) + "\n";
        out += "\n";
    }
    out += "| Scenario | Series | Base | New | Change | Ratio 95% CI | p | Verdict |\n";
    out += "|---|---|--:|--:|--:|--:|--:|---|\n";
    for (const SeriesComparison& row : c.rows) {
        const std::string verdict = verdict_text(row);
        out += "| " + md_text(row.scenario_id) + " | " + md_text(row.series) + " | " +
               row_figure(row, row.base_median_ms) + " | " + row_figure(row, row.new_median_ms) + " | " +
               format_change(row.ratio) + " | " + interval_text(row.ratio_ci) + " | " + p_text(row) + " | " +
               (row.verdict == Verdict::slower ? "**" + md_text(verdict) + "**" : md_text(verdict)) + " |\n";
    }
    out += "| **Geometric mean** | | | | " + format_change(c.geomean_ratio) + " | | | |\n";
    const auto list = [&](const char* title, const std::vector<std::string>& items) {
        if (items.empty()) return;
        out += std::string("\n**") + title + ":**\n";
        for (const auto& item : items) out += "- " + md_code(item) + "\n";
    };
    list("Only in the base run", c.only_in_base);
    list("Only in the new run", c.only_in_new);
    list("Not compared", c.not_compared);
    list("Notes", c.notes);
    out += "\n" + loads_line(c) + "\n\n" + verdict_counts(c) + "\n";
    return out;
}

std::string comparison_json(const Comparison& c) {
    JsonOut out;
    out.start_object();
    out.field("schema_version", comparison_schema_version);
    out.field("base", c.base_label);
    out.field("new", c.new_label);
    out.field("mode", c.options.paired ? "ab" : "runs");
    out.field("threshold", c.options.threshold);
    out.field("alpha", c.options.alpha);
    out.field("noise_floor", c.options.noise_floor);
    out.field("comparable", c.incomparable.empty());
    out.field("incomparable", c.incomparable);
    out.key("rows");
    out.start_array();
    for (const SeriesComparison& row : c.rows) {
        out.start_object();
        out.field("scenario_id", row.scenario_id);
        out.field("series", row.series);
        out.field("base_median_ms", row.base_median_ms);
        out.field("new_median_ms", row.new_median_ms);
        if (row.unit != "ms") out.field("unit", row.unit);  // a compiler count's rows: "count"
        out.field("base_samples", row.base_samples);
        out.field("new_samples", row.new_samples);
        out.field("ratio", row.ratio);
        out.field("ratio_ci95", row.ratio_ci);
        // The U test treats every sample as independent: it is the evidence only for a row
        // judged by its samples; over pairs, rounds or a history it would say "different
        // moments", not "different code", and is left out (null).
        out.key("p_value");
        if (row.evidence == "samples") out.number(row.p_value);
        else out.null();
        out.field("verdict", to_string(row.verdict));
        out.field("evidence", row.evidence);
        out.field("base_rounds", row.base_rounds);
        out.field("new_rounds", row.new_rounds);
        if (row.evidence == "history") out.field("history_runs", row.history_runs);
        if (row.verdict_level != 0.95) {
            out.field("verdict_level", row.verdict_level);
            out.field("verdict_ci", row.verdict_ci);
        }
        if (!row.note.empty()) out.field("note", row.note);
        if (row.first) {
            out.key("first");
            out.start_object();
            out.field("ratio", row.first->ratio);
            out.field("ratio_ci95", row.first->ratio_ci);
            out.field("verdict", to_string(row.first->verdict));
            out.field("base_rounds", row.first->base_rounds);
            out.field("new_rounds", row.first->new_rounds);
            out.end_object();
        }
        out.end_object();
    }
    out.end_array();
    out.field("geomean_ratio", c.geomean_ratio);
    out.field("only_in_base", c.only_in_base);
    out.field("only_in_new", c.only_in_new);
    out.field("not_compared", c.not_compared);
    out.field("notes", c.notes);
    if (c.differences) {
        out.key("differences");
        out.start_array();
        for (const SideDifference& d : *c.differences) {
            out.start_object();
            out.field("what", d.what);
            out.field("base", d.base);
            out.field("new", d.next);
            out.end_object();
        }
        out.end_array();
    }
    out.key("load");
    out.start_object();
    out.key("base");
    write_load(out, c.base_load);
    out.key("new");
    write_load(out, c.new_load);
    out.end_object();
    out.key("counts");
    out.start_object();
    out.field("slower", c.count(Verdict::slower));
    out.field("faster", c.count(Verdict::faster));
    out.field("same", c.count(Verdict::same));
    out.field("inconclusive", c.count(Verdict::inconclusive));
    out.end_object();
    out.end_object();
    return out.text();
}

void report_comparison(const Comparison& comparison, std::ostream& out, const fs::path& markdown,
                       const fs::path& json) {
    out << comparison_table(comparison) << std::flush;
    if (!markdown.empty()) write_file_atomically(markdown, comparison_markdown(comparison));
    if (!json.empty()) write_file_atomically(json, comparison_json(comparison));
}

namespace {

class ComparisonReporter final : public RunReporter {
public:
    explicit ComparisonReporter(const ReporterSettings& settings)
        : settings_(settings), out_(settings.console != nullptr ? settings.console : &std::cout) {}

    /// The comparison was made before the reporters ran (conclude_run): this shows and writes it.
    void run_ended(const RunRecord&, const RunEnd& end) override {
        if (settings_.baseline.empty()) return;
        status_ = 1;  // until the comparison is written
        if (!end.comparison_error.empty()) throw std::runtime_error(end.comparison_error);
        if (!end.comparison) return;  // called on its own: nothing was compared
        const Comparison& comparison = *end.comparison;
        *out_ << "\n";
        report_comparison(comparison, *out_, markdown_path(), json_path());
        regressions_ = comparison.regressions();
        slower_ = comparison.count(Verdict::slower);
        faster_ = comparison.count(Verdict::faster);
        status_ = settings_.fail_on_regression && regressions_ > 0 ? 1 : 0;
        if (settings_.log != nullptr) {
            settings_.log->info("comparison with {}: {} slower, {} faster", comparison.base_label, slower_, faster_);
            if (status_ != 0)
                settings_.log->error("{} regression{} beyond the threshold of {:.3g}%", regressions_,
                                     regressions_ == 1 ? "" : "s", settings_.compare.threshold * 100);
        }
    }
    int exit_status() const override { return status_; }
    std::vector<fs::path> files() const override { return {markdown_path(), json_path()}; }

private:
    fs::path markdown_path() const { return settings_.output_dir / "comparison.md"; }
    fs::path json_path() const { return settings_.output_dir / "comparison.json"; }

    ReporterSettings settings_;
    std::ostream* out_;
    int status_ = 0;
    std::size_t regressions_ = 0, slower_ = 0, faster_ = 0;
};

}  // namespace

std::unique_ptr<RunReporter> make_comparison_reporter(const ReporterSettings& settings) {
    return std::make_unique<ComparisonReporter>(settings);
}

}  // namespace benchhost
