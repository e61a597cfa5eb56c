// The run journal: one line per scenario run, read back whole, a line cut short by a kill
// ignored, rounds pooled on replay.
#include "run/journal.hpp"

#include <fstream>
#include <limits>

#include <gtest/gtest.h>

#include "../../support/builders.hpp"

#include "../../support/test_support.hpp"

namespace {

using namespace benchhost;
namespace fs = std::filesystem;

JournalHeader header() {
    JournalHeader h;
    h.timestamp = "20261124_120000";
    h.started_at = "2026-11-24T12:00:00Z";
    h.commit_id = "abc";
    h.host_version = "0.1.0";
    h.run_config = {{"rounds", "2"}, {"isolation", "process"}};
    h.shard = ShardInfo{2, 3, 12, "fp"};
    h.run_id = "0123456789abcdef0123456789abcdef";
    return h;
}

ScenarioOutcome run_of(const std::string& benchmark, std::vector<double> samples) {
    return benchtest::Outcome("unit", "p", benchmark).series("latency", "ms", std::move(samples)).edit([](auto& o) {
        o.result.info["k"] = "v";
        o.plugin_path = "/plugins/unit/libp.so";
        o.plugin_build = PluginBuild{true, false, true, {"address"}, "GCC 12.2.0", "c++", ""};
        o.wall_time_s = 0.5;
    });
}

TEST(Journal, WritesAndReadsEveryRunInOrder) {
    benchtest::TempDir dir;
    {
        RunJournal journal(dir.path(), header());
        ScenarioOutcome a = run_of("a", {1, std::numeric_limits<double>::quiet_NaN(), 3});
        journal.append(a, 1);
        journal.append(run_of("b", {5}), 1);
        journal.append(run_of("a", {4}), 2);
    }
    const JournalContents contents = read_journal(dir.path());
    EXPECT_EQ(contents.header.timestamp, "20261124_120000");
    EXPECT_EQ(contents.header.run_id, "0123456789abcdef0123456789abcdef");  // what --resume keeps
    EXPECT_EQ(contents.header.run_config.at("rounds"), "2");
    ASSERT_TRUE(contents.header.shard.has_value());
    EXPECT_EQ(contents.header.shard->index, 2);
    EXPECT_EQ(contents.header.shard->plan_fingerprint, "fp");
    ASSERT_EQ(contents.runs.size(), 3u);
    EXPECT_EQ(contents.runs[2].second, 2);
    EXPECT_TRUE(std::isnan(contents.runs[0].first.result.series[0].samples[1]));  // round-trips exactly
    EXPECT_EQ(contents.runs[0].first.plugin_path, fs::path("/plugins/unit/libp.so"));
    EXPECT_EQ(contents.runs[0].first.plugin_build,
              (PluginBuild{true, false, true, {"address"}, "GCC 12.2.0", "c++", ""}));
    EXPECT_FALSE(contents.truncated);

    const std::vector<ScenarioOutcome> outcomes = replay_journal(contents);
    ASSERT_EQ(outcomes.size(), 2u);
    EXPECT_EQ(outcomes[0].config.benchmark, "a");
    EXPECT_EQ(outcomes[0].rounds, 2);
    EXPECT_EQ(outcomes[0].result.series[0].samples.size(), 4u);  // both rounds pooled
    EXPECT_EQ(outcomes[0].round_sizes.at(outcomes[0].result.series[0].name), (std::vector<std::size_t>{3, 1}));
    EXPECT_EQ(outcomes[1].rounds, 1);
    EXPECT_TRUE(outcomes[0].plugin_build.known);
}

TEST(Journal, ALineFromBeforePluginsRecordedTheirBuildReadsAsUnknown) {
    std::string line = journal_outcome_line(run_of("a", {1}), 1);
    const std::size_t start = line.find("\"plugin_build\":{");
    ASSERT_NE(start, std::string::npos) << line;
    line.erase(start, line.find('}', start) + 2 - start);  // the object and its comma
    ASSERT_EQ(line.find("plugin_build"), std::string::npos) << line;
    const JournalLine parsed = parse_journal_line(line, "journal.jsonl:2");
    ASSERT_TRUE(parsed.outcome.has_value());
    EXPECT_EQ(parsed.outcome->plugin_build, PluginBuild{});
    EXPECT_EQ(parsed.outcome->plugin_path, fs::path("/plugins/unit/libp.so"));
}

TEST(Journal, AHeaderFromBeforeRunsHadIdsReadsWithAnEmptyOne) {
    JournalHeader old = header();
    old.run_id.clear();
    const std::string line = journal_header_line(old);
    EXPECT_EQ(line.find("run_id"), std::string::npos) << line;
    const JournalLine parsed = parse_journal_line(line, "journal.jsonl:1");
    ASSERT_TRUE(parsed.header.has_value());
    EXPECT_EQ(parsed.header->run_id, "");
    EXPECT_EQ(parsed.header->timestamp, "20261124_120000");
}

TEST(Journal, ALineCutShortByAKillIsIgnoredAndDroppedByTheNextRun) {
    benchtest::TempDir dir;
    {
        RunJournal journal(dir.path(), header());
        journal.append(run_of("a", {1}), 1);
    }
    {
        std::ofstream out(dir.path() / journal_file_name, std::ios::app);
        out << R"({"round":1,"plugin_path":"/p)";  // killed in the middle of a line
    }
    JournalContents contents = read_journal(dir.path());
    EXPECT_TRUE(contents.truncated);
    EXPECT_EQ(contents.runs.size(), 1u);

    {  // a resumed run appends to the same journal
        RunJournal journal(dir.path(), header());
        journal.append(run_of("b", {2}), 1);
    }
    contents = read_journal(dir.path());
    EXPECT_FALSE(contents.truncated);
    ASSERT_EQ(contents.runs.size(), 2u);
    EXPECT_EQ(contents.runs[1].first.config.benchmark, "b");
}

TEST(Journal, ABrokenLineIsAnErrorNamingTheFileAndLine) {
    benchtest::TempDir dir;
    { RunJournal journal(dir.path(), header()); }
    {
        std::ofstream out(dir.path() / journal_file_name, std::ios::app);
        out << R"({"round":1})"
            << "\n";
    }
    try {
        read_journal(dir.path());
        FAIL() << "a broken line was accepted";
    } catch (const std::runtime_error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("journal.jsonl:2"), std::string::npos) << message;
        EXPECT_NE(message.find("plugin_path"), std::string::npos) << message;
    }
}

TEST(Journal, ANewerVersionIsRefused) {
    benchtest::TempDir dir;
    {
        std::ofstream out(dir.path() / journal_file_name);
        out << R"({"journal":"benchhost run journal","version":99})"
            << "\n";
    }
    try {
        read_journal(dir.path());
        FAIL() << "a newer journal was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("journal version 99 is newer"), std::string::npos) << e.what();
    }
}

}  // namespace
