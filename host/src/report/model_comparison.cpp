#include "report/model_comparison.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include "analysis/scenario_statistics.hpp"
#include "util/text_table.hpp"
#include "util/units.hpp"

namespace benchhost {
namespace {

constexpr std::string_view parameters_suffix = "/parameters";

double scalar_value(const ScenarioOutcome& outcome, const std::string& name) {
    const bench::Scalar* scalar = outcome.result.find_scalar(name);
    return scalar == nullptr ? NAN : scalar->value;
}

/// "resnet50", or "tensor_ops/matmul" when the benchmark is not named after its plugin.
std::string benchmark_label(const bench::ScenarioConfig& config) {
    return config.benchmark == config.plugin ? config.plugin : config.plugin + "/" + config.benchmark;
}

std::string share_text(long long part, long long whole) {
    if (whole <= 0) return "-";
    return format_share(static_cast<double>(part) / static_cast<double>(whole)) + " (" + std::to_string(part) + "/" +
           std::to_string(whole) + ")";
}

std::string difference_text(double value) {
    if (!std::isfinite(value)) return "-";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
    return buffer;
}

bool is_float32(const std::string& dtype) { return dtype == "float32" || dtype == "float" || dtype == "fp32"; }

/// The axes of a scenario but the dtype: "variant=eager, batch_size=1, device=cpu".
std::string axes_without_dtype(const ScenarioOutcome& outcome) {
    AxisValues axes;
    for (auto& [axis, value] : scenario_axes(outcome.config.scenario_name))
        if (axis != "dtype") axes.emplace_back(axis, value);
    return axes_text(axes);
}

ComparisonTable accuracy_table(const std::vector<MeasuredModel>& models) {
    ComparisonTable table;
    table.id = "accuracy";
    table.title = "Accuracy";
    table.intro =
        "Top-1 and top-5 accuracy of each classifier over its data set, in the scenario's variant and dtype "
        "(evaluated outside the timed samples), beside the median latency of a batch.";
    table.header = {
        "Benchmark", "Variant", "Dtype", "Batch", "Model", "Top-1", "Top-5", "Data set", "Median latency (95% CI)"};
    for (const MeasuredModel& model : models) {
        if (model.accuracy == nullptr) continue;
        const bench::ScenarioConfig& config = model.scenario->outcome->config;
        const bench::Accuracy& a = *model.accuracy;
        table.rows.push_back({benchmark_label(config), model.scenario->variant, config.dtype,
                              std::to_string(config.batch_size), model.label, share_text(a.top1_correct, a.inputs),
                              share_text(a.top5_correct, a.inputs), a.dataset, median_text(model.latency)});
    }
    return table;
}

std::vector<DtypeRow> dtype_rows(const std::vector<MeasuredModel>& models) {
    // Groups of one model in scenarios that differ only in the dtype, in order of first
    // appearance.
    std::vector<std::pair<std::string, std::vector<const MeasuredModel*>>> groups;
    for (const MeasuredModel& model : models) {
        const ScenarioOutcome& outcome = *model.scenario->outcome;
        const std::string key = outcome.config.benchmark_id() + "\n" +
                                scenario_name_without(outcome.config.scenario_name, {"dtype"}) + "\n" + model.label;
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& group) { return group.first == key; });
        if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
        it->second.push_back(&model);
    }
    std::vector<DtypeRow> rows;
    for (auto& [key, members] : groups) {
        std::vector<std::string> dtypes;
        for (const MeasuredModel* m : members) dtypes.push_back(m->scenario->outcome->config.dtype);
        std::sort(dtypes.begin(), dtypes.end());
        if (std::unique(dtypes.begin(), dtypes.end()) - dtypes.begin() < 2) continue;
        std::stable_partition(members.begin(), members.end(),
                              [](const MeasuredModel* m) { return is_float32(m->scenario->outcome->config.dtype); });
        const MeasuredModel* baseline =
            is_float32(members.front()->scenario->outcome->config.dtype) ? members.front() : nullptr;
        for (const MeasuredModel* m : members) {
            const ScenarioOutcome& outcome = *m->scenario->outcome;
            DtypeRow row;
            row.model = *m;
            row.dtype = outcome.config.dtype;
            row.latency = median_text(m->latency);
            row.speedup = "-";
            if (m == baseline) {
                row.speedup = "1.00x (baseline)";
            } else if (baseline != nullptr && m->latency != nullptr) {
                if (const std::optional<Speedup> speedup =
                        series_speedup(*baseline->scenario->outcome, outcome, m->prefix + "latency")) {
                    row.speedup = format_ratio(speedup->value);
                    if (speedup->ci.valid())
                        row.speedup += " [" + format3(speedup->ci.low) + ", " + format3(speedup->ci.high) + "]";
                }
            }
            row.max_abs_diff = scalar_value(outcome, m->prefix + "max_abs_diff_vs_float32");
            row.max_rel_diff = scalar_value(outcome, m->prefix + "max_rel_diff_vs_float32");
            rows.push_back(std::move(row));
        }
    }
    return rows;
}

/// Leaves out the columns from `first` on that have no figure in any row ("-" throughout):
/// a plugin that does not compute them fills a long table with dashes.
void drop_empty_columns(ComparisonTable& table, std::size_t first) {
    for (std::size_t c = table.header.size(); c-- > first;) {
        const bool empty = std::all_of(table.rows.begin(), table.rows.end(), [&](const std::vector<std::string>& row) {
            return c >= row.size() || row[c] == "-";
        });
        if (!empty) continue;
        table.header.erase(table.header.begin() + static_cast<std::ptrdiff_t>(c));
        for (std::vector<std::string>& row : table.rows)
            if (c < row.size()) row.erase(row.begin() + static_cast<std::ptrdiff_t>(c));
    }
}

ComparisonTable precision_table(const std::vector<DtypeRow>& rows) {
    ComparisonTable table;
    table.id = "precision";
    table.title = "Precision side by side";
    table.intro =
        "Scenarios that differ only in their dtype, each beside float32: the median latency, the speedup over "
        "float32 (float32's median / this one, with the bootstrap interval of that ratio), and how far the "
        "model's output is from its float32 output on the same input (max |difference|, and max |difference| "
        "/ |float32 value|; computed by the plugin outside the timed samples).";
    table.header = {"Benchmark",
                    "Scenario",
                    "Model",
                    "Dtype",
                    "Median latency (95% CI)",
                    "Speedup over float32 (95% CI)",
                    "Max abs diff from float32",
                    "Max rel diff from float32"};
    for (const DtypeRow& row : rows) {
        const ScenarioOutcome& outcome = *row.model.scenario->outcome;
        table.rows.push_back({benchmark_label(outcome.config), axes_without_dtype(outcome), row.model.label, row.dtype,
                              row.latency, row.speedup, difference_text(row.max_abs_diff),
                              difference_text(row.max_rel_diff)});
    }
    drop_empty_columns(table, 6);  // the differences from float32, which not every plugin computes
    return table;
}

// ---- one model across frameworks ------------------------------------------------------

/// The figures of the scenario `outcome` of figures.record; a logic error for one of
/// another record (the comparison across frameworks must be of the report's own).
const ScenarioFigures& figures_of(const RunFigures& figures, const ScenarioOutcome* outcome) {
    const std::vector<ScenarioOutcome>& outcomes = figures.record->outcomes;
    const std::less<const ScenarioOutcome*> before{};
    if (outcomes.empty() || before(outcome, outcomes.data()) || !before(outcome, outcomes.data() + outcomes.size()))
        throw std::logic_error("the comparison across frameworks is not of the report's record");
    return figures.scenarios[static_cast<std::size_t>(outcome - outcomes.data())];
}

/// "resnet50, batch 1, float32, cpu", with the threads when set and the series when it is
/// not the latency.
std::string group_title(const ModelGroup& group) {
    std::string title =
        group.model + ", batch " + std::to_string(group.batch_size) + ", " + group.dtype + ", " + group.device;
    if (group.threads > 0) title += ", " + std::to_string(group.threads) + " threads";
    if (group.series != "latency") title += " (" + group.series + ")";
    return title;
}

/// The variant, with the scenario's axes that the group does not fix: "compiled/torchscript",
/// "eager (optimizer=sgd)".
std::string variant_text(const ScenarioFigures& f) {
    AxisValues rest;
    for (auto& [axis, value] : scenario_axes(f.outcome->config.scenario_name))
        if (axis != "variant" && axis != "compile_mode" && axis != "batch_size" && axis != "dtype" &&
            axis != "device" && axis != "threads")
            rest.emplace_back(axis, value);
    return rest.empty() ? f.variant : f.variant + " (" + axes_text(rest) + ")";
}

/// "compiled in libtorch (resnet50)".
std::string entry_text(const FrameworkEntry& entry, const ScenarioFigures& f) {
    return variant_text(f) + " in " + entry.framework + " (" + benchmark_label(f.outcome->config) + ")";
}

/// Above a group's table: the fastest, those not told apart from it, each framework at its fastest.
std::string group_verdict_text(const RunFigures& figures, const ModelGroup& group) {
    const FrameworkEntry& fastest = group.entries[group.fastest];
    const ScenarioFigures& f = figures_of(figures, fastest.outcome);
    std::string text = "Fastest: " + entry_text(fastest, f) + ", " + median_with_ci(f) + ".";
    std::string tied;
    for (const FrameworkEntry& entry : group.entries)
        if (entry.tied_with_fastest)
            tied += (tied.empty() ? "" : "; ") + entry_text(entry, figures_of(figures, entry.outcome)) + " " +
                    speedup_text(*entry.behind_fastest);
    if (!tied.empty()) text += " Not told apart from it (the interval of the ratio holds 1): " + tied + ".";
    text += " Each framework at its fastest: ";
    for (std::size_t i = 0; i < group.frameworks.size(); ++i) {
        const FrameworkEntry& best = group.entries[group.fastest_of_framework[i]];
        const ScenarioFigures& b = figures_of(figures, best.outcome);
        text += (i == 0 ? "" : "; ") + best.framework + " " + format_figure(b.analysis.summary.median, b.unit) + " (" +
                variant_text(b);
        if (best.behind_fastest) text += ", " + speedup_text(*best.behind_fastest) + " as long";
        text += ")";
    }
    return text + ".";
}

FrameworkTable framework_table(const RunFigures& figures, const ModelGroup& group, std::size_t number) {
    FrameworkTable out;
    out.group = &group;
    out.fastest_row = group.fastest;
    ComparisonTable& table = out.table;
    table.id = "frameworks-" + std::to_string(number);
    table.title = group_title(group);
    table.intro = group_verdict_text(figures, group);
    table.header = {"Framework",
                    "Plugin",
                    "Variant",
                    "Median " + group.series + " (95% CI)",
                    "Against the fastest (95% CI)",
                    "Throughput",
                    "Peak RSS",
                    "Device peak memory",
                    "Compile time"};
    for (std::size_t i = 0; i < group.entries.size(); ++i) {
        const FrameworkEntry& entry = group.entries[i];
        const ScenarioFigures& f = figures_of(figures, entry.outcome);
        std::string against = "-";
        if (i == group.fastest) against = "fastest";
        else if (entry.behind_fastest)
            against = speedup_text(*entry.behind_fastest) + (entry.tied_with_fastest ? ", tied" : "");
        out.scenarios.push_back(&f);
        table.rows.push_back({entry.framework, benchmark_label(f.outcome->config), variant_text(f), median_with_ci(f),
                              against, throughput_text(f), format_figure(entry.peak_rss_mib, "MiB"),
                              format_figure(entry.device_peak_mib, "MiB"),
                              entry.compile_cached ? "cached" : format_figure(entry.compile_ms, "ms")});
    }
    drop_empty_columns(table, 5);  // throughput, memory and compile time, which not every plugin records
    return out;
}

/// "Ran in one framework only, not compared: vit_b_16, batch 1, float32, cpu (libtorch)." The
/// first `listed` groups, then how many more.
std::string one_framework_text(const std::vector<ModelGroup>& groups, std::size_t listed = 8) {
    if (groups.empty()) return {};
    std::string text = "Ran in one framework only, not compared: ";
    for (std::size_t i = 0; i < groups.size() && i < listed; ++i)
        text += (i == 0 ? "" : "; ") + group_title(groups[i]) + " (" + groups[i].frameworks.front() + ")";
    if (groups.size() > listed) text += "; and " + std::to_string(groups.size() - listed) + " more";
    return text + ".";
}

/// A table in Markdown under a heading of `level` ("##"), its intro above it.
void table_markdown(std::string& out, const ComparisonTable& table, const char* level,
                    const std::function<std::string(std::string_view)>& text) {
    out += std::string(level) + " " + text(table.title) + "\n\n" + text(table.intro) + "\n\n|";
    // Appended piece by piece: `" " + text(...)` makes GCC 12 warn (-Wrestrict, a
    // false positive of its string concatenation).
    for (const std::string& column : table.header) out.append(" ").append(text(column)).append(" |");
    out += "\n|";
    for (std::size_t i = 0; i < table.header.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& row : table.rows) {
        out += "|";
        for (const std::string& cell : row) out.append(" ").append(text(cell)).append(" |");
        out += "\n";
    }
    out += "\n";
}

}  // namespace

std::vector<MeasuredModel> measured_models(const ScenarioFigures& scenario) {
    const ScenarioOutcome& outcome = *scenario.outcome;
    const bench::ScenarioResult& result = outcome.result;
    std::vector<std::string> labels;  // of models whose figures are prefixed
    for (const bench::Scalar& scalar : result.scalars) {
        const std::string_view name = scalar.name;
        if (name.size() > parameters_suffix.size() && name.ends_with(parameters_suffix))
            labels.emplace_back(name.substr(0, name.size() - parameters_suffix.size()));
    }
    const auto model = [&](const std::string& label, const std::string& prefix) {
        MeasuredModel m;
        m.scenario = &scenario;
        m.label = label;
        m.prefix = prefix;
        m.latency = outcome.statistics.find(prefix + "latency");
        m.throughput = outcome.statistics.find(prefix + "throughput");
        m.parameters = scalar_value(outcome, prefix + "parameters");
        for (const bench::Accuracy& accuracy : result.accuracy)
            if (accuracy.model == label) m.accuracy = &accuracy;
        // One model, one accuracy: whatever its label.
        if (m.accuracy == nullptr && prefix.empty() && result.accuracy.size() == 1)
            m.accuracy = &result.accuracy.front();
        return m;
    };
    std::vector<MeasuredModel> models;
    if (labels.empty()) {
        const auto info = result.info.find("model");
        models.push_back(model(info != result.info.end() ? info->second : outcome.config.plugin, ""));
    } else {
        for (const std::string& label : labels) models.push_back(model(label, label + "/"));
    }
    return models;
}

ModelComparison compare_models(const RunFigures& figures, const FrameworkComparison& frameworks) {
    ModelComparison comparison;
    for (const ModelGroup& group : frameworks.groups)
        comparison.frameworks.push_back(framework_table(figures, group, comparison.frameworks.size() + 1));
    if (!comparison.frameworks.empty()) comparison.one_framework = one_framework_text(frameworks.one_framework);
    for (const ScenarioFigures& scenario : figures.scenarios) {
        if (!scenario.success()) continue;
        for (MeasuredModel& model : measured_models(scenario)) comparison.models.push_back(std::move(model));
    }
    comparison.accuracy = accuracy_table(comparison.models);
    comparison.dtype_rows = dtype_rows(comparison.models);
    comparison.precision = precision_table(comparison.dtype_rows);
    return comparison;
}

std::string model_comparison_markdown(const ModelComparison& comparison,
                                      const std::function<std::string(std::string_view)>& text) {
    std::string out;
    if (!comparison.frameworks.empty()) {
        out += "## " + text(frameworks_title) + "\n\n" + text(frameworks_intro) + "\n\n";
        for (const FrameworkTable& table : comparison.frameworks) table_markdown(out, table.table, "###", text);
        if (!comparison.one_framework.empty()) out += text(comparison.one_framework) + "\n\n";
    }
    for (const ComparisonTable* table : {&comparison.accuracy, &comparison.precision})
        if (!table->rows.empty()) table_markdown(out, *table, "##", text);
    return out;
}

}  // namespace benchhost
