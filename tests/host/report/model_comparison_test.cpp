// Models side by side in report.md and report.html: the accuracy table and its chart,
// the dtypes of a scenario beside float32, throughput against parameters.
#include "report/model_comparison.hpp"

#include <string>

#include <gtest/gtest.h>

#include "../../support/builders.hpp"
#include "../../support/chromium.hpp"  // count
#include "report/rendered_reports.hpp"

namespace {

using benchhost::RunRecord;
using benchhost::ScenarioOutcome;
using benchtest::count;
using benchtest::Outcome;

/// torchscript_model with two models ("original" and "pruned") at batch 4, eager, in
/// `dtype`: latency medians `original_ms` and half that for pruned.
ScenarioOutcome two_models(const std::string& dtype, double original_ms, double abs_diff, unsigned seed) {
    return Outcome("integration", "torchscript_model", "torchscript_model")
        .variant(bench::Variant::eager)
        .batch_size(4)
        .axis("dtype", dtype)
        .series("latency", "ms", benchtest::jittered_samples(original_ms, 20, seed))
        .series("original/latency", "ms", benchtest::jittered_samples(original_ms, 20, seed))
        .series("original/throughput", "samples/s", benchtest::jittered_samples(4000 / original_ms, 20, seed))
        .series("pruned/latency", "ms", benchtest::jittered_samples(original_ms / 2, 20, seed + 1))
        .series("pruned/throughput", "samples/s", benchtest::jittered_samples(8000 / original_ms, 20, seed + 1))
        .edit([&](ScenarioOutcome& o) {
            o.config.dtype = dtype;
            o.result.scalars = {{"original/parameters", 1000, "count"},
                                {"pruned/parameters", 500, "count"},
                                {"original/max_abs_diff_vs_float32", abs_diff, "abs"},
                                {"original/max_rel_diff_vs_float32", 2 * abs_diff, "ratio"},
                                {"pruned/max_abs_diff_vs_float32", 3 * abs_diff, "abs"},
                                {"pruned/max_rel_diff_vs_float32", 4 * abs_diff, "ratio"}};
            o.result.accuracy = {{"original", "/data/val", 10, 7, 9}, {"pruned", "/data/val", 10, 6, 9}};
        });
}

RunRecord comparison_record() {
    return benchtest::record_of({
        two_models("float32", 10, 0, 1),
        two_models("bfloat16", 5, 0.0125, 2),
        Outcome("performance", "resnet50", "resnet50")
            .variant(bench::Variant::eager)
            .batch_size(1)
            .series("latency", "ms", benchtest::jittered_samples(90, 10, 3))
            .series("throughput", "images/s", benchtest::jittered_samples(11, 10, 3))
            .edit([](ScenarioOutcome& o) {
                o.result.scalars = {{"parameters", 25557032, "count"}};
                o.result.info["model"] = "resnet50";
            }),
    });
}

TEST(ModelComparison, FindsEachModelOfAScenario) {
    const RunRecord record = comparison_record();
    std::optional<RunRecord> storage;
    const RunRecord& analyzed = benchhost::with_statistics(record, storage);
    const benchhost::RunFigures figures = benchhost::compute_figures(analyzed);
    const benchhost::FrameworkComparison frameworks = benchhost::compare_frameworks(analyzed);
    const benchhost::ModelComparison comparison = benchhost::compare_models(figures, frameworks);
    ASSERT_EQ(comparison.models.size(), 5u);
    EXPECT_EQ(comparison.models[0].label, "original");
    EXPECT_EQ(comparison.models[0].prefix, "original/");
    EXPECT_EQ(comparison.models[1].label, "pruned");
    EXPECT_EQ(comparison.models[1].parameters, 500);
    ASSERT_NE(comparison.models[1].accuracy, nullptr);
    EXPECT_EQ(comparison.models[1].accuracy->top1_correct, 6);
    EXPECT_NEAR(comparison.models[1].latency->analysis.summary.median, 5, 0.1);
    EXPECT_EQ(comparison.models[4].label, "resnet50");
    EXPECT_EQ(comparison.models[4].prefix, "");
    EXPECT_EQ(comparison.models[4].accuracy, nullptr);
    // Four rows of accuracy (2 models x 2 dtypes); the dtypes of each model side by side.
    EXPECT_EQ(comparison.accuracy.rows.size(), 4u);
    ASSERT_EQ(comparison.dtype_rows.size(), 4u);
    EXPECT_EQ(comparison.dtype_rows[0].dtype, "float32");
    EXPECT_EQ(comparison.dtype_rows[1].dtype, "bfloat16");
    EXPECT_EQ(comparison.dtype_rows[1].model.label, "original");
    EXPECT_EQ(comparison.dtype_rows[0].speedup, "1.00x (baseline)");
    EXPECT_TRUE(comparison.dtype_rows[1].speedup.starts_with("2.0")) << comparison.dtype_rows[1].speedup;
}

TEST(ModelComparison, ReportMdHasTheAccuracyAndPrecisionTables) {
    const std::string md = benchhost::markdown_report(comparison_record());
    EXPECT_NE(md.find("## Accuracy\n"), std::string::npos) << md;
    EXPECT_NE(
        md.find("| torchscript_model | eager | float32 | 4 | original | 70.0% (7/10) | 90.0% (9/10) | /data/val | 9."),
        std::string::npos)
        << md;
    EXPECT_NE(
        md.find("| torchscript_model | eager | bfloat16 | 4 | pruned | 60.0% (6/10) | 90.0% (9/10) | /data/val | 2."),
        std::string::npos)
        << md;
    EXPECT_NE(md.find("## Precision side by side\n"), std::string::npos);
    // float32 against itself: 0; bfloat16 against float32: what the plugin recorded.
    EXPECT_NE(md.find("| torchscript_model | variant=eager, batch_size=4 | original | float32 | "), std::string::npos)
        << md;
    EXPECT_NE(md.find("| 1.00x (baseline) | 0 | 0 |"), std::string::npos) << md;
    EXPECT_NE(md.find("| 0.0125 | 0.025 |"), std::string::npos) << md;
    EXPECT_NE(md.find("| 0.0375 | 0.05 |"), std::string::npos) << md;
    // resnet50 ran in one dtype and evaluated no accuracy: in neither table.
    EXPECT_EQ(md.find("| resnet50 | eager |"), std::string::npos);
}

TEST(ModelComparison, ReportHtmlDrawsAccuracyAgainstLatencyAndThroughputAgainstParameters) {
    const std::string html = benchhost::html_report(comparison_record());
    for (const char* section : {"accuracy", "precision", "scaling"}) {
        EXPECT_EQ(count(html, "<section id=\"" + std::string(section) + "\">"), 1u) << section;
        EXPECT_EQ(count(html, "<a href=\"#" + std::string(section) + "\">"), 1u) << section;
    }
    EXPECT_NE(html.find("integration/torchscript_model/torchscript_model: top-1 accuracy against median latency"),
              std::string::npos);
    EXPECT_NE(html.find("pruned, eager, bfloat16, batch 4: top-1 60.0%, top-5 90.0% of 10, median 2.5"),
              std::string::npos)
        << html;
    // One chart per throughput unit with models of two sizes: samples/s (the two models);
    // not images/s, where resnet50 alone would be one point.
    EXPECT_NE(html.find("Throughput against parameters (samples/s)"), std::string::npos);
    EXPECT_EQ(html.find("Throughput against parameters (images/s)"), std::string::npos);
    EXPECT_NE(html.find("torchscript_model/pruned, eager, float32, batch 4: 500 parameters"), std::string::npos);
    EXPECT_EQ(html.find("resnet50, eager, float32, batch 1: 25.6M parameters"), std::string::npos) << html;
}

TEST(ModelComparison, PrecisionLeavesOutTheDifferencesNoPluginComputed) {
    // Two dtypes of resnet50, which records no difference from float32.
    RunRecord record = benchtest::record_of();
    for (const char* dtype : {"float32", "bfloat16"})
        record.outcomes.push_back(Outcome("performance", "resnet50", "resnet50")
                                      .variant(bench::Variant::eager)
                                      .axis("dtype", dtype)
                                      .series("latency", "ms", benchtest::jittered_samples(90, 10, 3))
                                      .edit([&](ScenarioOutcome& o) { o.config.dtype = dtype; }));
    const std::string md = benchhost::markdown_report(record);
    ASSERT_NE(md.find("## Precision side by side\n"), std::string::npos) << md;
    EXPECT_EQ(md.find("Max abs diff from float32"), std::string::npos) << md;
    EXPECT_NE(md.find("| Speedup over float32 (95% CI) |\n"), std::string::npos) << md;
    // With the differences of comparison_record, the columns are there.
    EXPECT_NE(benchhost::markdown_report(comparison_record()).find("Max abs diff from float32"), std::string::npos);
}

TEST(ModelComparison, NoSectionsWithoutModels) {
    const RunRecord record = benchtest::record_of(
        {Outcome("unit", "ops", "matmul").variant(bench::Variant::eager).series("latency", "ms", {1, 2, 3})});
    const std::string html = benchhost::html_report(record);
    const std::string md = benchhost::markdown_report(record);
    for (const char* section : {"accuracy", "precision", "scaling"})
        EXPECT_EQ(html.find("#" + std::string(section) + "\""), std::string::npos) << section;
    EXPECT_EQ(md.find("## Accuracy"), std::string::npos);
    EXPECT_EQ(md.find("## Precision"), std::string::npos);
}

}  // namespace
