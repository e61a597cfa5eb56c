// benchhost bisect on throw-away git repositories: a Python plugin that spins a known
// time, made slower at a known commit among 16; a revision that does not build (its
// plugin has a syntax error, which the build command's byte-compile finds); and the
// input bisect refuses. Every test checks that the user's checkout is left as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../support/test_support.hpp"

namespace {

using namespace benchtest;

/// The build command every test gives: byte-compile the plugin (a syntax error fails
/// the build), then copy it where the host looks for plugins.
const std::string build_command =
    "python3 -m py_compile spin_py.py && mkdir -p out/performance && cp spin_py.py out/performance/";

class BisectTest : public ::testing::Test {
protected:
    void SetUp() override {
        fs::permissions(work.path(), fs::perms::owner_all);
        fs::create_directories(repo);
        git({"init", "--quiet", "--initial-branch=main"});
        git({"config", "user.email", "bisect-test@example.com"});
        git({"config", "user.name", "bisect test"});
    }

    /// Runs git in the repository; its standard output.
    std::string git(const std::vector<std::string>& args) {
        std::vector<std::string> argv = {"/usr/bin/git", "-C", repo.string()};
        argv.insert(argv.end(), args.begin(), args.end());
        const ProcessResult result = run_process(argv, work.path());
        EXPECT_EQ(result.exit_code, 0) << result.err;
        return result.out;
    }

    /// One commit per entry of `spin_us`: the plugin spins that many microseconds a call;
    /// a commit in `broken` has a syntax error in it. Returns the commits' ids, oldest first.
    std::vector<std::string> commits(const std::vector<int>& spin_us, const std::vector<std::size_t>& broken = {}) {
        std::vector<std::string> ids;
        for (std::size_t i = 0; i < spin_us.size(); ++i) {
            const bool is_broken = std::find(broken.begin(), broken.end(), i) != broken.end();
            write_file(repo / "spin_py.py", std::string("import time\n\nSPIN_US = ") + std::to_string(spin_us[i]) +
                                                "\n\n\ndef benchmark_spin(ctx):\n" +
                                                (is_broken ? "    ) a syntax error\n" : "") +
                                                "    def spin():\n"
                                                "        end = time.perf_counter() + SPIN_US / 1e6\n"
                                                "        while time.perf_counter() < end:\n"
                                                "            pass\n"
                                                "    ctx.measure(\"latency\", spin)\n");
            write_file(repo / "notes.txt", "revision " + std::to_string(i) + "\n");
            git({"add", "--all"});
            git({"commit", "--quiet", "-m", "revision " + std::to_string(i)});
            std::string id = git({"rev-parse", "HEAD"});
            id.pop_back();
            ids.push_back(id);
        }
        return ids;
    }

    /// 16 commits, the plugin 50% slower from `slow_from` on.
    std::vector<std::string> sixteen_commits(std::size_t slow_from, const std::vector<std::size_t>& broken = {}) {
        std::vector<int> spin_us(16, 1000);
        for (std::size_t i = slow_from; i < spin_us.size(); ++i) spin_us[i] = 1500;
        return commits(spin_us, broken);
    }

    /// What the user's checkout is: its HEAD, branches and tags, worktrees, status and
    /// files. Bisect must leave all of it as it was.
    std::string checkout_state() {
        std::string state = git({"rev-parse", "HEAD"}) + git({"for-each-ref"}) +
                            git({"worktree", "list", "--porcelain"}) + git({"status", "--porcelain", "--ignored"}) +
                            git({"stash", "list"});
        std::vector<std::string> files;
        for (const auto& entry : fs::recursive_directory_iterator(repo))
            files.push_back(entry.path().string() + " " +
                            std::to_string(fs::is_regular_file(entry) ? fs::file_size(entry) : 0));
        std::sort(files.begin(), files.end());
        for (const std::string& file : files) state += file + "\n";
        return state;
    }

    /// Runs bisect into a fresh output folder (`output` names it afterwards).
    ProcessResult bisect(const std::string& good, const std::string& bad, std::vector<std::string> more = {}) {
        output = work / ("out" + std::to_string(++runs));
        std::vector<std::string> args = {"bisect",
                                         "--repo",
                                         repo.string(),
                                         "--good",
                                         good,
                                         "--bad",
                                         bad,
                                         "--build",
                                         build_command,
                                         "--plugins-dir",
                                         "out",
                                         "--output-dir",
                                         output.string(),
                                         "--warmup-iterations",
                                         "1",
                                         "--measurement-iterations",
                                         "5",
                                         "--monitor-interval",
                                         "0",
                                         "--threshold",
                                         "20%"};
        args.insert(args.end(), more.begin(), more.end());
        return run_host(args, work.path());
    }

    TempDir work;
    fs::path repo = work / "repo";
    fs::path output;
    int runs = 0;
};

TEST_F(BisectTest, FindsTheCommitThatMadeThePluginSlowerAmong16) {
    const std::vector<std::string> ids = sixteen_commits(10);
    const std::string before = checkout_state();
    const ProcessResult r = bisect(ids[0], ids[15]);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("first bad commit: " + ids[10] + " revision 10"), std::string::npos) << r.out;
    // The evidence at each step: --bad, then at most four halvings of the 15 revisions.
    EXPECT_NE(r.out.find("bad " + ids[15].substr(0, 7)), std::string::npos) << r.out;
    std::size_t steps = 0;
    for (std::size_t at = r.out.find("\nstep "); at != std::string::npos; at = r.out.find("\nstep ", at + 1)) ++steps;
    EXPECT_GE(steps, 3u) << r.out;
    EXPECT_LE(steps, 4u) << r.out;
    EXPECT_NE(r.out.find("is good: performance/spin_py/spin: latency"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("is bad: performance/spin_py/spin: latency"), std::string::npos) << r.out;
    // bisect.md: the outcome and each step's verdict, evidence and links.
    const std::string md = read_file(output / "bisect.md");
    EXPECT_NE(md.find("first bad commit: " + ids[10]), std::string::npos) << md;
    EXPECT_NE(md.find("| good | `" + ids[0].substr(0, 7) + "`"), std::string::npos) << md;
    EXPECT_NE(md.find("[report](steps/0_bad_"), std::string::npos) << md;
    for (const auto& step : fs::directory_iterator(output / "steps"))
        EXPECT_TRUE(fs::exists(step.path() / "comparison.json")) << step.path();
    EXPECT_EQ(checkout_state(), before);
    // The scratch checkouts are gone.
    for (const auto& entry : fs::directory_iterator(fs::temp_directory_path()))
        EXPECT_EQ(entry.path().filename().string().find("benchhost-bisect-"), std::string::npos) << entry.path();
}

TEST_F(BisectTest, SkipsARevisionThatDoesNotBuildAsGitBisectSkipDoes) {
    // Revision 7, the first bisect tries, does not build; 11 made it slower.
    const std::vector<std::string> ids = sixteen_commits(11, {7});
    const std::string before = checkout_state();
    const ProcessResult r = bisect(ids[0], ids[15]);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("first bad commit: " + ids[11]), std::string::npos) << r.out;
    EXPECT_NE(
        r.out.find(ids[7].substr(0, 7) + " revision 7 is skipped: does not build: the build failed (exit status 1)"),
        std::string::npos)
        << r.out;
    EXPECT_NE(read_file(output / "builds" / (ids[7].substr(0, 7) + ".log")).find("SyntaxError"), std::string::npos);
    EXPECT_EQ(checkout_state(), before);
}

TEST_F(BisectTest, ASkippedRevisionBesideTheFirstBadOneLeavesTheAnswerOpen) {
    const std::vector<std::string> ids = sixteen_commits(9, {8});
    const ProcessResult r = bisect(ids[0], ids[15]);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("the first bad commit is one of these 2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(ids[8] + " revision 8 (skipped)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(ids[9] + " revision 9 (bad)"), std::string::npos) << r.out;
}

TEST_F(BisectTest, RefusesWhatItCannotBisectWithExit2AndLeavesTheCheckoutAsItWas) {
    const std::vector<std::string> ids = commits({1500, 1000, 1000});  // faster from revision 1 on
    const std::string before = checkout_state();
    const auto expect_refused = [&](const ProcessResult& r, const std::string& message) {
        EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
        EXPECT_NE((r.out + r.err).find(message), std::string::npos) << r.out << r.err;
        EXPECT_EQ(checkout_state(), before);
    };
    expect_refused(bisect("no-such-revision", ids[2]), "--good no-such-revision: no such commit in " + repo.string());
    expect_refused(bisect(ids[2], ids[0]), "comes after --bad");
    expect_refused(bisect(ids[0], ids[0]), "--good and --bad are the same commit");
    expect_refused(bisect(ids[0], ids[2], {"--build", "exit 3"}),
                   "at --good " + ids[0].substr(0, 7) + " revision 0, the build failed (exit status 3)");
    expect_refused(bisect(ids[0], ids[2], {"--plugins-dir", "/tmp"}), "give the folder relative to the checkout");
    // The revision that is slower is --good: were they swapped?
    expect_refused(bisect(ids[0], ids[2]), "--good " + ids[0].substr(0, 7) + " revision 0 is slower than --bad");

    // Uncommitted changes: no revision bisected holds them.
    write_file(repo / "notes.txt", "an edit not committed\n");
    const ProcessResult dirty = bisect(ids[1], ids[2]);
    EXPECT_EQ(dirty.exit_code, 2) << dirty.out << dirty.err;
    EXPECT_NE(dirty.err.find("has uncommitted changes"), std::string::npos) << dirty.err;
    EXPECT_NE(dirty.err.find("M notes.txt"), std::string::npos) << dirty.err;
    EXPECT_EQ(read_file(repo / "notes.txt"), "an edit not committed\n");
    git({"checkout", "--quiet", "--", "notes.txt"});

    // The same speed at both ends: nothing to bisect, which is a finding, not bad input.
    const ProcessResult same = bisect(ids[1], ids[2]);
    EXPECT_EQ(same.exit_code, 1) << same.out << same.err;
    EXPECT_NE(same.out.find("nothing to bisect: --bad " + ids[2].substr(0, 7) + " is not slower"), std::string::npos)
        << same.out;
    EXPECT_EQ(checkout_state(), before);
}

TEST_F(BisectTest, ADryRunListsTheRevisionsAndBuildsNothing) {
    const std::vector<std::string> ids = sixteen_commits(10);
    const ProcessResult r = bisect(ids[0], ids[15], {"--dry-run"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("bisect: 15 revisions after good " + ids[0].substr(0, 7) + " revision 0"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("about 4 steps"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(output));
}

}  // namespace
