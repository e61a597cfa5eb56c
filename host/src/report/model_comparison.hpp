// Models side by side, for report.md and report.html: one model across frameworks (its
// variants in each, the fastest marked), the accuracy of classifiers beside their
// latency, the dtypes of one scenario beside float32 (latency, speedup, how far the
// output is from float32's), and throughput against the parameter count across models.
// Made once per report from the figures (report_figures.hpp), the statistics the analysis
// computed and its comparison across frameworks (analysis/framework_comparison.hpp); the
// renderers only lay them out.
#pragma once

#include <cmath>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/framework_comparison.hpp"
#include "report/report_figures.hpp"

namespace benchhost {

/// One model a scenario measured: the scenario's own, or with several models (a
/// torchscript_model comparison) each of them, whose figures are named "<label>/...".
struct MeasuredModel {
    const ScenarioFigures* scenario = nullptr;
    std::string label;  // the model's label, else info "model", else the plugin
    std::string prefix;  // "" or "<label>/": the start of its figures' names
    const SeriesStatistics* latency = nullptr;  // its "latency" series, or nullptr
    const SeriesStatistics* throughput = nullptr;  // its "throughput" series, or nullptr
    double parameters = NAN;  // its "parameters" scalar
    const bench::Accuracy* accuracy = nullptr;  // its accuracy, when it was evaluated
};

/// The models of a successful scenario, in the order it recorded them.
std::vector<MeasuredModel> measured_models(const ScenarioFigures& scenario);

/// A table of figures, the same in report.md and report.html.
struct ComparisonTable {
    std::string id;  // the HTML section's id
    std::string title;  // its heading
    std::string intro;  // a sentence above it
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
};

/// Scenarios that differ only in their dtype, one model of them, beside float32.
struct DtypeRow {
    MeasuredModel model;
    std::string dtype;
    std::string latency;  // median with its 95% CI, "-" without
    std::string speedup;  // over float32, with its 95% CI; "1.00x (baseline)" for float32; "-" without it
    double max_abs_diff = NAN;  // of the output from float32's, as the plugin recorded it
    double max_rel_diff = NAN;
};

/// The section of one model across frameworks: its heading and the paragraph under it,
/// the same in report.md and report.html (docs/reports.md says the same).
inline constexpr const char* frameworks_title = "Frameworks side by side";
inline constexpr const char* frameworks_intro =
    "The same model run by several frameworks (each plugin names its model: info model), a table per model and "
    "configuration with a row per framework and variant: the median of the series compared with its 95% CI, how "
    "far behind the fastest (this median over the fastest's, with the bootstrap interval of that ratio; tied when "
    "the interval holds 1), throughput, the worker's peak resident memory, the device's peak where the plugin "
    "recorded it, and the compile time (torch.compile's first call, an AOTInductor or TorchScript compile, JAX's "
    "lowering and XLA compile).";

/// A model in one configuration across frameworks (a ModelGroup of the analysis), as a
/// table: a row per framework and variant, in the group's order.
struct FrameworkTable {
    const ModelGroup* group = nullptr;
    /// id: the HTML heading's; title: "resnet50, batch 1, float32, cpu"; intro: the verdict
    /// ("Fastest: ..."); header: Framework, Plugin, Variant, the median with its CI, against
    /// the fastest, then throughput, peak RSS, device peak and compile time where a row has them.
    ComparisonTable table;
    std::vector<const ScenarioFigures*> scenarios;  // a row's scenario, as the rows
    std::size_t fastest_row = 0;  // the fastest's row
};

struct ModelComparison {
    /// A table per model and configuration that two frameworks or more ran; none when no
    /// model did (the report then has no such section).
    std::vector<FrameworkTable> frameworks;
    /// The models (or batch sizes, dtypes, ... of them) that one framework alone ran, in a
    /// sentence; empty without `frameworks`, or when there is none.
    std::string one_framework;
    std::vector<MeasuredModel> models;  // of every successful scenario, in the run's order
    ComparisonTable accuracy;  // a row per model with an accuracy; no rows when none
    ComparisonTable precision;  // a row per dtype of scenarios that ran in several dtypes
    std::vector<DtypeRow> dtype_rows;
};

/// `frameworks`: the comparison across frameworks of figures.record (RunEnd::frameworks
/// at the end of a run, else compare_frameworks of the same record), which the result's
/// framework tables point into: it must outlive them.
ModelComparison compare_models(const RunFigures& figures, const FrameworkComparison& frameworks);

/// The sections of report.md (those with rows), `text` escaping a cell's text: the
/// frameworks side by side first.
std::string model_comparison_markdown(const ModelComparison& comparison,
                                      const std::function<std::string(std::string_view)>& text);

/// The sections of report.html (those with data): the tables (the fastest framework's row
/// marked), each model's medians across frameworks with their CIs, the accuracy of each
/// benchmark's models against their latency, and throughput against parameters.
/// `next_id` gives the page's unique ids.
std::string model_comparison_html(const ModelComparison& comparison,
                                  const std::function<std::string(std::string_view)>& next_id);
/// Their entries in the page's contents (<li> items).
std::string model_comparison_nav(const ModelComparison& comparison);

}  // namespace benchhost
