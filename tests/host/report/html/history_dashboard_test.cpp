// `benchhost history report`'s pages (report/html/history_dashboard.hpp), from a synthetic
// history with a known step: the change point marked at its commit, a page per machine,
// every link of the index resolving to a page that was written, and `history show`'s
// table (history/history_table.hpp) under each chart.
#include "report/html/history_dashboard.hpp"

#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <set>

#include "history/history_table.hpp"
#include "report/html/svg_chart.hpp"

#include "../../../support/chromium.hpp"  // count
#include "../../../support/test_support.hpp"

namespace {

using namespace benchhost;
using namespace benchtest;

/// Histories of two scenarios over 40 runs: on machine "aaaa1111" scenario a steps up
/// 10% at run 25 (the 26th); on "bbbb2222" a and b stay flat.
class DashboardTest : public ::testing::Test {
protected:
    static std::string fmt_commit(int run) {
        std::string commit = "c" + std::to_string(1000 + run);
        return commit + std::string(40 - commit.size(), 'f');
    }
    void SetUp() override {
        std::mt19937_64 rng(3);
        std::normal_distribution<double> noise(0, 0.01);
        for (int run = 0; run < 40; ++run) {
            points.push_back(point("performance/mock/a[batch_size=1]", "aaaa1111",
                                   10 * (run >= 25 ? 1.10 : 1.0) * (1 + noise(rng)), run));
            points.push_back(point("performance/mock/a[batch_size=1]", "bbbb2222", 5 * (1 + noise(rng)), run));
            points.push_back(point("performance/mock/b[batch_size=1]", "bbbb2222", 2 * (1 + noise(rng)), run));
        }
        histories = series_histories(points);
    }
    /// Run `run` of a latency history on `machine`: median `ms`, its commit fmt_commit(run).
    static HistoryPoint point(const std::string& scenario, const std::string& machine, double ms, int run);

    std::vector<HistoryPoint> points;
    std::vector<SeriesHistory> histories;
    DashboardOptions options{"history.db", "", 0};
    TempDir work;
};

HistoryPoint DashboardTest::point(const std::string& scenario, const std::string& machine, double ms, int run) {
    HistoryPoint p;
    HistoryRun r;
    r.id = run + 1;
    r.machine = machine;
    r.machine_text = "host-" + machine + "; cpu.model=Xeon";
    r.commit_id = fmt_commit(run);
    r.started_at = "2026-11-" + std::to_string(10 + run / 24) + "T" + (run % 24 < 10 ? "0" : "") +
                   std::to_string(run % 24) + ":00:00Z";
    p.run = std::make_shared<const HistoryRun>(r);
    p.scenario_id = scenario;
    p.status = "success";
    p.series.name = "latency";
    p.series.unit = "ms";
    p.series.summary.median = ms;
    p.series.summary.count = 20;
    p.series.ci_low = ms * 0.99;
    p.series.ci_high = ms * 1.01;
    return p;
}

TEST_F(DashboardTest, APageMarksTheStepAtItsCommitUnderAChartWithItsBand) {
    ASSERT_EQ(histories.size(), 3u);
    const SeriesHistory& stepped = histories[0];
    ASSERT_EQ(stepped.machine, "aaaa1111");
    ASSERT_EQ(stepped.steps.size(), 1u);
    const std::size_t at = stepped.steps.begin()->first;
    EXPECT_NEAR(static_cast<double>(at), 25, 2);
    const std::string commit = short_commit(stepped.points[at]->run->commit_id);

    const std::string html = history_page_html(stepped, options);
    EXPECT_EQ(count(html, "<svg class=\"chart xy\""), 1u);
    EXPECT_EQ(count(html, "class=\"band interval"), 1u) << "the 95% interval as a band";
    // One step marker, at the run that starts the step, labelled with its commit and
    // magnitude; the table's row of that run says the same.
    EXPECT_EQ(count(html, "class=\"step-marker\""), 1u);
    EXPECT_NE(html.find("class=\"step-marker\" data-x=\"" + std::to_string(at + 1) + "\""), std::string::npos);
    const std::string change = format_change(1 + stepped.steps.begin()->second.relative_change);
    EXPECT_NE(html.find(">" + commit + " " + change + "</text>"), std::string::npos) << commit << " " << change;
    EXPECT_EQ(count(html, "<tr class=\"step\">"), 1u);
    EXPECT_NE(html.find("<td>" + commit + "</td>"), std::string::npos);
    // Every run has a dot with its commit, date, median and interval as a tooltip.
    EXPECT_EQ(count(html, "<circle class=\"pt "), 40u);
    EXPECT_NE(html.find("run 1: commit " + short_commit(fmt_commit(0)) + ", 2026-11-10T00:00:00Z\nmedian "),
              std::string::npos);
    // The table is history show's: every row, the same cells.
    const HistoryTable table = history_table(stepped);
    ASSERT_EQ(table.rows.size(), 40u);
    for (const auto& row : table.rows) EXPECT_NE(html.find("<td class=\"num\">" + row[3] + "</td>"), std::string::npos);
    EXPECT_EQ(html.find("http://"), std::string::npos);
    EXPECT_EQ(html.find("<script"), std::string::npos);

    // A flat history has no marker and says so on the index.
    EXPECT_EQ(count(history_page_html(histories[1], options), "class=\"step-marker\""), 0u);
    const std::string index = history_index_html(histories, options);
    EXPECT_EQ(count(index, "no step"), 2u);
    // The index opens with what changed; its table sorts and filters, by the pages' script.
    EXPECT_NE(index.find("<b class=\"stepped\">1 of 3</b> series has a change point"), std::string::npos) << index;
    EXPECT_NE(index.find("<table class=\"scenarios dashboard sortable filterable\">"), std::string::npos);
    EXPECT_EQ(count(index, "<script>"), 1u);
    EXPECT_NE(index.find("<code>" + commit + "</code> <b class=\"stepped\">" + change + "</b>"), std::string::npos);
}

TEST_F(DashboardTest, AStepLinksToTheBisectCommandThatWouldFindItsCommit) {
    const SeriesHistory& stepped = histories[0];
    ASSERT_EQ(stepped.steps.size(), 1u);
    const std::size_t at = stepped.steps.begin()->first;
    const std::vector<std::string> lines = bisect_lines(stepped);
    ASSERT_EQ(lines.size(), 1u);
    // From the commit of the run before the step to the step's, the scenario's id quoted
    // for the shell (its brackets would be a glob).
    const std::string command = "benchhost bisect --good " + stepped.points[at - 1]->run->commit_id + " --bad " +
                                stepped.points[at]->run->commit_id +
                                " --include 'performance/mock/a[batch_size=1]' --build BUILD --plugins-dir DIR";
    EXPECT_NE(lines[0].find(command), std::string::npos) << lines[0];
    const std::string html = history_page_html(stepped, options);
    EXPECT_NE(html.find("<li><code>" + svg::escape(lines[0]) + "</code></li>"), std::string::npos);
    EXPECT_TRUE(bisect_lines(histories[1]).empty());  // flat: no step

    // A step between two runs of one commit is not a change of code: no bisect.
    SeriesHistory same_commit = stepped;
    std::vector<HistoryPoint> copies;
    copies.reserve(2);
    for (std::size_t i : {at - 1, at}) {
        HistoryRun run = *stepped.points[i]->run;
        run.commit_id = fmt_commit(99);
        copies.push_back(*stepped.points[i]);
        copies.back().run = std::make_shared<const HistoryRun>(run);
    }
    same_commit.points[at - 1] = &copies[0];
    same_commit.points[at] = &copies[1];
    const std::vector<std::string> same = bisect_lines(same_commit);
    ASSERT_EQ(same.size(), 1u);
    EXPECT_NE(same[0].find("the runs on either side of it are of the same commit"), std::string::npos) << same[0];
    EXPECT_EQ(same[0].find("benchhost bisect"), std::string::npos);

    // A step down in a time series made it faster: nothing to bisect.
    SeriesHistory faster = stepped;
    faster.steps.begin()->second.relative_change = -0.1;
    EXPECT_TRUE(bisect_lines(faster).empty());
}

TEST_F(DashboardTest, APagePerMachineAndEveryLinkOfTheIndexResolves) {
    const DashboardWritten written = write_history_dashboard(histories, work.path(), options);
    EXPECT_EQ(written.pages, 4u);  // the index and 3 histories: scenario a on two machines, b on one
    EXPECT_EQ(written.scenarios, 2u);
    EXPECT_EQ(written.machines, 2u);
    const std::string index = read_file(work / "index.html");
    // A section per machine, named by its fingerprint and its facts.
    for (const std::string machine : {"aaaa1111", "bbbb2222"}) {
        EXPECT_NE(index.find("<section id=\"machine-" + machine + "\"><h2>Machine <code>" + machine + "</code>"),
                  std::string::npos);
        EXPECT_NE(index.find("host-" + machine + "; cpu.model=Xeon"), std::string::npos);
    }
    EXPECT_EQ(count(index, "<svg class=\"spark\""), 3u);

    std::set<std::string> linked;
    const std::regex href("href=\"([^\"#]+)\"");
    for (auto it = std::sregex_iterator(index.begin(), index.end(), href); it != std::sregex_iterator(); ++it)
        linked.insert((*it)[1]);
    ASSERT_EQ(linked.size(), 3u);
    std::set<std::string> files;
    for (const auto& entry : fs::directory_iterator(work.path())) files.insert(entry.path().filename().string());
    for (const std::string& page : linked) {
        EXPECT_TRUE(fs::exists(work / page)) << page;
        EXPECT_NE(read_file(work / page).find("<a href=\"index.html\">"), std::string::npos) << page;
    }
    linked.insert("index.html");
    EXPECT_EQ(files, linked) << "nothing written that the index does not link to";

    // Names: stable, distinct per machine, safe for a file system and a URL.
    EXPECT_EQ(history_page_name(histories[0]), history_page_name(series_histories(points)[0]));
    EXPECT_NE(history_page_name(histories[0]), history_page_name(histories[1]));
    for (const std::string& page : linked)
        EXPECT_TRUE(std::regex_match(page, std::regex("[A-Za-z0-9_.-]+\\.html"))) << page;
}

TEST_F(DashboardTest, ALongHistoryKeepsEveryRunInTheLineButFewerDots) {
    std::vector<HistoryPoint> many;
    for (int run = 0; run < 1200; ++run)
        many.push_back(point("performance/mock/a", "aaaa1111", run >= 1000 ? 11 : 10 + 0.01 * (run % 7), run));
    const std::vector<SeriesHistory> long_history = series_histories(many);
    ASSERT_EQ(long_history.size(), 1u);
    // The change points are searched over the last change_point_runs runs only.
    EXPECT_EQ(long_history[0].steps_from, 1200 - change_point_runs);
    ASSERT_EQ(long_history[0].steps.size(), 1u);
    EXPECT_EQ(long_history[0].steps.begin()->first, 1000u);
    const std::string html = history_page_html(long_history[0], options);
    EXPECT_LE(count(html, "<circle class=\"pt "), dashboard_max_dots + 2);
    EXPECT_NE(html.find("over the medians of the last " + std::to_string(change_point_runs) + " runs"),
              std::string::npos);
    EXPECT_EQ(count(html, "<tr"), 1201u);  // the header and every run
    // --limit: only the last runs, on the page and in its table.
    options.limit = 100;
    const std::string limited = history_page_html(long_history[0], options);
    EXPECT_EQ(count(limited, "<tr"), 101u);
    EXPECT_NE(limited.find("(the last 100 of 1200)"), std::string::npos);
}

}  // namespace
