// The JSON Schemas of the report files (docs/schema): they are well-formed draft-04
// schemas that document every property, they reject what the format does not allow
// with a message naming the field, and what the host really writes matches them.
#include <gtest/gtest.h>

#include <functional>
#include <regex>
#include <set>
#include <string>

#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include "../../support/mock_run.hpp"
#include "../../support/report_schema.hpp"
#include "../../support/test_support.hpp"

namespace {

using namespace benchtest;
using rapidjson::Document;
using rapidjson::Value;

const fs::path schema_dir = BENCH_SCHEMA_DIR;

Document parse(const std::string& json) {
    Document document;
    document.Parse(json.c_str());
    EXPECT_FALSE(document.HasParseError()) << "test JSON does not parse at offset " << document.GetErrorOffset();
    return document;
}

/// Sets the value at `pointer` (e.g. "/benchmark_scenarios/0/status") from JSON text.
void set(Document& document, const char* pointer, const std::string& json) {
    Document value;
    value.Parse(json.c_str());
    ASSERT_FALSE(value.HasParseError()) << json;
    rapidjson::Pointer(pointer).Set(document, Value(value, document.GetAllocator()));
}

void erase(Document& document, const char* pointer) {
    ASSERT_TRUE(rapidjson::Pointer(pointer).Erase(document)) << pointer;
}

// ---- the schemas themselves ------------------------------------------------------

const std::set<std::string> simple_types = {"array", "boolean", "integer", "null", "number", "object", "string"};

/// Checks a schema node and every schema under it: keywords of the right shape, known
/// types, "$ref"s that resolve, "required" names that are declared properties,
/// patterns that compile, and a "description" on every declared property.
void check_schema_node(const Document& root, const Value& node, const std::string& where) {
    ASSERT_TRUE(node.IsObject()) << where << ": a schema must be an object";
    if (node.HasMember("$ref")) {
        ASSERT_TRUE(node["$ref"].IsString()) << where;
        const std::string ref = node["$ref"].GetString();
        ASSERT_EQ(ref.rfind("#/", 0), 0u) << where << ": only local references: " << ref;
        EXPECT_NE(rapidjson::Pointer(ref.substr(1).c_str()).Get(root), nullptr)
            << where << ": $ref " << ref << " does not resolve";
    }
    if (node.HasMember("type")) {
        const Value& type = node["type"];
        if (type.IsString()) {
            EXPECT_EQ(simple_types.count(type.GetString()), 1u) << where << ": type " << type.GetString();
        } else {
            ASSERT_TRUE(type.IsArray()) << where << ": type must be a string or an array";
            for (const auto& t : type.GetArray())
                EXPECT_TRUE(t.IsString() && simple_types.count(t.GetString()) == 1) << where << ": a type in the list";
        }
    }
    if (node.HasMember("enum")) {
        EXPECT_TRUE(node["enum"].IsArray() && !node["enum"].Empty()) << where << ": enum";
    }
    if (node.HasMember("pattern")) {
        ASSERT_TRUE(node["pattern"].IsString()) << where;
        EXPECT_NO_THROW(std::regex(node["pattern"].GetString(), std::regex::ECMAScript)) << where << ": pattern";
    }
    for (const char* keyword : {"minimum", "maximum"}) {
        if (node.HasMember(keyword)) {
            EXPECT_TRUE(node[keyword].IsNumber()) << where << ": " << keyword;
        }
    }
    for (const char* keyword : {"minItems", "maxItems"}) {
        if (node.HasMember(keyword)) {
            EXPECT_TRUE(node[keyword].IsUint()) << where << ": " << keyword;
        }
    }
    if (node.HasMember("description")) {
        EXPECT_TRUE(node["description"].IsString()) << where << ": description";
    }

    std::set<std::string> declared;
    if (node.HasMember("properties")) {
        ASSERT_TRUE(node["properties"].IsObject()) << where << ": properties";
        for (const auto& property : node["properties"].GetObject()) {
            const std::string name = property.name.GetString();
            declared.insert(name);
            const std::string at = where + "/properties/" + name;
            EXPECT_TRUE(property.value.IsObject() && property.value.HasMember("description"))
                << at << ": every property is documented with a description";
            check_schema_node(root, property.value, at);
        }
    }
    if (node.HasMember("required")) {
        ASSERT_TRUE(node["required"].IsArray() && !node["required"].Empty()) << where << ": required";
        for (const auto& name : node["required"].GetArray()) {
            ASSERT_TRUE(name.IsString()) << where << ": required";
            EXPECT_EQ(declared.count(name.GetString()), 1u)
                << where << ": required '" << name.GetString() << "' is not a declared property";
        }
    }
    if (node.HasMember("patternProperties")) {
        ASSERT_TRUE(node["patternProperties"].IsObject()) << where;
        for (const auto& property : node["patternProperties"].GetObject()) {
            EXPECT_NO_THROW(std::regex(property.name.GetString(), std::regex::ECMAScript)) << where;
            check_schema_node(root, property.value, where + "/patternProperties/" + property.name.GetString());
        }
    }
    if (node.HasMember("additionalProperties")) {
        const Value& additional = node["additionalProperties"];
        if (additional.IsBool()) {
            EXPECT_FALSE(additional.GetBool()) << where << ": write additionalProperties: true by leaving it out";
        } else {
            check_schema_node(root, additional, where + "/additionalProperties");
        }
    }
    if (node.HasMember("items")) check_schema_node(root, node["items"], where + "/items");
    for (const char* keyword : {"oneOf", "anyOf", "allOf"}) {
        if (!node.HasMember(keyword)) continue;
        ASSERT_TRUE(node[keyword].IsArray() && !node[keyword].Empty()) << where << ": " << keyword;
        int i = 0;
        for (const auto& alternative : node[keyword].GetArray())
            check_schema_node(root, alternative, where + "/" + keyword + "/" + std::to_string(i++));
    }
    if (node.HasMember("definitions")) {
        ASSERT_TRUE(node["definitions"].IsObject()) << where;
        for (const auto& definition : node["definitions"].GetObject()) {
            const std::string at = where + "/definitions/" + definition.name.GetString();
            EXPECT_TRUE(definition.value.HasMember("description")) << at << ": every definition is documented";
            check_schema_node(root, definition.value, at);
        }
    }
}

TEST(ReportSchema, BothFilesAreDocumentedDraft04Schemas) {
    for (const char* name : {"report.schema.json", "summary.schema.json", "comparison.schema.json"}) {
        SCOPED_TRACE(name);
        Document schema;
        const std::string text = read_file(schema_dir / name);
        schema.Parse(text.c_str());
        ASSERT_FALSE(schema.HasParseError()) << "not valid JSON at offset " << schema.GetErrorOffset();
        ASSERT_TRUE(schema.IsObject());
        ASSERT_TRUE(schema.HasMember("$schema"));
        EXPECT_STREQ(schema["$schema"].GetString(), "http://json-schema.org/draft-04/schema#");
        for (const char* key : {"title", "description"})
            EXPECT_TRUE(schema.HasMember(key) && schema[key].IsString()) << key;
        // The format's version: an integer, one of the versions the schema describes.
        const Value* version = rapidjson::Pointer("/properties/schema_version").Get(schema);
        ASSERT_NE(version, nullptr);
        EXPECT_STREQ((*version)["type"].GetString(), "integer");
        ASSERT_TRUE((*version)["enum"].IsArray());
        for (const auto& v : (*version)["enum"].GetArray()) EXPECT_TRUE(v.IsInt() && v.GetInt() >= 1);
        check_schema_node(schema, schema, "#");
    }
    // The helper's copies are these files.
    EXPECT_TRUE(report_schema().IsObject());
    EXPECT_TRUE(summary_schema().IsObject());
}

// Another implementation, where one is installed: scripts/validate_reports (Python's
// jsonschema, python3-jsonschema; not required by the build) checks the schemas against
// the draft-04 meta-schema and a real run against them.
TEST(ReportSchema, PythonJsonschemaAcceptsTheSchemasAndARealRun) {
    const fs::path script = fs::path(BENCH_TEST_SOURCE_DIR) / "scripts/validate_reports";
    TempDir work;
    install_plugin(mock_plugin(), work / "plugins", "performance");
    const fs::path output = work / "out";
    const ProcessResult run =
        run_process({benchhost_binary().string(), "run", "--plugins-dir", (work / "plugins").string(), "--output-dir",
                     output.string(), "--enable-mock", "--variants", "eager", "--warmup-iterations", "1",
                     "--measurement-iterations", "3", "--num-tokens-to-generate", "2"},
                    work.path());
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const ProcessResult check = run_process({debian_python(), script.string(), output.string()});
    if (check.exit_code == 2) GTEST_SKIP() << check.err;
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    EXPECT_NE(check.out.find("2 of 2 files match docs/schema"), std::string::npos) << check.out;

    // And it finds what does not match.
    const fs::path report = files_matching(output / "mock_benchmark", "mock_benchmark_", ".json").at(0);
    std::string text = read_file(report);
    text.replace(text.find("\"status\""), 8, "\"state\"");
    write_file(report, text);
    const ProcessResult bad = run_process({debian_python(), script.string(), output.string()});
    EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
    EXPECT_NE(bad.out.find("'status' is a required property"), std::string::npos) << bad.out;
}

// ---- what the schemas reject ------------------------------------------------------

const char* const good_report = R"({
  "model_name": "alpha",
  "schema_version": 1,
  "benchmark_scenarios": [
    {
      "scenario_name": "inference[batch=4]",
      "scenario_id": "performance/alpha/inference[batch=4]",
      "benchmark": "inference",
      "status": "success",
      "metadata": {
        "timestamp": "2026-11-22T11:50:00Z",
        "commit_id": "abc123",
        "hardware_info": {"cpu": {"model": "Test CPU", "logical_cores": "2"}, "warnings": []},
        "config": {"category": "performance", "plugin": "alpha", "benchmark": "inference",
                   "scenario_name": "inference[batch=4]", "variant": "eager", "compile_mode": "default",
                   "batch_size": 4, "dtype": "float32", "device": "cpu", "threads": 0, "warmup_iterations": 1,
                   "measurement_iterations": 3, "num_tokens_to_generate": 20, "model_id": "",
                   "params": {"size": ["224"]}},
        "plugin_version": "1.2.3",
        "plugin_path": "/opt/plugins/performance/libalpha.so"
      },
      "measurements": {
        "latency": {"mean": 2.0, "median": 2.0, "std": 1.0, "min": 1.0, "max": 3.0, "p25": 1.5, "p75": 2.5,
                    "p90": 2.8, "p95": 2.9, "p99": 2.98, "count": 3, "unit": "ms", "inner_iterations": 1,
                    "measurements": [1.0, 2.0, 3.0]},
        "empty": {"mean": null, "median": null, "std": null, "min": null, "max": null, "p25": null, "p75": null,
                  "p90": null, "p95": null, "p99": null, "count": 0, "unit": "ms", "inner_iterations": 1,
                  "measurements": []},
        "peak_rss": {"value": 512, "unit": "MiB"}
      },
      "cpu_metrics": {"available": false, "reason": "monitoring disabled", "metrics": {}, "values": {}, "flags": {},
                      "info": {}, "warnings": [], "timeline": {"time_s": [], "series": {}}},
      "warnings": [],
      "info": {"framework": "none"},
      "wall_time_s": 0.5
    }
  ]
})";

const char* const good_summary = R"({
  "schema_version": 1,
  "run_metadata": {"timestamp": "20261122_115000", "started_at": "2026-11-22T11:50:00Z",
                   "finished_at": "2026-11-22T11:51:00Z", "host": "testhost", "commit_id": "abc123",
                   "host_version": "0.1.0", "interrupted": false, "state": "complete", "config": {"timeout": "60"},
                   "total_benchmarks": 1, "successful_runs": 1, "failed_runs": 0, "skipped_runs": 0,
                   "success_rate": 1.0},
  "context": {"cpu": {"model": "Test CPU"}, "warnings": ["CPU frequency scaling is on"]},
  "results": [
    {"scenario_id": "performance/alpha/inference[batch=4]", "category": "performance", "plugin": "alpha",
     "benchmark": "inference", "scenario_name": "inference[batch=4]", "status": "success", "reason": "",
     "variant": "eager", "batch_size": 4, "dtype": "float32", "device": "cpu",
     "report": "alpha/alpha_20261122_115000.json",
     "headline": {"latency": {"median": 2.0, "mean": 2.0, "p95": null, "unit": "ms"}},
     "monitors": {"cpu_metrics": {"available": true, "cpu_utilization": {"mean": 99.0, "max": 100.0, "unit": "%"},
                                  "peak_rss": {"value": 20.5, "unit": "MiB"}, "loaded": false}},
     "warnings": [], "wall_time_s": 0.5}
  ]
})";

TEST(ReportSchema, HandMadeReportsThatFollowTheFormatMatch) {
    EXPECT_EQ(schema_violation(report_schema(), parse(good_report)), "");
    EXPECT_EQ(schema_violation(summary_schema(), parse(good_summary)), "");
}

/// The message for `document` against `schema`, which must name every part of `expected`.
void expect_rejected(const Document& schema, const Document& document, std::initializer_list<const char*> expected) {
    const std::string message = schema_violation(schema, document);
    ASSERT_FALSE(message.empty()) << "accepted, but should not be";
    for (const char* part : expected)
        EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
}

TEST(ReportSchema, AMissingFieldIsNamed) {
    Document report = parse(good_report);
    erase(report, "/benchmark_scenarios/0/status");
    expect_rejected(report_schema(), report, {"/benchmark_scenarios/0", "required", "missing field 'status'"});

    report = parse(good_report);
    erase(report, "/benchmark_scenarios/0/measurements/latency/p95");
    expect_rejected(report_schema(), report, {"/benchmark_scenarios/0/measurements/latency", "missing field 'p95'"});

    Document summary = parse(good_summary);
    erase(summary, "/run_metadata/state");
    expect_rejected(summary_schema(), summary, {"/run_metadata", "missing field 'state'"});
}

TEST(ReportSchema, AWrongTypeIsNamed) {
    Document report = parse(good_report);
    set(report, "/benchmark_scenarios/0/metadata/config/batch_size", R"("4")");
    expect_rejected(report_schema(), report, {"/benchmark_scenarios/0/metadata/config/batch_size", "type", "string"});

    // A number that was not finite is null; anything else is not a number.
    report = parse(good_report);
    set(report, "/benchmark_scenarios/0/measurements/latency/median", R"("fast")");
    expect_rejected(report_schema(), report, {"/benchmark_scenarios/0/measurements/latency/median", "type"});

    report = parse(good_report);
    set(report, "/benchmark_scenarios/0/measurements/latency/measurements/1", "true");
    expect_rejected(report_schema(), report, {"/benchmark_scenarios/0/measurements/latency/measurements/1"});

    report = parse(good_report);
    set(report, "/schema_version", R"("1")");
    expect_rejected(report_schema(), report, {"/schema_version", "type"});

    report = parse(good_report);
    set(report, "/benchmark_scenarios/0/status", R"("exploded")");
    expect_rejected(report_schema(), report, {"/benchmark_scenarios/0/status", "enum", "exploded"});

    Document summary = parse(good_summary);
    set(summary, "/run_metadata/total_benchmarks", "1.5");
    expect_rejected(summary_schema(), summary, {"/run_metadata/total_benchmarks", "type"});

    summary = parse(good_summary);
    set(summary, "/results/0/monitors/cpu_metrics/loaded", R"("no")");
    expect_rejected(summary_schema(), summary, {"/results/0/monitors/cpu_metrics/loaded"});
}

TEST(ReportSchema, AnExtraFieldIsNamed) {
    Document report = parse(good_report);
    set(report, "/benchmark_scenarios/0/bogus", "1");
    expect_rejected(report_schema(), report, {"/benchmark_scenarios/0/bogus", "additionalProperties", "'bogus'"});

    report = parse(good_report);
    set(report, "/benchmark_scenarios/0/measurements/latency/p50", "2.0");
    expect_rejected(report_schema(), report, {"/benchmark_scenarios/0/measurements/latency/p50", "'p50'"});

    report = parse(good_report);
    set(report, "/benchmark_scenarios/0/metadata/extra", R"("x")");
    expect_rejected(report_schema(), report, {"/benchmark_scenarios/0/metadata/extra", "'extra'"});

    Document summary = parse(good_summary);
    set(summary, "/run_metadata/duration", "3");
    expect_rejected(summary_schema(), summary, {"/run_metadata/duration", "'duration'"});

    summary = parse(good_summary);
    set(summary, "/results/0/speed", "3");
    expect_rejected(summary_schema(), summary, {"/results/0/speed", "'speed'"});
}

TEST(ReportSchema, UserDefinedMapsStayOpen) {
    Document report = parse(good_report);
    set(report, "/benchmark_scenarios/0/info/anything", R"("goes")");
    set(report, "/benchmark_scenarios/0/metadata/config/params/my_param", R"(["1", "2"])");
    set(report, "/benchmark_scenarios/0/metadata/hardware_info/new_section", R"({"fact": "value"})");
    set(report, "/benchmark_scenarios/0/measurements/my_figure", R"({"value": null, "unit": ""})");
    set(report, "/benchmark_scenarios/0/gpu_metrics",
        R"({"available": true, "metrics": {"power": {"mean": 1, "min": 0, "max": 2, "count": 3, "unit": "W"}},
            "values": {"energy": {"value": 3.5, "unit": "J"}}, "flags": {"throttled": false},
            "info": {"device": "GPU"}, "warnings": [], "timeline": {"time_s": [0, 0.05], "series": {"power": [1, null]}}})");
    EXPECT_EQ(schema_violation(report_schema(), report), "");

    // But their values keep their types.
    set(report, "/benchmark_scenarios/0/info/anything", "42");
    expect_rejected(report_schema(), report, {"/benchmark_scenarios/0/info/anything", "type"});
}

TEST(ReportSchema, AMeasurementIsASeriesOrAFigure) {
    Document report = parse(good_report);
    set(report, "/benchmark_scenarios/0/measurements/latency/median", R"("fast")");
    // Why neither alternative fits, each named.
    expect_rejected(report_schema(), report,
                    {"/benchmark_scenarios/0/measurements/latency", "series", "value",
                     "/benchmark_scenarios/0/measurements/latency/median"});
}

// The fields being added with the statistics (optional: reports without them match too).
TEST(ReportSchema, OptionalStatisticsFieldsMatchWhenPresent) {
    Document report = parse(good_report);
    set(report, "/benchmark_scenarios/0/measurements/latency/cv", "0.5");
    set(report, "/benchmark_scenarios/0/measurements/latency/ci95",
        R"({"median": [1.0, 3.0], "mean": null, "level": 0.95, "method": "bootstrap"})");
    set(report, "/benchmark_scenarios/0/measurements/latency/outliers",
        R"({"low_severe": 0, "low_mild": 1, "high_mild": 0, "high_severe": 2})");
    set(report, "/benchmark_scenarios/0/measurements/latency/stable", "true");
    set(report, "/benchmark_scenarios/0/measurements/empty/cv", "null");
    set(report, "/benchmark_scenarios/0/sampling",
        R"({"latency": {"stop_reason": "target_ci_width", "elapsed_s": 1.5, "samples": 30, "target_ci_width": 0.02,
                        "ci_width": 0.018, "clock_resolution_ns": 20.0, "clock_cost_ns": 18.5}})");
    set(report, "/benchmark_scenarios/0/cold_start", R"({"first_call": {"value": 12.5, "unit": "ms"}})");
    set(report, "/benchmark_scenarios/0/speedup_over_eager",
        R"({"latency": {"value": 1.25, "ci95": [1.2, 1.3], "baseline_scenario_id": "performance/alpha/inference[variant=eager]"}})");
    set(report, "/benchmark_scenarios/0/rounds", "3");
    EXPECT_EQ(schema_violation(report_schema(), report), "");

    Document summary = parse(good_summary);
    set(summary, "/results/0/headline/latency/ci95_median", "[1.9, 2.1]");
    set(summary, "/results/0/headline/latency/cv", "null");
    set(summary, "/results/0/speedup_over_eager",
        R"({"latency": {"value": null, "ci95": null, "baseline_scenario_id": "x"}})");
    set(summary, "/results/0/rounds", "2");
    EXPECT_EQ(schema_violation(summary_schema(), summary), "");

    // Still typed.
    set(report, "/benchmark_scenarios/0/measurements/latency/outliers/low_mild", "-1");
    expect_rejected(report_schema(), report, {"/benchmark_scenarios/0/measurements/latency"});
    report = parse(good_report);
    set(report, "/benchmark_scenarios/0/measurements/latency/ci95",
        R"({"median": [1.0], "mean": null, "level": 0.95, "method": "bootstrap"})");
    expect_rejected(report_schema(), report, {"/benchmark_scenarios/0/measurements/latency"});
    report = parse(good_report);
    set(report, "/benchmark_scenarios/0/sampling", R"({"latency": {"stop_reason": "max_time"}})");
    expect_rejected(report_schema(), report, {"/benchmark_scenarios/0/sampling/latency", "missing field"});
    set(summary, "/results/0/rounds", "0");
    expect_rejected(summary_schema(), summary, {"/results/0/rounds", "minimum"});
}

// ---- what the host writes ---------------------------------------------------------

TEST(ReportSchema, ARealMockRunMatches) {
    TempDir work;
    install_plugin(mock_plugin(), work / "plugins", "performance");
    install_plugin(fs::path(BENCH_TEST_FIXTURE_PLUGIN_DIR) / "integration/libfixture_faults.so", work / "plugins",
                   "integration");
    const fs::path output = work / "out";
    // Successes, a skip and failures of each kind (the hang excluded, for time).
    const ProcessResult result =
        run_process({benchhost_binary().string(), "run", "--plugins-dir", (work / "plugins").string(), "--output-dir",
                     output.string(), "--enable-mock", "--variants", "eager,compiled", "--warmup-iterations", "1",
                     "--measurement-iterations", "3", "--num-tokens-to-generate", "2", "--exclude", "hangs"},
                    work.path());
    ASSERT_EQ(result.exit_code, 1) << result.err;  // the faults fail
    ASSERT_TRUE(fs::exists(output / "benchmark_summary.json"));
    const std::vector<std::string> problems = run_folder_schema_violations(output);
    EXPECT_TRUE(problems.empty()) << problems.front();

    // And the helper does catch a report that no longer matches.
    const fs::path report = files_matching(output / "mock_benchmark", "mock_benchmark_", ".json").at(0);
    std::string text = read_file(report);
    const auto at = text.find("\"median\"");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 8, "\"middle\"");
    write_file(report, text);
    const std::vector<std::string> after = run_folder_schema_violations(output);
    ASSERT_EQ(after.size(), 1u);
    EXPECT_NE(after[0].find(report.string()), std::string::npos) << after[0];
    EXPECT_NE(after[0].find("middle"), std::string::npos) << after[0];
}

TEST(ReportSchema, ComparisonsOfEveryVersionMatch) {
    // As the first writer wrote it (schema_version 1: no mode, noise floor, load, notes).
    const char* first = R"({"schema_version": 1, "base": "base", "new": "new", "threshold": 0.05, "alpha": 0.05,
        "comparable": true, "incomparable": [],
        "rows": [{"scenario_id": "performance/mock/x", "series": "latency", "base_median_ms": 1.0,
                  "new_median_ms": 1.1, "base_samples": 30, "new_samples": 30, "ratio": 1.1,
                  "ratio_ci95": [1.08, 1.12], "p_value": 0.0001, "verdict": "slower"}],
        "geomean_ratio": 1.1, "only_in_base": [], "only_in_new": [], "not_compared": [],
        "counts": {"slower": 1, "faster": 0, "same": 0}})";
    Document old;
    old.Parse(first);
    ASSERT_FALSE(old.HasParseError());
    EXPECT_EQ(schema_violation(comparison_schema(), old), "");
    // A field the format does not have is named.
    old.AddMember("extra", 1, old.GetAllocator());
    EXPECT_NE(schema_violation(comparison_schema(), old).find("extra"), std::string::npos);
}

}  // namespace
