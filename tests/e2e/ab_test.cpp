// End to end: `benchhost ab` over two plugin folders. The mock's `slowdown` parameter,
// given to one side (--new-param), injects a regression; fixture_ab is built twice, the
// second build crashing in one benchmark and having one more.
#include <gtest/gtest.h>

#include "../support/chromium.hpp"
#include "../support/mock_run.hpp"

namespace {

using namespace benchtest;

const fs::path ab_fixtures = BENCH_TEST_AB_FIXTURE_DIR;

/// The mock's eager scenario, about 1 ms a call, judged at a 5% threshold.
class AbTest : public MockPassTest {
protected:
    AbTest()
        : MockPassTest({.warmup = 3, .measured = 15, .base_units = 1000000},
                       {"--threshold", "5%", "--fail-on-regression"}) {}

    /// An A/B run of it, both sides from `plugins`.
    ProcessResult ab_mock(const fs::path& output, const std::vector<std::string>& extra = {}) {
        std::vector<std::string> args = {"ab",           "--base",       plugins.string(), "--new", plugins.string(),
                                         "--output-dir", output.string()};
        const std::vector<std::string> options = mock_options();
        args.insert(args.end(), options.begin(), options.end());
        args.insert(args.end(), extra.begin(), extra.end());
        return host(args);
    }
};

TEST_F(AbTest, TheSameBuildIsNeverSlower) {
    const fs::path out = work / "same";
    const ProcessResult same = ab_mock(out, {"--rounds", "4", "--max-rounds", "8"});
    EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
    const auto json = read_json(out / "comparison.json");
    EXPECT_STREQ(json["mode"].GetString(), "ab");
    ASSERT_EQ(json["rows"].Size(), 1u) << same.out;
    const auto& row = json["rows"][0];
    EXPECT_STREQ(row["evidence"].GetString(), "pairs");
    EXPECT_STRNE(row["verdict"].GetString(), "slower") << same.out;
    EXPECT_GE(row["base_rounds"].GetInt(), 4);
    EXPECT_EQ(row["base_rounds"].GetInt(), row["new_rounds"].GetInt());
    EXPECT_LE(row["base_rounds"].GetInt(), 8);
    // Each side is a whole run folder; the comparison has its page.
    for (const char* side : {"base", "new"}) {
        EXPECT_TRUE(fs::exists(out / side / "benchmark_summary.json")) << side;
        EXPECT_TRUE(fs::exists(out / side / "report.html")) << side;
        EXPECT_TRUE(fs::exists(out / side / "journal.jsonl")) << side;
    }
    // Two runs, each with its own id.
    const std::string base_id =
        read_json(out / "base" / "benchmark_summary.json")["run_metadata"]["run_id"].GetString();
    const std::string new_id = read_json(out / "new" / "benchmark_summary.json")["run_metadata"]["run_id"].GetString();
    EXPECT_EQ(base_id.size(), 32u);
    EXPECT_EQ(new_id.size(), 32u);
    EXPECT_NE(base_id, new_id);
    EXPECT_TRUE(fs::exists(out / "comparison.md"));
    const std::string page = read_file(out / "report.html");
    EXPECT_NE(page.find("<svg"), std::string::npos);
    EXPECT_NE(page.find("href=\"base/report.html\""), std::string::npos);
    // The rounds of the two sides alternate which goes first: A B, B A, ...
    const auto base_report = files_matching(out / "base" / "mock_benchmark", "mock_benchmark_", ".json");
    ASSERT_EQ(base_report.size(), 1u);
    const auto report = read_json(base_report[0]);
    EXPECT_EQ(report["benchmark_scenarios"][0]["round_sizes"]["latency"].Size(),
              static_cast<rapidjson::SizeType>(row["base_rounds"].GetInt()));
    const std::string log = read_file(files_matching(out, "benchmark_ab_", ".log").at(0));
    EXPECT_NE(log.find("pairs of rounds"), std::string::npos) << log;
    // One folder, no parameter for one side only: the comparison says that it measured noise.
    const std::string same_build = "Same build and settings on both sides: any difference is noise.";
    EXPECT_NE(same.out.find(same_build), std::string::npos) << same.out;
    EXPECT_NE(read_file(out / "comparison.md").find(same_build), std::string::npos);
    EXPECT_NE(page.find(same_build), std::string::npos);
    ASSERT_TRUE(json["differences"].IsArray());
    EXPECT_EQ(json["differences"].Size(), 0u);
}

TEST_F(AbTest, TheComparisonSaysWhatDiffersBetweenTheSides) {
    const fs::path out = work / "param";
    const ProcessResult ab = ab_mock(out, {"--new-param", "slowdown=1.05", "--max-rounds", "6"});
    EXPECT_NE(ab.exit_code, 2) << ab.out << ab.err;
    const std::string line = "param slowdown: (none) vs 1.05";
    EXPECT_NE(ab.out.find("What differs (base vs new):\n  " + line + "\n"), std::string::npos) << ab.out;
    EXPECT_EQ(ab.out.find("Same build and settings"), std::string::npos) << ab.out;
    EXPECT_NE(read_file(out / "comparison.md").find("- `" + line + "`"), std::string::npos);
    EXPECT_NE(read_file(out / "report.html").find("<li>" + line + "</li>"), std::string::npos);
    const auto json = read_json(out / "comparison.json");
    ASSERT_EQ(json["differences"].Size(), 1u) << read_file(out / "comparison.json");
    EXPECT_STREQ(json["differences"][0]["what"].GetString(), "param slowdown");
    EXPECT_STREQ(json["differences"][0]["base"].GetString(), "(none)");
    EXPECT_STREQ(json["differences"][0]["new"].GetString(), "1.05");
}

TEST_F(AbTest, ATwentyPerCentSlowdownIsSlowerAndFailsTheGate) {
    const fs::path out = work / "slower";
    const ProcessResult slower = ab_mock(out, {"--new-param", "slowdown=1.2", "--confirm", "2"});
    EXPECT_EQ(slower.exit_code, 1) << slower.out << slower.err;
    const auto json = read_json(out / "comparison.json");
    ASSERT_EQ(json["rows"].Size(), 1u);
    const auto& row = json["rows"][0];
    EXPECT_STREQ(row["verdict"].GetString(), "slower") << slower.out;
    // About 1.2 on a quiet machine; a loaded one spreads the pairs' ratios.
    EXPECT_GT(row["ratio"].GetDouble(), 1.1) << slower.out;
    // Confirmed: two more pairs, and the first figures kept beside the confirmed ones.
    ASSERT_TRUE(row.HasMember("first")) << slower.out;
    EXPECT_STREQ(row["first"]["verdict"].GetString(), "slower");
    EXPECT_EQ(row["new_rounds"].GetInt(), row["first"]["new_rounds"].GetInt() + 2);
    EXPECT_NE(slower.out.find("confirmed"), std::string::npos) << slower.out;
    // Only the new side got the parameter.
    const auto new_report = read_json(files_matching(out / "new" / "mock_benchmark", "mock_benchmark_", ".json").at(0));
    const auto base_report =
        read_json(files_matching(out / "base" / "mock_benchmark", "mock_benchmark_", ".json").at(0));
    EXPECT_STREQ(new_report["benchmark_scenarios"][0]["metadata"]["config"]["params"]["slowdown"].GetString(), "1.2");
    EXPECT_FALSE(base_report["benchmark_scenarios"][0]["metadata"]["config"]["params"].HasMember("slowdown"));
}

TEST_F(AbTest, AScenarioItsConfirmationLeavesUndecidedRunsMorePairs) {
    // The new build is 30% slower in its first 6 rounds, then 10% faster: found slower
    // after 6 pairs, inconclusive after 2 more (6 pairs at 1.3, 2 at 0.9), it goes on
    // with more pairs up to --max-rounds instead of stopping there.
    const fs::path out = work / "undecided";
    const ProcessResult ab = host({"ab",
                                   "--base",
                                   (ab_fixtures / "base").string(),
                                   "--new",
                                   (ab_fixtures / "new").string(),
                                   "--include",
                                   "fixture_ab/slower_at_first",
                                   "--variants",
                                   "eager",
                                   "--param",
                                   "rounds_file=" + (work / "rounds").string(),
                                   "--output-dir",
                                   out.string(),
                                   "--measurement-iterations",
                                   "10",
                                   "--monitor-interval",
                                   "0",
                                   "--threshold",
                                   "5%",
                                   "--confirm",
                                   "2",
                                   "--max-rounds",
                                   "12",
                                   "--fail-on-regression"});
    EXPECT_EQ(ab.exit_code, 0) << ab.out << ab.err;
    const auto json = read_json(out / "comparison.json");
    ASSERT_EQ(json["rows"].Size(), 1u) << ab.out;
    const auto& row = json["rows"][0];
    EXPECT_STREQ(row["verdict"].GetString(), "inconclusive") << ab.out;
    EXPECT_EQ(row["new_rounds"].GetInt(), 12) << ab.out;
    EXPECT_EQ(row["base_rounds"].GetInt(), 12) << ab.out;
    // The first figures are those it was flagged with, after 6 pairs.
    ASSERT_TRUE(row.HasMember("first")) << ab.out;
    EXPECT_STREQ(row["first"]["verdict"].GetString(), "slower");
    EXPECT_EQ(row["first"]["new_rounds"].GetInt(), 6);
    EXPECT_GT(row["first"]["ratio"].GetDouble(), 1.15);
    const std::string page = read_file(out / "comparison.md");
    EXPECT_NE(page.find("0 of 1 scenario found slower stayed slower over 2 more pairs (--confirm)"), std::string::npos)
        << page;
    EXPECT_NE(page.find("still inconclusive after --max-rounds 12 pairs"), std::string::npos) << page;
}

#ifdef BENCH_TEST_PYTHON_PLUGINS
TEST_F(AbTest, APythonPluginSlowedDownIsSlowerAndTheSameIsNot) {
    // The Python mock (mock_benchmark_py, about 5 ms a call) on both sides; its
    // slowdown parameter, given to the new side, makes each call 30% more work.
    const fs::path py = work / "py";
    install_plugin(fs::path(BENCH_TEST_BUILD_DIR) / "plugins/performance/mock_benchmark_py.py", py, "performance");
    const auto ab = [&](const fs::path& out, std::vector<std::string> extra) {
        std::vector<std::string> args = {"ab",
                                         "--base",
                                         py.string(),
                                         "--new",
                                         py.string(),
                                         "--output-dir",
                                         out.string(),
                                         "--enable-mock",
                                         "--include",
                                         "mock_benchmark_py/mock_benchmark_py",
                                         "--variants",
                                         "eager",
                                         "--warmup-iterations",
                                         "3",
                                         "--measurement-iterations",
                                         "15",
                                         "--monitor-interval",
                                         "0",
                                         "--threshold",
                                         "5%",
                                         "--fail-on-regression"};
        args.insert(args.end(), extra.begin(), extra.end());
        return host(args);
    };
    const ProcessResult slower = ab(work / "py_slower", {"--new-param", "slowdown=1.3"});
    EXPECT_EQ(slower.exit_code, 1) << slower.out << slower.err;
    const auto json = read_json(work / "py_slower" / "comparison.json");
    ASSERT_EQ(json["rows"].Size(), 1u) << slower.out;
    EXPECT_STREQ(json["rows"][0]["verdict"].GetString(), "slower") << slower.out;
    EXPECT_GT(json["rows"][0]["ratio"].GetDouble(), 1.15) << slower.out;
    EXPECT_NE(std::string(json["rows"][0]["scenario_id"].GetString()).find("performance/mock_benchmark_py/"),
              std::string::npos);

    const ProcessResult same = ab(work / "py_same", {"--rounds", "4", "--max-rounds", "8"});
    EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
    const auto same_json = read_json(work / "py_same" / "comparison.json");
    ASSERT_EQ(same_json["rows"].Size(), 1u) << same.out;
    EXPECT_STRNE(same_json["rows"][0]["verdict"].GetString(), "slower") << same.out;
}
#endif

TEST_F(AbTest, SidesWithOtherPluginsAreAnErrorNamingBoth) {
    const fs::path other = work / "other";
    install_plugin(ab_fixtures / "base/performance/libfixture_ab.so", other, "performance");
    const ProcessResult mismatch = host({"ab", "--base", plugins.string(), "--new", other.string(), "--enable-mock",
                                         "--output-dir", (work / "out").string()});
    EXPECT_EQ(mismatch.exit_code, 2) << mismatch.out << mismatch.err;
    EXPECT_NE(mismatch.err.find("plugin performance/mock_benchmark is in --base " + plugins.string()),
              std::string::npos)
        << mismatch.err;
    EXPECT_NE(mismatch.err.find("plugin performance/fixture_ab is in --new " + other.string()), std::string::npos)
        << mismatch.err;
    EXPECT_FALSE(fs::exists(work / "out")) << "nothing runs, nothing is written";

    // The same plugin with a benchmark more on one side.
    const ProcessResult benchmarks = host({"ab", "--base", (ab_fixtures / "base").string(), "--new",
                                           (ab_fixtures / "new").string(), "--output-dir", (work / "out").string()});
    EXPECT_EQ(benchmarks.exit_code, 2) << benchmarks.err;
    EXPECT_NE(benchmarks.err.find("only in --new (" + (ab_fixtures / "new/performance/libfixture_ab.so").string() +
                                  "): only_on_new"),
              std::string::npos)
        << benchmarks.err;
}

TEST_F(AbTest, ACrashOnOneSideIsReportedAndTheOtherSideKept) {
    const fs::path out = work / "crash";
    const ProcessResult crash = host({"ab",
                                      "--base",
                                      (ab_fixtures / "base").string(),
                                      "--new",
                                      (ab_fixtures / "new").string(),
                                      "--exclude",
                                      "only_on_new",
                                      "--exclude",
                                      "slower_on_new",
                                      "--exclude",
                                      "slower_at_first",
                                      "--variants",
                                      "eager",
                                      "--output-dir",
                                      out.string(),
                                      "--measurement-iterations",
                                      "10",
                                      "--monitor-interval",
                                      "0",
                                      "--rounds",
                                      "2",
                                      "--max-rounds",
                                      "6"});
    EXPECT_EQ(crash.exit_code, 1) << crash.out << crash.err;
    const auto json = read_json(out / "comparison.json");
    bool reported = false;
    for (const auto& line : json["not_compared"].GetArray())
        reported = reported || (std::string(line.GetString()).find("crashes_on_new") != std::string::npos &&
                                std::string(line.GetString()).find("new crashed") != std::string::npos);
    EXPECT_TRUE(reported) << crash.out;
    ASSERT_EQ(json["rows"].Size(), 1u) << crash.out;  // steady, compared
    EXPECT_NE(std::string(json["rows"][0]["scenario_id"].GetString()).find("steady"), std::string::npos);
    // The base side's figures of the crashing benchmark are kept, in full.
    const auto summary = read_json(out / "base" / "benchmark_summary.json");
    int succeeded = 0;
    for (const auto& result : summary["results"].GetArray())
        succeeded += std::string(result["status"].GetString()) == "success";
    EXPECT_EQ(succeeded, 2);
    const auto new_summary = read_json(out / "new" / "benchmark_summary.json");
    bool crashed = false;
    for (const auto& result : new_summary["results"].GetArray())
        crashed = crashed || std::string(result["status"].GetString()) == "crashed";
    EXPECT_TRUE(crashed);
}

TEST_F(AbTest, NothingComparedFails) {
    // Every scenario skipped on both sides: the A/B run has answered nothing, and says so.
    const fs::path faults = work / "faults";
    install_plugin(fs::path(BENCH_TEST_FIXTURE_PLUGIN_DIR) / "integration/libfixture_faults.so", faults, "integration");
    const fs::path out = work / "skipped";
    const ProcessResult skipped =
        host({"ab", "--base", faults.string(), "--new", faults.string(), "--include", "fixture_faults/skips",
              "--output-dir", out.string(), "--monitor-interval", "0"});
    EXPECT_EQ(skipped.exit_code, 1) << skipped.out << skipped.err;
    EXPECT_NE(skipped.err.find("nothing was compared: no scenario succeeded on both sides"), std::string::npos)
        << skipped.err;
    EXPECT_NE(read_file(out / "comparison.md").find("nothing was compared"), std::string::npos);
}

TEST_F(AbTest, ALoadThatNoSelectedBenchmarkServesExitsTwo) {
    // As in `run`: the mock does not serve, so --load was wrong for this selection.
    const fs::path out = work / "load";
    const ProcessResult run = ab_mock(out, {"--load", "server", "--target-qps", "100", "--queries", "20"});
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_NE(run.err.find("[error] base side: --load server: no selected benchmark serves (none of "
                           "performance/mock_benchmark/mock_benchmark calls ctx.serve)"),
              std::string::npos)
        << run.err;
    EXPECT_TRUE(fs::exists(out / "comparison.md"));  // the reports are written all the same
}

TEST_F(AbTest, DryRunListsThePairs) {
    const ProcessResult dry = ab_mock(work / "dry", {"--dry-run"});
    EXPECT_EQ(dry.exit_code, 0) << dry.err;
    EXPECT_NE(dry.out.find("A/B plan: 1 scenario on both sides"), std::string::npos) << dry.out;
    EXPECT_FALSE(fs::exists(work / "dry"));
}

TEST_F(AbTest, ChromiumRendersThePageWithoutErrors) {
    const fs::path binary = find_chromium();
    if (binary.empty()) GTEST_SKIP() << "chromium is not installed (scripts/lib/setup.sh installs Debian's chromium)";
    const fs::path out = work / "page";
    // The page is what is tested, whatever the verdict: on a loaded machine 6 rounds may
    // end inconclusive (exit 0) rather than slower (exit 1).
    const ProcessResult ab = ab_mock(out, {"--max-rounds", "6", "--new-param", "slowdown=1.3"});
    ASSERT_TRUE(ab.exit_code == 0 || ab.exit_code == 1) << ab.exit_code << "\n" << ab.err;
    const fs::path html = out / "report.html";
    const fs::path artifacts = fs::path(BENCH_TEST_BUILD_DIR) / "test-artifacts";
    fs::create_directories(artifacts);
    const fs::path png = artifacts / "ab_report.png";
    fs::remove(png);
    const ProcessResult shot =
        chromium(binary, work / "profile",
                 {"--screenshot=" + png.string(), "--window-size=1280,1200", "file://" + html.string()});
    if (shot.exit_code == 124 || shot.exit_code == 137) FAIL() << "chromium timed out:\n" << shot.err;
    ASSERT_EQ(shot.exit_code, 0) << shot.err;
    EXPECT_FALSE(console_messages(shot.err)) << shot.err;
    const std::string image = read_file(png);
    ASSERT_GT(image.size(), 24u);
    EXPECT_EQ(image.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_EQ(big_endian(image, 16), 1280u);
    fs::copy_file(html, artifacts / "ab_report.html", fs::copy_options::overwrite_existing);

    const ProcessResult dom = chromium(binary, work / "profile", {"--dump-dom", "file://" + html.string()});
    ASSERT_EQ(dom.exit_code, 0) << dom.err;
    EXPECT_FALSE(console_messages(dom.err)) << dom.err;
    const std::string source = read_file(html);
    EXPECT_EQ(count(source, "<svg "), 1u);
    EXPECT_EQ(count(dom.out, "<svg "), 1u) << dom.out.substr(0, 2000);
    EXPECT_NE(dom.out.find(">slower<"), std::string::npos);
    EXPECT_NE(dom.out.find("</html>"), std::string::npos);
}

}  // namespace
