// The reporter interface: the registry makes reporters by name, a multiplex calls them in
// the registry's order and keeps going past one that fails, and the file reporters write
// at checkpoints and at the end.
#include "report/reporter_registry.hpp"

#include <cstdlib>
#include <sstream>

#include <spdlog/sinks/ostream_sink.h>
#include <stdexcept>

#include <gtest/gtest.h>

#include "../../support/builders.hpp"

#include "../../support/test_support.hpp"
#include "analysis/scenario_statistics.hpp"
#include "report/comparison_text.hpp"
#include "report/files/report_json.hpp"
#include "report/markdown/summary_md_reporter.hpp"

namespace {

using namespace benchhost;
namespace fs = std::filesystem;

RunRecord small_run() {
    RunRecord record = benchtest::record_of();
    for (const char* plugin : {"alpha", "beta"})
        record.outcomes.push_back(benchtest::Outcome("unit", plugin, plugin).series("latency", "ms", {1, 2, 3, 4}));
    analyze_run(record);
    return record;
}

TEST(ReporterRegistry, KnowsEveryReporterByNameAndRefusesOthers) {
    std::vector<std::string> names;
    for (const ReporterInfo& info : reporter_registry()) names.push_back(info.name);
    // report.md and report.html after the comparison, whose verdicts they show.
    EXPECT_EQ(names,
              (std::vector<std::string>{"progress", "plugin-json", "profile-trace", "csv", "gbench-json", "summary",
                                        "console", "comparison", "markdown", "html", "junit", "summary-md"}));
    EXPECT_EQ(optional_format_names(), (std::vector<std::string>{"gbench-json", "junit", "summary-md"}));
    // Chosen by kind: a run folder's files; the formats only when asked for.
    EXPECT_EQ(reporter_names({ReporterKind::file}),
              (std::vector<std::string>{"plugin-json", "profile-trace", "csv", "summary", "markdown", "html"}));
    EXPECT_EQ(reporter_names({ReporterKind::console, ReporterKind::end_of_run}, {"junit"}),
              (std::vector<std::string>{"progress", "console", "comparison"}));
    EXPECT_EQ(reporter_names({ReporterKind::file}, {"gbench-json"}),
              (std::vector<std::string>{"plugin-json", "profile-trace", "csv", "gbench-json", "summary", "markdown",
                                        "html"}));
    try {
        const ReporterSettings settings;
        make_reporter("xml", settings);
        FAIL() << "an unknown reporter was made";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(
            std::string(e.what()).find("unknown reporter 'xml' (known: progress, plugin-json, profile-trace, csv"),
            std::string::npos)
            << e.what();
    }
}

TEST(ReporterRegistry, EveryFileReporterWritesItsFilesAtTheEnd) {
    benchtest::TempDir dir;
    ::unsetenv("GITHUB_STEP_SUMMARY");  // summary-md would append to a CI job's summary
    ReporterSettings settings;
    settings.output_dir = dir.path();
    RunReporters reporters =
        make_reporters(reporter_names({ReporterKind::file}, {"gbench-json", "junit", "summary-md"}), settings);
    const RunRecord record = small_run();
    reporters.run_finished(record);
    EXPECT_TRUE(reporters.errors().empty()) << reporters.errors().front();
    for (const char* file :
         {"alpha/alpha_20261122_115000.json", "beta/beta_20261122_115000.json", "benchmark_results_20261122_115000.csv",
          "report.md", "report.html", "gbench.json", "benchmark_summary.json", "junit.xml", "summary.md"})
        EXPECT_TRUE(fs::exists(dir.path() / file)) << file;
    EXPECT_EQ(reporters.files().size(), 9u);
    EXPECT_EQ(reporters.exit_status(), 0);
}

TEST(ReporterRegistry, ACheckpointRewritesOnlyThePluginsWithNewScenarios) {
    benchtest::TempDir dir;
    ReporterSettings settings;
    settings.output_dir = dir.path();
    RunReporters reporters = make_reporters({"plugin-json", "summary"}, settings);
    const RunRecord record = small_run();
    reporters.scenario_finished(record, record.outcomes[0]);
    reporters.checkpoint(record);
    EXPECT_TRUE(fs::exists(dir.path() / plugin_report_path("alpha", record.timestamp)));
    EXPECT_FALSE(fs::exists(dir.path() / plugin_report_path("beta", record.timestamp)));
    EXPECT_TRUE(fs::exists(dir.path() / summary_file_name));
    reporters.run_finished(record);
    EXPECT_TRUE(fs::exists(dir.path() / plugin_report_path("beta", record.timestamp)));
}

class Failing final : public Reporter {
public:
    void run_finished(const RunRecord&) override { throw std::runtime_error("cannot write x: disk full"); }
};

class Counting final : public Reporter {
public:
    explicit Counting(int& calls) : calls_(calls) {}
    void run_finished(const RunRecord&) override { ++calls_; }

private:
    int& calls_;
};

TEST(ReporterMultiplex, OneFailingReporterDoesNotStopTheOthers) {
    int calls = 0;
    ReporterMultiplex multiplex;
    multiplex.add(std::make_unique<Failing>());
    multiplex.add(std::make_unique<Counting>(calls));
    multiplex.run_finished(RunRecord{});
    EXPECT_EQ(calls, 1);
    ASSERT_EQ(multiplex.errors().size(), 1u);
    EXPECT_EQ(multiplex.errors()[0], "cannot write x: disk full");
    EXPECT_EQ(multiplex.exit_status(), 1);
    EXPECT_EQ(multiplex.take_errors().size(), 1u);
    EXPECT_TRUE(multiplex.errors().empty());
}

TEST(ReporterRegistry, TheConsoleReporterPrintsTheTable) {
    std::ostringstream out;
    ReporterSettings settings;
    settings.console = &out;
    RunReporters reporters = make_reporters({"console"}, settings);
    reporters.run_finished(small_run());
    EXPECT_NE(out.str().find("unit/alpha/alpha"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("2 scenarios: 2 succeeded"), std::string::npos) << out.str();
}

TEST(ReporterRegistry, TheProgressReporterLogsEachExecution) {
    std::ostringstream text;
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(text);
    spdlog::logger log("test", sink);
    log.set_level(spdlog::level::debug);
    ReporterSettings settings;
    settings.log = &log;
    RunReporters reporters = make_reporters({"progress"}, settings);
    const RunRecord record = small_run();
    reporters.execution_skipped({1, 3, "unit/alpha/alpha"}, true);
    reporters.execution_started({2, 3, "unit/beta/beta"});
    reporters.execution_finished({2, 3, "unit/beta/beta"}, record.outcomes[1]);
    reporters.run_finished(record);
    EXPECT_TRUE(reporters.errors().empty());
    EXPECT_NE(text.str().find("[1/3] unit/alpha/alpha: already reported"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("[2/3] unit/beta/beta\n"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("[2/3] unit/beta/beta: success, median 2.50 ms"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("2/3 done"), std::string::npos) << text.str();
}

// The comparison with the baseline is made once, before any reporter is told the run
// ended, and handed to each: junit.xml and summary.md read it without the comparison
// reporter among them (which used to make it for the reporters after it).
TEST(ReporterRegistry, TheComparisonIsHandedToTheReportersWhateverTheirOrder) {
    ::unsetenv("GITHUB_STEP_SUMMARY");
    benchtest::TempDir base, alone, compared;
    ReporterSettings base_settings;
    base_settings.output_dir = base.path();
    ASSERT_TRUE(report_whole_run(small_run(), reporter_names({ReporterKind::file}), base_settings).empty());

    ReporterSettings settings;
    settings.output_dir = alone.path();
    ASSERT_TRUE(report_whole_run(small_run(), {"junit", "summary-md"}, settings).empty());
    settings.output_dir = compared.path();
    settings.baseline = base.path();
    const RunEnd end = conclude_run(settings, small_run());
    ASSERT_TRUE(end.comparison) << end.comparison_error;
    EXPECT_EQ(end.comparison->base_label, base.path().string());
    EXPECT_EQ(end.comparison->rows.size(), 2u);
    RunReporters reporters = make_reporters({"summary-md", "junit"}, settings);
    reporters.run_finished(small_run());
    ASSERT_TRUE(reporters.errors().empty()) << reporters.errors().front();

    const std::string junit = benchtest::read_file(compared / "junit.xml");
    EXPECT_NE(junit, benchtest::read_file(alone / "junit.xml"));
    for (const SeriesComparison& row : end.comparison->rows) {
        std::string line = evidence_line(row, end.comparison->options.threshold);  // as XML writes it
        if (const std::size_t arrow = line.find("->"); arrow != std::string::npos) line.replace(arrow, 2, "-&gt;");
        EXPECT_NE(junit.find(line), std::string::npos) << line << "\n" << junit;
    }
    EXPECT_EQ(benchtest::read_file(alone / "summary.md").find("comparison.md"), std::string::npos);
    EXPECT_NE(benchtest::read_file(compared / "summary.md").find("(comparison.md)"), std::string::npos);
}

// A baseline that cannot be read fails the comparison reporter, with its folder named;
// the others still write their files, without a comparison.
TEST(ReporterRegistry, ABaselineThatCannotBeReadFailsTheComparisonAlone) {
    benchtest::TempDir dir;
    std::ostringstream out;
    ReporterSettings settings;
    settings.output_dir = dir.path();
    settings.console = &out;
    settings.baseline = dir / "no-such-run";
    RunReporters reporters = make_reporters({"comparison", "markdown"}, settings);
    reporters.run_finished(small_run());
    ASSERT_EQ(reporters.errors().size(), 1u);
    EXPECT_NE(reporters.errors()[0].find("cannot compare with the baseline " + (dir / "no-such-run").string() + ": "),
              std::string::npos)
        << reporters.errors()[0];
    EXPECT_TRUE(fs::exists(dir / "report.md"));
    EXPECT_FALSE(fs::exists(dir / "comparison.md"));
    EXPECT_EQ(reporters.exit_status(), 1);
}

TEST(SummaryPage, AScenarioThatFailedHasNoMedian) {
    // Its one sample before it failed is not its result.
    RunRecord record = benchtest::record_of();
    record.outcomes.push_back(benchtest::Outcome("unit", "alpha", "alpha").series("latency", "ms", {1, 2, 3, 4}));
    record.outcomes.push_back(benchtest::Outcome("unit", "half", "half")
                                  .series("latency", "ms", {3.25})
                                  .status(bench::Status::failed, "raised RuntimeError: broke"));
    analyze_run(record);
    const std::string page = summary_markdown(record, nullptr, "run", {});
    EXPECT_NE(page.find("| `unit/alpha/alpha` | success | latency 2.50 ms | - |"), std::string::npos) << page;
    EXPECT_NE(page.find("| `unit/half/half` | failed | - | - |"), std::string::npos) << page;
}

TEST(SummaryPage, ScenariosWhoseCompilerBrokeTheGraphOrCompiledAgainAreListed) {
    RunRecord record = benchtest::record_of();
    record.outcomes.push_back(benchtest::Outcome("unit", "clean", "clean").series("latency", "ms", {1, 2}));
    record.outcomes.back().result.scalars.push_back({"graph_breaks", 0, "count"});
    record.outcomes.back().result.scalars.push_back({"recompiles", 0, "count"});
    record.outcomes.push_back(benchtest::Outcome("unit", "probe", "probe").series("latency", "ms", {1, 2}));
    ScenarioOutcome& probe = record.outcomes.back();
    probe.result.scalars.push_back({"graph_breaks", 1, "count"});
    probe.result.scalars.push_back({"recompiles", 2, "count"});
    probe.result.scalars.push_back({"recompiled_samples", 1, "count"});
    probe.result.info["graph_break_reasons"] = "Unsupported Tensor.item() call";
    analyze_run(record);
    const std::string page = summary_markdown(record, nullptr, "run", {});
    EXPECT_NE(page.find("### What the compiler did\n\n- `unit/probe/probe`: graph_breaks 1 (Unsupported "
                        "Tensor.item() call), recompiles 2, recompiled_samples 1\n\n"),
              std::string::npos)
        << page;
    EXPECT_EQ(page.find("`unit/clean/clean`:"), std::string::npos) << "counts of zero are not listed: " << page;
    record.outcomes.pop_back();
    EXPECT_EQ(summary_markdown(record, nullptr, "run", {}).find("What the compiler did"), std::string::npos);
}

}  // namespace
