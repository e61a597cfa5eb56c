// One run, every format: the mock (eager and compiled) and fixture_faults' ok, skips and
// throws, run once, then read back from the console and from every file the run wrote,
// each parsed as what it is: the plugins' JSON, benchmark_summary.json and gbench.json
// with RapidJSON, the CSV as RFC 4180, junit.xml with an XML parser, the tables of the
// console and of report.md by their columns, report.html's scenario rows by their
// attributes. Every format names the same scenarios with the same statuses and medians:
// exactly where it carries the number (the JSON files, the CSV, the page's data-v), to
// the digits shown where it is text for people (console, report.md, JUnit's output);
// gbench.json holds the scenarios that succeeded. `benchhost export` of the run folder
// writes the same gbench.json and a JUnit file that reads the same.
#include <gtest/gtest.h>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include <cmath>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../support/csv.hpp"
#include "../support/mock_run.hpp"
#include "../support/test_support.hpp"

namespace {

using namespace benchtest;

/// What a format says of a scenario: its status and its latency median in ms (NaN where
/// it shows none), known to within `tolerance_ms` (0: the number itself).
struct Seen {
    std::string status;
    double median_ms = std::nan("");
    double tolerance_ms = 0;
};
using Scenarios = std::map<std::string, Seen>;  // by scenario id

/// A median as shown to people at the start of `text` ("40.7 us [40.2, 191]", "0.19 ns"),
/// in ms, known to half a unit of its last digit; nullopt where `text` starts otherwise.
std::optional<Seen> shown_median(const std::string& text) {
    static const std::regex figure(R"(^([0-9]+(\.([0-9]+))?) (ns|us|ms|s)\b)");
    static const std::map<std::string, double> ms_per = {{"ns", 1e-6}, {"us", 1e-3}, {"ms", 1}, {"s", 1e3}};
    std::smatch match;
    if (!std::regex_search(text, match, figure)) return std::nullopt;
    const double scale = ms_per.at(match[4].str());
    Seen seen;
    seen.median_ms = std::stod(match[1].str()) * scale;
    seen.tolerance_ms = 0.5 * std::pow(10.0, -static_cast<double>(match[3].length())) * scale;
    return seen;
}

std::vector<std::string> split(const std::string& text, const std::regex& separator) {
    std::vector<std::string> parts;
    for (std::sregex_token_iterator it(text.begin(), text.end(), separator, -1), end; it != end; ++it)
        if (!it->str().empty()) parts.push_back(it->str());
    return parts;
}

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(' ');
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

/// The cells of a Markdown table's row ("| a | b |  |"), trimmed, empty ones kept.
std::vector<std::string> markdown_cells(const std::string& line) {
    std::vector<std::string> cells;
    std::string cell;
    for (std::size_t i = 1; i < line.size(); ++i) {
        if (line[i] == '|') {
            cells.push_back(trim(cell));
            cell.clear();
        } else {
            cell += line[i];
        }
    }
    return cells;
}

bool is_status(const std::string& word) {
    for (const char* status : {"success", "skipped", "failed", "crashed", "timed_out", "exited", "rejected"})
        if (word == status) return true;
    return false;
}

class OutputFormatsTest : public MockRunTest {
protected:
    void SetUp() override {
        MockRunTest::SetUp();
        install_plugin(mock_plugin(), plugins, "performance");
        install_plugin(fs::path(BENCH_TEST_FIXTURE_PLUGIN_DIR) / "integration/libfixture_faults.so", plugins,
                       "integration");
    }

    /// The scenarios of the plugins' reports, the reference the other formats are held
    /// to; and each scenario's config (category, plugin, benchmark, variant, ...).
    Scenarios from_plugin_reports() {
        Scenarios scenarios;
        for (const auto& report : reports) {
            if (!report.HasMember("benchmark_scenarios")) continue;
            for (const auto& s : report["benchmark_scenarios"].GetArray()) {
                const std::string id = s["scenario_id"].GetString();
                Seen seen{s["status"].GetString()};
                if (s["measurements"].HasMember("latency") && s["measurements"]["latency"].HasMember("median"))
                    seen.median_ms = s["measurements"]["latency"]["median"].GetDouble();
                scenarios[id] = seen;
                for (const auto& field : s["metadata"]["config"].GetObject())
                    if (field.value.IsString()) config[id][field.name.GetString()] = field.value.GetString();
                    else if (field.value.IsInt())
                        config[id][field.name.GetString()] = std::to_string(field.value.GetInt());
            }
        }
        return scenarios;
    }

    /// The id of the scenario of benchmark `benchmark` (category/plugin/benchmark) whose
    /// config has each of `axes` (name -> value); a text naming them where none or several do.
    std::string scenario_of(const std::string& benchmark, const std::map<std::string, std::string>& axes) const {
        std::vector<std::string> found;
        for (const auto& [id, fields] : config) {
            if (fields.at("category") + "/" + fields.at("plugin") + "/" + fields.at("benchmark") != benchmark) continue;
            bool all = true;
            for (const auto& [axis, value] : axes) all = all && fields.contains(axis) && fields.at(axis) == value;
            if (all) found.push_back(id);
        }
        if (found.size() == 1) return found[0];
        std::string text = benchmark + " with";
        for (const auto& [axis, value] : axes) text += " " + axis + "=" + value;
        return text + " (" + std::to_string(found.size()) + " scenarios match)";
    }

    /// The scenario whose id is `category/<name>` for the skipped `name` (plugin/scenario)
    /// that the console and report.md list.
    std::string skipped_scenario(const std::string& name) const {
        std::vector<std::string> found;
        for (const auto& [id, fields] : config)
            if (id == fields.at("category") + "/" + name) found.push_back(id);
        return found.size() == 1 ? found[0] : name + " (" + std::to_string(found.size()) + " scenarios match)";
    }

    /// The console: under each benchmark's id, a table whose columns before STATUS are
    /// the axes that vary; the skipped scenarios, by reason, under "Skipped:".
    Scenarios from_console(const std::string& text) const {
        Scenarios scenarios;
        std::istringstream lines(text);
        std::string line, benchmark;
        std::vector<std::string> axes;
        bool in_table = false, in_skipped = false;
        const std::regex columns(" {2,}"), words(" +");
        while (std::getline(lines, line)) {
            if (line.empty()) {
                in_table = false;
                continue;
            }
            if (line == "Skipped:" || line == "Problems:") {
                in_skipped = line == "Skipped:";
                benchmark.clear();
                continue;
            }
            if (line[0] != ' ') {
                in_skipped = false;
                benchmark = line.find(' ') == std::string::npos && line.find('/') != std::string::npos ? line : "";
                continue;
            }
            if (in_skipped) {  // "  <reason> (N scenarios: plugin/a, plugin/b)"
                static const std::regex listed(R"(\((\d+) scenarios?: (.*)\)$)");
                std::smatch match;
                if (!std::regex_search(line, match, listed)) continue;
                for (const std::string& name : split(match[2].str(), std::regex(", ")))
                    scenarios[skipped_scenario(name)] = Seen{"skipped"};
                continue;
            }
            if (benchmark.empty()) continue;
            const std::vector<std::string> cells = split(trim(line), in_table ? words : columns);
            if (!in_table) {  // the header
                axes.clear();
                for (const std::string& cell : cells) {
                    if (cell == "STATUS") break;
                    std::string axis = cell;
                    for (char& c : axis) c = c == ' ' ? '_' : static_cast<char>(std::tolower(c));
                    axes.push_back(axis);
                }
                in_table = true;
                continue;
            }
            if (cells.size() < axes.size() + 2 || !is_status(cells[axes.size()])) continue;  // a line under a row
            std::map<std::string, std::string> values;
            for (std::size_t i = 0; i < axes.size(); ++i) values[axes[i]] = cells[i];
            Seen seen{cells[axes.size()]};
            if (cells[axes.size() + 1] != "-") {
                const auto median = shown_median(cells[axes.size() + 1] + " " + cells[axes.size() + 2]);
                EXPECT_TRUE(median) << "console: no median in: " << line;
                if (median) seen = Seen{seen.status, median->median_ms, median->tolerance_ms};
            }
            scenarios[scenario_of(benchmark, values)] = seen;
        }
        return scenarios;
    }

    /// report.md: under each "### `<benchmark>`", a table whose columns before Status are
    /// the axes that vary; the skipped scenarios under "## Skipped".
    Scenarios from_markdown(const std::string& text) const {
        Scenarios scenarios;
        std::istringstream lines(text);
        std::string line, benchmark;
        std::vector<std::string> header;
        bool in_skipped = false;
        while (std::getline(lines, line)) {
            if (line.starts_with("## ")) {
                in_skipped = line == "## Skipped";
                benchmark.clear();
                continue;
            }
            if (line.starts_with("### `") && line.ends_with("`")) {
                benchmark = line.substr(5, line.size() - 6);
                header.clear();
                continue;
            }
            if (in_skipped && line.starts_with("- ")) {
                static const std::regex name("`([^`]+)`");
                for (std::sregex_iterator it(line.begin(), line.end(), name), end; it != end; ++it)
                    scenarios[skipped_scenario((*it)[1].str())] = Seen{"skipped"};
                continue;
            }
            if (benchmark.empty() || !line.starts_with("|")) continue;
            const std::vector<std::string> cells = markdown_cells(line);
            if (header.empty()) {
                header = cells;
                continue;
            }
            if (line.starts_with("|---")) continue;
            std::map<std::string, std::string> values;
            Seen seen;
            for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) {
                std::string cell = cells[i];
                if (cell.starts_with("**") && cell.ends_with("**")) cell = cell.substr(2, cell.size() - 4);
                if (header[i] == "Status") {
                    seen.status = cell;
                } else if (header[i] == "Median (95% CI)") {
                    if (const auto median = shown_median(cell))
                        seen = Seen{seen.status, median->median_ms, median->tolerance_ms};
                    else EXPECT_EQ(cell, "-") << "report.md: " << line;
                } else if (seen.status.empty()) {
                    values[header[i]] = cell;  // an axis, before Status
                }
            }
            scenarios[scenario_of(benchmark, values)] = seen;
        }
        return scenarios;
    }

    std::map<std::string, std::map<std::string, std::string>> config;  // by scenario id
};

/// benchmark_summary.json: an entry per scenario, its headline's latency median.
Scenarios from_summary(const rapidjson::Document& summary) {
    Scenarios scenarios;
    for (const auto& entry : summary["results"].GetArray()) {
        Seen seen{entry["status"].GetString()};
        if (entry["headline"].HasMember("latency")) seen.median_ms = entry["headline"]["latency"]["median"].GetDouble();
        scenarios[entry["scenario_id"].GetString()] = seen;
    }
    return scenarios;
}

/// The CSV: a row per scenario, its columns found by the header's names.
Scenarios from_csv(const std::string& text) {
    Scenarios scenarios;
    const auto rows = parse_csv(text);
    if (rows.empty()) return scenarios;
    std::map<std::string, std::size_t> column;
    for (std::size_t i = 0; i < rows[0].size(); ++i) column[rows[0][i]] = i;
    for (const char* name : {"scenario", "status", "latency_p50_ms"})
        if (!column.contains(name)) ADD_FAILURE() << "the CSV has no column " << name;
    if (column.size() < 3) return scenarios;
    for (std::size_t r = 1; r < rows.size(); ++r) {
        const auto& row = rows[r];
        Seen seen{row.at(column["status"])};
        if (!row.at(column["latency_p50_ms"]).empty()) seen.median_ms = std::stod(row.at(column["latency_p50_ms"]));
        scenarios[row.at(column["scenario"])] = seen;
    }
    return scenarios;
}

/// gbench.json: a "<id>/latency" run per scenario that succeeded, its median an aggregate.
Scenarios from_gbench(const rapidjson::Document& gbench) {
    Scenarios scenarios;
    static const std::map<std::string, double> ms_per = {{"ns", 1e-6}, {"us", 1e-3}, {"ms", 1}, {"s", 1e3}};
    for (const auto& b : gbench["benchmarks"].GetArray()) {
        const std::string run = b["run_name"].GetString();
        if (!b.HasMember("aggregate_name") || std::string(b["aggregate_name"].GetString()) != "median") continue;
        if (!run.ends_with("/latency")) continue;
        scenarios[run.substr(0, run.size() - 8)] =
            Seen{"success", b["real_time"].GetDouble() * ms_per.at(b["time_unit"].GetString())};
    }
    return scenarios;
}

/// report.html: a row per scenario that ran (data-id, its axes, its status, the median's exact
/// figure in data-v); the skipped ones in the section "skipped", by their ids' titles.
Scenarios from_html(const std::string& page) {
    Scenarios scenarios;
    static const std::regex row(R"re(<tr id="s-\d+" data-id="([^"]+)">(?:<td class="axis">[^<]*</td>)*)re"
                                R"re(<td><span class="status [a-z_ ]+">([a-z_]+)</span></td>)re"
                                R"re(<td class="num" data-v="([^"]*)">)re");
    for (std::sregex_iterator it(page.begin(), page.end(), row), end; it != end; ++it) {
        Seen seen{(*it)[2].str()};
        if ((*it)[3].length() > 0) {
            seen.median_ms = std::stod((*it)[3].str());
            seen.tolerance_ms = std::abs(seen.median_ms) * 1e-8;  // 9 significant digits
        }
        scenarios[(*it)[1].str()] = seen;
    }
    const auto skipped = page.find("<section id=\"skipped\">");
    if (skipped != std::string::npos) {
        const std::string section = page.substr(skipped, page.find("</section>", skipped) - skipped);
        static const std::regex title(R"re(<code title="([^"]+)">)re");
        for (std::sregex_iterator it(section.begin(), section.end(), title), end; it != end; ++it)
            scenarios[(*it)[1].str()] = Seen{"skipped"};
    }
    return scenarios;
}

/// junit.xml: a test case per scenario (classname category/plugin, name the scenario),
/// <skipped/>, <error type="STATUS"> or <failure>; the median in its output.
Scenarios from_junit(const std::string& xml) {
    namespace pt = boost::property_tree;
    pt::ptree tree;
    std::istringstream in(xml);
    pt::read_xml(in, tree);
    Scenarios scenarios;
    for (const auto& [tag, suite] : tree.get_child("testsuites")) {
        if (tag != "testsuite") continue;
        for (const auto& [case_tag, test] : suite) {
            if (case_tag != "testcase") continue;
            Seen seen{"success"};
            if (test.count("skipped") > 0) seen.status = "skipped";
            if (const auto error = test.get_child_optional("error"))
                seen.status = error->get<std::string>("<xmlattr>.type");
            if (test.count("failure") > 0) seen.status = "failure";
            const std::string out = test.get<std::string>("system-out", "");
            const auto at = out.find("latency: median ");
            if (at != std::string::npos)
                if (const auto median = shown_median(out.substr(at + 16)))
                    seen = Seen{seen.status, median->median_ms, median->tolerance_ms};
            scenarios[test.get<std::string>("<xmlattr>.classname") + "/" + test.get<std::string>("<xmlattr>.name")] =
                seen;
        }
    }
    return scenarios;
}

/// `format` names the scenarios of `reference` (those that succeeded with `only_successes`)
/// and no others, with the same statuses, and medians where the reference has them.
void expect_same(const Scenarios& reference, const Scenarios& format, const std::string& name,
                 bool only_successes = false) {
    std::size_t expected = 0;
    for (const auto& [id, want] : reference) {
        if (only_successes && want.status != "success") {
            EXPECT_FALSE(format.contains(id)) << name << " lists " << id << ", " << want.status;
            continue;
        }
        ++expected;
        const auto it = format.find(id);
        if (it == format.end()) {
            ADD_FAILURE() << name << " lacks " << id;
            continue;
        }
        const Seen& got = it->second;
        EXPECT_EQ(got.status, want.status) << name << ": " << id;
        if (std::isnan(want.median_ms)) {
            EXPECT_TRUE(std::isnan(got.median_ms)) << name << ": " << id << " shows a median " << got.median_ms;
        } else {
            EXPECT_NEAR(got.median_ms, want.median_ms, got.tolerance_ms + 1e-12 * std::abs(want.median_ms))
                << name << ": " << id;
        }
    }
    EXPECT_EQ(format.size(), expected) << name << " lists scenarios the plugins' reports do not";
}

TEST_F(OutputFormatsTest, EveryFormatShowsTheSameScenariosStatusesAndMedians) {
    run({"--enable-mock", "--include", "mock_benchmark/mock_benchmark", "--include", "fixture_faults/ok", "--include",
         "fixture_faults/skips", "--include", "fixture_faults/throws", "--variants", "eager,compiled", "--param",
         "base_units=20000", "--format", "gbench-json", "--format", "junit"},
        1);  // a scenario failed
    const Scenarios reference = from_plugin_reports();
    // What the run is: two mock scenarios and three of fixture_faults, one of each way of ending.
    ASSERT_EQ(reference.size(), 5u) << last.out << last.err;
    std::map<std::string, int> statuses;
    for (const auto& [id, seen] : reference) {
        ++statuses[seen.status];
        EXPECT_EQ(std::isnan(seen.median_ms), seen.status != "success") << id;
    }
    EXPECT_EQ(statuses, (std::map<std::string, int>{{"success", 3}, {"skipped", 1}, {"failed", 1}}));

    expect_same(reference, from_console(last.out), "the console");
    expect_same(reference, from_summary(read_json(output / "benchmark_summary.json")), "benchmark_summary.json");
    const auto csv = files_matching(output, "benchmark_results_", ".csv");
    ASSERT_EQ(csv.size(), 1u);
    expect_same(reference, from_csv(read_file(csv[0])), "the CSV");
    expect_same(reference, from_markdown(read_file(output / "report.md")), "report.md");
    expect_same(reference, from_html(read_file(output / "report.html")), "report.html");
    expect_same(reference, from_junit(read_file(output / "junit.xml")), "junit.xml");
    expect_same(reference, from_gbench(read_json(output / "gbench.json")), "gbench.json", true);

    // The export of the run folder: the same gbench.json, and a JUnit file that reads the same.
    const ProcessResult gbench = run_host({"export", output.string(), "--format", "gbench-json"}, work.path());
    ASSERT_EQ(gbench.exit_code, 0) << gbench.err;
    EXPECT_EQ(gbench.out, read_file(output / "gbench.json"));
    const ProcessResult junit = run_host({"export", output.string(), "--format", "junit"}, work.path());
    ASSERT_EQ(junit.exit_code, 0) << junit.err;
    expect_same(reference, from_junit(junit.out), "benchhost export --format junit");
}

TEST_F(OutputFormatsTest, TheExportOfARunAgainstABaselineHasItsVerdicts) {
    // A run whose mock does three times the work of its baseline's: slower, in junit.xml
    // and summary.md as the run writes them, and in their export from its folder.
    const std::vector<std::string> mock = {"--enable-mock",
                                           "--include",
                                           "mock_benchmark/mock_benchmark",
                                           "--variants",
                                           "eager",
                                           "--measurement-iterations",
                                           "10",
                                           "--monitor-interval",
                                           "0"};
    const fs::path base = work / "base";
    std::vector<std::string> options = mock;
    ASSERT_EQ(run_into(base, options).exit_code, 0);
    options.insert(options.end(),
                   {"--param", "slowdown=3", "--baseline", base.string(), "--format", "junit,summary-md"});
    const ProcessResult slower = run_into(output, options);
    ASSERT_EQ(slower.exit_code, 0) << slower.err;
    const std::string junit_file = read_file(output / "junit.xml");
    ASSERT_NE(junit_file.find("<failure"), std::string::npos) << junit_file;
    ASSERT_NE(junit_file.find("type=\"slower\""), std::string::npos) << junit_file;
    const std::string summary_file = read_file(output / "summary.md");

    const ProcessResult junit = host({"export", output.string(), "--format", "junit"});
    ASSERT_EQ(junit.exit_code, 0) << junit.err;
    EXPECT_NE(junit.out.find("type=\"slower\""), std::string::npos) << junit.out;
    EXPECT_EQ(junit.out, junit_file);
    const ProcessResult summary = host({"export", output.string(), "--format", "summary-md"});
    ASSERT_EQ(summary.exit_code, 0) << summary.err;
    EXPECT_EQ(summary.out, summary_file);

    // A comparison that cannot be read is named, and the rest is exported without verdicts.
    write_file(output / "comparison.json", "{");
    const ProcessResult broken = host({"export", output.string(), "--format", "junit"});
    EXPECT_EQ(broken.exit_code, 0) << broken.err;
    EXPECT_NE(broken.err.find((output / "comparison.json").string()), std::string::npos) << broken.err;
    EXPECT_EQ(broken.out.find("<failure"), std::string::npos) << broken.out;
}

}  // namespace
