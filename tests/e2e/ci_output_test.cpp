// End to end: what CI systems read. JUnit XML from `run --format junit` (against a
// baseline), `compare --junit`, `ab --format junit` and `history check --junit`, each
// validated with xmllint against docs/schema/junit.xsd (skipped, saying so, where
// xmllint is missing); summary.md, the page for a job summary. The mock's
// slowdown parameter makes the new side three times slower, in 5 rounds a side, and the
// suite runs alone: with 3 rounds, beside a build, one slow round once left the verdict
// inconclusive (interval [0.69, 15.4] for a ratio of 3).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "../support/mock_run.hpp"

namespace {

using namespace benchtest;

const fs::path schema = fs::path(BENCH_TEST_SOURCE_DIR) / "docs/schema/junit.xsd";
const fs::path xmllint = "/usr/bin/xmllint";  // Debian's libxml2-utils

/// The mock's eager forward pass, 15 samples in 5 rounds, quiet.
class CiOutputTest : public MockPassTest {
protected:
    CiOutputTest() : MockPassTest({.measured = 15, .rounds = 5, .base_units = 400000}, {"--quiet"}) {}

    /// Empty when `file` validates against the schema, else xmllint's complaint.
    static std::string invalid(const fs::path& file) {
        const ProcessResult check =
            run_process({xmllint.string(), "--noout", "--schema", schema.string(), file.string()});
        return check.exit_code == 0 ? "" : check.out + check.err;
    }
    static bool have_xmllint() { return fs::exists(xmllint); }
};

TEST_F(CiOutputTest, ARunAgainstItsBaselineIsATestReportWithTheSlowerScenarioAsAFailure) {
    // The tests here check the files, not the statistics: the slowdowns are 20x, which no
    // load of the 2-core machine hides (at 3x, under the load of concurrent builds, one
    // round of the baseline the load caught widened the interval to [0.95, 11.5]).
    ASSERT_EQ(run_mock(work / "base").exit_code, 0);
    const ProcessResult run = run_mock(work / "new", {"--baseline", (work / "base").string(), "--param", "slowdown=20",
                                                      "--format", "junit", "--noise-floor", "5%"});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    const std::string xml = read_file(work / "new/junit.xml");
    EXPECT_NE(xml.find("<testsuites name=\"benchhost\" tests=\"1\" failures=\"1\" errors=\"0\" time=\""),
              std::string::npos)
        << xml;
    // What Jenkins' xunit (junit-10.xsd) refuses on <testsuites>; each <testsuite> counts its skips.
    const std::size_t at = xml.find("<testsuites");
    const std::string suites = xml.substr(at, xml.find('>', at) - at);
    EXPECT_EQ(suites.find("skipped="), std::string::npos) << suites;
    EXPECT_NE(xml.find("<testsuite name=\"performance/mock_benchmark\" id=\"0\" tests=\"1\""), std::string::npos)
        << xml;
    EXPECT_NE(xml.find("<testcase classname=\"performance/mock_benchmark\" "
                       "name=\"mock_benchmark[variant=eager,batch_size=1]\""),
              std::string::npos)
        << xml;
    // The evidence: the change, the interval, the verdict, the threshold.
    EXPECT_TRUE(std::regex_search(
        xml, std::regex("<failure message=\"latency [0-9.]+ (ms|us) -&gt; [0-9.]+ (ms|us), \\+[0-9.]+%, "
                        "ratio 95% CI \\[[0-9.]+, [0-9.]+\\], slower \\(5 vs 5 rounds\\), threshold 5%\" "
                        "type=\"slower\">")))
        << xml;
    EXPECT_NE(xml.find("<system-out>latency: median "), std::string::npos) << xml;
    // The verdicts are the comparison's own.
    const auto comparison = read_json(work / "new/comparison.json");
    EXPECT_EQ(comparison["counts"]["slower"].GetInt(), 1);
    if (!have_xmllint()) GTEST_SKIP() << "xmllint is not installed (libxml2-utils): the schema is not checked";
    EXPECT_EQ(invalid(work / "new/junit.xml"), "");
}

TEST_F(CiOutputTest, CompareAbAndHistoryCheckWriteItToo) {
    if (!have_xmllint()) GTEST_SKIP() << "xmllint is not installed (libxml2-utils)";
    ASSERT_EQ(run_mock(work / "base").exit_code, 0);
    ASSERT_EQ(run_mock(work / "slow", {"--param", "slowdown=20"}).exit_code, 0);

    // compare: the same test cases, the new run's.
    const ProcessResult compare = host({"compare", (work / "base").string(), (work / "slow").string(), "--junit",
                                        (work / "compare.xml").string(), "--noise-floor", "5%"});
    EXPECT_EQ(compare.exit_code, 0) << compare.err;
    EXPECT_EQ(invalid(work / "compare.xml"), "");
    EXPECT_NE(read_file(work / "compare.xml").find("type=\"slower\""), std::string::npos);

    // history check: five runs of a build, then one of a build whose slower_on_new is
    // 30% slower (the A/B fixture, built twice), against the five before it.
    const fs::path history = work / "history.db", ab_fixtures = BENCH_TEST_AB_FIXTURE_DIR;
    const auto run_fixture = [&](const std::string& side, const std::string& name) {
        wait_for_next_second();  // the fixture's samples never vary
        install_plugin(ab_fixtures / side / "performance/libfixture_ab.so", work / "fixture", "performance");
        return host({"run", "--plugins-dir", (work / "fixture").string(), "--output-dir", (work / name).string(),
                     "--include", "fixture_ab/slower_on_new", "--variants", "eager", "--measurement-iterations", "30",
                     "--monitor-interval", "0", "--param", "wait=sleep",  // a sleep is not stretched by a load
                     "--history", history.string(), "--quiet"});
    };
    for (int i = 1; i <= 5; ++i) ASSERT_EQ(run_fixture("base", "run" + std::to_string(i)).exit_code, 0);
    ASSERT_EQ(run_fixture("new", "run6").exit_code, 0);
    const ProcessResult check =
        host({"history", "check", "--history", history.string(), "--junit", (work / "history.xml").string()});
    EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
    EXPECT_EQ(invalid(work / "history.xml"), "");
    const std::string history_xml = read_file(work / "history.xml");
    EXPECT_NE(history_xml.find("<testsuites name=\"benchhost history check\" tests=\"1\" failures=\"1\""),
              std::string::npos)
        << history_xml;
    EXPECT_NE(history_xml.find("<testsuite name=\"performance/fixture_ab\""), std::string::npos) << history_xml;
    EXPECT_NE(history_xml.find("type=\"slower\""), std::string::npos) << history_xml;
    EXPECT_NE(history_xml.find("5 earlier runs"), std::string::npos) << history_xml;

    // ab: the A/B verdicts on the new side, in the A/B folder; each side's own too.
    const ProcessResult ab = host({"ab",
                                   "--base",
                                   plugins.string(),
                                   "--new",
                                   plugins.string(),
                                   "--output-dir",
                                   (work / "ab").string(),
                                   "--enable-mock",
                                   "--include",
                                   "mock_benchmark/mock_benchmark",
                                   "--variants",
                                   "eager",
                                   "--measurement-iterations",
                                   "10",
                                   "--monitor-interval",
                                   "0",
                                   "--param",
                                   "base_units=400000",
                                   "--new-param",
                                   "slowdown=20",
                                   "--format",
                                   "junit"});
    EXPECT_EQ(ab.exit_code, 0) << ab.out << ab.err;
    for (const char* file : {"ab/junit.xml", "ab/base/junit.xml", "ab/new/junit.xml"}) {
        ASSERT_TRUE(fs::exists(work / file)) << file;
        EXPECT_EQ(invalid(work / file), "") << file;
    }
    EXPECT_NE(read_file(work / "ab/junit.xml").find("pairs), threshold 5%\" type=\"slower\""), std::string::npos)
        << read_file(work / "ab/junit.xml");
    EXPECT_EQ(read_file(work / "ab/new/junit.xml").find("<failure"), std::string::npos)
        << "a side alone has no verdict";
}

TEST_F(CiOutputTest, AFailedScenarioIsAnErrorAndControlCharactersAreDropped) {
    // The fixture's benchmarks throw, crash, exit and skip: each failure an error whose
    // type is its status, a skip skipped; the worker's
    // last lines (which may hold a terminal's colour codes) stay valid XML.
    install_plugin(fs::path(BENCH_TEST_FIXTURE_PLUGIN_DIR) / "integration/libfixture_faults.so", plugins,
                   "integration");
    const ProcessResult run =
        host({"run", "--plugins-dir", plugins.string(), "--output-dir", (work / "faults").string(), "--include",
              "fixture_faults", "--exclude", "fixture_faults/hangs", "--format", "junit", "--quiet",
              "--monitor-interval", "0", "--measurement-iterations", "2"});
    EXPECT_NE(run.exit_code, 0);
    const std::string xml = read_file(work / "faults/junit.xml");
    EXPECT_NE(xml.find("<error message=\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("type=\"crashed\">"), std::string::npos) << xml;
    EXPECT_NE(xml.find("type=\"failed\">"), std::string::npos) << xml;
    EXPECT_NE(xml.find("<skipped message=\"bfloat16 is not supported here\"/>"), std::string::npos) << xml;
    for (const char c : xml) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r');
    if (!have_xmllint()) GTEST_SKIP() << "xmllint is not installed (libxml2-utils): the schema is not checked";
    EXPECT_EQ(invalid(work / "faults/junit.xml"), "");
}

TEST_F(CiOutputTest, ASummaryPageGoesToTheRunFolderAndTheJobSummary) {
    ASSERT_EQ(run_mock(work / "base").exit_code, 0);
    const fs::path step_summary = work / "step_summary.md";
    write_file(step_summary, "earlier steps\n");
    const ProcessResult run = run_mock(
        work / "new", {"--param", "slowdown=20", "--baseline", (work / "base").string(), "--format", "summary-md"},
        {"GITHUB_STEP_SUMMARY=" + step_summary.string()});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    const std::string page = read_file(work / "new/summary.md");
    EXPECT_TRUE(page.starts_with("## benchhost run ")) << page;
    EXPECT_NE(page.find("1 scenarios: 1 succeeded, 0 failed, 0 skipped; against `" + (work / "base").string() +
                        "`: 1 slower, 0 faster, 0 inconclusive (threshold 5%)"),
              std::string::npos)
        << page;
    // The verdict first, with its evidence; then the table; then the links.
    const std::size_t slower = page.find(
        "### Slower\n\n- `performance/mock_benchmark/mock_benchmark[variant=eager,"
        "batch_size=1]`: latency ");
    const std::size_t table = page.find("| scenario | status | median | change |");
    ASSERT_NE(slower, std::string::npos) << page;
    ASSERT_NE(table, std::string::npos) << page;
    EXPECT_LT(slower, table);
    EXPECT_NE(page.find("slower (5 vs 5 rounds), threshold 5%"), std::string::npos) << page;
    EXPECT_NE(page.find("[report](report.html) · [report.md](report.md) · [comparison](comparison.md)"),
              std::string::npos)
        << page;
    // Appended to what the job's earlier steps wrote.
    EXPECT_EQ(read_file(step_summary), "earlier steps\n" + page + "\n");

    // ab: one page, in the A/B folder, not one per side.
    const ProcessResult ab = run_process({benchhost_binary().string(),
                                          "ab",
                                          "--base",
                                          plugins.string(),
                                          "--new",
                                          plugins.string(),
                                          "--output-dir",
                                          (work / "ab").string(),
                                          "--enable-mock",
                                          "--include",
                                          "mock_benchmark/mock_benchmark",
                                          "--variants",
                                          "eager",
                                          "--measurement-iterations",
                                          "10",
                                          "--monitor-interval",
                                          "0",
                                          "--param",
                                          "base_units=400000",
                                          "--new-param",
                                          "slowdown=20",
                                          "--format",
                                          "summary-md"},
                                         work.path(), {"GITHUB_STEP_SUMMARY=" + step_summary.string()});
    EXPECT_EQ(ab.exit_code, 0) << ab.out << ab.err;
    const std::string ab_page = read_file(work / "ab/summary.md");
    EXPECT_TRUE(ab_page.starts_with("## benchhost A/B ")) << ab_page;
    EXPECT_NE(ab_page.find("pairs), threshold 5%"), std::string::npos) << ab_page;
    EXPECT_FALSE(fs::exists(work / "ab/base/summary.md"));
    EXPECT_FALSE(fs::exists(work / "ab/new/summary.md"));
    EXPECT_EQ(read_file(step_summary), "earlier steps\n" + page + "\n" + ab_page + "\n");
}

/// Every string in a YAML document, depth first.
void strings_of(const YAML::Node& node, std::vector<std::string>& out) {
    if (node.IsScalar()) out.push_back(node.as<std::string>());
    if (node.IsSequence())
        for (const YAML::Node& item : node) strings_of(item, out);
    if (node.IsMap())
        for (const auto& entry : node) strings_of(entry.second, out);
}

TEST(CiExamples, TheWorkflowsParseAndTheirCommandsTakeTheOptionsTheyGive) {
    // examples/ci: a GitHub Actions workflow and a GitLab CI file. Each parses, has the
    // jobs it documents, and every benchhost command in them is one the host has, with
    // options it has (checked against its --help); scripts/bench takes --build-only.
    const fs::path examples = fs::path(BENCH_TEST_SOURCE_DIR) / "examples/ci";
    const YAML::Node github = YAML::LoadFile((examples / "github/benchmarks.yml").string());
    ASSERT_TRUE(github["jobs"]["ab"]["steps"].IsSequence());
    ASSERT_TRUE(github["jobs"]["history"]["steps"].IsSequence());
    EXPECT_TRUE(github["on"]["pull_request"].IsDefined());
    const YAML::Node gitlab = YAML::LoadFile((examples / "gitlab/.gitlab-ci.yml").string());
    ASSERT_TRUE(gitlab["benchmarks:ab"]["script"].IsSequence());
    EXPECT_EQ(gitlab["benchmarks:ab"]["artifacts"]["reports"]["junit"].as<std::string>(), "ab/junit.xml");
    ASSERT_TRUE(gitlab["benchmarks:history"]["script"].IsSequence());

    std::vector<std::string> texts;
    strings_of(github, texts);
    strings_of(gitlab, texts);
    std::size_t commands = 0;
    for (const std::string& text : texts) {
        std::istringstream words(text);
        std::vector<std::string> tokens;
        for (std::string word; words >> word;) tokens.push_back(word);
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            if (tokens[i].ends_with("scripts/bench")) {
                EXPECT_EQ(tokens.at(i + 1), "--build-only") << text;
                EXPECT_NE(read_file(fs::path(BENCH_TEST_SOURCE_DIR) / "scripts/bench").find("--build-only"),
                          std::string::npos);
                continue;
            }
            if (!tokens[i].ends_with("bin/benchhost")) continue;
            ++commands;
            std::vector<std::string> command = {tokens.at(i + 1)};
            if (command[0] == "history") command.push_back(tokens.at(i + 2));
            std::vector<std::string> help_args = command;
            help_args.emplace_back("--help");
            const ProcessResult help = run_host(help_args, fs::current_path());
            ASSERT_EQ(help.exit_code, 0) << text << "\n" << help.err;
            for (std::size_t j = i + 1; j < tokens.size() && !tokens[j].ends_with("benchhost"); ++j) {
                if (tokens[j].starts_with("--")) {
                    EXPECT_NE(help.out.find("  " + tokens[j] + " "), std::string::npos)
                        << "benchhost " << command[0] << " has no option " << tokens[j] << ": " << text;
                }
            }
            for (std::size_t j = i + 1; j + 1 < tokens.size(); ++j) {
                if (tokens[j] == "--format") {
                    EXPECT_TRUE(tokens[j + 1] == "junit" || tokens[j + 1] == "summary-md") << text;
                }
            }
        }
    }
    EXPECT_EQ(commands, 6u) << "ab, run and history check in each";
}

}  // namespace
