// Models side by side, for report.md and report.html: the accuracy of classifiers beside
// their latency, the dtypes of one scenario beside float32 (latency, speedup, how far
// the output is from float32's), and throughput against the parameter count across
// models. Computed once per report from the figures (report_figures.hpp) and the
// statistics the analysis computed; the renderers only lay them out.
#pragma once

#include <cmath>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

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

struct ModelComparison {
    std::vector<MeasuredModel> models;  // of every successful scenario, in the run's order
    ComparisonTable accuracy;  // a row per model with an accuracy; no rows when none
    ComparisonTable precision;  // a row per dtype of scenarios that ran in several dtypes
    std::vector<DtypeRow> dtype_rows;
};

ModelComparison compare_models(const RunFigures& figures);

/// The sections of report.md (those with rows), `text` escaping a cell's text.
std::string model_comparison_markdown(const ModelComparison& comparison,
                                      const std::function<std::string(std::string_view)>& text);

/// The sections of report.html (those with data): the tables, the accuracy of each
/// benchmark's models against their latency, and throughput against parameters.
/// `next_id` gives the page's unique ids.
std::string model_comparison_html(const ModelComparison& comparison,
                                  const std::function<std::string(std::string_view)>& next_id);
/// Their entries in the page's contents (<li> items).
std::string model_comparison_nav(const ModelComparison& comparison);

}  // namespace benchhost
