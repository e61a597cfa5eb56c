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
    EXPECT_EQ(file_reporter_names({}),
              (std::vector<std::string>{"plugin-json", "profile-trace", "csv", "summary", "markdown", "html"}));
    EXPECT_EQ(file_reporter_names({"gbench-json"}),
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
    ReporterMultiplex reporters = make_reporters(file_reporter_names({"gbench-json", "junit", "summary-md"}), settings);
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
    ReporterMultiplex reporters = make_reporters({"plugin-json", "summary"}, settings);
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
    ReporterMultiplex reporters = make_reporters({"console"}, settings);
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
    ReporterMultiplex reporters = make_reporters({"progress"}, settings);
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

}  // namespace
