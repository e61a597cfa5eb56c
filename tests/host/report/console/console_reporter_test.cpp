#include "report/console/console_reporter.hpp"
#include "util/text_table.hpp"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../../../support/builders.hpp"

namespace {

using benchhost::RunRecord;
using benchhost::ScenarioOutcome;

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

/// The lines of the summary after its first category heading ("unit: 4 scenarios ran, 1 skipped").
std::vector<std::string> table_lines(const RunRecord& record) {
    std::vector<std::string> lines = lines_of(benchhost::format_summary_table(record));
    if (!lines.empty() && lines[0].rfind("unit: ", 0) == 0) lines.erase(lines.begin());
    return lines;
}

/// The line after the one equal to `heading` (a benchmark's heading: its table's header),
/// and the ones after it up to a blank line.
std::vector<std::string> table_under(const std::vector<std::string>& lines, const std::string& heading) {
    std::vector<std::string> table;
    auto it = std::find(lines.begin(), lines.end(), heading);
    if (it == lines.end()) return table;
    for (++it; it != lines.end() && !it->empty(); ++it) table.push_back(*it);
    return table;
}

ScenarioOutcome outcome(const std::string& benchmark, bench::Status status, const std::string& reason = {}) {
    return benchtest::Outcome("unit", "mock", benchmark).status(status, reason);
}

RunRecord sample_record() {
    RunRecord record;
    auto fast = outcome("fast_kernel_with_a_long_name", bench::Status::success);
    fast.result.series.push_back({"latency", "us", {845, 845, 845}, 1});
    fast.result.series.push_back({"throughput", "items/s", {1183.4}, 1});
    record.outcomes.push_back(fast);

    auto model = outcome("model", bench::Status::success);
    model.result.series.push_back({"latency", "ms", {12.34, 12.34, 20}, 1});
    model.result.series.push_back({"tokens_per_second", "tokens/s", {81.23}, 1});
    record.outcomes.push_back(model);

    auto slow = outcome("slow", bench::Status::success);
    slow.result.series.push_back({"latency", "ms", {1520, 1520}, 1});
    record.outcomes.push_back(slow);

    record.outcomes.push_back(outcome("skip", bench::Status::skipped, "mock disabled"));
    record.outcomes.push_back(outcome("boom", bench::Status::failed,
                                      "error: the output differs\nfrom the reference at element 17 of the tensor named "
                                      "weights, and many more words"));
    return record;
}

TEST(ConsoleTable, OneTablePerBenchmarkThenTheSkipsAndTheProblemsInFull) {
    const auto lines = table_lines(sample_record());
    EXPECT_EQ(lines_of(benchhost::format_summary_table(sample_record()))[0], "unit: 4 scenarios ran, 1 skipped");
    // Each benchmark that ran: a blank line, its heading, its table (the header and one
    // row: no axes, so no axis columns).
    const char* benchmarks[] = {"fast_kernel_with_a_long_name", "model", "slow", "boom"};
    ASSERT_GE(lines.size(), 16u);
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(lines[4 * i], "") << i;
        EXPECT_EQ(lines[4 * i + 1], std::string("unit/mock/") + benchmarks[i]);
        EXPECT_EQ(lines[4 * i + 2].rfind("  STATUS", 0), 0u) << lines[4 * i + 2];
        EXPECT_EQ(lines[4 * i + 3].rfind(i < 3 ? "  success" : "  failed", 0), 0u) << lines[4 * i + 3];
    }
    // The skipped one: once, by its reason, after the tables.
    EXPECT_EQ(std::count(lines.begin(), lines.end(), "unit/mock/skip"), 0);
    const auto skipped = std::find(lines.begin(), lines.end(), "Skipped:");
    ASSERT_NE(skipped, lines.end());
    EXPECT_EQ(*(skipped - 1), "");
    EXPECT_EQ(*(skipped + 1), "  mock disabled (1 scenario: mock/skip)");
    const auto header = table_under(lines, "unit/mock/model").at(0);
    for (const char* title : {"STATUS", "MEDIAN", "95% CI", "P95", "THROUGHPUT", "VS EAGER"})
        EXPECT_NE(header.find(title), std::string::npos) << title;
    EXPECT_EQ(header.find("NOTE"), std::string::npos);  // no note in this table
    EXPECT_NE(table_under(lines, "unit/mock/boom").at(0).find("NOTE"), std::string::npos);
    const auto problems = std::find(lines.begin(), lines.end(), "Problems:");
    ASSERT_NE(problems, lines.end());
    EXPECT_EQ(*(problems - 1), "");
    EXPECT_EQ(*(problems + 1), "  unit/mock/boom (failed): error: the output differs");
    EXPECT_EQ(*(problems + 2), "    from the reference at element 17 of the tensor named weights, and many more words");
}

TEST(ConsoleTable, SkipsWithOneReasonAreCountedInWords) {
    // "(2): a, b" after a reason read as a part of it.
    RunRecord record;
    for (const char* benchmark : {"a", "b"})
        record.outcomes.push_back(outcome(benchmark, bench::Status::skipped, "needs a GPU"));
    const auto lines = lines_of(benchhost::format_summary_table(record));
    const auto skipped = std::find(lines.begin(), lines.end(), "Skipped:");
    ASSERT_NE(skipped, lines.end());
    EXPECT_EQ(*(skipped + 1), "  needs a GPU (2 scenarios: mock/a, mock/b)");
}

TEST(ConsoleTable, AScenarioThatFailedShowsNoFiguresOfWhatItRecordedBeforeIt) {
    // One sample before it failed is not its median.
    RunRecord record;
    auto failed = outcome("half", bench::Status::failed, "raised RuntimeError: broke");
    failed.result.series.push_back({"latency", "ms", {3.25}, 1});
    failed.result.series.push_back({"throughput", "items/s", {307.7}, 1});
    record.outcomes.push_back(failed);
    const auto table = table_under(lines_of(benchhost::format_summary_table(record)), "unit/mock/half");
    ASSERT_EQ(table.size(), 2u);
    EXPECT_EQ(table[1].rfind("  failed       -       -    -           -         -  raised RuntimeError: broke", 0), 0u)
        << table[1];
}

TEST(ConsoleTable, OtherSeriesAreShownUnderTheirRowTheFirstFewThenCounted) {
    // What a plain Python function returns: each key a series, the host's call time the
    // headline, "throughput" in its column; the rest under the row, by their medians.
    RunRecord record;
    record.outcomes.push_back(benchtest::Outcome("unit", "plain_py", "plain")
                                  .series("benchhost.call_time", "ms", {12.5, 12.4, 12.6})
                                  .series("execution_time", "s", {0.0125, 0.0121, 0.0123})
                                  .series("throughput", "", {812, 812, 812})
                                  .series("nested.a", "", {1, 1, 1}));
    auto many = benchtest::Outcome("unit", "plain_py", "many").series("latency", "ms", {2, 2});
    for (const char* name : {"a", "b", "c", "d", "e"}) many.series(name, "", {1, 2});
    record.outcomes.push_back(many);
    // Names so long that three do not fit the line: fewer are shown, the rest counted.
    auto wide = benchtest::Outcome("unit", "plain_py", "wide").series("latency", "ms", {2, 2});
    for (const char* name : {"first_rather_long_series_name_of_a_suite_that_times_each_step",
                             "second_rather_long_series_name_of_a_suite_that_times_each_step", "third"})
        wide.series(name, "s", {0.5});
    record.outcomes.push_back(wide);
    // A scenario that failed shows none of what it recorded.
    record.outcomes.push_back(benchtest::Outcome("unit", "plain_py", "broken")
                                  .status(bench::Status::failed, "raised RuntimeError: broke")
                                  .series("latency", "ms", {2})
                                  .series("execution_time", "s", {0.002}));
    const auto lines = lines_of(benchhost::format_summary_table(record));

    const auto plain = table_under(lines, "unit/plain_py/plain");
    ASSERT_EQ(plain.size(), 3u);
    EXPECT_NE(plain[1].find("12.5 ms"), std::string::npos) << plain[1];  // the headline, benchhost.call_time
    EXPECT_NE(plain[1].find("812"), std::string::npos) << plain[1];  // THROUGHPUT
    EXPECT_EQ(plain[2], "    execution_time 12.3 ms, nested.a 1.00");

    const auto three = table_under(lines, "unit/plain_py/many");
    ASSERT_EQ(three.size(), 3u);
    EXPECT_EQ(three[2], "    a 1.50, b 1.50, c 1.50, +2 more series");

    const auto fitted = table_under(lines, "unit/plain_py/wide");
    ASSERT_EQ(fitted.size(), 3u);
    EXPECT_EQ(fitted[2], "    first_rather_long_series_name_of_a_suite_that_times_each_step 500 ms, +2 more series");

    const auto broken = table_under(lines, "unit/plain_py/broken");
    ASSERT_EQ(broken.size(), 2u);  // the header and its row, no series
    for (const std::string& line : lines) EXPECT_LE(benchhost::display_width(line), 100u) << line;
}

TEST(ConsoleTable, ColumnsAreAligned) {
    RunRecord record;
    for (const auto variant : {bench::Variant::eager, bench::Variant::kernelized}) {
        for (const int batch : {1, 16}) {
            record.outcomes.push_back(benchtest::Outcome("performance", "m", "m")
                                          .variant(variant)
                                          .batch_size(batch)
                                          .series("latency", batch == 1 ? "us" : "ms", {845, 845, 845}));
        }
    }
    record.outcomes.push_back(benchtest::Outcome("performance", "m", "m")
                                  .variant(bench::Variant::compiled)
                                  .batch_size(1)
                                  .status(bench::Status::skipped, "not here"));
    const auto table = table_under(lines_of(benchhost::format_summary_table(record)), "performance/m/m");
    ASSERT_EQ(table.size(), 5u);  // the skipped scenario is listed after the tables
    // STATUS starts at the same column in every row: after the widest variant.
    const std::size_t status_column = table[0].find("STATUS");
    EXPECT_EQ(table[0].rfind("  VARIANT     BATCH_SIZE  STATUS", 0), 0u) << table[0];
    for (std::size_t i = 1; i <= 4; ++i) EXPECT_EQ(table[i].find("success"), status_column) << table[i];
    EXPECT_EQ(table[2].rfind("  eager       16          success", 0), 0u) << table[2];
    // MEDIAN is right-aligned: every value ends where the title ends.
    const std::size_t median_end = table[0].find("MEDIAN") + 6;
    for (std::size_t i = 1; i <= 4; ++i) {
        ASSERT_GE(table[i].size(), median_end) << table[i];
        EXPECT_NE(table[i][median_end - 1], ' ') << table[i];
        EXPECT_EQ(table[i][median_end], ' ') << table[i];
    }
    for (const auto& line : lines_of(benchhost::format_summary_table(record))) {
        if (!line.empty()) {
            EXPECT_NE(line.back(), ' ') << line;  // no trailing spaces
        }
    }
}

TEST(ConsoleTable, FiguresAreScaledToTheirMagnitude) {
    const auto lines = table_lines(sample_record());
    const std::string fast = table_under(lines, "unit/mock/fast_kernel_with_a_long_name").at(1);
    EXPECT_NE(fast.find("845 us"), std::string::npos) << fast;  // median
    EXPECT_NE(fast.find("1.18k items/s"), std::string::npos) << fast;
    const std::string model = table_under(lines, "unit/mock/model").at(1);
    EXPECT_NE(model.find("12.3 ms"), std::string::npos) << model;
    EXPECT_NE(model.find("19.2 ms"), std::string::npos) << model;  // p95 of {12.34, 12.34, 20}
    EXPECT_NE(model.find("81.2 tokens/s"), std::string::npos) << model;
    EXPECT_NE(table_under(lines, "unit/mock/slow").at(1).find("1.52 s"), std::string::npos);
    // A skipped scenario has no figures: it has no row.
    EXPECT_TRUE(table_under(lines, "unit/mock/skip").empty());
}

TEST(ConsoleTable, LongReasonIsOneLineCutToTheWidthLeft) {
    const auto table = table_under(table_lines(sample_record()), "unit/mock/boom");
    ASSERT_EQ(table.size(), 2u);
    const std::string& row = table[1];
    const auto note = row.find("error: ");
    ASSERT_NE(note, std::string::npos) << row;
    EXPECT_EQ(note, table[0].find("NOTE"));
    const std::string text = row.substr(note);
    EXPECT_EQ(row.size(), 100u) << row;  // the note takes what is left of 100 columns
    EXPECT_EQ(text.substr(text.size() - 3), "...");
    EXPECT_EQ(text.rfind("error: the output differs from the reference", 0), 0u) << text;  // newline became a space
    EXPECT_EQ(text.find("many more words"), std::string::npos);
}

TEST(ConsoleTable, TruncationKeepsUtf8Whole) {
    RunRecord record;
    std::string reason;
    for (int i = 0; i < 40; ++i) reason += "\xC3\xA9";  // 40 x U+00E9, 80 bytes
    reason = "x" + reason + reason;
    record.outcomes.push_back(outcome("utf8", bench::Status::failed, reason));
    const auto table = table_under(table_lines(record), "unit/mock/utf8");
    ASSERT_EQ(table.size(), 2u);
    const std::string text = table[1].substr(table[1].find('x'));
    ASSERT_TRUE(text.ends_with("...")) << text;
    const std::string kept = text.substr(1, text.size() - 4);
    ASSERT_EQ(kept.size() % 2, 0u) << text;
    for (std::size_t i = 0; i < kept.size(); i += 2) EXPECT_EQ(kept.substr(i, 2), "\xC3\xA9") << i;
    EXPECT_EQ(benchhost::display_width(table[1]), 100u);
}

TEST(ConsoleTable, TotalsLineRatesTheScenariosThatRan) {
    const auto lines = table_lines(sample_record());
    // 3 succeeded of the 4 that ran: the skip is not a failure.
    EXPECT_EQ(lines.back(), "5 scenarios: 3 succeeded, 1 failed (75.0% of those that ran), 1 skipped");
    RunRecord skips;
    skips.outcomes.push_back(outcome("a", bench::Status::skipped, "no GPU"));
    skips.outcomes.push_back(outcome("b", bench::Status::skipped, "no GPU"));
    EXPECT_EQ(lines_of(benchhost::format_summary_table(skips)).back(), "2 scenarios: 0 succeeded, 0 failed, 2 skipped");
}

TEST(ConsoleTable, InterruptedMarker) {
    RunRecord record = sample_record();
    EXPECT_EQ(benchhost::format_summary_table(record).find("(run interrupted)"), std::string::npos);
    record.interrupted = true;
    const auto lines = table_lines(record);
    EXPECT_EQ(lines.back(), "(run interrupted)");
    EXPECT_EQ(lines[lines.size() - 2], "5 scenarios: 3 succeeded, 1 failed (75.0% of those that ran), 1 skipped");
}

TEST(ConsoleTable, EmptyRun) {
    const auto lines = lines_of(benchhost::format_summary_table(RunRecord{}));
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "0 scenarios: 0 succeeded, 0 failed, 0 skipped");
}

TEST(ConsoleTable, RoundingMovesToTheNextUnit) {
    RunRecord record;
    auto almost = outcome("almost_a_second", bench::Status::success);
    almost.result.series.push_back({"latency", "ms", {999.96}, 1});
    record.outcomes.push_back(almost);
    auto nanos = outcome("nanos", bench::Status::success);
    nanos.result.series.push_back({"latency", "ns", {0.57}, 1});
    record.outcomes.push_back(nanos);
    const auto lines = table_lines(record);
    EXPECT_NE(table_under(lines, "unit/mock/almost_a_second").at(1).find("1.00 s"), std::string::npos);
    EXPECT_NE(table_under(lines, "unit/mock/nanos").at(1).find("0.57 ns"), std::string::npos);
}

}  // namespace

namespace {

TEST(ConsoleTable, OneTablePerCategoryWithSpreadAndSpeedup) {
    RunRecord record;
    auto perf = [](bench::Variant variant, std::vector<double> ms) {
        return benchtest::Outcome("performance", "model", "model")
            .variant(variant)
            .axis("dtype", "float32")
            .series("latency", "ms", std::move(ms));
    };
    record.outcomes.push_back(perf(bench::Variant::eager, {10, 10.1, 9.9, 10, 10.2, 9.8}));
    auto unit = outcome("kernel", bench::Status::success);
    unit.result.series.push_back({"latency", "us", {5, 5, 5}, 1});
    record.outcomes.push_back(unit);
    record.outcomes.push_back(perf(bench::Variant::compiled, {5, 5.05, 4.95, 5, 5.1, 4.9}));
    const auto lines = lines_of(benchhost::format_summary_table(record));
    // The axis with one value in the whole run first; unit (the layout's order), then
    // performance, each with its tables.
    ASSERT_GE(lines.size(), 12u);
    EXPECT_EQ(lines[0], "Axes with one value in this run: dtype=float32");
    EXPECT_EQ(lines[1], "");
    EXPECT_EQ(lines[2], "unit: 1 scenario ran");
    EXPECT_EQ(lines[4], "unit/mock/kernel");
    EXPECT_EQ(lines[5].rfind("  STATUS", 0), 0u);
    EXPECT_EQ(lines[6].rfind("  success", 0), 0u);
    EXPECT_EQ(lines[7], "");
    EXPECT_EQ(lines[8], "performance: 2 scenarios ran");
    EXPECT_EQ(lines[10], "performance/model/model");
    EXPECT_EQ(lines[11].rfind("  VARIANT", 0), 0u) << lines[11];
    EXPECT_EQ(lines[11].find("DTYPE"), std::string::npos) << lines[11];  // said once, above
    EXPECT_EQ(lines[12].rfind("  eager", 0), 0u) << lines[12];
    EXPECT_NE(lines[12].find("\u00b1"), std::string::npos) << lines[12];  // the median's interval
    EXPECT_EQ(lines[13].rfind("  compiled", 0), 0u) << lines[13];
    EXPECT_NE(lines[13].find("2.00x"), std::string::npos) << lines[13];  // compiled: twice as fast
    for (const auto& line : lines) EXPECT_EQ(line.find("[variant="), std::string::npos) << line;
}

// A run as the model plugins make it: several plugins, five axes and more, long names,
// rates in the millions, failures with long reasons.
RunRecord realistic_record() {
    RunRecord record;
    const bench::Variant variants[] = {bench::Variant::eager, bench::Variant::compiled, bench::Variant::kernelized};
    unsigned seed = 1;
    for (const auto variant : variants)
        for (const int batch : {1, 8, 32})
            for (const char* dtype : {"float32", "bfloat16"})
                for (const char* device : {"cpu", "cuda:0"})
                    for (const char* threads : {"0", "4"}) {
                        const double ms = 3.0 * batch * (variant == bench::Variant::eager ? 1 : 0.7);
                        auto o = benchtest::Outcome("performance", "resnet50", "resnet50")
                                     .variant(variant)
                                     .batch_size(batch)
                                     .axis("dtype", dtype)
                                     .axis("device", device)
                                     .axis("threads", threads)
                                     .series("latency", "ms", benchtest::jittered_samples(ms, 12, seed))
                                     .series("throughput", "elements/s",
                                             benchtest::jittered_samples(batch * 22765172.0, 12, seed + 1, 0.001));
                        seed += 2;
                        if (std::string(device) == "cuda:0" && std::string(dtype) == "bfloat16" && batch == 32)
                            o.status(bench::Status::failed,
                                     "bfloat16 at batch size 32 needs more GPU memory than this "
                                     "device has (80 GiB asked, 40 GiB free)");
                        record.outcomes.push_back(o);
                    }
    for (const auto variant : variants)
        for (const char* seq_len : {"128", "1024"})
            for (const char* dtype : {"float32", "float16"}) {
                seed += 2;
                record.outcomes.push_back(
                    benchtest::Outcome("performance", "gpt2_with_a_long_plugin_name", "generate_tokens_with_kv_cache")
                        .variant(variant)
                        .batch_size(1)
                        .axis("dtype", dtype)
                        .axis("device", "cpu")
                        .axis("threads", "0")
                        .axis("sequence_length", seq_len)
                        .series("time_to_first_token", "ms", benchtest::jittered_samples(40, 12, seed))
                        .series("tokens_per_second", "tokens/s", benchtest::jittered_samples(1234.5, 12, seed + 1)));
            }
    for (const char* op : {"matmul_of_two_large_matrices", "softmax"})
        record.outcomes.push_back(
            benchtest::Outcome("unit", "tensor_ops", op)
                .variant(bench::Variant::kernelized)
                .axis("dtype", "float32")
                .axis("device", "cpu")
                .axis("threads", "0")
                .status(bench::Status::failed,
                        "the kernelized output differs from eager's at element 1734 of 4096: expected 0.125, got 0.25 "
                        "(tolerance 1e-05); a second line follows\nwith more detail about the tensors compared, long "
                        "enough to need more than one line of a terminal a hundred columns wide"));
    return record;
}

TEST(ConsoleTable, ARealisticRunFitsAHundredColumns) {
    const RunRecord record = realistic_record();
    const std::string text = benchhost::format_summary_table(record);
    const auto lines = lines_of(text);
    for (const auto& line : lines) EXPECT_LE(benchhost::display_width(line), 100u) << line;

    // Every scenario of resnet50 and gpt2 has its row: a line starting with its variant.
    std::size_t rows = 0;
    for (const auto& line : lines)
        for (const char* variant : {"  eager ", "  compiled ", "  kernelized "}) rows += line.rfind(variant, 0) == 0;
    EXPECT_EQ(rows, record.outcomes.size() - 2);
    // resnet50 varies in five axes: too wide for one table, so the two with the fewest
    // values (of those, the later ones: threads, then device) move into headings.
    const auto table = table_under(lines, "performance/resnet50/resnet50 (device=cuda:0, threads=4)");
    ASSERT_EQ(table.size(), 1u + 3u * 3u * 2u + 3u);  // the header, the rows, a note under each failure
    EXPECT_EQ(table[0].rfind("  VARIANT     BATCH_SIZE  DTYPE     STATUS", 0), 0u) << table[0];
    EXPECT_EQ(table[0].find("NOTE"), std::string::npos) << table[0];
    EXPECT_NE(table[1].find("22.8M elements/s"), std::string::npos) << table[1];  // 22765172 at batch 1
    EXPECT_NE(text.find("1.23k tokens/s"), std::string::npos);
    // No room for a note column: the reason of each failure is on the line under its row.
    const auto skip = std::find_if(table.begin(), table.end(),
                                   [](const std::string& line) { return line.find("failed") != std::string::npos; });
    ASSERT_NE(skip, table.end());
    ASSERT_NE(skip + 1, table.end());
    EXPECT_EQ(*(skip + 1),
              "    bfloat16 at batch size 32 needs more GPU memory than this device has (80 GiB asked, 40 GiB "
              "free)");
    // Axes with one value in a benchmark are in its heading, wrapped when it is long.
    const std::string gpt2 =
        "performance/gpt2_with_a_long_plugin_name/generate_tokens_with_kv_cache (batch_size=1, "
        "device=cpu,";
    EXPECT_FALSE(table_under(lines, gpt2).empty()) << text;
    EXPECT_NE(std::find(lines.begin(), lines.end(), "    threads=0)"), lines.end()) << text;
    EXPECT_EQ(lines[0], "unit: 2 scenarios ran");
    // The failures in full, wrapped under their id.
    std::string problems = text.substr(text.find("Problems:"));
    for (const char* words : {"tolerance 1e-05); a second line follows", "a terminal a hundred columns wide"}) {
        std::string flat;  // the problems' lines joined again
        for (const auto& line : lines_of(problems))
            flat += " " + line.substr(std::min(line.size(), line.find_first_not_of(' ')));
        EXPECT_NE(flat.find(words), std::string::npos) << words << "\n" << problems;
    }
}

TEST(ConsoleTable, AServingLoadsThroughputFigureFillsTheThroughputColumn) {
    // Offline's headline is its throughput, recorded as one figure, not a series.
    RunRecord record;
    auto offline = benchtest::Outcome("performance", "mock_server", "mock_server").series("latency", "ms", {400, 800});
    offline.edit([](ScenarioOutcome& o) { o.result.scalars.push_back({"throughput", 2462.6, "samples/s"}); });
    record.outcomes.push_back(offline);
    auto both = benchtest::Outcome("performance", "mock_server", "other").series("latency", "ms", {1, 2});
    both.series("throughput", "items/s", {10, 12, 14});
    both.edit([](ScenarioOutcome& o) { o.result.scalars.push_back({"throughput", 99, "samples/s"}); });
    record.outcomes.push_back(both);
    const auto lines = table_lines(record);
    const auto table = table_under(lines, "performance/mock_server/mock_server");
    ASSERT_EQ(table.size(), 2u) << benchhost::format_summary_table(record);
    EXPECT_NE(table[1].find("2.46k samples/s"), std::string::npos) << table[1];
    const auto other = table_under(lines, "performance/mock_server/other");
    ASSERT_EQ(other.size(), 2u);
    EXPECT_NE(other[1].find("12.0 items/s"), std::string::npos) << other[1];  // the series comes first
}

TEST(ConsoleTable, APeakSearchListsItsRatesAfterTheTables) {
    RunRecord record;
    bench::PeakSearch search;
    search.peak_qps = 1250;
    search.precision = 0.05;
    search.end = bench::peak_end_precision;
    search.steps = {
        {"coarse", 1250, 1248, 200, 200, 100, 0, true, "", {{"ttft", 500, 120, 480}, {"tpot", 50, 21, 38}}},
        {"coarse", 2500, 2400, 9, 200, 55.5, 2, false, "why", {{"ttft", 500, 900, 4000}, {"tpot", 50, 22, 41}}}};
    auto server =
        benchtest::Outcome("performance", "gpt2", "gpt2").series("latency", "ms", {1, 2}).edit([&](ScenarioOutcome& o) {
            o.config.load.slos = {{"ttft", 500}, {"tpot", 50}};
            o.result.peak_search = search;
        });
    record.outcomes.push_back(server);
    const auto lines = lines_of(benchhost::format_summary_table(record));
    const auto table =
        table_under(lines, "Peak search of performance/gpt2/gpt2: p99 of ttft <= 500 ms, p99 of tpot <= 50.0 ms");
    ASSERT_EQ(table.size(), 4u) << benchhost::format_summary_table(record);
    EXPECT_EQ(table[0],
              "  #     RATE  ACHIEVED  TTFT P50  TTFT P99  TPOT P50  TPOT P99  GOODPUT  LATE  QUERIES  RESULT");
    EXPECT_EQ(table[1],
              "  1  1.25k/s   1.25k/s    120 ms    480 ms   21.0 ms   38.0 ms     100%     0      200  pass, peak");
    EXPECT_EQ(table[2], "  2  2.50k/s   2.40k/s    900 ms    4.00 s   22.0 ms   41.0 ms    55.5%     2    9/200  fail");
    EXPECT_EQ(table[3], "  peak 1.25k/s: the highest rate that passed; the lowest that failed, 2.50k/s, is within 5%");
    for (const std::string& line : lines) EXPECT_LE(benchhost::display_width(line), 100u) << line;
}

}  // namespace
