#include "report/profile_sections.hpp"
#include "report/html/html_page.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "report/files/profile_trace_reporter.hpp"
#include "report/html/svg_chart.hpp"
#include "util/text_table.hpp"
#include "util/units.hpp"

namespace benchhost {

namespace {

constexpr std::size_t operator_rows = 25;  // of report.html's operator table
constexpr std::size_t comparison_rows = 30;  // of the table beside eager
constexpr std::size_t markdown_rows = 15;  // of report.md's tables

/// A count: whole ones in full with thousands separated ("25,557,032"), else 3 digits.
std::string count_text(double value) {
    if (!std::isfinite(value)) return "-";
    if (std::fabs(value - std::round(value)) > 1e-9 || std::fabs(value) >= 1e15) return format3(value);
    const std::string digits = std::to_string(static_cast<long long>(std::llround(std::fabs(value))));
    std::string out = value < 0 ? "-" : "";
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string bytes_text(double bytes) {
    if (!std::isfinite(bytes)) return "-";
    return format_figure(bytes / (1024.0 * 1024.0), "MiB");
}

/// A module's nesting in a Markdown cell (whose leading spaces a viewer drops).
std::string repeat_emsp(int depth) {
    std::string out;
    for (int i = 0; i < depth; ++i) out += "&emsp;";
    return out;
}

std::string flops_text(double flops) { return flops > 0 ? format_figure(flops / 1e9, "GFLOP") : "-"; }

/// One profiled scenario, with what its tables need.
struct ProfileView {
    const ScenarioFigures* figures = nullptr;
    const bench::Profile* profile = nullptr;
    double self_sum_ms = 0;  // the operators' self times, summed
    double measured_ms = NAN;  // the scenario's measured median (its headline, in ms)
    std::string headline;
    const ScenarioFigures* eager = nullptr;  // the eager scenario with a profile beside it
    std::string trace_file;
};

/// The eager scenario a compiled or kernelized one is compared with: its speedup's
/// baseline, else the one whose axes differ only in the variant.
const ScenarioFigures* eager_of(const RunFigures& figures, const ScenarioFigures& scenario) {
    const bench::ScenarioConfig& config = scenario.outcome->config;
    if (config.variant == bench::Variant::eager) return nullptr;
    std::string baseline;
    for (const Speedup& speedup : scenario.speedups) baseline = speedup.baseline_scenario_id;
    auto axes_but_variant = [](const bench::ScenarioConfig& c) {
        std::vector<std::pair<std::string, std::string>> axes;
        for (auto& axis : scenario_axes(c.scenario_name))
            if (axis.first != "variant" && axis.first != "compile_mode") axes.push_back(axis);
        return axes;
    };
    for (const ScenarioFigures& other : figures.scenarios) {
        const bench::ScenarioConfig& o = other.outcome->config;
        if (o.variant != bench::Variant::eager || !other.outcome->result.profile) continue;
        if (!baseline.empty() ? o.scenario_id() == baseline
                              : o.plugin == config.plugin && o.benchmark == config.benchmark &&
                                    axes_but_variant(o) == axes_but_variant(config))
            return &other;
    }
    return nullptr;
}

std::vector<ProfileView> profile_views(const RunFigures& figures) {
    std::vector<ProfileView> views;
    for (const ScenarioFigures& scenario : figures.scenarios) {
        const ScenarioOutcome& outcome = *scenario.outcome;
        if (!outcome.result.profile) continue;
        ProfileView view;
        view.figures = &scenario;
        view.profile = &*outcome.result.profile;
        for (const bench::ProfileOperator& op : view.profile->operators) view.self_sum_ms += op.self_ms;
        if (scenario.is_time && scenario.analysis.summary.count > 0) {
            view.measured_ms = scenario.analysis.summary.median * to_ms_factor(scenario.unit);
            view.headline = scenario.headline;
        }
        view.eager = eager_of(figures, scenario);
        view.trace_file = profile_trace_file(outcome, figures.record->timestamp);
        views.push_back(std::move(view));
    }
    return views;
}

/// The facts of a profile, as label and text.
std::vector<std::pair<std::string, std::string>> facts(const ProfileView& view) {
    const bench::Profile& p = *view.profile;
    std::vector<std::pair<std::string, std::string>> out;
    out.emplace_back("Profiled call", p.call);
    if (!p.operator_profiler.empty()) {
        out.emplace_back("Operator profiler", p.operator_profiler);
        out.emplace_back("Calls profiled",
                         std::to_string(p.calls) + ", in blocks taking turns with blocks of unprofiled calls");
        out.emplace_back("One call, profiled / unprofiled (medians)",
                         format_figure(p.call_ms, "ms") + " / " + format_figure(p.unprofiled_call_ms, "ms") +
                             ": the profiler's overhead " + format_ratio(p.overhead));
        std::string sum = format_figure(view.self_sum_ms, "ms");
        if (std::isfinite(view.measured_ms) && view.measured_ms > 0)
            sum += ", " + format_share(view.self_sum_ms / view.measured_ms) + " of the measured median " +
                   view.headline + " (" + format_figure(view.measured_ms, "ms") + ")";
        out.emplace_back("Operators' self times, summed", sum);
    }
    if (!p.sampler.empty())
        out.emplace_back("Native stacks", p.sampler + ": " + std::to_string(p.samples) + " samples");
    if (!view.trace_file.empty()) out.emplace_back("Trace (Perfetto, chrome://tracing)", view.trace_file);
    return out;
}

// ---- report.html ------------------------------------------------------------------

std::string html_operator_table(const ProfileView& view) {
    const bench::Profile& p = *view.profile;
    std::string out = "<table class=\"operators\" data-scenario=\"" +
                      html_escape(view.figures->outcome->config.scenario_id()) +
                      "\">\n<thead><tr><th>Operator</th><th>Calls</th><th>Self</th><th>Self share</th><th>Total</th>"
                      "<th>FLOPs</th><th>Input shapes (its costliest)</th></tr></thead>\n<tbody>\n";
    double rest = 0;
    std::size_t rest_count = 0;
    for (std::size_t i = 0; i < p.operators.size(); ++i) {
        const bench::ProfileOperator& op = p.operators[i];
        if (i >= operator_rows) {
            rest += op.self_ms;
            ++rest_count;
            continue;
        }
        out += "<tr><td><code>" + html_escape(op.name) + "</code></td><td class=\"num\">" +
               html_escape(count_text(op.calls)) + "</td><td class=\"num\" data-self-ms=\"" +
               std::to_string(op.self_ms) + "\">" + html_escape(format_figure(op.self_ms, "ms")) +
               "</td><td class=\"num\">" + format_share(view.self_sum_ms > 0 ? op.self_ms / view.self_sum_ms : NAN) +
               "</td><td class=\"num\">" + html_escape(format_figure(op.total_ms, "ms")) + "</td><td class=\"num\">" +
               html_escape(flops_text(op.flops)) + "</td><td><code>" + html_escape(op.input_shapes) +
               "</code></td></tr>\n";
    }
    if (rest_count > 0)
        out += "<tr><td class=\"muted\">" + std::to_string(rest_count) +
               " more operators</td><td></td><td class=\"num\">" + html_escape(format_figure(rest, "ms")) +
               "</td><td class=\"num\">" + format_share(view.self_sum_ms > 0 ? rest / view.self_sum_ms : NAN) +
               "</td><td></td><td></td><td></td></tr>\n";
    out += "</tbody>\n<tfoot><tr><th>All " + std::to_string(p.operators.size()) +
           " operators</th><th></th><th class=\"num\">" + html_escape(format_figure(view.self_sum_ms, "ms")) +
           "</th><th class=\"num\">100%</th><th></th><th></th><th></th></tr>"
           "</tfoot>\n</table>\n";
    return out;
}

struct ComparedOperator {
    std::string name;
    const bench::ProfileOperator* eager = nullptr;
    const bench::ProfileOperator* variant = nullptr;
    double weight() const { return std::max(eager ? eager->self_ms : 0.0, variant ? variant->self_ms : 0.0); }
    std::string change() const {
        if (eager == nullptr) return "new";
        if (variant == nullptr) return "removed";
        return eager->self_ms > 0 ? format_ratio(variant->self_ms / eager->self_ms) : "-";
    }
};

std::vector<ComparedOperator> compare_operators(const bench::Profile& eager, const bench::Profile& variant) {
    std::map<std::string, ComparedOperator> by_name;
    for (const auto& op : eager.operators) by_name[op.name].eager = &op;
    for (const auto& op : variant.operators) by_name[op.name].variant = &op;
    std::vector<ComparedOperator> rows;
    for (auto& [name, row] : by_name) {
        row.name = name;
        rows.push_back(row);
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const ComparedOperator& a, const ComparedOperator& b) { return a.weight() > b.weight(); });
    return rows;
}

std::string html_comparison_table(const ProfileView& view) {
    const bench::Profile& eager = *view.eager->outcome->result.profile;
    const std::string variant = std::string(bench::to_string(view.figures->outcome->config.variant));
    const std::vector<ComparedOperator> rows = compare_operators(eager, *view.profile);
    std::size_t removed = 0, added = 0;
    for (const auto& row : rows) {
        removed += row.variant == nullptr ? 1 : 0;
        added += row.eager == nullptr ? 1 : 0;
    }
    std::string out = "<p>Beside <code>" + html_escape(view.eager->outcome->config.scenario_id()) +
                      "</code>: " + html_escape(variant) + " runs " + std::to_string(view.profile->operators.size()) +
                      " operators to eager's " + std::to_string(eager.operators.size()) + "; " +
                      std::to_string(removed) + " of eager's are gone (removed or fused into others), " +
                      std::to_string(added) + " are new.</p>\n";
    out += "<table class=\"operators-beside-eager\" data-scenario=\"" +
           html_escape(view.figures->outcome->config.scenario_id()) +
           "\">\n<thead><tr><th>Operator</th><th>eager calls</th>"
           "<th>eager self</th><th>" +
           html_escape(variant) + " calls</th><th>" + html_escape(variant) +
           " self</th><th>change</th></tr></thead>\n<tbody>\n";
    for (std::size_t i = 0; i < rows.size() && i < comparison_rows; ++i) {
        const ComparedOperator& row = rows[i];
        const std::string change = row.change();
        out += "<tr data-change=\"" + html_escape(change == "new" || change == "removed" ? change : "kept") +
               "\"><td><code>" + html_escape(row.name) + "</code></td><td class=\"num\">" +
               (row.eager ? html_escape(count_text(row.eager->calls)) : "-") + "</td><td class=\"num\">" +
               (row.eager ? html_escape(format_figure(row.eager->self_ms, "ms")) : "-") + "</td><td class=\"num\">" +
               (row.variant ? html_escape(count_text(row.variant->calls)) : "-") + "</td><td class=\"num\">" +
               (row.variant ? html_escape(format_figure(row.variant->self_ms, "ms")) : "-") + "</td><td>" +
               html_escape(change) + "</td></tr>\n";
    }
    out += "</tbody>\n</table>\n";
    if (rows.size() > comparison_rows)
        out += "<p class=\"muted\">The " + std::to_string(comparison_rows) +
               " operators with the most self time on "
               "either side, of " +
               std::to_string(rows.size()) + ".</p>\n";
    return out;
}

std::string html_module_table(const ProfileView& view) {
    std::string out = "<table class=\"modules\" data-scenario=\"" +
                      html_escape(view.figures->outcome->config.scenario_id()) +
                      "\">\n<thead><tr><th>Module</th><th>Calls</th><th>Time</th><th>Share of the call</th>"
                      "<th>Parameters</th><th>Allocated</th><th>Peak live</th></tr></thead>\n<tbody>\n";
    for (const bench::ProfileModule& m : view.profile->modules) {
        out += "<tr data-depth=\"" + std::to_string(m.depth) +
               "\"><td style=\"padding-left:" + std::to_string(9 + 18 * m.depth) + "px\"><code>" + html_escape(m.name) +
               "</code></td><td class=\"num\">" + html_escape(count_text(m.calls)) + "</td><td class=\"num\">" +
               html_escape(format_figure(m.total_ms, "ms")) + "</td><td class=\"num\">" + format_share(m.share) +
               "</td><td class=\"num\">" + html_escape(count_text(m.parameters)) + "</td><td class=\"num\">" +
               html_escape(bytes_text(m.allocated_bytes)) + "</td><td class=\"num\">" +
               html_escape(bytes_text(m.peak_bytes)) + "</td></tr>\n";
    }
    out += "</tbody>\n</table>\n";
    return out;
}

std::string graph_title(const bench::FlameGraph& graph) {
    if (graph.name == "operators") return "Operators and modules (self time)";
    if (graph.name == "native") return "Native call stacks (perf)";
    if (graph.name == "device") return "Device kernels under their operators (time on the device)";
    return graph.name;
}

}  // namespace

std::string profile_html_section(const RunFigures& figures) {
    const std::vector<ProfileView> views = profile_views(figures);
    if (views.empty()) return {};
    std::string out = "<section id=\"profiles\"><h2>Where the time goes</h2>\n";
    out +=
        "<p class=\"muted\">With <code>--profile</code>, after its measurement each scenario ran a separate "
        "profiled pass of one call: the timed samples above were not profiled. Times are per call. The operator "
        "profiler's own cost is its overhead below. A module's memory is from the profiler's memory events: the "
        "bytes allocated while it ran (its activations, outputs and temporaries) and the most live at once. Hover "
        "over a flame graph's frame for its time and share.</p>\n";
    std::size_t n = 0;
    for (const ProfileView& view : views) {
        const std::string id = view.figures->outcome->config.scenario_id();
        ++n;
        out += "<h3 id=\"profile-" + std::to_string(n) + "\"><code>" + html_escape(id) +
               "</code></h3>\n<table class=\"facts\">\n";
        for (const auto& [label, text] : facts(view)) {
            out += "<tr><th>" + html_escape(label) + "</th><td>";
            out += label.starts_with("Trace")
                       ? "<a href=\"" + html_escape(text) + "\"><code>" + html_escape(text) + "</code></a>"
                       : html_escape(text);
            out += "</td></tr>\n";
        }
        out += "</table>\n";
        if (!view.profile->notes.empty()) {
            out += "<ul class=\"problems\">\n";
            for (const std::string& note : view.profile->notes) out += "<li>" + html_escape(note) + "</li>\n";
            out += "</ul>\n";
        }
        if (!view.profile->operators.empty()) {
            out += "<h4>Operators</h4>\n" + html_operator_table(view);
            if (view.eager != nullptr) out += "<h4>Operators beside eager's</h4>\n" + html_comparison_table(view);
        }
        if (!view.profile->modules.empty()) out += "<h4>Modules</h4>\n" + html_module_table(view);
        std::size_t g = 0;
        for (const bench::FlameGraph& graph : view.profile->flame_graphs) {
            svg::FlameChart chart;
            chart.id = "flame-" + std::to_string(n) + "-" + std::to_string(++g);
            chart.title = graph_title(graph) + ": " + id;
            chart.description = "Flame graph of " + id + ": " + graph.source +
                                ". Each box is a frame, as wide as its "
                                "share of the whole, above its caller.";
            chart.unit = graph.unit;
            chart.root = graph.name == "operators" ? "all operators"
                         : graph.name == "device"  ? "all kernels"
                                                   : "all samples";
            for (const bench::FlameStack& stack : graph.stacks) chart.stacks.emplace_back(stack.frames, stack.value);
            out += "<figure>" + svg::flame_graph(chart) + "<figcaption>" + html_escape(graph.source) +
                   "</figcaption></figure>\n";
        }
    }
    out += "</section>\n";
    return out;
}

std::string profile_markdown_section(const RunFigures& figures,
                                     const std::function<std::string(std::string_view)>& text,
                                     const std::function<std::string(std::string_view)>& code) {
    const std::vector<ProfileView> views = profile_views(figures);
    if (views.empty()) return {};
    std::string out = "## Where the time goes\n\n";
    out +=
        "With `--profile`, after its measurement each scenario ran a separate profiled pass of one call; the timed "
        "samples were not profiled. Times are per call. The flame graphs are in report.html.\n\n";
    for (const ProfileView& view : views) {
        out += "### " + code(view.figures->outcome->config.scenario_id()) + "\n\n| Profile | |\n|---|---|\n";
        for (const auto& [label, value] : facts(view)) out += "| " + text(label) + " | " + text(value) + " |\n";
        out += "\n";
        for (const std::string& note : view.profile->notes) out += "- " + text(note) + "\n";
        if (!view.profile->notes.empty()) out += "\n";
        const bench::Profile& p = *view.profile;
        if (!p.operators.empty()) {
            out +=
                "| Operator | Calls | Self | Self share | Total | FLOPs | Input shapes (its costliest) |\n"
                "|---|---:|---:|---:|---:|---:|---|\n";
            for (std::size_t i = 0; i < p.operators.size() && i < markdown_rows; ++i) {
                const bench::ProfileOperator& op = p.operators[i];
                out += "| " + code(op.name) + " | " + count_text(op.calls) + " | " + format_figure(op.self_ms, "ms") +
                       " | " + format_share(view.self_sum_ms > 0 ? op.self_ms / view.self_sum_ms : NAN) + " | " +
                       format_figure(op.total_ms, "ms") + " | " + flops_text(op.flops) + " | " +
                       (op.input_shapes.empty() ? std::string("-") : code(op.input_shapes)) + " |\n";
            }
            out += "| all " + std::to_string(p.operators.size()) + " operators | | " +
                   format_figure(view.self_sum_ms, "ms") + " | 100% | | | |\n\n";
        }
        if (view.eager != nullptr && !p.operators.empty()) {
            const std::string variant(bench::to_string(view.figures->outcome->config.variant));
            out += "Beside " + code(view.eager->outcome->config.scenario_id()) + ":\n\n| Operator | eager self | " +
                   variant + " self | change |\n|---|---:|---:|---|\n";
            const auto rows = compare_operators(*view.eager->outcome->result.profile, p);
            for (std::size_t i = 0; i < rows.size() && i < markdown_rows; ++i)
                out += "| " + code(rows[i].name) + " | " +
                       (rows[i].eager ? format_figure(rows[i].eager->self_ms, "ms") : "-") + " | " +
                       (rows[i].variant ? format_figure(rows[i].variant->self_ms, "ms") : "-") + " | " +
                       rows[i].change() + " |\n";
            out += "\n";
        }
        if (!p.modules.empty()) {
            out +=
                "| Module | Calls | Time | Share | Parameters | Allocated | Peak live |\n"
                "|---|---:|---:|---:|---:|---:|---:|\n";
            for (const bench::ProfileModule& m : p.modules)
                out += "| " + repeat_emsp(m.depth) + code(m.name) + " | " + count_text(m.calls) + " | " +
                       format_figure(m.total_ms, "ms") + " | " + format_share(m.share) + " | " +
                       count_text(m.parameters) + " | " + bytes_text(m.allocated_bytes) + " | " +
                       bytes_text(m.peak_bytes) + " |\n";
            out += "\n";
        }
    }
    return out;
}

}  // namespace benchhost
