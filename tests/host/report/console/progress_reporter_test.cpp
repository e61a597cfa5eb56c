// The progress line: its text, and the terminal sink that keeps it below the log.
#include "report/console/progress_reporter.hpp"

#include <cstdio>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <spdlog/logger.h>

namespace {

using namespace benchhost;

TEST(Progress, Durations) {
    EXPECT_EQ(format_duration(0), "0:00");
    EXPECT_EQ(format_duration(42.4), "0:42");
    EXPECT_EQ(format_duration(130), "2:10");
    EXPECT_EQ(format_duration(3723), "1:02:03");
    EXPECT_EQ(format_duration(-1), "0:00");
}

TEST(Progress, TextWithAndWithoutAnEstimate) {
    EXPECT_EQ(progress_text({0, 12, 1.2, -1}), "0/12 done, 0:01 elapsed");
    EXPECT_EQ(progress_text({3, 12, 42, 130}), "3/12 done, 0:42 elapsed, about 2:10 left");
    EXPECT_EQ(progress_text({12, 12, 200, 0}), "12/12 done, 3:20 elapsed");
}

TEST(Progress, ClockEstimatesFromTheExecutionsDone) {
    ProgressClock clock(4);
    EXPECT_EQ(clock.state().estimate_left_s, -1);
    clock.skipped_one();  // already reported: takes no time, says nothing of the others
    EXPECT_EQ(clock.state().done, 1u);
    EXPECT_EQ(clock.state().estimate_left_s, -1);
    clock.finished_one();
    const ProgressState state = clock.state();
    EXPECT_EQ(state.done, 2u);
    EXPECT_GE(state.estimate_left_s, 0);
    EXPECT_LE(state.estimate_left_s, 2 * state.elapsed_s + 1e-6);  // two left, each as long as the one timed
}

TEST(Progress, SinkPrintsLogLinesAboveTheStatusLine) {
    std::FILE* file = std::tmpfile();
    ASSERT_NE(file, nullptr);
    {
        auto sink = std::make_shared<ProgressSink>(file);
        spdlog::logger log("test", sink);
        ProgressClock clock(2);
        sink->set_status("performance/x/y", &clock);
        log.warn("something happened");
        sink->finish();
    }
    std::rewind(file);
    std::string text;
    for (int c; (c = std::fgetc(file)) != EOF;) text += static_cast<char>(c);
    std::fclose(file);
    // Each redraw clears the line first; the log line comes after a clear, then the status again.
    const auto warn = text.find("\r\033[K[warning] something happened\n");
    ASSERT_NE(warn, std::string::npos) << text;
    EXPECT_NE(text.find("[0/2 done, 0:00 elapsed] performance/x/y", warn), std::string::npos) << text;
    EXPECT_EQ(text.substr(text.size() - 4), "\r\033[K");  // finish() leaves a clean line
}

}  // namespace
